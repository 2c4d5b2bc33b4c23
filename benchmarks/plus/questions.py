"""ReasonMap-Plus questions: dense counting and true/false questions with exact answers.

The follow-up work (RewardMap) adds easier questions to ReasonMap whose
answers are an option letter, an integer, or yes/no. This module holds their
templates and their seeded generation from the transit graph (the records are in
:mod:`benchmarks.plus.records`).
The field's own wording is not public; the templates below are the toolkit's.

=============  ===========================================================  ==========================
Type           Asks                                                         Answer
=============  ===========================================================  ==========================
``Counting1``  stops between two stations of a line (both excluded)         option letter ``A``–``D``
``Counting2``  lines serving a station                                      integer
``Counting3``  stations of a line                                           integer
``TorF1``      is a station on a line?                                      ``yes`` / ``no``
``TorF2``      can one ride between two stations without a transfer?       ``yes`` / ``no``
=============  ===========================================================  ==========================

Generation, per map and type, from ``random.Random(f"reasonmap-plus:{seed}:{city}:{type}")``
(so one type's count never shifts another's draws):

- ``Counting1``: lines with two stations or more in shuffled order, taken in
  turn, each giving an unused random station pair; the truth is the via count
  of the line's shortest ride (``graph.ride``: loops and branches included).
  The truth's letter follows a shuffled A–D cycle (letters balanced within one
  per map); the three distractors are distinct non-negative integers drawn
  from within 3 of the truth, placed in the other letters in random order.
- ``Counting2``: transfer stations and one-line stations in turn (a shuffled
  cycle), so that answers are not all 1.
- ``Counting3``: at most one question per line.
- ``TorF1`` and ``TorF2``: as many ``yes`` as ``no`` (one more of either,
  drawn, for an odd count); when a map cannot give enough of one (a one-line
  map has no ``no``), the other is cut to match and the map gives fewer.

Plus questions have no question difficulty (each is one lookup); they carry
the map's difficulty, which weights them (1 / 1.5 / 2).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from typing import Any

from benchmarks.network_facts import (
    balanced,
    balanced_yes_no,
    between_draws,
    line_label,
    nameable_stations,
    same_line_draws,
)
from benchmarks.plus.records import ANSWER_KINDS, ENTITIES, OPTION_LETTERS, PLUS_TYPES, PlusQuestion
from benchmarks.splits import questions_of_maps, type_counts, typed_draws
from graphkit.graph import TransitGraph
from graphkit.stats import city_stats

__all__ = [
    "DEFAULT_PER_TYPE",
    "line_label",
    "plus_question_text",
    "generate_plus_questions",
    "generate_plus_set",
    "format_type_counts",
]

DEFAULT_PER_TYPE = 10
_DISTRACTOR_SPREAD = 3

_OPENING = "According to the subway map, "
_TEMPLATES: dict[str, str] = {
    "Counting1": (
        "how many stops are there between {station_1} and {station_2} on {line}, riding the shortest way "
        "and counting neither {station_1} nor {station_2}?\n{options}\n"
        "Answer with the letter of the correct option."
    ),
    "Counting2": "how many lines serve {station}? Answer with a single integer.",
    "Counting3": (
        "how many stations does {line} have? Count every station of the line once, both ends and any branches "
        "included. Answer with a single integer."
    ),
    "TorF1": "is {station} a station of {line}? Answer yes or no.",
    "TorF2": "can one ride from {station_1} to {station_2} without changing lines? Answer yes or no.",
}


# -- templates -----------------------------------------------------------------


def plus_question_text(
    kind: str,
    *,
    station: str | None = None,
    line: str | None = None,
    station_1: str | None = None,
    station_2: str | None = None,
    options: Sequence[int] | None = None,
) -> str:
    """The question text of a plus type for its entities.

    Parameters
    ----------
    kind : str
        The plus type.
    station, line, station_1, station_2 : str, optional
        The names the type's question needs.
    options : sequence of int, optional
        ``Counting1``'s four options.

    Returns
    -------
    str
        The question.

    Raises
    ------
    ValueError
        ``kind`` is not a plus type, an entity it needs is missing, or ``Counting1`` lacks its four options.

    Examples
    --------
    >>> print(plus_question_text("Counting1", station_1="P", station_2="Q", line="1", options=(3, 1, 2, 4)))
    According to the subway map, how many stops are there between P and Q on Line 1, riding the shortest way \
and counting neither P nor Q?
    A. 3
    B. 1
    C. 2
    D. 4
    Answer with the letter of the correct option.
    >>> plus_question_text("TorF2", station_1="P", station_2="Q")
    'According to the subway map, can one ride from P to Q without changing lines? Answer yes or no.'
    """
    if kind not in PLUS_TYPES:
        raise ValueError(f"type must be one of {list(PLUS_TYPES)}, got {kind!r}")
    given = {"station": station, "line": line, "station_1": station_1, "station_2": station_2}
    missing = [name for name in ENTITIES[kind] if given[name] is None]
    if missing:
        raise ValueError(f"{kind} needs {', '.join(missing)}")
    if kind == "Counting1" and (options is None or len(options) != len(OPTION_LETTERS)):
        raise ValueError(f"Counting1 needs {len(OPTION_LETTERS)} options, got {options!r}")
    fields = dict(given, line=line_label(line) if line is not None else None)
    if options is not None:
        fields["options"] = "\n".join(f"{letter}. {value}" for letter, value in zip(OPTION_LETTERS, options))
    return _OPENING + _TEMPLATES[kind].format(**fields)


# -- generation ----------------------------------------------------------------


def _counting1(graph: TransitGraph, count: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    draws = between_draws(graph, rng)
    letters = balanced(OPTION_LETTERS, count, rng)
    for made, (name, a, b, truth) in zip(range(count), draws):
        near = [v for v in range(truth - _DISTRACTOR_SPREAD, truth + _DISTRACTOR_SPREAD + 1) if v >= 0 and v != truth]
        values = rng.sample(near, len(OPTION_LETTERS) - 1)
        letter = letters[made]
        values.insert(OPTION_LETTERS.index(letter), truth)
        yield {"station_1": a, "station_2": b, "line": name, "options": tuple(values), "answer": letter}


def _counting2(graph: TransitGraph, count: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    named = nameable_stations(graph)
    transfer = [station for station in named if len(graph.lines_at(station)) > 1]
    single = [station for station in named if len(graph.lines_at(station)) == 1]
    rng.shuffle(transfer)
    rng.shuffle(single)
    pools = [transfer, single]
    for turn in balanced((0, 1), count, rng):
        pool = pools[turn] or pools[1 - turn]
        if not pool:
            return
        station = pool.pop()
        yield {"station": station, "answer": len(graph.lines_at(station))}


def _counting3(graph: TransitGraph, count: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    lines = list(graph.lines)
    rng.shuffle(lines)
    for name in lines[:count]:
        yield {"line": name, "answer": len(graph.lines[name].stations)}


def _torf1(graph: TransitGraph, count: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    named = nameable_stations(graph)
    kept = set(named)
    yes = [
        (station, name) for name, topology in graph.lines.items() for station in topology.stations if station in kept
    ]
    no = [(station, name) for name in graph.lines for station in named if name not in graph.lines_at(station)]
    for (station, name), answer in balanced_yes_no(yes, no, count, rng):
        yield {"station": station, "line": name, "answer": answer}


_GENERATORS = {
    "Counting1": _counting1,
    "Counting2": _counting2,
    "Counting3": _counting3,
    "TorF1": _torf1,
    "TorF2": same_line_draws,
}


def generate_plus_questions(
    graph: TransitGraph,
    *,
    seed: int = 0,
    per_type: int = DEFAULT_PER_TYPE,
    types: Iterable[str] = PLUS_TYPES,
) -> list[PlusQuestion]:
    """Plus questions for one map, type after type.

    Parameters
    ----------
    graph : TransitGraph
    seed : int
        Seeds every draw, mixed with the city's name and the type.
    per_type : int
        At most this many questions of each type (fewer where the map has
        fewer: one ``Counting3`` per line, balanced ``TorF`` answers).
    types : iterable of str
        The types to generate, in :data:`PLUS_TYPES` order whatever the order given.

    Returns
    -------
    list of PlusQuestion
        Ids are ``f"{city}-plus-{type}-{n:03d}"``, ``n`` counting from 0 per type; with a seed
        other than 0, ``f"{city}-s{seed}-plus-{type}-{n:03d}"`` (see
        :func:`~benchmarks.splits.seeded_prefix`).

    Raises
    ------
    ValueError
        A type is not a plus type, or ``per_type`` is negative.

    Examples
    --------
    >>> from graphkit import city_graph
    >>> questions = generate_plus_questions(city_graph("rome"), seed=0, per_type=2)
    >>> [(q.id, q.answer) for q in questions if q.type == "Counting3"]
    [('rome-plus-Counting3-000', 27), ('rome-plus-Counting3-001', 22)]
    """
    draws = typed_draws(graph, _GENERATORS, types, per_type=per_type, seed=seed, task="plus")
    city = graph.city or "custom"
    difficulty = city_stats(graph.metro).difficulty
    found: list[PlusQuestion] = []
    for identifier, kind, drawn in draws:
        answer = drawn.pop("answer")
        found.append(
            PlusQuestion(
                id=identifier,
                type=kind,
                country=graph.metro.country,
                city=city,
                question=plus_question_text(kind, **drawn),
                answer=answer,
                difficulty_city=difficulty,
                **drawn,
            )
        )
    return found


def generate_plus_set(
    graphs: Iterable[TransitGraph],
    *,
    seed: int = 0,
    per_type: int = DEFAULT_PER_TYPE,
    types: Iterable[str] = PLUS_TYPES,
    progress: bool = False,
) -> list[PlusQuestion]:
    """Plus questions for several maps, one after another (see :func:`generate_plus_questions`).

    Parameters
    ----------
    graphs : iterable of TransitGraph
        The maps.
    seed, per_type, types
        As :func:`generate_plus_questions`.
    progress : bool, optional
        Show a bar over the maps on stderr.

    Returns
    -------
    list of PlusQuestion
        Each map's questions in turn.

    Raises
    ------
    ValueError
        As :func:`generate_plus_questions`.
    """
    one_map = partial(generate_plus_questions, seed=seed, per_type=per_type, types=tuple(types))
    return questions_of_maps(graphs, one_map, progress=progress)


def format_type_counts(questions: Sequence[PlusQuestion]) -> str:
    """Questions per type and their answers' spread, as a small table.

    Parameters
    ----------
    questions : sequence of PlusQuestion
        The questions.

    Returns
    -------
    str
        The table of :func:`benchmarks.splits.type_counts`, a row per plus type.

    Examples
    --------
    >>> from graphkit import city_graph
    >>> print(format_type_counts(generate_plus_questions(city_graph("rome"), per_type=4)))
    type        questions  answers
    Counting1           4  A:1 B:1 C:1 D:1
    Counting2           4  1 to 2, mean 1.5
    Counting3           3  22 to 27, mean 25.0
    TorF1               4  no:2 yes:2
    TorF2               4  no:2 yes:2
    total              19
    """
    return type_counts(questions, ANSWER_KINDS, width=10)

"""Perception probes: single steps a route needs, asked on the same maps, with references from the graph.

=================  ==========================================================  ===========================
Type               Asks                                                        Answer
=================  ==========================================================  ===========================
``lines_at``       which lines serve station X                                 set of line names
``follow``         the stations in order from A to B along line L              sequence of station names
``neighbours``     the stations next to X on line L                            set of station names
``same_line``      can one ride from A to B without changing lines             ``yes`` / ``no``
``count_between``  how many stations lie between A and B on L                  integer
=================  ==========================================================  ===========================

``same_line`` is ReasonMap-Plus's ``TorF2`` and ``count_between`` its ``Counting1`` asked openly: both are
drawn by :mod:`benchmarks.network_facts` (the same draws, under the probe task's own seed). References
follow each line's topology (:mod:`graphkit.topology`: loops and branches as the city's overlay says):
``follow`` takes the line's shortest ride, and only pairs with one such ride (a loop's opposite stations
have two) and at least one station between them, at most :data:`MAX_FOLLOW_STOPS` stops apart;
``neighbours`` are the station's neighbours on the line (three at a branch point, two on a loop's ends).
The stations a probe names are those whose name is their own; the names in its answer are the names the
map shows (a homonym's shared name, never the graph's internal ``NAME@LINE``).

Generation, per map and type, from ``random.Random(f"reasonmap-probe:{seed}:{city}:{type}")`` (so one type's
count never shifts another's draws). Lines are written as the map draws them: with a map's truth
(``MAP.truth.json``, :mod:`vision.render`), the name its legend shows and the knobs it realised are
recorded; without one, :func:`benchmarks.network_facts.line_label`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from benchmarks.errors import InvalidRecord
from benchmarks.network_facts import balanced, between_draws, line_label, nameable_stations, same_line_draws
from benchmarks.records import TypedPrediction, field_of
from benchmarks.splits import questions_of_maps, type_counts, typed_draws
from graphkit.graph import TransitGraph

__all__ = [
    "ProbeType",
    "PROBE_TYPES",
    "ANSWER_SHAPES",
    "DEFAULT_PER_TYPE",
    "MAX_FOLLOW_STOPS",
    "ProbeQuestion",
    "ProbePrediction",
    "probe_question_text",
    "generate_probe_questions",
    "generate_probe_set",
    "format_probe_counts",
]

ProbeType = Literal["lines_at", "follow", "neighbours", "same_line", "count_between"]
PROBE_TYPES: tuple[ProbeType, ...] = ("lines_at", "follow", "neighbours", "same_line", "count_between")
#: What each type's answer is.
ANSWER_SHAPES: dict[str, str] = {
    "lines_at": "set",
    "follow": "sequence",
    "neighbours": "set",
    "same_line": "yes_no",
    "count_between": "integer",
}
DEFAULT_PER_TYPE = 10
#: The longest ``follow`` asked, in stops (a perception step, not a tour of the line).
MAX_FOLLOW_STOPS = 6
# The entities each type names, in record order.
_ENTITIES: dict[str, tuple[str, ...]] = {
    "lines_at": ("station",),
    "follow": ("station_1", "station_2", "line"),
    "neighbours": ("station", "line"),
    "same_line": ("station_1", "station_2"),
    "count_between": ("station_1", "station_2", "line"),
}
_LIST_FORMAT = "Answer with the names only, separated by commas, after 'Answer:'."
_OPENING = "According to the subway map, "
_TEMPLATES: dict[str, str] = {
    "lines_at": "which lines serve {station}? " + _LIST_FORMAT,
    "follow": (
        "which stations does {line} pass, in order, from {station_1} to {station_2}? List every station from "
        "{station_1} to {station_2}, both included. " + _LIST_FORMAT
    ),
    "neighbours": "which stations are next to {station} on {line}? " + _LIST_FORMAT,
    "same_line": "can one ride from {station_1} to {station_2} without changing lines? Answer yes or no.",
    "count_between": (
        "how many stations lie between {station_1} and {station_2} on {line}, riding the shortest way and "
        "counting neither {station_1} nor {station_2}? Answer with a single integer."
    ),
}


@dataclass(frozen=True, slots=True)
class ProbeQuestion:
    """One perception probe.

    Attributes
    ----------
    id, type, country, city : str
    question : str
        The text asked.
    answer : tuple of str, str or int
        Line names (``lines_at``, as the question writes lines), station names (``follow`` in order,
        ``neighbours``), ``"yes"``/``"no"`` (``same_line``) or an integer (``count_between``).
    station, line, station_1, station_2 : str or None
        The entities the type names (the line by its key in the Metro Data); the others are ``None``.
    line_name : str or None
        The line as the question writes it (the map's legend name with a truth).
    knobs : tuple of (str, value) pairs
        The visual factors the map's truth records, sorted by name (empty without a truth); kept as pairs so
        that a probe stays hashable and picklable (the record's ``knobs`` object).
    """

    id: str
    type: ProbeType
    country: str
    city: str
    question: str
    answer: tuple[str, ...] | str | int
    station: str | None = None
    line: str | None = None
    station_1: str | None = None
    station_2: str | None = None
    line_name: str | None = None
    knobs: tuple[tuple[str, Any], ...] = ()

    @property
    def shape(self) -> str:
        """``set``, ``sequence``, ``yes_no`` or ``integer``."""
        return ANSWER_SHAPES[self.type]

    def to_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {"id": self.id, "type": self.type, "country": self.country, "city": self.city}
        record.update((name, getattr(self, name)) for name in _ENTITIES[self.type])
        if self.line is not None:
            record["line_name"] = self.line_name
        record["question"] = self.question
        record["answer"] = list(self.answer) if isinstance(self.answer, tuple) else self.answer
        if self.knobs:
            record["knobs"] = dict(self.knobs)
        return record

    @classmethod
    def from_dict(cls, record: Any, *, where: str = "question") -> ProbeQuestion:
        """Validate a probe question record; errors name ``where`` and the field."""
        if not isinstance(record, Mapping):
            raise InvalidRecord(f"{where}: a question must be a JSON object")
        kind = field_of(record, "type", str, where)
        if kind not in PROBE_TYPES:
            raise InvalidRecord(f"{where}: field 'type' must be one of {list(PROBE_TYPES)}, got {kind!r}")
        entities = {name: field_of(record, name, str, where) for name in _ENTITIES[kind]}
        line_name = field_of(record, "line_name", str, where) if "line" in entities else None
        answer = _answer(record, kind, where)
        knobs = record.get("knobs", {})
        if not isinstance(knobs, Mapping):
            raise InvalidRecord(f"{where}: field 'knobs' must be a JSON object")
        return cls(
            id=str(field_of(record, "id", (str, int), where)),
            type=kind,
            country=field_of(record, "country", str, where),
            city=field_of(record, "city", str, where),
            question=field_of(record, "question", str, where),
            answer=answer,
            line_name=line_name,
            knobs=_pairs(knobs),
            **entities,
        )


def _pairs(knobs: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """A truth's knobs as sorted ``(name, value)`` pairs (a list value as a tuple)."""
    return tuple(
        (str(name), tuple(value) if isinstance(value, list) else value) for name, value in sorted(knobs.items())
    )


def _answer(record: Mapping[str, Any], kind: str, where: str) -> tuple[str, ...] | str | int:
    shape = ANSWER_SHAPES[kind]
    if shape == "integer":
        answer = field_of(record, "answer", int, where)
        if answer < 0:
            raise InvalidRecord(f"{where}: field 'answer' must be a non-negative integer, got {answer}")
        return answer
    if shape == "yes_no":
        answer = field_of(record, "answer", str, where)
        if answer not in ("yes", "no"):
            raise InvalidRecord(f"{where}: field 'answer' must be 'yes' or 'no', got {answer!r}")
        return answer
    names = field_of(record, "answer", list, where)
    if not names or not all(isinstance(name, str) and name for name in names):
        raise InvalidRecord(f"{where}: field 'answer' must be a non-empty list of names")
    return tuple(names)


@dataclass(frozen=True, slots=True)
class ProbePrediction(TypedPrediction):
    """One model answer to a probe.

    Parameters
    ----------
    id : str
        The probe's id.
    model : str
        The model.
    response : str
        Its answer, as written.
    tokens : int, optional
        The output tokens, when reported.
    question : str, optional
        The probe type the row says it answers (``None``: not said).
    repeat : int, optional
        Which answer to the same request this is (0-based).
    """

    types = PROBE_TYPES
    what = "a probe type"


def probe_question_text(kind: str, **entities: str | None) -> str:
    """The question text of a probe type for its entities.

    Parameters
    ----------
    kind : str
        The probe type.
    **entities : str or None
        The names the type's question needs (``station_1``, ``line``, ...; ``line`` as the question writes it).

    Returns
    -------
    str
        The question.

    Raises
    ------
    ValueError
        ``kind`` is not a probe type, or an entity it needs is missing.

    Examples
    --------
    >>> probe_question_text("same_line", station_1="P", station_2="Q")
    'According to the subway map, can one ride from P to Q without changing lines? Answer yes or no.'
    """
    if kind not in PROBE_TYPES:
        raise ValueError(f"type must be one of {list(PROBE_TYPES)}, got {kind!r}")
    missing = [name for name in _ENTITIES[kind] if entities.get(name) is None]
    if missing:
        raise ValueError(f"{kind} needs {', '.join(missing)}")
    return _OPENING + _TEMPLATES[kind].format(**{name: entities[name] for name in _ENTITIES[kind]})


# -- generation ----------------------------------------------------------------


def _lines_at(graph: TransitGraph, count: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    """Transfer stations and one-line stations in turn (a shuffled cycle), so that answers are not all one line."""
    named = nameable_stations(graph)
    pools = [[s for s in named if len(graph.lines_at(s)) > 1], [s for s in named if len(graph.lines_at(s)) == 1]]
    for pool in pools:
        rng.shuffle(pool)
    for turn in balanced((0, 1), count, rng):
        pool = pools[turn] or pools[1 - turn]
        if not pool:
            return
        station = pool.pop()
        yield {"station": station, "lines": graph.lines_at(station)}


def _follow(graph: TransitGraph, count: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    """Pairs of one line (the lines in turn) with one shortest ride of 2 to :data:`MAX_FOLLOW_STOPS` stops."""
    made = 0
    for name, a, b, between in between_draws(graph, rng):
        if made == count:
            return
        ride = graph.ride(name, a, b)
        if ride is None or len(ride[1]) != 1 or not 1 <= between < MAX_FOLLOW_STOPS:
            continue
        made += 1
        shown = tuple(graph.display_name(station) for station in ride[1][0])  # a homonym by its shown name
        yield {"station_1": a, "station_2": b, "line": name, "answer": (a, *shown, b)}


def _neighbours(graph: TransitGraph, count: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    """(station, line) pairs, the lines in turn; on each line, where it forks and a loop's listed ends first."""
    named = set(nameable_stations(graph))
    by_line = {}
    for name, topology in graph.lines.items():
        special = {station for station, near in topology.adjacency.items() if len(near) > 2}
        if topology.shape == "loop":
            special.update((topology.stations[0], topology.stations[-1]))
        stations = [station for station in topology.stations if station in named]
        rng.shuffle(stations)
        stations.sort(key=lambda station: station not in special)
        by_line[name] = stations[::-1]  # taken from the end
    lines = [name for name in graph.lines if by_line[name]]
    rng.shuffle(lines)
    made = 0
    while lines and made < count:
        for name in list(lines):
            if made == count:
                return
            if not by_line[name]:
                lines.remove(name)
                continue
            station = by_line[name].pop()
            made += 1
            near = graph.lines[name].adjacency[station]
            yield {"station": station, "line": name, "answer": tuple(graph.display_name(other) for other in near)}


def _same_line(graph: TransitGraph, count: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    yield from same_line_draws(graph, count, rng)


def _count_between(graph: TransitGraph, count: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    for _, (name, a, b, between) in zip(range(count), between_draws(graph, rng)):
        yield {"station_1": a, "station_2": b, "line": name, "answer": between}


_GENERATORS = {
    "lines_at": _lines_at,
    "follow": _follow,
    "neighbours": _neighbours,
    "same_line": _same_line,
    "count_between": _count_between,
}


def read_map_truth(path: str | Mapping[str, Any], graph: TransitGraph) -> tuple[dict[str, str], dict[str, Any]]:
    """The line names a map draws and the knobs it realised, from its ``MAP.truth.json`` (:mod:`vision.render`).

    Raises
    ------
    ValueError
        The file cannot be read, is not a map's truth, or was drawn from another network (another city, a
        station or line the graph lacks); the message names the file.
    """
    import json

    if isinstance(path, Mapping):  # the truth itself (a worker's, just drawn)
        truth, path = dict(path), "the map's truth"
    else:
        try:
            with open(path, encoding="utf-8") as stream:
                truth = json.load(stream)
        except (OSError, ValueError) as error:
            raise ValueError(f"{path}: cannot read the map's truth ({error})") from None
    if not isinstance(truth, dict) or not isinstance(truth.get("lines"), dict):
        raise ValueError(f"{path}: not a map's truth (no 'lines' object)")
    city = graph.city or "custom"
    if truth.get("city") not in (None, city, graph.city):
        raise ValueError(f"{path}: the map is of {truth.get('city')!r}, the questions of {city!r}")
    drawn = set(truth["lines"])
    if drawn != set(graph.lines) or set(truth.get("stations", {})) - set(graph.stations):
        raise ValueError(f"{path}: the map was drawn from another network than {city!r}'s (lines or stations differ)")
    names = {}
    for line, entry in truth["lines"].items():
        name = entry.get("name") if isinstance(entry, dict) else None
        names[line] = name if isinstance(name, str) and name.strip() else line_label(line)
    knobs = truth.get("knobs", {})
    return names, dict(knobs) if isinstance(knobs, dict) else {}


def generate_probe_questions(
    graph: TransitGraph,
    *,
    seed: int = 0,
    per_type: int = DEFAULT_PER_TYPE,
    types: Iterable[str] = PROBE_TYPES,
    truth: str | Mapping[str, Any] | None = None,
) -> list[ProbeQuestion]:
    """Probes for one map, type after type.

    Parameters
    ----------
    graph : TransitGraph
    seed : int
        Seeds every draw, mixed with the city's name and the type.
    per_type : int
        At most this many probes of each type (fewer where the map has fewer).
    types : iterable of str
        The types to generate, in :data:`PROBE_TYPES` order whatever the order given.
    truth : str or mapping, optional
        The map's ``MAP.truth.json`` (or its record): lines are named as it draws them, and its knobs are
        recorded.

    Returns
    -------
    list of ProbeQuestion
        Ids are ``f"{city}-probe-{type}-{n:03d}"`` (``f"{city}-s{seed}-probe-..."`` for a seed other than 0).

    Raises
    ------
    ValueError
        A type is not a probe type, ``per_type`` is negative, or the truth is not this map's.

    Examples
    --------
    >>> from graphkit import city_graph
    >>> [q.id for q in generate_probe_questions(city_graph("rome"), per_type=2, types=["same_line"])]
    ['rome-probe-same_line-000', 'rome-probe-same_line-001']
    """
    draws = typed_draws(graph, _GENERATORS, types, per_type=per_type, seed=seed, task="probe")
    names, knobs = read_map_truth(truth, graph) if truth is not None else ({}, {})
    city = graph.city or "custom"

    def label(line: str) -> str:
        return names.get(line) or line_label(line)

    found: list[ProbeQuestion] = []
    for identifier, kind, drawn in draws:
        answer = tuple(label(line) for line in drawn.pop("lines")) if kind == "lines_at" else drawn.pop("answer")
        line = drawn.get("line")
        shown = dict(drawn, line=label(line)) if line is not None else drawn
        found.append(
            ProbeQuestion(
                id=identifier,
                type=kind,
                country=graph.metro.country,
                city=city,
                question=probe_question_text(kind, **shown),
                answer=tuple(answer) if isinstance(answer, list | tuple) else answer,
                line_name=None if line is None else label(line),
                knobs=_pairs(knobs),
                **drawn,
            )
        )
    return found


def generate_probe_set(
    graphs: Iterable[TransitGraph],
    *,
    seed: int = 0,
    per_type: int = DEFAULT_PER_TYPE,
    types: Iterable[str] = PROBE_TYPES,
    truth: str | Mapping[str, Any] | None = None,
    progress: bool = False,
) -> list[ProbeQuestion]:
    """Probes for several maps, one after another (see :func:`generate_probe_questions`).

    Parameters
    ----------
    graphs : iterable of TransitGraph
        The maps.
    seed, per_type, types, truth
        As :func:`generate_probe_questions` (``truth`` only with one map).
    progress : bool, optional
        Show a bar over the maps on stderr.

    Returns
    -------
    list of ProbeQuestion
        Each map's probes in turn.

    Raises
    ------
    ValueError
        As :func:`generate_probe_questions`; with ``truth``, also when no map is the truth's city.
    """
    graphs = list(graphs)
    types = tuple(types)
    if truth is not None and len(graphs) != 1:
        raise ValueError(
            f"--truth {truth if isinstance(truth, str) else ''}: a map's truth goes with one map (--city C or --metro"
            f" PATH), got {len(graphs)}"
        )
    if truth is not None:
        read_map_truth(truth, graphs[0])  # a wrong truth is refused before any work
    one_map = partial(generate_probe_questions, seed=seed, per_type=per_type, types=types, truth=truth)
    return questions_of_maps(graphs, one_map, progress=progress)


def format_probe_counts(questions: Sequence[ProbeQuestion]) -> str:
    """Probes per type and their answers' spread, as a small table.

    Parameters
    ----------
    questions : sequence of ProbeQuestion
        The probes.

    Returns
    -------
    str
        The table of :func:`benchmarks.splits.type_counts`, a row per probe type.
    """
    return type_counts(questions, ANSWER_SHAPES, width=14)

"""The language ablation (the paper's Appendix C.3): English aliases for non-English names.

Every station or line name with Chinese characters gets a unique English
alias, applied consistently to the Metro Data, the questions and their
references, so that answers in aliases score as usual. Two strategies:

- ``romanize``: pinyin in title case (西直门站 → ``Xizhimen Station``,
  昌平线 → ``Changping Line``);
- ``borrow``: station names of English-named cities, New York's first (as
  the paper did), handed out in a seeded order; lines are romanized.

Aliases never collide with each other or with a name already in the data
(a numeral is added when they would). The mapping is kept so that model
answers can be turned back into the original names (:func:`unalias_text`).
"""

from __future__ import annotations

import random
import re
from functools import lru_cache

from benchmarks.reasonmap.records import Question
from benchmarks.reasonmap.templates import long_question, short_question
from graphkit.choices import check_choice
from graphkit.graph import TransitGraph, compile_graph
from graphkit.metro import load_metro
from graphkit.names import has_cjk, romanize
from graphkit.overlays import load_overlay
from graphkit.segments import Segment

__all__ = ["STRATEGIES", "alias_mapping", "alias_graph", "alias_question", "aliased", "unalias_text"]

STRATEGIES = ("romanize", "borrow")
_LENDERS = ("new_york", "washington", "los_angeles", "toronto", "singapore", "auckland", "sydney", "miami")
_LINE_SUFFIX = re.compile(r"(线|号线)$")


def _title(text: str) -> str:
    """Pinyin syllables as one capitalized word: "xi zhi men" → "Xizhimen"."""
    return "".join(text.split()).capitalize()


def _romanized_station(name: str) -> str:
    return f"{_title(romanize(name)[0])} Station"


def _romanized_line(name: str) -> str:
    base = _LINE_SUFFIX.sub("", name)
    if base.isdigit():
        return f"Line {base}"
    return f"{_title(romanize(base)[0])} Line"


def _unique(wanted: str, taken: set[str]) -> str:
    alias, number = wanted, 2
    while alias in taken:
        alias, number = f"{wanted} {number}", number + 1
    taken.add(alias)
    return alias


@lru_cache(maxsize=64)
def _borrowed_names(seed: int) -> tuple[str, ...]:
    from graphkit.cities import city_graph

    names = list(dict.fromkeys(name for city in _LENDERS for name in city_graph(city).stations))
    lead = len(city_graph("new_york").stations)
    head, tail = names[:lead], names[lead:]
    random.Random(f"alias:{seed}").shuffle(head)
    return tuple(head + tail)


def alias_mapping(graph: TransitGraph, strategy: str = "romanize", *, seed: int = 0) -> dict[str, str]:
    """Original name → alias for every station and line name with Chinese characters.

    Parameters
    ----------
    graph : TransitGraph
        The city.
    strategy : {"romanize", "borrow"}, optional
        How aliases are made (see the module notes).
    seed : int, optional
        Seeds the draw of borrowed names.

    Returns
    -------
    dict of str to str
        Each name with Chinese characters to its alias (others are left out: they stay as they are).

    Raises
    ------
    ValueError
        An unknown strategy, or more names to alias than ``borrow`` has to lend.
    """
    check_choice(strategy, STRATEGIES, what="alias strategy")
    taken = set(graph.stations) | set(graph.lines)
    mapping: dict[str, str] = {}
    for line in graph.lines:
        if has_cjk(line):
            mapping[line] = _unique(_romanized_line(line), taken)
    stations = [name for name in graph.stations if has_cjk(name)]
    if strategy == "romanize":
        for name in stations:
            mapping[name] = _unique(_romanized_station(name), taken)
        return mapping
    lend = [name for name in _borrowed_names(seed) if name not in taken]
    if len(lend) < len(stations):
        raise ValueError(f"{graph.city}: {len(stations)} names to alias but only {len(lend)} to borrow")
    for name, alias in zip(stations, lend):
        mapping[name] = _unique(alias, taken)
    return mapping


def alias_graph(graph: TransitGraph, mapping: dict[str, str]) -> TransitGraph:
    """The same network with names replaced (topology overlays included).

    Parameters
    ----------
    graph : TransitGraph
        The city.
    mapping : dict of str to str
        Original name to alias (:func:`alias_mapping`).

    Returns
    -------
    TransitGraph
        The network compiled anew under the aliases.
    """

    def rename(name: str) -> str:
        return mapping.get(name, name)

    data = {}
    for line in graph.metro.lines:
        stations = []
        for entry in line.entries:
            marks = (" (Transfer Station)" if entry.transfer_mark else "") + (
                " (Branch-starting Station)" if entry.branch_start_mark else ""
            )
            stations.append(rename(entry.name) + marks)
        data[rename(line.name)] = stations
    overlay = graph.overlay
    renamed_overlay = {
        "loops": [{"line": rename(e.line), "note": e.note} for e in overlay.loops],
        "branches": [
            {
                "line": rename(e.line),
                "leaves_at": rename(e.leaves_at),
                "first": rename(e.first),
                **({"last": rename(e.last)} if e.last else {}),
                "note": e.note,
            }
            for e in overlay.branches
        ],
        "unlisted_branches": [
            {"line": rename(e.line), "at": rename(e.at), "note": e.note} for e in overlay.unlisted_branches
        ],
        "repeated_stations": [  # a repeat an overlay's homonyms split is two names in graph.metro already
            {"line": rename(e.line), "station": rename(e.station), "note": e.note}
            for e in overlay.repeated_stations
            if graph.metro.line(e.line).stations.count(e.station) > 1
        ],
    }
    parsed = load_overlay(renamed_overlay)
    metro = load_metro(data, city=graph.metro.city, country=graph.metro.country, allowed_repeats=parsed.allowed_repeats)
    return compile_graph(metro, parsed)


def alias_question(question: Question, mapping: dict[str, str]) -> Question:
    """The question with its stations, texts and references in aliases.

    Parameters
    ----------
    question : Question
        A route question.
    mapping : dict of str to str
        Original name to alias (:func:`alias_mapping`).

    Returns
    -------
    Question
        The renamed question (its id and its other fields kept).
    """

    def rename(name: str) -> str:
        return mapping.get(name, name)

    start, end = rename(question.station_1), rename(question.station_2)
    routes = tuple(
        tuple(
            Segment(
                rename(s.route_name), rename(s.departure_stop), rename(s.arrival_stop), tuple(map(rename, s.via_stops))
            )
            for s in route
        )
        for route in question.routes
    )
    return Question(
        id=question.id,
        country=question.country,
        city=question.city,
        station_1=start,
        station_2=end,
        question_short=short_question(start, end),
        question_long=long_question(start, end, question.long_template),
        long_template=question.long_template,
        routes=routes,
        difficulty_question=question.difficulty_question,
        difficulty_city=question.difficulty_city,
        city_line_count=question.city_line_count,
        city_transfer_count=question.city_transfer_count,
        question_transfer_count=question.question_transfer_count,
    )


_GRAPHS: dict[tuple[int, str, int], tuple[TransitGraph, dict[str, str]]] = {}


def aliased(
    question: Question, graph: TransitGraph, strategy: str = "romanize", *, seed: int = 0
) -> tuple[Question, TransitGraph, dict[str, str]]:
    """A question, its city's graph and the mapping, all in aliases (graphs cached per city and strategy).

    Parameters
    ----------
    question : Question
        A route question.
    graph : TransitGraph
        Its city's graph.
    strategy : {"romanize", "borrow"}, optional
        How aliases are made (see the module notes).
    seed : int, optional
        Seeds the aliases' draw.

    Returns
    -------
    question : Question
        The question with its stations renamed.
    graph : TransitGraph
        The graph with every station renamed (the same object for the same graph, strategy and seed).
    mapping : dict of str to str
        Each original station name to its alias (what :func:`unalias_text` takes).
    """
    key = (id(graph), strategy, seed)
    if key not in _GRAPHS:
        mapping = alias_mapping(graph, strategy, seed=seed)
        _GRAPHS[key] = (alias_graph(graph, mapping), mapping)
    renamed_graph, mapping = _GRAPHS[key]
    return alias_question(question, mapping), renamed_graph, mapping


def unalias_text(text: str, mapping: dict[str, str]) -> str:
    """Turn aliases in a model's answer back into the original names (longest aliases first).

    Parameters
    ----------
    text : str
        The model's answer, naming stations by their aliases.
    mapping : dict of str to str
        Each original name to its alias, as :func:`aliased` returns it.

    Returns
    -------
    str
        The answer with every alias replaced by its original name (an alias inside a longer one is left alone).

    Examples
    --------
    >>> unalias_text("Ride from Vel to Velka.", {"Termini": "Vel", "Colosseo": "Velka"})
    'Ride from Termini to Colosseo.'
    """
    reverse = sorted(((alias, name) for name, alias in mapping.items()), key=lambda pair: -len(pair[0]))
    if not reverse:
        return text
    pattern = re.compile("|".join(re.escape(alias) for alias, _ in reverse))
    lookup = dict(reverse)
    return pattern.sub(lambda match: lookup[match.group(0)], text)

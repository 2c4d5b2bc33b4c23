"""Lint of Metro Data: the spots where the data, or the graph built from it, is doubtful.

The transit graph identifies stations by cleaned name and lets riders transfer
wherever two lines list the same name. Lint reports where that reading of the
data deserves a human look. Every finding has a *kind*:

``homonym``
    One name, several physical stations. A station served by several lines is
    reported when those lines fall into groups that do not *plausibly meet*
    there: two lines meet at a station when they share a neighbour within
    ``NEIGHBOURHOOD_STOPS`` stops of it that is next to it on at least one of
    them (an express line skips stops of the local line it runs beside), or
    when the station carries a transfer mark on both lines; lines are grouped
    by meeting, and more than one group is a finding. New York's ``86 St
    Station`` (lines 1, 4/5/6, B/C, Q, N, R) is six stations; Times Sq, where
    the lines share neighbours, is one. The test is a heuristic: a homonym
    next to another homonym (``86 St`` beside ``96 St``) can hide it, and an
    express stop far from the next local stop (Forest Hills-71 Av) can raise
    a false one; in data without transfer marks every plain crossing of two
    lines is reported, and where marks are missing on one line (several
    Chinese cities) a real interchange is. A station that a line lists twice
    (an overlay's ``repeated_stations``) is a homonym too.
    An overlay decides a name: its ``homonyms`` split it into stations (each
    no longer reported), its ``interchanges`` confirm it is one station.
``transfer_mark_mismatch``
    A station marked as a transfer station that only one listed line serves,
    or a station that several lines serve without a transfer mark on any of
    its entries (reported only in cities whose data uses transfer marks).
``near_duplicate``
    Two distinct names that look like one station spelt two ways: the same
    match key once a repeated ``Station`` suffix is dropped (``西单`` /
    ``西单站``), a similarity of at least ``NEAR_DUPLICATE_RATIO`` between keys
    of at least ``NEAR_DUPLICATE_MIN_LENGTH`` characters with the same numbers
    (``Cathedral Pkwy(110 St)`` / ``Cathedral Pkwy (110 St)``), one name abbreviating words of the
    other (``Arts Dist`` / ``Arts District``), or keys alike to the eye (a Cyrillic ``о``: ``lookalike_key``). The
    graph keeps them apart; a reader may not. An overlay decides a pair: its
    ``aliases`` make it one station, its ``distinct`` entries say it is two.
``suspicious_spelling``
    A name ending in a misspelt station word (``UAE Exchange Staton``,
    ``135 St Stations``) or with a lowercase ``l`` standing for an ``I``
    (``lbn Battuta``).
``needs_overlay``
    A line that looks like a loop or a branch and that no overlay entry covers:
    it carries a branch-start mark, it lists its first station again at the
    end, or its two ends lie within ``LOOP_HINT_STOPS`` stops of each other
    over the other lines while being at least ``LOOP_HINT_FACTOR`` times as
    far apart along the line (an open-listed loop, like Beijing Line 2).
``disconnected``
    The network falls apart: one finding per part other than the largest,
    with its stations and lines.

Lint never raises on odd data and never changes it: it only reports.

Examples
--------
>>> from graphkit.metro import load_metro
>>> from graphkit.graph import compile_graph
>>> graph = compile_graph(load_metro({"L1": ["A", "B"], "L2": ["C", "D"]}, city="toy"))
>>> [finding.kind for finding in lint_graph(graph)]
['disconnected']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any, Literal

from graphkit.choices import check_choice
from graphkit.graph import TransitGraph
from graphkit.lint_names import (
    NEAR_DUPLICATE_MIN_LENGTH,
    NEAR_DUPLICATE_RATIO,
    near_duplicates,
    suspicious_spellings,
)

__all__ = [
    "Kind",
    "KINDS",
    "Finding",
    "lint_graph",
    "lint_city",
    "lint_all",
    "format_findings",
    "NEIGHBOURHOOD_STOPS",
    "NEAR_DUPLICATE_RATIO",
    "NEAR_DUPLICATE_MIN_LENGTH",
    "LOOP_HINT_STOPS",
    "LOOP_HINT_FACTOR",
]

Kind = Literal[
    "homonym",
    "transfer_mark_mismatch",
    "near_duplicate",
    "suspicious_spelling",
    "needs_overlay",
    "disconnected",
]

#: Every kind of finding, in report order, with what it means.
KINDS: dict[str, str] = {
    "homonym": "one name on lines that do not plausibly meet there: probably several physical stations",
    "transfer_mark_mismatch": "a transfer mark on a one-line station, or a shared station without any mark",
    "near_duplicate": "two distinct names that look like one station spelt two ways",
    "suspicious_spelling": "a misspelt station word or a lowercase l standing for an I",
    "needs_overlay": "a line that looks like a loop or a branch but has no overlay entry",
    "disconnected": "a part of the network that no route reaches from the largest part",
}

NEIGHBOURHOOD_STOPS = 2
LOOP_HINT_STOPS = 3
LOOP_HINT_FACTOR = 3

_KIND_RANK = {kind: rank for rank, kind in enumerate(KINDS)}


@dataclass(frozen=True, slots=True)
class Finding:
    """One doubtful spot of a city's data.

    Attributes
    ----------
    city : str
        The city (or, for data without a city name, its source).
    kind : str
        One of :data:`KINDS`.
    message : str
        What is doubtful, in a sentence that names the evidence.
    stations, lines : tuple of str
        The stations and lines concerned, in data order.

    Raises
    ------
    ValueError
        ``kind`` is not one of :data:`KINDS`.
    """

    city: str
    kind: Kind
    message: str
    stations: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_choice(self.kind, KINDS, what="lint kind")

    def to_dict(self) -> dict[str, Any]:
        """The finding as plain JSON values."""
        record = asdict(self)
        record["stations"], record["lines"] = list(self.stations), list(self.lines)
        return record

    def sort_key(self) -> tuple:
        """City, kind (in :data:`KINDS` order), stations, lines, message: the order of every report."""
        return (self.city, _KIND_RANK[self.kind], self.stations, self.lines, self.message)


def lint_graph(graph: TransitGraph) -> tuple[Finding, ...]:
    """Every finding about one compiled city, sorted by city, kind, stations, lines.

    Parameters
    ----------
    graph : TransitGraph
        The city, compiled with its overlay.

    Returns
    -------
    tuple of Finding

    Examples
    --------
    >>> from graphkit.metro import load_metro
    >>> from graphkit.graph import compile_graph
    >>> data = {"L1": ["A", "B (Transfer Station)", "C"], "L2": ["D", "B (Transfer Station)", "E"]}
    >>> lint_graph(compile_graph(load_metro(data)))
    ()
    """
    city = graph.city or graph.metro.source
    findings: list[Finding] = []
    for check in (_homonyms, _transfer_marks, near_duplicates, suspicious_spellings, _overlay_hints, _components):
        findings.extend(Finding(city, *raw) for raw in check(graph))
    return tuple(sorted(findings, key=Finding.sort_key))


def lint_city(name: str) -> tuple[Finding, ...]:
    """The findings about one embedded city (see :func:`graphkit.cities.city_graph`).

    Parameters
    ----------
    name : str
        The city.

    Returns
    -------
    tuple of Finding
        Its doubtful spots, kind by kind (none for a city whose overlay explains them all).

    Examples
    --------
    >>> sorted({finding.kind for finding in lint_city("rome")})
    []
    """
    from graphkit.cities import city_graph

    return lint_graph(city_graph(name))


def lint_all() -> tuple[Finding, ...]:
    """The findings about every embedded city, city by city.

    Returns
    -------
    tuple of Finding
        :func:`lint_city` of each embedded city, in name order.
    """
    from graphkit.cities import city_names

    return tuple(finding for name in city_names() for finding in lint_city(name))


def format_findings(findings: Iterable[Finding]) -> str:
    """A readable report: per city, a count per kind, then the findings kind by kind.

    Parameters
    ----------
    findings : iterable of Finding
        The findings.

    Returns
    -------
    str
        The report (``no findings`` for none).

    Examples
    --------
    >>> print(format_findings([Finding("toy", "disconnected", "D, E are cut off.", ("D", "E"), ("L2",))]))
    toy: 1 finding (disconnected 1)
      disconnected
        - D, E are cut off.
    >>> format_findings([])
    'no findings'
    """
    by_city: dict[str, list[Finding]] = {}
    for finding in sorted(findings, key=Finding.sort_key):
        by_city.setdefault(finding.city, []).append(finding)
    if not by_city:
        return "no findings"
    out: list[str] = []
    for city, found in by_city.items():
        counts = Counter(finding.kind for finding in found)
        summary = ", ".join(f"{kind} {counts[kind]}" for kind in KINDS if counts[kind])
        out.append(f"{city}: {len(found)} finding{'' if len(found) == 1 else 's'} ({summary})")
        for kind in KINDS:
            if counts[kind]:
                out.append(f"  {kind}")
                out.extend(f"    - {finding.message}" for finding in found if finding.kind == kind)
    return "\n".join(out)


# -- the checks: each yields (kind, message, stations, lines) ----------------

_Raw = tuple[str, str, tuple[str, ...], tuple[str, ...]]


# each built once while a graph's checks run: the walks below are networkx's
@lru_cache(maxsize=1)
def _line_networks(graph: TransitGraph) -> dict[str, Any]:
    """Each line's own networkx graph."""
    import networkx

    return {name: networkx.from_dict_of_lists(topology.adjacency) for name, topology in graph.lines.items()}


@lru_cache(maxsize=1)
def _network(graph: TransitGraph) -> Any:
    return graph.to_networkx()


def _within(graph: TransitGraph, line: str, station: str, stops: int) -> dict[str, int]:
    """Stations of ``line`` within ``stops`` stops of ``station`` along it (itself excluded), with their distance."""
    import networkx

    distance = networkx.single_source_shortest_path_length(_line_networks(graph)[line], station, cutoff=stops)
    del distance[station]
    return distance


def _marked(graph: TransitGraph) -> set[tuple[str, str]]:
    """(line, station) pairs where an entry carries a transfer mark."""
    return {(line.name, entry.name) for line in graph.metro.lines for entry in line.entries if entry.transfer_mark}


def _quoted(names: Iterable[str]) -> str:
    return ", ".join(names)


def _homonyms(graph: TransitGraph) -> Iterator[_Raw]:
    marked = _marked(graph)
    confirmed = {entry.station for entry in graph.overlay.interchanges}
    for station in graph.transfer_stations():
        if station in confirmed or graph.display_name(station) != station:
            continue  # decided by the overlay: one station, or one of the stations a name was split into
        lines = graph.lines_at(station)
        around = {line: _within(graph, line, station, NEIGHBOURHOOD_STOPS) for line in lines}
        meeting = [
            (a, b)
            for a, b in combinations(lines, 2)
            if _meet(around[a], around[b]) or ((a, station) in marked and (b, station) in marked)
        ]
        groups = _meeting_groups(lines, meeting)
        if len(groups) > 1:
            parts = " | ".join(_quoted(members) for members in groups)
            marking = [line for line in lines if (line, station) in marked]
            marks = f"a transfer mark on {_quoted(marking)} only" if marking else "no transfer mark"
            yield (
                "homonym",
                f"{station!r} is on lines that do not meet there: {parts} "
                f"(no neighbour in common, {marks}): several stations, or a transfer the data does not mark",
                (station,),
                lines,
            )
    split = {homonym.station for homonym in graph.overlay.homonyms}
    for repeat in graph.overlay.repeated_stations:
        if repeat.station in split:
            continue
        yield (
            "homonym",
            f"{repeat.station!r} is listed twice on line {repeat.line}: two stations share the name ({repeat.note})",
            (repeat.station,),
            (repeat.line,),
        )


def _meeting_groups(lines: tuple[str, ...], meeting: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The lines joined by meeting pairs, directly or through others, in data order."""
    parent = {line: line for line in lines}

    def root(line: str) -> str:
        while parent[line] != line:
            line = parent[line]
        return line

    for a, b in meeting:
        parent[root(b)] = root(a)
    groups: dict[str, list[str]] = {}
    for line in lines:
        groups.setdefault(root(line), []).append(line)
    return list(groups.values())


def _meet(one: dict[str, int], other: dict[str, int]) -> bool:
    """Whether two lines' surroundings of a station share a station next to it on at least one of them."""
    return any(min(distance, other[station]) == 1 for station, distance in one.items() if station in other)


def _transfer_marks(graph: TransitGraph) -> Iterator[_Raw]:
    marked = _marked(graph)
    if not marked:
        return
    marked_stations = {station for _, station in marked}
    for station in graph.stations:
        lines = graph.lines_at(station)
        if station in marked_stations and len(lines) == 1:
            yield (
                "transfer_mark_mismatch",
                f"{station!r} is marked as a transfer station but only line {lines[0]} serves it",
                (station,),
                lines,
            )
        elif station not in marked_stations and len(lines) > 1:
            yield (
                "transfer_mark_mismatch",
                f"{station!r} is served by lines {_quoted(lines)} but no entry marks it as a transfer station",
                (station,),
                lines,
            )


def _overlay_hints(graph: TransitGraph) -> Iterator[_Raw]:
    for line in graph.metro.lines:
        if graph.overlay.covers(line.name):
            continue
        marks = [entry.name for entry in line.entries if entry.branch_start_mark]
        if marks:
            yield (
                "needs_overlay",
                f"line {line.name} marks {_quoted(marks)} as a branch-starting station but no overlay entry "
                "says where its branch runs",
                tuple(marks),
                (line.name,),
            )
        first, last = line.stations[0], line.stations[-1]
        if line.closes_on_itself:
            yield (
                "needs_overlay",
                f"line {line.name} lists {first!r} again at its end, a loop the overlay does not declare",
                (first,),
                (line.name,),
            )
            continue
        along = len(graph.lines[line.name].stations) - 1
        apart = _distance_elsewhere(graph, line.name, first, last, LOOP_HINT_STOPS)
        if apart is not None and along >= LOOP_HINT_FACTOR * apart:
            yield (
                "needs_overlay",
                f"line {line.name}'s ends {first!r} and {last!r} are {apart} stop(s) apart over other lines "
                f"but {along} along it: an open-listed loop the overlay does not declare?",
                (first, last),
                (line.name,),
            )


def _distance_elsewhere(graph: TransitGraph, skipped: str, source: str, target: str, limit: int) -> int | None:
    """Fewest stops from ``source`` to ``target`` over lines other than ``skipped``, if at most ``limit``."""
    import networkx

    if source == target:
        return None  # no distance to cover: not the open-listed loop this hint is for
    network = _network(graph)
    others = networkx.subgraph_view(network, filter_edge=lambda a, b: network.edges[a, b]["lines"] != [skipped])
    try:
        stops = networkx.shortest_path_length(others, source, target)
    except networkx.NetworkXNoPath:
        return None
    return stops if stops <= limit else None


def _components(graph: TransitGraph) -> Iterator[_Raw]:
    parts = graph.components()
    for part in parts[1:]:
        members = set(part)
        lines = tuple(name for name, topology in graph.lines.items() if members.intersection(topology.stations))
        yield (
            "disconnected",
            f"{len(part)} station(s) on line(s) {_quoted(lines)} are cut off from the largest part "
            f"({len(parts[0])} stations): {_quoted(part)}",
            part,
            lines,
        )

"""Facts of a transit graph that more than one task asks about, computed in one place.

ReasonMap-Plus (:mod:`benchmarks.plus.questions`) and the probe task (:mod:`benchmarks.probe.questions`) ask
the same two things in other words: whether two stations share a line (plus ``TorF2``, probe ``same_line``)
and how many stations lie between two stations of a line (plus ``Counting1``, probe ``count_between``). The
stations a question may name, how a line is written in a question, the station pairs of each kind and the
counts are drawn from here, so that the two tasks cannot disagree on a map.
"""

from __future__ import annotations

import re

from graphkit.graph import TransitGraph

__all__ = [
    "line_label",
    "nameable_stations",
    "share_a_line",
    "same_line_pairs",
    "line_station_pairs",
    "stations_between",
]

_CJK = re.compile(r"[\u3400-\u9fff]")


def line_label(name: str) -> str:
    """A line's name as questions write it: ``Line 1`` for a bare key such as New York's ``1``.

    Names that say they are a line (``Line 2``, ``Red Line``, ``昌平线``) stay as they are.

    Examples
    --------
    >>> line_label("1"), line_label("Azul"), line_label("Red Line"), line_label("昌平线")
    ('Line 1', 'Line Azul', 'Red Line', '昌平线')
    """
    if "line" in name.lower() or _CJK.search(name):
        return name
    return f"Line {name}"


def nameable_stations(graph: TransitGraph) -> tuple[str, ...]:
    """The stations a question can name: those whose name no other station shares (see overlays' homonyms)."""
    return tuple(station for station in graph.stations if len(graph.namesakes(station)) == 1)


def share_a_line(graph: TransitGraph, a: str, b: str) -> bool:
    """Whether one line serves both stations (one can ride from ``a`` to ``b`` without changing).

    Examples
    --------
    >>> from graphkit import city_graph
    >>> graph = city_graph("rome")
    >>> share_a_line(graph, "Termini Station", "Spagna Station"), share_a_line(graph, "Spagna Station", "Jonio Station")
    (True, False)
    """
    return not set(graph.lines_at(a)).isdisjoint(graph.lines_at(b))


def same_line_pairs(
    graph: TransitGraph, stations: tuple[str, ...]
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Every pair of ``stations`` (in their order, each pair once) sharing a line, then every one sharing none."""
    served = {station: set(graph.lines_at(station)) for station in stations}
    yes: list[tuple[str, str]] = []
    no: list[tuple[str, str]] = []
    for i, a in enumerate(stations):
        lines_a = served[a]
        for b in stations[i + 1 :]:
            (no if lines_a.isdisjoint(served[b]) else yes).append((a, b))
    return yes, no


def line_station_pairs(graph: TransitGraph, line: str, named: set[str]) -> list[tuple[str, str]]:
    """Every pair of the line's stations among ``named``, in the line's listed order, each pair once."""
    stations = [station for station in graph.lines[line].stations if station in named]
    return [(a, b) for i, a in enumerate(stations) for b in stations[i + 1 :]]


def stations_between(graph: TransitGraph, line: str, a: str, b: str) -> int | None:
    """How many stations lie strictly between ``a`` and ``b`` riding ``line`` the shortest way (``None``: no ride).

    Loops and branches are the line's topology (:meth:`graphkit.graph.TransitGraph.ride`).

    Examples
    --------
    >>> from graphkit import city_graph
    >>> stations_between(city_graph("rome"), "Line A", "Flaminio Station", "Barberini Station")
    1
    """
    ride = graph.ride(line, a, b)
    return None if ride is None else ride[0] - 1

"""Facts of a transit graph that more than one task asks about, computed in one place.

ReasonMap-Plus (:mod:`benchmarks.plus.questions`) and the probe task (:mod:`benchmarks.probe.questions`) ask
the same two things in other words: whether two stations share a line (plus ``TorF2``, probe ``same_line``)
and how many stations lie between two stations of a line (plus ``Counting1``, probe ``count_between``). The
stations a question may name, how a line is written in a question, the station pairs of each kind and the
counts are drawn from here, so that the two tasks cannot disagree on a map.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from typing import Any

from graphkit.graph import TransitGraph

__all__ = [
    "line_label",
    "nameable_stations",
    "share_a_line",
    "same_line_pairs",
    "line_station_pairs",
    "stations_between",
    "balanced",
    "balanced_yes_no",
    "same_line_draws",
    "between_draws",
]

_CJK = re.compile(r"[\u3400-\u9fff]")


def line_label(name: str) -> str:
    """A line's name as questions write it: ``Line 1`` for a bare key such as New York's ``1``.

    Names that say they are a line (``Line 2``, ``Red Line``, ``昌平线``) stay as they are.

    Parameters
    ----------
    name : str
        The line's name in the data.

    Returns
    -------
    str

    Examples
    --------
    >>> line_label("1"), line_label("Azul"), line_label("Red Line"), line_label("昌平线")
    ('Line 1', 'Line Azul', 'Red Line', '昌平线')
    """
    if "line" in name.lower() or _CJK.search(name):
        return name
    return f"Line {name}"


def nameable_stations(graph: TransitGraph) -> tuple[str, ...]:
    """The stations a question can name: those whose name no other station shares (see overlays' homonyms).

    Parameters
    ----------
    graph : TransitGraph

    Returns
    -------
    tuple of str
        The stations, in the graph's order.
    """
    return tuple(station for station in graph.stations if len(graph.namesakes(station)) == 1)


def share_a_line(graph: TransitGraph, a: str, b: str) -> bool:
    """Whether one line serves both stations (one can ride from ``a`` to ``b`` without changing).

    Parameters
    ----------
    graph : TransitGraph
    a, b : str
        Two stations.

    Returns
    -------
    bool

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
    """Every pair of ``stations`` (in their order, each pair once) sharing a line, then every one sharing none.

    Parameters
    ----------
    graph : TransitGraph
    stations : tuple of str
        The stations to pair.

    Returns
    -------
    same, apart : list of (str, str)
        The pairs sharing a line, and those sharing none.
    """
    served = {station: set(graph.lines_at(station)) for station in stations}
    yes: list[tuple[str, str]] = []
    no: list[tuple[str, str]] = []
    for i, a in enumerate(stations):
        lines_a = served[a]
        for b in stations[i + 1 :]:
            (no if lines_a.isdisjoint(served[b]) else yes).append((a, b))
    return yes, no


def line_station_pairs(graph: TransitGraph, line: str, named: set[str]) -> list[tuple[str, str]]:
    """Every pair of the line's stations among ``named``, in the line's listed order, each pair once.

    Parameters
    ----------
    graph : TransitGraph
    line : str
        The line.
    named : set of str
        The stations a question may name.

    Returns
    -------
    list of (str, str)
    """
    stations = [station for station in graph.lines[line].stations if station in named]
    return [(a, b) for i, a in enumerate(stations) for b in stations[i + 1 :]]


def stations_between(graph: TransitGraph, line: str, a: str, b: str) -> int | None:
    """How many stations lie strictly between ``a`` and ``b`` riding ``line`` the shortest way (``None``: no ride).

    Loops and branches are the line's topology (:meth:`graphkit.graph.TransitGraph.ride`).

    Parameters
    ----------
    graph : TransitGraph
    line : str
        The line ridden.
    a, b : str
        The two stations.

    Returns
    -------
    int or None

    Examples
    --------
    >>> from graphkit import city_graph
    >>> stations_between(city_graph("rome"), "Line A", "Flaminio Station", "Barberini Station")
    1
    """
    ride = graph.ride(line, a, b)
    return None if ride is None else ride[0] - 1


# -- seeded draws (each consumes its ``rng`` in a fixed order: plus's outputs depend on it) -----------------


def balanced(values: Sequence[Any], count: int, rng: random.Random) -> list[Any]:
    """``count`` values in random order, each of ``values`` equally often (the remainder drawn).

    Parameters
    ----------
    values : sequence
        The values to spread.
    count : int
        How many to give.
    rng : random.Random
        The draw.

    Returns
    -------
    list
    """
    found = list(values) * (count // len(values)) + rng.sample(list(values), count % len(values))
    rng.shuffle(found)
    return found


def balanced_yes_no(
    yes: list[tuple[str, str]], no: list[tuple[str, str]], count: int, rng: random.Random
) -> Iterator[tuple[tuple[str, str], str]]:
    """Entity pairs with balanced answers: both lists shuffled, taken in a balanced yes/no order.

    As many ``yes`` as ``no`` (one more of either, drawn, for an odd count); when one list is short, the
    other is cut to match.

    Parameters
    ----------
    yes, no : list of (str, str)
        The pairs whose answer is yes, and no.
    count : int
        The most pairs wanted.
    rng : random.Random
        The draw.

    Yields
    ------
    pair : (str, str)
        The entities.
    answer : {"yes", "no"}
    """
    rng.shuffle(yes)
    rng.shuffle(no)
    each = min(len(yes), len(no), count // 2 + count % 2)
    answers = balanced(("yes", "no"), min(count, 2 * each), rng)
    pools = {"yes": yes, "no": no}
    for answer in answers:
        yield pools[answer].pop(), answer


def same_line_draws(graph: TransitGraph, count: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    """Up to ``count`` station pairs asking "can one ride from one to the other without changing lines?".

    Yields ``{"station_1", "station_2", "answer"}`` (``"yes"``/``"no"``, balanced), in random order and
    direction; only stations whose name is their own (:func:`nameable_stations`).

    Parameters
    ----------
    graph : TransitGraph
    count : int
        The most pairs wanted.
    rng : random.Random
        The draw.

    Yields
    ------
    dict
        ``station_1``, ``station_2`` and ``answer``.
    """
    yes, no = same_line_pairs(graph, nameable_stations(graph))
    for (a, b), answer in balanced_yes_no(yes, no, count, rng):
        if rng.random() < 0.5:
            a, b = b, a
        yield {"station_1": a, "station_2": b, "answer": answer}


def between_draws(graph: TransitGraph, rng: random.Random) -> Iterator[tuple[str, str, str, int]]:
    """Station pairs of one line and how many stations lie between them: ``(line, a, b, between)``.

    The lines with two nameable stations or more are shuffled now (before the caller's next draw); the
    iterator then takes them in turn, each giving an unused random pair of its stations in a random
    direction, until every pair is used. Take as many as wanted: nothing more is drawn after the last taken.

    Parameters
    ----------
    graph : TransitGraph
    rng : random.Random
        The draw.

    Returns
    -------
    iterator of (str, str, str, int)
        ``(line, a, b, between)``, as many as taken.
    """
    named = set(nameable_stations(graph))
    lines = [name for name, topology in graph.lines.items() if len(named.intersection(topology.stations)) >= 2]
    rng.shuffle(lines)
    return _pairs_in_turn(graph, lines, named, rng)


def _pairs_in_turn(
    graph: TransitGraph, lines: list[str], named: set[str], rng: random.Random
) -> Iterator[tuple[str, str, str, int]]:
    pairs: dict[str, list[tuple[str, str]]] = {}
    while lines:
        for name in list(lines):
            if name not in pairs:
                pairs[name] = line_station_pairs(graph, name, named)
                rng.shuffle(pairs[name])
            if not pairs[name]:
                lines.remove(name)
                continue
            a, b = pairs[name].pop()
            if rng.random() < 0.5:
                a, b = b, a
            between = stations_between(graph, name, a, b)
            if between is not None:  # stations of one line always have a ride along it
                yield name, a, b, between

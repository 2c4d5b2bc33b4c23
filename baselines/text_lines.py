"""A line as a textualization says it (:class:`LineSpec`), cut into runs (:func:`line_layout`), and built back
into Metro Data plus a topology overlay (:func:`build_graph`): the part of :mod:`baselines.textualize` that every
format shares.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from baselines.errors import InvalidTextualization
from graphkit.errors import TransitError
from graphkit.graph import TransitGraph, compile_graph
from graphkit.metro import load_metro
from graphkit.overlays import load_overlay

__all__ = ["Layout", "LineSpec", "build_graph", "in_order", "line_layout", "spec_of"]


@dataclass(frozen=True, slots=True)
class LineSpec:
    """What a text says about one line: its stations in order, its adjacent pairs, its shape.

    Attributes
    ----------
    name : str
        The line.
    stations : tuple of str
        Its stations in order.
    edges : frozenset of frozenset of str
        Its pairs of adjacent stations.
    shape : str
        ``path``, ``loop``, ``tree`` or ``irregular``.
    """

    name: str
    stations: tuple[str, ...]
    edges: frozenset[frozenset[str]]
    shape: str


class Layout(NamedTuple):
    """A line's order cut into runs of consecutive neighbours, and the pairs the runs leave over."""

    runs: tuple[tuple[str, ...], ...]
    attaches: tuple[str | None, ...]  # per later run: the earliest earlier neighbour of its first station
    closing: bool  # the last station is adjacent to the first, beyond runs and attaches
    extras: tuple[tuple[str, str], ...]


# -- what every format shares ------------------------------------------------
def spec_of(graph: TransitGraph, line: str) -> LineSpec:
    """What ``graph`` says about ``line``, as a text would say it.

    Parameters
    ----------
    graph
        The compiled network.
    line
        One of its lines.

    Returns
    -------
    LineSpec
        The line's stations in order, its adjacent pairs and its shape.
    """
    topology = graph.lines[line]
    edges = frozenset(frozenset((a, b)) for a, near in topology.adjacency.items() for b in near)
    return LineSpec(line, topology.stations, edges, topology.shape)


def in_order(pairs, position: dict[str, int]) -> list[tuple[str, str]]:
    """Pairs as (earlier, later) stations, by later station, then nearest earlier first (a loop closes last).

    Parameters
    ----------
    pairs
        Pairs of adjacent stations (each a two-element set or sequence).
    position
        Each station's place in the line's order.

    Returns
    -------
    list of tuple of str
        The pairs in that order.
    """
    ordered = (tuple(sorted(pair, key=position.__getitem__)) for pair in pairs)
    return sorted(ordered, key=lambda pair: (position[pair[1]], -position[pair[0]]))


def line_layout(stations: tuple[str, ...], edges: frozenset[frozenset[str]]) -> Layout:
    """A line's order cut into runs of consecutive neighbours, and what the runs leave over.

    Parameters
    ----------
    stations
        The line's stations in order.
    edges
        Its pairs of adjacent stations.

    Returns
    -------
    Layout
        The runs, where each later run attaches, whether the line closes, and the pairs left over.
    """
    position = {name: index for index, name in enumerate(stations)}
    runs: list[list[str]] = []
    used: set[frozenset[str]] = set()
    for index, name in enumerate(stations):
        step = frozenset((stations[index - 1], name)) if index else None
        if step in edges:
            runs[-1].append(name)
            used.add(step)
        else:
            runs.append([name])
    attaches: list[str | None] = []
    for run in runs[1:]:
        earlier = [a for pair in edges if run[0] in pair for a in pair if position[a] < position[run[0]]]
        attaches.append(min(earlier, key=position.__getitem__) if earlier else None)
        used.update([frozenset((attaches[-1], run[0]))] if earlier else [])
    closing_pair = frozenset((stations[0], stations[-1]))
    closing = len(stations) > 2 and closing_pair in edges and closing_pair not in used
    extras = in_order(edges - used - ({closing_pair} if closing else set()), position)
    return Layout(tuple(map(tuple, runs)), tuple(attaches), closing, tuple(extras))


# -- from what a text says back to Metro Data and an overlay ----------------
def _source_of(spec: LineSpec) -> tuple[list[str], dict[str, list[dict]]]:
    """A station list and overlay entries that compile to this line (the caller checks that they do)."""
    stations, note = list(spec.stations), "rebuilt from a textualization"
    layout = line_layout(spec.stations, spec.edges)
    plain = not layout.extras and None not in layout.attaches
    if spec.shape == "path" and plain and len(layout.runs) == 1 and not layout.closing:
        return stations, {}
    if spec.shape == "loop" and plain and len(layout.runs) == 1 and layout.closing:
        return stations, {"loops": [{"line": spec.name, "note": note}]}
    if spec.shape == "tree" and plain and not layout.closing and len(stations) > 1:
        runs, attaches = layout.runs, layout.attaches
        if len(runs) == 1:  # the list runs on into the branch: hang its last station where it was
            runs, attaches = (runs[0][:-1], runs[0][-1:]), (runs[0][-2],)
        # every branch runs to the end of the list, so cutting one out never joins two runs
        branches = [
            {"line": spec.name, "leaves_at": at, "first": run[0], "note": note} for run, at in zip(runs[1:], attaches)
        ]
        return stations, {"branches": branches}
    return _walk(spec)


def _way(near: Any, start: str, goals: set[str], allowed: set[str] | Any) -> list[str] | None:
    """The stations after ``start`` on a shortest walk to one of ``goals`` through ``allowed`` ones.

    ``near`` is the line as a networkx graph; of the goals at the least distance, the one found first
    breadth-first (neighbours in the line's pair order) wins.
    """
    import networkx

    if start in goals:
        return []
    through = networkx.subgraph_view(near, filter_node=lambda name: name == start or name in allowed)
    back: dict[str, str] = {}
    for here, there in networkx.bfs_edges(through, start, depth_limit=len(near)):
        back[there] = here
        if there in goals:
            steps = [there]
            while back[steps[-1]] != start:
                steps.append(back[steps[-1]])
            return steps[::-1]
    return None


def _walk(spec: LineSpec) -> tuple[list[str], dict[str, list[dict]]]:
    """Any other line as one walk over all its pairs, listing stations again (declared repeated) as needed.

    Stations first appear in the line's order, each next to one seen before;
    then the walk rides to each pair not yet walked. It closes on itself
    exactly when the line is a loop.
    """
    import networkx

    position = {name: index for index, name in enumerate(spec.stations)}
    near = networkx.Graph()
    near.add_nodes_from(spec.stations)
    near.add_edges_from(in_order(spec.edges, position))  # each station's neighbours in pair order
    walk, seen = [spec.stations[0]], {spec.stations[0]}
    for name in spec.stations[1:]:
        steps = _way(near, walk[-1], {a for a in near[name] if a in seen}, seen)
        if steps is None:
            raise InvalidTextualization(f"line {spec.name!r}: {name!r} has no neighbour listed before it")
        walk += [*steps, name]
        seen.add(name)
    walked = {frozenset(step) for step in zip(walk, walk[1:])}
    for a, b in in_order(spec.edges - walked, position):
        walk += [*_way(near, walk[-1], {a}, near), b]
    if spec.shape == "loop" and walk[-1] != walk[0]:
        walk += _way(near, walk[-1], {walk[0]}, near)
    elif spec.shape != "loop" and len(walk) > 2 and walk[-1] == walk[0]:
        walk.append(next(iter(near[walk[0]])))
    closes = len(walk) > 2 and walk[0] == walk[-1]  # a closing repeat needs no declaration
    again = [name for name in spec.stations if walk.count(name) > 1 + (closes and name == walk[0])]
    return walk, {"repeated_stations": [{"line": spec.name, "station": name, "note": "listed again"} for name in again]}


def build_graph(city: str, specs: list[LineSpec], line_count: int, station_count: int) -> TransitGraph:
    """Compile what a text says, and check that the graph says just that.

    Parameters
    ----------
    city
        The city's name from the text's header.
    specs
        What the text says about each line, in its order.
    line_count, station_count
        The counts the header promises.

    Returns
    -------
    TransitGraph
        The graph, compiled from Metro Data and a topology overlay.

    Raises
    ------
    InvalidTextualization
        A line is listed twice, names a station twice or pairs stations not on it, the network is invalid or
        cannot say just what the text says, or the counts differ from the header's (a truncated text).
    """
    data: dict[str, list[str]] = {}
    overlay: dict[str, list[dict]] = {}
    for spec in specs:
        if spec.name in data:
            raise InvalidTextualization(f"line {spec.name!r} is listed twice")
        if len(set(spec.stations)) != len(spec.stations):
            raise InvalidTextualization(f"line {spec.name!r}: a station is listed twice")
        strays = {name for pair in spec.edges for name in pair} - set(spec.stations)
        if strays:
            raise InvalidTextualization(f"line {spec.name!r}: pairs name stations not on it: {sorted(strays)}")
        data[spec.name], entries = _source_of(spec)
        for section, found in entries.items():
            overlay.setdefault(section, []).extend(found)
    try:
        parsed = load_overlay(overlay)
        graph = compile_graph(load_metro(data, city=city, allowed_repeats=parsed.allowed_repeats), parsed)
    except TransitError as error:
        raise InvalidTextualization(f"the text does not make a valid network: {error}") from None
    for spec in specs:
        if spec_of(graph, spec.name) != spec:
            raise InvalidTextualization(f"line {spec.name!r} cannot be rebuilt as Metro Data and an overlay")
    if (len(graph.lines), len(graph.stations)) != (line_count, station_count):
        raise InvalidTextualization(
            f"the header promises {line_count} lines and {station_count} stations, the text has"
            f" {len(graph.lines)} and {len(graph.stations)}: is it truncated?"
        )
    return graph

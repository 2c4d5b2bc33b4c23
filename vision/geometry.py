"""Where lines run on a map: their paths through the found stations, and where two lines run close.

A line's *walk* (:func:`line_stations`) lists its stations in the order a pen
would draw it: a path end to end, a loop back to its first station, a branch
after retracing to the station it leaves from. Mapping a walk onto the found
stations' points gives the line's drawn path (:func:`line_paths`); the
proximity functions measure those paths with shapely.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vision.evidence import LineEvidence, MapEvidence, Point, StationEvidence

__all__ = ["LineProximity", "line_stations", "station_walk", "line_paths", "close_runs", "lines_near"]

# A station lies on a line's path when its point is this close to it (pixels).
_ON_PATH = 0.5

if TYPE_CHECKING:
    from graphkit.graph import TransitGraph


@dataclass(frozen=True, slots=True)
class LineProximity:
    """Two lines whose paths come within some distance of each other.

    ``near_a`` are the stations of ``line_a`` that lie close to ``line_b``'s
    path without being served by ``line_b`` (in ``line_a``'s order), and
    ``near_b`` the other way round: the places where a reader could take one
    line for the other.

    Attributes
    ----------
    line_a, line_b : str
        The lines.
    distance : float
        How close their paths come, in pixels.
    near_a, near_b : tuple of str
        The stations of each that lie close to the other's path without being served by it.
    """

    line_a: str
    line_b: str
    distance: float
    near_a: tuple[str, ...] = ()
    near_b: tuple[str, ...] = ()


def station_walk(adjacency: Mapping[str, Sequence[str]], order: Sequence[str]) -> tuple[str, ...]:
    """Stations in the order a pen draws every hop of a line once, retracing to reach a branch.

    The walk starts at ``order[0]`` and tries neighbours in ``adjacency``'s
    order; a hop back to a station already drawn (a loop closing) ends there.
    A part of the line not connected to the rest starts afresh (a jump).

    Parameters
    ----------
    adjacency : mapping of str to sequence of str
        Each station's neighbours on the line.
    order : sequence of str
        The line's stations, the walk's start first.

    Returns
    -------
    tuple of str
        The walk.

    Examples
    --------
    >>> station_walk({"A": ["B"], "B": ["A", "C"], "C": ["B"]}, ["A", "B", "C"])
    ('A', 'B', 'C')
    >>> station_walk({"A": ["B", "C"], "B": ["A", "C"], "C": ["B", "A"]}, ["A", "B", "C"])
    ('A', 'B', 'C', 'A')
    >>> station_walk({"A": ["B"], "B": ["A", "C", "D"], "C": ["B"], "D": ["B"]}, ["A", "B", "C", "D"])
    ('A', 'B', 'C', 'B', 'D')
    """
    steps: list[tuple[str, bool]] = []  # (station, whether this step draws a new hop)
    drawn: set[frozenset[str]] = set()
    seen: set[str] = set()
    for start in order:
        if start in seen:
            continue
        seen.add(start)
        steps.append((start, True))
        stack = [(start, iter(adjacency.get(start, ())))]
        while stack:
            here, neighbours = stack[-1]
            for there in neighbours:
                hop = frozenset((here, there))
                if there == here or hop in drawn:
                    continue
                drawn.add(hop)
                steps.append((there, True))
                if there not in seen:
                    seen.add(there)
                    stack.append((there, iter(adjacency.get(there, ()))))
                    break
                steps.append((here, False))  # a hop back to a drawn station: return to go on
            else:
                stack.pop()
                if stack:
                    steps.append((stack[-1][0], False))
        # the walk ends on its last new hop, not after retracing to the start
        while steps and not steps[-1][1]:
            steps.pop()
    return tuple(name for name, _ in steps)


def line_stations(graph: TransitGraph) -> dict[str, tuple[str, ...]]:
    """Each line of ``graph`` as its :func:`station_walk` (loops end on their first station).

    Parameters
    ----------
    graph : TransitGraph

    Returns
    -------
    dict of str to tuple of str
        Each line's stations in drawing order.

    Examples
    --------
    >>> from graphkit.graph import compile_graph
    >>> from graphkit.metro import load_metro
    >>> from graphkit.overlays import load_overlay
    >>> loop = load_overlay({"loops": [{"line": "Line 2", "note": "a loop"}]})
    >>> graph = compile_graph(load_metro({"Line 2": ["L0", "L1", "L2", "L3"], "Line 9": ["X", "L2", "Y"]}), loop)
    >>> walks = line_stations(graph)
    >>> walks["Line 2"][0] == walks["Line 2"][-1] == "L0", walks["Line 9"]
    (True, ('X', 'L2', 'Y'))
    """
    return {name: station_walk(line.adjacency, line.stations) for name, line in graph.lines.items()}


def line_paths(
    stations: Mapping[str, StationEvidence], lines: Mapping[str, Sequence[str]]
) -> dict[str, tuple[Point, ...]]:
    """Each line's path: the points of its found stations in walk order.

    Stations not found (or without a point) are skipped, so the path jumps
    straight from one found station to the next; a loop's walk ends on its
    first station, so its path closes.

    Parameters
    ----------
    stations : mapping of str to StationEvidence
    lines : mapping of str to sequence of str
        Line name to its stations in drawing order, as from :func:`line_stations`.

    Returns
    -------
    dict of str to tuple of (float, float)
        Each line's path.

    Examples
    --------
    >>> found = {"A": StationEvidence("A", True, (0, 0)), "B": StationEvidence("B", False),
    ...          "C": StationEvidence("C", True, (10, 0))}
    >>> line_paths(found, {"1": ["A", "B", "C"], "2": ["B"]})
    {'1': ((0, 0), (10, 0)), '2': ()}
    """
    paths: dict[str, tuple[Point, ...]] = {}
    for line, walk in lines.items():
        points: list[Point] = []
        for name in walk:
            found = stations.get(name)
            if found is None or not found.found or found.point is None:
                continue
            if not points or points[-1] != found.point:
                points.append(found.point)
        paths[line] = tuple(points)
    return paths


def _shapes(lines: Mapping[str, LineEvidence]):
    """Line names and their paths as shapely geometries (lines without a path left out)."""
    import numpy
    import shapely

    names, shapes = [], []
    for name in sorted(lines):
        path = lines[name].path
        if len(path) >= 2:
            shapes.append(shapely.linestrings(path))
        elif path:
            shapes.append(shapely.points(path[0]))
        else:
            continue
        names.append(name)
    return names, numpy.array(shapes, dtype=object)


def _station_points(stations: Mapping[str, StationEvidence]):
    import numpy
    import shapely

    names = sorted(name for name, found in stations.items() if found.found and found.point is not None)
    coordinates = numpy.array([stations[name].point for name in names], dtype=float).reshape(-1, 2)
    return names, shapely.points(coordinates)


def close_runs(
    evidence: MapEvidence, *, within: float, served: Mapping[str, Collection[str]] | None = None
) -> list[LineProximity]:
    """Every pair of lines whose paths come within ``within`` pixels, closest first.

    Parameters
    ----------
    evidence : MapEvidence
    within : float
        Pixels; pairs further apart are left out.
    served : mapping of str to collection of str, optional
        Line name to the stations it serves (e.g. :func:`line_stations`).
        Without it, a line serves the stations whose points lie on its path.

    Returns
    -------
    list of LineProximity
        Sorted by distance, then by line names; each pair once, with
        ``line_a < line_b``.

    Raises
    ------
    ValueError
        ``within`` is negative or not finite.

    Examples
    --------
    >>> truth = {"stations": {"A": {"x": 0, "y": 0, "label_box": None}, "B": {"x": 100, "y": 0, "label_box": None},
    ...                       "C": {"x": 0, "y": 8, "label_box": None}, "D": {"x": 100, "y": 50, "label_box": None}},
    ...          "lines": {"1": {"color": "#ff0000", "path": [[0, 0], [100, 0]]},
    ...                    "2": {"color": "#0000ff", "path": [[0, 8], [100, 50]]}}}
    >>> close_runs(MapEvidence.from_truth(truth), within=10)
    [LineProximity(line_a='1', line_b='2', distance=8.0, near_a=('A',), near_b=('C',))]
    """
    import math

    import shapely

    if not math.isfinite(within) or within < 0:
        raise ValueError(f"within must be a distance of 0 pixels or more, got {within!r}")
    names, shapes = _shapes(evidence.lines)
    if len(names) < 2:
        return []
    tree = shapely.STRtree(shapes)
    left, right = tree.query(shapes, predicate="dwithin", distance=within)
    keep = left < right
    left, right = left[keep], right[keep]
    distances = shapely.distance(shapes[left], shapes[right])

    station_names, points = _station_points(evidence.stations)
    point_tree = shapely.STRtree(points)
    near: dict[str, set[str]] = {name: set() for name in names}
    for line, station in zip(*point_tree.query(shapes, predicate="dwithin", distance=within)):
        near[names[line]].add(station_names[station])
    if served is None:
        on_path: dict[str, set[str]] = {name: set() for name in names}
        for line, station in zip(*point_tree.query(shapes, predicate="dwithin", distance=_ON_PATH)):
            on_path[names[line]].add(station_names[station])
        serves: Mapping[str, Collection[str]] = on_path
    else:
        serves = {name: set(served.get(name, ())) for name in names}

    def along(line: int, stations: set[str]) -> tuple[str, ...]:
        shape = shapes[line]
        if shape.geom_type != "LineString":
            return tuple(sorted(stations))
        where = {name: shape.project(shapely.points(evidence.stations[name].point)) for name in stations}
        return tuple(sorted(stations, key=lambda name: (where[name], name)))

    runs = []
    for a, b, distance in zip(left.tolist(), right.tolist(), distances.tolist()):
        line_a, line_b = names[a], names[b]
        near_a = (set(serves[line_a]) & near[line_b]) - set(serves[line_b])
        near_b = (set(serves[line_b]) & near[line_a]) - set(serves[line_a])
        runs.append(LineProximity(line_a, line_b, round(distance, 2), along(a, near_a), along(b, near_b)))
    runs.sort(key=lambda run: (run.distance, run.line_a, run.line_b))
    return runs


def lines_near(evidence: MapEvidence, station: str, *, within: float) -> tuple[str, ...]:
    """Lines whose paths pass within ``within`` pixels of a station's point, closest first.

    An unknown station, or one not found on the map, has no lines near it.

    Parameters
    ----------
    evidence : MapEvidence
        The map's stations and line paths.
    station : str
        The station.
    within : float
        The distance, in pixels.

    Returns
    -------
    tuple of str
        The lines near it, closest first.

    Examples
    --------
    >>> truth = {"stations": {"A": {"x": 0, "y": 5, "label_box": None}},
    ...          "lines": {"1": {"color": "#ff0000", "path": [[0, 0], [100, 0]]},
    ...                    "2": {"color": "#0000ff", "path": [[0, 8], [100, 50]]},
    ...                    "3": {"color": "#00ff00", "path": [[0, 80], [100, 80]]}}}
    >>> lines_near(MapEvidence.from_truth(truth), "A", within=10)
    ('2', '1')
    """
    import shapely

    found = evidence.stations.get(station)
    if found is None or not found.found or found.point is None:
        return ()
    names, shapes = _shapes(evidence.lines)
    if not names:
        return ()
    distances = shapely.distance(shapes, shapely.points(found.point)).tolist()
    close = [(distance, name) for distance, name in zip(distances, names) if distance <= within]
    return tuple(name for _, name in sorted(close))

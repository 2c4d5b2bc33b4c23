"""Where a synthetic map puts its stations and how its lines run between them.

Stations go on a square grid: an igraph Kamada–Kawai layout of the line graph
(stations joined where a line runs between them), spread so dense parts get
room for labels, then snapped to distinct grid cells. Each hop is drawn
octilinearly (straight, 45°, straight), and lines sharing a hop run side by
side at a perpendicular offset. Everything here is pure: grid coordinates in,
polylines out; :mod:`vision.render` scales them to pixels and draws.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from graphkit.graph import TransitGraph

__all__ = ["GridLayout", "grid_layout", "line_hops", "hop_route", "offset_polyline", "line_walk"]

Point = tuple[float, float]
Cell = tuple[int, int]


@dataclass(frozen=True, slots=True)
class GridLayout:
    """Stations on a grid: ``cells`` maps each station to its (column, row); the grid is ``columns`` × ``rows``."""

    cells: dict[str, Cell]
    columns: int
    rows: int


def _edges(graph: TransitGraph) -> list[tuple[int, int]]:
    vertex = {name: index for index, name in enumerate(graph.stations)}
    edges = {
        (min(vertex[a], vertex[b]), max(vertex[a], vertex[b]))
        for topology in graph.lines.values()
        for a, neighbours in topology.adjacency.items()
        for b in neighbours
        if a != b
    }
    return sorted(edges)


def _spread(values: list[float]) -> list[float]:
    """Values mapped to [0, 1], half by position and half by rank, so dense clusters open up."""
    n = len(values)
    if n == 1:
        return [0.5]
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    rank = [0] * n
    for position, index in enumerate(sorted(range(n), key=lambda i: (values[i], i))):
        rank[index] = position
    return [0.5 * (value - low) / span + 0.5 * rank[index] / (n - 1) for index, value in enumerate(values)]


def grid_layout(graph: TransitGraph, *, seed: int = 0, density: float = 6.0) -> GridLayout:
    """Stations of ``graph`` on distinct cells of a grid with about ``density`` cells per station.

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> layout = grid_layout(city_graph("miami"), seed=1)
    >>> len(set(layout.cells.values())) == len(layout.cells) == 23
    True
    """
    import igraph  # the layout only: station names never leave this module as vertex ids

    names = graph.stations
    n = len(names)
    rng = random.Random(seed)
    start = [[rng.uniform(-1.0, 1.0) * math.sqrt(n), rng.uniform(-1.0, 1.0) * math.sqrt(n)] for _ in range(n)]
    if n > 1:
        coords = igraph.Graph(n=n, edges=_edges(graph)).layout_kamada_kawai(seed=start, maxiter=50 * n).coords
    else:
        coords = start
    xs, ys = _spread([x for x, _ in coords]), _spread([y for _, y in coords])
    width = (max(x for x, _ in coords) - min(x for x, _ in coords)) if n > 1 else 1.0
    height = (max(y for _, y in coords) - min(y for _, y in coords)) if n > 1 else 1.0
    aspect = min(1.6, max(0.625, (width or 1.0) / (height or 1.0)))
    target = max(4.0, density * n)
    columns = max(2, math.ceil(math.sqrt(target * aspect)))
    rows = max(2, math.ceil(target / columns))
    taken: set[Cell] = set()
    cells: dict[str, Cell] = {}
    # the stations with most lines claim their cells first: they anchor the map
    order = sorted(range(n), key=lambda i: (-len(graph.lines_at(names[i])), i))
    for index in order:
        ideal = (xs[index] * (columns - 1), ys[index] * (rows - 1))
        cells[names[index]] = _nearest_free(ideal, columns, rows, taken)
        taken.add(cells[names[index]])
    return GridLayout({name: cells[name] for name in names}, columns, rows)


def _nearest_free(ideal: Point, columns: int, rows: int, taken: set[Cell]) -> Cell:
    cx, cy = round(ideal[0]), round(ideal[1])
    for radius in range(max(columns, rows) + 1):
        ring = [
            (x, y)
            for x in range(cx - radius, cx + radius + 1)
            for y in range(cy - radius, cy + radius + 1)
            if max(abs(x - cx), abs(y - cy)) == radius and 0 <= x < columns and 0 <= y < rows and (x, y) not in taken
        ]
        if ring:
            return min(ring, key=lambda cell: ((cell[0] - ideal[0]) ** 2 + (cell[1] - ideal[1]) ** 2, cell[1], cell[0]))
    raise ValueError(f"a {columns}x{rows} grid has no free cell left")  # density >= 1 makes this unreachable


def line_hops(graph: TransitGraph, line: str) -> list[tuple[str, str]]:
    """The hops of ``line`` (each once), in the order its stations are listed, as (earlier, later) pairs."""
    topology = graph.lines[line]
    seen: set[frozenset[str]] = set()
    hops = []
    for station in topology.stations:
        for neighbour in topology.adjacency.get(station, ()):
            key = frozenset((station, neighbour))
            if neighbour != station and key not in seen:
                seen.add(key)
                hops.append((station, neighbour))
    return hops


def hop_route(a: Point, b: Point) -> list[Point]:
    """An octilinear polyline from ``a`` to ``b``: half the straight leg, the 45° leg, the other half.

    Examples
    --------
    >>> hop_route((0, 0), (4, 2))
    [(0, 0), (1.0, 0.0), (3.0, 2.0), (4, 2)]
    >>> hop_route((0, 0), (0, 3))
    [(0, 0), (0, 3)]
    """
    dx, dy = b[0] - a[0], b[1] - a[1]
    diagonal = min(abs(dx), abs(dy))
    straight = max(abs(dx), abs(dy)) - diagonal
    if diagonal == 0 or straight == 0:
        return [a, b]
    sx, sy = math.copysign(1.0, dx), math.copysign(1.0, dy)
    if abs(dx) > abs(dy):
        leg = (sx * straight / 2, 0.0)
    else:
        leg = (0.0, sy * straight / 2)
    first = (a[0] + leg[0], a[1] + leg[1])
    second = (first[0] + sx * diagonal, first[1] + sy * diagonal)
    return [a, first, second, b]


def offset_polyline(points: list[Point], distance: float) -> list[Point]:
    """``points`` moved ``distance`` to the left of their direction (mitred at corners).

    Examples
    --------
    >>> offset_polyline([(0, 0), (10, 0)], 2)
    [(0.0, -2.0), (10.0, -2.0)]
    """
    if distance == 0 or len(points) < 2:
        return [(float(x), float(y)) for x, y in points]
    normals = []
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        length = math.hypot(x1 - x0, y1 - y0) or 1.0
        normals.append(((y1 - y0) / length, -(x1 - x0) / length))  # left of the direction in image coordinates
    moved = []
    for index, (x, y) in enumerate(points):
        before = normals[max(0, index - 1)]
        after = normals[min(len(normals) - 1, index)]
        mx, my = before[0] + after[0], before[1] + after[1]
        norm = math.hypot(mx, my)
        if norm < 1e-9:
            mx, my, scale = after[0], after[1], distance
        else:
            mx, my = mx / norm, my / norm
            scale = distance / max(0.5, mx * after[0] + my * after[1])
        moved.append((x + mx * scale, y + my * scale))
    return moved


def line_walk(hops: list[tuple[str, str]], routes: dict[tuple[str, str], list[Point]]) -> list[Point]:
    """One polyline through every hop of a line, in order, walking back over drawn hops to reach a branch.

    ``routes[(a, b)]`` is the drawn polyline of hop ``a``–``b`` in that direction (both directions given). A
    walk that must leave from an earlier station retraces the hops it came by, so every segment of the
    result lies on a drawn stroke (apart from the short step between two offsets under a station marker).
    """
    if not hops:
        return []
    pending = {frozenset(hop) for hop in hops}
    order = {frozenset(hop): index for index, hop in enumerate(hops)}
    around: dict[str, list[str]] = {}
    for a, b in hops:
        around.setdefault(a, []).append(b)
        around.setdefault(b, []).append(a)
    walk: list[Point] = []
    stack: list[tuple[str, list[Point]]] = [(hops[0][0], [])]
    backtrack: list[Point] = []
    while pending:
        station = stack[-1][0]
        choices = sorted(
            (b for b in around[station] if frozenset((station, b)) in pending),
            key=lambda b: order[frozenset((station, b))],
        )
        if not choices:
            if len(stack) > 1:
                backtrack.extend(reversed(stack.pop()[1]))
                continue
            # a part of the line not connected to where the walk began: jump to its first hop
            first = min(pending, key=order.__getitem__)
            stack = [(hops[order[first]][0], [])]
            backtrack = []
            continue
        following = choices[0]
        pending.discard(frozenset((station, following)))
        route = routes[(station, following)]
        walk.extend(backtrack)
        backtrack = []
        walk.extend(route)
        stack.append((following, route))
    return walk

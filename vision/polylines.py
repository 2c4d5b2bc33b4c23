"""The drawn shape of a map's lines: each line's hops, a hop's octilinear polyline, its offset, a line's walk.

Pure geometry in grid or pixel coordinates: :mod:`vision.layout` places the stations and picks each bent hop's
shape (:func:`vision.layout.hop_shapes`), :mod:`vision.strokes` draws the hops side by side with these.
"""

from __future__ import annotations

import math

from graphkit.graph import TransitGraph

__all__ = ["line_hops", "hop_route", "offset_polyline", "line_walk"]

Point = tuple[float, float]


def line_hops(graph: TransitGraph, line: str) -> list[tuple[str, str]]:
    """The hops of ``line`` (each once), in the order its stations are listed.

    Parameters
    ----------
    graph : TransitGraph
        The network.
    line : str
        One of its lines.

    Returns
    -------
    list of (str, str)
        Each hop as (earlier, later) in the line's station order.

    Raises
    ------
    KeyError
        ``line`` is not a line of ``graph``.

    Examples
    --------
    >>> from graphkit.graph import compile_graph
    >>> from graphkit.metro import load_metro
    >>> line_hops(compile_graph(load_metro({"L": ["A", "B", "C"]})), "L")
    [('A', 'B'), ('B', 'C')]
    """
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


def hop_route(a: Point, b: Point, *, diagonal_first: bool = False) -> list[Point]:
    """An octilinear polyline from ``a`` to ``b`` with at most one bend: the straight leg, then the 45° leg.

    Parameters
    ----------
    a, b : (float, float)
        The hop's ends.
    diagonal_first : bool, optional
        Draw the 45° leg first, so the hop leaves ``a`` diagonally and reaches ``b`` straight.

    Returns
    -------
    list of (float, float)
        ``[a, b]`` when the hop is straight or exactly diagonal, else ``[a, corner, b]``.

    Examples
    --------
    >>> hop_route((0, 0), (4, 2))
    [(0, 0), (2.0, 0.0), (4, 2)]
    >>> hop_route((0, 0), (4, 2), diagonal_first=True)
    [(0, 0), (2.0, 2.0), (4, 2)]
    >>> hop_route((0, 0), (0, 3))
    [(0, 0), (0, 3)]
    """
    dx, dy = b[0] - a[0], b[1] - a[1]
    diagonal = min(abs(dx), abs(dy))
    straight = max(abs(dx), abs(dy)) - diagonal
    if diagonal == 0 or straight == 0:
        return [a, b]
    sx, sy = math.copysign(1.0, dx), math.copysign(1.0, dy)
    if diagonal_first:
        corner = (a[0] + sx * diagonal, a[1] + sy * diagonal)
    elif abs(dx) > abs(dy):
        corner = (a[0] + sx * straight, float(a[1]))
    else:
        corner = (float(a[0]), a[1] + sy * straight)
    return [a, (float(corner[0]), float(corner[1])), b]


def offset_polyline(points: list[Point], distance: float) -> list[Point]:
    """``points`` moved ``distance`` to the left of their direction in image coordinates (mitred at corners).

    ``shapely.offset_curve`` with a mitre join (its left is this one's right: image rows grow downwards).
    The renderer's hops (:func:`hop_route`) bend by 45° at most, well within the mitre limit, so each point
    has its moved point.

    Parameters
    ----------
    points : list of (float, float)
        The polyline.
    distance : float
        How far to move it (pixels; negative: to the right).

    Returns
    -------
    list of (float, float)
        The moved polyline, one point per point (``points`` as floats when ``distance`` is 0 or fewer than two).

    Examples
    --------
    >>> offset_polyline([(0, 0), (10, 0)], 2)
    [(0.0, -2.0), (10.0, -2.0)]
    >>> offset_polyline([(0, 0), (10, 0), (14, 4)], 1)
    [(0.0, -1.0), (10.414213562373096, -1.0), (14.707106781186548, 3.2928932188134525)]
    """
    if distance == 0 or len(points) < 2:
        return [(float(x), float(y)) for x, y in points]
    import shapely

    moved = shapely.offset_curve(shapely.LineString(points), -distance, join_style="mitre", mitre_limit=2.0)
    return [(float(x), float(y)) for x, y in moved.coords]


def line_walk(hops: list[tuple[str, str]], routes: dict[tuple[str, str], list[Point]]) -> list[Point]:
    """One polyline through every hop of a line, in order, walking back over drawn hops to reach a branch.

    A walk that must leave from an earlier station retraces the hops it came by, so every segment of the
    result lies on a drawn stroke (apart from the short step between two offsets under a station marker).

    Parameters
    ----------
    hops : list of (str, str)
        The line's hops in order (:func:`line_hops`).
    routes : dict of (str, str) to list of (float, float)
        ``routes[(a, b)]``: the drawn polyline of hop ``a``–``b`` in that direction (both directions given).

    Returns
    -------
    list of (float, float)
        The walk: the routes it takes and retraces, joined in order; a part of the line not connected to where the
        walk began follows on from its first hop. Empty for a line without hops.

    Examples
    --------
    >>> line_walk([("A", "B"), ("B", "C")], {("A", "B"): [(0, 0), (1, 0)], ("B", "A"): [(1, 0), (0, 0)],
    ...                                       ("B", "C"): [(1, 0), (2, 0)], ("C", "B"): [(2, 0), (1, 0)]})
    [(0, 0), (1, 0), (1, 0), (2, 0)]
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

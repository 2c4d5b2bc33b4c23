"""Where a synthetic map puts its stations and how its lines run between them.

Stations go on a square grid: an igraph Kamada–Kawai layout of the line graph
(stations joined where a line runs between them), spread so dense parts get
room for labels, then snapped to distinct grid cells. Each hop is drawn
octilinearly (straight, 45°, straight), and lines sharing a hop run side by
side at a perpendicular offset. Everything here is pure: grid coordinates in,
polylines out (:mod:`vision.polylines`); :mod:`vision.render` scales them to pixels and draws.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass

from graphkit.graph import TransitGraph
from vision.polylines import hop_route, line_hops

__all__ = ["GridLayout", "grid_layout", "straighten", "hop_shapes"]

Point = tuple[float, float]
Cell = tuple[int, int]


@dataclass(frozen=True, slots=True)
class GridLayout:
    """Stations on a grid of ``columns`` × ``rows`` cells.

    Parameters
    ----------
    cells : dict of str to (int, int)
        Each station's (column, row), distinct.
    columns, rows : int
        The grid's size.
    """

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
    rank = [0.0] * n
    ordered = sorted(range(n), key=lambda i: (values[i], i))
    start = 0
    for position in range(1, n + 1):  # equal values share their mean rank (a row of stations stays a row)
        if position == n or values[ordered[position]] != values[ordered[start]]:
            for index in ordered[start:position]:
                rank[index] = (start + position - 1) / 2
            start = position
    return [0.5 * (value - low) / span + 0.5 * rank[index] / (n - 1) for index, value in enumerate(values)]


def grid_layout(
    graph: TransitGraph, *, seed: int = 0, density: float = 6.0, coords: list[tuple[float, float]] | None = None
) -> GridLayout:
    """Stations of ``graph`` on distinct cells of a grid with about ``density`` cells per station.

    ``coords`` (one ``(x, y)`` per station, rows running down) places the stations where they are, as
    :func:`vision.geography.geographic_coords` gives them, instead of the Kamada–Kawai layout.

    Parameters
    ----------
    graph : TransitGraph
        The network.
    seed : int, optional
        Seeds the layout's random start: the same seed, the same layout.
    density : float, optional
        Grid cells per station (at least 4 cells in all, 2 columns and 2 rows).
    coords : list of (float, float), optional
        One position per station, in the graph's station order.

    Returns
    -------
    GridLayout
        Every station on its own cell; the stations with most lines claim theirs first.

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> layout = grid_layout(city_graph("miami"), seed=1)
    >>> len(set(layout.cells.values())) == len(layout.cells) == 23
    True
    """
    from graphkit.igraph_import import igraph_module

    igraph = igraph_module()  # without matplotlib; the layout only: station names never leave it as vertex ids

    names = graph.stations
    n = len(names)
    rng = random.Random(seed)
    start = [[rng.uniform(-1.0, 1.0) * math.sqrt(n), rng.uniform(-1.0, 1.0) * math.sqrt(n)] for _ in range(n)]
    if coords is not None:
        coords = [list(point) for point in coords]
    elif n > 1:
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


def _octilinear(a: Cell, b: Cell) -> bool:
    dx, dy = b[0] - a[0], b[1] - a[1]
    return dx == 0 or dy == 0 or abs(dx) == abs(dy)


@functools.lru_cache(maxsize=1 << 16)
def _shape_cells(a: Cell, b: Cell) -> tuple[tuple[Cell, ...], ...]:
    """The cells strictly between ``a`` and ``b`` that each way of drawing the hop passes over: one way for
    a straight hop, two for a bent one (:func:`hop_route`, straight leg first, then 45° leg first)."""
    shapes = []
    for first in (False, True) if not _octilinear(a, b) else (False,):
        route = hop_route(a, b, diagonal_first=first)
        passed: list[Cell] = []
        for p, q in zip(route, route[1:]):
            sx, sy = _direction(p, q)
            start = (round(p[0]), round(p[1]))
            steps = max(abs(round(q[0]) - start[0]), abs(round(q[1]) - start[1]))
            passed.extend((start[0] + sx * k, start[1] + sy * k) for k in range(1, steps + 1))
        shapes.append(tuple(passed[:-1]))
    return tuple(shapes)


def _clear(a: Cell, b: Cell, occupied) -> bool:
    """Whether the hop ``a``–``b`` can be drawn without passing over a cell for which ``occupied`` holds."""
    return any(not any(occupied(cell) for cell in passed) for passed in _shape_cells(a, b))


def _crossings(p: Cell, qs: list[Cell], starts, ends) -> int:
    """How many of the segments ``starts[i]``–``ends[i]`` (arrays of cells) the segments from p to each of ``qs``
    cross inside both, summed over ``qs``.

    Segments that share an end with p–q touch it there and are not counted.
    """
    import numpy

    px, py = p
    q = numpy.array(qs, dtype=numpy.int64).reshape(-1, 1, 2)
    qx, qy = q[..., 0], q[..., 1]  # one row per q, one column per segment
    sx, sy, ex, ey = starts[:, 0], starts[:, 1], ends[:, 0], ends[:, 1]

    def side(ax, ay, bx, by, cx, cy):  # which side of a→b the point c lies on (integers: exact)
        return numpy.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax))

    shared = (
        ((sx == px) & (sy == py)) | ((sx == qx) & (sy == qy)) | ((ex == px) & (ey == py)) | ((ex == qx) & (ey == qy))
    )
    crossing = side(px, py, qx, qy, sx, sy) * side(px, py, qx, qy, ex, ey) < 0
    crossing &= side(sx, sy, ex, ey, px, py) * side(sx, sy, ex, ey, qx, qy) < 0
    return int(numpy.count_nonzero(crossing & ~shared))


def straighten(graph: TransitGraph, layout: GridLayout, *, rounds: int = 4) -> GridLayout:
    """``layout`` with stations moved to nearby free cells wherever that takes bends out of their lines.

    A move is kept when it lowers the bends of the lines through the station and its neighbours (a bent
    hop counts one, a change of heading at a station one) plus a small price on longer hops, and when it
    neither adds a crossing nor puts a station on another hop's straight run. Stations are visited in
    graph order for ``rounds`` rounds: deterministic. Then each hop every drawing of which passes over
    another station gets a clear way (:meth:`_Layout.clear_hops`).

    Parameters
    ----------
    graph : TransitGraph
        The network laid out.
    layout : GridLayout
        Its layout (:func:`grid_layout`); not changed.
    rounds : int, optional
        The most rounds of moves (fewer when a round moves nothing).

    Returns
    -------
    GridLayout
        The straightened layout, on the same grid.

    Examples
    --------
    >>> from graphkit.graph import compile_graph
    >>> from graphkit.metro import load_metro
    >>> graph = compile_graph(load_metro({"L": ["A", "B", "C"]}))
    >>> bent = GridLayout({"A": (0, 0), "B": (1, 1), "C": (2, 0)}, 3, 3)
    >>> straighten(graph, bent).cells["B"][1]
    0
    """
    state = _Layout(graph, layout)
    for _ in range(rounds):
        if not state.unbend():
            break
    state.clear_hops()
    return state.layout()


class _Layout:
    """A layout being straightened: each station's cell and the cells taken, read and changed only through
    :meth:`move`, which keeps the hop arrays (for crossing counts) and the hops over each cell in step."""

    __slots__ = (
        "names", "columns", "rows", "cells", "taken", "rank", "neighbours", "lines_at", "hops", "starts", "ends",
        "touching", "leaving", "arriving", "over",
    )  # fmt: skip

    def __init__(self, graph: TransitGraph, layout: GridLayout):
        import numpy

        self.names = graph.stations
        self.columns, self.rows = layout.columns, layout.rows
        self.cells = dict(layout.cells)
        self.taken = set(self.cells.values())
        self.rank = {name: index for index, name in enumerate(self.names)}
        self.neighbours: dict[str, set[str]] = {name: set() for name in self.names}
        # the lines through each station (their neighbours there): a station is on few of a city's lines
        self.lines_at: dict[str, list[list[str]]] = {name: [] for name in self.names}
        for line in graph.lines:
            around: dict[str, list[str]] = {}
            for a, b in line_hops(graph, line):
                around.setdefault(a, []).append(b)
                around.setdefault(b, []).append(a)
                self.neighbours[a].add(b)
                self.neighbours[b].add(a)
            for name, near in around.items():
                self.lines_at[name].append(near)
        self.hops = sorted({tuple(sorted((a, b))) for a in self.names for b in self.neighbours[a]})
        self.starts = numpy.array([self.cells[a] for a, _ in self.hops], dtype=numpy.int64).reshape(-1, 2)
        self.ends = numpy.array([self.cells[b] for _, b in self.hops], dtype=numpy.int64).reshape(-1, 2)
        self.touching = {name: numpy.array([name in hop for hop in self.hops], dtype=bool) for name in self.names}
        self.leaving = {name: numpy.array([a == name for a, _ in self.hops], dtype=bool) for name in self.names}
        self.arriving = {name: numpy.array([b == name for _, b in self.hops], dtype=bool) for name in self.names}
        self.over = _HopsOver(self.hops, self.cells)

    def layout(self) -> GridLayout:
        return GridLayout({name: self.cells[name] for name in self.names}, self.columns, self.rows)

    # -- what a station's cell costs ---------------------------------------------------------------------------
    def bends_at(self, station: str) -> float:
        """Bends of every line at ``station`` and on the hops that touch it."""
        cells = self.cells
        here = cells[station]
        total = 0
        for near in self.lines_at[station]:
            for other in near:  # a hop that is not octilinear is drawn with a bend
                dx, dy = cells[other][0] - here[0], cells[other][1] - here[1]
                total += not (dx == 0 or dy == 0 or abs(dx) == abs(dy))
            if len(near) == 2:
                a, b = cells[near[0]], cells[near[1]]
                if _octilinear(a, here) and _octilinear(here, b) and _direction(a, here) != _direction(here, b):
                    total += 1
        return float(total)

    def local(self, station: str) -> float:
        """The bends at ``station`` and its neighbours, plus a small price on the length of its hops."""
        cells, neighbours = self.cells, self.neighbours[station]
        here = cells[station]
        length = sum(max(abs(here[0] - cells[o][0]), abs(here[1] - cells[o][1])) for o in neighbours)
        return sum(self.bends_at(name) for name in (station, *neighbours)) + 0.3 * length

    def crossings(self, station: str) -> int:
        """Crossings of the station's hops with every hop not its own (those never move with it)."""
        others = ~self.touching[station]
        near = [self.cells[other] for other in self.neighbours[station]]
        return _crossings(self.cells[station], near, self.starts[others], self.ends[others])

    def blocked(self, station: str, home: Cell, cell: Cell, *, bent: bool = True) -> bool:
        """Moving ``station`` from ``home`` to ``cell`` leaves one of its hops, or a hop over ``cell``, no way
        to be drawn clear of every other station (``bent=False``: straight hops only)."""
        taken, cells = self.taken, self.cells

        def occupied(c: Cell) -> bool:
            return c == cell or (c != home and c in taken)

        def spoilt(a: Cell, b: Cell) -> bool:
            return (bent or _octilinear(a, b)) and not _clear(a, b, occupied)

        if any(spoilt(cell, cells[other]) for other in self.neighbours[station]):
            return True
        return any(station not in (a, b) and spoilt(cells[a], cells[b]) for a, b in self.over.at(cell))

    def crowd(self, cell: Cell, home: Cell) -> int:
        """Other stations on the cells around ``cell``, for a station moving there from ``home`` (the room its
        label will want)."""
        around = [(cell[0] + dx, cell[1] + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
        return sum(near in self.taken and near != home for near in around)

    def move(self, station: str, cell: Cell) -> None:
        self.over.index(station, add=False)
        self.taken.discard(self.cells[station])
        self.taken.add(cell)
        self.cells[station] = cell
        self.over.index(station, add=True)
        self.starts[self.leaving[station]] = cell
        self.ends[self.arriving[station]] = cell

    # -- the steps -------------------------------------------------------------------------------------------
    def unbend(self) -> bool:
        """One round over the stations in graph order, each moved to the neighbouring free cell that most
        lowers :meth:`local`, adds no crossing and puts it on no straight hop's way; whether any moved."""
        moved = False
        for station in self.names:
            if self.neighbours[station]:
                best = self._straighter(station)
                if best != self.cells[station]:
                    self.move(station, best)
                    moved = True
        return moved

    def _straighter(self, station: str) -> Cell:
        """The cell :meth:`unbend` moves ``station`` to (its own when no move is allowed)."""
        cells, home = self.cells, self.cells[station]
        current = self.local(station)
        options = []
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                cell = (home[0] + dx, home[1] + dy)
                if cell in self.taken or not (0 <= cell[0] < self.columns and 0 <= cell[1] < self.rows):
                    continue
                cells[station] = cell
                cost = self.local(station)
                if cost < current - 1e-9:
                    options.append((cost, cell))
                cells[station] = home
        if not options:
            return home
        before = self.crossings(station)
        for _, cell in sorted(options):  # the cheapest that adds no crossing and blocks nothing
            cells[station] = cell
            allowed = self.crossings(station) <= before and not self.blocked(station, home, cell, bent=False)
            cells[station] = home
            if allowed:
                return cell
        return home

    def clear_hops(self) -> None:
        """Give each hop every drawing of which passes over a station (a line seeming to serve it) a clear way:
        a station in the way, or an end of the hop, moves to the nearest free cell that clears it and spoils
        nothing."""
        for a, b in self.hops:
            if _clear(self.cells[a], self.cells[b], self.taken.__contains__):
                continue
            in_way = {cell for passed in _shape_cells(self.cells[a], self.cells[b]) for cell in passed}
            movers = [name for name in self.names if self.cells[name] in in_way] + [a, b]
            options = self._clearing_moves(a, b, movers, 1, 2) or self._clearing_moves(a, b, movers, 3, 3)
            if options:  # (the second: a crowded hub)
                rank = self.rank
                _, _, station, cell = min(options, key=lambda move: (move[0], move[1], rank[move[2]], move[3]))
                self.move(station, cell)

    def _clearing_moves(self, a: str, b: str, movers: list[str], near: int, far: int) -> list[tuple]:
        """Moves of a station in ``movers`` by ``near`` to ``far`` steps that leave hop a–b a clear way and
        spoil no other hop: (cost, steps, station, cell)."""
        cells, taken = self.cells, self.taken
        options = []
        for station in movers:
            home = cells[station]
            before = self.crossings(station)
            for cell in _ring(home, far, self.columns, self.rows):
                steps = max(abs(cell[0] - home[0]), abs(cell[1] - home[1]))
                if steps < near or cell in taken or self.blocked(station, home, cell):
                    continue
                cells[station] = cell
                if _clear(cells[a], cells[b], lambda c, cell=cell, home=home: c == cell or (c != home and c in taken)):
                    # a crossing is a lesser evil than a line over a marker, but still an evil
                    crossed = max(0, self.crossings(station) - before)
                    cost = self.local(station) + 2.0 * crossed + 0.5 * self.crowd(cell, home)
                    options.append((cost, steps, station, cell))
                cells[station] = home
        return options


class _HopsOver:
    """The hops some way of drawing which passes over each cell (:func:`_shape_cells`), for stations at
    ``cells`` (the caller's dict, read as it changes): :meth:`index` drops a station's hops before it moves
    and adds them back after."""

    def __init__(self, hops: list[tuple[str, str]], cells: dict[str, Cell]):
        self.hops, self.cells = hops, cells
        self.over: dict[Cell, set[int]] = {}
        self.around: dict[str, list[int]] = {}
        for i, hop in enumerate(hops):
            self._mark(i, add=True)
            for end in hop:
                self.around.setdefault(end, []).append(i)

    def _mark(self, i: int, *, add: bool) -> None:
        a, b = self.hops[i]
        for passed in _shape_cells(self.cells[a], self.cells[b]):
            for cell in passed:
                if add:
                    self.over.setdefault(cell, set()).add(i)
                else:
                    self.over[cell].discard(i)

    def index(self, station: str, *, add: bool) -> None:
        for i in self.around.get(station, ()):
            self._mark(i, add=add)

    def at(self, cell: Cell) -> list[tuple[str, str]]:
        return [self.hops[i] for i in self.over.get(cell, ())]


def _ring(home: Cell, radius: int, columns: int, rows: int) -> list[Cell]:
    """The cells of the grid within ``radius`` steps of ``home`` (``home`` itself not), nearest first."""
    around = [
        (home[0] + dx, home[1] + dy)
        for dx in range(-radius, radius + 1)
        for dy in range(-radius, radius + 1)
        if (dx or dy) and 0 <= home[0] + dx < columns and 0 <= home[1] + dy < rows
    ]
    return sorted(around, key=lambda cell: (max(abs(cell[0] - home[0]), abs(cell[1] - home[1])), cell))


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


def _direction(a: Point, b: Point) -> tuple[int, int]:
    return (
        int(math.copysign(1, b[0] - a[0])) if b[0] != a[0] else 0,
        int(math.copysign(1, b[1] - a[1])) if b[1] != a[1] else 0,
    )


def hop_shapes(cells: dict[str, Cell], hops: list[tuple[str, str]]) -> dict[tuple[str, str], bool]:
    """For each hop that needs a bend, whether to draw its 45° leg first (:func:`hop_route`).

    A way that passes over no other station's cell wins (a line drawn over a marker seems to serve the
    station); between those, the one that continues the line's direction at more of the hop's two ends: a
    line through a station keeps going the way it came, so a hop's bend is its only one.

    Parameters
    ----------
    cells : dict of str to (int, int)
        Each station's cell (:attr:`GridLayout.cells`).
    hops : list of (str, str)
        One line's hops (:func:`vision.polylines.line_hops`).

    Returns
    -------
    dict of (str, str) to bool
        For each hop that is neither straight nor exactly diagonal, True to draw its 45° leg first.

    Examples
    --------
    >>> hop_shapes({"A": (0, 0), "B": (2, 1), "C": (3, 0)}, [("A", "B"), ("B", "C")])
    {('A', 'B'): False}
    """
    occupied = set(cells.values())
    around: dict[str, list[tuple[str, str]]] = {}
    for hop in hops:
        for station in hop:
            around.setdefault(station, []).append(hop)
    shapes: dict[tuple[str, str], bool] = {}
    for a, b in hops:
        pa, pb = cells[a], cells[b]
        dx, dy = pb[0] - pa[0], pb[1] - pa[1]
        if dx == 0 or dy == 0 or abs(dx) == abs(dy):
            continue
        score = {}
        for first in (False, True):
            route = hop_route(pa, pb, diagonal_first=first)
            leaving, arriving = _direction(route[0], route[1]), _direction(route[-2], route[-1])
            matched = 0
            for station, heading in ((a, leaving), (b, arriving)):
                for other in around[station]:
                    if other == (a, b):
                        continue
                    far = other[1] if other[0] == station else other[0]
                    ox, oy = cells[station][0] - cells[far][0], cells[station][1] - cells[far][1]
                    if ox == 0 or oy == 0 or abs(ox) == abs(oy):  # an octilinear neighbour: its heading is fixed
                        incoming = _direction(cells[far], cells[station])
                        matched += incoming == heading if station == a else incoming == (-heading[0], -heading[1])
            clear = not any(cell in occupied for cell in _shape_cells(pa, pb)[first])
            score[first] = (clear, matched)
        shapes[(a, b)] = score[True] > score[False]
    return shapes

"""The transit graph of a city, compiled to python-igraph.

This module is the only one that searches with igraph (imported by
:mod:`graphkit.igraph_import`): it owns the mapping between station names and
vertex ids and hands back names, segments and routes. The
graph's name queries (resolving and showing stations and lines) are
:mod:`graphkit.graph_names`.

Riding one line between two stations it serves is one *hop*; a hop weighs
``RIDE_WEIGHT + stops`` (the fewest stops over the lines that serve both), so
a minimum-weight chain of hops has the fewest rides (transfers + 1) and, among
those, the fewest stops: the route cost of the benchmark.

The hops themselves are never listed (a line of n stations has n² of them).
The igraph graph is directed, with a vertex per station and one per *stop*
(a station on a line): boarding a line costs ``RIDE_WEIGHT``, each stop along
it 1, and alighting nothing. Its least weights between stations are the hop
weights' above, with a size that grows with the stops. The hops of the
least-cost routes from a station are read back from the weights at its stops.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from graphkit.errors import TransitError
from graphkit.graph_names import StationNames
from graphkit.identities import station_identities
from graphkit.igraph_import import igraph_module, unimportable
from graphkit.matching import NameIndex
from graphkit.metro import MetroData
from graphkit.overlays import Overlay, check_overlay
from graphkit.segments import Route, RouteSet, Segment
from graphkit.topology import LineTopology, compile_line

if TYPE_CHECKING:
    import networkx
    import numpy

    from graphkit.hop_texts import SegmentTable
    from graphkit.route_arrays import RouteBlock

__all__ = ["TransitGraph", "compile_graph", "RIDE_WEIGHT"]

# Larger than any possible count of stops, so one ride more always costs more.
RIDE_WEIGHT = 1_000_000
_NO_ROUTE = Route(())
# sources whose least-cost DAGs are found together: big enough for numpy, small enough for the cache
_CELLS_PER_BLOCK = 2_000_000  # source x vertex (or ride) cells of one block's arrays (16 MB each), whatever the network
_SOURCES_PER_BLOCK = 32
# via stops the hop memo may hold before it starts afresh: far above any city's (Beijing's: under a million),
# while a line of thousands of stations adds millions per departure
_HELD_STOPS = 20_000_000
# rides (a line of L stops has L²) up to which the texts of hops are also kept in a table by ride (9 bytes
# each): every network of lines of tens of stations; a line of thousands looks its hops up in the memo
_RIDES_IN_TABLE = 4_000_000


def _index_or_end(options: tuple, value: object) -> int:
    """Position of ``value`` among ``options``; past the end when absent (a longer way round)."""
    try:
        return options.index(value)
    except ValueError:
        return len(options)


class _Memo(dict):
    """A dict that computes a missing value on first lookup (lookups stay C-speed)."""

    __slots__ = ("build",)

    def __init__(self, build):
        super().__init__()
        self.build = build

    def __missing__(self, key):
        value = self[key] = self.build(key)
        return value


class TransitGraph(StationNames):
    """A city's stations, lines and hops, ready for route queries.

    Build it with :func:`compile_graph`. Public methods take and return
    station and line names as cleaned in the data; those that resolve and
    show names are :class:`graphkit.graph_names.StationNames`'.

    Parameters
    ----------
    metro : MetroData
        The city's checked Metro Data.
    overlay : Overlay, optional
        Its topology and naming facts (none by default).
    """

    __slots__ = (
        "metro",
        "given_metro",
        "overlay",
        "_display",
        "_spellings",
        "lines",
        "stations",
        "_station_index",
        "_line_index",
        "_line_rank",
        "_lines_at",
        "_vertex",
        "_search",
        "_search_edges",
        "_hops",
        "_segment_keys",
        "_held_stops",
        "_costs",
        "_stop_station",
        "_ride_tails",
        "_ride_heads",
        "_neighbours",
        "_stop_search",
    )

    def __init__(self, metro: MetroData, overlay: Overlay | None = None):
        self.overlay = overlay or Overlay()
        check_overlay(self.overlay, metro)
        # stations are identities: aliases merged, homonyms split (the raw texts stay as written)
        identities = station_identities(metro, self.overlay)
        self.given_metro = metro  # what recompiles this graph elsewhere (an executor's worker)
        self.metro = metro = identities.metro
        self._display = identities.display
        self._spellings = identities.spellings
        self.lines: dict[str, LineTopology] = {
            line.name: compile_line(line, identities.overlay, source=metro.source) for line in metro.lines
        }
        self.stations: tuple[str, ...] = metro.station_names
        self._station_index: NameIndex | None = None
        self._line_index: NameIndex | None = None
        self._line_rank = {name: rank for rank, name in enumerate(self.lines)}
        lines_at: dict[str, list[str]] = defaultdict(list)
        for name, topology in self.lines.items():
            for station in topology.stations:
                lines_at[station].append(name)
        self._lines_at = {station: tuple(lines_at[station]) for station in self.stations}
        self._vertex = {name: vertex for vertex, name in enumerate(self.stations)}
        # a stop per (line, station): the search graph's second kind of vertex, numbered after the stations
        stop_of: dict[tuple[str, str], int] = {}
        for name, topology in self.lines.items():
            for station in topology.stations:
                stop_of[name, station] = len(stop_of)
        stop_station = [self._vertex[station] for _, station in stop_of]
        rides = [
            (stop_of[name, here], stop_of[name, there])
            for name, topology in self.lines.items()
            for here, near in topology.adjacency.items()
            for there in near
        ]
        n, stops = len(self.stations), len(stop_of)
        boards = [(v, n + k) for k, v in enumerate(stop_station)]
        alights = [(n + k, v) for k, v in enumerate(stop_station)]
        self._search = None  # the igraph graph, built when first searched (see _graph)
        self._search_edges = (n + stops, boards + alights + [(n + a, n + b) for a, b in rides])
        # as arrays only when routes are searched: scoring reads names and lines, and numpy takes a while to import
        self._stop_station: Sequence[int] = stop_station
        self._ride_tails: Sequence[int] = [a for a, _ in rides]
        self._ride_heads: Sequence[int] = [b for _, b in rides]
        self._neighbours = _Memo(self._near)
        self._hops = _Memo(self._build_hop)
        self._segment_keys: dict[int, tuple] = {}
        self._held_stops = 0
        self._costs: numpy.ndarray | None = None
        self._stop_search: tuple | None = None  # see _stop_distances

    @property
    def _graph(self):
        """The search graph in igraph: boardings weigh ``RIDE_WEIGHT``, alightings 0 and rides 1 (the edges'
        order); built on first use."""
        if self._search is None:
            vertices, edges = self._search_edges
            stops = vertices - len(self.stations)
            with unimportable("numpy"):  # igraph imports it to ask whether the edges are an array: they are a list
                graph = igraph_module().Graph(n=vertices, edges=edges, directed=True)
            graph.es["weight"] = [RIDE_WEIGHT] * stops + [0] * stops + [1] * (len(edges) - 2 * stops)
            self._search, self._search_edges = graph, None  # the edges live in igraph now
        return self._search

    @property
    def search_size(self) -> tuple[int, int]:
        """Vertices and edges of the search graph: stations and stops; boardings, alightings and rides.

        Both grow with the stops, whatever the lines' lengths.

        Examples
        --------
        >>> from graphkit.metro import load_metro
        >>> compile_graph(load_metro({"L1": ["A", "B", "C"], "L2": ["D", "B"]})).search_size
        (9, 16)
        """
        return self._graph.vcount(), self._graph.ecount()

    # -- rides and hops ------------------------------------------------------
    def ride(self, line: str, departure: str, arrival: str) -> tuple[int, tuple[tuple[str, ...], ...]] | None:
        """Fewest stops and the via-stop alternatives riding ``line`` between two stations, or ``None``."""
        return self.line(line).ride(departure, arrival)

    def neighbours(self, station: str) -> tuple[str, ...]:
        """Stations reachable from ``station`` in one ride, in station order."""
        return self._neighbours[station]

    def _near(self, station: str) -> tuple[str, ...]:
        vertex = self._vertex
        near = {vertex[there] for name in self._lines_at[station] for there in self.lines[name].stops_from(station)}
        return tuple(self.stations[v] for v in sorted(near))

    def hop_segments(self, departure: str, arrival: str) -> tuple[Segment, ...]:
        """The fewest-stop segments between two stations that share a line, in route order."""
        return self._hops[self._vertex[departure] * len(self.stations) + self._vertex[arrival]]

    def _build_hop(self, key: int) -> tuple[Segment, ...]:
        """Segments of the hop ``u * stations + v``, sorted, their sort keys filed in ``_segment_keys`` by identity."""
        u, v = divmod(key, len(self.stations))
        here, there = self.stations[u], self.stations[v]
        serving = self._lines_at[there]
        shared = [name for name in self._lines_at[here] if name in serving]
        rank = self._line_rank
        if len(shared) == 1:
            ride = self.lines[shared[0]].ride(here, there)
            if ride is not None and len(ride[1]) == 1:  # the usual case: one line, one way
                via = ride[1][0]
                segment = Segment(shared[0], here, there, via)
                self._segment_keys[id(segment)] = (rank[shared[0]], u, v, 0)
                self._held_stops += len(via) + 1
                return (segment,)
        rides = [(name, ride) for name in shared if (ride := self.lines[name].ride(here, there)) is not None]
        if not rides:
            raise TransitError(f"no line serves both {here!r} and {there!r}")
        fewest = min(ride[0] for _, ride in rides)
        rides = [(name, ride[1]) for name, ride in rides if ride[0] == fewest]  # the hop rides the shortest lines
        # via alternatives (a loop's two ways) come sorted from the line; their index orders them
        keyed = sorted(
            ((rank[name], u, v, index), Segment(name, here, there, via))
            for name, vias in rides
            for index, via in enumerate(vias)
        )
        for step_key, segment in keyed:
            self._segment_keys[id(segment)] = step_key  # the memo keeps the segment, so its id stays its own
            self._held_stops += len(segment.via_stops) + 1
        return tuple(segment for _, segment in keyed)

    def _bound_memo(self) -> None:
        """Start the hop memo afresh when it holds too many via stops (between departures only:
        the routes being built look their segments' keys up by identity)."""
        if self._held_stops > _HELD_STOPS:
            self._hops.clear()
            self._segment_keys.clear()
            self._held_stops = 0

    def _route_key(self, route: Route) -> tuple:
        keys = self._segment_keys
        return tuple([keys[id(segment)] for segment in route.segments])

    def least_cost(self, source: str, target: str) -> tuple[int, int] | None:
        """``(transfers, stops)`` of the best route, or ``None`` when unconnected.

        The first call computes all pairs at once (cheap); later calls are lookups.
        """
        if self._costs is None:
            self._costs = self._distance_matrix()
        weight = self._costs[self._vertex[source], self._vertex[target]]
        if not math.isfinite(weight) or source == target:
            return None
        rides, stops = divmod(int(weight), RIDE_WEIGHT)
        return rides - 1, stops

    def cost_bounds(self, target: str) -> dict[str, float]:
        """Least route weight from every station to ``target`` (``inf`` when unreachable)."""
        # a route's weight is the same both ways: from the target is to it
        row = self._graph.distances(source=self._vertex[target], weights="weight")[0]
        return dict(zip(self.stations, row))

    def shortest_routes_from(
        self, source: str, targets: Iterable[str] | None = None, *, max_routes: int | None = None
    ) -> Iterator[RouteSet]:
        """All least-cost routes from ``source``, per reachable target, in route order.

        Yields a :class:`RouteSet` per target (``targets``, or every station)
        in station order, ``routes`` sorted as :meth:`route_sort_key` says and
        cut to ``max_routes``. Targets that cannot be reached are left out.
        """
        from graphkit.dags import towards

        s = self._vertex[source]
        wanted = None if targets is None else {self._vertex[name] for name in targets}
        for _, tails, heads in self._least_cost_hops([s]):
            if wanted is not None:  # only the routes that lead to a wanted target are built
                tails, heads = towards(tails, heads, wanted)
            return iter(self._routes_along(s, tails, heads, max_routes, wanted))
        raise AssertionError("unreachable: one source, one DAG")

    def _distance_matrix(self) -> numpy.ndarray:
        """All-pairs least weights, filled a block of rows at a time (igraph hands back lists of floats,
        which would take four times the array's memory all at once)."""
        import numpy

        n = len(self.stations)
        matrix = numpy.empty((n, n), dtype=numpy.float64)
        for first in range(0, n, _SOURCES_PER_BLOCK):
            rows = range(first, min(n, first + _SOURCES_PER_BLOCK))
            matrix[first : rows.stop] = numpy.asarray(self._graph.distances(source=rows, weights="weight"))[:, :n]
        return matrix

    def all_shortest_routes(
        self, *, max_routes: int | None = None, sources: Iterable[str] | None = None
    ) -> Iterator[RouteSet]:
        """:meth:`shortest_routes_from` for every source (or ``sources``) in order, sharing the work.

        Distances are computed a block of sources at a time: memory grows with the stations, not their square.
        """
        vertices = range(len(self.stations)) if sources is None else [self._vertex[name] for name in sources]
        for s, tails, heads in self._least_cost_hops(vertices):
            yield from self._routes_along(s, tails, heads, max_routes)

    def all_route_blocks(
        self,
        station_text: Mapping[str, bytes],
        segment_text: Callable[[str, bytes, bytes, bytes, int], bytes],
        *,
        separator: bytes = b", ",
        max_routes: int | None = None,
        sources: Iterable[str] | None = None,
    ) -> Iterator[tuple[numpy.ndarray, RouteBlock, SegmentTable]]:
        """:meth:`all_shortest_routes` as arrays, without route objects: per block of sources (or of
        ``sources``), in order, ``(rows, routes, segments)``: the block's source vertices, their routes
        (:class:`graphkit.route_arrays.RouteBlock`: pairs in order, each route's segment numbers) and the
        segments' texts (:class:`graphkit.hop_texts.SegmentTable`: a segment's text is ``segment_text(line,
        departure, arrival, via, count)`` of its line's name, its stations' ``station_text``, its via
        stops' joined by ``separator`` and their count). The segments are the table's as the block is
        yielded (it may start afresh between blocks: memory is bounded as the hop memo's is).
        """
        from graphkit.hop_texts import SegmentTable
        from graphkit.route_arrays import block_routes

        n = len(self.stations)
        table = SegmentTable(
            self,
            self._line_rank,
            self._segment_keys,
            station_text=station_text,
            segment_text=segment_text,
            separator=separator,
            ride_limit=_RIDES_IN_TABLE,
        )
        vertices = range(n) if sources is None else [self._vertex[name] for name in sources]
        for rows, (distance, hop_rows, tails, heads, boards, alights) in self._least_cost_hops(vertices, block=True):
            if table.held > _HELD_STOPS:
                table.clear()
            self._bound_memo()
            segments = table.of_hops(tails, heads, boards, alights)
            routes = block_routes(
                rows,
                distance,
                (hop_rows, tails, heads),
                segments,
                table.keys,
                ride_weight=RIDE_WEIGHT,
                max_routes=max_routes,
            )
            yield rows, routes, table

    def _least_cost_hops(
        self, vertices: Sequence[int], *, arrays: bool = False, block: bool = False
    ) -> Iterator[tuple]:
        """Per source vertex, the hops ``(tails, heads)`` of its least-cost DAG, grouped by head, nearest first
        (see :func:`graphkit.dags.least_cost_hops`; with ``arrays``, as arrays, then the least weights to the
        stations and each hop's boarding and alighting stop); distances are found a block of sources at a time
        (with ``block``, each block's hops at once, after its source vertices: ``(rows, arrays)``)."""
        import numpy

        from graphkit.dags import least_cost_hops

        self._stop_station = numpy.asarray(self._stop_station, dtype=numpy.int64)  # once: then they are arrays
        self._ride_tails = numpy.asarray(self._ride_tails, dtype=numpy.int64)
        self._ride_heads = numpy.asarray(self._ride_heads, dtype=numpy.int64)
        n, stops = len(self.stations), len(self._stop_station)
        cells = n + stops + len(self._ride_tails)
        per_block = max(1, min(_SOURCES_PER_BLOCK, _CELLS_PER_BLOCK // max(1, cells)))
        for first in range(0, len(vertices), per_block):
            chunk = vertices[first : first + per_block]
            found = least_cost_hops(
                chunk,
                *self._stop_distances(chunk),
                self._stop_station,
                self._ride_tails,
                self._ride_heads,
                ride_weight=RIDE_WEIGHT,
                arrays=arrays,
                block=block,
            )
            if block:
                yield numpy.asarray(chunk, dtype=numpy.int64), next(found)
            else:
                yield from found

    def _stop_distances(self, vertices: Sequence[int]) -> tuple[numpy.ndarray, numpy.ndarray]:
        """Least weights from each of ``vertices`` to every station and to every stop (arrays), as the search
        graph's, searched on a smaller graph: the stops, and only the stations that two or more lines serve.

        A station of one line has one stop, which stands in for it: it is reached when its stop is
        (alighting costs nothing), and a route from it starts by boarding there (a ride's weight more than
        the stop's own weights). The station is never on the way between two others.
        """
        import numpy

        stop_station, n, stops = self._stop_station, len(self.stations), len(self._stop_station)
        if self._stop_search is None:
            served = numpy.bincount(stop_station, minlength=n)
            shared = numpy.flatnonzero(served > 1)
            vertex = numpy.full(n, -1, dtype=numpy.int64)
            vertex[shared] = stops + numpy.arange(len(shared))
            boarding = numpy.flatnonzero(served[stop_station] > 1)  # the stops of stations of several lines
            at = vertex[stop_station[boarding]]
            edges = numpy.concatenate(
                (
                    numpy.stack((at, boarding), axis=1),
                    numpy.stack((boarding, at), axis=1),
                    numpy.stack((self._ride_tails, self._ride_heads), axis=1),
                )
            )
            graph = igraph_module().Graph(n=stops + len(shared), edges=edges.tolist(), directed=True)
            graph.es["weight"] = [RIDE_WEIGHT] * len(boarding) + [0] * len(boarding) + [1] * len(self._ride_tails)
            only_stop = numpy.zeros(n, dtype=numpy.int64)
            only_stop[stop_station] = numpy.arange(stops)  # a station's stop (its only one, where that matters)
            start = numpy.where(served > 1, vertex, only_stop)
            offset = numpy.where(served > 1, 0.0, float(RIDE_WEIGHT))
            self._stop_search = (graph, shared, only_stop, start, offset)
        graph, shared, only_stop, start, offset = self._stop_search
        rows = numpy.asarray(vertices, dtype=numpy.int64)
        found = numpy.asarray(graph.distances(source=start[rows].tolist(), weights="weight"), dtype=numpy.float64)
        found += offset[rows, None]
        at_stop = found[:, :stops]
        distance = at_stop[:, only_stop]
        distance[:, shared] = found[:, stops:]
        distance[numpy.arange(len(rows)), rows] = 0
        return distance, at_stop

    def _routes_along(
        self, s: int, tails: list[int], heads: list[int], max_routes: int | None, wanted: set[int] | None = None
    ) -> list[RouteSet]:
        """Routes from vertex ``s`` along its least-cost DAG (hops ``tails[i] -> heads[i]``, grouped by head,
        nearest first).

        The hops on which the least weight from ``s`` grows by exactly the
        hop's weight form the least-cost DAG; routes are built along it,
        nearest stations first, each from the routes of its predecessors.
        Keeping only the first ``max_routes`` of every station loses nothing:
        all least-cost routes to a station have the same number of segments
        and stops, so route order is prefix order. Consecutive segments never
        share a line on a least-cost path (one ride on that line would be
        shorter: line distances obey the triangle inequality), so no check is
        needed.
        """
        self._bound_memo()
        hops, n = self._hops, len(self.stations)
        routes_of: list[list[Route] | None] = [None] * len(self.stations)  # by vertex
        routes_of[s] = [_NO_ROUTE]
        current, found, merged = -1, None, False
        for p, t in zip(tails, heads):
            if t != current:
                if merged:
                    found.sort(key=self._route_key)
                    del found[max_routes or len(found) :]
                current, found, merged = t, [], False
                routes_of[t] = found
            else:
                merged = True
            steps = hops[p * n + t]
            before = routes_of[p]
            if len(before) == 1 and len(steps) == 1:  # the usual case, spelled out for speed
                found.append(Route(before[0].segments + steps))
            else:
                found.extend([Route(route.segments + (step,)) for route in before for step in steps])
                if not merged and max_routes and len(found) > max_routes:
                    del found[max_routes:]
        if merged:
            found.sort(key=self._route_key)
            del found[max_routes or len(found) :]
        routes_of[s] = None
        stations, city = self.stations, self.metro.city
        source = stations[s]
        return [
            RouteSet(city, source, stations[t], len(found[0].segments) - 1, tuple(found))
            for t, found in enumerate(routes_of)
            if found is not None and (wanted is None or t in wanted)
        ]

    def route_sort_key(self, route: Route) -> tuple:
        """Deterministic order of routes: fewest stops, then line and station order of the data.

        Equally short ways along one line (a loop's two directions) come in the
        order of their via stops' names.
        """
        line_rank, vertex, lines = self._line_rank, self._vertex, self.lines
        return (
            route.stops,
            tuple(
                (
                    line_rank[s.route_name],
                    vertex[s.departure_stop],
                    vertex[s.arrival_stop],
                    _index_or_end(lines[s.route_name].ride(s.departure_stop, s.arrival_stop)[1], s.via_stops),
                    s.via_stops,
                )
                for s in route.segments
            ),
        )

    def floor_distances(self, *, weighted: bool = True) -> None:
        """Least route weights from every station (or, not ``weighted``, fewest edges), computed and dropped:
        the speed floor."""
        self._graph.distances(source=range(len(self.stations)), weights="weight" if weighted else None)

    # -- export --------------------------------------------------------------
    def to_networkx(self) -> networkx.Graph:
        """The map as a networkx graph: stations, and adjacent stations joined.

        Nodes carry ``lines`` (the lines serving them); edges carry ``lines``
        (the lines on which the two stations are neighbours).
        """
        import networkx

        graph = networkx.Graph(city=self.city, country=self.metro.country)
        for station in self.stations:
            graph.add_node(station, lines=list(self._lines_at[station]))
        for name, topology in self.lines.items():
            for here, near in topology.adjacency.items():
                for there in near:
                    if graph.has_edge(here, there):
                        if name not in graph.edges[here, there]["lines"]:
                            graph.edges[here, there]["lines"].append(name)
                    else:
                        graph.add_edge(here, there, lines=[name])
        return graph

    def components(self) -> list[tuple[str, ...]]:
        """Groups of stations connected to each other, largest first."""
        n = len(self.stations)
        groups = self._graph.connected_components(mode="weak")
        return sorted(
            (tuple(self.stations[v] for v in sorted(group) if v < n) for group in groups),
            key=lambda group: (-len(group), self._vertex[group[0]]),
        )

    def __repr__(self) -> str:
        return (
            f"<TransitGraph {self.city or self.metro.source}: {len(self.lines)} lines, {len(self.stations)} stations>"
        )


def compile_graph(metro: MetroData, overlay: Overlay | None = None) -> TransitGraph:
    """Compile Metro Data (and its overlay) into a :class:`TransitGraph`.

    Parameters
    ----------
    metro : MetroData
        The checked Metro Data (:func:`graphkit.metro.load_metro`).
    overlay : Overlay, optional
        Its topology and naming facts (none by default).

    Returns
    -------
    TransitGraph
        The graph, ready for route queries.

    Raises
    ------
    TransitError
        ``metro`` is not Metro Data.
    InvalidOverlay
        The overlay does not fit the data.

    Examples
    --------
    >>> from graphkit.metro import load_metro
    >>> graph = compile_graph(load_metro({"L1": ["A", "B", "C"], "L2": ["D", "B"]}))
    >>> graph.transfer_stations()
    ('B',)
    """
    if not isinstance(metro, MetroData):
        raise TransitError(f"compile_graph needs MetroData, got {type(metro).__name__}")
    return TransitGraph(metro, overlay)

"""Shortest-transfer routes: fewest transfers, then fewest stops.

The references of a station pair are all routes with the fewest transfers
whose stop count is within ``slack`` of the fewest, in a deterministic order
(fewest stops first, then the order of lines and stations in the data),
capped at ``max_routes``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

from graphkit.errors import NoRoute, TransitError, shorten
from graphkit.graph import RIDE_WEIGHT, TransitGraph
from graphkit.segments import Route, RouteSet, Segment

__all__ = [
    "DEFAULT_MAX_ROUTES",
    "RouteSet",
    "shortest_routes",
    "shortest_route",
    "shortest_route_length",
    "reference_routes",
]

DEFAULT_MAX_ROUTES = 10


def _check_options(slack: int, max_routes: int) -> None:
    if not isinstance(slack, int) or slack < 0:
        raise ValueError(f"slack must be a non-negative integer, got {shorten(repr(slack))}")
    if not isinstance(max_routes, int) or max_routes < 1:
        raise ValueError(f"max_routes must be a positive integer, got {shorten(repr(max_routes))}")


def _endpoints(graph: TransitGraph, source: str, target: str) -> tuple[str, str]:
    here, there = graph.resolve_station(source), graph.resolve_station(target)
    if here == there:
        raise TransitError(f"departure and arrival are the same station ({here!r})")
    return here, there


def _finish(graph: TransitGraph, source: str, target: str, routes: Iterable[Route], max_routes: int) -> RouteSet:
    ordered = sorted(routes, key=graph.route_sort_key)[:max_routes]
    if not ordered:
        raise NoRoute(source, target, city=graph.city)
    return RouteSet(graph.city, source, target, ordered[0].transfers, tuple(ordered))


def shortest_routes(
    graph: TransitGraph, source: str, target: str, *, slack: int = 0, max_routes: int = DEFAULT_MAX_ROUTES
) -> RouteSet:
    """All fewest-transfer routes between two stations, within a stop slack.

    Parameters
    ----------
    graph : TransitGraph
    source, target : str
        Station names; anything :meth:`TransitGraph.resolve_station` accepts.
    slack : int, optional
        Extra stops allowed over the fewest (default 0: only the shortest).
    max_routes : int, optional
        Keep at most this many routes, in order.

    Returns
    -------
    RouteSet

    Raises
    ------
    UnknownStation, AmbiguousStation
        A name fits no station (with suggestions), or several.
    NoRoute
        The stations are not connected.

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> found = shortest_routes(city_graph("beijing"), "西直门站", "车公庄站")
    >>> found.transfers, found.routes[0].segments[0].route_name, found.routes[0].segments[0].via_stops
    (0, 'Line 2', ())
    """
    _check_options(slack, max_routes)
    here, there = _endpoints(graph, source, target)
    if slack == 0:
        for found in graph.shortest_routes_from(here, [there], max_routes=max_routes):
            return found
        raise NoRoute(here, there, city=graph.city)
    return _finish(graph, here, there, _routes_within(graph, here, there, slack), max_routes)


def shortest_route(graph: TransitGraph, source: str, target: str) -> Route:
    """The first of :func:`shortest_routes`: fewest transfers, then fewest stops.

    Parameters
    ----------
    graph : TransitGraph
    source, target : str
        Station names; anything :meth:`TransitGraph.resolve_station` accepts.

    Returns
    -------
    Route
        The route (ties broken as :func:`shortest_routes` orders them).

    Raises
    ------
    UnknownStation, AmbiguousStation
        A name fits no station (with suggestions), or several.
    NoRoute
        The stations are not connected.

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> route = shortest_route(city_graph("rome"), "Termini", "Jonio Station")
    >>> route.transfers, route.stops
    (0, 7)
    >>> shortest_route(city_graph("rome"), "Termin", "Colosseo")
    Traceback (most recent call last):
        ...
    graphkit.errors.UnknownStation: unknown station 'Termin' in rome; did you mean 'Termini Station'?
    """
    return shortest_routes(graph, source, target, max_routes=1).routes[0]


def shortest_route_length(graph: TransitGraph, source: str, target: str) -> tuple[int, int]:
    """``(transfers, stops)`` of the shortest route, without building routes.

    Parameters
    ----------
    graph : TransitGraph
    source, target : str
        Station names; anything :meth:`TransitGraph.resolve_station` accepts.

    Returns
    -------
    transfers : int
        The fewest transfers between the two.
    stops : int
        The fewest stops among routes with that many transfers.

    Raises
    ------
    UnknownStation, AmbiguousStation
        A name fits no station (with suggestions), or several.
    NoRoute
        The stations are not connected.

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> shortest_route_length(city_graph("rome"), "Termini", "Jonio Station")
    (0, 7)
    """
    here, there = _endpoints(graph, source, target)
    weight = graph.cost_bounds(there)[here]
    if math.isinf(weight):
        raise NoRoute(here, there, city=graph.city)
    rides, stops = divmod(int(weight), RIDE_WEIGHT)
    return rides - 1, stops


def _routes_within(graph: TransitGraph, source: str, target: str, slack: int) -> Iterator[Route]:
    """Depth-first search for routes of fewest transfers within ``slack`` stops, pruned by exact bounds."""
    bounds = graph.cost_bounds(target)
    if math.isinf(bounds[source]):
        raise NoRoute(source, target, city=graph.city)
    budget = bounds[source] + slack

    def extend(here: str, cost: float, segments: tuple[Segment, ...], seen: frozenset[str]) -> Iterator[Route]:
        last_line = segments[-1].route_name if segments else None
        for there in graph.neighbours(here):
            if there in seen:
                continue
            room = budget - cost - RIDE_WEIGHT - bounds[there]
            if room < 1:
                continue
            shared = [name for name in graph.lines_at(there) if name != last_line and name in graph.lines_at(here)]
            for name in shared:
                fewest = graph.ride(name, here, there)
                if fewest is None or fewest[0] > room:
                    continue
                vias = graph.line(name).simple_rides(here, there, max_stops=int(room))
                for via in vias:
                    if seen.intersection(via) or target in via:
                        continue
                    step = segments + (Segment(name, here, there, via),)
                    spent = cost + RIDE_WEIGHT + len(via) + 1
                    if there == target:
                        yield Route(step)
                    else:
                        yield from extend(there, spent, step, seen | {there, *via})

    return extend(source, 0.0, (), frozenset({source}))


def reference_routes(
    graph: TransitGraph, *, sources: Iterable[str] | None = None, max_routes: int = DEFAULT_MAX_ROUTES
) -> Iterator[RouteSet]:
    """References for every ordered pair of distinct, connected stations.

    Pairs come in station order of the data (``sources`` limits the
    departures); unconnected pairs are left out (see ``graph.components()``).

    Parameters
    ----------
    graph : TransitGraph
    sources : iterable of str, optional
        Only these departures (by default every station).
    max_routes : int, optional
        Keep at most this many routes per pair, in order.

    Returns
    -------
    iterator of RouteSet
        One per ordered pair, computed as it is read.

    Examples
    --------
    >>> from graphkit.cities import city_graph
    >>> first = next(reference_routes(city_graph("rome")))
    >>> first.source, first.target, first.transfers
    ('Battistini Station', 'Cornelia Station', 0)
    """
    _check_options(0, max_routes)
    return graph.all_shortest_routes(max_routes=max_routes, sources=sources)

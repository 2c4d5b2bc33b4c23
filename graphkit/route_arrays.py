"""The least-cost routes of a block of departures at once, as arrays (numpy only; no route objects).

A route is a chain of hops along its departure's least-cost DAG (see
:mod:`graphkit.dags`); a hop's segments are numbered (their texts and sort
keys are :class:`graphkit.hop_texts.SegmentTable`'s). Every station's routes
have as many segments as it takes rides to reach it, so the routes are built a
ride count (a *level*) at a time: a station's routes are each route of a
station one hop before it followed by each segment of that hop, sorted by
their segments' keys and cut to ``max_routes`` (all routes to a station have
the same stops, so route order is key order: keeping the first routes of every
station loses nothing). This is :meth:`graphkit.graph.TransitGraph._routes_along`
for many departures together.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy

__all__ = ["RouteBlock", "block_routes"]


@dataclass(frozen=True, slots=True)
class RouteBlock:
    """The routes of a block of departures, pair by pair.

    Attributes
    ----------
    pair_rows, pair_targets, pair_transfers, pair_routes : arrays (pairs,)
        Each reached pair's departure (a row of the block), arrival station, transfer count and number of
        routes: rows in order, each row's arrivals in station order (the departure itself left out).
    segments : array (segments,)
        The segment numbers of every route, pair by pair, route by route (in route order), first to last.
    """

    pair_rows: numpy.ndarray
    pair_targets: numpy.ndarray
    pair_transfers: numpy.ndarray
    pair_routes: numpy.ndarray
    segments: numpy.ndarray


def block_routes(
    sources: numpy.ndarray,
    distance: numpy.ndarray,
    hops: tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray],
    hop_segments: tuple[numpy.ndarray, numpy.ndarray],
    segment_keys: numpy.ndarray,
    *,
    ride_weight: float,
    max_routes: int | None,
) -> RouteBlock:
    """The routes of every pair of a block of departures.

    Parameters
    ----------
    sources : array (rows,)
        The departure of each row.
    distance : array (rows, stations)
        Least weights from each departure (``inf``: not reached); ``weight // ride_weight`` rides.
    hops : (rows, tails, heads), arrays (hops,)
        The least-cost DAGs' hops, grouped by row and head (:func:`graphkit.dags.least_cost_hops`).
    hop_segments : (first, count), arrays (hops,)
        Each hop's segments: numbers ``first`` to ``first + count - 1``, in key order.
    segment_keys : array (segments,)
        Each segment's sort key as one integer (a route's key is its segments', compared in turn).
    ride_weight : float
    max_routes : int or None
        Routes kept per pair, in order.

    Returns
    -------
    RouteBlock
        Every reached pair's routes as segment numbers.
    """
    rows, stations = distance.shape
    hop_rows, tails, heads = hops
    seg_first, seg_count = hop_segments
    cells = rows * stations
    # the routes found so far (the empty route of each departure first): owner cell, parent route, segment
    first = numpy.full(cells, -1, dtype=numpy.int64)  # by cell (row * stations + station): its first route
    count = numpy.zeros(cells, dtype=numpy.int64)
    starts = numpy.arange(rows, dtype=numpy.int64) * stations + sources
    first[starts], count[starts] = numpy.arange(rows), 1
    owners, parents, segments, levels = (
        [starts],
        [numpy.full(rows, -1)],
        [numpy.full(rows, -1)],
        [numpy.zeros(rows, dtype=numpy.int64)],
    )
    rank = numpy.zeros(rows, dtype=numpy.int64)  # each route's place in key order (as far as any pair compares)
    total = rows
    hop_level = (distance[hop_rows, heads] // ride_weight).astype(numpy.int64)
    level = 0
    while True:
        level += 1
        into = numpy.flatnonzero(hop_level == level)
        if not len(into):
            break
        before, after = hop_rows[into] * stations + tails[into], hop_rows[into] * stations + heads[into]
        routes_before, steps = count[before], seg_count[into]
        made = routes_before * steps
        which = numpy.repeat(numpy.arange(len(into)), made)  # each new route's hop
        within = numpy.arange(len(which)) - numpy.repeat(numpy.cumsum(made) - made, made)
        step_count = steps[which]
        parent = first[before][which] + within // step_count
        segment = seg_first[into][which] + within % step_count
        owner = after[which]
        order = _in_key_order(owner, rank[parent], segment_keys[segment])
        owner, parent, segment = owner[order], parent[order], segment[order]
        owner, parent, segment, group_starts, sizes = _cut(owner, parent, segment, max_routes)
        first[owner[group_starts]], count[owner[group_starts]] = total + group_starts, sizes
        rank = numpy.concatenate((rank, _ranks(rank[parent], segment_keys[segment])))
        owners.append(owner), parents.append(parent), segments.append(segment)
        levels.append(numpy.full(len(owner), level))
        total += len(owner)
    return _gather(rows, stations, *(numpy.concatenate(part) for part in (owners, parents, segments, levels)))


def _cut(
    owner: numpy.ndarray, parent: numpy.ndarray, segment: numpy.ndarray, max_routes: int | None
) -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """New routes, grouped by owner cell in key order, cut to ``max_routes`` a cell; with each group's start
    and size."""
    group = numpy.ones(len(owner), dtype=bool)
    group[1:] = owner[1:] != owner[:-1]
    group_starts = numpy.flatnonzero(group)
    sizes = numpy.diff(group_starts, append=len(owner))
    if max_routes is not None and int(sizes.max()) > max_routes:
        kept = numpy.arange(len(owner)) - numpy.repeat(group_starts, sizes) < max_routes
        owner, parent, segment = owner[kept], parent[kept], segment[kept]
        group_starts = numpy.flatnonzero(group[kept])
        sizes = numpy.minimum(sizes, max_routes)
    return owner, parent, segment, group_starts, sizes


def _in_key_order(owner: numpy.ndarray, prefix: numpy.ndarray, key: numpy.ndarray) -> numpy.ndarray:
    """The order of new routes that keeps their owners' groups in place and sorts each group by its routes'
    keys (the prefix's rank, then the last segment's key): only groups fed by several hops need it (one hop's
    routes come in order: its tail's, each followed by the hop's segments in key order)."""
    order = numpy.arange(len(owner))
    if not len(owner):
        return order
    fed = numpy.zeros(len(owner), dtype=bool)
    fed[1:] = owner[1:] == owner[:-1]
    several = numpy.flatnonzero(fed)  # each route but the first of a group
    if not len(several):
        return order
    # every route of a group with two or more: those sorted within their group (groups stay where they are)
    mixed = numpy.zeros(len(owner), dtype=bool)
    mixed[several], mixed[several - 1] = True, True
    picked = numpy.flatnonzero(mixed)
    group = numpy.cumsum(~fed[picked])  # numbered in place: sorting by it keeps the groups where they are
    order[picked] = picked[numpy.lexsort((key[picked], prefix[picked], group))]
    return order


def _ranks(prefix: numpy.ndarray, key: numpy.ndarray) -> numpy.ndarray:
    """Each route's place among these in the order of (prefix rank, last key): what later levels compare."""
    if not len(prefix):
        return prefix
    span = int(key.max()) + 1
    if (int(prefix.max()) + 1) * span < 2**63:
        order = numpy.argsort(prefix * span + key, kind="stable")
    else:
        order = numpy.lexsort((key, prefix))
    ranks = numpy.empty(len(order), dtype=numpy.int64)
    ranks[order] = numpy.arange(len(order))
    return ranks


def _gather(
    rows: int,
    stations: int,
    owners: numpy.ndarray,
    parents: numpy.ndarray,
    segments: numpy.ndarray,
    levels: numpy.ndarray,
) -> RouteBlock:
    """The routes (the empty ones of the departures left out) pair by pair, with their segments in order."""
    routes = numpy.flatnonzero(levels > 0)
    routes = routes[numpy.argsort(owners[routes], kind="stable")]  # each pair's routes keep their order
    owner, depth = owners[routes], levels[routes].astype(numpy.int64)
    new = numpy.ones(len(owner), dtype=bool)
    new[1:] = owner[1:] != owner[:-1]
    pairs = numpy.flatnonzero(new)
    # segments walked back from each route's last, written into its row of a table from the right
    width = int(depth.max()) if len(depth) else 0
    table = numpy.full((len(routes), width), -1, dtype=numpy.int64)
    current, column = routes.copy(), depth - 1
    for _ in range(width):
        live = numpy.flatnonzero(column >= 0)
        table[live, column[live]] = segments[current[live]]
        current[live] = parents[current[live]]
        column -= 1
    return RouteBlock(
        pair_rows=owner[pairs] // stations,
        pair_targets=owner[pairs] % stations,
        pair_transfers=depth[pairs] - 1,
        pair_routes=numpy.diff(pairs, append=len(owner)),
        segments=table[numpy.arange(width) < depth[:, None]],
    )

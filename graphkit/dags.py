"""Least-cost DAGs read back from the weights of the search graph (numpy only; the search is in :mod:`graphkit.graph`).

The search graph has a vertex per station and one per stop (a station on a
line): boarding costs a ride's weight, each stop along the line 1, alighting
nothing. A *hop* (one ride between two stations) from p to t is on the
least-cost DAG from a source when the least weight to t is the least weight
to p plus the hop's: some line's stop at t is alighted from (its weight is
t's) and is reached, stop by stop along that line, from a stop at p that is
boarded (its weight is p's plus a ride).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy

__all__ = ["least_cost_hops", "towards", "texts_along"]


def least_cost_hops(
    sources: Sequence[int],
    weights: numpy.ndarray,
    stop_station: numpy.ndarray,
    ride_tails: numpy.ndarray,
    ride_heads: numpy.ndarray,
    *,
    ride_weight: float,
    arrays: bool = False,
) -> Iterator[tuple]:
    """Per source, the hops ``(tails, heads)`` of its least-cost DAG as station numbers, grouped by head,
    nearest heads first (then by head, then by tail).

    Parameters
    ----------
    sources : sequence of int
        The source stations, one per row of ``weights``.
    weights : array (sources, stations + stops)
        Least weights from each source to every station, then to every stop.
    stop_station : array (stops,)
        The station of each stop.
    ride_tails, ride_heads : array (rides,)
        The stops at the two ends of each ride between adjacent stops, both ways.
    ride_weight : float
        The weight of boarding.
    arrays : bool, optional
        Yield ``tails`` and ``heads`` as arrays instead of lists.

    Each stop reached by exactly one least-cost ride and not boarded shares
    the boarding stops of that ride's tail; pointer jumping finds them for all
    sources at once. The stops where such rides meet, or that are both
    boarded and ridden through, are usually few: their boarding stops are
    gathered one by one.
    """
    stops = len(stop_station)
    n = weights.shape[1] - stops
    distance, at_stop = weights[:, :n], weights[:, n:]
    reached = numpy.isfinite(at_stop)
    boarded = (at_stop == distance[:, stop_station] + ride_weight) & reached
    alighted = (at_stop == distance[:, stop_station]) & reached
    rows, rides = numpy.nonzero((at_stop[:, ride_tails] + 1 == at_stop[:, ride_heads]) & reached[:, ride_heads])
    into = rows * stops + ride_heads[rides]  # each least-cost ride's head, as a flat (row, stop) cell
    arrivals = numpy.bincount(into, minlength=len(sources) * stops).reshape(len(sources), stops)
    root = numpy.tile(numpy.arange(stops), (len(sources), 1))
    follows = ((arrivals == 1) & ~boarded).ravel()[into]
    root.ravel()[into[follows]] = ride_tails[rides[follows]]
    while True:  # rides strictly gain weight: the chains end, in log(longest line) rounds
        jumped = numpy.take_along_axis(root, root, axis=1)
        if numpy.array_equal(jumped, root):
            break
        root = jumped
    alight_rows, alight_stops = numpy.nonzero(alighted)
    alight_roots = root[alight_rows, alight_stops]
    plain = (boarded & (arrivals == 0))[alight_rows, alight_roots]  # one boarding stop: one hop
    hop_rows = alight_rows[plain]
    tails = stop_station[alight_roots[plain]]
    heads = stop_station[alight_stops[plain]]
    if not plain.all():
        meeting = ~follows
        more_rows, more_tails, more_heads = _merged_hops(
            at_stop,
            boarded,
            root,
            stop_station,
            (rows[meeting], ride_tails[rides[meeting]], ride_heads[rides[meeting]]),
            (alight_rows[~plain], alight_stops[~plain]),
        )
        hop_rows = numpy.concatenate((hop_rows, more_rows))
        tails = numpy.concatenate((tails, more_tails))
        heads = numpy.concatenate((heads, more_heads))
    order = numpy.lexsort((tails, heads, distance[hop_rows, heads], hop_rows))
    hop_rows, tails, heads = hop_rows[order], tails[order], heads[order]
    # two lines of the same length between two stations make one hop
    kept = numpy.ones(len(order), dtype=bool)
    kept[1:] = (hop_rows[1:] != hop_rows[:-1]) | (heads[1:] != heads[:-1]) | (tails[1:] != tails[:-1])
    hop_rows, tails, heads = hop_rows[kept], tails[kept], heads[kept]
    bounds = numpy.searchsorted(hop_rows, numpy.arange(len(sources) + 1)).tolist()
    if arrays:
        for offset, s in enumerate(sources):
            start, end = bounds[offset], bounds[offset + 1]
            yield s, tails[start:end], heads[start:end]
        return
    tails, heads = tails.tolist(), heads.tolist()
    for offset, s in enumerate(sources):
        start, end = bounds[offset], bounds[offset + 1]
        yield s, tails[start:end], heads[start:end]


def towards(tails: list[int], heads: list[int], wanted: set[int]) -> tuple[list[int], list[int]]:
    """The hops of a least-cost DAG that lead to a ``wanted`` station (the order kept)."""
    into: dict[int, list[int]] = defaultdict(list)
    for p, t in zip(tails, heads):
        into[t].append(p)
    keep: set[int] = set()
    stack = list(wanted)
    while stack:
        t = stack.pop()
        if t not in keep:
            keep.add(t)
            stack.extend(into.get(t, ()))
    pairs = [(p, t) for p, t in zip(tails, heads) if t in keep]
    return [p for p, _ in pairs], [t for _, t in pairs]


def _merged_hops(
    at_stop: numpy.ndarray,
    boarded: numpy.ndarray,
    root: numpy.ndarray,
    stop_station: numpy.ndarray,
    rides: tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray],
    alighted: tuple[numpy.ndarray, numpy.ndarray],
) -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """The hops ``(rows, tails, heads)`` into the ``alighted`` stops whose chain ends where rides meet.

    ``rides`` are the least-cost rides ``(row, tail stop, head stop)`` into such meeting stops; a
    meeting stop's boarding stations are its own (when boarded) and those of each ride's tail's root,
    found in order of weight (a tail weighs less than its head).
    """
    into: dict[tuple[int, int], list[int]] = defaultdict(list)
    for row, tail, head in zip(*(part.tolist() for part in rides)):
        into[row, head].append(tail)
    boarding: dict[tuple[int, int], set[int]] = {}
    for row, stop in sorted(into, key=lambda key: at_stop[key]):
        found = {int(stop_station[stop])} if boarded[row, stop] else set()
        for tail in into[row, stop]:
            start = int(root[row, tail])
            found |= boarding.get((row, start)) or {int(stop_station[start])}
        boarding[row, stop] = found
    out_rows, out_tails, out_heads = [], [], []
    for row, stop in zip(*(part.tolist() for part in alighted)):
        head = int(stop_station[stop])
        for tail in sorted(boarding[row, int(root[row, stop])]):
            out_rows.append(row)
            out_tails.append(tail)
            out_heads.append(head)
    as_array = numpy.array
    return (
        as_array(out_rows, dtype=numpy.int64),
        as_array(out_tails, dtype=numpy.int64),
        as_array(out_heads, dtype=numpy.int64),
    )


def texts_along(
    s: int,
    tails: list[int],
    heads: list[int],
    hops: list[int],
    hop_text: Sequence[str | None] | Mapping[int, str | None],
    hop_steps: Callable[[int], tuple[tuple[tuple, str], ...]],
    *,
    stations: int,
    max_routes: int | None,
    separator: str,
) -> list[tuple[str, ...] | list[tuple[str, ...]] | None]:
    """The routes from station ``s`` along its least-cost DAG (hops ``tails[i] -> heads[i]``, grouped by
    head, nearest first) as the texts of their segments.

    ``hops[i]`` names the hop ``tails[i] -> heads[i]``; ``hop_text[hops[i]]`` is ``separator`` and the
    text of its one segment, when it has one and that text is known (else anything but a string);
    ``hop_steps(hops[i])`` gives its segments as ``(sort key, separator and text)``, in key order (and
    files a one-segment text in ``hop_text``). Returns, by station (of ``stations``), its routes: a route
    is the tuple of its segments' texts, every one but the first after ``separator`` (joined, they are
    the route's text); one route, or a list of several in route order (a route's key is its segments'
    keys), at most ``max_routes``; ``None`` for ``s`` and the stations not reached. This is
    :meth:`graphkit.graph.TransitGraph._routes_along` without route objects: a route is its
    predecessor's with one more segment, and keys are found only where routes meet.
    """
    skip = len(separator)
    routes_of: list = [None] * stations
    keyed: list = [None] * stations  # route keys, filled where routes meet (and on the way back from there)
    # the predecessor and the hop of a station reached by one route over a one-segment hop
    through, through_hop = [0] * stations, [0] * stations
    routes_of[s], keyed[s] = (), [()]

    def keys_of(t: int) -> list[tuple]:
        found = keyed[t]
        if found is None:
            p, hop = through[t], through_hop[t]
            found = keyed[t] = [keys_of(p)[0] + (hop_steps(hop)[0][0],)]
        return found

    def meet(t: int, before: list[tuple[int, int]]) -> None:
        routes = []
        for p, hop in before:
            steps = hop_steps(hop)
            earlier = routes_of[p]
            earlier = [earlier] if earlier.__class__ is tuple else earlier
            for key, route in zip(keys_of(p), earlier):
                for step_key, step in steps:
                    routes.append((key + (step_key,), route + (step,) if p != s else (step[skip:],)))
        if len(before) > 1:
            routes.sort(key=_first)
        del routes[max_routes or len(routes) :]
        routes_of[t] = routes[0][1] if len(routes) == 1 else [route for _, route in routes]
        keyed[t] = [key for key, _ in routes]

    following = heads[1:]
    following.append(-1)
    group: list[tuple[int, int]] | None = None
    for p, t, after, hop in zip(tails, heads, following, hops):
        if group is None and t != after:  # one hop into t
            step = hop_text[hop]
            earlier = routes_of[p]
            if step.__class__ is str and earlier.__class__ is tuple:  # the usual case: one route, one segment more
                routes_of[t] = earlier + (step,) if p != s else (step[skip:],)
                through[t] = p
                through_hop[t] = hop
            else:
                meet(t, [(p, hop)])
        elif group is None:
            group = [(p, hop)]
        else:
            group.append((p, hop))
            if t != after:
                meet(t, group)
                group = None
    routes_of[s] = None
    return routes_of


def _first(pair: tuple) -> object:
    return pair[0]

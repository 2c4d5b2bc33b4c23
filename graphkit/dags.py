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
from collections.abc import Iterator, Sequence

import numpy

__all__ = ["least_cost_hops", "towards"]


def least_cost_hops(
    sources: Sequence[int],
    distance: numpy.ndarray,
    at_stop: numpy.ndarray,
    stop_station: numpy.ndarray,
    ride_tails: numpy.ndarray,
    ride_heads: numpy.ndarray,
    *,
    ride_weight: float,
    arrays: bool = False,
    block: bool = False,
) -> Iterator[tuple]:
    """Per source, the hops ``(tails, heads)`` of its least-cost DAG as station numbers, grouped by head,
    nearest heads first (then by head, then by tail).

    Parameters
    ----------
    sources : sequence of int
        The source stations, one per row of ``distance`` and ``at_stop``.
    distance, at_stop : arrays (sources, stations) and (sources, stops)
        Least weights from each source to every station, and to every stop.
    stop_station : array (stops,)
        The station of each stop.
    ride_tails, ride_heads : array (rides,)
        The stops at the two ends of each ride between adjacent stops, both ways.
    ride_weight : float
        The weight of boarding.
    arrays : bool, optional
        Yield ``tails`` and ``heads`` as arrays instead of lists, and then the source's row of least
        weights to the stations and each hop's boarding and alighting stop (on one line).
    block : bool, optional
        Yield once, for all ``sources`` together: ``(distance, hop_rows, tails, heads, boards, alights)``
        (arrays; ``hop_rows`` the row of ``sources`` each hop is of, the hops in the order above).

    Yields
    ------
    tuple
        Per source (in order), ``(source, tails, heads)``, or with ``arrays`` ``(source, tails, heads,
        distance, boards, alights)``; with ``block``, the one tuple above.

    Each stop reached by exactly one least-cost ride and not boarded shares
    the boarding stops of that ride's tail; pointer jumping finds them for all
    sources at once. The stops where such rides meet, or that are both
    boarded and ridden through, are usually few: their boarding stops are
    gathered one by one.
    """
    n = distance.shape[1]
    hop_rows, boards, alights = _hop_stops(
        len(sources), distance, at_stop, stop_station, ride_tails, ride_heads, ride_weight
    )
    tails, heads = stop_station[boards], stop_station[alights]
    order = _hop_order(hop_rows, distance[hop_rows, heads], heads, tails, n)
    hop_rows, tails, heads = hop_rows[order], tails[order], heads[order]
    # two lines of the same length between two stations make one hop (either line's stops stand for it)
    kept = numpy.ones(len(order), dtype=bool)
    kept[1:] = (hop_rows[1:] != hop_rows[:-1]) | (heads[1:] != heads[:-1]) | (tails[1:] != tails[:-1])
    hop_rows, tails, heads = hop_rows[kept], tails[kept], heads[kept]
    if block:
        yield distance, hop_rows, tails, heads, boards[order][kept], alights[order][kept]
        return
    bounds = numpy.searchsorted(hop_rows, numpy.arange(len(sources) + 1)).tolist()
    if arrays:
        boards, alights = boards[order][kept], alights[order][kept]
        for offset, s in enumerate(sources):
            start, end = bounds[offset], bounds[offset + 1]
            yield s, tails[start:end], heads[start:end], distance[offset], boards[start:end], alights[start:end]
        return
    tails, heads = tails.tolist(), heads.tolist()
    for offset, s in enumerate(sources):
        start, end = bounds[offset], bounds[offset + 1]
        yield s, tails[start:end], heads[start:end]


def _hop_stops(
    sources: int,
    distance: numpy.ndarray,
    at_stop: numpy.ndarray,
    stop_station: numpy.ndarray,
    ride_tails: numpy.ndarray,
    ride_heads: numpy.ndarray,
    ride_weight: float,
) -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """Every hop of the least-cost DAGs of ``sources`` rows as ``(hop_rows, boards, alights)``: its row, and the
    stops it boards at and alights from (unordered, one per line that makes it); see :func:`least_cost_hops`."""
    stops = len(stop_station)
    reached = numpy.isfinite(at_stop)
    boarded = (at_stop == distance[:, stop_station] + ride_weight) & reached
    alighted = (at_stop == distance[:, stop_station]) & reached
    rows, rides = numpy.nonzero((at_stop[:, ride_tails] + 1 == at_stop[:, ride_heads]) & reached[:, ride_heads])
    into = rows * stops + ride_heads[rides]  # each least-cost ride's head, as a flat (row, stop) cell
    arrivals = numpy.bincount(into, minlength=sources * stops).reshape(sources, stops)
    root = numpy.tile(numpy.arange(stops), (sources, 1))
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
    boards, alights = alight_roots[plain], alight_stops[plain]
    if not plain.all():
        meeting = ~follows
        more_rows, more_boards, more_alights = _merged_hops(
            at_stop,
            boarded,
            root,
            (rows[meeting], ride_tails[rides[meeting]], ride_heads[rides[meeting]]),
            (alight_rows[~plain], alight_stops[~plain]),
        )
        hop_rows = numpy.concatenate((hop_rows, more_rows))
        boards = numpy.concatenate((boards, more_boards))
        alights = numpy.concatenate((alights, more_alights))
    return hop_rows, boards, alights


def _hop_order(
    rows: numpy.ndarray, weights: numpy.ndarray, heads: numpy.ndarray, tails: numpy.ndarray, stations: int
) -> numpy.ndarray:
    """The order of hops by row, then by their heads' weight, then by head, then by tail: one sort of one
    64-bit key where it fits (hops with equal keys are equal), else a sort by each key in turn (slower)."""
    if not len(rows):
        return numpy.zeros(0, dtype=numpy.intp)
    span = int(weights.max()) + 1
    if (int(rows.max()) + 1) * span * stations * stations < 2**63:
        return numpy.argsort(((rows * span + weights.astype(numpy.int64)) * stations + heads) * stations + tails)
    return numpy.lexsort((tails, heads, weights, rows))


def towards(tails: list[int], heads: list[int], wanted: set[int]) -> tuple[list[int], list[int]]:
    """The hops of a least-cost DAG that lead to a ``wanted`` station (the order kept).

    Parameters
    ----------
    tails, heads : list of int
        The DAG's hops, station numbers.
    wanted : set of int
        The stations to reach.

    Returns
    -------
    tails, heads : list of int
        The hops on some path into a wanted station.

    Examples
    --------
    >>> towards([0, 0, 1, 2], [1, 2, 3, 4], {3})
    ([0, 1], [1, 3])
    """
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
    rides: tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray],
    alighted: tuple[numpy.ndarray, numpy.ndarray],
) -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """The hops ``(rows, boarding stops, alighting stops)`` into the ``alighted`` stops whose chain ends
    where rides meet.

    ``rides`` are the least-cost rides ``(row, tail stop, head stop)`` into such meeting stops; a
    meeting stop's boarding stops are its own (when boarded) and those of each ride's tail's root,
    found in order of weight (a tail weighs less than its head). Rides keep to their line, so these
    are stops of one line, one per station.
    """
    ride_rows, ride_tails, ride_heads = rides
    into: dict[tuple[int, int], list[int]] = defaultdict(list)  # a meeting stop's rides' tails' roots
    for row, start, head in zip(ride_rows.tolist(), root[ride_rows, ride_tails].tolist(), ride_heads.tolist()):
        into[row, head].append(start)
    meetings = numpy.array(list(into), dtype=numpy.int64).reshape(-1, 2)
    meeting_rows, meeting_stops = meetings[:, 0], meetings[:, 1]
    own = numpy.where(boarded[meeting_rows, meeting_stops], meeting_stops, -1).tolist()
    keys = list(into)
    boarding: dict[tuple[int, int], set[int]] = {}
    for index in numpy.argsort(at_stop[meeting_rows, meeting_stops]).tolist():  # each after those it needs
        key = keys[index]
        found = {own[index]} if own[index] >= 0 else set()
        for start in into[key]:
            found |= boarding.get((key[0], start)) or {start}
        boarding[key] = found
    # each alighted stop's hops: one from each boarding stop of its chain's root
    stops = root.shape[1]
    alight_rows, alight_stops = alighted
    chosen = [sorted(found) for found in boarding.values()]
    sizes = numpy.array([len(found) for found in chosen], dtype=numpy.int64)
    flat = numpy.array([stop for found in chosen for stop in found], dtype=numpy.int64)
    named = numpy.array([row * stops + stop for row, stop in boarding], dtype=numpy.int64)
    order = numpy.argsort(named)
    named, starts, sizes = named[order], (numpy.cumsum(sizes) - sizes)[order], sizes[order]
    which = numpy.searchsorted(named, alight_rows * stops + root[alight_rows, alight_stops])
    counts = sizes[which]
    within = numpy.arange(int(counts.sum())) - numpy.repeat(numpy.cumsum(counts) - counts, counts)
    return (
        numpy.repeat(alight_rows, counts),
        flat[numpy.repeat(starts[which], counts) + within],
        numpy.repeat(alight_stops, counts),
    )

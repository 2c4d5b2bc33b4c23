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
from operator import itemgetter

import numpy

__all__ = ["least_cost_hops", "towards", "texts_along", "HopTexts"]


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

    Each stop reached by exactly one least-cost ride and not boarded shares
    the boarding stops of that ride's tail; pointer jumping finds them for all
    sources at once. The stops where such rides meet, or that are both
    boarded and ridden through, are usually few: their boarding stops are
    gathered one by one.
    """
    stops, n = len(stop_station), distance.shape[1]
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
    tails, heads = stop_station[boards], stop_station[alights]
    order = _hop_order(hop_rows, distance[hop_rows, heads], heads, tails, n)
    hop_rows, tails, heads = hop_rows[order], tails[order], heads[order]
    # two lines of the same length between two stations make one hop (either line's stops stand for it)
    kept = numpy.ones(len(order), dtype=bool)
    kept[1:] = (hop_rows[1:] != hop_rows[:-1]) | (heads[1:] != heads[:-1]) | (tails[1:] != tails[:-1])
    hop_rows, tails, heads = hop_rows[kept], tails[kept], heads[kept]
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


def texts_along(
    s: int,
    tails: numpy.ndarray,
    heads: numpy.ndarray,
    rides: numpy.ndarray,
    hop_text: HopTexts,
    hop_steps: Callable[[int], tuple[tuple[tuple, bytes], ...]],
    *,
    stations: int,
    max_routes: int | None,
    separator: bytes,
    several: Callable[[list[bytes]], bytes],
) -> tuple[numpy.ndarray, numpy.ndarray]:
    """The routes from station ``s`` along its least-cost DAG (hops ``tails[i] -> heads[i]``, arrays grouped
    by head, nearest first) as text.

    A hop ``p -> t`` is named ``p * stations + t`` and ridden as ``rides[i]`` (see :class:`HopTexts`):
    ``hop_text[hop]`` is ``separator`` and the text of its one segment, or ``None`` when it has several
    (:meth:`HopTexts.gather` finds many at once); ``hop_steps(hop)`` gives its segments as ``(sort key,
    separator and text)``, in key order. A route's text is its segments' texts joined by ``separator``;
    a station's routes, at most ``max_routes``, come in route order (a route's key is its segments' keys),
    and ``several(texts)`` makes one text of two or more. Returns two arrays of objects, by station (of
    ``stations``): a station's routes' text is the first's entry followed by the second's; the first's is
    ``None`` for ``s`` and the stations not reached.

    This is :meth:`graphkit.graph.TransitGraph._routes_along` without route objects. Nearly every
    station is reached by one hop, and most are where no hop leaves from: those (leaves) are left as
    their predecessor's text and the hop's (no text is copied for them; numpy gathers them). The
    others take their predecessor's text with one segment more, in one tight loop; where that fails
    (the predecessor has several routes, or is a station where routes meet and is not built yet, or the
    hop has several segments) the station is built the long way and the loop goes on. Stations where
    routes meet are built when a later station needs them, or at the end; their sort keys, and those of
    the routes that lead to them, are found only there.
    """
    n, skip = stations, len(separator)
    first, second = numpy.empty(n, dtype=object), numpy.full(n, b"", dtype=object)
    if not len(heads):
        return first, second
    hops = tails * n + heads
    new = numpy.ones(len(heads), dtype=bool)
    new[1:] = heads[1:] != heads[:-1]
    sizes = numpy.diff(numpy.flatnonzero(new), append=len(heads))
    alone = numpy.repeat(sizes == 1, sizes)  # hops into a station that no other hop leads to
    meeting: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for p, t, hop in zip(tails[~alone].tolist(), heads[~alone].tolist(), hops[~alone].tolist()):
        meeting[t].append((p, hop))
    along = _Departure(s, tails, heads, alone, meeting, hop_text, hop_steps, stations=n, max_routes=max_routes)
    routes_of, many, settle, extend = along.routes_of, along.many, along.settle, along.extend

    # the hops out of s come first (one ride weighs less than two) and lead to stations no other hop does
    out_of_s = int(numpy.count_nonzero(tails == s))
    steps, _ = hop_text.gather(rides[:out_of_s], hops[:out_of_s])
    for t, hop, step in zip(heads[:out_of_s].tolist(), hops[:out_of_s].tolist(), steps.tolist()):
        if step is not None:
            routes_of[t] = step[skip:]
        else:
            settle(t, [step[skip:] for _, step in hop_steps(hop)])
    later = alone.copy()
    later[:out_of_s] = False
    leaves_from = numpy.zeros(n, dtype=bool)
    leaves_from[tails] = True
    leaf = later & ~leaves_from[heads]
    inner = later & ~leaf
    steps, _ = hop_text.gather(rides[inner], hops[inner])
    following = zip(tails[inner].tolist(), heads[inner].tolist(), steps.tolist())
    while True:
        try:
            for p, t, step in following:
                routes_of[t] = routes_of[p] + step  # the usual case: one route, one segment more
        except TypeError:  # not bytes + bytes
            extend(p, t, p * n + t)
            continue
        break
    for t in meeting:
        if routes_of[t] is None:
            along.meet(t)
    leaf_t, leaf_p, leaf_hops = heads[leaf], tails[leaf], hops[leaf]
    steps, plain = hop_text.gather(rides[leaf], leaf_hops)  # not plain: a hop of several segments
    if many:  # a predecessor with several routes
        several_routes = numpy.zeros(n, dtype=bool)
        several_routes[many] = True
        plain &= ~several_routes[leaf_p]
    if not plain.all():
        for p, t, hop in zip(leaf_p[~plain].tolist(), leaf_t[~plain].tolist(), leaf_hops[~plain].tolist()):
            extend(p, t, hop)
        steps = steps[plain]
    for t in many:
        routes_of[t] = several(routes_of[t])
    first[:] = routes_of
    first[leaf_t[plain]] = first[leaf_p[plain]]
    second[leaf_t[plain]] = steps
    return first, second


class _Departure:
    """The routes of one departure as :func:`texts_along` builds them: by station, one text, a list of
    several, or ``None`` (not yet), and the sort keys of those where routes meet.

    A class, not closures that call each other: those would make reference cycles that keep each
    departure's lists until the collector finds them (a tenth of the time at 2,000 stations).
    """

    __slots__ = (
        "routes_of",
        "many",
        "keyed",
        "parents",
        "tails",
        "heads",
        "alone",
        "meeting",
        "hop_text",
        "hop_steps",
        "stations",
        "max_routes",
    )

    def __init__(self, s, tails, heads, alone, meeting, hop_text, hop_steps, *, stations, max_routes):
        self.routes_of: list = [None] * stations
        self.many: list[int] = []  # the stations with several routes
        self.keyed: list = [None] * stations  # route keys, found where routes meet (and on the way back there)
        self.keyed[s] = [()]
        self.parents: list[int] = []
        self.tails, self.heads, self.alone, self.meeting = tails, heads, alone, meeting
        self.hop_text, self.hop_steps = hop_text, hop_steps
        self.stations, self.max_routes = stations, max_routes

    def keys_of(self, t: int) -> list[tuple]:
        found = self.keyed[t]
        if found is None:  # t is reached by one hop: its keys are its predecessor's, one segment longer
            n, parents = self.stations, self.parents
            if not parents:
                parent = numpy.full(n, -1, dtype=numpy.int64)
                parent[self.heads[self.alone]] = self.tails[self.alone]
                parents.extend(parent.tolist())
            p = parents[t]
            steps = self.hop_steps(p * n + t)
            found = [key + (step_key,) for key in self.keys_of(p) for step_key, _ in steps]
            del found[self.max_routes or len(found) :]
            self.keyed[t] = found
        return found

    def settle(self, t: int, routes: list[bytes]) -> None:
        del routes[self.max_routes or len(routes) :]
        if len(routes) == 1:
            self.routes_of[t] = routes[0]
        else:
            self.routes_of[t] = routes
            self.many.append(t)

    def built(self, p: int) -> list[bytes]:
        earlier = self.routes_of[p]
        if earlier is None:
            self.meet(p)
            earlier = self.routes_of[p]
        return [earlier] if earlier.__class__ is bytes else earlier

    def meet(self, t: int) -> None:
        routes = []
        for p, hop in self.meeting[t]:
            steps = self.hop_steps(hop)
            earlier = self.built(p)  # first: a meeting not built yet has no keys either
            for key, route in zip(self.keys_of(p), earlier):
                for step_key, step in steps:
                    routes.append((key + (step_key,), route + step))
        routes.sort(key=_first)
        del routes[self.max_routes or len(routes) :]
        self.keyed[t] = [key for key, _ in routes]
        self.settle(t, [route for _, route in routes])

    def extend(self, p: int, t: int, hop: int) -> None:
        step, earlier = self.hop_text[hop], self.built(p)
        if step is not None and len(earlier) == 1:  # the predecessor was a meeting not built yet
            self.routes_of[t] = earlier[0] + step
        else:
            self.settle(t, [route + step for route in earlier for _, step in self.hop_steps(hop)])


class HopTexts:
    """The text of each hop of one segment (``None`` for a hop of several), by hop and by ride.

    ``texts`` maps a hop ``p -> t``, ``p * stations + t``, to it (a memo that builds it on first look-up).
    :meth:`gather` finds many at once by *ride*: a hop as one line rides it, a boarding and an alighting
    stop, numbered densely per line (``ride_base[board] + ride_offset[alight]``: a line of L stops has L²
    rides). A table by ride, filled from the memo on first use, is read with numpy: a memo of tens of
    thousands of hops is read back at a few cache misses a look-up, which is what the leaves, most
    stations, would otherwise cost. Without ``rides`` (a network whose lines' rides would make the table
    too big), :meth:`gather` looks each hop up in the memo.
    """

    __slots__ = ("texts", "_table", "_known")

    def __init__(self, texts: Mapping[int, bytes | None], rides: int | None):
        self.texts = texts
        self._table = None if rides is None else numpy.empty(rides, dtype=object)
        self._known = None if rides is None else numpy.zeros(rides, dtype=numpy.int8)  # 1: one segment, 2: several

    def __getitem__(self, hop: int) -> bytes | None:
        return self.texts[hop]

    def gather(self, rides: numpy.ndarray, hops: numpy.ndarray) -> tuple[numpy.ndarray, numpy.ndarray]:
        """The texts of ``hops`` (ridden as ``rides``) as an object array, and which are one segment's."""
        if self._table is None:
            keys = hops.tolist()
            found = itemgetter(*keys)(self.texts) if len(keys) > 1 else tuple(self.texts[key] for key in keys)
            texts = _objects(found)
            return texts, ~numpy.equal(texts, None)
        state = self._known[rides]
        new = numpy.flatnonzero(state == 0)
        if len(new):
            found = [self.texts[hop] for hop in hops[new].tolist()]
            where = rides[new]
            self._table[where] = _objects(found)
            self._known[where] = [2 if text is None else 1 for text in found]
            state = self._known[rides]
        return self._table[rides], state == 1

    def clear(self) -> None:
        """Forget every text (and the table's)."""
        self.texts.clear()
        if self._table is not None:
            self._table[:] = None
            self._known[:] = 0


def _objects(values: Sequence[object]) -> numpy.ndarray:
    """``values`` as an object array, the objects themselves (numpy would make bytes a fixed-width string array)."""
    array = numpy.empty(len(values), dtype=object)
    array[:] = values
    return array


def _first(pair: tuple) -> object:
    return pair[0]

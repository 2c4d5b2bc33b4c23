"""Routes of a block of departures as arrays, checked against routes listed by hand."""

from __future__ import annotations

import numpy

from graphkit.route_arrays import block_routes

RIDE = 1_000_000
INF = numpy.inf


def _routes(found) -> dict[tuple[int, int], list[list[int]]]:
    """Each pair's routes as lists of segment numbers, read back from the arrays."""
    out, at = {}, 0
    for row, target, transfers, count in zip(
        found.pair_rows.tolist(), found.pair_targets.tolist(), found.pair_transfers.tolist(), found.pair_routes.tolist()
    ):
        routes = []
        for _ in range(count):
            routes.append(found.segments[at : at + transfers + 1].tolist())
            at += transfers + 1
        out[row, target] = routes
    assert at == len(found.segments)
    return out


def _diamond(max_routes):
    # stations 0..4; from 0: hops 0->1 (segments 0, 1: two lines tie), 0->2 (segment 2), then 1->3 (segment 3)
    # and 2->3 (segment 4) meet at 3, and 3->4 (segment 5). Keys make route (2, 4) come before (0, 3), (1, 3).
    distance = numpy.array([[0, RIDE + 2, RIDE + 2, 2 * RIDE + 4, 3 * RIDE + 5]], dtype=float)
    tails, heads = numpy.array([0, 0, 1, 2, 3]), numpy.array([1, 2, 3, 3, 4])
    first, count = numpy.array([0, 2, 3, 4, 5]), numpy.array([2, 1, 1, 1, 1])
    keys = numpy.array([20, 21, 10, 50, 40, 60])
    return block_routes(
        numpy.array([0]),
        distance,
        (numpy.zeros(5, dtype=numpy.int64), tails, heads),
        (first, count),
        keys,
        ride_weight=RIDE,
        max_routes=max_routes,
    )


def test_routes_that_meet_come_in_key_order_and_are_cut():
    # by hand: to 3, the routes' keys are (20, 50), (21, 50) and (10, 40): (10, 40) first
    assert _routes(_diamond(None)) == {
        (0, 1): [[0], [1]],
        (0, 2): [[2]],
        (0, 3): [[2, 4], [0, 3], [1, 3]],
        (0, 4): [[2, 4, 5], [0, 3, 5], [1, 3, 5]],
    }
    found = _diamond(2)
    assert _routes(found) == {
        (0, 1): [[0], [1]],
        (0, 2): [[2]],
        (0, 3): [[2, 4], [0, 3]],
        (0, 4): [[2, 4, 5], [0, 3, 5]],
    }
    assert found.pair_transfers.tolist() == [0, 0, 1, 2]


def test_rows_of_a_block_are_kept_apart_and_unreached_stations_left_out():
    # two departures of one line 0-1-2 (station 2 unreached from the second, which starts at 1 with 0 behind)
    distance = numpy.array([[0, RIDE + 1, RIDE + 2], [RIDE + 1, 0, INF]])
    found = block_routes(
        numpy.array([0, 1]),
        distance,
        (numpy.array([0, 0, 1]), numpy.array([0, 0, 1]), numpy.array([1, 2, 0])),
        (numpy.array([0, 1, 2]), numpy.array([1, 1, 1])),
        numpy.array([5, 6, 7]),
        ride_weight=RIDE,
        max_routes=10,
    )
    assert _routes(found) == {(0, 1): [[0]], (0, 2): [[1]], (1, 0): [[2]]}

"""The least-cost DAG's plumbing: the stop search equals the full search graph's weights, the hop order
is the same whichever sort gives it, and each hop's boarding and alighting stops are its stations' on one line,
numbered as rides one per pair of a line's stops."""

from __future__ import annotations

import numpy
import pytest

from graphkit import city_graph, compile_graph
from graphkit.dags import _hop_order
from graphkit.hop_texts import ride_numbers
from graphkit.metro import load_metro
from tests.networks import (
    BRANCH,
    BRANCH_OVERLAY,
    CHINESE,
    DISCONNECTED,
    HOMONYMS,
    LOOP,
    LOOP_OVERLAY,
    ONE_STATION,
    REPEATED_SPLIT,
    REPEATED_SPLIT_OVERLAY,
    graph_of,
)


@pytest.mark.parametrize(
    "network",
    [(LOOP, LOOP_OVERLAY), (BRANCH, BRANCH_OVERLAY), (DISCONNECTED, None), (ONE_STATION, None), (HOMONYMS, None)]
    + [(CHINESE, None), (REPEATED_SPLIT, REPEATED_SPLIT_OVERLAY)],
)
def test_the_stop_search_gives_the_search_graphs_weights(network):
    graph = graph_of(*network)
    list(graph._least_cost_hops([0]))  # a first search makes the stop and ride lists arrays
    n = len(graph.stations)
    # the independent figure: igraph's weights on the full graph (a vertex per station and per stop)
    full = numpy.asarray(graph._graph.distances(source=range(n), weights="weight"))
    distance, at_stop = graph._stop_distances(range(n))
    assert numpy.array_equal(distance, full[:, :n])
    assert numpy.array_equal(at_stop, full[:, n:])


def test_the_stop_search_on_a_city():
    graph = city_graph("singapore")
    list(graph._least_cost_hops([0]))
    n, sources = len(graph.stations), list(range(0, len(graph.stations), 7))
    full = numpy.asarray(graph._graph.distances(source=sources, weights="weight"))
    distance, at_stop = graph._stop_distances(sources)
    assert numpy.array_equal(distance, full[:, :n]) and numpy.array_equal(at_stop, full[:, n:])


def test_the_hop_order_is_the_same_by_one_key_or_by_each():
    rng = numpy.random.default_rng(7)
    count, stations = 5000, 300
    rows = numpy.sort(rng.integers(0, 32, count))
    heads, tails = rng.integers(0, stations, count), rng.integers(0, stations, count)
    weights = (rng.integers(1, 4, count) * 1_000_000 + rng.integers(0, 50, count)).astype(float)
    # no two hops alike: then one order is right, and both sorts must find it
    _, first = numpy.unique(numpy.stack((rows, heads, tails)), axis=1, return_index=True)
    rows, heads, tails, weights = rows[first], heads[first], tails[first], weights[first]
    expected = numpy.lexsort((tails, heads, weights, rows))
    # stations as counted: the 64-bit key fits; 2**31 stations: it cannot (32 x 4e6 x 2**62 > 2**63)
    assert numpy.array_equal(_hop_order(rows, weights, heads, tails, stations), expected)
    assert numpy.array_equal(_hop_order(rows, weights, heads, tails, 2**31), expected)


def test_rides_are_numbered_one_per_pair_of_a_lines_stops():
    graph = compile_graph(load_metro({"L1": ["A", "B", "C"], "L2": ["D", "B"]}))
    base, offset, rides = ride_numbers(graph.lines.values())
    # by hand: L1's stops are 0, 1, 2 (A, B, C) and L2's 3, 4 (D, B): 3² + 2² = 13 rides
    assert rides == 13
    assert base.tolist() == [0, 3, 6, 9, 11] and offset.tolist() == [0, 1, 2, 0, 1]
    numbers = [int(base[a] + offset[b]) for line in ([0, 1, 2], [3, 4]) for a in line for b in line]
    assert sorted(numbers) == list(range(13))


@pytest.mark.parametrize("network", [(LOOP, LOOP_OVERLAY), (BRANCH, BRANCH_OVERLAY), (HOMONYMS, None), (CHINESE, None)])
def test_each_hop_boards_and_alights_at_its_stations_on_one_line(network):
    graph = graph_of(*network)
    list(graph._least_cost_hops([0]))
    line_of_stop = numpy.repeat(numpy.arange(len(graph.lines)), [len(t.stations) for t in graph.lines.values()])
    checked = 0
    for _, tails, heads, _, boards, alights in graph._least_cost_hops(range(len(graph.stations)), arrays=True):
        assert numpy.array_equal(graph._stop_station[boards], tails)
        assert numpy.array_equal(graph._stop_station[alights], heads)
        assert numpy.array_equal(line_of_stop[boards], line_of_stop[alights])
        checked += len(tails)
    assert checked


def test_each_hop_of_a_city_boards_and_alights_at_its_stations_on_one_line():
    graph = city_graph("beijing")  # loops, parallel lines and meeting routes
    list(graph._least_cost_hops([0]))
    line_of_stop = numpy.repeat(numpy.arange(len(graph.lines)), [len(t.stations) for t in graph.lines.values()])
    for _, tails, heads, _, boards, alights in graph._least_cost_hops(range(0, len(graph.stations), 9), arrays=True):
        assert numpy.array_equal(graph._stop_station[boards], tails)
        assert numpy.array_equal(graph._stop_station[alights], heads)
        assert numpy.array_equal(line_of_stop[boards], line_of_stop[alights])

"""Routes: hand-made networks, real cities, and properties on random networks."""

from __future__ import annotations

import heapq
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphkit import NoRoute, TransitError, UnknownStation, city_graph, reference_routes, shortest_routes
from graphkit.routes import _routes_within, shortest_route, shortest_route_length
from tests.networks import (
    BRANCH,
    BRANCH_OVERLAY,
    CLOSED_LOOP,
    DISCONNECTED,
    HOMONYMS,
    LOOP,
    LOOP_OVERLAY,
    ONE_LINE,
    ONE_STATION,
    graph_of,
    random_networks,
)


def check_route(graph, route, source, target):
    """The invariants every returned route must satisfy."""
    assert route.segments, "a route has at least one segment"
    assert route.departure == source and route.arrival == target
    for before, after in zip(route.segments, route.segments[1:]):
        assert before.arrival_stop == after.departure_stop, "segments chain"
        assert before.route_name != after.route_name, "a transfer changes line"
    visited = [source]
    for segment in route.segments:
        topology = graph.line(segment.route_name)
        stations = (segment.departure_stop, *segment.via_stops, segment.arrival_stop)
        for here, there in zip(stations, stations[1:]):
            assert there in topology.adjacency[here], f"{here} -> {there} is not a ride on {segment.route_name}"
        # via stops are the stations strictly between, on a shortest ride along the line
        stops, _ = graph.ride(segment.route_name, segment.departure_stop, segment.arrival_stop)
        assert stops <= segment.stops
        visited.extend(stations[1:])
    assert len(visited) == len(set(visited)), "no station is visited twice"


def brute_force_cost(graph, source, target):
    """(transfers, stops) by lexicographic Dijkstra over (station, line) states: an independent check."""
    start = [((0, 0), source, line) for line in graph.lines_at(source)]
    heapq.heapify(start)
    best = {}
    while start:
        cost, here, line = heapq.heappop(start)
        if (here, line) in best:
            continue
        best[here, line] = cost
        if here == target:
            return cost
        for there in graph.line(line).adjacency[here]:
            heapq.heappush(start, ((cost[0], cost[1] + 1), there, line))
        for other in graph.lines_at(here):
            if other != line:
                heapq.heappush(start, ((cost[0] + 1, cost[1]), here, other))
    return None


# -- hand-made networks ------------------------------------------------------------


def test_one_station_has_no_pairs_and_rejects_a_trip_to_itself():
    graph = graph_of(ONE_STATION)
    assert list(reference_routes(graph)) == []
    with pytest.raises(TransitError, match="same station"):
        shortest_routes(graph, "Solo Station", "Solo")


def test_one_line_rides_directly_with_the_stations_between():
    graph = graph_of(ONE_LINE)
    found = shortest_routes(graph, "E", "B Station")
    assert found.transfers == 0 and len(found.routes) == 1
    (segment,) = found.routes[0].segments
    assert segment.via_stops == ("D Station", "C Station")
    assert segment.to_dict()["num_via_stops"] == 2


def test_loop_goes_the_short_way_across_the_listed_ends():
    graph = graph_of(LOOP, LOOP_OVERLAY)
    (route,) = shortest_routes(graph, "L6", "L1").routes
    assert route.segments[0].via_stops == ("L7", "L0")


def test_loop_ties_give_both_directions():
    graph = graph_of(LOOP, LOOP_OVERLAY)
    found = shortest_routes(graph, "L0", "L4")
    assert {route.segments[0].via_stops for route in found.routes} == {("L1", "L2", "L3"), ("L7", "L6", "L5")}


def test_closed_loop_written_out_is_a_loop():
    graph = graph_of(CLOSED_LOOP)
    assert shortest_routes(graph, "P5", "P1").routes[0].segments[0].via_stops == ("P0",)


def test_branch_leaves_the_main_line_at_the_junction():
    graph = graph_of(BRANCH, BRANCH_OVERLAY)
    route = shortest_route(graph, "M4", "B2")
    assert route.segments[0].via_stops == ("M3", "M2", "B1")
    # without the overlay the list would make M5 and B1 neighbours
    assert shortest_route(graph_of(BRANCH), "M4", "B2").segments[0].via_stops == ("M5", "B1")


def test_disconnected_stations_raise_no_route():
    graph = graph_of(DISCONNECTED)
    with pytest.raises(NoRoute):
        shortest_routes(graph, "A", "D")
    with pytest.raises(NoRoute):
        shortest_route_length(graph, "A", "E")
    assert len(list(reference_routes(graph))) == 3 * 2 + 2 * 1


def test_homonyms_share_a_station_where_transfers_are_possible():
    graph = graph_of(HOMONYMS)
    route = shortest_route(graph, "79 St", "125 St")
    assert route.lines == ("1", "4") and route.segments[0].arrival_stop == "86 St Station"


def test_unknown_station_suggests_close_names():
    graph = graph_of(ONE_LINE)
    with pytest.raises(UnknownStation, match="C Station"):
        shortest_routes(graph, "C Statoin", "A")


def test_bad_options_are_rejected_with_the_valid_range():
    graph = graph_of(ONE_LINE)
    with pytest.raises(ValueError, match="slack"):
        shortest_routes(graph, "A", "B", slack=-1)
    with pytest.raises(ValueError, match="max_routes"):
        shortest_routes(graph, "A", "B", max_routes=0)


# -- real cities ---------------------------------------------------------------------


def test_beijing_line_2_is_a_loop():
    found = shortest_routes(city_graph("beijing"), "西直门站", "车公庄站")
    assert found.transfers == 0
    assert found.routes[0].to_list() == [
        {
            "route_name": "Line 2",
            "departure_stop": "西直门站",
            "arrival_stop": "车公庄站",
            "via_stops": [],
            "num_via_stops": 0,
        }
    ]


def test_rome_b1_branch_leaves_at_bologna():
    (segment,) = shortest_route(city_graph("rome"), "Termini Station", "Jonio Station").segments
    assert segment.route_name == "Line B"
    assert segment.via_stops == (
        "Castro Pretorio Station",
        "Policlinico Station",
        "Bologna Station",
        "S. Agnese Annibaliano Station",
        "Libia Station",
        "Conca d'Oro Station",
    )


def test_english_and_pinyin_names_reach_chinese_stations():
    graph = city_graph("beijing")
    assert shortest_route(graph, "Xizhimen", "Chegongzhuang Station") == shortest_route(graph, "西直门站", "车公庄站")


def test_references_records_have_the_published_shape():
    found = next(reference_routes(city_graph("rome")))
    record = found.to_record()
    assert set(record) == {"city", "station_1", "station_2", "question_transfer_count", "routes"}
    assert list(record["routes"]) == [f"route_{n}" for n in range(1, len(found.routes) + 1)]
    assert set(record["routes"]["route_1"][0]) == {
        "route_name",
        "departure_stop",
        "arrival_stop",
        "via_stops",
        "num_via_stops",
    }


@pytest.mark.parametrize("city", ["beijing", "shanghai", "new_york", "rome", "dubai", "singapore"])
def test_real_routes_are_valid_and_optimal(city):
    graph = city_graph(city)
    stations = graph.stations
    for source, target in itertools.islice(zip(stations, reversed(stations)), 0, 60):
        if source == target:
            continue
        found = shortest_routes(graph, source, target)
        for route in found.routes:
            check_route(graph, route, source, target)
        assert (found.transfers, found.routes[0].stops) == brute_force_cost(graph, source, target)


# -- properties on random networks ------------------------------------------------------

STATIONS = [f"S{i}" for i in range(9)]


def networks():
    """Random networks over :data:`STATIONS` (:func:`tests.networks.random_networks`)."""
    return random_networks(STATIONS)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(networks())
def test_every_route_is_valid_and_has_the_fewest_transfers_then_stops(network):
    graph = graph_of(*network)
    pairs = 0
    for found in reference_routes(graph):
        pairs += 1
        expected = brute_force_cost(graph, found.source, found.target)
        assert (found.transfers, found.routes[0].stops) == expected
        for route in found.routes:
            check_route(graph, route, found.source, found.target)
            assert (route.transfers, route.stops) == expected
    connected = sum(len(group) * (len(group) - 1) for group in graph.components())
    assert pairs == connected


@settings(max_examples=80, deadline=None)
@given(networks())
def test_fewest_transfers_is_symmetric(network):
    graph = graph_of(*network)
    transfers = {(f.source, f.target): f.transfers for f in reference_routes(graph)}
    for (source, target), count in transfers.items():
        assert transfers[target, source] == count


@settings(max_examples=60, deadline=None)
@given(networks())
def test_output_is_deterministic(network):
    first = [f.to_record() for f in reference_routes(graph_of(*network))]
    second = [f.to_record() for f in reference_routes(graph_of(*network))]
    assert first == second


@settings(max_examples=80, deadline=None)
@given(networks(), st.integers(0, 3), st.data())
def test_slack_search_agrees_with_the_bulk_search_and_respects_its_bound(network, slack, data):
    graph = graph_of(*network)
    bulk = {(f.source, f.target): f for f in reference_routes(graph, max_routes=1000)}
    if not bulk:
        return
    source, target = data.draw(st.sampled_from(sorted(bulk)))
    exact = bulk[source, target]
    within = shortest_routes(graph, source, target, slack=slack, max_routes=1000)
    assert within.transfers == exact.transfers
    best = exact.routes[0].stops
    for route in within.routes:
        check_route(graph, route, source, target)
        assert route.transfers == exact.transfers and best <= route.stops <= best + slack
    assert set(exact.routes) <= set(within.routes)
    if slack == 0:
        assert within.routes == exact.routes
        # the depth-first search behind slack > 0 must find the same set at slack 0
        searched = sorted(_routes_within(graph, source, target, 0), key=graph.route_sort_key)
        assert tuple(searched) == exact.routes

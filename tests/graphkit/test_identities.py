"""Station identities: overlays' aliases join what spellings split, homonyms split what names join."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from graphkit.cities import city_graph, load_city
from graphkit.errors import AmbiguousStation, InvalidOverlay, NoRoute, UnknownStation
from graphkit.graph import compile_graph
from graphkit.metro import load_metro
from graphkit.overlays import load_overlay
from graphkit.routes import reference_routes, shortest_route, shortest_routes
from graphkit.segments import Route, Segment
from tests.graphkit.test_routes import brute_force_cost, check_route, networks
from tests.networks import (
    REPEATED,
    REPEATED_OVERLAY,
    REPEATED_SPLIT,
    REPEATED_SPLIT_OVERLAY,
    SPLIT,
    SPLIT_OVERLAY,
    SUFFIX_VARIANTS,
    SUFFIX_VARIANTS_OVERLAY,
    graph_of,
)

# -- aliases -------------------------------------------------------------------------------


def test_an_alias_joins_the_transfer_its_spellings_split():
    with pytest.raises(NoRoute):  # 西单 (Line 1) and 西单站 (Line 4) are two names: the lines never meet
        shortest_routes(graph_of(SUFFIX_VARIANTS), "天安门西站", "灵境胡同站")
    graph = graph_of(SUFFIX_VARIANTS, SUFFIX_VARIANTS_OVERLAY)
    assert graph.lines_at("西单站") == ("Line 1", "Line 4")
    assert "西单" not in graph.stations
    assert shortest_route(graph, "天安门西站", "灵境胡同站").segments == (
        Segment("Line 1", "天安门西站", "西单站", ()),
        Segment("Line 4", "西单站", "灵境胡同站", ()),
    )


def test_an_alias_spelling_still_resolves_and_the_raw_data_stays():
    graph = graph_of(SUFFIX_VARIANTS, SUFFIX_VARIANTS_OVERLAY)
    assert graph.resolve_station("西单") == "西单站"
    assert graph.resolve_station("Xidan") == "西单站"
    assert graph.spellings("西单站") == ("西单站", "西单")
    assert graph.metro.to_dict() == SUFFIX_VARIANTS


def test_beijing_tiananmen_west_to_lingjing_hutong_transfers_once_at_xidan():
    # 天安门西 is next to 西单 on Line 1, 灵境胡同 next to 西单 on Line 4: one transfer, no via stops
    found = shortest_routes(city_graph("beijing"), "天安门西站", "灵境胡同站")
    assert found.transfers == 1
    assert found.routes[0].segments == (
        Segment("Line 1", "天安门西站", "西单站", ()),
        Segment("Line 4", "西单站", "灵境胡同站", ()),
    )


# -- homonyms ------------------------------------------------------------------------------


def test_a_homonym_split_removes_the_false_transfer():
    # one name joins Red to Blue at Hub: one transfer
    assert shortest_routes(graph_of(SPLIT), "R1", "B1").transfers == 1
    graph = graph_of(SPLIT, SPLIT_OVERLAY)
    assert graph.lines_at("Hub@Red") == ("Red",) and graph.lines_at("Hub@Blue") == ("Blue", "Green")
    # Red to Gold at R3, Gold to Blue at Far (an alias): two transfers
    route = shortest_route(graph, "R1", "B1")
    assert [(s.route_name, s.departure_stop, s.arrival_stop) for s in route.segments] == [
        ("Red", "R1", "R3"),
        ("Gold", "R3", "Far Station"),
        ("Blue", "Far Station", "B1"),
    ]
    assert route.segments[0].via_stops == ("Hub@Red",)


def test_without_the_alias_the_split_network_falls_apart():
    homonyms_only = {"homonyms": SPLIT_OVERLAY["homonyms"]}
    with pytest.raises(NoRoute):
        shortest_routes(graph_of(SPLIT, homonyms_only), "R1", "B1")


def test_split_stations_show_their_shared_name():
    graph = graph_of(SPLIT, SPLIT_OVERLAY)
    assert graph.display_name("Hub@Red") == "Hub" and graph.display_name("R1") == "R1"
    assert graph.namesakes("Hub@Red") == ("Hub@Red", "Hub@Blue") and graph.namesakes("R1") == ("R1",)
    route = shortest_route(graph, "R1", "R3")
    assert graph.display_route(route) == Route((Segment("Red", "R1", "R3", ("Hub",)),))


def test_an_ambiguous_name_lists_its_stations_with_their_lines_and_a_line_picks_one():
    graph = graph_of(SPLIT, SPLIT_OVERLAY)
    with pytest.raises(AmbiguousStation) as error:
        graph.resolve_station("Hub")
    assert error.value.candidates == ("Hub@Red", "Hub@Blue")
    assert "Hub@Red (lines Red)" in str(error.value) and "Hub@Blue (lines Blue, Green)" in str(error.value)
    assert "NAME@LINE" in str(error.value)
    assert graph.resolve_station("Hub@Red") == "Hub@Red"
    assert graph.resolve_station("Hub@Green") == "Hub@Blue"
    assert graph.resolve_station("hub station@green") == "Hub@Blue"
    assert graph.resolve_station("R1@Red") == "R1"
    with pytest.raises(UnknownStation):
        graph.resolve_station("Hub@Gold")  # Gold serves no Hub


def test_a_line_listing_a_shared_name_twice_gets_two_stations():
    joined = graph_of(REPEATED_SPLIT, REPEATED_OVERLAY)
    assert joined.lines["R"].shape == "irregular"  # the list joins at its two Bs
    graph = graph_of(REPEATED_SPLIT, REPEATED_SPLIT_OVERLAY)
    assert graph.lines["R"].stations == ("A", "B@M", "C", "D", "B@N", "E")
    assert graph.lines["R"].shape == "path"
    assert graph.transfer_stations() == ("B@M", "B@N")
    # X (line M) to E: M to the first B, then R along C, D and the second B
    route = shortest_route(graph, "X", "E")
    assert [(s.route_name, s.arrival_stop, s.via_stops) for s in route.segments] == [
        ("M", "B@M", ()),
        ("R", "E", ("C", "D", "B@N")),
    ]


def test_new_york_van_cortlandt_park_to_woodlawn_no_longer_transfers_at_125_st():
    metro, overlay = load_city("new_york")
    names_as_listed = compile_graph(metro, replace(overlay, aliases=(), homonyms=(), interchanges=(), distinct=()))
    before = shortest_routes(names_as_listed, "Van Cortlandt Park-242 St Station", "Woodlawn Station")
    assert before.transfers == 1 and before.routes[0].segments[0].arrival_stop == "125 St Station"
    graph = city_graph("new_york")
    # Van Cortlandt Park is on the 1 only, Woodlawn on the 4 only, and no station is on both (the 1's and the
    # 4's 125 St and 86 St are different stations): two transfers at least; the 1 meets the 2 at 96 St and the
    # 2 meets the 4 at 149 St-Grand Concourse, so two it is
    assert not set(graph.lines["1"].stations) & set(graph.lines["4"].stations)
    found = shortest_routes(graph, "Van Cortlandt Park-242 St", "Woodlawn")
    assert found.transfers == 2
    for route in found.routes:
        assert [s.route_name for s in route.segments][0] == "1" and route.segments[-1].route_name == "4"
        assert all(graph.display_name(s.arrival_stop) != "125 St Station" for s in route.segments)


def test_new_york_125_st_is_four_stations():
    graph = city_graph("new_york")
    stations = graph.namesakes("125 St Station@1")
    assert {station: graph.lines_at(station) for station in stations} == {
        "125 St Station@1": ("1",),
        "125 St Station@2": ("2", "3"),
        "125 St Station@4": ("4", "5", "6"),
        "125 St Station@A": ("A", "B", "C", "D"),
    }
    assert graph.resolve_station("125 St@6") == "125 St Station@4"


def test_kuala_lumpur_sentul_is_two_stations():
    graph = city_graph("kl")
    assert graph.lines_at("Sentul Station@Line 1") == ("Line 1",)
    assert graph.lines_at("Sentul Station@Line 3") == ("Line 3", "Line 4")


# -- declarations that do not fit ----------------------------------------------------------


@pytest.mark.parametrize(
    ("overlay", "says"),
    [
        ({"homonyms": [{"station": "Hub", "groups": [["Red"], ["Blue"]], "note": "n"}]}, "missing ['Green']"),
        ({"homonyms": [{"station": "Hub", "groups": [["Red", "Gold"], ["Blue", "Green"]], "note": "n"}]}, "Gold"),
        ({"homonyms": [{"station": "Nowhere", "groups": [["Red"], ["Blue"]], "note": "n"}]}, "no line"),
        ({"aliases": [{"station": "X", "spellings": ["Nowhere"], "note": "n"}]}, "'Nowhere' is not a station"),
        ({"aliases": [{"station": "Hub", "spellings": ["R3"], "note": "n"}]}, "lists 'Hub' twice"),
        ({"interchanges": [{"station": "R1", "note": "n"}]}, "not a station that several lines serve"),
        ({"distinct": [{"stations": ["R1", "Nowhere"], "note": "n"}]}, "['Nowhere']"),
    ],
)
def test_declarations_that_do_not_fit_the_data_are_errors(overlay, says):
    with pytest.raises(InvalidOverlay, match="<dict>") as error:
        graph_of(SPLIT, overlay)
    assert says in str(error.value)


def test_a_line_listing_the_name_twice_must_say_which_time():
    overlay = {**REPEATED_OVERLAY, "homonyms": [{"station": "B", "groups": [["M", "R"], ["N"]], "note": "n"}]}
    with pytest.raises(InvalidOverlay, match=r"missing \['R#1', 'R#2'\]"):
        graph_of(REPEATED_SPLIT, overlay)


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"station": "Hub", "groups": ["Red", "Blue"], "note": "n"}, "group #1"),
        ({"station": "Hub", "groups": [["Red"]], "note": "n"}, "at least 2 groups"),
        ({"station": "Hub", "groups": [["Red"], ["Red"]], "note": "n"}, "twice"),
    ],
)
def test_malformed_homonyms_are_refused_on_reading(entry, says):
    with pytest.raises(InvalidOverlay, match="homonyms #1") as error:
        load_overlay({"homonyms": [entry]})
    assert says in str(error.value)


def test_the_repeated_station_overlay_alone_still_loads():
    parsed = load_overlay(REPEATED_OVERLAY)
    graph = compile_graph(load_metro(REPEATED, allowed_repeats=parsed.allowed_repeats), parsed)
    assert graph.stations == ("A", "B", "C", "D", "E")


@st.composite
def split_networks(draw):
    """A random network, and an overlay splitting one shared station's lines into random groups."""
    lines, overlay = draw(networks())
    serving: dict[str, list[str]] = {}
    for line, stations in lines.items():
        for station in stations:
            serving.setdefault(station, []).append(line)
    shared = sorted(station for station, on in serving.items() if len(on) > 1)
    assume(shared)
    station = draw(st.sampled_from(shared))
    labels = draw(st.lists(st.integers(0, 2), min_size=len(serving[station]), max_size=len(serving[station])))
    assume(len(set(labels)) > 1)
    groups = [
        [line for line, label in zip(serving[station], labels) if label == wanted] for wanted in sorted(set(labels))
    ]
    overlay = {**overlay, "homonyms": [{"station": station, "groups": groups, "note": "drawn"}]}
    return lines, overlay, station, groups


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(split_networks())
def test_routes_over_a_split_station_change_lines_only_within_one_of_its_groups(case):
    lines, overlay, station, groups = case
    graph = graph_of(lines, overlay)
    split = {f"{station}@{group[0]}": tuple(group) for group in groups}
    assert station not in graph.stations
    assert {name: graph.lines_at(name) for name in split} == split
    for found in reference_routes(graph):
        expected = brute_force_cost(graph, found.source, found.target)
        for route in found.routes:
            check_route(graph, route, found.source, found.target)
            assert (route.transfers, route.stops) == expected
            for before, after in zip(route.segments, route.segments[1:]):
                if before.arrival_stop in split:  # a change of lines there stays within the group
                    assert {before.route_name, after.route_name} <= set(split[before.arrival_stop])

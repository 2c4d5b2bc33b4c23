"""Line topology: shapes compiled from lists and overlays, rides along a line."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphkit.cities import city_graph, city_names
from graphkit.metro import load_metro
from graphkit.overlays import Overlay, load_overlay
from graphkit.topology import LineTopology, compile_line
from tests.networks import (
    BRANCH,
    BRANCH_OVERLAY,
    CLOSED_LOOP,
    LOOP,
    LOOP_OVERLAY,
    ONE_LINE,
    ONE_STATION,
    REPEATED,
    REPEATED_OVERLAY,
)


def _compile(data: dict, overlay: dict | None = None) -> dict[str, LineTopology]:
    parsed = load_overlay(overlay)
    metro = load_metro(data, allowed_repeats=parsed.allowed_repeats)
    return {line.name: compile_line(line, parsed) for line in metro.lines}


def _ring(size: int, *, closed: bool) -> LineTopology:
    stations = [f"S{index}" for index in range(size)]
    if closed:
        return _compile({"Ring": stations + stations[:1]})["Ring"]
    return _compile({"Ring": stations}, {"loops": [{"line": "Ring", "note": "a loop"}]})["Ring"]


def _assert_ride(topology: LineTopology, source: str, target: str, via: tuple[str, ...]) -> None:
    """A ride is a walk along the line's adjacency that visits no station twice."""
    walk = (source, *via, target)
    assert len(set(walk)) == len(walk)
    for here, there in pairwise(walk):
        assert there in topology.adjacency[here]


def _assert_well_formed(topology: LineTopology) -> None:
    assert set(topology.adjacency) == set(topology.stations)
    assert len(set(topology.stations)) == len(topology.stations)
    for station, near in topology.adjacency.items():
        assert station not in near
        assert len(set(near)) == len(near)
        assert all(station in topology.adjacency[other] for other in near)


# -- shapes -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "overlay", "line", "shape"),
    [
        (ONE_STATION, None, "Line 1", "path"),
        (ONE_LINE, None, "Line 1", "path"),
        (LOOP, LOOP_OVERLAY, "Line 2", "loop"),
        (LOOP, LOOP_OVERLAY, "Line 9", "path"),
        (LOOP, None, "Line 2", "path"),
        (CLOSED_LOOP, None, "Circle", "loop"),
        (CLOSED_LOOP, {"loops": [{"line": "Circle", "note": "listed closed and declared"}]}, "Circle", "loop"),
        (BRANCH, BRANCH_OVERLAY, "Line B", "tree"),
        (BRANCH, BRANCH_OVERLAY, "Line C", "path"),
        (BRANCH, None, "Line B", "path"),
        (REPEATED, REPEATED_OVERLAY, "R", "irregular"),
    ],
)
def test_shape(data, overlay, line, shape):
    topology = _compile(data, overlay)[line]
    _assert_well_formed(topology)
    assert topology.shape == shape


def test_path_follows_the_list():
    topology = _compile(ONE_LINE)["Line 1"]
    listed = ONE_LINE["Line 1"]
    assert topology.stations == tuple(listed)
    assert topology.adjacency[listed[0]] == (listed[1],)
    assert topology.adjacency[listed[2]] == (listed[1], listed[3])


def test_overlay_loop_joins_the_ends_of_the_list():
    ring = _compile(LOOP, LOOP_OVERLAY)["Line 2"]
    listed = LOOP["Line 2"]
    assert listed[-1] in ring.adjacency[listed[0]]
    assert all(len(near) == 2 for near in ring.adjacency.values())


def test_closing_repeat_is_one_station():
    ring = _compile(CLOSED_LOOP)["Circle"]
    assert ring.stations == tuple(CLOSED_LOOP["Circle"][:-1])
    assert ring.adjacency[CLOSED_LOOP["Circle"][-2]] == (CLOSED_LOOP["Circle"][0], CLOSED_LOOP["Circle"][-3])


@pytest.mark.parametrize("size", [3, 4, 7, 8])
def test_loop_listed_open_or_closed_compiles_the_same(size):
    assert _ring(size, closed=True) == _ring(size, closed=False)


def test_repeated_station_joins_the_list_at_its_name():
    topology = _compile(REPEATED, REPEATED_OVERLAY)["R"]
    assert topology.stations == tuple(dict.fromkeys(REPEATED["R"]))
    assert set(topology.adjacency["B"]) == {"A", "C", "D", "E"}


def test_loop_overlay_for_another_line_changes_nothing():
    overlay = load_overlay({"loops": [{"line": "Line 9", "note": "not this one"}]})
    line = load_metro(LOOP).line("Line 2")
    assert compile_line(line, overlay) == compile_line(line, Overlay())


# -- branches ---------------------------------------------------------------------------------


def test_branch_hangs_on_its_junction_not_on_the_main_terminus():
    line = _compile(BRANCH, BRANCH_OVERLAY)["Line B"]
    assert "B1" not in line.adjacency["M3"]
    assert "B1" not in line.adjacency["M5"]
    assert "B1" in line.adjacency["M2"]
    assert set(line.adjacency["M2"]) == {"M1", "M3", "B1"}
    assert line.adjacency["M5"] == ("M4",)
    assert line.rides_from("M5")["B1"] == (4, (("M4", "M3", "M2"),))


def test_without_its_overlay_the_branch_reads_as_the_list():
    assert "B1" in _compile(BRANCH)["Line B"].adjacency["M5"]


def test_branch_to_the_end_of_the_list_needs_no_last():
    overlay = {"branches": [{"line": "Line B", "leaves_at": "M2", "first": "B1", "note": "to the end"}]}
    assert _compile(BRANCH, overlay)["Line B"] == _compile(BRANCH, BRANCH_OVERLAY)["Line B"]


def test_branch_listed_in_the_middle_rejoins_the_main_line():
    data = {"Line X": ["M0", "M1", "B1", "B2", "M2", "M3"]}
    overlay = {"branches": [{"line": "Line X", "leaves_at": "M1", "first": "B1", "last": "B2", "note": "a spur"}]}
    line = _compile(data, overlay)["Line X"]
    assert line.shape == "tree"
    assert set(line.adjacency["M1"]) == {"M0", "M2", "B1"}
    assert line.adjacency["B2"] == ("B1",)
    assert line.rides_from("M0")["M3"] == (3, (("M1", "M2"),))


# -- rides ------------------------------------------------------------------------------------


def test_rides_on_a_loop_take_the_shorter_way():
    ring = _compile(LOOP, LOOP_OVERLAY)["Line 2"]
    rides = ring.rides_from("L0")
    assert rides["L7"] == (1, ((),))
    assert rides["L6"] == (2, (("L7",),))
    assert rides["L2"] == (2, (("L1",),))


def test_opposite_stations_of_an_even_loop_have_two_ways():
    ring = _compile(LOOP, LOOP_OVERLAY)["Line 2"]
    stops, vias = ring.rides_from("L0")["L4"]
    assert stops == 4
    assert set(vias) == {("L1", "L2", "L3"), ("L7", "L6", "L5")}


@settings(max_examples=60)
@given(size=st.integers(min_value=3, max_value=14), data=st.data())
def test_loop_rides(size, data):
    ring = _ring(size, closed=data.draw(st.booleans()))
    assert ring.shape == "loop"
    source = data.draw(st.integers(0, size - 1))
    rides = ring.rides_from(f"S{source}")
    assert set(rides) == set(ring.stations) - {f"S{source}"}
    for offset in range(1, size):
        target = f"S{(source + offset) % size}"
        stops, vias = rides[target]
        assert stops == min(offset, size - offset)
        assert len(vias) == (2 if 2 * offset == size else 1)
        for via in vias:
            assert len(via) == stops - 1
            _assert_ride(ring, f"S{source}", target, via)


@settings(max_examples=60)
@given(size=st.integers(min_value=3, max_value=14), closed=st.booleans(), data=st.data())
def test_a_ride_on_a_listed_loop_is_the_searched_ride(size, closed, data):
    """A loop listed in its order rides arcs of the list, without the search: the same rides."""
    ring = _ring(size, closed=closed)
    source, target = (f"S{data.draw(st.integers(0, size - 1))}" for _ in range(2))
    expected = None if source == target else ring.rides_from(source)[target]
    assert ring.ride(source, target) == expected


def test_a_long_loop_rides_without_caching_every_ride():
    ring = _ring(20_000, closed=True)
    assert ring.ride("S1", "S19999") == (2, (("S0",),))
    stops, (via,) = ring.ride("S0", "S9000")
    assert (stops, via[0], via[-1]) == (9000, "S1", "S8999")
    stops, vias = ring.ride("S0", "S10000")
    assert stops == 10_000 and [(via[0], via[-1]) for via in vias] == [("S1", "S9999"), ("S19999", "S10001")]
    assert not ring._rides  # nothing of size 20,000 squared was kept


@settings(max_examples=60)
@given(size=st.integers(min_value=1, max_value=15), data=st.data())
def test_path_rides(size, data):
    stations = [f"P{index}" for index in range(size)]
    line = _compile({"Path": stations})["Path"]
    assert line.shape == "path"
    source = data.draw(st.integers(0, size - 1))
    rides = line.rides_from(stations[source])
    for target, (stops, vias) in rides.items():
        index = stations.index(target)
        assert stops == abs(index - source)
        between = stations[min(source, index) + 1 : max(source, index)]
        assert vias == ((tuple(between) if index > source else tuple(reversed(between))),)


def test_rides_from_the_only_station():
    assert _compile(ONE_STATION)["Line 1"].rides_from("Solo Station") == {}


def test_simple_rides_on_a_loop_go_both_ways():
    ring = _compile(LOOP, LOOP_OVERLAY)["Line 2"]
    rides = ring.simple_rides("L0", "L2", max_stops=len(ring.stations))
    assert rides == [("L1",), ("L7", "L6", "L5", "L4", "L3")]


@settings(max_examples=60)
@given(size=st.integers(min_value=3, max_value=12), data=st.data())
def test_simple_rides_on_a_loop_within_a_stop_limit(size, data):
    ring = _ring(size, closed=False)
    offset = data.draw(st.integers(1, size - 1))
    max_stops = data.draw(st.integers(1, size + 1))
    source, target = "S0", f"S{offset}"
    rides = ring.simple_rides(source, target, max_stops=max_stops)
    expected_lengths = sorted(stops for stops in {offset, size - offset} if stops <= max_stops)
    if offset * 2 == size and offset <= max_stops:
        expected_lengths = [offset, offset]
    assert [len(via) + 1 for via in rides] == expected_lengths
    for via in rides:
        _assert_ride(ring, source, target, via)


def test_simple_rides_on_a_tree_are_the_one_way():
    line = _compile(BRANCH, BRANCH_OVERLAY)["Line B"]
    assert line.simple_rides("M5", "B3", max_stops=20) == [("M4", "M3", "M2", "B1", "B2")]
    assert line.simple_rides("M5", "B3", max_stops=5) == []


# -- the embedded cities ------------------------------------------------------------------------


def test_rome_line_b_forks_at_bologna():
    line = city_graph("rome").lines["Line B"]
    assert line.shape == "tree"
    assert "S. Agnese Annibaliano Station" in line.adjacency["Bologna Station"]
    assert "S. Agnese Annibaliano Station" not in line.adjacency["Rebibbia Station"]
    assert line.adjacency["Rebibbia Station"] == ("Ponte Mammolo Station",)


def test_beijing_line_2_is_a_loop():
    line = city_graph("beijing").lines["Line 2"]
    assert line.shape == "loop"
    assert "车公庄站" in line.adjacency["西直门站"]
    assert len(line.rides_from("西直门站")) == len(line.stations) - 1


def test_dubai_red_line_forks_at_jabal_ali():
    line = city_graph("dubai").lines["Red Line"]
    assert line.shape == "tree"
    assert {"lbn Battuta Station", "The Gardens Station"} <= set(line.adjacency["Jabal Ali Station"])
    assert "lbn Battuta Station" not in line.adjacency["Expo 2020 Station"]


@pytest.mark.parametrize("city", city_names())
def test_every_embedded_line_is_well_formed_and_connected(city):
    graph = city_graph(city)
    for line in graph.metro.lines:  # stations as the overlay identifies them
        topology = graph.lines[line.name]
        _assert_well_formed(topology)
        assert topology.stations == tuple(dict.fromkeys(line.stations))
        source = topology.stations[0]
        rides = topology.rides_from(source)
        assert set(rides) == set(topology.stations) - {source}, line.name
        for target, (stops, vias) in rides.items():
            assert vias
            for via in vias:
                assert len(via) == stops - 1
                _assert_ride(topology, source, target, via)


@pytest.mark.parametrize("city", city_names())
def test_unmarked_embedded_lines_are_paths(city):
    graph = city_graph(city)
    for name, topology in graph.lines.items():
        if not graph.overlay.covers(name) and not graph.metro.line(name).closes_on_itself:
            assert topology.shape == "path", name

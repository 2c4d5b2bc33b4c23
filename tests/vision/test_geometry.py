"""Line walks, paths and proximity on hand-made coordinates."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.networks import BRANCH, BRANCH_OVERLAY, CLOSED_LOOP, LOOP, LOOP_OVERLAY, ONE_LINE, ONE_STATION, graph_of
from vision.evidence import LineEvidence, MapEvidence, StationEvidence
from vision.geometry import LineProximity, close_runs, line_paths, line_stations, lines_near, station_walk


def _hops(walk):
    return {frozenset(hop) for hop in zip(walk, walk[1:]) if hop[0] != hop[1]}


def _edges(adjacency):
    return {frozenset((a, b)) for a, near in adjacency.items() for b in near if a != b}


@pytest.mark.parametrize(
    "data, overlay",
    [(ONE_STATION, None), (ONE_LINE, None), (LOOP, LOOP_OVERLAY), (CLOSED_LOOP, None), (BRANCH, BRANCH_OVERLAY)],
)
def test_walks_draw_every_hop_and_only_hops(data, overlay):
    graph = graph_of(data, overlay)
    walks = line_stations(graph)
    assert set(walks) == set(graph.lines)
    for name, line in graph.lines.items():
        walk = walks[name]
        assert walk[0] == line.stations[0]
        assert set(walk) == set(line.stations)
        assert _hops(walk) == _edges(line.adjacency)


def test_a_path_walks_in_listed_order_and_a_loop_closes():
    walks = line_stations(graph_of(LOOP, LOOP_OVERLAY))
    assert walks["Line 9"] == ("X", "L2", "Y")
    assert walks["Line 2"] == ("L0", "L1", "L2", "L3", "L4", "L5", "L6", "L7", "L0")
    assert line_stations(graph_of(CLOSED_LOOP))["Circle"] == ("P0", "P1", "P2", "P3", "P4", "P5", "P0")


def test_a_branch_is_reached_by_retracing():
    walk = line_stations(graph_of(BRANCH, BRANCH_OVERLAY))["Line B"]
    assert walk == ("M0", "M1", "M2", "M3", "M4", "M5", "M4", "M3", "M2", "B1", "B2", "B3")


@st.composite
def trees(draw):
    """A random tree over stations 0..n-1, each joined to an earlier one, listed in a shuffled order."""
    size = draw(st.integers(1, 25))
    adjacency = {str(i): [] for i in range(size)}
    for child in range(1, size):
        parent = draw(st.integers(0, child - 1))
        adjacency[str(parent)].append(str(child))
        adjacency[str(child)].append(str(parent))
    extra = draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)), max_size=3))
    for a, b in extra:  # a few cycles
        if a != b and str(b) not in adjacency[str(a)]:
            adjacency[str(a)].append(str(b))
            adjacency[str(b)].append(str(a))
    order = draw(st.permutations(sorted(adjacency)))
    return adjacency, order


@given(trees())
def test_walks_of_random_lines_cover_each_hop_with_real_hops(line):
    adjacency, order = line
    walk = station_walk(adjacency, order)
    assert walk[0] == order[0]
    assert set(walk) == set(adjacency)
    assert _hops(walk) == _edges(adjacency)  # connected: no jumps, nothing left out
    assert all(a != b for a, b in zip(walk, walk[1:]))


def _found(points):
    return {name: StationEvidence(name, True, point) for name, point in points.items()}


def test_paths_skip_stations_not_found_and_loops_close():
    stations = _found({"A": (0.0, 0.0), "C": (10.0, 0.0), "D": (10.0, 10.0)})
    stations["B"] = StationEvidence("B", False)
    paths = line_paths(stations, {"1": ["A", "B", "C", "D", "A"], "2": ["B"], "3": ["C", "Unknown"]})
    assert paths == {"1": ((0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 0.0)), "2": (), "3": ((10.0, 0.0),)}


def _evidence(stations, paths):
    lines = {name: LineEvidence(name, "#000000", tuple(path)) for name, path in paths.items()}
    return MapEvidence("toy", _found(stations), lines)


# Line 1 along y = 0; line 2 along y = 6 for x in [40, 60], then away; line 3 far below; line 4 a single station.
STATIONS = {
    "A": (0.0, 0.0),
    "B": (50.0, 0.0),
    "C": (100.0, 0.0),
    "P": (40.0, 6.0),
    "Q": (60.0, 6.0),
    "R": (60.0, 80.0),
    "F": (0.0, 300.0),
    "G": (100.0, 300.0),
    "S": (3.0, 4.0),
}
PATHS = {
    "1": [STATIONS["A"], STATIONS["B"], STATIONS["C"]],
    "2": [STATIONS["P"], STATIONS["Q"], STATIONS["R"]],
    "3": [STATIONS["F"], STATIONS["G"]],
    "4": [STATIONS["S"]],
    "5": [],
}


def test_close_runs_measure_distances_and_name_the_stations_near_the_other_line():
    runs = close_runs(_evidence(STATIONS, PATHS), within=10)
    assert runs == [
        LineProximity("1", "4", 4.0, ("A",), ("S",)),
        LineProximity("1", "2", 6.0, ("B",), ("P", "Q")),
    ]
    assert all(run.distance <= 10 for run in runs)


def test_close_runs_within_a_distance():
    evidence = _evidence(STATIONS, PATHS)
    assert [(run.line_a, run.line_b) for run in close_runs(evidence, within=5)] == [("1", "4")]
    assert close_runs(evidence, within=3.9) == []
    far = close_runs(evidence, within=1000)
    assert len(far) == 6  # every pair of the four lines with a path
    assert far[-1].line_a == "3" or far[-1].line_b == "3"
    assert [run.distance for run in far] == sorted(run.distance for run in far)


def test_close_runs_follow_the_stations_a_line_serves():
    evidence = _evidence(STATIONS, PATHS)
    # said to serve P, line 1 no longer counts P as near it; B is still near line 2
    runs = close_runs(evidence, within=10, served={"1": ["A", "B", "C", "P"], "2": ["P", "Q", "R"], "4": ["S"]})
    pair = next(run for run in runs if (run.line_a, run.line_b) == ("1", "2"))
    assert pair.near_a == ("B",) and pair.near_b == ("Q",)


def test_crossing_lines_are_at_distance_zero():
    stations = {"W": (0.0, 50.0), "E": (100.0, 50.0), "N": (50.0, 0.0), "S": (50.0, 100.0)}
    evidence = _evidence(stations, {"H": [stations["W"], stations["E"]], "V": [stations["N"], stations["S"]]})
    assert close_runs(evidence, within=0) == [LineProximity("H", "V", 0.0, (), ())]


@pytest.mark.parametrize("within", [-1, float("nan"), float("inf")])
def test_close_runs_need_a_finite_distance(within):
    with pytest.raises(ValueError, match="within"):
        close_runs(_evidence(STATIONS, PATHS), within=within)


def test_lines_near_a_station_closest_first():
    evidence = _evidence(STATIONS, PATHS)
    assert lines_near(evidence, "S", within=10) == ("4", "1")
    assert lines_near(evidence, "B", within=10) == ("1", "2")
    assert lines_near(evidence, "B", within=5) == ("1",)
    assert lines_near(evidence, "Nowhere", within=10) == ()
    lost = MapEvidence("toy", {"B": StationEvidence("B", False)}, evidence.lines)
    assert lines_near(lost, "B", within=10) == ()


def test_lines_near_agrees_with_the_evidence_distances():
    evidence = _evidence(STATIONS, PATHS)
    for station in STATIONS:
        near = lines_near(evidence, station, within=50)
        for line in near:
            assert evidence.distance_to_line(station, line) <= 50
        for line in set(PATHS) - set(near) - {"5"}:
            assert evidence.distance_to_line(station, line) > 50

"""Metro Data to GTFS and back: the same lines, the same stations, in the same order."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphkit.cities import city_graph, city_names
from graphkit.graph import TransitGraph, compile_graph
from graphkit.gtfs import compile_feed
from graphkit.gtfs.export import feed_bytes
from graphkit.metro import load_metro
from graphkit.overlays import load_overlay
from graphkit.synth import synthesize_network


def _shape(graph: TransitGraph) -> dict:
    """Each line's stations as shown, in order along it: a path's list (either way round), else the pairs of
    neighbours with the line's shape (a loop, a branched tree)."""
    shown = graph.display_name
    found = {}
    for line, topology in graph.lines.items():
        if topology.shape == "path":
            order = [shown(s) for s in topology.stations]
            found[line] = ("path", tuple(min(order, order[::-1])))
        else:
            pairs = {frozenset((shown(a), shown(b))) for a, near in topology.adjacency.items() for b in near}
            found[line] = (topology.shape, frozenset(pairs))
    return found


def _round_trip(graph: TransitGraph, tmp_path) -> TransitGraph:
    feed = tmp_path / f"{graph.city or 'network'}.zip"
    feed.write_bytes(feed_bytes(graph))
    compiled = compile_feed(feed)
    overlay = load_overlay(json.loads(compiled.overlay_json))
    return compile_graph(load_metro(compiled.metro_json, allowed_repeats=overlay.allowed_repeats), overlay)


@pytest.mark.parametrize("city", city_names())
def test_every_embedded_city_comes_back_line_for_line(city, tmp_path):
    graph = city_graph(city)
    back = _round_trip(graph, tmp_path)
    assert list(back.lines) == list(graph.lines)
    assert _shape(back) == _shape(graph)
    for line, topology in graph.lines.items():
        if topology.shape == "path":  # listed the same way round
            assert [back.display_name(s) for s in back.lines[line].stations] == [
                graph.display_name(s) for s in topology.stations
            ]


@settings(deadline=None)
@given(
    stations=st.integers(30, 60),
    lines=st.integers(2, 5),
    loops=st.integers(0, 1),
    branches=st.integers(0, 2),
    seed=st.integers(0, 10_000),
    script=st.sampled_from(["latin", "cjk"]),
)
def test_synthetic_networks_with_loops_and_branches_come_back(
    tmp_path_factory, stations, lines, loops, branches, seed, script
):
    branches = min(branches, lines - loops)
    network = synthesize_network(
        stations=stations, lines=lines, loops=loops, branches=branches, seed=seed, script=script, city="synthetic"
    )
    graph = compile_graph(network.metro, network.overlay)
    back = _round_trip(graph, tmp_path_factory.mktemp("feed"))
    assert _shape(back) == _shape(graph)
    for line, topology in graph.lines.items():
        if topology.shape == "path":  # a plain line comes back in its listed order, the same way round
            assert [back.display_name(s) for s in back.lines[line].stations] == list(topology.stations)


def test_the_feed_is_a_valid_gtfs_feed_with_parents_transfers_and_colours():
    graph = city_graph("los_angeles")
    archive = zipfile.ZipFile(io.BytesIO(feed_bytes(graph)))
    tables = {
        name: list(csv.DictReader(io.TextIOWrapper(archive.open(name), encoding="utf-8")))
        for name in archive.namelist()
    }
    assert sorted(tables) == sorted(
        ["agency.txt", "stops.txt", "routes.txt", "trips.txt", "stop_times.txt", "calendar.txt", "transfers.txt"]
    )
    assert [route["route_short_name"] for route in tables["routes.txt"]] == list(graph.lines)
    parents = [stop for stop in tables["stops.txt"] if stop["location_type"] == "1"]
    assert len(parents) == len(graph.stations)
    platforms = {
        stop["stop_id"]: stop["parent_station"] for stop in tables["stops.txt"] if stop["location_type"] == "0"
    }
    assert all(stop["stop_id"] in platforms for stop in tables["stop_times.txt"])
    union = next(p["stop_id"] for p in parents if p["stop_name"] == "Union Station")
    # Union Station: the A, B and D lines, so 3 x 2 transfers between its platforms
    assert sum(platforms[t["from_stop_id"]] == union for t in tables["transfers.txt"]) == 6
    assert all(len(route["route_color"]) == 6 for route in tables["routes.txt"])
    assert feed_bytes(graph) == feed_bytes(city_graph("los_angeles"))  # the same bytes every time


def test_the_shipped_feed_is_what_the_toolkit_writes_and_compiles_back():
    """graphkit/data/gtfs/harbourside.zip is the export of a synthetic network (the README's walk-through)."""
    from pathlib import Path

    import graphkit

    shipped = Path(graphkit.__file__).parent / "data" / "gtfs" / "harbourside.zip"
    network = synthesize_network(
        stations=40, lines=4, loops=1, branches=1, seed=7, city="harbourside", country="synthetic"
    )
    graph = compile_graph(network.metro, network.overlay)
    assert shipped.read_bytes() == feed_bytes(graph)
    compiled = compile_feed(shipped)
    assert (compiled.city, compiled.lines, compiled.stations) == ("harbourside", 4, 40)
    overlay = json.loads(compiled.overlay_json)
    assert [loop["line"] for loop in overlay["loops"]] == ["Line 1"]
    assert [(b["line"], b["leaves_at"]) for b in overlay["branches"]] == [("Line 4", "Weswiertthay Common")]

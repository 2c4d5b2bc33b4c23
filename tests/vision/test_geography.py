"""A compiled real city is drawn in its feed's colours and keeps its geography; other networks as before."""

from __future__ import annotations

import json

import numpy as np
import pytest

from graphkit.cities import city_graph
from graphkit.graph import compile_graph
from graphkit.gtfs import compile_feed
from graphkit.metro import load_metro
from graphkit.overlays import load_overlay
from tests.graphkit.gtfs_feeds import trip, write_feed
from tests.shared import SHARED_DATA
from vision.geography import confusable_colours, feed_colours, geographic_coords
from vision.render import render_map


def _spearman(a: list[float], b: list[float]) -> float:
    """Rank correlation (ties: mean rank), written out here."""

    def ranks(values: list[float]) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        found = np.empty(len(values))
        found[values.argsort(kind="stable")] = np.arange(len(values))
        for value in np.unique(values):
            found[values == value] = found[values == value].mean()
        return found

    return float(np.corrcoef(ranks(a), ranks(b))[0, 1])


def _city(tmp_path):
    # a cross: a red line west to east along 40.70 N, a blue one south to north along 74.00 W, meeting at M;
    # stations unevenly spaced, as real ones are
    west_east = [("W3", -74.05), ("W2", -74.03), ("W1", -74.012), ("M", -74.0), ("E1", -73.99), ("E2", -73.96)]
    south_north = [("S2", 40.64), ("S1", 40.69), ("N1", 40.705), ("N2", 40.72), ("N3", 40.76)]
    stops = [(name, name, 40.70, lon) for name, lon in west_east]
    stops += [(name, name, lat, -74.0) for name, lat in south_north]
    trips = [trip("r", "R", [name for name, _ in west_east])]
    trips += [trip("b", "B", ["S2", "S1", "M", "N1", "N2", "N3"])]
    feed = write_feed(
        tmp_path / "cross",
        stops=stops,
        routes=[("R", "Red", "", "1", "D93A30"), ("B", "Blue", "", "1", "4D92FB")],
        trips=trips,
    )
    compiled = compile_feed(feed)
    overlay = load_overlay(json.loads(compiled.overlay_json))
    return compile_graph(load_metro(compiled.metro_json, city="cross"), overlay), stops


def test_a_compiled_city_is_drawn_in_its_colours_and_geography(tmp_path):
    graph, stops = _city(tmp_path)
    truth = render_map(graph, seed=0).truth
    assert {line: record["color"] for line, record in truth["lines"].items()} == {"Red": "#d93a30", "Blue": "#4d92fb"}
    where = {name: (lat, lon) for name, _, lat, lon in stops}
    names = sorted(truth["stations"])
    xs = [truth["stations"][name]["x"] for name in names]
    ys = [truth["stations"][name]["y"] for name in names]
    assert _spearman(xs, [where[name][1] for name in names]) >= 0.9  # east is right
    assert _spearman(ys, [-where[name][0] for name in names]) >= 0.9  # north is up


def test_a_network_without_places_or_styles_is_drawn_as_before():
    rome = city_graph("rome")
    assert feed_colours(rome) is None and geographic_coords(rome) is None


def test_colours_a_map_cannot_tell_apart_are_reported():
    assert confusable_colours({"New Haven": "#ee0034", "Danbury": "#ee0034", "Hudson": "#009b3a"}) == [
        ("New Haven", "Danbury", 0.0)
    ]
    assert confusable_colours({"Red": "#d93a30", "Blue": "#4d92fb"}) == []


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED_DATA / "gtfs" / "la_metro_rail.zip").is_file(), reason="no shared GTFS feeds here")
def test_la_is_drawn_as_la_without_crossings():
    from vision.map_quality import map_quality

    compiled = compile_feed(SHARED_DATA / "gtfs" / "la_metro_rail.zip")
    overlay = load_overlay(json.loads(compiled.overlay_json))
    graph = compile_graph(load_metro(compiled.metro_json, city="la"), overlay)
    truth = render_map(graph, seed=0).truth
    places = {place.station: place for place in overlay.places}
    names = sorted(truth["stations"])
    xs = [truth["stations"][name]["x"] for name in names]
    ys = [truth["stations"][name]["y"] for name in names]
    assert _spearman(xs, [places[name].lon for name in names]) >= 0.9
    assert _spearman(ys, [-places[name].lat for name in names]) >= 0.9
    quality = map_quality(truth)
    crossings = ("leader_label", "leader_line", "line_label", "leader_marker", "line_marker")
    assert [quality[name] for name in crossings] == [0] * 5
    assert truth["lines"]["Metro B Line"]["color"] == "#eb131b"  # the feed's red

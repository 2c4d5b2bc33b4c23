"""Topology overlays: reading, shape checks and the embedded overlays."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from graphkit.cities import city_graph, city_names, city_path, load_city
from graphkit.errors import InvalidOverlay
from graphkit.metro import load_metro
from graphkit.overlays import Branch, Loop, Overlay, RepeatedStation, UnlistedBranch, load_overlay, overlay_path_for
from graphkit.topology import compile_line
from tests.networks import BRANCH, BRANCH_OVERLAY, LOOP, LOOP_OVERLAY, REPEATED, REPEATED_OVERLAY

FULL_OVERLAY = {
    "loops": [{"line": "Line 2", "note": "a loop"}],
    "branches": [{"line": "Line B", "leaves_at": "M2", "first": "B1", "last": "B3", "note": "a branch"}],
    "unlisted_branches": [{"line": "Line C", "at": "M4", "note": "an unlisted branch"}],
    "repeated_stations": [{"line": "R", "station": "B", "note": "two stations named B"}],
}
CITIES_WITH_OVERLAYS = tuple(city for city in city_names() if overlay_path_for(city_path(city)).exists())


def _compile(data: dict, overlay: dict) -> dict:
    parsed = load_overlay(overlay)
    metro = load_metro(data, allowed_repeats=parsed.allowed_repeats)
    return {line.name: compile_line(line, parsed, source=metro.source) for line in metro.lines}


# -- reading ---------------------------------------------------------------------------


def test_no_overlay_is_an_empty_one():
    assert load_overlay(None) == Overlay()
    assert load_overlay({}) == Overlay(source="<dict>")
    assert not Overlay().covers("Line 1")
    assert Overlay().allowed_repeats == ()


def test_every_section_is_read_into_its_entries():
    overlay = load_overlay(FULL_OVERLAY)
    assert overlay.source == "<dict>"
    assert overlay.loops == (Loop(line="Line 2", note="a loop"),)
    assert overlay.branches == (Branch(line="Line B", leaves_at="M2", first="B1", last="B3", note="a branch"),)
    assert overlay.unlisted_branches == (UnlistedBranch(line="Line C", at="M4", note="an unlisted branch"),)
    assert overlay.repeated_stations == (RepeatedStation(line="R", station="B", note="two stations named B"),)
    assert overlay.allowed_repeats == (("R", "B"),)
    assert all(overlay.covers(line) for line in ("Line 2", "Line B", "Line C", "R"))
    assert not overlay.covers("Line 9")


def test_branch_last_is_optional():
    entry = {"line": "Line B", "leaves_at": "M2", "first": "B1", "note": "to the end of the list"}
    assert load_overlay({"branches": [entry]}).branches[0].last is None


def test_overlay_from_a_file(tmp_path):
    path = tmp_path / "city.overlay.json"
    path.write_text(json.dumps(FULL_OVERLAY), encoding="utf-8")
    for source in (path, str(path)):
        assert load_overlay(source) == replace(load_overlay(FULL_OVERLAY), source=str(path))


def test_overlay_path_sits_beside_the_metro_data(tmp_path):
    assert overlay_path_for(tmp_path / "rome.json") == tmp_path / "rome.overlay.json"


# -- validation --------------------------------------------------------------------------


def _loop(**changes):
    return {"line": "Line 2", "note": "a loop", **changes}


def _branch(**changes):
    entry = {"line": "Line B", "leaves_at": "M2", "first": "B1", "last": "B3", "note": "a branch"}
    entry.update(changes)
    return {key: value for key, value in entry.items() if value is not ...}


@pytest.mark.parametrize(
    ("overlay", "fragments"),
    [
        ({"loop": [_loop()]}, ["unknown section", "'loop'", "'loops'", "'branches'"]),
        ({"loops": [_loop()], "junctions": []}, ["unknown section", "'junctions'"]),
        ({"loops": _loop()}, ["loops", "expected a list"]),
        ({"loops": ["Line 2"]}, ["loops #1", "expected an object"]),
        ({"loops": [_loop(), {"line": "Line 3"}]}, ["loops #2", "missing ['note']"]),
        ({"branches": [_branch(leaves_at=...)]}, ["branches #1", "missing ['leaves_at']"]),
        ({"branches": [_branch(first=..., note=...)]}, ["branches #1", "'first'", "'note'"]),
        ({"loops": [_loop(direction="clockwise")]}, ["loops #1", "unexpected ['direction']"]),
        ({"loops": [_loop(line=2)]}, ["loops #1", "non-empty string"]),
        ({"loops": [_loop(note="")]}, ["loops #1", "non-empty string"]),
        ({"branches": [_branch(first=["B1"])]}, ["branches #1", "non-empty string"]),
        ({"branches": [_branch(last="")]}, ["branches #1", "non-empty string"]),
        ({"unlisted_branches": [{"line": "Line C", "at": 5, "note": "n"}]}, ["unlisted_branches #1", "non-empty"]),
        ({"repeated_stations": [{"line": "R", "station": "B"}]}, ["repeated_stations #1", "missing ['note']"]),
    ],
)
def test_malformed_overlay_names_section_and_entry(tmp_path, overlay, fragments):
    path = tmp_path / "city.overlay.json"
    path.write_text(json.dumps(overlay), encoding="utf-8")
    for source, label in ((overlay, "<dict>"), (path, str(path))):
        with pytest.raises(InvalidOverlay) as raised:
            load_overlay(source)
        message = str(raised.value)
        assert message.startswith(label)
        for fragment in fragments:
            assert fragment in message


def test_overlay_that_is_not_an_object(tmp_path):
    path = tmp_path / "city.overlay.json"
    path.write_text(json.dumps([_loop()]), encoding="utf-8")
    with pytest.raises(InvalidOverlay, match="must be a JSON object"):
        load_overlay(path)


def test_overlay_file_with_invalid_json(tmp_path):
    path = tmp_path / "city.overlay.json"
    path.write_text('{"loops": [', encoding="utf-8")
    with pytest.raises(InvalidOverlay, match="not valid JSON at line 1, column 12") as raised:
        load_overlay(path)
    assert str(path) in str(raised.value)


def test_missing_overlay_file(tmp_path):
    path = tmp_path / "missing.overlay.json"
    with pytest.raises(InvalidOverlay, match="no such overlay file") as raised:
        load_overlay(path)
    assert str(path) in str(raised.value)


def test_invalid_overlay_is_a_value_error():
    with pytest.raises(ValueError):
        load_overlay({"loop": []})


# -- contradictions with the Metro Data (found when the line is compiled) -------------------


@pytest.mark.parametrize(
    ("overlay", "fragments"),
    [
        ({"branches": [_branch(leaves_at="M9")]}, ["'Line B'", "'M9'", "not on the line"]),
        ({"branches": [_branch(first="C0")]}, ["'Line B'", "'C0'", "not on the line"]),
        ({"branches": [_branch(last="Z")]}, ["'Line B'", "'Z'", "not on the line"]),
        ({"branches": [_branch(first="B3", last="B1")]}, ["'Line B'", "'B3'", "'B1'", "comes before"]),
        ({"branches": [_branch(leaves_at="B2")]}, ["'Line B'", "'B2'", "inside the branch"]),
        ({"branches": [_branch(leaves_at="M4", first="M3", last="M5")]}, ["'M4'", "inside the branch"]),
        ({"unlisted_branches": [{"line": "Line B", "at": "C0", "note": "n"}]}, ["'Line B'", "'C0'", "not on the line"]),
    ],
)
def test_overlay_contradicting_the_line_is_refused(overlay, fragments):
    with pytest.raises(InvalidOverlay) as raised:
        _compile(BRANCH, overlay)
    message = str(raised.value)
    assert message.startswith("<dict>")
    for fragment in fragments:
        assert fragment in message


def test_repeated_station_overlay_lets_the_data_load():
    with pytest.raises(ValueError, match="repeated"):
        load_metro(REPEATED)
    assert load_metro(REPEATED, allowed_repeats=load_overlay(REPEATED_OVERLAY).allowed_repeats).line("R")


def test_shared_overlays_are_valid():
    for data, overlay in ((LOOP, LOOP_OVERLAY), (BRANCH, BRANCH_OVERLAY), (REPEATED, REPEATED_OVERLAY)):
        compiled = _compile(data, overlay)
        assert all(load_overlay(overlay).covers(name) or compiled[name].shape == "path" for name in compiled)


# -- the embedded overlays --------------------------------------------------------------------


def test_some_cities_have_overlays():
    assert {"beijing", "rome", "shanghai", "dubai", "new_york"} <= set(CITIES_WITH_OVERLAYS)


@pytest.mark.parametrize("city", CITIES_WITH_OVERLAYS)
def test_embedded_overlay_names_lines_and_stations_that_exist(city):
    metro, overlay = load_city(city)
    assert overlay.source == str(overlay_path_for(city_path(city)))
    named = [
        *((entry.line, ()) for entry in overlay.loops),
        *((entry.line, (entry.leaves_at, entry.first, entry.last)) for entry in overlay.branches),
        *((entry.line, (entry.at,)) for entry in overlay.unlisted_branches),
        *((entry.line, (entry.station,)) for entry in overlay.repeated_stations),
    ]
    spelt = {spelling: alias.station for alias in overlay.aliases for spelling in alias.spellings}
    stations = {spelt.get(name, name) for name in metro.station_names}
    decided = [
        *(alias.spellings for alias in overlay.aliases),
        *((entry.station,) for entry in (*overlay.homonyms, *overlay.interchanges)),
        *(entry.stations for entry in overlay.distinct),
    ]
    assert named or decided
    assert all(name in stations or name in spelt for names in decided for name in names)
    for line, stations in named:
        assert line in metro.line_names
        listed = metro.line(line).stations
        assert all(station in listed for station in stations if station is not None)
    for entry in overlay.repeated_stations:
        assert metro.line(entry.line).stations.count(entry.station) == 2


@pytest.mark.parametrize("city", CITIES_WITH_OVERLAYS)
def test_embedded_overlay_entries_carry_notes(city):
    _, overlay = load_city(city)
    for group in (
        overlay.loops,
        overlay.branches,
        overlay.unlisted_branches,
        overlay.repeated_stations,
        overlay.aliases,
        overlay.homonyms,
        overlay.interchanges,
        overlay.distinct,
    ):
        assert all(entry.note.strip() for entry in group)


@pytest.mark.parametrize("city", city_names())
def test_every_embedded_city_compiles_with_its_overlay(city):
    graph = city_graph(city)
    for entry in graph.overlay.loops:
        assert graph.lines[entry.line].shape == "loop"
    for entry in graph.overlay.branches:
        assert entry.first in graph.lines[entry.line].adjacency[entry.leaves_at]

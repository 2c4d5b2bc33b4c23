"""The compiler on the agencies' own feeds and the malformed feeds of GTFS tools (../shared/data/gtfs; the
tests skip where it is absent). Expected values come from the shared README, not from the compiler."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter

import pytest

from graphkit.cities import city_graph
from graphkit.graph import compile_graph
from graphkit.gtfs import InvalidFeed, compile_feed
from graphkit.metro import load_metro
from graphkit.overlays import load_overlay
from tests.shared import SHARED_DATA

GTFS = SHARED_DATA / "gtfs"
pytestmark = pytest.mark.skipif(not (GTFS / "la_metro_rail.zip").is_file(), reason="no shared GTFS feeds here")

# the README's renamed stations (Metro Data name: feed name)
_LA_RENAMED = {
    "Lincoln/Cypress": "Lincoln Heights / Cypress Park",
    "Long Beach Bl": "Lynwood",
    "Aviation/LAX": "Aviation / Imperial",
    "Expo/La Brea": "Expo / La Brea / Ethel Bradley",
    "Mariachi Plaza": "Mariachi Plaza / Boyle Heights",
}
# the Metro Data abbreviates where the feed spells out
_SPELLED = (("Street", "St"), ("Center", "Ctr"), ("Universal City", "Universal"), ("Blvd", "Bl"), ("Ave", "Av"))
_SPELLED += (("Square", "Sq"), (" - ", "/"), ("Freeway", "Fwy"), ("Heritage Sq/Arroyo", "Heritage Sq"))
_SPELLED += (("Arts District", "Arts Dist"), ("Place", "Pl"))


def _key(name: str) -> str:
    name = name.split("@")[0]
    while name.endswith(" Station"):
        name = name.removesuffix(" Station")
    name = re.sub(r"\s*/\s*", "/", _LA_RENAMED.get(name, name))
    for long, short in _SPELLED:
        name = name.replace(long, short)
    return re.sub(r"\s*/\s*", "/", name).casefold()


def _graph(compiled):
    overlay = load_overlay(json.loads(compiled.overlay_json))
    metro = load_metro(compiled.metro_json, city=compiled.city, allowed_repeats=overlay.allowed_repeats)
    return compile_graph(metro, overlay)


@pytest.fixture(scope="module")
def la():
    return _graph(compile_feed(GTFS / "la_metro_rail.zip"))


@pytest.mark.parametrize(("embedded", "compiled"), [("Line B", "Metro B Line"), ("Line D", "Metro D Line")])
def test_la_b_and_d_match_the_metro_data_station_for_station(la, embedded, compiled):
    truth = city_graph("los_angeles")
    assert [_key(s) for s in la.lines[compiled].stations] == [_key(s) for s in truth.lines[embedded].stations]


def test_la_fewest_transfers_equal_on_every_pair_both_have(la):
    truth = city_graph("los_angeles")
    ours, theirs = {_key(s): s for s in la.stations}, {_key(s): s for s in truth.stations}
    common = sorted(set(ours) & set(theirs))
    # every station of the Metro Data is in the feed; the feed adds the Foothill extension and LAX/Metro Transit Center
    assert len(common) == len(truth.stations) == 102
    assert sorted(set(ours) - set(theirs)) == [
        "glendora",
        "la verne/fairplex",
        "lax/metro transit ctr",
        "pomona north",
        "san dimas",
    ]
    differ = [
        (a, b)
        for a, b in itertools.permutations(common, 2)
        if truth.least_cost(theirs[a], theirs[b])[0] != la.least_cost(ours[a], ours[b])[0]
    ]
    assert differ == []


def test_new_york_1_and_2_match_the_metro_data_station_for_station():
    graph = _graph(compile_feed(GTFS / "nyc_subway_1_2.zip"))
    truth = city_graph("new_york")
    spelled = {
        "168 St-Washington Hts": "168 St",
        "34 St-Penn Station": "34 St-Penn",
        "WTC Cortlandt": "WTC Cortlandt St",
    }

    def key(name: str) -> str:
        name = name.split("@")[0].removesuffix(" Station")
        return _key(spelled.get(name, name)).replace(" (", "(")

    for line in ("1", "2"):
        assert [key(s) for s in graph.lines[line].stations] == [key(s) for s in truth.lines[line].stations]
    assert len(graph.lines["2"].stations) == 49


def test_baltimore_light_rail_is_one_branched_line():
    compiled = compile_feed(GTFS / "baltimore_light_raillink.zip")
    overlay = json.loads(compiled.overlay_json)
    forks = {(b["leaves_at"], b["first"], b["last"]) for b in overlay["branches"]}
    # Hunt Valley to BWI Airport or Glen Burnie, and the Penn Station spur (the README); 34 parents, two of
    # them one Penn Station
    assert forks == {
        ("Linthicum", "Ferndale", "Glen Burnie (Cromwell)"),
        ("Mt. Royal / MICA", "Penn Station", "Penn Station"),
    }
    assert compiled.lines == 1 and compiled.stations == 33
    line = _graph(compiled).lines["Light Raillink"]
    assert line.shape == "tree" and line.adjacency["Hunt Valley"] == ("Pepper Road",)
    assert sorted(line.adjacency["Linthicum"]) == ["BWI Business District", "Ferndale", "North Linthicum"]


def test_path_stops_of_one_name_are_one_station_and_atw_one_line():
    compiled = compile_feed(GTFS / "path_nynj.zip")
    assert compiled.stations == 13
    assert sorted(json.loads(compiled.metro_json)) == ["ATW", "BLU", "GRE", "RED", "YEL"]


_EDGE = sorted(path.name for path in (GTFS / "edge").glob("*.zip")) if (GTFS / "edge").is_dir() else []
# what each malformed feed's one line says (file, row, field), from the shared README's list
_EXPECTED = {
    "gtfskit_sample_no_rail.zip": "no rail route",
    "mobilitydata_nested_folders_sample.zip": "missing agency.txt",
    "mobilitydata_valid_zip_sample.zip": "missing stops.txt",
    "transitfeed_bad_eol.zip": "no rail route",
    "transitfeed_bad_utf8.zip": "agency.txt: row 1: not UTF-8",
    "transitfeed_contains_null.zip": "stops.txt: row 2",
    "transitfeed_duplicate_stop_sequence.zip": "stop_times.txt: row 4, field 'stop_sequence'",
    "transitfeed_empty_file.zip": "agency.txt: row 1: the file is empty",
    "transitfeed_extra_row_cells.zip": "routes.txt: row 4: 7 fields",
    "transitfeed_good_feed.zip": "no rail route",
    "transitfeed_missing_column.zip": "agency.txt: row 1: missing column 'agency_name'",
    "transitfeed_missing_endpoint_times.zip": "stop_times.txt: row 16, field 'departure_time'",
    "transitfeed_missing_routes.zip": "missing routes.txt",
    "transitfeed_missing_row_cells.zip": "routes.txt: row 4: 6 fields",
    "transitfeed_missing_stop_times.zip": "missing stop_times.txt",
    "transitfeed_negative_stop_sequence.zip": "stop_times.txt: row 9, field 'stop_sequence'",
    "transitfeed_only_calendar_dates.zip": "no rail route",
    "transitfeed_undefined_stop.zip": "stop_times.txt: row 11, field 'stop_id'",
    "transitfeed_unknown_format.zip": "not a GTFS feed",
    "transitfeed_utf16.zip": "agency.txt: row 1: the file is UTF-16",
    "transitfeed_utf8bom.zip": "no rail route",
}


@pytest.mark.parametrize("name", _EDGE)
def test_every_edge_feed_is_one_line_or_compiles(name):
    if name == "transitfeed_flatten_feed.zip":  # valid, with rail routes of several types
        assert compile_feed(GTFS / "edge" / name).lines == 4
        return
    with pytest.raises(InvalidFeed) as caught:
        compile_feed(GTFS / "edge" / name)
    message = str(caught.value)
    assert "\n" not in message and name in message and _EXPECTED[name] in message


def test_new_york_1_and_2_fewest_transfers_equal_those_of_the_metro_data_on_those_lines():
    graph = _graph(compile_feed(GTFS / "nyc_subway_1_2.zip"))
    truth = city_graph("new_york")
    # the Metro Data's lines 1 and 2 alone, their stations by identity (a homonym's name@line stays apart)
    alone = compile_graph(load_metro({line: list(truth.lines[line].stations) for line in ("1", "2")}))
    spelled = {
        "168 St-Washington Hts": "168 St",
        "34 St-Penn Station": "34 St-Penn",
        "WTC Cortlandt": "WTC Cortlandt St",
    }

    def keys(stations) -> dict[str, str]:
        """Each station by its name's key; a name two of them share (125 St) by name@line."""
        named = {}
        for station in stations:
            name, _, line = station.partition("@")
            name = name.removesuffix(" Station")
            named[station] = (_key(spelled.get(name, name)).replace(" (", "("), line)
        shared = Counter(name for name, _ in named.values())
        return {name + (f"@{line}" if shared[name] > 1 else ""): s for s, (name, line) in named.items()}

    ours, theirs = keys(graph.stations), keys(alone.stations)
    assert set(ours) == set(theirs) and len(ours) == 81
    differ = [
        (a, b) for a, b in itertools.permutations(sorted(ours), 2)
        if graph.least_cost(ours[a], ours[b])[0] != alone.least_cost(theirs[a], theirs[b])[0]
    ]  # fmt: skip
    assert differ == []

"""The GTFS compiler's rules, each on a small feed written here; expected lines written out by hand."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from graphkit.gtfs import CompileOptions, InvalidFeed, compile_feed
from graphkit.gtfs.names import rider_name
from graphkit.metro import load_metro
from graphkit.overlays import load_overlay
from tests.graphkit.gtfs_feeds import trip, write_feed


def _stations(prefix: str, names: str, lat: float = 40.0) -> list[tuple]:
    """Stops ``prefix + letter`` named by the letter, 1.1 km apart northwards."""
    return [(f"{prefix}{name}", name, round(lat + 0.01 * n, 4), -74.0) for n, name in enumerate(names)]


def _compiled(tmp_path: Path, **feed) -> tuple[dict, dict]:
    compiled = compile_feed(write_feed(tmp_path / "feed", **feed), feed_options := CompileOptions())
    del feed_options
    return json.loads(compiled.metro_json), json.loads(compiled.overlay_json)


def _clean(listed: list[str]) -> list[str]:
    return [name.replace(" (Transfer Station)", "").replace(" (Branch-starting Station)", "") for name in listed]


def test_platforms_are_their_parent_station(tmp_path):
    stops = [
        ("A", "Alpha", 40.0, -74.0, "1"),
        ("A1", "Alpha", 40.0, -74.0, "0", "A"),
        ("A2", "Alpha", 40.0, -74.0, "0", "A"),
        ("B", "Beta", 40.01, -74.0, "1"),
        ("B1", "Beta", 40.01, -74.0, "0", "B"),
        ("B2", "Beta", 40.01, -74.0, "0", "B"),
    ]
    metro, overlay = _compiled(
        tmp_path,
        stops=stops,
        routes=[("R", "R", "", "1")],
        trips=[trip("t1", "R", ["A1", "B1"]), trip("t2", "R", ["B2", "A2"])],
    )
    assert metro == {"R": ["Alpha", "Beta"]}
    (alpha, _) = overlay["places"]
    assert alpha["station"] == "Alpha" and alpha["note"] == "stop A"


def test_same_name_stops_within_a_walk_are_one_station_and_far_ones_homonyms(tmp_path):
    # PATH-like: one stop per direction, no parents; "Gamma" twice 2.2 km apart on two lines
    stops = [
        ("A+", "Alpha", 40.0, -74.0),
        ("A-", "Alpha", 40.0001, -74.0),
        ("B+", "Beta", 40.01, -74.0),
        ("B-", "Beta", 40.0101, -74.0),
        ("G1", "Gamma", 40.02, -74.0),
        ("G2", "Gamma", 40.04, -74.0),
        ("D", "Delta", 40.03, -74.0),
    ]
    metro, overlay = _compiled(
        tmp_path,
        stops=stops,
        routes=[("R", "R", "", "1"), ("S", "S", "", "1")],
        trips=[trip("t1", "R", ["A+", "B+", "G1"]), trip("t2", "R", ["G1", "B-", "A-"]), trip("t3", "S", ["D", "G2"])],
    )
    assert _clean(metro["R"]) == ["Alpha", "Beta", "Gamma"] and _clean(metro["S"]) == ["Delta", "Gamma"]
    assert overlay["homonyms"][0]["station"] == "Gamma"
    assert overlay["homonyms"][0]["groups"] == [["R"], ["S"]]
    assert "(Transfer Station)" not in metro["R"][2]  # two stations, no interchange


def test_routes_sharing_a_short_name_are_one_line(tmp_path):
    metro, _ = _compiled(
        tmp_path,
        stops=_stations("", "ABCD"),
        routes=[("R1", "ATW", "x", "1"), ("R2", "ATW", "y", "1")],
        trips=[
            trip("t1", "R1", ["A", "B", "C", "D"]),
            trip("t2", "R1", ["A", "B", "C", "D"]),
            trip("t3", "R2", ["A", "B", "C", "D"]),
        ],
    )
    assert list(metro) == ["ATW"]


def test_a_frequent_fork_is_a_branch_and_a_rare_one_is_left_to_the_lines_serving_it(tmp_path):
    # trunk A-B-C-D (5 trips), fork at B to E-F (2 trips: a branch), fork at C to X (1 trip, X on line S: left out)
    stops = _stations("", "ABCDEFX")
    trips = [trip(f"m{n}", "R", list("ABCD")) for n in range(5)]
    trips += [trip(f"b{n}", "R", list("ABEF")) for n in range(2)]
    trips += [trip("x", "R", list("ABCX")), trip("s", "S", list("XD"))]
    metro, overlay = _compiled(tmp_path, stops=stops, routes=[("R", "R", "", "0"), ("S", "S", "", "0")], trips=trips)
    assert _clean(metro["R"]) == ["A", "B", "C", "D", "E", "F"]
    assert metro["R"][1] == "B (Branch-starting Station)"
    (branch,) = overlay["branches"]
    assert (branch["leaves_at"], branch["first"], branch["last"]) == ("B", "E", "F")
    assert "X (1)" in overlay["line_styles"][0]["note"]
    graph_metro = load_metro(json.dumps(metro), allowed_repeats=())
    assert graph_metro.line("R").stations[-2:] == ("E", "F")


def test_a_pattern_closing_on_itself_is_a_loop(tmp_path):
    metro, overlay = _compiled(
        tmp_path,
        stops=_stations("", "ABCD"),
        routes=[("C", "Circle", "", "1")],
        trips=[trip("t1", "C", list("ABCDA")), trip("t2", "C", list("ABCDA"))],
    )
    assert metro == {"Circle": ["A", "B", "C", "D"]}
    assert [loop["line"] for loop in overlay["loops"]] == ["Circle"]


def test_skip_stop_short_turn_and_late_night_patterns_are_services_of_the_line(tmp_path):
    # trunk A..F (5 trips); skip-stop A-C-E-F, short turn B-D, and a late-night local that also stops at
    # X between C and D, which line S serves: the line stays A..F
    stops = _stations("", "ABCDEFXY")
    trips = [trip(f"m{n}", "R", list("ABCDEF")) for n in range(5)]
    trips += [trip("skip", "R", list("ACEF")), trip("short", "R", list("BCD")), trip("night", "R", list("ABCXDEF"))]
    trips += [trip("s", "S", list("XY"))]
    metro, _ = _compiled(tmp_path, stops=stops, routes=[("R", "R", "", "1"), ("S", "S", "", "1")], trips=trips)
    assert _clean(metro["R"]) == list("ABCDEF")


def test_stops_only_a_rare_pattern_makes_join_the_line_when_no_other_line_serves_them(tmp_path):
    # Metro-North's locals: the most frequent pattern skips C, which only the local serves
    trips = [trip(f"e{n}", "R", list("ABD")) for n in range(5)] + [trip("local", "R", list("ABCD"))]
    metro, _ = _compiled(tmp_path, stops=_stations("", "ABCD"), routes=[("R", "R", "", "2")], trips=trips)
    assert metro["R"] == list("ABCD")


def test_a_one_way_loop_at_a_terminal_is_listed_beyond_it(tmp_path):
    # LA's A Line: out A-B-C-D-E, back E-P-C-B-A (P only on the way back)
    trips = [trip("out", "R", list("ABCDE")), trip("back", "R", list("EPCBA"))]
    metro, _ = _compiled(tmp_path, stops=_stations("", "ABCDEP"), routes=[("R", "R", "", "0")], trips=trips)
    assert metro["R"] in (list("ABCDEP"), list("PEDCBA"))


def test_transfers_and_shared_stations_make_interchanges(tmp_path):
    stops = _stations("", "ABC") + [("X", "Ex", 40.0, -74.001), ("Y", "Why", 40.05, -74.0)]
    metro, _ = _compiled(
        tmp_path,
        stops=stops,
        routes=[("R", "R", "", "1"), ("S", "S", "", "1")],
        trips=[trip("r", "R", list("ABC")), trip("s", "S", ["X", "Y"])],
        transfers=[("A", "X")],
    )
    assert metro["R"][0] == "A (Transfer Station)" and metro["S"][0] == "A (Transfer Station)"


def test_names_as_riders_read_them_and_the_feeds_spelling_kept():
    assert rider_name("DUPONT CIRCLE METRORAIL STATION") == "Dupont Circle Station"
    assert rider_name("OWINGS MILLS METRO") == "Owings Mills"
    assert rider_name("BWI AIRPORT") == "BWI Airport"
    assert rider_name("Grand Central") == "Grand Central"


def test_capitalised_names_and_colours_go_to_the_overlay(tmp_path):
    stops = [("A", "OWINGS MILLS METRO", 40.0, -74.0), ("B", "MILFORD MILL METRO", 40.01, -74.0)]
    metro, overlay = _compiled(
        tmp_path,
        stops=stops,
        routes=[("R", "METRO SUBWAYLINK", "Owings Mills - Johns Hopkins", "1", "008000", "FFFFFF")],
        trips=[trip("t", "R", ["A", "B"])],
    )
    assert metro == {"Metro Subwaylink": ["Owings Mills", "Milford Mill"]}
    (style,) = overlay["line_styles"]
    assert (style["color"], style["text_color"], style["short_name"]) == ("#008000", "#FFFFFF", "METRO SUBWAYLINK")
    assert overlay["places"][0] == {
        "station": "Owings Mills",
        "lat": 40.0,
        "lon": -74.0,
        "names": ["OWINGS MILLS METRO"],
        "note": "stop A",
    }
    load_overlay(overlay)  # the toolkit reads it


def test_the_busiest_day_by_default_and_the_day_asked_for(tmp_path):
    # weekdays: line R (2 trips); weekends: line S (3 trips) -> the busiest day is the first Saturday of 2024
    stops = _stations("", "ABCD")
    trips = [trip("r1", "R", list("AB")), trip("r2", "R", list("AB"))]
    trips += [trip(f"s{n}", "S", list("CD"), "WE") for n in range(3)]
    feed = write_feed(tmp_path / "feed", stops=stops, routes=[("R", "R", "", "1"), ("S", "S", "", "1")], trips=trips)
    busiest = compile_feed(feed)
    assert busiest.date == dt.date(2024, 1, 6) and list(json.loads(busiest.metro_json)) == ["S"]
    monday = compile_feed(feed, CompileOptions(date=dt.date(2024, 1, 8)))
    assert list(json.loads(monday.metro_json)) == ["R"]
    with pytest.raises(ValueError, match="--date 2025-01-01: no rail trip"):
        compile_feed(feed, CompileOptions(date=dt.date(2025, 1, 1)))


def test_modes_and_routes_choose_the_lines(tmp_path):
    stops = _stations("", "ABCD")
    routes = [("R", "R", "", "1"), ("B", "B", "", "3"), ("T", "T", "", "0")]
    trips = [trip("r", "R", list("AB")), trip("b", "B", list("BC")), trip("t", "T", list("CD"))]
    feed = write_feed(tmp_path / "feed", stops=stops, routes=routes, trips=trips)
    assert list(json.loads(compile_feed(feed).metro_json)) == ["R", "T"]  # never the bus
    assert list(json.loads(compile_feed(feed, CompileOptions(modes=("metro",))).metro_json)) == ["R"]
    assert list(json.loads(compile_feed(feed, CompileOptions(routes=("T",))).metro_json)) == ["T"]
    with pytest.raises(ValueError, match="--route Z: no such route"):
        compile_feed(feed, CompileOptions(routes=("Z",)))


def test_a_stop_the_train_passes_is_no_station(tmp_path):
    metro, _ = _compiled(
        tmp_path, stops=_stations("", "ABC"), routes=[("R", "R", "", "1")], trips=[trip("t", "R", ["A", "B!", "C"])]
    )
    assert metro == {"R": ["A", "C"]}


def test_a_feed_without_rail_says_so(tmp_path):
    feed = write_feed(
        tmp_path / "feed", stops=_stations("", "AB"), routes=[("B", "B", "", "3")], trips=[trip("b", "B", ["A", "B"])]
    )
    with pytest.raises(InvalidFeed, match="no rail route of the modes .* route types: \\[3\\]"):
        compile_feed(feed)


@pytest.mark.parametrize(
    ("table", "text", "expected"),
    [
        (
            "stop_times.txt",
            "trip_id,arrival_time,departure_time,stop_id,stop_sequence\nt,08:00:00,08:00:00,A,1\nt,08:01:00,08:01:00,Q,2\n",
            "stop_times.txt: row 3, field 'stop_id': 'Q' is not in stops.txt",
        ),
        (
            "stop_times.txt",
            "trip_id,arrival_time,departure_time,stop_id,stop_sequence\nt,08:00:00,08:00:00,A,1\nt,08:01:00,08:01:00,B,1\n",
            "stop_times.txt: row 3, field 'stop_sequence': 1 repeats the sequence of row 2",
        ),
        (
            "stop_times.txt",
            "trip_id,arrival_time,departure_time,stop_id,stop_sequence\nt,08:00:00,08:00:00,A,1\nt,,,B,2\n",
            "stop_times.txt: row 3, field 'arrival_time': the trip's last stop has no time",
        ),
        (
            "routes.txt",
            "route_id,route_short_name,route_long_name\nR,R,\n",
            "routes.txt: row 1: missing column 'route_type'",
        ),
        (
            "routes.txt",
            "route_id,route_short_name,route_long_name,route_type\nR,R,,1,9\n",
            "routes.txt: row 2: 5 fields where the header has 4",
        ),
        (
            "trips.txt",
            "route_id,service_id,trip_id\nZ,WD,t\n",
            "trips.txt: row 2, field 'route_id': 'Z' is not in routes.txt",
        ),
    ],
)
def test_a_malformed_table_is_one_line_naming_file_row_and_field(tmp_path, table, text, expected):
    feed = write_feed(
        tmp_path / "feed", stops=_stations("", "AB"), routes=[("R", "R", "", "1")], trips=[trip("t", "R", ["A", "B"])]
    )
    (feed / table).write_text(text, encoding="utf-8")
    with pytest.raises(InvalidFeed) as caught:
        compile_feed(feed)
    assert expected in str(caught.value) and "\n" not in str(caught.value)


def test_encodings(tmp_path):
    feed = write_feed(
        tmp_path / "feed", stops=_stations("", "AB"), routes=[("R", "R", "", "1")], trips=[trip("t", "R", ["A", "B"])]
    )
    agency = (feed / "agency.txt").read_bytes()
    (feed / "agency.txt").write_bytes(b"\xef\xbb\xbf" + agency)  # a UTF-8 byte order mark is fine
    compile_feed(feed)
    (feed / "agency.txt").write_bytes(agency.replace(b"Test", b"T\xe9st"))
    with pytest.raises(InvalidFeed, match="agency.txt: row 2: not UTF-8 \\(byte 0xe9 in cell 1\\)"):
        compile_feed(feed)
    (feed / "agency.txt").write_bytes(agency.decode().encode("utf-16"))
    with pytest.raises(InvalidFeed, match="agency.txt: row 1: the file is UTF-16"):
        compile_feed(feed)


def test_a_line_with_two_branches_compiles_to_its_tree(tmp_path):
    # trunk A-B-C-D-E (6 trips), branches at B to F-G and at D to H (3 trips each)
    trips = [trip(f"m{n}", "R", list("ABCDE")) for n in range(6)]
    trips += [trip(f"f{n}", "R", list("ABFG")) for n in range(3)] + [
        trip(f"h{n}", "R", list("ABCDH")) for n in range(3)
    ]
    feed = write_feed(tmp_path / "feed", stops=_stations("", "ABCDEFGH"), routes=[("R", "R", "", "0")], trips=trips)
    compiled = compile_feed(feed)
    overlay = load_overlay(json.loads(compiled.overlay_json))
    from graphkit.graph import compile_graph

    line = compile_graph(load_metro(compiled.metro_json), overlay).lines["R"]
    edges = {frozenset((a, b)) for a, near in line.adjacency.items() for b in near}
    assert edges == {frozenset(pair) for pair in ("AB", "BC", "CD", "DE", "BF", "FG", "DH")}
    assert line.shape == "tree"


def test_a_train_that_reverses_is_cut_where_it_calls_again(tmp_path):
    # A-B-C then back to B and on to D (a reversal at C): the line is A-B-C-D... by its pieces A-B-C and C-B-D
    trips = [trip("t1", "R", list("ABCBD")), trip("t2", "R", list("ABCBD"))]
    metro, overlay = _compiled(tmp_path, stops=_stations("", "ABCD"), routes=[("R", "R", "", "1")], trips=trips)
    assert sorted(_clean(metro["R"])) == list("ABCD") and len(metro["R"]) == 4

"""Lint: every kind on hand-made networks, the known facts of the real cities, determinism."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphkit.cities import city_graph, city_names, city_path, load_city
from graphkit.graph import compile_graph
from graphkit.lint import KINDS, Finding, Kind, format_findings, lint_all, lint_city, lint_graph
from graphkit.metro import load_metro
from tests.networks import (
    BRANCH,
    BRANCH_OVERLAY,
    CHINESE,
    CLOSED_LOOP,
    DISCONNECTED,
    HOMONYMS,
    LOOP,
    LOOP_OVERLAY,
    ONE_LINE,
    ONE_STATION,
    REPEATED_OVERLAY,
    REPEATED_SPLIT,
    REPEATED_SPLIT_OVERLAY,
    SPLIT,
    SPLIT_OVERLAY,
    graph_of,
)


def of_kind(findings, kind):
    return [finding for finding in findings if finding.kind == kind]


# -- the registry ------------------------------------------------------------------


def test_every_kind_is_registered_with_a_one_line_description():
    assert set(get_args(Kind)) == set(KINDS)
    for kind, description in KINDS.items():
        assert description and "\n" not in description, kind


def test_an_unknown_kind_is_refused_with_the_valid_ones():
    with pytest.raises(ValueError, match="homonym"):
        Finding("toy", "typo", "message")


def test_the_module_docstring_explains_every_kind():
    import graphkit.lint

    for kind in KINDS:
        assert f"``{kind}``" in graphkit.lint.__doc__


# -- hand-made networks ------------------------------------------------------------


@pytest.mark.parametrize(
    "data, overlay",
    [
        (ONE_STATION, None),
        (ONE_LINE, None),
        (LOOP, LOOP_OVERLAY),
        (CLOSED_LOOP, {"loops": [{"line": "Circle", "note": "written out"}]}),
        (BRANCH, BRANCH_OVERLAY),
    ],
    ids=["one-station", "one-line", "loop", "closed-loop", "branch"],
)
def test_clean_networks_have_no_findings_that_their_overlay_settles(data, overlay):
    findings = lint_graph(graph_of(data, overlay))
    assert not of_kind(findings, "needs_overlay")
    assert not of_kind(findings, "disconnected")
    if data in (ONE_STATION, ONE_LINE):
        assert findings == ()


def test_homonyms_name_the_station_and_the_lines_that_do_not_meet():
    findings = lint_graph(graph_of(HOMONYMS))
    homonyms = of_kind(findings, "homonym")
    assert [finding.stations for finding in homonyms] == [("86 St Station",)]
    assert homonyms[0].lines == ("1", "Q", "4")
    assert "1, Q | 4" in homonyms[0].message
    # 72 St and 96 St: lines 1 and Q share a neighbour there, so they plausibly meet
    assert not any("72 St" in finding.message or "96 St" in finding.message for finding in homonyms)


def test_lines_that_cross_with_marks_on_both_are_no_homonym():
    data = {"L1": ["A", "X (Transfer Station)", "B"], "L2": ["C", "X (Transfer Station)", "D"]}
    assert not of_kind(lint_graph(graph_of(data)), "homonym")
    one_sided = {"L1": ["A", "X (Transfer Station)", "B"], "L2": ["C", "X", "D"]}
    (finding,) = of_kind(lint_graph(graph_of(one_sided)), "homonym")
    assert finding.stations == ("X",) and "a transfer mark on L1 only" in finding.message


def test_a_station_listed_twice_on_a_line_is_a_homonym():
    data = {"R": ["36 St", "A", "B", "36 St", "C"]}
    overlay = {"repeated_stations": [{"line": "R", "station": "36 St", "note": "Two stations named 36 St."}]}
    (finding,) = of_kind(lint_graph(graph_of(data, overlay)), "homonym")
    assert finding.stations == ("36 St",) and finding.lines == ("R",)
    assert "Two stations named 36 St." in finding.message


def test_near_duplicates_in_the_homonym_network():
    (finding,) = of_kind(lint_graph(graph_of(HOMONYMS)), "near_duplicate")
    assert set(finding.stations) == {"Cathedral Pkwy (110 St) Station", "Cathedral Pkwy(110 St) Station"}
    assert finding.lines == ("1", "4")


@pytest.mark.parametrize(
    "one, other",
    [
        ("西单", "西单站"),
        ("Union Station", "Union Station Station"),
        ("135 St Station", "135 St Stations"),
        ("Little Tokyo/Arts Dist Station", "Little Tokyo/Arts District Station"),
        ("47-50 Sts-Rockefeller Center Station", "47-50 Sts-Rockefeller Centre Station"),
    ],
)
def test_near_duplicates_are_found(one, other):
    graph = graph_of({"L1": ["A", one, "B"], "L2": ["C", other, "D"], "L3": ["A", "C"]})
    (finding,) = of_kind(lint_graph(graph), "near_duplicate")
    assert finding.stations == (one, other)


@pytest.mark.parametrize(
    "one, other",
    [
        ("Beach 90 St Station", "Beach 98 St Station"),  # numbers tell them apart
        ("East Falls Church Station", "West Falls Church Station"),  # so does a compass word
        ("Bay Station", "Bayview Station"),  # and a first word
        ("Ris Station", "Risløkka Station"),
        ("Queens Plaza Station", "Queensboro Plaza Station"),
    ],
)
def test_distinct_names_are_no_near_duplicates(one, other):
    graph = graph_of({"L1": ["A", one, "B"], "L2": ["C", other, "D"], "L3": ["A", "C"]})
    assert not of_kind(lint_graph(graph), "near_duplicate")


def test_transfer_marks_that_disagree_with_shared_names():
    data = {
        "L1": ["A", "B (Transfer Station)", "C", "D"],
        "L2": ["E", "D", "F"],
        "L3": ["F (Transfer Station)", "G"],
    }
    findings = of_kind(lint_graph(graph_of(data)), "transfer_mark_mismatch")
    assert [(finding.stations, finding.lines) for finding in findings] == [
        (("B",), ("L1",)),  # marked, but one line serves it
        (("D",), ("L1", "L2")),  # shared, but marked nowhere
    ]


def test_shared_stations_without_marks_are_not_reported_where_a_city_uses_no_marks():
    assert not of_kind(lint_graph(graph_of(HOMONYMS)), "transfer_mark_mismatch")


@pytest.mark.parametrize(
    "name, word",
    [("UAE Exchange Staton", "Staton"), ("Central Sation", "Sation"), ("Union Statoin", "Statoin")],
)
def test_misspelt_station_words(name, word):
    (finding,) = of_kind(lint_graph(graph_of({"L1": ["A", name]})), "suspicious_spelling")
    assert finding.stations == (name,) and repr(word) in finding.message


def test_a_lowercase_l_for_an_i():
    graph = graph_of({"L1": ["lbn Battuta Station", "lJ Station", "Lake Station"]})
    findings = of_kind(lint_graph(graph), "suspicious_spelling")
    assert [finding.stations for finding in findings] == [("lJ Station",), ("lbn Battuta Station",)]


def test_well_spelt_names_are_not_suspicious():
    data = {"L1": ["Staten Island Station", "Stations Road Station", "la Défense Station", "Station"]}
    assert not of_kind(lint_graph(graph_of(data)), "suspicious_spelling")


def test_a_branch_mark_without_overlay_needs_one():
    (finding,) = of_kind(lint_graph(graph_of(BRANCH)), "needs_overlay")
    assert finding.lines == ("Line B",) and finding.stations == ("M2",)
    assert not of_kind(lint_graph(graph_of(BRANCH, BRANCH_OVERLAY)), "needs_overlay")


def test_a_closed_list_without_overlay_needs_one():
    (finding,) = of_kind(lint_graph(graph_of(CLOSED_LOOP)), "needs_overlay")
    assert finding.lines == ("Circle",) and finding.stations == ("P0",)


def test_an_open_listed_loop_whose_ends_meet_elsewhere_needs_one():
    data = {**LOOP, "Line 5": ["L7", "Z", "L0"]}
    (finding,) = of_kind(lint_graph(graph_of(data)), "needs_overlay")
    assert finding.lines == ("Line 2",) and finding.stations == ("L0", "L7")
    assert "2 stop(s) apart" in finding.message
    assert not of_kind(lint_graph(graph_of(data, LOOP_OVERLAY)), "needs_overlay")
    # a short line between two close stations is no loop
    assert not of_kind(lint_graph(graph_of({"Line 2": ["L0", "L1", "L2"], "Line 5": ["L0", "L2"]})), "needs_overlay")


def test_disconnected_parts_are_reported_with_their_stations_and_lines():
    (finding,) = of_kind(lint_graph(graph_of(DISCONNECTED)), "disconnected")
    assert finding.stations == ("D", "E") and finding.lines == ("Line 2",)
    assert not of_kind(lint_graph(graph_of(LOOP, LOOP_OVERLAY)), "disconnected")


def test_findings_of_data_without_a_city_name_name_its_source():
    assert {finding.city for finding in lint_graph(graph_of(DISCONNECTED))} == {"<dict>"}


def test_chinese_network_with_marked_transfers():
    findings = lint_graph(graph_of(CHINESE))
    assert not of_kind(findings, "homonym") and not of_kind(findings, "near_duplicate")


# -- the real cities ---------------------------------------------------------------


def test_without_its_overlay_new_york_has_the_86_st_homonym_and_the_cathedral_pkwy_near_duplicate():
    metro, overlay = load_city("new_york")
    topology_only = replace(overlay, aliases=(), homonyms=(), interchanges=(), distinct=())
    findings = lint_graph(compile_graph(metro, topology_only))
    homonym = [f for f in of_kind(findings, "homonym") if f.stations == ("86 St Station",)]
    assert homonym and {"1", "4", "N"} <= set(homonym[0].lines)
    assert any(
        set(f.stations) == {"Cathedral Pkwy(110 St) Station", "Cathedral Pkwy (110 St) Station"}
        for f in of_kind(findings, "near_duplicate")
    )


def test_with_its_overlay_new_york_has_no_homonym_or_near_duplicate_left():
    findings = lint_city("new_york")
    assert not of_kind(findings, "homonym") and not of_kind(findings, "near_duplicate")
    assert not of_kind(findings, "suspicious_spelling")  # 135 St Stations is an alias of the B's 135 St now


def test_new_york_times_square_is_no_homonym():
    stations = {f.stations[0] for f in of_kind(lint_city("new_york"), "homonym")}
    assert "Times Sq-42 St Station" not in stations


def test_dubai_has_its_misspellings():
    spelt = {f.stations for f in of_kind(lint_city("dubai"), "suspicious_spelling")}
    assert spelt == {("UAE Exchange Staton",), ("lbn Battuta Station",)}


@pytest.mark.parametrize("city", city_names())
def test_no_city_needs_an_overlay_for_a_line_its_overlay_covers(city):
    graph = city_graph(city)
    for finding in of_kind(lint_graph(graph), "needs_overlay"):
        assert not any(graph.overlay.covers(line) for line in finding.lines), finding


@pytest.mark.parametrize(
    "city, line, reason",
    [
        ("beijing", "Line 2", "apart over other lines"),
        ("rome", "Line B", "branch-starting station"),
        ("shanghai", "Line 4", "again"),
    ],
)
def test_without_its_overlay_a_real_loop_or_branch_is_flagged(city, line, reason):
    graph = compile_graph(load_metro(city_path(city), city=city))
    flagged = [f for f in of_kind(lint_graph(graph), "needs_overlay") if f.lines == (line,)]
    assert flagged and reason in flagged[0].message


@pytest.mark.slow
def test_lint_is_deterministic_and_sorted():
    first, second = lint_all(), lint_all()
    assert first == second
    assert {finding.city for finding in first} <= set(city_names())
    for city in ("new_york", "beijing"):
        cached = lint_city(city)
        fresh = lint_graph(compile_graph(*load_city(city)))
        assert cached == fresh
        assert list(cached) == sorted(cached, key=Finding.sort_key)
    assert format_findings(first) == format_findings(reversed(second))


def test_lint_all_is_every_city_in_turn():
    assert lint_all() == tuple(finding for city in city_names() for finding in lint_city(city))


# -- the report --------------------------------------------------------------------


def test_report_groups_per_city_with_counts_per_kind():
    findings = lint_graph(graph_of(HOMONYMS)) + lint_graph(graph_of(DISCONNECTED, None))
    report = format_findings(findings)
    assert report.splitlines()[0] == "<dict>: 3 findings (homonym 1, near_duplicate 1, disconnected 1)"
    assert "  homonym\n    - '86 St Station'" in report
    assert format_findings(()) == "no findings"


def test_real_report_names_every_city_with_findings():
    findings = lint_all()
    report = format_findings(findings)
    for city in {finding.city for finding in findings}:
        assert f"\n{city}: " in f"\n{report}"


def test_findings_are_json_ready():
    for finding in lint_city("dubai"):
        record = json.loads(json.dumps(finding.to_dict()))
        assert Finding(**{**record, "stations": tuple(record["stations"]), "lines": tuple(record["lines"])}) == finding


# -- properties --------------------------------------------------------------------

names = st.sampled_from(["A", "B", "C", "D", "E", "F", "G (Transfer Station)", "H", "X Staton", "lbn"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(names, min_size=1, max_size=6, unique_by=lambda n: n.split(" (")[0]), min_size=1, max_size=4))
def test_lint_never_raises_and_is_sorted_on_random_networks(lines):
    graph = graph_of({f"L{index}": stations for index, stations in enumerate(lines)})
    findings = lint_graph(graph)
    assert list(findings) == sorted(findings, key=Finding.sort_key)
    assert findings == lint_graph(graph)
    assert all(finding.kind in KINDS for finding in findings)
    assert len(of_kind(findings, "disconnected")) == len(graph.components()) - 1


# -- what overlays decide --------------------------------------------------------------


def test_a_homonym_lint_reports_is_silenced_by_the_split_that_decides_it():
    assert [f.stations for f in of_kind(lint_graph(graph_of(SPLIT)), "homonym")] == [("Hub",)]
    assert not of_kind(lint_graph(graph_of(SPLIT, SPLIT_OVERLAY)), "homonym")


def test_a_confirmed_interchange_is_no_homonym():
    overlay = {"interchanges": [{"station": "Hub", "note": "Red, Blue and Green meet at one Hub."}]}
    assert not of_kind(lint_graph(graph_of(SPLIT, overlay)), "homonym")


def test_an_alias_silences_its_near_duplicate_and_lint_flags_what_remains():
    near = [f.stations for f in of_kind(lint_graph(graph_of(SPLIT)), "near_duplicate")]
    assert near == [("Far Stn", "Far Station")]
    assert not of_kind(lint_graph(graph_of(SPLIT, SPLIT_OVERLAY)), "near_duplicate")
    homonyms_only = {"homonyms": SPLIT_OVERLAY["homonyms"]}
    assert [f.stations for f in of_kind(lint_graph(graph_of(SPLIT, homonyms_only)), "near_duplicate")] == near


def test_names_declared_distinct_are_no_near_duplicate():
    data = {"6": ["Hunts Point Av Station", "Longwood Av Station"], "7": ["Hunters Point Av Station", "Vernon Blvd"]}
    assert of_kind(lint_graph(graph_of(data)), "near_duplicate")
    overlay = {"distinct": [{"stations": ["Hunts Point Av Station", "Hunters Point Av Station"], "note": "two"}]}
    assert not of_kind(lint_graph(graph_of(data, overlay)), "near_duplicate")


def test_a_split_repeated_station_is_no_longer_reported():
    assert of_kind(lint_graph(graph_of(REPEATED_SPLIT, REPEATED_OVERLAY)), "homonym")
    assert not of_kind(lint_graph(graph_of(REPEATED_SPLIT, REPEATED_SPLIT_OVERLAY)), "homonym")


def test_split_stations_are_not_misspelt_station_words():
    # "Hub@Red" must not read as a misspelt word; lint looks at the shown name
    assert not of_kind(lint_graph(graph_of(SPLIT, SPLIT_OVERLAY)), "suspicious_spelling")


@pytest.mark.parametrize("city", city_names())
def test_the_embedded_overlays_decide_every_homonym_and_near_duplicate(city):
    findings = lint_city(city)
    assert not of_kind(findings, "homonym") and not of_kind(findings, "near_duplicate")

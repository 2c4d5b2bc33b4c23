"""Variant ``official``: one hand case per behaviour of the public evaluation code (fscdc/ReasonMap ``main.py``).

Every expected number below was worked out by hand, following the public
code's steps (as its behaviour is described in
``benchmarks/reasonmap/official_scoring.py``); the derivation is in the comment
above each case. ``clean`` below means the public code's ``clean_string``
(drop ``Metro``, commas, ``*``, line breaks, parenthesised text, blanks and
hyphens; lower-case).

Two made-up cities: ``hanzi`` (country ``china``) and ``latin`` (country ``italy``).
"""

from __future__ import annotations

import pytest

from benchmarks.reasonmap.official_scoring import (
    DEVIATIONS,
    clean_name,
    official_metro,
    official_sections,
    score_official,
)
from benchmarks.reasonmap.records import Question
from graphkit.graph import compile_graph
from graphkit.metro import load_metro
from graphkit.segments import Segment

HANZI = compile_graph(
    load_metro(
        {"Line 1": ["甲站", "乙站（换乘站）", "丙站", "丁站"], "Line 2": ["戊站", "乙站", "己站", "庚站"]},
        city="hanzi",
        country="china",
    )
)
LATIN = compile_graph(
    load_metro(
        {
            "Line A": ["Alpha Station", "Beta Station (Transfer Station)", "Gamma Station"],
            "Line B": ["Delta Station", "Beta Station", "Epsilon Station"],
        },
        city="latin",
        country="italy",
    )
)
COUNT_TEXT = "... Number of Via Stops: x ..."
LIST_TEXT = "... Via Stops: xx, xx ..."


def question(graph, station_1, station_2, *routes, counts=False) -> Question:
    return Question(
        id="q",
        country=graph.metro.country,
        city=graph.metro.city,
        station_1=station_1,
        station_2=station_2,
        question_short="...",
        question_long=COUNT_TEXT if counts else LIST_TEXT,
        long_template="via_count" if counts else "via_stops",
        routes=tuple(tuple(route) for route in routes),
        difficulty_question="easy",
        difficulty_city="easy",
        city_line_count=2,
        city_transfer_count=1,
        question_transfer_count=len(routes[0]) - 1,
    )


def official(text, q, graph, kind="short", **options):
    return score_official(text, q, official_metro(graph), kind=kind, **options)


def section(line, departure, arrival, extra=None):
    text = f"Route Name: {line}\nDeparture Stop: {departure}\nArrival Stop: {arrival}\n"
    return text + (f"{extra}\n" if extra is not None else "")


ONE_RIDE = [Segment("Line 1", "甲站", "丁站", ("乙站", "丙站"))]


def test_the_short_arrival_is_the_rest_of_the_section():
    # Short answers: arrival = clean(section.split("Arrival Stop:")[-1].strip())
    # = clean("丁站\nThis is the fastest.") = "丁站thisisthefastest." != clean("丁站"):
    # wrong endpoints, so not correct and no point at all: 0.
    q = question(HANZI, "甲站", "丁站", ONE_RIDE)
    score = official(section("Line 1", "甲站", "丁站") + "This is the fastest.", q, HANZI)
    assert (score.correct, score.map_score, score.failure) == (0, 0.0, "wrong_endpoints")


@pytest.mark.parametrize(
    ("departure", "arrival", "expected"),
    [
        # reference departure "甲站" ends with 站: the reference arrival is read as "甲站" (its departure);
        # 1 (endpoints) + 2 (Line 1 = "Line " + its first number 1) + 1 (departure) + 0 (arrival) = 4; +10 correct
        ("甲站", "丁站", 14.0),
        # "甲" lacks 站: departure "甲站" matches (+1); the arrival gets 站 appended unconditionally:
        # "丁站" + "站" = "丁站站" != "丁站": 1 + 2 + 1 + 0 = 4; +10
        ("甲", "丁站", 14.0),
        # "甲" and "丁": "甲站" and "丁" + "站" = "丁站" both match: 1 + 2 + 1 + 1 = 5; +10
        ("甲", "丁", 15.0),
    ],
)
def test_short_arrival_read_from_the_reference_departure_in_china(departure, arrival, expected):
    q = question(HANZI, "甲站", "丁站", [Segment("Line 1", departure, arrival, ("乙站", "丙站"))])
    score = official(section("Line 1", "甲站", "丁站"), q, HANZI)
    assert (score.correct, score.map_score) == (1, expected)


def test_route_name_outside_china_is_derived_from_the_answer():
    # "Line A" is a key and both stations lie on it: correct. Map: 1 (endpoints); the compared line name is
    # derived from the ANSWER's name: no "Metro X"/"Linea X", first 1–2 letters or digits "Li" -> "Line Li"
    # != "Line A": 0; departure "Alpha Station" (ends with Station, kept) = answer: +1; arrival: the reference
    # departure ends with "Station", so the arrival compared is "Alpha Station" != "Gamma Station": 0.
    # 1 + 0 + 1 + 0 = 2; +10 = 12.
    q = question(LATIN, "Alpha Station", "Gamma Station", [Segment("Line A", "Alpha Station", "Gamma Station")])
    score = official(section("Line A", "Alpha Station", "Gamma Station"), q, LATIN)
    assert (score.correct, score.map_score, score.components["route_name"]) == (1, 12.0, 0.0)
    # "Metro A" is read as "Line A" (the Metro X pattern); clean("Metro A") = "a" != clean("Line A"): still 0.
    assert official(section("Metro A", "Alpha Station", "Gamma Station"), q, LATIN).components["route_name"] == 0.0


def test_station_suffix_appended_to_reference_names_lacking_it():
    # Reference "Alpha" -> "Alpha Station" = answer: +1; its departure lacks "Station", so the arrival is
    # "Gamma" + " Station" = answer: +1. 1 + 0 (Line Li) + 1 + 1 = 3; +10 = 13.
    q = question(LATIN, "Alpha Station", "Gamma Station", [Segment("Line A", "Alpha", "Gamma")])
    assert official(section("Line A", "Alpha Station", "Gamma Station"), q, LATIN).map_score == 13.0


def test_via_stops_split_on_ascii_commas_without_stripping():
    # Long, via-stop template, China. Sections: 1 + 2 + 1 + 1 (long arrival: "丁站", already suffixed) = 5.
    # "乙站, 丙站" holds 站 -> split(",") = ["乙站", " 丙站"]: "乙站" is in the reference list, " 丙站" is not:
    # matched 1. Lines match, so pooled: union {乙站, 丙站, " 丙站"}, intersection {乙站}: IoU 1/3.
    # Via part (10/3 + 1) / 2 = 13/6; total 5 + 13/6; +20 correct.
    q = question(HANZI, "甲站", "丁站", ONE_RIDE)
    score = official(section("Line 1", "甲站", "丁站", "Via Stops: 乙站, 丙站"), q, HANZI, kind="long")
    assert score.correct == 1
    assert score.components["via_stop"] == pytest.approx(13 / 6)
    assert score.map_score == pytest.approx(25 + 13 / 6)
    # A full-width comma is no separator: ["乙站，丙站"] matches nothing; IoU 0: 5 + 0; +20
    assert official(section("Line 1", "甲站", "丁站", "Via Stops: 乙站，丙站"), q, HANZI, kind="long").map_score == 25.0


def test_via_stops_read_only_when_they_contain_zhan():
    # "Yi, Bing" holds no 站: read as []. Union = the reference's {乙站, 丙站}, intersection empty: IoU 0.
    # Via part 0: 5 + 0; +20.
    q = question(HANZI, "甲站", "丁站", ONE_RIDE)
    score = official(section("Line 1", "甲站", "丁站", "Via Stops: Yi, Bing"), q, HANZI, kind="long")
    assert (score.components["via_stop"], score.map_score) == (0.0, 25.0)


def test_iou_is_zero_when_both_via_sets_are_empty():
    # Reference 甲站 -> 乙站 has no via stop; "None" holds no 站 -> []. Union empty: IoU 0 (the paper: 1).
    # 1 + 2 + 1 + 1 = 5, via part (0 + 0) / 2 = 0; correct (乙站 is on Line 1 once "（换乘站）" is removed): +20.
    q = question(HANZI, "甲站", "乙站", [Segment("Line 1", "甲站", "乙站", ())])
    score = official(section("Line 1", "甲站", "乙站", "Via Stops: None"), q, HANZI, kind="long")
    assert (score.correct, score.components["via_stop"], score.map_score) == (1, 0.0, 25.0)


def test_the_first_digit_of_a_section_is_a_missing_via_count():
    # Count template, no "Number of Via Stops: " in the answer: the count text is the whole section, whose
    # first run of digits is the "1" of "Line 1". Reference count 2: error 1, 4 - 1/2·4 = 2.
    # 1 + 2 + 1 + 1 + 2 = 7; +20 = 27.
    q = question(HANZI, "甲站", "丁站", ONE_RIDE, counts=True)
    score = official(section("Line 1", "甲站", "丁站"), q, HANZI, kind="long")
    assert (score.components["num_via"], score.map_score) == (2.0, 27.0)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        # error 1 over the reference count 2: 4 - 1/2·4 = 2 (the paper: over max(3, 2) = 3, 2.67)
        ("3", 2.0),
        # error 2 over 2: 4 - 4 = 0 (the paper: 4 - 2/4·4 = 2)
        ("4", 0.0),
        ("2", 4.0),
    ],
)
def test_via_count_error_divided_by_the_reference_count(given, expected):
    q = question(HANZI, "甲站", "丁站", ONE_RIDE, counts=True)
    score = official(section("Line 1", "甲站", "丁站", f"Number of Via Stops: {given}"), q, HANZI, kind="long")
    assert score.components["num_via"] == expected
    assert score.map_score == 25.0 + expected


def test_a_via_count_against_a_zero_reference_earns_nothing():
    # Reference 甲站 -> 乙站, count 0; answer 1: error 1, reference 0: 0 points. 5 + 0; +20.
    q = question(HANZI, "甲站", "乙站", [Segment("Line 1", "甲站", "乙站", ())], counts=True)
    score = official(section("Line 1", "甲站", "乙站", "Number of Via Stops: 1"), q, HANZI, kind="long")
    assert (score.components["num_via"], score.map_score) == (0.0, 25.0)


def test_duplicate_via_stops_are_counted_each_time():
    # ["乙站", "乙站", "乙站"]: each is in the reference list: matched 3. Union {乙站, 丙站}, intersection {乙站}:
    # IoU 1/2. Via part (5 + 3) / 2 = 4; 5 + 4 = 9; +20 = 29.
    q = question(HANZI, "甲站", "丁站", ONE_RIDE)
    score = official(section("Line 1", "甲站", "丁站", "Via Stops: 乙站,乙站,乙站"), q, HANZI, kind="long")
    assert (score.components["via_stop"], score.map_score) == (4.0, 29.0)


def test_wrong_endpoints_gate_every_point():
    # The answer stops at 丙站, not 丁站: no endpoint point and no section point; not correct: 0.
    q = question(HANZI, "甲站", "丁站", ONE_RIDE)
    score = official(section("Line 1", "甲站", "丙站", "Via Stops: 乙站"), q, HANZI, kind="long")
    assert (score.correct, score.map_score, score.failure) == (0, 0.0, "wrong_endpoints")


def test_via_stop_iou_pools_only_sections_on_the_reference_line():
    # Reference: Line 1 甲站 -> 乙站 (no via), Line 2 乙站 -> 庚站 (via 己站). Answer section 2 says "Line 3":
    # no Metro Data key, so not correct (unknown_line). Map: 1; section 1: 2 + 1 + 1, "None" -> [], pooled
    # but empty; section 2: line "Line 3" != "Line 2": 0, departure and arrival +2, via ["己站"] matched 1
    # (matches count on any line), not pooled. Union empty: IoU 0; via part (0 + 1) / 2 = 0.5.
    # 1 + 4 + 2 + 0.5 = 7.5, no bonus.
    q = question(
        HANZI, "甲站", "庚站", [Segment("Line 1", "甲站", "乙站", ()), Segment("Line 2", "乙站", "庚站", ("己站",))]
    )
    text = (
        section("Line 1", "甲站", "乙站", "Via Stops: None")
        + "--\n"
        + section("Line 3", "乙站", "庚站", "Via Stops: 己站")
    )
    score = official(text, q, HANZI, kind="long")
    assert (score.correct, score.failure, score.map_score) == (0, "unknown_line", 7.5)


def test_route_names_must_be_metro_data_keys_as_written():
    # "line 1" is no key ("Line 1" is): not correct. Map: clean("Line 1") = "line1" = clean("line 1"): +2;
    # 1 + 2 + 1 + 0 (short arrival read from the departure "甲站") = 4, no bonus.
    q = question(HANZI, "甲站", "丁站", ONE_RIDE)
    score = official(section("line 1", "甲站", "丁站"), q, HANZI)
    assert (score.correct, score.failure, score.map_score) == (0, "unknown_line", 4.0)
    # switched off, the line is found by the graph's name rules and the answer is correct: 4 + 10
    fixed = official(section("line 1", "甲站", "丁站"), q, HANZI, deviations=set(DEVIATIONS) - {"line_key_exact"})
    assert (fixed.correct, fixed.map_score) == (1, 14.0)


def test_fields_without_a_line_break_read_wrong():
    # Long: "Arrival Stop: (.*?)\n" finds no line break at the end: the arrival is "Wrong" -> wrong endpoints.
    q = question(HANZI, "甲站", "丁站", ONE_RIDE)
    text = "Route Name: Line 1\nDeparture Stop: 甲站\nArrival Stop: 丁站"
    assert official_sections(text, kind="long")[0].arrival == "Wrong"
    assert official(text, q, HANZI, kind="long").map_score == 0.0


def test_parenthesised_text_is_deleted_and_the_answer_follows_the_last_think_tag_under_skywork():
    assert clean_name("Cathedral Pkwy (110 St)") == clean_name("Cathedral Pkwy")
    q = question(HANZI, "甲站", "丁站", ONE_RIDE)
    # Skywork's rule drops the draft inside the reasoning; the final text is scored as in the first
    # parametrized case: 14. Every other model is read whole: the draft's route name and departure
    # (Line 2, 戊站) are the first fields found, so the endpoints are wrong: 0.
    text = "<think>" + section("Line 2", "戊站", "庚站") + "</think>\n" + section("Line 1", "甲站", "丁站")
    assert official(text, q, HANZI, rule="skywork").map_score == 14.0
    assert official(text, q, HANZI).map_score == 0.0


def test_unknown_deviations_and_kinds_are_refused():
    q = question(HANZI, "甲站", "丁站", ONE_RIDE)
    with pytest.raises(ValueError, match="deviations"):
        official("", q, HANZI, deviations={"nope"})
    with pytest.raises(ValueError, match="kind"):
        official("", q, HANZI, kind="medium")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # each opener up to the first closer after it goes, inner openers included; an unclosed one stays
        ("A (b (c) d) E", "ad)e"),
        ("X（换乘站）Y (z", "xy(z"),
        ("((((", "(((("),
    ],
)
def test_bracketed_text_is_dropped_as_the_public_code_does(name, expected):
    assert clean_name(name) == expected


def test_hostile_answers_are_scored_without_raising():
    q = question(HANZI, "甲站", "丁站", ONE_RIDE)
    # many unclosed brackets: the public code's expression is quadratic there; this must still finish
    for text in ("(" * 200_000, section("Line 1", "甲站", "(" * 100_000) * 3, "--" * 50_000, "\x00\ud800"):
        for kind in ("short", "long"):
            score = official(text, q, HANZI, kind=kind)
            assert score.correct == 0 and score.map_score == 0.0

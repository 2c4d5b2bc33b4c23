"""Question generation and templates."""

from __future__ import annotations

import json

import pytest

from benchmarks.reasonmap.generate import (
    PAPER_DISTRIBUTION,
    Quota,
    difficulty_distribution,
    generate_questions,
    parse_quota,
    question_difficulty,
)
from benchmarks.reasonmap.records import Question
from benchmarks.reasonmap.templates import long_question, short_question
from benchmarks.splits import TEST_CITIES, split_cities
from graphkit import city_graph, city_names, shortest_routes
from tests.networks import ONE_LINE, SPLIT, SPLIT_OVERLAY, graph_of


def test_templates_reproduce_the_papers_wording_and_layout():
    short = short_question("A Station", "B Station")
    assert short.startswith("According to the subway map, how do I get from A Station to B Station? ")
    assert "Provide only one optimal route, with only the line name and the departure and arrival stations." in short
    assert short.count("Route Name: Line x\nDeparture Stop: xx Station\nArrival Stop: xx Station") == 2
    assert "\n--\n" in short
    count = long_question("A", "B", "via_count")
    assert "include the number of via stops for each route section (excluding the departure and arrival stops)" in count
    assert count.count("Number of Via Stops: x") == 2
    via = long_question("A", "B", "via_stops")
    assert "Provide only one optimal route, including all the via stops." in via
    assert via.count("Via Stops: xx Station, xx Station") == 2
    with pytest.raises(ValueError, match="via_count"):
        long_question("A", "B", "via_everything")


def test_questions_follow_their_references_and_the_quota():
    graph = city_graph("beijing")
    questions = generate_questions(graph, seed=3)
    assert len(questions) == 40
    levels = difficulty_distribution(questions)
    assert levels == {"easy": 0.5, "middle": 15 / 40, "hard": 5 / 40}
    for question in questions:
        found = shortest_routes(graph, question.station_1, question.station_2)
        assert question.question_transfer_count == found.transfers
        assert question.difficulty_question == question_difficulty(found.transfers)
        assert question.routes == tuple(route.segments for route in found.routes)
        assert question.difficulty_city == "hard" and question.city_line_count == 21
        assert question.station_1 in question.question_short and question.station_2 in question.question_long
        assert (question.long_template == "via_count") == ("Number of Via Stops" in question.question_long)
    assert len({(q.station_1, q.station_2) for q in questions}) == len(questions)


def test_a_map_that_cannot_fill_a_level_gives_fewer_questions():
    questions = generate_questions(graph_of(ONE_LINE), seed=0, quota=Quota(3, 2, 1))
    assert [q.difficulty_question for q in questions] == ["easy"] * 3


def test_generation_is_deterministic_and_seeded():
    graph = city_graph("rome")
    first = [q.to_dict() for q in generate_questions(graph, seed=7)]
    again = [q.to_dict() for q in generate_questions(graph, seed=7)]
    other = [q.to_dict() for q in generate_questions(graph, seed=8)]
    assert json.dumps(first, ensure_ascii=False) == json.dumps(again, ensure_ascii=False)
    assert first != other


def test_records_round_trip():
    for question in generate_questions(city_graph("singapore"), seed=1, per_city=10):
        assert Question.from_dict(json.loads(json.dumps(question.to_dict()))) == question


def test_quota_and_split_options():
    assert parse_quota("20:15:5") == Quota() and Quota().total == 40
    for bad in ["20:15", "a:b:c", "1:2:-3"]:
        with pytest.raises(ValueError, match="EASY:MIDDLE:HARD"):
            parse_quota(bad)
    names = city_names()
    # one order everywhere: the demo walks TEST_CITIES, `generate --split test` the sorted embedded names
    assert split_cities("test", names) == TEST_CITIES and len(TEST_CITIES) == 11
    assert len(split_cities("train", names)) == 19 and split_cities("all", names) == names
    with pytest.raises(ValueError, match="train"):
        split_cities("dev", names)
    assert abs(sum(PAPER_DISTRIBUTION.values()) - 1) < 0.01


def test_split_stations_are_never_endpoints_and_references_show_the_maps_names():
    graph = graph_of(SPLIT, SPLIT_OVERLAY)
    questions = generate_questions(graph, seed=0, per_city=200, quota=Quota(100, 100, 100))
    assert questions
    endpoints = {name for q in questions for name in (q.station_1, q.station_2)}
    assert "Hub" not in endpoints and not any("@" in name for name in endpoints)
    shown = {
        name
        for q in questions
        for route in q.routes
        for s in route
        for name in (s.departure_stop, s.arrival_stop, *s.via_stops)
    }
    assert "Hub" in shown and not any("@" in name for name in shown)  # R1 to R3 rides through the Red line's Hub
    # the quota takes all 36 pairs of the 9 stations whose names are their own
    assert len(questions) == 36
    assert endpoints == {"R1", "R3", "B1", "B3", "Far Station", "B5", "G1", "G3", "D2"}


def test_new_york_questions_never_ask_for_a_shared_name():
    graph = city_graph("new_york")
    for question in generate_questions(graph, seed=0):
        for name in (question.station_1, question.station_2):
            assert graph.namesakes(graph.resolve_station(name)) == (graph.resolve_station(name),)
        for route in question.routes:
            assert not any("@" in name for s in route for name in (s.departure_stop, s.arrival_stop, *s.via_stops))


def test_a_large_map_draws_its_questions_without_listing_every_pair(monkeypatch):
    import benchmarks.reasonmap.generate as generate
    from graphkit.graph import compile_graph
    from graphkit.synth import synthesize_network

    graph = compile_graph(synthesize_network(stations=80, lines=4, seed=3).metro)
    monkeypatch.setattr(generate, "_LISTED_STATIONS", 10)  # this map counts as large
    monkeypatch.setattr(type(graph), "least_cost", lambda *_: pytest.fail("the all-pairs table was built"))
    first = generate.generate_questions(graph, seed=5, per_city=12)
    assert [q.to_dict() for q in first] == [
        q.to_dict() for q in generate.generate_questions(graph, seed=5, per_city=12)
    ]
    assert len(first) == 12 and len({(q.station_1, q.station_2) for q in first}) == 12
    for question in first:  # each reference is a least-cost route between the question's stations
        assert question.routes[0][0].departure_stop == question.station_1
        assert question.routes[0][-1].arrival_stop == question.station_2


def test_a_large_map_searches_once_per_question_and_stops_when_its_quota_is_full(monkeypatch):
    import benchmarks.reasonmap.generate as generate
    from graphkit.graph import compile_graph
    from graphkit.routes import shortest_route_length
    from graphkit.synth import synthesize_network

    graph = compile_graph(synthesize_network(stations=80, lines=4, seed=3).metro)
    monkeypatch.setattr(generate, "_LISTED_STATIONS", 10)
    searched = []
    bounds = type(graph).cost_bounds
    monkeypatch.setattr(type(graph), "cost_bounds", lambda self, s: searched.append(s) or bounds(self, s))
    quota = generate.Quota(easy=2, middle=2, hard=0)  # four lines that all cross: no pair needs two transfers
    found = generate.generate_questions(graph, seed=5, per_city=40, quota=quota)
    levels = [q.difficulty_question for q in found]
    assert sorted(levels) == ["easy", "easy", "middle", "middle"]
    # every departure of four crossing lines reaches some station at each level: one search per question, none
    # once the quota is full (searching on would visit all 80 departures)
    assert len(searched) == len(set(searched)) == 4
    for question in found:  # the level is the reference's transfers, as on a listed map
        cost = shortest_route_length(graph, question.station_1, question.station_2)
        assert generate.question_difficulty(cost[0]) == question.difficulty_question


def test_two_seeds_never_share_an_id_and_seed_0_keeps_its_ids():
    # campaign 4, E70/F17: every seed's file had ids rome-0000 …, so a log of one matched the other's questions
    graph = city_graph("rome")
    zero, one, five = (generate_questions(graph, seed=seed, per_city=3) for seed in (0, 1, 5))
    assert [q.id for q in zero] == ["rome-0000", "rome-0001", "rome-0002"]  # as published: unchanged
    assert [q.id for q in one] == ["rome-s1-0000", "rome-s1-0001", "rome-s1-0002"]
    assert [q.id for q in five] == ["rome-s5-0000", "rome-s5-0001", "rome-s5-0002"]

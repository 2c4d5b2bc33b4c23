"""Scoring: Algorithm 1 (correctness) and Algorithm 2 (map score), variants, batches and properties."""

from __future__ import annotations

import dataclasses
import re
from functools import cache

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from benchmarks.reasonmap.generate import generate_questions
from benchmarks.reasonmap.records import ParsedAnswer, ParsedSection, Prediction, Question
from benchmarks.reasonmap.resolution import graph_names
from benchmarks.reasonmap.scoring import (
    COMPONENTS,
    FAILURES,
    MAP_SCORE_RULES,
    Score,
    get_map_score_rule,
    max_map_score,
    score_answer,
    score_prediction,
    score_predictions,
)
from benchmarks.records import Invalid
from graphkit import city_graph, shortest_routes
from graphkit.names import has_cjk, line_keys
from tests.networks import HOMONYMS, graph_of, random_lines

# -- helpers -------------------------------------------------------------------

# Line 1 and Line 2 cross at C; Line 3 has four stations between A and H
NETWORK = {
    "Line 1": ["A Station", "B Station", "C Station", "D Station"],
    "Line 2": ["E Station", "C Station", "F Station", "G Station"],
    "Line 3": ["A Station", "H1 Station", "H2 Station", "H3 Station", "H4 Station", "H Station"],
}


def make_question(graph, station_1, station_2, *, template="via_count", routes=None) -> Question:
    """A question on any graph, with the graph's references (or the given ones)."""
    if routes is None:
        routes = tuple(route.segments for route in shortest_routes(graph, station_1, station_2).routes)
    return Question(
        id=f"{station_1}->{station_2}",
        country="",
        city=graph.city,
        station_1=station_1,
        station_2=station_2,
        question_short="",
        question_long="",
        long_template=template,
        routes=routes,
        difficulty_question="easy",
        difficulty_city="easy",
        city_line_count=len(graph.lines),
        city_transfer_count=0,
        question_transfer_count=len(routes[0]) - 1,
    )


def rendered(route, *, via=True) -> ParsedAnswer:
    """A reference route written as an answer."""
    return ParsedAnswer(
        tuple(
            ParsedSection(
                s.route_name,
                s.departure_stop,
                s.arrival_stop,
                len(s.via_stops) if via else None,
                s.via_stops if via else None,
            )
            for s in route
        )
    )


def answer(*rows) -> ParsedAnswer:
    """Sections from ``(line, departure, arrival[, count[, via stops]])`` rows."""
    return ParsedAnswer(tuple(ParsedSection(*row) for row in rows))


def judge(parsed, question, graph, kind="short", variant="paper") -> Score:
    return score_answer(parsed, question, graph, kind=kind, variant=variant)


def check_bounds(score: Score, kind: str) -> None:
    top = 20 if kind == "short" else 40
    assert 0 <= score.map_score <= top
    assert score.correct in (0, 1)
    assert (score.failure is None) == (score.correct == 1)
    assert score.failure is None or score.failure in FAILURES
    assert set(score.components) == set(COMPONENTS)
    assert score.components["bonus"] == (top / 2 if score.correct else 0)


@cache
def city_questions(city: str) -> tuple[Question, ...]:
    return tuple(generate_questions(city_graph(city), seed=7))


# -- Algorithm 1: correctness and failure labels ---------------------------------


def test_a_reference_route_is_correct_and_scores_every_component():
    graph = graph_of(NETWORK)
    question = make_question(graph, "B Station", "G Station")
    assert [s.route_name for s in question.routes[0]] == ["Line 1", "Line 2"]
    short = judge(rendered(question.routes[0]), question, graph)
    assert short == Score(
        1, 19.0, {"dep_arr": 1, "route_name": 4, "stops": 4, "num_via": None, "via_stop": None, "bonus": 10}
    )
    long = judge(rendered(question.routes[0]), question, graph, "long")
    assert long.components == {"dep_arr": 1, "route_name": 4, "stops": 4, "num_via": 8, "via_stop": None, "bonus": 20}
    assert long.map_score == 37.0 == max_map_score(question, "long")


def test_optimality_is_not_required_and_via_stops_do_not_decide_correctness():
    graph = graph_of(NETWORK)
    question = make_question(graph, "A Station", "C Station")  # the reference rides Line 1
    detour = answer(("Line 3", "A Station", "H Station", 99), ("Line 3", "H Station", "A Station", 0))
    assert judge(detour, question, graph).failure == "wrong_endpoints"
    long_way = answer(("Line 1", "A Station", "D Station", 17), ("Line 1", "D Station", "C Station", 3))
    score = judge(long_way, question, graph, "long")
    assert score.correct == 1 and score.failure is None


FAILURE_CASES = {
    "invalid_format": Invalid("no route section"),
    "refusal": Invalid("refusal", refusal=True),
    "wrong_endpoints": answer(("Line 1", "A Station", "C Station"), ("Line 2", "C Station", "F Station")),
    "unknown_line": answer(("Line 1", "B Station", "C Station"), ("Line 9", "C Station", "G Station")),
    "unknown_station": answer(("Line 1", "B Station", "Nowhere Station"), ("Line 2", "Nowhere Station", "G Station")),
    "station_not_on_line": answer(("Line 1", "B Station", "C Station"), ("Line 1", "C Station", "G Station")),
    "broken_chain": answer(("Line 1", "B Station", "D Station"), ("Line 2", "C Station", "G Station")),
}


@pytest.mark.parametrize("label", sorted(FAILURE_CASES))
def test_each_failure_label_names_the_first_failing_check(label):
    graph = graph_of(NETWORK)
    question = make_question(graph, "B Station", "G Station")
    score = judge(FAILURE_CASES[label], question, graph)
    assert score.correct == 0 and score.failure == label
    assert score.components["bonus"] == 0


def test_ambiguous_station_when_the_line_cannot_tell_two_homonyms_apart():
    graph = graph_of({"L": ["A Station", "X (1) Station", "X(1) Station", "B Station"], "M": ["B Station", "Z"]})
    question = make_question(graph, "A Station", "Z")
    score = judge(answer(("L", "A Station", "x 1"), ("M", "x 1", "Z")), question, graph)
    assert score.failure == "ambiguous_station"


def test_every_failure_label_is_exercised():
    assert set(FAILURES) == set(FAILURE_CASES) | {"ambiguous_station"}


def test_invalid_answers_score_zero_everywhere_and_keep_their_reason():
    graph = graph_of(NETWORK)
    question = make_question(graph, "B Station", "G Station", template="via_stops")
    for kind in ("short", "long"):
        score = judge(Invalid("section 1: no Arrival Stop"), question, graph, kind)
        assert (score.correct, score.map_score, score.failure) == (0, 0.0, "invalid_format")
        assert score.invalid_reason == "section 1: no Arrival Stop"
        assert all(not value for value in score.components.values())
        assert (score.components["via_stop"] is None) == (kind == "short")
        assert score.components["num_via"] is None
    empty = judge(ParsedAnswer(()), question, graph)
    assert (empty.failure, empty.invalid_reason) == ("invalid_format", "no route section")


def test_homonyms_with_and_without_a_space_stay_two_stations():
    graph = graph_of(HOMONYMS)
    question = make_question(graph, "79 St Station", "Cathedral Pkwy (110 St) Station")
    right = answer(("1", "79 St Station", "Cathedral Pkwy (110 St) Station"))
    other = answer(("1", "79 St Station", "Cathedral Pkwy(110 St) Station"))
    context = answer(("Line 1", "79 st", "cathedral pkwy 110 st"))  # ambiguous alone, settled by the question
    assert judge(right, question, graph).correct == 1
    assert judge(other, question, graph).failure == "wrong_endpoints"
    assert judge(context, question, graph).correct == 1
    middle = make_question(graph, "125 St Station", "72 St Station")
    via_homonym = answer(("4", "125 St Station", "cathedral pkwy 110 st"), ("Line 4", "Cathedral Pkwy 110 St", "72 St"))
    assert judge(via_homonym, middle, graph).failure == "station_not_on_line"


# -- Algorithm 2: map score ------------------------------------------------------


def test_wrong_endpoints_score_zero_unless_ungated():
    graph = graph_of(NETWORK)
    question = make_question(graph, "B Station", "G Station")
    wrong_end = answer(("Line 1", "B Station", "C Station"), ("Line 2", "C Station", "F Station"))
    zero = {"dep_arr": 0, "route_name": 0, "stops": 0, "num_via": None, "via_stop": None, "bonus": 0}
    for variant in ("paper", "C1", "C2"):  # Algorithm 2: every point sits inside the endpoint check
        score = judge(wrong_end, question, graph, variant=variant)
        assert (score.map_score, score.components, score.failure) == (0.0, zero, "wrong_endpoints")
    long = judge(wrong_end, question, graph, "long")
    assert long.map_score == 0.0 and long.components["num_via"] == 0.0
    # ungated: line 2 + 2, departures 1 + 1, arrival C 1 (F is not G), no endpoint point
    score = judge(wrong_end, question, graph, variant="ungated")
    assert score.components == {**zero, "route_name": 4, "stops": 3}
    assert score.map_score == 7.0


def test_a_wrong_first_departure_scores_zero_too():
    graph = graph_of(NETWORK)
    question = make_question(graph, "B Station", "G Station")
    wrong_start = answer(("Line 1", "A Station", "C Station"), ("Line 2", "C Station", "G Station"))
    assert judge(wrong_start, question, graph).map_score == 0.0
    assert judge(wrong_start, question, graph, variant="ungated").map_score == 2 + 2 + 3  # lines; 3 of 4 stops


def test_sections_pair_with_reference_segments_by_position_up_to_the_shorter():
    graph = graph_of(NETWORK)
    question = make_question(graph, "B Station", "G Station")
    one = judge(answer(("Line 1", "B Station", "G Station")), question, graph)
    assert (one.components["route_name"], one.components["stops"], one.components["dep_arr"]) == (2, 1, 1)
    three = answer(("Line 1", "B Station", "C Station"), ("Line 2", "C Station", "F Station"), ("Line 2", "F", "G"))
    score = judge(three, question, graph)
    assert (score.components["route_name"], score.components["stops"], score.correct) == (4, 3, 1)


def test_short_score_is_capped_at_ten_before_the_bonus():
    graph = graph_of({"L": [f"S{i}" for i in range(8)], "M": ["S3", "T1"], "N": ["T1", "U1"], "O": ["U1", "V1"]})
    question = make_question(graph, "S0", "V1")
    assert len(question.routes[0]) == 4
    score = judge(rendered(question.routes[0]), question, graph)
    assert score.map_score == 20.0 == max_map_score(question, "short")
    assert score.components["route_name"] + score.components["stops"] + score.components["dep_arr"] == 17


@pytest.mark.parametrize(
    ("answered", "points"),
    [(4, 4.0), (8, 2.0), (2, 2.0), (0, 0.0), (12, 4 - 8 / 12 * 4), (None, 0.0)],
)
def test_via_count_points_divide_the_error_by_the_larger_count(answered, points):
    graph = graph_of(NETWORK)
    question = make_question(graph, "A Station", "H Station")
    assert question.routes[0][0].num_via_stops == 4
    score = judge(answer(("Line 3", "A Station", "H Station", answered)), question, graph, "long")
    assert score.components["num_via"] == pytest.approx(points)
    assert score.map_score == pytest.approx(min(20, 5 + points) + 20)


def test_both_counts_zero_earn_the_full_four():
    graph = graph_of(NETWORK)
    question = make_question(graph, "A Station", "H1 Station")
    assert judge(answer(("Line 3", "A Station", "H1 Station", 0)), question, graph, "long").components["num_via"] == 4
    assert judge(answer(("Line 3", "A Station", "H1 Station", 1)), question, graph, "long").components["num_via"] == 0


def test_via_stop_points_are_iou_and_matches_of_resolved_names():
    graph = graph_of(NETWORK)
    question = make_question(graph, "A Station", "H Station", template="via_stops")
    partial = answer(("Line 3", "A Station", "H Station", None, ("h1", "H2 Station", "Nowhere")))
    score = judge(partial, question, graph, "long")
    assert score.components["via_stop"] == pytest.approx((2 / 5 * 10 + 2) / 2)
    assert score.components["num_via"] is None
    full = judge(rendered(question.routes[0]), question, graph, "long")
    assert full.components["via_stop"] == (10 + 4) / 2
    repeated = answer(("Line 3", "A Station", "H Station", None, ("H1", "h1", "H1 Station")))
    assert judge(repeated, question, graph, "long").components["via_stop"] == pytest.approx((1 / 4 * 10 + 1) / 2)


def test_an_exact_empty_via_list_is_right_and_a_missing_one_is_not():
    graph = graph_of(NETWORK)
    question = make_question(graph, "A Station", "H1 Station", template="via_stops")
    stated = judge(answer(("Line 3", "A Station", "H1 Station", None, ())), question, graph, "long")
    missing = judge(answer(("Line 3", "A Station", "H1 Station")), question, graph, "long")
    assert (stated.components["via_stop"], missing.components["via_stop"]) == (5.0, 0.0)


def test_via_stop_iou_pools_only_sections_on_the_reference_line():
    graph = graph_of(NETWORK)
    question = make_question(graph, "B Station", "G Station", template="via_stops")
    assert [len(s.via_stops) for s in question.routes[0]] == [0, 1]  # Line 1 B-C, Line 2 C-F-G
    # section 2 on the wrong line: its via stops count as matches (F) but stay out of the IoU,
    # which pools section 1 only (both empty, stated: IoU 1)
    wrong_line = answer(
        ("Line 1", "B Station", "C Station", None, ()), ("Line 3", "C Station", "G Station", None, ("F Station", "X"))
    )
    score = judge(wrong_line, question, graph, "long")
    assert score.components["via_stop"] == (10 * 1 + 1) / 2
    assert score.map_score == 1 + 2 + 4 + 5.5  # endpoints, one line, four stops, via stops; not correct
    assert score.failure == "station_not_on_line"


def test_via_stop_iou_is_zero_when_no_section_is_on_the_reference_line():
    graph = graph_of(NETWORK)
    question = make_question(graph, "B Station", "G Station", template="via_stops")
    score = judge(answer(("Line 3", "B Station", "G Station", None, ())), question, graph, "long")
    assert score.components["via_stop"] == 0.0  # nothing pooled; section 1's reference has no via stop to match
    assert score.map_score == 1 + 0 + 1  # endpoints; the departure B


def test_the_paper_example_of_line_matched_pooling_in_shanghai():
    graph = city_graph("shanghai")
    question = make_question(graph, "徐家汇站", "龙阳路站", template="via_stops")
    first = question.routes[0]
    assert [(s.route_name, s.arrival_stop, len(s.via_stops)) for s in first] == [
        ("Line 9", "世纪大道站", 7),
        ("Line 2", "龙阳路站", 2),
    ]
    section_1 = ParsedSection("Line 9", "徐家汇站", "世纪大道站", None, first[0].via_stops)
    section_2 = ParsedSection("Line 8", "世纪大道站", "龙阳路站", None, ())
    score = judge(ParsedAnswer((section_1, section_2)), question, graph, "long")
    # 1 (endpoints) + 4 (four stops) + 2 (Line 9) + (10 × IoU 7/7 + 7 matched) / 2
    assert score.map_score == 15.5
    assert score.correct == 0


def test_a_route_stated_twice_is_judged_on_its_last_statement():
    graph = graph_of(NETWORK)
    question = make_question(graph, "B Station", "G Station")
    draft = [("Line 1", "B Station", "D Station")]  # a broken draft
    final = [("Line 1", "B Station", "C Station"), ("Line 2", "C Station", "G Station")]
    score = judge(answer(*draft, *final), question, graph)
    assert (score.correct, score.map_score) == (1, 19.0)  # 1 + 4 + 4 + 10, as the final statement alone
    repeated = judge(answer(*final, *final), question, graph)
    assert (repeated.correct, repeated.map_score) == (1, 19.0)
    wrong_final = judge(answer(*final, ("Line 1", "B Station", "D Station")), question, graph)
    assert (wrong_final.correct, wrong_final.map_score, wrong_final.failure) == (0, 0.0, "wrong_endpoints")


def test_long_score_is_capped_at_twenty_before_the_bonus():
    graph = graph_of(NETWORK)
    question = make_question(graph, "B Station", "G Station")
    score = judge(rendered(question.routes[0]), question, graph, "long")
    assert score.map_score == 37.0  # 1 + 8 + 8 = 17 under the cap
    graph = graph_of({"L": [f"S{i}" for i in range(8)], "M": ["S3", "T1"], "N": ["T1", "U1"]})
    question = make_question(graph, "S0", "U1")
    assert judge(rendered(question.routes[0]), question, graph, "long").map_score == 40.0


# -- variants --------------------------------------------------------------------


def two_reference_question():
    graph = graph_of(NETWORK)
    first = make_question(graph, "B Station", "G Station").routes[0]
    second = make_question(graph, "A Station", "H Station").routes[0]  # unrelated: scores low
    return graph, make_question(graph, "B Station", "G Station", routes=(second, first))


def test_paper_takes_the_best_reference_and_its_components():
    graph, question = two_reference_question()
    score = judge(rendered(question.routes[1]), question, graph)
    assert score.map_score == 19.0
    assert (score.components["route_name"], score.components["stops"]) == (4, 4)


def test_c1_averages_over_references():
    graph, question = two_reference_question()
    score = judge(rendered(question.routes[1]), question, graph, variant="C1")
    # against the unrelated reference: dep_arr 1 + nothing = 1
    assert score.map_score == pytest.approx((9 + 1) / 2 + 10)
    assert score.components["route_name"] == 2 and score.components["stops"] == 2


def test_c2_gives_no_endpoint_point():
    graph, question = two_reference_question()
    score = judge(rendered(question.routes[1]), question, graph, variant="C2")
    assert score.components["dep_arr"] == 0 and score.map_score == 18.0


def test_options_are_checked_and_the_error_lists_the_choices():
    graph = graph_of(NETWORK)
    question = make_question(graph, "B Station", "G Station")
    with pytest.raises(ValueError, match=re.escape("['paper', 'C1', 'C2', 'ungated']")):
        judge(rendered(question.routes[0]), question, graph, variant="best")
    with pytest.raises(ValueError, match="short"):
        judge(rendered(question.routes[0]), question, graph, kind="medium")
    with pytest.raises(TypeError, match="ParsedAnswer"):
        judge("Route Name: Line 1", question, graph)
    with pytest.raises(ValueError, match="rome"):
        judge(rendered(question.routes[0]), dataclasses.replace(question, city="rome"), city_graph("toronto"))
    assert get_map_score_rule("paper") is MAP_SCORE_RULES["paper"]


# Every variant classified with its properties (a new variant fails until it is added here).
VARIANT_PROPERTIES = {
    "paper": {"aggregate": "best", "endpoint_point": True, "monotone_in_references": True},
    "C1": {"aggregate": "mean", "endpoint_point": True, "monotone_in_references": False},
    "C2": {"aggregate": "best", "endpoint_point": False, "monotone_in_references": True},
    "ungated": {"aggregate": "best", "endpoint_point": True, "monotone_in_references": True},
}
COMMON_PROPERTIES = {"higher_is_better": True, "bounds": {"short": (0.0, 20.0), "long": (0.0, 40.0)}}


def test_the_route_facade_names_the_task_variants_and_the_rules_apart():
    # one name, one meaning: the facade's variant names are the task's (official included); the map-score
    # aggregation rules are the four paper-like ones among them
    import benchmarks.reasonmap
    from benchmarks import get_task

    assert benchmarks.reasonmap.VARIANT_NAMES == get_task("route").variant_names
    assert benchmarks.reasonmap.VARIANT_NAMES == ("paper", "C1", "C2", "ungated", "official")
    assert tuple(MAP_SCORE_RULES) == ("paper", "C1", "C2", "ungated")
    assert not hasattr(benchmarks.reasonmap, "VARIANTS")


def test_every_variant_is_classified():
    assert set(MAP_SCORE_RULES) == set(VARIANT_PROPERTIES), "classify the new variant in VARIANT_PROPERTIES"
    for name, chosen in MAP_SCORE_RULES.items():
        assert chosen.name == name and chosen.description


@pytest.mark.parametrize("name", sorted(MAP_SCORE_RULES))
@pytest.mark.parametrize("city", ["rome", "beijing", "new_york"])
def test_variant_properties_hold(name, city):
    expected = VARIANT_PROPERTIES[name]
    chosen = MAP_SCORE_RULES[name]
    assert (chosen.aggregate, chosen.endpoint_point) == (expected["aggregate"], expected["endpoint_point"])
    graph = city_graph(city)
    for question in city_questions(city)[:12]:
        for kind in ("short", "long"):
            low, high = COMMON_PROPERTIES["bounds"][kind]
            scores = [judge(rendered(route), question, graph, kind, name) for route in question.routes]
            wrong = [judge(candidate, question, graph, kind, name) for candidate in corruptions(question)]
            for score in scores + wrong:
                assert low <= score.map_score <= high
                assert score.components["dep_arr"] in ((0, 1) if expected["endpoint_point"] else (0,))
            # higher is better: a valid route beats every invalid one
            assert all(s.correct for s in scores)
            assert min(s.map_score for s in scores) > max((w.map_score for w in wrong if not w.correct), default=0)
            if expected["aggregate"] == "best":
                assert max(s.map_score for s in scores) == max_map_score(question, kind, variant=name)
            if expected["monotone_in_references"] and len(question.routes) > 1:
                fewer = dataclasses.replace(question, routes=question.routes[:1])
                for route in question.routes:
                    assert (
                        judge(rendered(route), fewer, graph, kind, name).map_score
                        <= judge(rendered(route), question, graph, kind, name).map_score
                    )


def corruptions(question: Question) -> list[ParsedAnswer]:
    """Deterministic wrong answers: a wrong line, a wrong station, a section dropped, the ends swapped."""
    route = question.routes[0]
    first = route[0]
    found = [
        answer(
            ("Line 99", first.departure_stop, first.arrival_stop),
            *[(s.route_name, s.departure_stop, s.arrival_stop) for s in route[1:]],
        ),
        answer(*[(s.route_name, s.departure_stop, "Nowhere Station") for s in route]),
        answer(*[(s.route_name, s.arrival_stop, s.departure_stop) for s in reversed(route)]),
    ]
    if len(route) > 1:
        found.append(answer(*[(s.route_name, s.departure_stop, s.arrival_stop) for s in route[:-1]]))
    return found


# -- batches ---------------------------------------------------------------------


def test_score_predictions_says_why_it_skipped_and_keeps_every_other_prediction():
    graph = city_graph("rome")
    questions = {q.id: q for q in city_questions("rome")[:3]}
    first, second, _ = questions.values()
    text = "\n--\n".join(
        f"Route Name: {s.route_name}\nDeparture Stop: {s.departure_stop}\nArrival Stop: {s.arrival_stop}"
        for s in first.routes[0]
    )
    predictions = [
        Prediction(first.id, "m", "short", text, tokens=12),
        Prediction("missing", "m", "short", text),
        Prediction(second.id, "m", "long", ""),
        Prediction(first.id, "m", "long", "I am sorry, I cannot answer."),
    ]
    calls = []

    def graph_for(question):
        calls.append(question.id)
        return graph

    verdicts, skipped = score_predictions(questions, predictions, graph_for, weighting="none")
    assert skipped == ["prediction 'missing' matches no question"]
    assert [(v.id, v.question, v.correct, v.failure) for v in verdicts] == [
        (first.id, "short", 1, None),
        (second.id, "long", 0, "invalid_format"),
        (first.id, "long", 0, "refusal"),
    ]
    assert verdicts[0].tokens == 12 and verdicts[0].parsed is not None and verdicts[1].parsed is None
    assert verdicts[1].invalid_reason == "empty response"
    assert all(v.weight == 1.0 for v in verdicts)
    assert sorted(calls) == sorted({first.id, second.id})  # one graph look-up per question
    with pytest.raises(ValueError, match="paper"):
        score_predictions(questions, predictions, graph_for, weighting="heavy")
    with pytest.raises(ValueError, match="C1"):
        score_predictions(questions, predictions, graph_for, variant="worst")


def test_score_prediction_checks_the_id_and_matches_the_batch():
    graph = city_graph("rome")
    question = city_questions("rome")[0]
    prediction = Prediction(question.id, "m", "short", "Route Name: Line A\nDeparture Stop: X\nArrival Stop: Y")
    single = score_prediction(prediction, question, graph)
    batch, _ = score_predictions({question.id: question}, [prediction], lambda q: graph)
    assert single == batch[0]
    with pytest.raises(ValueError, match="another question"):
        score_prediction(dataclasses.replace(prediction, id="other"), question, graph)


# -- properties ------------------------------------------------------------------

STATIONS = [f"S{i} Station" for i in range(12)]


def networks():
    """Random Metro Data over :data:`STATIONS` (:func:`tests.networks.random_lines`)."""
    return random_lines(STATIONS)


@st.composite
def network_questions(draw):
    data = draw(networks())
    graph = graph_of(data)
    questions = generate_questions(graph, seed=draw(st.integers(0, 3)), per_city=6)
    assume(questions)
    return data, graph, draw(st.sampled_from(questions))


@st.composite
def city_question(draw):
    city = draw(st.sampled_from(["beijing", "rome", "new_york"]))
    return city_graph(city), draw(st.sampled_from(city_questions(city)))


@st.composite
def wrong_answers(draw, graph, question):
    """Reference routes with random edits, and wholly random routes."""
    if draw(st.booleans()):
        rows = [[s.route_name, s.departure_stop, s.arrival_stop] for s in draw(st.sampled_from(question.routes))]
        for _ in range(draw(st.integers(1, 3))):
            edit = draw(st.sampled_from(["line", "station", "drop", "add"]))
            row = draw(st.sampled_from(rows))
            if edit == "line":
                row[0] = draw(st.sampled_from([*graph.lines, "Line 99"]))
            elif edit == "station":
                row[draw(st.sampled_from([1, 2]))] = draw(st.sampled_from([*graph.stations, "Nowhere"]))
            elif edit == "drop" and len(rows) > 1:
                rows.remove(row)
            else:
                rows.append(list(row))
    else:
        size = draw(st.integers(1, 3))
        rows = [
            [
                draw(st.sampled_from(list(graph.lines))),
                draw(st.sampled_from(graph.stations)),
                draw(st.sampled_from(graph.stations)),
            ]
            for _ in range(size)
        ]
    return answer(*[(*row, draw(st.none() | st.integers(0, 12))) for row in rows])


PROPERTY_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY_SETTINGS
@given(network_questions(), st.sampled_from(["short", "long"]))
def test_a_rendered_reference_is_correct_and_scores_the_maximum_on_random_networks(found, kind):
    _, graph, question = found
    check_reference_scores(graph, question, kind)


@PROPERTY_SETTINGS
@given(city_question(), st.sampled_from(["short", "long"]))
def test_a_rendered_reference_is_correct_and_scores_the_maximum_in_real_cities(found, kind):
    check_reference_scores(*found, kind)


def check_reference_scores(graph, question, kind):
    cap, bonus = (10, 10) if kind == "short" else (20, 20)
    scores = []
    for route in question.routes:
        score = judge(rendered(route), question, graph, kind)
        check_bounds(score, kind)
        assert score.correct == 1
        via = 0
        if kind == "long":
            vias = sum(len(s.via_stops) for s in route)
            via = min(10, 4 * len(route)) if question.long_template == "via_count" else (10 + min(10, vias)) / 2
        # no answer can score more against this reference
        assert score.map_score == min(cap, 1 + 4 * len(route) + via) + bonus
        if len(route) >= 3 and (kind == "short" or question.long_template == "via_count"):
            assert score.map_score == 2 * cap  # the caps are reached: 20 short, 40 long
        scores.append(score.map_score)
    assert max(scores) == max_map_score(question, kind)


@PROPERTY_SETTINGS
@given(st.data(), st.sampled_from(["short", "long"]))
def test_a_correct_answer_outscores_every_incorrect_one(data, kind):
    graph, question = data.draw(
        city_question() if data.draw(st.booleans()) else network_questions().map(lambda f: f[1:])
    )
    candidates = [rendered(data.draw(st.sampled_from(question.routes)))]
    candidates += [data.draw(wrong_answers(graph, question)) for _ in range(4)]
    scores = [judge(candidate, question, graph, kind) for candidate in candidates]
    for score in scores:
        check_bounds(score, kind)
    right = [s.map_score for s in scores if s.correct]
    wrong = [s.map_score for s in scores if not s.correct]
    event(f"incorrect answers among the candidates: {len(wrong)}")
    if right and wrong:
        assert min(right) > max(wrong)


def line_rewrites(name: str) -> list[str]:
    key = line_keys(name)[0]
    forms = [name, name.upper(), f"Route {key}", f"line {key}"]
    if key.isdigit() or has_cjk(key):
        forms.append(f"{key}号线")
    return forms


def station_rewrites(name: str) -> list[str]:
    bare = name.removesuffix(" Station").removesuffix("站")
    return [name, name.lower(), name.upper(), bare, f" {bare} station "]


@PROPERTY_SETTINGS
@given(city_question(), st.sampled_from(["short", "long"]), st.data())
def test_name_equivalent_rewrites_change_nothing(found, kind, data):
    graph, question = found
    route = data.draw(st.sampled_from(question.routes))
    original = rendered(route)

    sections = []
    for s in original.sections:
        line = data.draw(
            st.sampled_from([f for f in line_rewrites(s.route_name) if graph.line_index.lookup(f).name == s.route_name])
        )
        on = graph_names(graph).line(s.route_name)
        ends = [data.draw(st.sampled_from(unambiguous(graph, name, on))) for name in (s.departure_stop, s.arrival_stop)]
        vias = tuple(data.draw(st.sampled_from(unambiguous(graph, stop, on))) for stop in s.via_stops)
        sections.append(ParsedSection(line, *ends, s.num_via_stops, vias))
    assert judge(ParsedAnswer(tuple(sections)), question, graph, kind) == judge(original, question, graph, kind)


def unambiguous(graph, name: str, line: str) -> list[str]:
    """The rewrites of a station name that still name its station on ``line`` (where a shared name is read)."""
    names = graph_names(graph)
    meant = names.station(name, line)
    return [form for form in station_rewrites(name) if names.station(form, line) == meant]


@PROPERTY_SETTINGS
@given(network_questions(), st.sampled_from(["short", "long"]), st.data())
def test_adding_references_never_lowers_a_map_score(found, kind, data):
    _, graph, question = found
    candidate = data.draw(wrong_answers(graph, question) | st.sampled_from(question.routes).map(rendered))
    extra = data.draw(network_questions())[2].routes  # references of another question: new, unrelated routes
    more = dataclasses.replace(question, routes=question.routes + extra)
    for variant in ("paper", "C2"):
        assert (
            judge(candidate, more, graph, kind, variant).map_score
            >= judge(candidate, question, graph, kind, variant).map_score
        )


@PROPERTY_SETTINGS
@given(network_questions(), st.sampled_from(["short", "long"]), st.data())
def test_renaming_stations_consistently_changes_nothing(found, kind, data):
    network, graph, question = found
    candidate = data.draw(wrong_answers(graph, question) | st.sampled_from(question.routes).map(rendered))
    order = data.draw(st.permutations(STATIONS))
    new_name = {old: f"Renamed {order.index(old)} Stop" for old in STATIONS}
    rename = lambda name: new_name.get(name, name)  # noqa: E731 - unknown names stay unknown
    renamed_graph = graph_of({line: [rename(s) for s in stations] for line, stations in network.items()})
    renamed_question = dataclasses.replace(
        question,
        station_1=rename(question.station_1),
        station_2=rename(question.station_2),
        routes=tuple(
            tuple(
                dataclasses.replace(
                    s,
                    departure_stop=rename(s.departure_stop),
                    arrival_stop=rename(s.arrival_stop),
                    via_stops=tuple(map(rename, s.via_stops)),
                )
                for s in route
            )
            for route in question.routes
        ),
    )
    renamed_answer = ParsedAnswer(
        tuple(
            dataclasses.replace(
                s,
                departure_stop=rename(s.departure_stop),
                arrival_stop=rename(s.arrival_stop),
                via_stops=None if s.via_stops is None else tuple(map(rename, s.via_stops)),
            )
            for s in candidate.sections
        )
    )
    assert judge(renamed_answer, renamed_question, renamed_graph, kind) == judge(candidate, question, graph, kind)


def test_the_reading_of_a_response_is_a_seam():
    # a harness that writes each response backwards: read as it is, nothing parses; read through a reader that
    # turns it round first, it scores as the same answer written forwards
    from benchmarks.reasonmap.parsing import read_answer
    from benchmarks.reasonmap.scoring import score_prediction, score_predictions

    graph = city_graph("rome")
    question = generate_questions(graph, seed=1, per_city=1)[0]
    text = "Route Name: Line B\nDeparture Stop: Colosseo Station\nArrival Stop: Marconi Station"
    forwards = score_prediction(Prediction(question.id, "m", "short", text), question, graph)
    backwards = Prediction(question.id, "m", "short", text[::-1])
    assert forwards.correct == 1
    assert score_prediction(backwards, question, graph).correct == 0

    def turned(response: str, long: bool, template: str | None):
        return read_answer(response[::-1], long, template)

    assert score_prediction(backwards, question, graph, read=turned) == forwards
    verdicts, _ = score_predictions({question.id: question}, [backwards], lambda q: graph, read=turned)
    assert verdicts == [forwards]

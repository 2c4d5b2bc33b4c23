"""Regressions: each defect of the public evaluation code (DESIGN.md, "Scoring") stays fixed.

Every test goes through the whole pipeline, text to verdict, as a user's
predictions would.
"""

from __future__ import annotations

import dataclasses

import pytest

from benchmarks.reasonmap.generate import generate_questions
from benchmarks.reasonmap.records import Prediction, Question
from benchmarks.reasonmap.scoring import score_prediction
from graphkit import city_graph
from tests.benchmarks.reasonmap.test_scoring import make_question


def question_for(city: str, station_1: str, station_2: str, template: str = "via_count") -> Question:
    return make_question(city_graph(city), station_1, station_2, template=template)


def verdict(question: Question, text: str, kind: str = "short", **options):
    return score_prediction(
        Prediction(question.id, "model", kind, text), question, city_graph(question.city), **options
    )


def as_text(rows, *, count=None, via=None) -> str:
    """The template's own format: one block per section, ``--`` between."""
    blocks = []
    for line, departure, arrival in rows:
        block = f"Route Name: {line}\nDeparture Stop: {departure}\nArrival Stop: {arrival}"
        if count is not None:
            block += f"\nNumber of Via Stops: {count}"
        if via is not None:
            block += f"\nVia Stops: {via}"
        blocks.append(block)
    return "\n--\n".join(blocks)


# -- route names -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("city", "station_1", "station_2", "lines"),
    [
        ("rome", "Termini Station", "Libia Station", ["Line B"]),
        ("toronto", "Union Station", "Kennedy Station", ["Line 1", "Line 2"]),
    ],
)
def test_route_names_earn_credit_outside_china(city, station_1, station_2, lines):
    # the public code mangles the answer's name ("Line 1" -> "Line Li") and never credits it
    question = question_for(city, station_1, station_2)
    rows = [(s.route_name, s.departure_stop, s.arrival_stop) for s in question.routes[0]]
    assert [row[0] for row in rows] == lines
    found = verdict(question, as_text(rows))
    assert found.correct == 1
    assert found.components["route_name"] == 2 * len(lines)


@pytest.mark.parametrize("written", ["Line 1", "Route 1", "1", "1 Train", "line 1"])
def test_new_york_line_1_is_the_data_key_1(written):
    # the public code needs the Metro Data key exactly ("1"), though the template asks for "Line x"
    question = question_for("new_york", "116 St-Columbia University Station", "96 St Station")
    assert [route[0].route_name for route in question.routes] == ["1"]
    found = verdict(question, as_text([(written, "116 St-Columbia University Station", "96 St Station")]))
    assert (found.correct, found.components["route_name"]) == (1, 2)


# -- stations ---------------------------------------------------------------------


def test_the_arrival_is_compared_with_the_reference_arrival():
    # the public code compares the reference's departure where it means its arrival
    question = question_for("rome", "Termini Station", "Libia Station")
    right = verdict(question, as_text([("Line B", "Termini Station", "Libia Station")]))
    assert right.components["stops"] == 2
    arrival_as_departure = verdict(question, as_text([("Line B", "Castro Pretorio Station", "Termini Station")]))
    assert arrival_as_departure.components["stops"] == 0


def test_parenthesised_names_are_not_merged():
    # the public code deletes all parenthesised text, so these two New York stations become one
    question = question_for("new_york", "96 St Station", "Cathedral Pkwy(110 St) Station")
    other = verdict(question, as_text([("1", "96 St Station", "Cathedral Pkwy (110 St) Station")]))
    assert other.correct == 0 and other.failure == "wrong_endpoints"
    assert other.map_score == 0.0  # Algorithm 2: no point at all with a wrong endpoint
    ungated = verdict(question, as_text([("1", "96 St Station", "Cathedral Pkwy (110 St) Station")]), variant="ungated")
    assert ungated.components["stops"] == 1 and ungated.components["dep_arr"] == 0
    right = verdict(question, as_text([("1", "96 St Station", "Cathedral Pkwy(110 St) Station")]))
    assert right.correct == 1 and right.components["stops"] == 2
    on_line_1 = question_for("new_york", "Cathedral Pkwy(110 St) Station", "96 St Station")
    wrong_one = verdict(on_line_1, as_text([("1", "Cathedral Pkwy (110 St) Station", "96 St Station")]))
    assert wrong_one.failure == "wrong_endpoints"


@pytest.mark.parametrize(
    "written",
    [
        "新街口，平安里，西四",
        "新街口、平安里、西四",
        "新街口, 平安里, 西四",
        "新街口站,平安里站,西四站",
        "Xinjiekou, Pinganli, Xisi",
    ],
)
def test_via_stops_without_zhan_and_with_chinese_separators_count(written):
    # the public code reads via stops only when they contain 站, and splits on ASCII commas only
    question = question_for("beijing", "西直门站", "灵境胡同站", template="via_stops")
    assert question.routes[0][0].via_stops == ("新街口站", "平安里站", "西四站")
    found = verdict(question, as_text([("4号线", "西直门", "灵境胡同")], via=written), "long")
    assert found.correct == 1
    assert found.components["via_stop"] == (10 + 3) / 2


def test_via_stops_count_in_cities_without_zhan():
    question = question_for("rome", "Termini Station", "Libia Station", template="via_stops")
    text = as_text([("Line B", "Termini", "Libia")], via="Castro Pretorio, Policlinico, Bologna, S. Agnese Annibaliano")
    assert verdict(question, text, "long").components["via_stop"] == (10 + 4) / 2


# -- parsing around the fields ------------------------------------------------------

PLAIN = "Route Name: Line B\nDeparture Stop: Termini Station\nArrival Stop: Libia Station"


@pytest.mark.parametrize(
    "text",
    [
        "**Route Name:** Line B\n**Departure Stop:** Termini Station\n**Arrival Stop:** Libia Station",
        f"<think>Line B runs north-east from Termini.\nRoute Name: Line A</think>\n{PLAIN}",
        f"Let me look at the map.\n<answer>\n{PLAIN}\n</answer>",
        f"{PLAIN}\n\nThis route takes Line B directly, with no transfer.",
        f"Here is the route:\n\n{PLAIN}\n\nHope this helps!",
    ],
    ids=["markdown", "think", "answer-tags", "prose-after", "prose-around"],
)
def test_wrapped_answers_parse_and_score_like_plain_ones(text):
    # the public code breaks on markdown bold, <think> blocks, <answer> tags and prose after the last field
    question = question_for("rome", "Termini Station", "Libia Station")
    plain = verdict(question, PLAIN)
    wrapped = verdict(question, text)
    assert (wrapped.correct, wrapped.map_score, wrapped.components) == (1, plain.map_score, plain.components)


@pytest.mark.parametrize(
    ("city", "station_1", "station_2", "written_1", "written_2"),
    [
        ("rome", "Termini Station", "Libia Station", "Termini Station (Transfer Station)", "Libia Station"),
        ("shanghai", "徐家汇站", "上海体育馆站", "徐家汇站（换乘站）", "上海体育馆站 (transfer station)"),
    ],
)
def test_annotations_copied_from_the_data_are_stripped_from_answers(city, station_1, station_2, written_1, written_2):
    # the data's annotations are not part of a name; the public code keeps them in answers and rejects the route
    question = question_for(city, station_1, station_2)
    line = question.routes[0][0].route_name
    assert len(question.routes[0]) == 1
    found = verdict(question, as_text([(line, written_1, written_2)]))
    assert (found.correct, found.failure) == (1, None)
    assert (found.parsed[0].departure_stop, found.parsed[0].arrival_stop) == (station_1, station_2.split(" (")[0])


def test_a_draft_then_a_final_answer_is_judged_on_the_final_one():
    question = question_for("rome", "Termini Station", "Libia Station")
    draft = as_text([("Line A", "Termini Station", "Spagna Station")])
    final = as_text([("Line B", "Termini Station", "Libia Station")])
    found = verdict(question, f"First attempt:\n{draft}\n\nOn reflection, the final answer:\n{final}")
    assert (found.correct, found.map_score) == (1, 15.0)  # 1 + 2 + 2 + 10
    assert [s.route_name for s in found.parsed] == ["Line B"]


# -- via counts and weights ---------------------------------------------------------


def test_via_count_error_is_divided_by_the_larger_count():
    # reference 4, answer 8: the paper's 4 - 4/max(8, 4)*4 = 2; the public code's 4 - 4/4*4 = 0
    question = question_for("rome", "Termini Station", "Libia Station")
    assert question.routes[0][0].num_via_stops == 4
    found = verdict(question, as_text([("Line B", "Termini Station", "Libia Station")], count=8), "long")
    assert found.components["num_via"] == pytest.approx(2.0)
    assert found.map_score == pytest.approx(1 + 2 + 2 + 2.0 + 20)


def test_difficulty_weights_are_not_fixed_to_one():
    # the public code weighs every question 1 ("TODO")
    question = next(q for q in generate_questions(city_graph("beijing"), seed=0) if q.difficulty_question == "hard")
    assert (question.difficulty_question, question.difficulty_city) == ("hard", "hard")
    assert verdict(question, "no answer").weight == 3.0
    middle = dataclasses.replace(question, difficulty_question="middle", difficulty_city="easy")
    assert verdict(middle, "no answer").weight == 1.5
    assert verdict(middle, "no answer", weighting="city").weight == 1.0
    assert verdict(question, "no answer", weighting="none").weight == 1.0

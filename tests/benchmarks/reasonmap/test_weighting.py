"""Difficulty weights: the named schemes, their properties, and the weighted accuracy."""

from __future__ import annotations

import dataclasses
import itertools
import re

import pytest

from benchmarks.difficulty import DIFFICULTIES, WEIGHTINGS, get_weighting
from benchmarks.reasonmap.generate import generate_questions
from benchmarks.reasonmap.records import Verdict
from benchmarks.reasonmap.weighting import weight_of, weighted_accuracy
from graphkit import city_graph

PAIRS = list(itertools.product(DIFFICULTIES, DIFFICULTIES))  # (question, map)


def test_paper_matrix_runs_from_one_to_three():
    scheme = get_weighting("paper")
    assert {pair: scheme.weight(*pair) for pair in PAIRS} == {
        ("easy", "easy"): 1.0,
        ("easy", "middle"): 1.5,
        ("easy", "hard"): 2.0,
        ("middle", "easy"): 1.5,
        ("middle", "middle"): 2.0,
        ("middle", "hard"): 2.5,
        ("hard", "easy"): 2.0,
        ("hard", "middle"): 2.5,
        ("hard", "hard"): 3.0,
    }


def test_city_weights_follow_the_map_only_and_none_is_flat():
    city = get_weighting("city")
    for question_level in DIFFICULTIES:
        assert [city.weight(question_level, m) for m in DIFFICULTIES] == [1.0, 1.5, 2.0]
    assert {get_weighting("none").weight(*pair) for pair in PAIRS} == {1.0}


def test_weight_of_reads_the_question_and_checks_the_scheme():
    question = generate_questions(city_graph("beijing"), seed=0, per_city=3)[-1]
    hard_hard = dataclasses.replace(question, difficulty_question="hard", difficulty_city="hard")
    assert weight_of(hard_hard) == 3.0 and weight_of(hard_hard, "city") == 2.0 and weight_of(hard_hard, "none") == 1.0
    with pytest.raises(ValueError, match=re.escape("['paper', 'city', 'none']")):
        weight_of(question, "uniform")
    with pytest.raises(ValueError, match="map difficulty"):
        get_weighting("paper").weight("easy", "medium")


def test_weighted_accuracy_is_the_weighted_share_of_correct_answers():
    verdicts = [
        Verdict("a", "m", "short", None, 1, 20.0, weight=3.0),
        Verdict("b", "m", "short", None, 0, 5.0, weight=1.0),
        Verdict("c", "m", "long", None, 1, 40.0, weight=2.0),
    ]
    assert weighted_accuracy(verdicts) == pytest.approx(5 / 6)
    assert weighted_accuracy(iter(verdicts)) == pytest.approx(5 / 6)
    with pytest.raises(ValueError, match="no verdicts"):
        weighted_accuracy([])


# Every scheme classified with its properties (a new scheme fails until it is added here).
WEIGHTING_PROPERTIES = {
    "paper": {"depends_on": {"question", "map"}, "bounds": (1.0, 3.0)},
    "city": {"depends_on": {"map"}, "bounds": (1.0, 2.0)},
    "none": {"depends_on": set(), "bounds": (1.0, 1.0)},
}


def test_every_weighting_is_classified():
    assert set(WEIGHTINGS) == set(WEIGHTING_PROPERTIES), "classify the new scheme in WEIGHTING_PROPERTIES"


@pytest.mark.parametrize("name", sorted(WEIGHTINGS))
def test_weighting_properties_hold(name):
    scheme = WEIGHTINGS[name]
    expected = WEIGHTING_PROPERTIES[name]
    assert scheme.name == name and scheme.description and "\n" not in scheme.description
    weights = {pair: scheme.weight(*pair) for pair in PAIRS}
    assert (min(weights.values()), max(weights.values())) == expected["bounds"]
    assert weights["easy", "easy"] == 1.0, "the easiest question weighs 1"
    order = {level: rank for rank, level in enumerate(DIFFICULTIES)}
    for (q1, m1), (q2, m2) in itertools.product(PAIRS, PAIRS):
        if order[q1] <= order[q2] and order[m1] <= order[m2]:
            assert weights[q1, m1] <= weights[q2, m2], "a harder question never weighs less"
    varies_with_question = any(scheme.weight("easy", m) != scheme.weight("hard", m) for m in DIFFICULTIES)
    varies_with_map = any(scheme.weight(q, "easy") != scheme.weight(q, "hard") for q in DIFFICULTIES)
    depends_on = {"question"} if varies_with_question else set()
    if varies_with_map:
        depends_on.add("map")
    assert depends_on == expected["depends_on"]

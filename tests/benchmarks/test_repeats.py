"""mean@K, pass@k and consistency (:mod:`benchmarks.repeats`) against hand-computed values and their definitions."""

from __future__ import annotations

from fractions import Fraction
from math import comb
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.repeats import pass_at_k, repeats_by_model, repeats_summary, repeats_table, with_repeats


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (5, 2, 1, 0.4),  # 1 - C(3,1)/C(5,1) = 1 - 3/5
        (5, 2, 2, 0.7),  # 1 - C(3,2)/C(5,2) = 1 - 3/10
        (5, 2, 3, 0.9),  # 1 - C(3,3)/C(5,3) = 1 - 1/10
        (5, 2, 4, 1.0),  # n - c = 3 < 4: every 4 answers hold a correct one
        (10, 1, 5, 0.5),  # 1 - C(9,5)/C(10,5) = 1 - 126/252
        (3, 0, 3, 0.0),
    ],
)
def test_pass_at_k_matches_hand_computed_binomials(n, c, k, expected):
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)


@given(st.integers(1, 60).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_at_k_is_the_unbiased_estimator_of_chen_et_al(case):
    n, c, k = case
    exact = 1 - Fraction(comb(n - c, k), comb(n, k))  # the definition, in exact arithmetic
    assert pass_at_k(n, c, k) == pytest.approx(float(exact), abs=1e-12)


@given(st.lists(st.lists(st.booleans(), min_size=3, max_size=3), min_size=1, max_size=20))
def test_k_equal_to_n_is_any_correct_and_k_1_is_the_mean(outcomes):
    summary = repeats_summary(outcomes)
    assert summary["k"] == 3
    any_correct = sum(any(answers) for answers in outcomes) / len(outcomes)
    mean = sum(sum(answers) / 3 for answers in outcomes) / len(outcomes)
    assert summary["pass_at_k"]["3"] == pytest.approx(any_correct, abs=1e-6)
    assert summary["pass_at_k"]["1"] == pytest.approx(mean, abs=1e-6) == summary["mean_at_k"]
    assert summary["pass_at_k"]["1"] <= summary["pass_at_k"]["2"] <= summary["pass_at_k"]["3"]


def test_consistency_counts_requests_whose_answers_all_agree():
    # all right, all wrong, mixed, mixed: 2 of 4 agree
    summary = repeats_summary([[1, 1], [0, 0], [1, 0], [0, 1]])
    assert summary["consistency"] == 0.5
    assert summary["mean_at_k"] == 0.5 and summary["pass_at_k"] == {"1": 0.5, "2": 0.75}


def test_requests_with_fewer_answers_cap_k_and_use_every_answer_they_have():
    # answers 4, 4 and 2: k = 2 (every request can give two); mean@K uses all answers: (2/4 + 4/4 + 0/2) / 3
    summary = repeats_summary([[1, 0, 1, 0], [1, 1, 1, 1], [0, 0]])
    assert (summary["k"], summary["k_max"], summary["n_fewer"], summary["n_requests"]) == (2, 4, 1, 3)
    assert summary["mean_at_k"] == 0.5
    assert list(summary["pass_at_k"]) == ["1", "2"]
    # pass@2: 1 - C(2,2)/C(4,2) = 5/6; 1; 0 -> (5/6 + 1 + 0) / 3 = 11/18
    assert summary["pass_at_k"]["2"] == pytest.approx(11 / 18, abs=1e-6)


def test_verdicts_are_grouped_by_model_and_request_and_a_repeated_repeat_counts_once():
    rows = [
        SimpleNamespace(id="q", question="short", model="a", correct=1, repeat=0),
        SimpleNamespace(id="q", question="short", model="a", correct=0, repeat=1),
        SimpleNamespace(id="q", question="short", model="a", correct=0, repeat=1),  # the same answer again
        SimpleNamespace(id="q", question="long", model="a", correct=0, repeat=0),
        SimpleNamespace(id="q", question="long", model="a", correct=0, repeat=1),
        SimpleNamespace(id="q", question="short", model="b", correct=1),  # no repeat: repeat 0
    ]
    found = repeats_by_model(rows, request=lambda v: (v.id, v.question))
    assert found["a"]["n_requests"] == 2 and found["a"]["k"] == 2
    assert found["a"]["mean_at_k"] == 0.25  # (1/2 + 0/2) / 2
    assert found["a"]["consistency"] == 0.5  # the long request: both wrong
    assert found["b"] == {
        "k": 1,
        "k_max": 1,
        "n_requests": 1,
        "n_fewer": 0,
        "mean_at_k": 1.0,
        "pass_at_k": {"1": 1.0},
        "consistency": 1.0,
    }


def test_the_table_appears_only_when_a_request_has_several_answers():
    single = with_repeats({"models": {"m": {"n": 1}}}, [SimpleNamespace(id="q", model="m", correct=1)])
    assert single["models"]["m"]["repeats"]["k"] == 1 and repeats_table(single) == []
    rows = [SimpleNamespace(id="q", model="m", correct=c, repeat=r) for r, c in enumerate((1, 0, 0))]
    several = with_repeats({"models": {"m": {"n": 3}}}, rows)
    # pass@3 of 1 correct in 3 is 1; consistency 0; mean 1/3
    assert repeats_table(several)[-1] == "| m | 3 | 33.33 | 33.33 | 100.00 | 0.00 |"


@pytest.mark.parametrize(("n", "c", "k"), [(3, 4, 1), (3, -1, 1), (3, 1, 0), (3, 1, 4)])
def test_impossible_counts_are_refused_naming_them(n, c, k):
    with pytest.raises(ValueError, match=f"n={n}, c={c}, k={k}"):
        pass_at_k(n, c, k)


def test_no_answers_give_no_figures():
    assert (
        repeats_summary([])
        == repeats_summary([[]])
        == {
            "k": 0,
            "k_max": 0,
            "n_requests": 0,
            "n_fewer": 0,
            "mean_at_k": None,
            "pass_at_k": {},
            "consistency": None,
        }
    )

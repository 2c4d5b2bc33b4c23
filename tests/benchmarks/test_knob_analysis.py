"""The knob report's numbers: the logistic fit against a Newton iteration written here, per-value accuracy and
paired differences of a tiny hand-made sweep counted by hand, and the no-fit cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks.knob_analysis import knob_markdown, knob_summary, logistic_fit


def newton(x, y, steps=50):
    """Maximum likelihood of a logistic regression by plain Newton-Raphson (independent of the code under test):
    returns the coefficients and the inverse observed information at them."""
    design = np.column_stack([np.ones(len(x)), x])
    beta = np.zeros(2)
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(design @ beta)))
        information = design.T @ (design * (p * (1 - p))[:, None])
        beta = beta + np.linalg.solve(information, design.T @ (y - p))
    p = 1.0 / (1.0 + np.exp(-(design @ beta)))
    return beta, np.linalg.inv(design.T @ (design * (p * (1 - p))[:, None]))


@pytest.fixture(scope="module")
def simulated():
    rng = np.random.default_rng(7)
    x = rng.choice([2.0, 5.0, 10.0, 20.0, 40.0], size=3000)
    truth = (-1.5, 0.15)
    y = (rng.random(x.size) < 1.0 / (1.0 + np.exp(-(truth[0] + truth[1] * x)))).astype(float)
    return x, y, truth


def test_the_fit_is_the_maximum_likelihood_a_newton_iteration_finds(simulated):
    x, y, _ = simulated
    fit = logistic_fit(x, y)
    beta, covariance = newton(x, y)
    assert fit["n"] == 3000
    assert fit["intercept"] == pytest.approx(beta[0], abs=1e-6)
    assert fit["slope"] == pytest.approx(beta[1], abs=1e-7)
    assert fit["intercept_se"] == pytest.approx(math.sqrt(covariance[0, 0]), rel=1e-5)
    assert fit["slope_se"] == pytest.approx(math.sqrt(covariance[1, 1]), rel=1e-5)
    # Wald: estimate ± 1.959964 standard errors
    assert fit["slope_high"] - fit["slope"] == pytest.approx(1.959964 * math.sqrt(covariance[1, 1]), rel=1e-5)


def test_the_fit_recovers_the_coefficients_it_was_simulated_with(simulated):
    x, y, (intercept, slope) = simulated
    fit = logistic_fit(x, y)
    # within four standard errors (a chance of about 6e-5 each of failing for a correct fit); seeded, so stable
    assert abs(fit["slope"] - slope) < 4 * fit["slope_se"] and fit["slope_se"] < 0.02
    assert abs(fit["intercept"] - intercept) < 4 * fit["intercept_se"]
    assert fit["slope_low"] < slope < fit["slope_high"]


@pytest.mark.parametrize(
    ("x", "y", "reason"),
    [
        ([1, 2, 3], [1, 1, 1], "all answers alike"),
        ([2, 2, 2], [0, 1, 1], "one knob value"),
        ([2, 2, 40, 40], [0, 1, 1, 1], "separated"),  # every wrong answer at or below every right one
        ([2, 5, 40], [1, 0, 0], "separated"),
    ],
)
def test_no_finite_fit_is_said_not_made_up(x, y, reason):
    fit = logistic_fit(x, y)
    assert reason in fit["reason"] and "slope" not in fit and fit["n"] == len(x)


MANIFEST = {
    "sweep": {
        "knob": "colour_distance",
        "values": [2.0, 40.0],
        "maps": ["maps/colour_distance=2", "maps/colour_distance=40"],
    },
    "networks": [
        {
            "city": "a",
            "knobs": {"colour_distance=2": {"colour_distance": 2.07}, "colour_distance=40": {"colour_distance": 40.0}},
        },
        {
            "city": "b",
            "knobs": {"colour_distance=2": {"colour_distance": 2.5}, "colour_distance=40": {"colour_distance": 31.0}},
        },
    ],
}


def rows(correct, kind="follow"):
    return [
        {"id": f"q{i}", "model": "m", "question": kind, "city": "ab"[i // 2], "correct": c}
        for i, c in enumerate(correct)
    ]


def test_accuracy_per_value_and_the_paired_difference_by_hand():
    scored = {"probe": {"colour_distance=2": rows([1, 0, 0, 1]), "colour_distance=40": rows([1, 1, 1, 0])}}
    summary = knob_summary(MANIFEST, scored, resamples=200)
    assert summary["knob"] == "colour_distance" and summary["values"] == [2.0, 40.0]
    (row,) = summary["rows"]
    assert (row["model"], row["type"]) == ("m", "follow")
    low, high = row["values"]
    assert (low["n"], low["accuracy"], high["n"], high["accuracy"]) == (4, 0.5, 4, 0.75)
    paired = high["paired"]
    # 3/4 - 2/4; discordant pairs: q1, q2 right only at 40, q3 only at 2: McNemar p = 2 * P(Bin(3, 1/2) <= 1) = 1
    assert paired["n"] == 4 and paired["difference"] == pytest.approx(0.25) and paired["p_value"] == pytest.approx(1.0)
    assert paired["test"] == "mcnemar"
    # the fit is on the realised values: a's 2.07 and 40, b's 2.5 and 31 (8 answers)
    beta, _ = newton(np.array([2.07, 2.07, 2.5, 2.5, 40, 40, 31, 31]), np.array([1.0, 0, 0, 1, 1, 1, 1, 0]))
    assert row["fit"]["n"] == 8 and row["fit"]["slope"] == pytest.approx(beta[1], abs=1e-6)
    table = knob_markdown(summary)
    assert "| m | follow | 40 | 4 | 75.00 | +25.00 [" in table


def test_route_rows_are_their_short_and_long_questions_placed_by_the_questions_networks():
    route = [
        {"id": "r0", "model": "m|x", "question": q, "correct": c, "weight": 1.0} for q, c in (("short", 1), ("long", 0))
    ]
    other = [{**r, "correct": 1 - r["correct"]} for r in route]
    scored = {"route": {"colour_distance=2": route, "colour_distance=40": other}}
    summary = knob_summary(MANIFEST, scored, cities={"r0": "a"}, resamples=50)
    assert [(r["type"], [v["accuracy"] for v in r["values"]]) for r in summary["rows"]] == [
        ("route_long", [0.0, 1.0]),
        ("route_short", [1.0, 0.0]),
    ]
    assert "| m\\|x | route_long |" in knob_markdown(summary)
    # scored route rows name no network: placed by the questions' (a: 2.07 and 40), one answer a value; separated
    assert [row["fit"]["n"] for row in summary["rows"]] == [2, 2]
    assert all("separated" in row["fit"]["reason"] for row in summary["rows"])


def test_a_sweep_needs_two_scored_values():
    with pytest.raises(ValueError, match="needs two"):
        knob_summary(MANIFEST, {"probe": {"colour_distance=2": rows([1, 0])}})
    with pytest.raises(ValueError, match="no sweep"):
        knob_summary({"networks": []}, {"probe": {}})

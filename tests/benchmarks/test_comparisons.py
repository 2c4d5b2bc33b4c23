"""Comparisons and leaderboards of scored rows, on rows built by hand (the commands are tested in tests/reasonmap)."""

from __future__ import annotations

import pytest

from benchmarks import compare_scored, headline_intervals, leaderboard_markdown, leaderboard_table
from tests.reasonmap.run_folders import route_rows

# q0..q3: short right, wrong, right, right; long right on q0 only (map scores 15 / 30 when right, else 0)
ROWS = route_rows("m", {f"q{i}": (s, 15.0 * s, int(i == 0), 30.0 * (i == 0)) for i, s in enumerate((1, 0, 1, 1))})


def test_headline_intervals_of_one_side():
    found = headline_intervals(ROWS, task="route", model="m", resamples=400, seed=1)
    assert set(found) == {"weighted_accuracy_short", "map_score_short", "weighted_accuracy_long", "map_score_long"}
    short = found["weighted_accuracy_short"]
    assert (short["n"], short["mean"]) == (4, 0.75)  # 3 of 4, weights 1
    assert 0.0 <= short["low"] <= 0.75 <= short["high"] <= 1.0 and short["se"] > 0
    assert found["map_score_long"]["mean"] == 7.5  # 30 / 4
    assert headline_intervals(ROWS, task="route", model="nobody") == {}


def test_compare_scored_over_a_subset_of_questions():
    better = [{**row, "correct": 1, "map_score": 15.0} if row["question"] == "short" else row for row in ROWS]
    rows = {row["metric"]: row for row in compare_scored(ROWS, better, task="route", model_a="m", model_b="m")}
    assert rows["weighted_accuracy_short"]["difference"] == 0.25 and rows["weighted_accuracy_short"]["b_only"] == 1
    only = compare_scored(ROWS, better, task="route", model_a="m", model_b="m", ids={"q0", "q2"})
    assert {row["metric"]: row["n"] for row in only}["weighted_accuracy_short"] == 2
    assert all(row["difference"] == 0 for row in only)  # q0 and q2 were right already


def test_leaderboard_table_of_summary_rows():
    row = dict.fromkeys(("weighted_accuracy_short", "map_score_short", "weighted_accuracy_long", "map_score_long"), 0.5)
    lower = {**row, "weighted_accuracy_short": 0.25}
    cells = {("a", "route", "full"): ("run1", row), ("b", "route", "full"): ("run2", lower)}
    record = leaderboard_table([("route", "full")], cells)
    assert [(r["model"], r["rank"]) for r in record["rows"]] == [("a", 1), ("b", 2)]  # no intervals: no tie
    assert "| 2 | b | 25.00 | 0.50 | 50.00 | 0.50 |" in leaderboard_markdown(record)
    with pytest.raises(ValueError, match="the columns are route/full/weighted_accuracy_short"):
        leaderboard_table([("route", "full")], cells, rank_by="route/full/accuracy")

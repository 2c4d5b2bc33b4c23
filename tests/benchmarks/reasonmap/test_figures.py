"""The report's figures: the per-city metric is table.md's, zero is told from missing, cells carry their n."""

from __future__ import annotations

from dataclasses import replace

import pytest

from benchmarks.reasonmap.figures import (
    SPARSE,
    city_bars,
    city_order,
    difficulty_grid,
    metric_label,
    plot_cities,
    plot_difficulty,
)
from benchmarks.reasonmap.generate import generate_set
from benchmarks.reasonmap.records import Verdict
from benchmarks.reasonmap.report import markdown_table, summarize
from graphkit import city_graph


@pytest.fixture(scope="module")
def questions():
    return generate_set([city_graph("rome"), city_graph("geneva")], seed=4, per_city=6)


def _summary(questions, weighting="paper"):
    """Model "m": right on every hard question only, with weight 3 on those and 1 elsewhere; "z" always wrong."""
    verdicts = []
    for question in questions:
        hard = question.difficulty_question == "hard"
        for kind in ("short", "long"):
            base = Verdict(question.id, "m", kind, None, int(hard), 0.0, weight=3.0 if hard else 1.0)
            verdicts += [base, replace(base, model="z", correct=0)]
    return summarize(verdicts, {q.id: q for q in questions}, weighting=weighting)


def test_city_bars_show_the_weighted_accuracy_of_the_table(questions):
    summary = _summary(questions)
    order = [city for _, city in city_order(summary)]
    bars = city_bars(summary, "short")
    for city, value in zip(order, bars["m"]):
        asked = [q for q in questions if q.city == city]
        hard = sum(q.difficulty_question == "hard" for q in asked)
        expected = 100 * 3 * hard / (3 * hard + len(asked) - hard)  # weighted by hand
        assert value == pytest.approx(expected)
    assert "Short Acc. (%)" in markdown_table(summary) and "`paper`" in markdown_table(summary)
    assert metric_label(summary["weighting"]).startswith("weighted accuracy")


def test_zero_is_a_value_and_no_questions_is_none(questions):
    summary = _summary(questions)
    assert set(city_bars(summary, "long")["z"]) == {0.0}
    summary["models"]["z"]["per_city"]["rome"].update(n_long=0, weighted_accuracy_long=None)
    bars = city_bars(summary, "long")["z"]
    assert bars[[city for _, city in city_order(summary)].index("rome")] is None
    assert bars.count(0.0) == len(bars) - 1


def test_cities_are_grouped_by_map_difficulty(questions):
    summary = _summary(questions)
    assert summary["city_difficulty"] == {q.city: q.difficulty_city for q in questions}
    levels = [level for level, _ in city_order(summary)]
    assert levels == sorted(levels, key=["easy", "middle", "hard"].index)


def test_difficulty_cells_carry_their_question_counts(questions):
    summary = _summary(questions)
    grid = difficulty_grid(summary, "m", "short")
    assert sum(n for row in grid for _, n in row) == len(questions)
    for question_level, row in zip(("easy", "middle", "hard"), grid):
        for value, n in row:
            assert value is None if n == 0 else value == (100.0 if question_level == "hard" else 0.0)
    assert any(0 < n < SPARSE for row in grid for _, n in row)  # 12 questions over 9 cells: sparse ones exist


@pytest.mark.slow
def test_figures_are_written_as_png_and_pdf_byte_stable(questions, tmp_path):
    summary = _summary(questions, weighting="none")
    first = [*plot_cities(summary, tmp_path / "cities.png"), *plot_difficulty(summary, tmp_path / "difficulty.png")]
    assert [path.name for path in first] == ["cities.png", "cities.pdf", "difficulty.png", "difficulty.pdf"]
    again = [*plot_cities(summary, tmp_path / "c2.png"), *plot_difficulty(summary, tmp_path / "d2.png")]
    assert [path.read_bytes() for path in again] == [path.read_bytes() for path in first]

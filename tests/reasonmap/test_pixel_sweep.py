"""The resolution figure and table of a pixel-budget sweep (:mod:`reasonmap.pixel_sweep`)."""

from __future__ import annotations

import pytest
from PIL import Image

from reasonmap.pixel_sweep import mode_runs, plot_resolution, resolution_markdown, resolution_record

COLUMNS = {"route": [("Short Acc.", "accuracy_short")], "plus": [("Acc.", "weighted_accuracy")]}


def _rows():
    rows = []
    for budget, short, plus in ((1_000_000, 0.2, 0.5), (4_000_000, 0.3, None), (16_000_000, 0.4, 0.6)):
        rows.append({"task": "route", "mode": "full", "pixel_budget": budget, "model": "m", "n": 10,
                     "metrics": {"accuracy_short": short}})  # fmt: skip
        rows.append({"task": "plus", "mode": "full", "pixel_budget": budget, "model": "m", "n": 5,
                     "metrics": {"weighted_accuracy": plus}})  # fmt: skip
    rows.append({"task": "route", "mode": "text-only", "model": "m", "n": 10, "metrics": {"accuracy_short": 0.1}})
    return rows


def test_each_task_accuracy_is_a_curve_over_the_budgets_with_intervals_where_known():
    intervals = {("route", 4_000_000): {"accuracy_short": {"n": 10, "se": 0.1, "low": 0.1, "high": 0.5}}}
    record = resolution_record(_rows(), intervals, COLUMNS)
    assert record["budgets"] == [1_000_000, 4_000_000, 16_000_000]  # text-only is no point of the sweep
    route, plus = record["curves"]
    assert [p["value"] for p in route["points"]] == [0.2, 0.3, 0.4]
    assert [(p["low"], p["high"]) for p in route["points"]] == [(None, None), (0.1, 0.5), (None, None)]
    assert [p["pixel_budget"] for p in plus["points"]] == [1_000_000, 16_000_000]  # no accuracy at 4M: no point
    table = resolution_markdown(record)
    # 30.00 ± (50 - 10) / 2
    assert "| m | route | Short Acc. | 20.00 | 30.00 ± 20.00 | 40.00 | 10.00 |" in table  # text-only: 10.00
    assert "| m | plus | Acc. | 50.00 | – | 60.00 | – |" in table
    assert (route["text_only"], plus["text_only"]) == (0.1, None)


def test_only_the_full_mode_is_swept():
    assert mode_runs(("text-only", "full", "symbolic"), (4_096, 1_000_000)) == [
        ("text-only", 4_096, "text-only"),
        ("full", 4_096, "full@4096"),
        ("full", 1_000_000, "full@1M"),
        ("symbolic", 4_096, "symbolic"),
    ]


@pytest.mark.figures
@pytest.mark.slow  # matplotlib's first PNG and PDF: seconds
def test_the_figure_is_drawn_the_same_bytes_every_time(tmp_path):
    record = resolution_record(_rows(), {}, COLUMNS)
    first, pdf = plot_resolution(record, tmp_path / "a.png")
    second, _ = plot_resolution(record, tmp_path / "b.png")
    assert first.read_bytes() == second.read_bytes() and pdf.read_bytes().startswith(b"%PDF")
    with Image.open(first) as image:
        assert image.width > image.height > 200

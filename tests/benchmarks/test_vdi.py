"""The text-mediated pathway's measures (VDI, DSI), budgets and report (the pathway: tests/reasonmap/test_vdi.py)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from benchmarks.vdi import (
    budget_figures,
    description_length,
    descriptive_saturation_index,
    parse_budgets,
    visual_dependency_index,
)

# -- the measures -------------------------------------------------------------------------------------------------


def test_vdi_is_the_normalized_accuracy_drop_and_undefined_without_full_accuracy():
    assert visual_dependency_index(Fraction(6, 8), Fraction(3, 8)) == 0.5
    assert visual_dependency_index(1, 1) == 0.0
    assert visual_dependency_index(1, 0) == 1.0
    assert visual_dependency_index(Fraction(6, 8), Fraction(7, 8)) == round(-1 / 6, 6)  # text beat the image
    assert visual_dependency_index(0, 0) is None
    assert visual_dependency_index(0.0, 0.5) is None
    assert visual_dependency_index(Fraction(0), Fraction(0)) is None


def test_dsi_is_the_mean_share_of_the_budget_used():
    assert descriptive_saturation_index([128, 128], 128) == 1.0
    assert descriptive_saturation_index([0], 64) == 0.0
    assert descriptive_saturation_index([300], 256) == round(300 / 256, 6)  # a server that ignores max_tokens
    assert descriptive_saturation_index([], 256) is None
    with pytest.raises(ValueError, match="k_max"):
        descriptive_saturation_index([1], 0)


@pytest.mark.parametrize("text", ["", "128,abc", "0,128", "-5", " , "])
def test_bad_budgets_are_refused_with_what_was_wrong(text):
    with pytest.raises(ValueError, match="budgets"):
        parse_budgets(text)


def test_a_description_is_measured_in_reported_tokens_else_estimated_from_its_words():
    assert description_length({"tokens": 200, "response": "four words said here"}) == (200, False)
    assert description_length({"tokens": None, "response": "four words said here"}) == (4, True)
    assert description_length({"tokens": True, "response": "one"}) == (1, True)  # a bool is no count
    assert description_length({"tokens": -3}) == (0, True)  # nor is a negative one; no response: no words


def test_one_budgets_figures_come_from_its_counts():
    # 8 samples, 6 right with the image, 3 from text; 6 described in 64 and 128 tokens of a 256 budget
    figures = budget_figures(256, n=8, n_correct_full=6, n_correct_text=3, lengths=[64] * 3 + [128] * 3, n_estimated=1)
    assert figures.accuracy_text == 0.375  # 3 / 8
    assert figures.vdi == 0.5  # (6/8 - 3/8) / (6/8)
    assert figures.dsi == 0.375  # (3 * 64 + 3 * 128) / (6 * 256) = 576 / 1536
    assert (figures.n_correct_text, figures.n_described, figures.n_estimated) == (3, 6, 1)
    nothing_right = budget_figures(256, n=8, n_correct_full=0, n_correct_text=2, lengths=[], n_estimated=0)
    assert nothing_right.vdi is None and nothing_right.dsi is None and nothing_right.accuracy_text == 0.25


def test_the_vdi_figure_names_its_measure_on_the_axis(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    import benchmarks.plotting
    from benchmarks.vdi import plot_vdi

    kept = []
    monkeypatch.setattr(benchmarks.plotting, "save_figure", lambda figure, path: kept.append(figure))
    rows = [{"k_max": 32, "vdi": 0.5, "dsi": 0.9}, {"k_max": 64, "vdi": 0.25, "dsi": 0.6}]
    plot_vdi({"budgets": rows, "model": "m", "benchmark": "mapqa", "n": 4, "vdi_defined": True}, tmp_path / "v.png")
    (figure,) = kept
    (axis,) = figure.axes
    assert axis.get_ylabel() != "index" and "VDI" in axis.get_ylabel() and "DSI" in axis.get_ylabel()
    assert all(":" in text.get_text() for text in axis.get_legend().get_texts())  # each line says what it measures
    plt.close(figure)

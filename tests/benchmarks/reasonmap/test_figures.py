"""The report's figures: the per-city metric is table.md's, zero is told from missing, cells carry their n."""

from __future__ import annotations

from dataclasses import replace

import pytest
from matplotlib.container import BarContainer, ErrorbarContainer

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

pytestmark = pytest.mark.figures  # these tests look at the drawn figures


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


# -- the cap on models drawn ----------------------------------------------------------------------------------------

MODELS = 50
# model i is right on its first i % 13 questions (of 12, weight 1), short and long alike: the top 12 are the
# three with 12 right (12, 25, 38), three with 11 (11, 24, 37), four with 10 (10, 23, 36, 49), and of the four
# with 9 (9, 22, 35, 48) the first two by name
TOP = sorted(f"m{i:02}" for i in (12, 25, 38, 11, 24, 37, 10, 23, 36, 49, 9, 22))


def _many(questions):
    verdicts = [
        Verdict(question.id, f"m{i:02}", kind, None, int(number < i % 13), 0.0, weight=1.0)
        for i in range(MODELS)
        for number, question in enumerate(questions)
        for kind in ("short", "long")
    ]
    return summarize(verdicts, {q.id: q for q in questions}, weighting="paper")


def _kept(patch, kept: list) -> None:
    """Keep the figures the plotting functions of ``figures`` save, open for inspection (never rasterized)."""
    import benchmarks.reasonmap.figures as figures

    patch.setattr(figures, "save_figure", lambda figure, path: kept.append(figure) or (path, path))


def _close(kept: list) -> None:
    import matplotlib.pyplot as plt

    for figure in kept:
        plt.close(figure)


@pytest.fixture
def drawn(monkeypatch):
    """The figures a test's plotting calls save, kept open for inspection."""
    kept = []
    _kept(monkeypatch, kept)
    yield kept
    _close(kept)


@pytest.fixture(scope="module")
def many(questions):
    """The 50-model summary (its bootstrap intervals take a second): read, never changed, by the tests below."""
    return _many(questions)


@pytest.fixture(scope="module")
def many_drawn(many, tmp_path_factory):
    """The difficulty and city figures of the 50-model summary, drawn once for the tests that look at them."""
    kept = []
    folder = tmp_path_factory.mktemp("many")
    with pytest.MonkeyPatch.context() as patch:
        _kept(patch, kept)
        plot_difficulty(many, folder / "d.png")
        plot_cities(many, folder / "c.png")
    yield kept
    _close(kept)


def test_the_figures_draw_the_top_12_models_and_say_so_while_the_table_lists_all(questions, many, many_drawn):
    from benchmarks.reasonmap.figures import plotted_models

    assert len(questions) == 12
    summary = many
    assert plotted_models(summary).shown == tuple(TOP)
    note = "plots show the top 12 of 50 models by weighted accuracy, short and long averaged; the tables list all"
    difficulty, cities = many_drawn
    panels = [axis for axis in difficulty.axes if axis.images]  # a grid per model and kind (not the colour bar)
    assert len(panels) == 2 * 12 and sorted(axis.get_title() for axis in panels if axis.get_title()) == TOP
    assert any(note in text.get_text() for text in difficulty.texts)
    for axis in cities.axes:
        bars = [container.get_label() for container in axis.containers if isinstance(container, BarContainer)]
        assert bars == TOP  # one bar series per model, in the summary's (name) order
        # and one set of error bars per model: its cities' 95% intervals, from the summary's per-city intervals
        errors = [container for container in axis.containers if isinstance(container, ErrorbarContainer)]
        # a model none of whose cities has an interval to give (too few questions, or no variance) has none
        bounded = [
            model
            for model in TOP
            if any(
                (row.get("intervals", {}).get(key) or {}).get("low") is not None
                for row in summary["models"][model]["per_city"].values()
                for key in ("weighted_accuracy_short", "weighted_accuracy_long")
            )
        ]
        assert len(errors) == len(bounded) > 0
    assert any(text.get_text() == note for text in cities.texts)
    table = markdown_table(summary)
    assert sum(line.startswith("| m") for line in table.splitlines()) == MODELS
    assert table.endswith(f"\n\n{note[0].upper()}{note[1:]}.\n")


def test_the_report_keeps_every_model_and_records_what_the_plots_show(questions, many, tmp_path, drawn):
    import json

    from benchmarks.reasonmap.report import write_report

    summary = many
    write_report(tmp_path, summary)  # the figures are drawn, not rasterized: what they show is tested above
    assert len(drawn) == 2
    written = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert len(written["models"]) == MODELS and written["plots"]["shown"] == TOP
    assert (written["plots"]["total"], written["plots"]["note"].split(";")[0]) == (
        50,
        "plots show the top 12 of 50 models by weighted accuracy, short and long averaged",
    )
    few = _summary(questions)  # two models: nothing left out, nothing added
    write_report(tmp_path / "few", few)
    assert "plots" not in json.loads((tmp_path / "few" / "summary.json").read_text(encoding="utf-8"))
    assert "tables list all" not in (tmp_path / "few" / "table.md").read_text(encoding="utf-8")


def test_twelve_models_wrap_into_a_grid_a_page_wide_with_twelve_distinct_colours(many_drawn):
    from benchmarks.plotting import PAGE_WIDTH

    difficulty, cities = many_drawn
    width, height = difficulty.get_size_inches()
    assert width <= PAGE_WIDTH and height <= 9.5, "12 models: three rows of four, within a page"
    panels = [axis for axis in difficulty.axes if axis.images]
    columns = {round(axis.get_position().x0, 3) for axis in panels}
    assert len(columns) == 4 and len(panels) == 24
    for axis in cities.axes:
        colours = [
            tuple(container.patches[0].get_facecolor())
            for container in axis.containers
            if isinstance(container, BarContainer)
        ]
        assert len(colours) == 12 == len(set(colours))


def test_a_long_model_name_is_wrapped_to_stay_over_its_panel(questions, tmp_path, drawn):
    long = "organisation-with-a-long-name/model-with-an-even-longer-name-72b-instruct"
    summary = _summary(questions)
    summary = {**summary, "models": {long: summary["models"]["m"]}}
    plot_difficulty(summary, tmp_path / "d.png")
    (difficulty,) = drawn
    titles = [axis.get_title() for axis in difficulty.axes if axis.get_title()]
    assert titles and all(len(line) <= 22 for title in titles for line in title.splitlines())
    assert "".join(titles[0].splitlines()) == long


def test_cities_are_labelled_by_the_names_readers_know(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    questions = generate_set([city_graph("los_angeles"), city_graph("kl")], seed=1, per_city=3)
    labels: list[str] = []
    monkeypatch.setattr(
        Figure,
        "savefig",
        lambda self, *a, **k: labels.extend(tick.get_text() for tick in self.axes[0].get_yticklabels()),
    )
    plot_cities(_summary(questions), tmp_path / "cities.png")
    assert set(labels) == {"Los Angeles", "Kuala Lumpur"}

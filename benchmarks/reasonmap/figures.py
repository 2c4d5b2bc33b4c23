"""The report's figures: accuracy over difficulty pairs (the paper's Figure A1) and per city (Figure A2).

Both read a :func:`benchmarks.reasonmap.report.summarize` result, are drawn
in the toolkit's style (:mod:`benchmarks.plotting`) and are written as PNG
and PDF. The per-city figure shows the metric of ``table.md`` (weighted
accuracy under the run's weighting) with its 95% interval as an error bar, a 0% bar
as a hollow dot at zero and a city without questions of a kind as a grey cross, and
groups the cities by their map difficulty. The difficulty figure prints each cell's
value, half its 95% interval (``±``) and its number of questions, hatches
cells with fewer than :data:`SPARSE` questions and has a colour bar. Both draw
at most :data:`~benchmarks.plotting.PLOT_MODELS` models (:func:`plotted_models`)
and say so under the figure.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchmarks.cells import figure_text
from benchmarks.difficulty import DIFFICULTIES
from benchmarks.plotting import COLUMN_WIDTH, PAGE_WIDTH, ModelCap, figure_style, model_style, save_figure, top_models
from benchmarks.reasonmap.records import KINDS

__all__ = [
    "SPARSE",
    "metric_label",
    "city_order",
    "city_bars",
    "city_errors",
    "plotted_models",
    "difficulty_grid",
    "plot_cities",
    "plot_difficulty",
]

SPARSE = 10  # a cell with fewer questions than this is marked: its accuracy moves by 10 points per answer
# models side by side in the difficulty figure before it wraps to a new row: four fit a page's width
_DIFFICULTY_COLUMNS = 4
_TITLE_CHARACTERS = 22  # of a model's name per line above a 1.5-inch panel at 7.5 pt: the title stays over its panel


def metric_label(weighting: str) -> str:
    """The accuracy the per-city figure and ``table.md`` show, named with its weighting.

    Parameters
    ----------
    weighting : str
        The summary's weighting scheme.

    Returns
    -------
    str
        The axis label.

    Examples
    --------
    >>> metric_label("paper"), metric_label("none")
    ('weighted accuracy (%, paper weights)', 'accuracy (%, unweighted)')
    """
    return "accuracy (%, unweighted)" if weighting == "none" else f"weighted accuracy (%, {weighting} weights)"


def _headline(row: Mapping[str, Any]) -> float | None:
    values = [row.get(f"weighted_accuracy_{kind}") for kind in KINDS]
    present = [value for value in values if value is not None]
    return sum(present) / len(present) if present else None


def plotted_models(summary: Mapping[str, Any]) -> ModelCap:
    """The models the figures draw: the best by weighted accuracy, short and long averaged (as ``table.md``).

    Parameters
    ----------
    summary : mapping
        A route summary (:func:`benchmarks.reasonmap.report.summarize`).

    Returns
    -------
    ModelCap
        The models shown (at most :data:`~benchmarks.plotting.PLOT_MODELS`), the total, and the note saying so.

    Examples
    --------
    >>> models = {f"m{i:02}": {"weighted_accuracy_short": i / 20, "weighted_accuracy_long": None} for i in range(20)}
    >>> cap = plotted_models({"models": models, "weighting": "paper"})
    >>> cap.shown[:2], len(cap.shown), cap.total
    (('m08', 'm09'), 12, 20)
    """
    weighted = "accuracy" if summary.get("weighting") == "none" else "weighted accuracy"
    return top_models(
        {model: _headline(row) for model, row in summary["models"].items()},
        metric=f"{weighted}, short and long averaged",
    )


def _plotted(summary: Mapping[str, Any]) -> tuple[Mapping[str, Any], str]:
    """``summary`` cut to the models the figures draw, and the note that says so (``""`` when none is cut)."""
    cap = plotted_models(summary)
    if not cap.capped:
        return summary, ""
    return {**summary, "models": {model: summary["models"][model] for model in cap.shown}}, cap.note


def city_bars(summary: Mapping[str, Any], kind: str) -> dict[str, list[float | None]]:
    """Per model, the bar of each city (in :func:`city_order`).

    Parameters
    ----------
    summary : mapping
        A route summary (:func:`benchmarks.reasonmap.report.summarize`).
    kind : {"short", "long"}
        The question kind.

    Returns
    -------
    dict of str to list of float or None
        Per model, each city's weighted accuracy in %; ``None`` for no questions.

    Examples
    --------
    >>> summary = {"models": {"m": {"per_city": {
    ...     "rome": {"weighted_accuracy_short": 0.0, "n_short": 4},
    ...     "oslo": {"weighted_accuracy_short": None, "n_short": 0}}}}, "city_difficulty": {}}
    >>> city_bars(summary, "short")
    {'m': [None, 0.0]}
    """
    cities = [city for _, city in city_order(summary)]
    bars = {}
    for model, row in summary["models"].items():
        values: list[float | None] = []
        for city in cities:
            figures = row["per_city"].get(city, {})
            value = figures.get(f"weighted_accuracy_{kind}")
            values.append(None if not figures.get(f"n_{kind}") or value is None else round(100 * value, 4))
        bars[model] = values
    return bars


def _bounds(interval: Mapping[str, Any] | None) -> tuple[float, float] | None:
    """An interval's ``(low, high)``; ``None`` without one or when it has none to give."""
    if interval is None or interval["low"] is None or interval["high"] is None:
        return None
    return interval["low"], interval["high"]


def city_errors(summary: Mapping[str, Any], kind: str) -> dict[str, list[tuple[float, float] | None]]:
    """Per model, each city's 95% interval of the bar (in :func:`city_order`).

    Parameters
    ----------
    summary : mapping
        A route summary (:func:`benchmarks.reasonmap.report.summarize`).
    kind : {"short", "long"}
        The question kind.

    Returns
    -------
    dict of str to list of (float, float) or None
        Per model, each city's ``(low, high)`` in %; ``None`` where the summary has none (no questions, no
        variance, or a summary written before intervals).

    Examples
    --------
    >>> interval = {"n": 4, "se": 0.2, "low": 0.25, "high": 1.0}
    >>> summary = {"models": {"m": {"per_city": {
    ...     "rome": {"weighted_accuracy_short": 0.5, "n_short": 4, "intervals": {"weighted_accuracy_short": interval}},
    ...     "oslo": {"weighted_accuracy_short": None, "n_short": 0}}}}, "city_difficulty": {}}
    >>> city_errors(summary, "short")
    {'m': [None, (25.0, 100.0)]}
    """
    key = f"weighted_accuracy_{kind}"
    cities = [city for _, city in city_order(summary)]
    errors = {}
    for model, row in summary["models"].items():
        found: list[tuple[float, float] | None] = []
        for city in cities:
            bounds = _bounds(row["per_city"].get(city, {}).get("intervals", {}).get(key))
            found.append(None if bounds is None else (100 * bounds[0], 100 * bounds[1]))
        errors[model] = found
    return errors


def city_order(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The cities of the per-city figure, in order.

    Parameters
    ----------
    summary : mapping
        A route summary (:func:`benchmarks.reasonmap.report.summarize`).

    Returns
    -------
    list of (str, str)
        (map difficulty, city) pairs of every city a model answered on, easy maps first, cities alphabetical
        within a difficulty (a city without a difficulty last, as ``unknown``).

    Examples
    --------
    >>> city_order({"models": {"m": {"per_city": {"rome": {}, "oslo": {}, "lima": {}}}},
    ...             "city_difficulty": {"rome": "hard", "oslo": "easy"}})
    [('easy', 'oslo'), ('hard', 'rome'), ('unknown', 'lima')]
    """
    levels = summary.get("city_difficulty", {})
    cities = {city for row in summary["models"].values() for city in row["per_city"]}
    rank = {level: index for index, level in enumerate(DIFFICULTIES)}
    return sorted(((levels.get(city, "unknown"), city) for city in cities), key=lambda p: (rank.get(p[0], 3), p[1]))


def plot_cities(summary: Mapping[str, Any], path: str | Path) -> tuple[Path, Path]:
    """Figure A2: one panel per question kind, a horizontal bar per model and city; written as PNG and PDF.

    At most :data:`~benchmarks.plotting.PLOT_MODELS` models are drawn (:func:`plotted_models`), with a note.

    Parameters
    ----------
    summary : mapping
        A route summary (:func:`benchmarks.reasonmap.report.summarize`).
    path : str or Path
        The PNG; the PDF goes beside it.

    Returns
    -------
    png, pdf : Path
        The two files written.
    """
    from matplotlib.lines import Line2D

    from graphkit.cities import city_title

    summary, note = _plotted(summary)
    order = city_order(summary)
    models = list(summary["models"])
    count = max(1, len(models))
    height = 0.8 / count
    with figure_style() as plt:
        figure, axes = plt.subplots(
            1,
            len(KINDS),
            figsize=(COLUMN_WIDTH if count <= 3 else PAGE_WIDTH / 1.4, 0.9 + len(order) * (0.1 + 0.06 * count)),
            sharey=True,
            squeeze=False,
            layout="constrained",
        )
        for axis, kind in zip(axes[0], KINDS):
            errors = city_errors(summary, kind)
            for index, (model, values) in enumerate(city_bars(summary, kind).items()):
                style = model_style(index)
                colour = style.colour
                ys = [row - 0.4 + height * (index + 0.5) for row in range(len(order))]
                axis.barh(
                    ys, [value or 0.0 for value in values], height, color=colour, label=figure_text(model),
                    hatch=style.hatch or None, edgecolor="white", linewidth=0,
                )  # fmt: skip
                bars = [(y, v, e) for y, v, e in zip(ys, values, errors[model]) if v is not None and e is not None]
                if bars:  # the 95% interval of each bar
                    axis.errorbar(
                        [v for _, v, _ in bars], [y for y, _, _ in bars],
                        xerr=[[max(0.0, v - e[0]) for _, v, e in bars], [max(0.0, e[1] - v) for _, v, e in bars]],
                        fmt="none", ecolor="0.15", elinewidth=0.6, capsize=1.2, capthick=0.6,
                    )  # fmt: skip
                for y, value in zip(ys, values):
                    if value is None:
                        axis.plot(2, y, "x", color="0.55", markersize=3.5, markeredgewidth=0.8)
                    elif value == 0:  # no bar to see: a hollow dot at zero says the model was asked and failed
                        axis.plot(1.2, y, "o", color=colour, markerfacecolor="white", markersize=3, markeredgewidth=0.9)
            _group_cities(axis, order)
            axis.set_xlim(0, 100)
            axis.set_title(f"{kind} questions")
            axis.grid(axis="x", linewidth=0.4, color="0.85")
            axis.set_axisbelow(True)
        axes[0][0].set_yticks(range(len(order)), [city_title(city) for _, city in order])
        axes[0][0].set_ylim(max(len(order), 1) - 0.5, -0.5)  # no answers scored: an empty panel, not a warning
        _level_names(axes[0][-1], order)
        handles, labels = axes[0][0].get_legend_handles_labels()
        handles += [
            Line2D([], [], marker="o", color="0.2", markerfacecolor="white", linestyle="", markersize=3.5),
            Line2D([], [], marker="x", color="0.55", linestyle="", markersize=4),
        ]
        handles.append(Line2D([], [], marker="|", color="0.15", linestyle="-", markersize=4, linewidth=0.6))
        labels += ["0%", "no questions", "95% interval"]
        figure.supxlabel(metric_label(summary["weighting"]), fontsize=7.5)
        figure.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=min(3, len(labels)))
        if note:
            figure.text(0.0, 0.0, note, fontsize=6.5, ha="left", va="top")
        return save_figure(figure, path)


def _group_cities(axis: Any, order: list[tuple[str, str]]) -> None:
    """A line between the map-difficulty groups."""
    for row in range(1, len(order)):
        if order[row][0] != order[row - 1][0]:
            axis.axhline(row - 0.5, color="0.3", linewidth=0.6, linestyle="--")


def _level_names(axis: Any, order: list[tuple[str, str]]) -> None:
    """Each group's map difficulty, written beside the last panel."""
    start = 0
    for row in range(1, len(order) + 1):
        if row == len(order) or order[row][0] != order[start][0]:
            middle = (start + row - 1) / 2
            axis.annotate(
                f"{order[start][0]} maps",
                xy=(1.02, middle),
                xycoords=("axes fraction", "data"),
                rotation=-90,
                va="center",
                ha="left",
                fontsize=7,
            )
            start = row


def difficulty_grid(summary: Mapping[str, Any], model: str, kind: str) -> list[list[tuple[float | None, int]]]:
    """One model's accuracy per (question difficulty, map difficulty) cell.

    Parameters
    ----------
    summary : mapping
        A route summary (:func:`benchmarks.reasonmap.report.summarize`).
    model : str
        One of its models.
    kind : {"short", "long"}
        The question kind.

    Returns
    -------
    list of list of (float or None, int)
        (accuracy in %, questions) per cell: rows the question difficulties, columns the map difficulties, easy
        first; ``None`` for a cell without questions.

    Examples
    --------
    >>> summary = {"models": {"m": {"per_difficulty": {"easy/hard": {"accuracy_short": 0.5, "n_short": 4}}}}}
    >>> difficulty_grid(summary, "m", "short")[0]
    [(None, 0), (None, 0), (50.0, 4)]
    """
    per = summary["models"][model]["per_difficulty"]
    grid = []
    for question_level in DIFFICULTIES:
        row = []
        for map_level in DIFFICULTIES:
            figures = per.get(f"{question_level}/{map_level}", {})
            value, n = figures.get(f"accuracy_{kind}"), figures.get(f"n_{kind}", 0)
            row.append((None if value is None or not n else round(100 * value, 4), n))
        grid.append(row)
    return grid


def _half_width(summary: Mapping[str, Any], model: str, kind: str, row: int, column: int) -> float | None:
    """Half the 95% interval of a difficulty cell, in %; ``None`` without one. Within a cell every question
    weighs the same, so the weighted accuracy's interval is the accuracy's."""
    per = summary["models"].get(model, {}).get("per_difficulty", {})  # no model: an empty panel
    cell = per.get(f"{DIFFICULTIES[row]}/{DIFFICULTIES[column]}", {})
    bounds = _bounds(cell.get("intervals", {}).get(f"weighted_accuracy_{kind}"))
    return None if bounds is None else 50 * (bounds[1] - bounds[0])


def plot_difficulty(summary: Mapping[str, Any], path: str | Path) -> tuple[Path, Path]:
    """Figure A1: accuracy per (question, map) difficulty cell, per model and kind; written as PNG and PDF.

    At most :data:`~benchmarks.plotting.PLOT_MODELS` models are drawn (:func:`plotted_models`), with a note.

    Parameters
    ----------
    summary : mapping
        A route summary (:func:`benchmarks.reasonmap.report.summarize`).
    path : str or Path
        The PNG; the PDF goes beside it.

    Returns
    -------
    png, pdf : Path
        The two files written.
    """
    import numpy
    from matplotlib.patches import Rectangle

    summary, note = _plotted(summary)
    models = list(summary["models"]) or ["(no model)"]
    columns = min(len(models), _DIFFICULTY_COLUMNS)
    blocks = -(-len(models) // columns)  # rows of models, each a row of panels per kind
    with figure_style() as plt:
        cmap = plt.get_cmap("viridis").with_extremes(bad="0.92")
        figure, axes = plt.subplots(
            len(KINDS) * blocks, columns, figsize=(0.9 + 1.5 * columns, 3.0 * blocks), squeeze=False,
            layout="constrained",
        )  # fmt: skip
        for axis in axes[len(KINDS) * (blocks - 1) :, len(models) - columns * (blocks - 1) :].flat:
            axis.axis("off")  # the last row's empty places
        image = None
        for place, model in enumerate(models):
            block, column = divmod(place, columns)
            for row, kind in enumerate(KINDS):
                axis = axes[block * len(KINDS) + row][column]
                grid = difficulty_grid(summary, model, kind) if model in summary["models"] else [[(None, 0)] * 3] * 3
                values = numpy.array([[numpy.nan if v is None else v for v, _ in line] for line in grid])
                image = axis.imshow(values, vmin=0, vmax=100, cmap=cmap)
                for i, line in enumerate(grid):
                    for j, (value, n) in enumerate(line):
                        sparse = 0 < n < SPARSE
                        if sparse:
                            hatch = Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="////", lw=0)
                            hatch.set_edgecolor((1.0, 1.0, 1.0, 0.45))
                            axis.add_patch(hatch)
                        half = _half_width(summary, model, kind, i, j)
                        text = "–" if value is None else f"{value:.0f}" + ("" if half is None else f"±{half:.0f}")
                        dark = value is not None and value > 60  # dark text on the bright end of viridis
                        axis.text(
                            j, i, f"{text}\nn={n}", ha="center", va="center", fontsize=6.5,
                            color="k" if dark or value is None else "w",
                            fontstyle="italic" if sparse else "normal",
                        )  # fmt: skip
                axis.set_xticks(range(3), DIFFICULTIES, fontsize=6.5)
                axis.set_yticks(range(3), DIFFICULTIES, fontsize=6.5)
                axis.tick_params(length=0)
                if row == 0:
                    axis.set_title(textwrap.fill(model, _TITLE_CHARACTERS), fontsize=7.5)
                if row == len(KINDS) - 1:
                    axis.set_xlabel("map difficulty", fontsize=7)
                if column == 0:
                    axis.set_ylabel(f"{kind} questions\nquestion difficulty", fontsize=7)
        bar = figure.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8 if blocks == 1 else 0.4, pad=0.02)
        bar.set_label("accuracy (%)")
        caption = (
            f"±: half the 95% interval (bootstrap over questions); hatched, italic: fewer than {SPARSE} questions;"
            " –: none"
        )
        figure.text(0.0, 0.0, f"{caption}\n{note}" if note else caption, fontsize=6.5, ha="left", va="top")
        return save_figure(figure, path)

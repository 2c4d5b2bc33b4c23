"""Leaderboards: models × (task, mode) with intervals, ranked, ranks the intervals cannot separate tied.

:func:`leaderboard_table` builds the record from each (model, task, mode)'s
summary row (its headline metrics, and their ``intervals``:
``n, se, low, high``); :func:`leaderboard_markdown`, :func:`leaderboard_csv` and
:func:`plot_leaderboard` render it (``reasonmap leaderboard`` reads the rows from
run folders). A cell is shown ``41.20 ± 2.30``: ± is half the 95% interval's width.

Ranks (by one column; every headline metric is higher better) that the
intervals cannot separate are tied (:func:`tiered_ranks`): the models are
sorted by the point estimate; the first is the leader of the first tier; each
next model whose interval overlaps the tier leader's shares the leader's rank,
and the first that does not starts a new tier, ranked by its position
(competition ranking: 1, 1, 3). Without intervals only equal points tie. An
interval recorded without bounds (fewer than two questions, or no variance:
:mod:`benchmarks.intervals`) separates nothing over fewer than two questions;
over more, every question scored alike, and the exact bound of that many alike
answers (or the point) stands for it (:func:`_span`). A value that is not a
finite number is not ranked.

Figures are checked before they are ranked (:func:`check_figures`): a value or
interval bound that is not a finite number in the metric's bounds is refused,
naming the field. Names are written through :mod:`benchmarks.cells` (no
formula in a CSV cell, no column, row or HTML in a Markdown one); a cell from
a part that did not finish or scored part of a log is marked ``(partial)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.cells import csv_table, figure_text, markdown_code, markdown_text
from benchmarks.metrics import MetricSpec, compared

__all__ = [
    "tiered_ranks",
    "check_figures",
    "leaderboard_table",
    "leaderboard_markdown",
    "leaderboard_csv",
    "plot_leaderboard",
]

_COLUMNS = ("rank", "model", "task", "mode", "metric", "value", "low", "high", "se", "n", "run", "partial")


def _metrics_of(task: str) -> tuple[MetricSpec, ...]:
    from benchmarks.tasks import get_task

    return compared(get_task(task).metrics)


def _span(value: float, interval: Mapping[str, Any] | None, bounds: tuple[float, float]) -> tuple[float, float]:
    """What a ranked value's interval says for telling tiers apart.

    A recorded interval is itself; none at all is the point (only equal values tie, as before intervals). An
    interval that could not be given (every resample the same figure) says, with fewer than two questions,
    nothing (it separates no rank); with more, that each question scored alike: at a share's bound (all right,
    all wrong) the exact one-sided 97.5% Clopper–Pearson bound of ``n`` alike answers (407 of 407 right: at
    least 99.1%), elsewhere the point.

    >>> round(_span(1.0, {"n": 407, "low": None, "high": None}, (0.0, 1.0))[0], 4)
    0.991
    >>> _span(0.0, {"n": 1, "low": None, "high": None}, (0.0, 1.0))
    (-inf, inf)
    """
    if not interval:
        return value, value
    if not _unbounded(interval):
        return float(interval["low"]), float(interval["high"])
    n = interval.get("n")
    if not isinstance(n, int) or isinstance(n, bool) or n < 2:
        return -math.inf, math.inf
    if tuple(bounds) == (0.0, 1.0) and value in (0.0, 1.0):
        edge = 0.025 ** (1.0 / n)  # the share at which n alike answers have a 2.5% chance
        return (edge, 1.0) if value == 1.0 else (0.0, 1.0 - edge)
    return value, value


def _unbounded(interval: Mapping[str, Any]) -> bool:
    return interval.get("low") is None or interval.get("high") is None


def tiered_ranks(
    entries: Sequence[tuple[str, float | None, Mapping[str, Any] | None]],
    *,
    bounds: tuple[float, float] = (0.0, 1.0),
) -> dict[str, int | None]:
    """Competition ranks of ``(model, value, interval)`` entries, higher values first, ties by overlap.

    A model whose interval overlaps its tier leader's shares the leader's rank (see the module notes);
    a model without a finite value is not ranked (``None``). ``bounds`` are the ranked metric's (a share's:
    0 and 1); where no interval could be given, see :func:`_span`.

    Parameters
    ----------
    entries : sequence of (str, float or None, mapping or None)
        Each model, its value and its interval.
    bounds : (float, float), optional
        The metric's range.

    Returns
    -------
    dict of str to int or None
        Each model's rank.

    Examples
    --------
    >>> tiered_ranks([("a", 0.6, {"low": 0.5, "high": 0.7}), ("b", 0.55, {"low": 0.45, "high": 0.65}),
    ...               ("c", 0.3, {"low": 0.2, "high": 0.4}), ("d", None, None), ("e", float("nan"), None)])
    {'a': 1, 'b': 1, 'c': 3, 'd': None, 'e': None}
    >>> tiered_ranks([("a", 1.0, {"n": 1, "low": None, "high": None}), ("b", 0.0, {"n": 1, "low": None, "high": None})])
    {'a': 1, 'b': 1}
    >>> all_right = {"n": 400, "low": None, "high": None}
    >>> tiered_ranks([("a", 1.0, all_right), ("b", 0.8, {"n": 400, "low": 0.7, "high": 0.9})])
    {'a': 1, 'b': 2}
    """
    entries = [(name, value if value is not None and math.isfinite(value) else None, it) for name, value, it in entries]
    ranked = sorted((entry for entry in entries if entry[1] is not None), key=lambda entry: (-entry[1], entry[0]))
    ranks: dict[str, int | None] = {}
    leader: tuple[str, float, tuple[float, float]] | None = None
    for position, (name, value, interval) in enumerate(ranked, start=1):
        span = _span(value, interval, bounds)
        if leader is not None and (value == leader[1] or (span[0] <= leader[2][1] and leader[2][0] <= span[1])):
            ranks[name] = ranks[leader[0]]
            continue
        leader = (name, value, span)
        ranks[name] = position
    ranks.update({entry[0]: None for entry in entries if entry[1] is None})
    return ranks


def _checked(value: Any, bounds: tuple[float, float], field: str) -> None:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return  # no figure (a string, null): shown as –
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{field} is {value!r}: not a finite number")
    low, high = bounds
    if not low <= value <= high:  # an integer is compared exactly, however large
        shown = repr(value) if len(str(value)) <= 40 else f"an integer of {len(str(value))} digits"
        raise ValueError(f"{field} is {shown}: outside the metric's range [{low:g}, {high:g}]")


def check_figures(row: Any, task: str, *, where: str) -> None:
    """Refuse a summary's model ``row`` whose headline figures a leaderboard would rank on wrong numbers.

    Each of ``task``'s compared metrics, and its interval's ``low``, ``high`` and ``se``, must be a finite
    number within the metric's bounds (``se``: at most their width) where it is a number at all; ``n`` a
    count. ``where`` names the row (run, part, model) in the message.

    Parameters
    ----------
    row : mapping
        A summary's model row.
    task : str
        Its task.
    where : str
        The row, for the message.


    Raises
    ------
    ValueError
        ``WHERE: FIELD is nan: not a finite number`` (or outside the metric's range).

    >>> check_figures({"weighted_accuracy_short": -5}, "route", where="rep route: model 'm'")
    Traceback (most recent call last):
    ...
    ValueError: rep route: model 'm': weighted_accuracy_short is -5: outside the metric's range [0, 1]
    """
    if not isinstance(row, Mapping):
        return
    intervals = row.get("intervals")
    for metric in _metrics_of(task):
        _checked(row.get(metric.name), metric.bounds, f"{where}: {metric.name}")
        found = intervals.get(metric.name) if isinstance(intervals, Mapping) else None
        if not isinstance(found, Mapping):
            continue
        for key in ("low", "high"):
            _checked(found.get(key), metric.bounds, f"{where}: intervals.{metric.name}.{key}")
        _checked(found.get("se"), (0.0, metric.bounds[1] - metric.bounds[0]), f"{where}: intervals.{metric.name}.se")
        _checked(found.get("n"), (0, math.inf), f"{where}: intervals.{metric.name}.n")


def _value(row: Any, key: str) -> float | None:
    value = row.get(key) if isinstance(row, Mapping) else None
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        return None
    return float(value)


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _interval(row: Any, key: str) -> dict[str, Any] | None:
    """The metric's interval in a summary's model row (the contract: ``n, se, low, high``), when well formed;
    one recorded without bounds (``low`` and ``high`` null: no interval to give) keeps them ``None``."""
    intervals = row.get("intervals") if isinstance(row, Mapping) else None
    found = intervals.get(key) if isinstance(intervals, Mapping) else None
    if not isinstance(found, Mapping):
        return None
    if found.get("low") is None and found.get("high") is None and "low" in found and "high" in found:
        return {"n": found.get("n"), "se": None, "low": None, "high": None}
    if not all(_finite(found.get(k)) for k in ("low", "high")):
        return None
    return {k: found[k] for k in ("n", "se", "low", "high") if k in found}


def _label(task: str, mode: str | None) -> str:
    return task if mode is None else f"{task}/{mode}"


def leaderboard_table(
    columns: Sequence[tuple[str, str | None]],
    cells: Mapping[tuple[str, str, str | None], tuple[str | None, Mapping[str, Any]]],
    *,
    rank_by: str | None = None,
) -> dict[str, Any]:
    """The leaderboard record: ``columns`` (task, mode), one row per model, ranked by ``rank_by``.

    ``cells`` maps ``(model, task, mode)`` to ``(run, row)``: where the result comes from and the
    summary's model row (its headline metrics, and ``intervals`` when it has them). ``rank_by`` is
    ``TASK[/MODE]/METRIC``; by default the first column's first metric.

    Parameters
    ----------
    columns : sequence of (str, str or None)
        The (task, mode) columns, in order (``None``: the task's only mode).
    cells : mapping
        ``(model, task, mode)`` to ``(run, row)``.
    rank_by : str, optional
        The column and metric that ranks the models.

    Returns
    -------
    dict
        ``columns``, ``rank_by`` and one row per model in rank order, each with its cells (JSON-ready).

    Raises
    ------
    ValueError
        ``rank_by`` is not a column; the message lists them.

    Examples
    --------
    >>> cells = {("m1", "route", "full"): ("run1", {"weighted_accuracy_short": 0.5}),
    ...          ("m2", "route", "full"): ("run2", {"weighted_accuracy_short": 0.7})}
    >>> record = leaderboard_table([("route", "full")], cells)
    >>> record["rank_by"], [(row["model"], row["rank"]) for row in record["rows"]]
    ('route/full/weighted_accuracy_short', [('m2', 1), ('m1', 2)])
    >>> print(leaderboard_markdown(record).splitlines()[2])
    | 1 | m2 | 70.00 | – | – | – |
    """
    choices = [f"{_label(task, mode)}/{metric.name}" for task, mode in columns for metric in _metrics_of(task)]
    rank_by = rank_by or choices[0]
    if rank_by not in choices:
        raise ValueError(f"--rank-by {rank_by!r}: not a column of this table; the columns are {', '.join(choices)}")
    rows = []
    for model in sorted(dict.fromkeys(model for model, _, _ in cells)):
        values = {}
        for task, mode in columns:
            found = cells.get((model, task, mode))
            for metric in _metrics_of(task):
                name = f"{_label(task, mode)}/{metric.name}"
                if found is None:
                    values[name] = {"value": None, "interval": None, "run": None}
                    continue
                run, row = found
                values[name] = {"value": _value(row, metric.name), "interval": _interval(row, metric.name), "run": run}
        rows.append({"model": model, "cells": values})
    ranked = next(
        metric
        for task, mode in columns
        for metric in _metrics_of(task)
        if f"{_label(task, mode)}/{metric.name}" == rank_by
    )
    ranks = tiered_ranks(
        [(row["model"], row["cells"][rank_by]["value"], row["cells"][rank_by]["interval"]) for row in rows],
        bounds=ranked.bounds,
    )
    # by rank (the unranked last), then by value, then by name
    rows.sort(key=lambda row: _order_key(ranks[row["model"]], row["cells"][rank_by]["value"], row["model"]))
    for row in rows:
        row["rank"] = ranks[row["model"]]
    return {
        "columns": [
            {"task": task, "mode": mode, "metrics": [metric.name for metric in _metrics_of(task)]}
            for task, mode in columns
        ],
        "rank_by": rank_by,
        "rows": rows,
    }


def _order_key(rank: int | None, value: float | None, model: str) -> tuple[bool, int, float, str]:
    return (rank is None, rank if rank is not None else 0, -(value or 0.0), model)


def _cell(cell: Mapping[str, Any], scale: float) -> str:
    value = cell["value"]
    if value is None:
        return "–"
    mark = " (partial)" if cell.get("partial") else ""
    interval = cell["interval"]
    if not interval:
        return f"{value * scale:.2f}{mark}"
    if _unbounded(interval):
        return f"{value * scale:.2f} ± –{mark}"
    half = (float(interval["high"]) - float(interval["low"])) / 2.0
    return f"{value * scale:.2f} ± {half * scale:.2f}{mark}"


def leaderboard_markdown(record: Mapping[str, Any]) -> str:
    """Models × (task, mode) in the paper's Table 2 shape, one table per task (each fits a page), ranked by
    the one column ``rank_by`` names, with the footnotes.

    Parameters
    ----------
    record : mapping
        A leaderboard record, as :func:`leaderboard_table` returns it.

    Returns
    -------
    str
        The tables and footnotes, names escaped for Markdown.
    """
    lines: list[str] = []
    tasks = list(dict.fromkeys(column["task"] for column in record["columns"]))
    for task in tasks:
        header = ["Rank", "Model"]
        names = []
        for column in (column for column in record["columns"] if column["task"] == task):
            for metric in _metrics_of(task):
                header.append(f"{markdown_text(_label(task, column['mode']))}: {metric.title}")
                names.append((f"{_label(task, column['mode'])}/{metric.name}", metric.scale))
        if len(tasks) > 1:
            lines += [f"**{markdown_text(task)}**", ""]
        lines += ["| " + " | ".join(header) + " |", "|---:|---|" + "---:|" * len(names)]
        for row in record["rows"]:
            if not any(row["cells"][name]["value"] is not None for name, _ in names):
                continue  # a model this task did not ask
            rank = "–" if row["rank"] is None else str(row["rank"])
            cells = [_cell(row["cells"][name], scale) for name, scale in names]
            lines.append("| " + " | ".join([rank, markdown_text(row["model"]), *cells]) + " |")
        lines.append("")
    method = record.get("interval_method")
    how = (
        f"{method.get('method', 'bootstrap')}, {method.get('resamples', '?')} resamples, seed {method.get('seed', '?')}"
        if method
        else "as each run's summary records them"
    )
    notes = [
        f"Ranked by {markdown_code(record['rank_by'])}; ± is half the width of the 95% interval"
        f" ({markdown_text(how)}). Models whose interval overlaps their tier leader's share its rank; ± – is no"
        " interval: over fewer than two questions it separates no rank, over more every question scored alike.",
    ]
    if record.get("runs_without_intervals"):
        notes.append(
            "Point estimates only (no interval in the summary) for: "
            + ", ".join(markdown_code(run) for run in record["runs_without_intervals"])
            + "; their ranks tie only on equal values."
        )
    notes += [f"Joined although they differ: {markdown_text(why)}." for why in record.get("joined", ())]
    notes += [
        f"Ranked although partial (--allow-partial), marked (partial): {markdown_text(why)}."
        for why in record.get("partial", ())
    ]
    return "\n".join([*lines, *(f"- {note}" for note in notes)]) + "\n"


def leaderboard_csv(record: Mapping[str, Any]) -> str:
    """One line per (model, column, metric); values in the summaries' units (accuracy as a fraction).

    Text cells go through :func:`benchmarks.cells.csv_cell` (no cell starts a formula); ``partial`` says
    why a cell's part is incomplete, empty when it is not.

    Parameters
    ----------
    record : mapping
        A leaderboard record (:func:`leaderboard_table`).

    Returns
    -------
    str
        The CSV table.
    """
    lines = []
    for row in record["rows"]:
        for column in record["columns"]:
            for metric in column["metrics"]:
                cell = row["cells"][f"{_label(column['task'], column['mode'])}/{metric}"]
                interval = cell["interval"] or {}
                lines.append(
                    [
                        row["rank"],
                        row["model"],
                        column["task"],
                        column["mode"],
                        metric,
                        cell["value"],
                        *(interval.get(key) for key in ("low", "high", "se", "n")),
                        cell["run"],
                        cell.get("partial"),
                    ]
                )
    return csv_table(_COLUMNS, lines)


def plot_leaderboard(record: Mapping[str, Any], png: str | Path) -> tuple[Path, Path]:
    """Each column's values with their intervals, models in rank order (the top ones when there are many).

    Parameters
    ----------
    record : mapping
        A leaderboard record, as :func:`leaderboard_table` returns it.
    png : str or Path
        The PNG to write; the PDF goes beside it.

    Returns
    -------
    png, pdf : Path
        The two files written.
    """
    import numpy as np

    from benchmarks.plotting import PAGE_WIDTH, PLOT_MODELS, figure_style, save_figure

    rows = record["rows"][:PLOT_MODELS]
    panels = [
        (
            f"{_label(column['task'], column['mode'])}/{metric.name}",
            f"{_label(column['task'], column['mode'])}\n{metric.title}",
            metric.scale,
            metric.bounds,
        )
        for column in record["columns"]
        for metric in _metrics_of(column["task"])
    ]
    with figure_style() as plt:
        columns = min(4, len(panels))
        lines = (len(panels) + columns - 1) // columns
        figure, axes = plt.subplots(
            lines,
            columns,
            figsize=(PAGE_WIDTH, 0.6 + (0.35 + 0.16 * len(rows)) * lines),
            squeeze=False,
            layout="constrained",
        )
        labels = [f"{figure_text(row['model'])} ({'–' if row['rank'] is None else row['rank']})" for row in rows]
        for index, axis in enumerate(axes.flat):
            if index >= len(panels):
                axis.set_visible(False)
                continue
            name, title, scale, _ = panels[index]
            for y, row in enumerate(rows):
                cell = row["cells"][name]
                if cell["value"] is None:
                    continue
                x = cell["value"] * scale
                if cell["interval"] and not _unbounded(cell["interval"]):
                    error = np.array([[x - cell["interval"]["low"] * scale], [cell["interval"]["high"] * scale - x]])
                    axis.errorbar(
                        [x], [y], xerr=error, fmt="o", markersize=3, capsize=2, linewidth=0.8, color="#0072B2"
                    )
                else:
                    axis.plot([x], [y], "o", markersize=3, markerfacecolor="none", color="#0072B2")
            axis.set_yticks(range(len(rows)))
            axis.set_yticklabels(labels if index % columns == 0 else [""] * len(rows))
            axis.set_ylim(-0.6, len(rows) - 0.4)
            axis.invert_yaxis()
            axis.set_title(title)
        shared: dict[str, list[Any]] = {}  # one metric (across tasks' modes) on one x scale: panels compare by eye
        for index, axis in enumerate(axes.flat[: len(panels)]):
            shared.setdefault(panels[index][0].rsplit("/", 1)[-1], []).append(axis)
        bounds = {panel[0].rsplit("/", 1)[-1]: (panel[3][0] * panel[2], panel[3][1] * panel[2]) for panel in panels}
        for metric, group in shared.items():  # never past what the metric can be (100% is the most)
            low = max(min(axis.get_xlim()[0] for axis in group), bounds[metric][0])
            high = min(max(axis.get_xlim()[1] for axis in group), bounds[metric][1])
            for axis in group:
                axis.set_xlim(low, high)
        figure.suptitle(
            f"Leaderboard (rank by {record['rank_by']}); bars: 95% intervals, open dots: no interval", fontsize=8
        )
        return save_figure(figure, png)

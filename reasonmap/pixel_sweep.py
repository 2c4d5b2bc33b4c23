"""Accuracy against map resolution: what ``reasonmap eval --pixel-budget 1M,4M,16M`` writes beside its results.

The full mode is asked once per pixel budget (each map downscaled to the
budget when it is sent, never upscaled: :mod:`baselines.map_images`), each in
its own folder (``DIR/<task>/full@4M/``). ``resolution.md`` tabulates each
task's accuracies per budget and ``resolution.png`` (and ``.pdf``) draws them
against the budget on a log axis, one line per model and metric, with the 95%
intervals of the report's ``summary.json`` (``models[m]["intervals"][metric]``:
``low`` and ``high``) where it has them, points only otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.cells import markdown_text
from reasonmap.options import budget_label

__all__ = ["mode_runs", "mode_shown", "resolution_record", "resolution_markdown", "plot_resolution", "write_resolution"]


def mode_runs(modes: Sequence[str], pixel_budget: int | tuple[int, ...]) -> list[tuple[str, int, str]]:
    """``(mode, pixel budget, folder name)`` of each run: the full mode once per budget of a sweep
    (``full@1M``, ...), every mode once under its own name otherwise (the image budget is the full mode's only).

    Parameters
    ----------
    modes : sequence of str
        The prompt modes.
    pixel_budget : int or tuple of int
        One budget, or a sweep's.

    Returns
    -------
    list of (str, int, str)

    Examples
    --------
    >>> mode_runs(("full", "text-only"), (1_000_000, 4_000_000))
    [('full', 1000000, 'full@1M'), ('full', 4000000, 'full@4M'), ('text-only', 1000000, 'text-only')]
    >>> mode_runs(("full",), 4_000_000)
    [('full', 4000000, 'full')]
    """
    budgets = pixel_budget if isinstance(pixel_budget, tuple) else (pixel_budget,)
    runs = []
    for mode in modes:
        if mode == "full" and len(budgets) > 1:
            runs += [(mode, budget, f"{mode}@{budget_label(budget)}") for budget in budgets]
        else:
            runs.append((mode, budgets[0], mode))
    return runs


def mode_shown(row: Mapping[str, Any]) -> str:
    """A results row's mode as its folder is named: ``full@4M`` for one budget of a sweep.

    Parameters
    ----------
    row : mapping
        A results row (``mode``, and ``pixel_budget`` in a sweep).

    Returns
    -------
    str
    """
    if "pixel_budget" not in row:
        return row["mode"]
    return f"{row['mode']}@{budget_label(row['pixel_budget'])}"


def resolution_record(
    results: Sequence[Mapping[str, Any]],
    intervals: Mapping[tuple[str, int], Mapping[str, Any]],
    columns: Mapping[str, Sequence[tuple[str, str]]],
) -> dict[str, Any]:
    """The curves of a sweep: ``{"budgets": [..], "curves": [{"model", "task", "metric", "title", "points",
    "text_only"}]}`` (``text_only``: the same accuracy without the map, when the run asked that mode).

    ``results`` are eval's rows (those with a ``pixel_budget`` are the sweep's), ``intervals`` each
    (task, budget)'s intervals by metric, ``columns`` each task's accuracies as ``(title, metric)``.
    A point is ``{"pixel_budget", "value", "n", "low", "high"}`` (``low``/``high`` ``None`` without an interval).

    Parameters
    ----------
    results : sequence of mapping
        Eval's results rows.
    intervals : mapping
        ``(task, budget)`` to the intervals by metric.
    columns : mapping
        Each task's accuracies as ``(title, metric)``.

    Returns
    -------
    dict
        As above (JSON-ready).

    Examples
    --------
    >>> rows = [{"task": "t", "mode": "full", "pixel_budget": b, "model": "m", "n": 4, "metrics": {"acc": v}}
    ...         for b, v in ((1000, 0.25), (4000, 0.5))]
    >>> record = resolution_record(rows, {("t", 4000): {"acc": {"low": 0.2, "high": 0.8}}}, {"t": [("Acc.", "acc")]})
    >>> record["budgets"], [(p["value"], p["low"]) for p in record["curves"][0]["points"]]
    ([1000, 4000], [(0.25, None), (0.5, 0.2)])
    """
    swept = [row for row in results if "pixel_budget" in row]
    budgets = sorted({row["pixel_budget"] for row in swept})
    curves = []
    for model in dict.fromkeys(row["model"] for row in swept):
        for task in dict.fromkeys(row["task"] for row in swept):
            for title, metric in columns.get(task, ()):
                points = []
                for row in swept:
                    if (row["model"], row["task"]) != (model, task) or row["metrics"].get(metric) is None:
                        continue
                    interval = intervals.get((task, row["pixel_budget"]), {}).get(metric) or {}
                    points.append(
                        {
                            "pixel_budget": row["pixel_budget"],
                            "value": row["metrics"][metric],
                            "n": row["n"],
                            "low": interval.get("low"),
                            "high": interval.get("high"),
                            # an interval recorded without bounds (n < 2, no variance): printed ± –
                            **({"unbounded": True} if interval and interval.get("low") is None else {}),
                        }
                    )
                blind = next(
                    (
                        row["metrics"].get(metric)
                        for row in results
                        if (row["model"], row["task"], row["mode"]) == (model, task, "text-only")
                    ),
                    None,
                )
                if points:
                    points.sort(key=lambda point: point["pixel_budget"])
                    curves.append(
                        {"model": model, "task": task, "metric": metric, "title": title, "points": points,
                         "text_only": blind}
                    )  # fmt: skip
    return {"budgets": budgets, "curves": curves}


def _cell(point: Mapping[str, Any] | None) -> str:
    if point is None:
        return "–"
    if point["low"] is None or point["high"] is None:
        return f"{100 * point['value']:.2f}" + (" ± –" if point.get("unbounded") else "")
    return f"{100 * point['value']:.2f} ± {100 * (point['high'] - point['low']) / 2:.2f}"


def resolution_markdown(record: Mapping[str, Any]) -> str:
    """One row per (model, task, accuracy), one column per pixel budget; accuracies in %, ``± half the 95%
    interval`` where the report has one.

    Parameters
    ----------
    record : mapping
        What :func:`resolution_record` returns.

    Returns
    -------
    str

    Examples
    --------
    >>> point = {"pixel_budget": 1000, "value": 0.5, "n": 4, "low": 0.25, "high": 0.75}
    >>> curve = {"model": "m", "task": "t", "metric": "acc", "title": "Acc.", "points": [point]}
    >>> print(resolution_markdown({"budgets": [1000, 4000], "curves": [curve]}), end="")
    Accuracy (%) against the map's pixel budget (maps larger than a budget are downscaled to it when sent).
    <BLANKLINE>
    | Model | Task | Metric | 1k px | 4k px | Text-only (no map) |
    |---|---|---|---:|---:|---:|
    | m | t | Acc. | 50.00 ± 25.00 | – | – |
    """
    budgets = record["budgets"]
    lines = [
        "Accuracy (%) against the map's pixel budget (maps larger than a budget are downscaled to it when sent).",
        "",
        "| Model | Task | Metric | "
        + " | ".join(f"{budget_label(budget)} px" for budget in budgets)
        + " | Text-only (no map) |",
        "|---|---|---|" + "---:|" * (len(budgets) + 1),
    ]
    for curve in record["curves"]:
        by_budget = {point["pixel_budget"]: point for point in curve["points"]}
        cells = [_cell(by_budget.get(budget)) for budget in budgets]
        blind = "–" if curve.get("text_only") is None else f"{100 * curve['text_only']:.2f}"
        lines.append(
            f"| {markdown_text(curve['model'])} | {curve['task']} | {curve['title']} | "
            + " | ".join(cells)
            + f" | {blind} |"
        )
    if not record["curves"]:
        lines.append("| – | – | – |" + " – |" * (len(budgets) + 1))
    return "\n".join(lines) + "\n"


def plot_resolution(record: Mapping[str, Any], path: str | Path) -> tuple[Path, Path]:
    """Accuracy (%) against the pixel budget (log axis), one line per curve, the 95% intervals as error bars
    where known; written as ``path`` (PNG) and a PDF beside it.

    Parameters
    ----------
    record : mapping
        What :func:`resolution_record` returns.
    path : str or Path
        The PNG to write.

    Returns
    -------
    png, pdf : Path
    """
    from benchmarks.plotting import COLUMN_WIDTH, MARKERS, figure_style, model_style, save_figure

    budgets = record["budgets"]
    with figure_style() as plt:
        figure, axis = plt.subplots(figsize=(COLUMN_WIDTH * 1.4, 2.6), layout="constrained")
        for index, curve in enumerate(record["curves"]):
            style = model_style(index)
            points = curve["points"]
            xs = [point["pixel_budget"] for point in points]
            ys = [100 * point["value"] for point in points]
            known = [point["low"] is not None and point["high"] is not None for point in points]
            errors = [
                [100 * (point["value"] - point["low"]) if ok else 0.0 for point, ok in zip(points, known, strict=True)],
                [
                    100 * (point["high"] - point["value"]) if ok else 0.0
                    for point, ok in zip(points, known, strict=True)
                ],
            ]
            label = f"{curve['task']} {curve['title']}" + (
                f" ({curve['model']})" if len({c["model"] for c in record["curves"]}) > 1 else ""
            )
            axis.errorbar(
                xs,
                ys,
                yerr=errors if any(known) else None,
                marker=MARKERS[index % len(MARKERS)],  # told apart without colour too
                color=style.colour,
                capsize=2.5,
                linewidth=1.2,
                markersize=4,
                label=label,
            )
            if curve.get("text_only") is not None:  # the floor: what the model answers without the map
                axis.axhline(100 * curve["text_only"], color=style.colour, linestyle=":", linewidth=1.0)
        axis.set_xscale("log")
        axis.set_xticks(budgets, [budget_label(budget) for budget in budgets])
        axis.minorticks_off()
        axis.set_xlabel("map pixel budget (pixels sent at most)")
        axis.set_ylabel("accuracy (%)")
        axis.set_ylim(-2, 102)
        axis.grid(True, linewidth=0.4, alpha=0.5)
        models = ", ".join(dict.fromkeys(curve["model"] for curve in record["curves"]))
        has_bars = any(point["low"] is not None for curve in record["curves"] for point in curve["points"])
        blind = any(curve.get("text_only") is not None for curve in record["curves"])
        axis.set_title(
            f"Accuracy against map resolution: {models}"
            + ("" if has_bars else " (no intervals)")
            + ("\ndotted: the same accuracy in text-only mode (no map)" if blind else "")
        )
        if record["curves"]:
            axis.legend(loc="best", frameon=False)
        return save_figure(figure, path)


def write_resolution(
    out: str | Path,
    results: Sequence[Mapping[str, Any]],
    intervals: Mapping[tuple[str, int], Mapping[str, Any]],
    columns: Mapping[str, Sequence[tuple[str, str]]],
) -> list[Path]:
    """Write ``resolution.md``, ``resolution.png`` and ``resolution.pdf`` into ``out``; returns their paths.

    Parameters
    ----------
    out : str or Path
        The run's folder.
    results, intervals, columns
        As :func:`resolution_record`.

    Returns
    -------
    list of Path
    """
    from benchmarks.summaries import write_text

    record = resolution_record(results, intervals, columns)
    markdown = write_text(Path(out) / "resolution.md", resolution_markdown(record))
    return [markdown, *plot_resolution(record, Path(out) / "resolution.png")]

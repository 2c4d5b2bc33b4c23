"""Paired comparisons of scored rows: two sides' answers to the same questions, metric by metric.

A side is one model's scored rows (``scored.jsonl``, as ``score`` and ``eval`` write
them). :func:`compare_scored` computes, for each metric the task compares (its
metric records that name a scored-row ``field``: :func:`benchmarks.metrics.compared`),
over the questions both sides answered: both values, the difference B − A with a
paired-bootstrap interval (each question's Poisson weights, keyed by its id, serve
all the metrics and both sides, so a question's short and long answers move together;
with ``maps``, each map's weights too; each side's weighting inside each
resample), a p-value (exact McNemar for correctness, sign
flips for scores), how many questions each side lacked, and the minimum detectable
effect (:func:`benchmarks.power.detectable_from_se`: what the comparison would find at
80% power, from the difference's standard error). With fewer than two questions, or
no variance of the difference, there is no interval (``se``, ``low``, ``high``
``None``): one question A right and B wrong is −100 points, not a finding. :func:`headline_intervals`
is the one-side bootstrap interval of each headline metric. The statistics are
:mod:`benchmarks.paired`; :func:`comparison_markdown`, :func:`comparison_csv` and
:func:`plot_comparison` render a comparison record (``reasonmap compare`` writes one),
names through :mod:`benchmarks.cells`; a side from a run that did not finish or
scored part of a log (``partial_a`` / ``partial_b``) is marked ``(partial)``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.cells import csv_table, figure_text, markdown_code, markdown_text
from benchmarks.metrics import MetricSpec, compared
from benchmarks.paired import (
    difference_interval,
    mcnemar_exact,
    mean_interval,
    resampling_weights,
    sign_flip_pvalue,
)
from benchmarks.power import detectable_from_se

__all__ = [
    "scored_values",
    "compare_scored",
    "headline_intervals",
    "comparison_markdown",
    "comparison_csv",
    "plot_comparison",
]

_COLUMNS = (
    "task",
    "mode_a",
    "mode_b",
    "run_a",
    "run_b",
    "model_a",
    "model_b",
    "metric",
    "n",
    "lacked_by_a",
    "lacked_by_b",
    "a",
    "b",
    "difference",
    "se",
    "low",
    "high",
    "p_value",
    "test",
    "a_only",
    "b_only",
    "partial_a",
    "partial_b",
)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and value == value:  # not nan
        return float(value)
    return None


def scored_values(
    rows: Sequence[Mapping[str, Any]], model: str, metrics: Sequence[MetricSpec]
) -> dict[str, dict[str, tuple[float, float, int]]]:
    """Per metric, per question id: (value, weight, repeats) of ``model``'s rows.

    A question answered more than once (``repeat``) gets the mean of its repeats' values.
    Rows whose metric field is missing or null do not count for that metric (a map QA
    question of a type the metric does not apply to).

    Parameters
    ----------
    rows : sequence of mapping
        Scored rows (``score --out``).
    model : str
        Only this model's rows.
    metrics : sequence of MetricSpec
        The metrics (those naming a row ``field``, and a request ``kind`` when they have one).

    Returns
    -------
    dict
        Each metric's name to its values by question id: ``(value, weight, repeats)``.
    """
    found: dict[str, dict[str, list[Any]]] = {metric.name: {} for metric in metrics}
    for row in rows:
        if row.get("model") != model or not isinstance(row.get("id"), str | int):
            continue
        for metric in metrics:
            if metric.kind is not None and row.get("question") != metric.kind:
                continue
            value = _number(row.get(metric.field))
            if value is None:
                continue
            weight = _number(row.get("weight")) if metric.weighted else 1.0
            entry = found[metric.name].setdefault(str(row["id"]), [0.0, 1.0 if weight is None else weight, 0])
            entry[0] += value
            entry[2] += 1
    return {
        key: {id: (total / count, weight, count) for id, (total, weight, count) in by_id.items()}
        for key, by_id in found.items()
    }


def _metrics_of(task: str) -> tuple[MetricSpec, ...]:
    from benchmarks.tasks import get_task

    return compared(get_task(task).metrics)


def compare_scored(
    rows_a: Sequence[Mapping[str, Any]],
    rows_b: Sequence[Mapping[str, Any]],
    *,
    task: str,
    model_a: str,
    model_b: str,
    ids: Collection[str] | None = None,
    resamples: int = 2000,
    permutations: int = 10_000,
    seed: int = 0,
    level: float = 0.95,
    maps: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The paired comparison of ``model_b``'s scored rows with ``model_a``'s, one record per headline metric of
    ``task``: ``n`` (questions both answered), ``lacked_by_a``/``_b``, both values, ``difference`` (B − A),
    ``se``, ``low``, ``high``, ``p_value``, ``test`` and ``mde``. ``ids`` keeps only those questions (a
    city's, a difficulty's); ``maps`` (question id → map) resamples maps, then questions within them.

    Parameters
    ----------
    rows_a, rows_b : sequence of mapping
        The two sides' scored rows (``score --out``).
    task : str
        The task the rows are of; its headline metrics are compared.
    model_a, model_b : str
        The model of each side.
    ids : collection of str, optional
        Only these questions (all that both answered by default).
    resamples : int, optional
        Paired bootstrap resamples for each interval.
    permutations : int, optional
        Sign flips drawn for a score's permutation test (exact when there are fewer).
    seed : int, optional
        Seeds the resamples and the permutations.
    level : float, optional
        The intervals' confidence level.
    maps : mapping of str to str, optional
        Each question's map, to resample maps and then questions within them.

    Returns
    -------
    list of dict
        One per headline metric, in the task's order.

    Raises
    ------
    ValueError
        ``maps`` lacks a question compared.
    """
    metrics = _metrics_of(task)
    values_a = scored_values(rows_a, model_a, metrics)
    values_b = scored_values(rows_b, model_b, metrics)
    if ids is not None:
        kept = set(ids)
        values_a = {key: {id: v for id, v in found.items() if id in kept} for key, found in values_a.items()}
        values_b = {key: {id: v for id, v in found.items() if id in kept} for key, found in values_b.items()}
    rows = _paired(metrics, values_a, values_b, resamples, permutations, seed, level, maps)
    return [{"task": task, "model_a": model_a, "model_b": model_b, **row} for row in rows]


def _paired(
    metrics: Sequence[MetricSpec],
    values_a: Mapping[str, Mapping[str, tuple[float, float, int]]],
    values_b: Mapping[str, Mapping[str, tuple[float, float, int]]],
    resamples: int,
    permutations: int,
    seed: int,
    level: float,
    maps: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    ids = sorted({id for metric in metrics for id in values_a[metric.name].keys() & values_b[metric.name].keys()})
    counts = _weights(ids, resamples, seed, maps) if ids else None
    position = {id: index for index, id in enumerate(ids)}
    found = []
    for metric in metrics:
        a, b = values_a[metric.name], values_b[metric.name]
        common = sorted(a.keys() & b.keys())
        row: dict[str, Any] = {
            "metric": metric.name,
            "title": metric.title,
            "n": len(common),
            "lacked_by_a": len(b.keys() - a.keys()),
            "lacked_by_b": len(a.keys() - b.keys()),
            "test": metric.test,
        }
        if not common or counts is None:
            found.append({**row, **dict.fromkeys(("a", "b", "difference", "se", "low", "high", "p_value"))})
            continue
        shape = len(ids)
        xa, xb, wa, wb = (np.zeros(shape) for _ in range(4))
        where = np.array([position[id] for id in common])
        xa[where] = [a[id][0] for id in common]
        xb[where] = [b[id][0] for id in common]
        wa[where] = [a[id][1] for id in common]
        wb[where] = [b[id][1] for id in common]
        interval = _bounded(difference_interval(counts, xa, xb, wa, wb, level=level), len(common))
        repeated = any(a[id][2] > 1 or b[id][2] > 1 for id in common)
        test = "permutation" if repeated else metric.test  # McNemar needs one 0/1 verdict a side
        if test == "mcnemar":
            p = float(mcnemar_exact(xa[where], xb[where]))
            row["a_only"] = int(np.sum((xa[where] > 0.5) & (xb[where] < 0.5)))
            row["b_only"] = int(np.sum((xa[where] < 0.5) & (xb[where] > 0.5)))
        else:
            weights = (wa[where] + wb[where]) / 2.0
            p = float(sign_flip_pvalue(xb[where] - xa[where], weights, permutations=permutations, seed=seed))
        mean_a = float(np.sum(wa * xa) / np.sum(wa))
        mean_b = float(np.sum(wb * xb) / np.sum(wb))
        found.append(
            {
                **row,
                "test": test,
                "repeats": repeated,
                "a": _rounded(mean_a),
                "b": _rounded(mean_b),
                **{key: _rounded(value) for key, value in interval.items()},
                "p_value": _rounded(p),
                "mde": _rounded(detectable_from_se(interval["se"], level=level)),
            }
        )
    return found


def _weights(ids: Sequence[str], resamples: int, seed: int, maps: Mapping[str, str] | None) -> np.ndarray:
    """The questions' weights in each resample, as :func:`benchmarks.paired.weighted_means` reads them
    (resamples × questions)."""
    if maps is not None:
        missing = [id for id in ids if id not in maps]
        if missing:
            raise ValueError(f"question {missing[0]!r} has no map in the run's clusters: cannot resample by map")
    chosen = None if maps is None else [maps[id] for id in ids]
    return resampling_weights(ids, resamples=resamples, seed=seed, maps=chosen).T


def _bounded(interval: Mapping[str, float], n: int) -> dict[str, float | None]:
    """The interval of a difference over ``n`` questions, or none where it would claim what the data cannot
    show: fewer than two questions, no variance, or a bound that is not a finite number."""
    spread = (interval["se"], interval["low"], interval["high"])
    if n < 2 or not all(np.isfinite(spread)) or interval["se"] <= 1e-12 or interval["high"] - interval["low"] <= 1e-12:
        return {"difference": interval["difference"], "se": None, "low": None, "high": None}
    return dict(interval)


def _rounded(value: float | None) -> float | None:
    """Six significant decimals: the same numbers print the same wherever they were summed (``None`` for
    none, and for a figure that is not a finite number)."""
    if value is None or not np.isfinite(value):
        return None
    return round(float(value), 6)


def headline_intervals(
    rows: Sequence[Mapping[str, Any]],
    *,
    task: str,
    model: str,
    resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    maps: Mapping[str, str] | None = None,
) -> dict[str, dict[str, float | None]]:
    """Each headline metric of ``model``'s scored rows with its bootstrap interval: ``n``, ``mean``, ``se``,
    ``low``, ``high``. One draw of the questions serves every metric (a question's short and long answers
    move together); the weighting applies inside each resample; ``maps`` (question id → map) resamples maps,
    then questions. With fewer than two questions or no variance, ``se``, ``low`` and ``high`` are ``None``.

    Parameters
    ----------
    rows : sequence of mapping
        Scored rows (``score --out``).
    task : str
        The task they are of; its headline metrics get intervals.
    model : str
        Only this model's rows.
    resamples : int, optional
        Bootstrap resamples.
    seed : int, optional
        Seeds the resamples.
    level : float, optional
        The intervals' confidence level.
    maps : mapping of str to str, optional
        Each question's map, to resample maps and then questions within them.

    Returns
    -------
    dict
        Each headline metric's name to its ``n``, ``mean``, ``se``, ``low`` and ``high``.
    """
    metrics = _metrics_of(task)
    values = scored_values(rows, model, metrics)
    ids = sorted({id for found in values.values() for id in found})
    if not ids:
        return {}
    counts = _weights(ids, resamples, seed, maps)
    position = {id: index for index, id in enumerate(ids)}
    found: dict[str, dict[str, float | None]] = {}
    for metric in metrics:
        by_id = values[metric.name]
        if not by_id:
            continue
        x, w = np.zeros(len(ids)), np.zeros(len(ids))
        where = np.array([position[id] for id in by_id])
        x[where] = [value for value, _, _ in by_id.values()]
        w[where] = [weight for _, weight, _ in by_id.values()]
        spread = mean_interval(counts, x, w, level=level)
        bounded = _bounded({"difference": spread["mean"], **spread}, len(by_id))
        spread = {"mean": spread["mean"], **{key: bounded[key] for key in ("se", "low", "high")}}
        found[metric.name] = {"n": len(by_id), **{key: _rounded(value) for key, value in spread.items()}}
    return found


def _cell(value: float | None, scale: float, *, signed: bool = False) -> str:
    if value is None:
        return "–"
    shown = f"{value * scale:+.2f}" if signed else f"{value * scale:.2f}"
    return shown.replace("-", "−")


def _p(value: float | None) -> str:
    if value is None:
        return "–"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def _scale(row: Mapping[str, Any]) -> float:
    return next((metric.scale for metric in _metrics_of(row["task"]) if metric.name == row["metric"]), 1.0)


def _where(row: Mapping[str, Any]) -> str:
    mode = row["mode_a"] if row["mode_a"] == row["mode_b"] else f"{row['mode_a']} → {row['mode_b']}"
    return row["task"] if mode is None else f"{row['task']}/{mode}"


def _run_name(run: str) -> str:
    """A run as a row shows it: its folder's name (a report folder: with its parent's), the path in the header."""
    path = Path(run)
    return f"{path.parent.name}/{path.name}" if path.name == "report" and path.parent.name else path.name or run


def _side(row: Mapping[str, Any], which: str, same_run: bool) -> str:
    model = row[f"model_{which}"]
    return model if same_run else f"{_run_name(row[f'run_{which}'])}: {model}"


def _side_cell(row: Mapping[str, Any], which: str, same_run: bool) -> str:
    """A side as the table shows it: escaped (:func:`benchmarks.cells.markdown_text`), marked when partial."""
    mark = " (partial)" if row.get(f"partial_{which}") else ""
    return markdown_text(_side(row, which, same_run)) + mark


def _pair_label(row: Mapping[str, Any], same_run: bool) -> str:
    """A comparison as the figure names it: where, and the two sides (one, when they are the same model)."""
    first, second = figure_text(_side(row, "a", same_run)), figure_text(_side(row, "b", same_run))
    where = figure_text(_where(row))
    return f"{where}: {first}" if first == second else f"{where}: {first} → {second}"


def comparison_markdown(record: Mapping[str, Any]) -> str:
    """The comparison as one Markdown table (B − A, its interval and p-value), with notes.

    Parameters
    ----------
    record : mapping
        A comparison record, as :func:`reasonmap.compare_runs` returns it: ``a``, ``b``, ``method`` and its
        ``comparisons`` rows (those of :func:`compare_scored`).

    Returns
    -------
    str
        The method line, the table and its notes, names escaped for Markdown.
    """
    method = record["method"]
    level = round(100 * method["level"])
    same_run = record["a"] == record["b"]
    lines = [
        f"Paired comparison, B − A: A = {markdown_code(record['a'])}, B = {markdown_code(record['b'])}."
        f" {level}% paired-bootstrap intervals ({method['resamples']} resamples {_unit(method)}, seed"
        f" {method['seed']}); p: exact McNemar for accuracy, paired sign-flip permutation for scores;"
        " [–]: no interval (fewer than two questions, or no variance).",
        "",
        f"| Task | A | B | Metric | n | A | B | B − A [{level}% CI] | p | Test |",
        "|---|---|---|---|---:|---:|---:|---|---:|---|",
    ]
    notes = []
    for row in record["comparisons"]:
        scale = _scale(row)
        interval = "–"
        if row["difference"] is not None and (row["low"] is None or row["high"] is None):
            interval = f"{_cell(row['difference'], scale, signed=True)} [–]"
        elif row["difference"] is not None:
            interval = (
                f"{_cell(row['difference'], scale, signed=True)}"
                f" [{_cell(row['low'], scale, signed=True)}, {_cell(row['high'], scale, signed=True)}]"
            )
        test = "McNemar" if row["test"] == "mcnemar" else "permutation"
        where = markdown_text(_where(row))
        lines.append(
            f"| {where} | {_side_cell(row, 'a', same_run)} | {_side_cell(row, 'b', same_run)} | {row['title']}"
            f" | {row['n']} | {_cell(row['a'], scale)} | {_cell(row['b'], scale)} | {interval} | {_p(row['p_value'])}"
            f" | {test} |"
        )
        if row["lacked_by_a"] or row["lacked_by_b"]:
            notes.append(
                f"- {where} {row['title']}: A lacked {row['lacked_by_a']} questions that B answered,"
                f" B lacked {row['lacked_by_b']} that A answered (left out)."
            )
        if row.get("repeats"):
            notes.append(f"- {where} {row['title']}: repeated answers, each question's mean compared (sign flips).")
    notes += _detectable(record["comparisons"], level)
    notes += [f"- Joined although they differ: {markdown_text(why)}." for why in record.get("joined", ())]
    notes += [
        f"- Compared although partial (--allow-partial), marked (partial): {markdown_text(why)}."
        for why in record.get("partial", ())
    ]
    notes += [
        f"- Not compared (no counterpart on the other side): {markdown_text(what)}."
        for what in record.get("unpaired", [])
    ]
    if record.get("skipped_records"):
        notes.append(f"- {len(record['skipped_records'])} scored rows could not be read (see comparison.json).")
    return "\n".join([*lines, *([""] + notes if notes else [])]) + "\n"


def _unit(method: Mapping[str, Any]) -> str:
    return "of the maps, then the questions" if method.get("cluster") == "map" else "of the questions"


def _detectable(rows: Sequence[Mapping[str, Any]], level: int) -> list[str]:
    """The minimum detectable effect of each comparison, one line under the table."""
    shown = [
        f"{_where(row)} {row['title']} {_cell(row['mde'], _scale(row))}" for row in rows if row.get("mde") is not None
    ]
    if not shown:
        return []
    return [
        f"- Minimum detectable effect (a difference found at 80% power, two-sided {100 - level}%:"
        f" {detectable_from_se(1.0, level=level / 100):.2f} × its standard error): {'; '.join(shown)}."
    ]


def comparison_csv(record: Mapping[str, Any]) -> str:
    """One line per (comparison, metric); values in the summaries' units (accuracy as a fraction); text cells
    through :func:`benchmarks.cells.csv_cell` (no cell starts a formula).

    Parameters
    ----------
    record : mapping
        A comparison record, as :func:`reasonmap.compare_runs` returns it.

    Returns
    -------
    str
        The CSV table.
    """
    return csv_table(_COLUMNS, ([row.get(column) for column in _COLUMNS] for row in record["comparisons"]))


def plot_comparison(record: Mapping[str, Any], png: str | Path) -> tuple[Path, Path]:
    """The differences with their intervals: one panel per metric, one row per comparison, zero marked.

    Parameters
    ----------
    record : mapping
        A comparison record, as :func:`reasonmap.compare_runs` returns it: ``a``, ``b``, ``method`` and its
        ``comparisons`` rows (those of :func:`compare_scored`).
    png : str or Path
        The PNG to write; the PDF goes beside it.

    Returns
    -------
    png, pdf : Path
        The two files written.
    """
    from benchmarks.plotting import COLUMN_WIDTH, PAGE_WIDTH, figure_style, save_figure

    rows = [row for row in record["comparisons"] if row["difference"] is not None]
    panels = list(dict.fromkeys((row["task"], row["metric"], row["title"]) for row in rows))
    same_run = record["a"] == record["b"]
    with figure_style() as plt:
        columns = max(1, min(4, len(panels)))
        lines = (len(panels) + columns - 1) // columns if panels else 1
        labels = list(dict.fromkeys(_pair_label(row, same_run) for row in rows))
        height = 0.9 + 0.22 * max(1, len(labels)) * lines
        figure, axes = plt.subplots(
            lines,
            columns,
            figsize=(PAGE_WIDTH if columns > 1 else COLUMN_WIDTH, height),
            squeeze=False,
            layout="constrained",
        )
        for index, axis in enumerate(axes.flat):
            if index >= len(panels):
                axis.set_visible(False)
                continue
            task, metric, title = panels[index]
            chosen = [row for row in rows if (row["task"], row["metric"]) == (task, metric)]
            scale = _scale(chosen[0])
            y = [labels.index(_pair_label(r, same_run)) for r in chosen]
            x = np.array([r["difference"] for r in chosen]) * scale
            # a difference without an interval (n < 2, no variance): its point, no bar
            low = x - np.array([r["difference"] if r["low"] is None else r["low"] for r in chosen]) * scale
            high = np.array([r["difference"] if r["high"] is None else r["high"] for r in chosen]) * scale - x
            axis.axvline(0.0, color="#7F7F7F", linewidth=0.6, linestyle="--")
            axis.errorbar(x, y, xerr=[low, high], fmt="o", markersize=3, capsize=2, linewidth=0.8)
            axis.set_yticks(range(len(labels)))
            axis.set_yticklabels(labels if index % columns == 0 else [""] * len(labels))
            axis.set_ylim(-0.6, len(labels) - 0.4)
            axis.invert_yaxis()
            axis.set_title(f"{task}\n{title}")
            axis.set_xlabel("B − A (% points)" if scale == 100.0 else "B − A")
        if not panels:
            axes.flat[0].set_visible(True)
            axes.flat[0].text(0.5, 0.5, "no question answered by both sides", ha="center", va="center")
            axes.flat[0].set_axis_off()
        level = round(100 * record["method"]["level"])
        figure.suptitle(f"Paired differences, B − A, with {level}% bootstrap intervals", fontsize=8)
        return save_figure(figure, png)

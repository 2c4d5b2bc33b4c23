"""``reasonmap compare A B``: paired comparisons of two runs, two models of a run, or two modes of a run.

For every (task, mode) the two sides share, each headline metric of the task
(its ``paired_metrics``) is computed over the questions both sides answered:
both values, the difference B − A with a paired-bootstrap interval (the
questions resampled with both sides together, the weighting inside each
resample; one draw per comparison, so a question's short and long answers
move together) and a p-value (exact McNemar for correctness, a paired
sign-flip permutation test for scores; :mod:`benchmarks.paired`), and how many
questions each side lacked. Two sides over different question files or
settings are refused (:func:`reasonmap.runs.difference`) unless ``join``.

Written to ``out``: ``comparison.md``, ``comparison.json``, ``comparison.csv``
and ``comparison.png`` (with ``.pdf``): the differences with their intervals.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.paired import (
    PairedMetric,
    bootstrap_counts,
    difference_interval,
    mcnemar_exact,
    sign_flip_pvalue,
)
from reasonmap.runs import RunError, RunPart, difference, read_run, read_scored, scored_values

__all__ = [
    "Side",
    "pair_sides",
    "compare_scored",
    "compare_runs",
    "comparison_markdown",
    "comparison_csv",
    "write_comparison",
]

COMPARISON_FILES = ("comparison.md", "comparison.json", "comparison.csv", "comparison.png", "comparison.pdf")
_CSV_COLUMNS = (
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
)


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a comparison: a model's answers in one part of a run."""

    part: RunPart
    model: str


def _one_model_each(first: RunPart, second: RunPart) -> list[tuple[str, str]]:
    common = [model for model in first.models if model in second.models]
    if common:
        return [(model, model) for model in common]
    if len(first.models) == 1 and len(second.models) == 1:  # two runs of two models: compare them
        return [(first.models[0], second.models[0])]
    return []


def pair_sides(
    parts_a: Sequence[RunPart],
    parts_b: Sequence[RunPart],
    *,
    models: tuple[str, str] | None = None,
    modes: tuple[str, str] | None = None,
) -> list[tuple[Side, Side]]:
    """The comparisons of two runs' parts: matched by task and mode (``modes``: mode A against mode B),
    then by model (``models``: model A against model B; else the models both have, or the one of each).

    Raises
    ------
    RunError
        Nothing pairs; the message says what each side holds.
    """
    pairs: list[tuple[RunPart, RunPart]] = []
    for first in parts_a:
        if modes is not None and first.mode != modes[0]:
            continue
        wanted = modes[1] if modes is not None else first.mode
        matches = [part for part in parts_b if part.task == first.task and part.mode == wanted]
        if not matches and modes is None:  # a score report records no mode: it pairs with the task's only part
            same_task = [part for part in parts_b if part.task == first.task]
            if len(same_task) == 1 and sum(part.task == first.task for part in parts_a) == 1:
                matches = same_task
        pairs.extend((first, second) for second in matches)
    if not pairs:
        held = ", ".join(part.label for part in parts_a) or "nothing"
        other = ", ".join(part.label for part in parts_b) or "nothing"
        wanted = f" in modes {modes[0]} and {modes[1]}" if modes else ""
        raise RunError(f"nothing to compare{wanted}: A holds {held}; B holds {other}")
    sides = []
    for first, second in pairs:
        if models is not None:
            for model, part in zip(models, (first, second), strict=True):
                if model not in part.models:
                    raise RunError(
                        f"{part.run}: no model {model!r} in {part.label} (it holds {', '.join(part.models)})"
                    )
            named = [models]
        else:
            named = _one_model_each(first, second)
            if not named:
                raise RunError(
                    f"{first.label}: the two sides share no model (A: {', '.join(first.models)};"
                    f" B: {', '.join(second.models)}); name them with --models A B"
                )
        sides.extend((Side(first, a), Side(second, b)) for a, b in named)
    return sides


def _unpaired(sides: Sequence[tuple[Side, Side]]) -> list[str]:
    """The models of each paired part that no comparison took (a model only one run has)."""
    taken: dict[tuple[int, int], tuple[RunPart, RunPart, set[str], set[str]]] = {}
    for first, second in sides:
        key = (id(first.part), id(second.part))
        entry = taken.setdefault(key, (first.part, second.part, set(), set()))
        entry[2].add(first.model)
        entry[3].add(second.model)
    found = []
    for first, second, left, right in taken.values():
        found += [f"A {first.label}: {model}" for model in first.models if model not in left]
        found += [f"B {second.label}: {model}" for model in second.models if model not in right]
    return list(dict.fromkeys(found))


def _metrics_of(task: str) -> tuple[PairedMetric, ...]:
    from benchmarks.tasks import get_task

    return get_task(task).paired_metrics


def _rows(part: RunPart, cache: dict[Path, list[Mapping[str, Any]]], problems: list[str]) -> list[Mapping[str, Any]]:
    if part.scored is None:
        raise RunError(f"{part.run}: {part.label} has no scored rows to pair (scored.jsonl, or the file `score --out`)")
    if part.scored not in cache:
        rows, bad = read_scored(part.scored)
        cache[part.scored] = rows
        problems.extend(bad)
    return cache[part.scored]


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
) -> list[dict[str, Any]]:
    """The paired comparison of ``model_b``'s scored rows with ``model_a``'s, one record per headline metric of
    ``task``: ``n`` (questions both answered), ``lacked_by_a``/``_b``, both values, ``difference`` (B − A),
    ``se``, ``low``, ``high``, ``p_value`` and ``test``. ``ids`` keeps only those questions (a city's, a
    difficulty's)."""
    metrics = _metrics_of(task)
    values_a = scored_values(rows_a, model_a, metrics)
    values_b = scored_values(rows_b, model_b, metrics)
    if ids is not None:
        kept = set(ids)
        values_a = {key: {id: v for id, v in found.items() if id in kept} for key, found in values_a.items()}
        values_b = {key: {id: v for id, v in found.items() if id in kept} for key, found in values_b.items()}
    rows = _paired(metrics, values_a, values_b, resamples, permutations, seed, level)
    return [{"task": task, "model_a": model_a, "model_b": model_b, **row} for row in rows]


def _compare_pair(
    first: Side,
    second: Side,
    rows_a: Sequence[Mapping[str, Any]],
    rows_b: Sequence[Mapping[str, Any]],
    *,
    resamples: int,
    permutations: int,
    seed: int,
    level: float,
) -> list[dict[str, Any]]:
    given = dict(resamples=resamples, permutations=permutations, seed=seed, level=level)
    where = {
        "task": first.part.task,
        "mode_a": first.part.mode,
        "mode_b": second.part.mode,
        "run_a": first.part.run,
        "run_b": second.part.run,
        "model_a": first.model,
        "model_b": second.model,
    }
    rows = compare_scored(rows_a, rows_b, task=first.part.task, model_a=first.model, model_b=second.model, **given)
    return [{**where, **row} for row in rows]


def _paired(
    metrics: Sequence[PairedMetric],
    values_a: Mapping[str, Mapping[str, tuple[float, float, int]]],
    values_b: Mapping[str, Mapping[str, tuple[float, float, int]]],
    resamples: int,
    permutations: int,
    seed: int,
    level: float,
) -> list[dict[str, Any]]:
    ids = sorted({id for metric in metrics for id in values_a[metric.key].keys() & values_b[metric.key].keys()})
    counts = bootstrap_counts(len(ids), resamples=resamples, seed=seed) if ids else None
    position = {id: index for index, id in enumerate(ids)}
    found = []
    for metric in metrics:
        a, b = values_a[metric.key], values_b[metric.key]
        common = sorted(a.keys() & b.keys())
        row: dict[str, Any] = {
            "metric": metric.key,
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
        interval = difference_interval(counts, xa, xb, wa, wb, level=level)
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
            }
        )
    return found


def _rounded(value: float) -> float:
    """Six significant decimals: the same numbers print the same wherever they were summed."""
    return round(float(value), 6)


def compare_runs(
    a: str | Path,
    b: str | Path | None = None,
    *,
    models: tuple[str, str] | None = None,
    modes: tuple[str, str] | None = None,
    join: bool = False,
    resamples: int = 2000,
    permutations: int = 10_000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, Any]:
    """The paired comparison of run ``a`` with run ``b`` (``b`` ``None``: two models or two modes of ``a``).

    Raises
    ------
    RunError
        A folder that is no run, nothing to pair, or two sides over different questions or
        settings (unless ``join``); one line naming the difference.
    """
    if b is None and models is None and modes is None:
        raise RunError("compare needs two runs, or one run with --models A B or --modes A B")
    if resamples < 1 or permutations < 1:
        raise RunError(f"resamples and permutations must be at least 1, got {resamples} and {permutations}")
    parts_a = read_run(a)
    parts_b = parts_a if b is None else read_run(b)
    sides = pair_sides(parts_a, parts_b, models=models, modes=modes)
    differences = []
    for first, second in sides:
        why = difference(first.part, second.part)
        if why is None:
            continue
        if not join:
            raise RunError(
                f"{first.part.run} {first.part.label} and {second.part.run} {second.part.label}: {why};"
                " pass --join to compare over the questions both answered"
            )
        differences.append(f"{first.part.label} and {second.part.label}: {why}")
    cache: dict[Path, list[Mapping[str, Any]]] = {}
    problems: list[str] = []
    rows = []
    for first, second in sides:
        rows_a, rows_b = _rows(first.part, cache, problems), _rows(second.part, cache, problems)
        rows.extend(
            _compare_pair(
                first, second, rows_a, rows_b, resamples=resamples, permutations=permutations, seed=seed, level=level
            )
        )
    return {
        "a": str(a),
        "b": str(a if b is None else b),
        "models": list(models) if models else None,
        "modes": list(modes) if modes else None,
        "joined": sorted(set(differences)),
        "unpaired": _unpaired(sides) if models is None else [],
        "method": {
            "interval": "paired bootstrap over questions, percentile",
            "resamples": resamples,
            "seed": seed,
            "level": level,
            "mcnemar": "exact, two-sided, on the discordant pairs",
            "permutation": f"paired sign flips per question, two-sided, {permutations} drawn (exact when fewer)",
        },
        "comparisons": rows,
        "skipped_records": problems,
    }


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
    return next((metric.scale for metric in _metrics_of(row["task"]) if metric.key == row["metric"]), 1.0)


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


def _pair_label(row: Mapping[str, Any], same_run: bool) -> str:
    """A comparison as the figure names it: where, and the two sides (one, when they are the same model)."""
    first, second = _side(row, "a", same_run), _side(row, "b", same_run)
    return f"{_where(row)}: {first}" if first == second else f"{_where(row)}: {first} → {second}"


def comparison_markdown(record: Mapping[str, Any]) -> str:
    """The comparison as one Markdown table (B − A, its interval and p-value), with notes."""
    method = record["method"]
    level = round(100 * method["level"])
    same_run = record["a"] == record["b"]
    lines = [
        f"Paired comparison, B − A: A = `{record['a']}`, B = `{record['b']}`."
        f" {level}% paired-bootstrap intervals ({method['resamples']} resamples of the questions, seed"
        f" {method['seed']}); p: exact McNemar for accuracy, paired sign-flip permutation for scores.",
        "",
        f"| Task | A | B | Metric | n | A | B | B − A [{level}% CI] | p | Test |",
        "|---|---|---|---|---:|---:|---:|---|---:|---|",
    ]
    notes = []
    for row in record["comparisons"]:
        scale = _scale(row)
        interval = "–"
        if row["difference"] is not None:
            interval = (
                f"{_cell(row['difference'], scale, signed=True)}"
                f" [{_cell(row['low'], scale, signed=True)}, {_cell(row['high'], scale, signed=True)}]"
            )
        test = "McNemar" if row["test"] == "mcnemar" else "permutation"
        lines.append(
            f"| {_where(row)} | {_side(row, 'a', same_run)} | {_side(row, 'b', same_run)} | {row['title']}"
            f" | {row['n']} | {_cell(row['a'], scale)} | {_cell(row['b'], scale)} | {interval} | {_p(row['p_value'])}"
            f" | {test} |"
        )
        if row["lacked_by_a"] or row["lacked_by_b"]:
            notes.append(
                f"- {_where(row)} {row['title']}: A lacked {row['lacked_by_a']} questions that B answered,"
                f" B lacked {row['lacked_by_b']} that A answered (left out)."
            )
        if row.get("repeats"):
            notes.append(
                f"- {_where(row)} {row['title']}: repeated answers, each question's mean compared (sign flips)."
            )
    notes += [f"- Joined although they differ: {why}." for why in record["joined"]]
    notes += [f"- Not compared (no counterpart on the other side): {what}." for what in record.get("unpaired", [])]
    if record["skipped_records"]:
        notes.append(f"- {len(record['skipped_records'])} scored rows could not be read (see comparison.json).")
    return "\n".join([*lines, *([""] + notes if notes else [])]) + "\n"


def comparison_csv(record: Mapping[str, Any]) -> str:
    """One line per (comparison, metric); values in the summaries' units (accuracy as a fraction)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(_CSV_COLUMNS)
    for row in record["comparisons"]:
        writer.writerow(["" if row.get(column) is None else row[column] for column in _CSV_COLUMNS])
    return buffer.getvalue()


def plot_comparison(record: Mapping[str, Any], png: str | Path) -> tuple[Path, Path]:
    """The differences with their intervals: one panel per metric, one row per comparison, zero marked."""
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
            low = x - np.array([r["low"] for r in chosen]) * scale
            high = np.array([r["high"] for r in chosen]) * scale - x
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


def write_comparison(out: str | Path, record: Mapping[str, Any], *, figures: bool = True) -> list[Path]:
    """Write :data:`COMPARISON_FILES` into ``out`` (each atomically; the manifest last); returns the paths."""
    from benchmarks.manifests import MANIFEST, begin_outputs, write_manifest
    from benchmarks.summaries import write_summary, write_text

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = begin_outputs(folder / MANIFEST, "compare")
    written = [
        write_text(folder / "comparison.md", comparison_markdown(record)),
        write_summary(folder / "comparison.json", record),
        write_text(folder / "comparison.csv", comparison_csv(record)),
    ]
    if figures:
        written.extend(plot_comparison(record, folder / "comparison.png"))
    write_manifest(manifest, written, "compare")
    return written

"""Accuracy against a visual knob: a sweep's scored answers per knob value, paired intervals and a logistic fit.

A sweep (``synth --sweep KNOB=v1,v2,...``) draws the same networks at every value of one knob, with the same
questions, so each question is answered once per value and the values are paired. Given a model's scored
answers at each value, :func:`knob_summary` reports, per model and per question type (each probe type, and
``route_short``/``route_long`` where scored route files are given):

- the accuracy at each value with its bootstrap interval, and the paired difference from the first value
  (:func:`benchmarks.comparisons.compare_scored`: the paired bootstrap and exact McNemar of ``compare``);
- :func:`logistic_fit` of correctness on the realised knob value (the truth's measured one, read from the
  sweep manifest per network), by maximum likelihood with :func:`scipy.optimize.minimize`, with Wald intervals
  from the observed information.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.cells import markdown_text
from benchmarks.comparisons import compare_scored

__all__ = ["logistic_fit", "knob_summary", "knob_markdown", "plot_knobs"]


def logistic_fit(x: Sequence[float], y: Sequence[float], *, level: float = 0.95) -> dict[str, Any]:
    """Maximum-likelihood fit of ``P(y = 1) = 1 / (1 + exp(-(intercept + slope * x)))`` with Wald intervals.

    The optimiser is SciPy's ``trust-exact`` on the negative log-likelihood, given its gradient and Hessian;
    the standard errors are the square roots of the inverse observed information at the optimum. Returns
    ``n``, ``intercept``, ``slope``, their ``*_se``, ``*_low``, ``*_high`` at ``level``; or ``n`` and a
    ``reason`` (all answers alike, one knob value, separated classes: every wrong answer at or below every right
    one's knob value, or above) when no finite fit exists.

    Parameters
    ----------
    x : sequence of float
        The knob's values.
    y : sequence of float
        The answers, 1 right and 0 wrong.
    level : float, optional
        The intervals' confidence level.

    Returns
    -------
    dict
        The fit (JSON-ready).

    Examples
    --------
    >>> fit = logistic_fit([0, 0, 1, 1, 2, 2, 3, 3], [0, 0, 0, 1, 0, 1, 1, 1])
    >>> round(fit["slope"], 3), fit["slope_low"] < fit["slope"] < fit["slope_high"]
    (1.742, True)
    """
    from scipy.optimize import minimize
    from scipy.stats import norm

    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = int(xs.size)
    if n == 0:
        return {"n": 0, "reason": "no answer on a network of known knob value"}
    if np.all(ys == ys[0]):
        return {"n": n, "reason": "all answers alike: no finite fit"}
    if np.all(xs == xs[0]):
        return {"n": n, "reason": "one knob value: no slope to fit"}
    right, wrong = xs[ys > 0.5], xs[ys <= 0.5]
    if wrong.max() <= right.min() or right.max() <= wrong.min():  # (quasi-)separation: the likelihood has no maximum
        return {"n": n, "reason": "separated: a knob value splits right from wrong answers, no finite fit"}
    design = np.column_stack([np.ones(n), xs])

    def loss(beta: np.ndarray) -> float:
        eta = design @ beta
        return float(np.sum(np.logaddexp(0.0, eta) - ys * eta))

    def gradient(beta: np.ndarray) -> np.ndarray:
        return design.T @ (_expit(design @ beta) - ys)

    def hessian(beta: np.ndarray) -> np.ndarray:
        p = _expit(design @ beta)
        return (design * (p * (1.0 - p))[:, None]).T @ design

    found = minimize(loss, np.zeros(2), jac=gradient, hess=hessian, method="trust-exact")
    beta = found.x
    if not found.success:
        return {"n": n, "reason": f"no fit: the optimiser stopped ({found.message})"}
    covariance = np.linalg.inv(hessian(beta))
    z = float(norm.ppf((1.0 + level) / 2.0))
    fit: dict[str, Any] = {"n": n}
    for index, name in enumerate(("intercept", "slope")):
        se = math.sqrt(max(float(covariance[index, index]), 0.0))
        fit.update({name: float(beta[index]), f"{name}_se": se})
        fit.update({f"{name}_low": float(beta[index]) - z * se, f"{name}_high": float(beta[index]) + z * se})
    return fit


def _expit(eta: np.ndarray) -> np.ndarray:
    from scipy.special import expit

    return expit(eta)


def _kind(row: Mapping[str, Any], task: str) -> str:
    return f"route_{row.get('question')}" if task == "route" else str(row.get("question"))


def _realised(manifest: Mapping[str, Any], knob: str, label: str) -> dict[str, float]:
    """Each network's realised knob value at one sweep value (city → value)."""
    found = {}
    for network in manifest.get("networks", []):
        value = (network.get("knobs") or {}).get(label, {}).get(knob)
        if isinstance(value, int | float):
            found[str(network["city"])] = float(value)
    return found


def knob_summary(
    manifest: Mapping[str, Any],
    scored: Mapping[str, Mapping[str, Sequence[Mapping[str, Any]]]],
    *,
    cities: Mapping[str, str] | None = None,
    resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, Any]:
    """The knob report of one sweep: ``scored[task][label]`` are the scored rows (task ``probe`` or ``route``)
    at the sweep value ``label`` (``colour_distance=2``, as the sweep's folders are named). ``cities`` (question
    id → network) places the rows that do not name their network (scored route rows).

    Parameters
    ----------
    manifest : mapping
        The sweep's manifest (``synth --sweep``).
    scored : mapping
        ``scored[task][label]``: the scored rows at each value.
    cities : mapping, optional
        Question id to network.
    resamples : int, optional
        Paired bootstrap resamples.
    seed : int, optional
        Seeds the resamples.
    level : float, optional
        The intervals' confidence level.

    Returns
    -------
    dict
        ``knob``, its ``values`` and ``labels``, and ``rows``: per task, model and question type, accuracy at
        each value with the paired difference from the first, and the logistic fit (JSON-ready).

    Raises
    ------
    ValueError
        The manifest records no sweep, or fewer than two values have scored rows.
    """
    sweep = manifest.get("sweep")
    if not isinstance(sweep, Mapping) or "knob" not in sweep:
        raise ValueError("the manifest records no sweep (run synth --sweep KNOB=v1,v2,...)")
    knob = str(sweep["knob"])
    labels = [Path(str(folder)).name for folder in sweep.get("maps", [])]
    values = dict(zip(labels, (float(v) for v in sweep.get("values", [])), strict=False))
    rows: list[dict[str, Any]] = []
    for task, by_label in sorted(scored.items()):
        present = [label for label in labels if label in by_label]
        if len(present) < 2:
            raise ValueError(f"{task}: scored answers at {len(present)} sweep value(s); the report needs two")
        models = sorted({str(r["model"]) for label in present for r in by_label[label] if "model" in r})
        for model in models:
            placed = {label: _placed(by_label[label], cities or {}) for label in present}
            rows.extend(_rows(manifest, knob, values, present, task, model, placed, resamples, seed, level))
    return {"knob": knob, "values": [values[label] for label in labels], "labels": labels, "rows": rows}


def _placed(rows: Sequence[Mapping[str, Any]], cities: Mapping[str, str]) -> list[Mapping[str, Any]]:
    """The rows, each naming its network (``city``): its own, else the question's in ``cities``."""
    return [
        row if "city" in row or str(row.get("id")) not in cities else {**row, "city": cities[str(row.get("id"))]}
        for row in rows
    ]


def _rows(
    manifest: Mapping[str, Any],
    knob: str,
    values: Mapping[str, float],
    labels: Sequence[str],
    task: str,
    model: str,
    by_label: Mapping[str, Sequence[Mapping[str, Any]]],
    resamples: int,
    seed: int,
    level: float,
) -> list[dict[str, Any]]:
    """One model's report rows of one task: per question type, each value's accuracy and paired difference from
    the first value, and the fit on the realised knob values."""
    mine = {label: [r for r in by_label[label] if r.get("model") == model] for label in labels}
    kinds = sorted({_kind(r, task) for rows in mine.values() for r in rows if r.get("question") is not None})
    found = []
    for kind in kinds:
        per_value, xs, ys = [], [], []
        reference = None
        for label in labels:
            rows = [r for r in mine[label] if _kind(r, task) == kind and isinstance(r.get("correct"), int | float)]
            realised = _realised(manifest, knob, label)
            ids = [str(r["id"]) for r in rows]
            entry: dict[str, Any] = {"label": label, "value": values[label], "n": len(rows)}
            # route accuracy weighted by difficulty as compare weighs it (a row's weight); a probe weighs 1
            weights = [float(r.get("weight", 1.0)) if task == "route" else 1.0 for r in rows]
            entry["accuracy"] = float(np.dot(weights, [r["correct"] for r in rows]) / sum(weights)) if rows else None
            for r in rows:
                if str(r.get("city")) in realised:
                    xs.append(realised[str(r["city"])])
                    ys.append(float(r["correct"]))
            if reference is None:
                reference = (label, mine[label])
            else:
                entry["versus"] = reference[0]
                entry["paired"] = _paired(task, kind, model, reference[1], mine[label], ids, resamples, seed, level)
            per_value.append(entry)
        fit = logistic_fit(xs, ys, level=level)
        found.append({"task": task, "model": model, "type": kind, "values": per_value, "fit": fit})
    return found


def _paired(
    task: str,
    kind: str,
    model: str,
    rows_a: Sequence[Mapping[str, Any]],
    rows_b: Sequence[Mapping[str, Any]],
    ids: Sequence[str],
    resamples: int,
    seed: int,
    level: float,
) -> dict[str, Any] | None:
    """``compare``'s paired record of the accuracy metric of ``kind`` (B: this value, A: the first), on ``ids``."""
    wanted = "accuracy" if task == "probe" else f"weighted_accuracy_{kind.removeprefix('route_')}"
    for record in compare_scored(
        rows_a, rows_b, task=task, model_a=model, model_b=model, ids=ids, resamples=resamples, seed=seed, level=level
    ):
        if record.get("metric") == wanted:
            keep = ("n", "a", "b", "difference", "se", "low", "high", "p_value", "test")
            return {key: record.get(key) for key in keep}
    return None


def _percent(value: Any, signed: bool = False) -> str:
    if not isinstance(value, int | float) or not math.isfinite(value):
        return "—"
    return f"{100 * value:+.2f}" if signed else f"{100 * value:.2f}"


def _p(value: Any) -> str:
    """A p-value as the table prints it (the comparison's six decimals: 0 is below one in a million)."""
    if not isinstance(value, int | float):
        return "—"
    return "<1e-06" if value == 0 else f"{value:.3g}"


def knob_markdown(summary: Mapping[str, Any]) -> str:
    """``table.md``: accuracy per knob value and type, the paired difference from the first value, the fit.

    Parameters
    ----------
    summary : mapping
        What :func:`knob_summary` returns.

    Returns
    -------
    str
        The Markdown.
    """
    knob = markdown_text(summary["knob"])
    lines = [f"# Accuracy against {knob}", ""]
    lines += [f"| Model | Type | {knob} | n | Acc. | Δ vs first [95% CI] | p |", "|---|---|---:|---:|---:|---|---:|"]
    for row in summary["rows"]:
        for entry in row["values"]:
            paired = entry.get("paired") or {}
            interval = (
                f"{_percent(paired.get('difference'), True)} [{_percent(paired.get('low'), True)}, "
                f"{_percent(paired.get('high'), True)}]"
                if paired
                else "—"
            )
            p = paired.get("p_value")
            cells = [markdown_text(row["model"]), markdown_text(row["type"]), f"{entry['value']:g}", str(entry["n"])]
            cells += [_percent(entry["accuracy"]), interval, _p(p)]
            lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Logistic fit of correctness on the realised knob value (Wald 95% intervals):", ""]
    lines += ["| Model | Type | n | Slope [95% CI] | Intercept [95% CI] |", "|---|---|---:|---|---|"]
    for row in summary["rows"]:
        fit = row["fit"]
        if "slope" in fit:
            slope = f"{fit['slope']:.4g} [{fit['slope_low']:.4g}, {fit['slope_high']:.4g}]"
            intercept = f"{fit['intercept']:.4g} [{fit['intercept_low']:.4g}, {fit['intercept_high']:.4g}]"
        else:
            slope, intercept = markdown_text(fit["reason"]), "—"
        lines.append(
            f"| {markdown_text(row['model'])} | {markdown_text(row['type'])} | {fit['n']} | {slope} | {intercept} |"
        )
    return "\n".join(lines) + "\n"


def plot_knobs(summary: Mapping[str, Any], png: str | Path) -> tuple[Path, Path]:
    """``knobs.png`` (and its PDF): accuracy against the knob, one panel per question type, one line per model,
    each value after the first with its paired 95% interval (the first value plus the difference); the
    logistic fit dashed.

    Parameters
    ----------
    summary : mapping
        What :func:`knob_summary` returns.
    png : str or Path
        The PNG to write.

    Returns
    -------
    png, pdf : Path
        The two files written.
    """
    from benchmarks.plotting import figure_style, model_style, save_figure

    kinds = sorted({row["type"] for row in summary["rows"]})
    models = sorted({row["model"] for row in summary["rows"]})
    columns = min(3, max(1, len(kinds)))
    count = max(1, math.ceil(len(kinds) / columns))
    with figure_style() as plt:
        figure, axes = plt.subplots(count, columns, figsize=(3.2 * columns, 2.6 * count), squeeze=False)
        for index, kind in enumerate(kinds):
            axis = axes[index // columns][index % columns]
            for row in (r for r in summary["rows"] if r["type"] == kind):
                style = model_style(models.index(row["model"]))
                points = [
                    (e["value"], e["accuracy"], e.get("paired")) for e in row["values"] if e["accuracy"] is not None
                ]
                xs = np.array([p[0] for p in points])
                ys = np.array([p[1] for p in points])
                axis.plot(xs, 100 * ys, marker="o", color=style.colour, label=row["model"])
                base = ys[0] if ys.size else 0.0
                for x, _, paired in points[1:]:
                    if paired and paired.get("low") is not None and math.isfinite(paired["low"]):
                        axis.vlines(x, 100 * (base + paired["low"]), 100 * (base + paired["high"]), color=style.colour)
                fit = row["fit"]
                if "slope" in fit and xs.size:
                    grid = np.linspace(xs.min(), xs.max(), 100)
                    curve = 1.0 / (1.0 + np.exp(-(fit["intercept"] + fit["slope"] * grid)))
                    axis.plot(grid, 100 * curve, linestyle="--", color=style.colour, linewidth=0.8)
            axis.set_title(kind)
            axis.set_xlabel(summary["knob"])
            axis.set_ylabel("accuracy (%)")
            axis.set_ylim(-2, 102)
        for index in range(len(kinds), count * columns):
            axes[index // columns][index % columns].set_visible(False)
        if models:
            axes[0][0].legend(loc="lower right")
        figure.tight_layout()
        return save_figure(figure, png)

"""``reasonmap power``: questions needed to detect a difference between two models, and the smallest difference a
run can detect (its minimum detectable effect), at a two-sided level and a power (:mod:`benchmarks.power`).

From given rates (``--rates A B``, or ``--rate A`` with ``--difference D``; in %), with the correlation of the
two models' per-question correctness when known (``--correlation``), or from a run folder: each (task, mode)
and each accuracy metric (a 0/1 value per question) of one model, or of two (``--models``, or a part with two
models), whose shares over the questions both answered and paired correlation stand in for the rates. The
shares are unweighted: the formulas count questions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.power import (
    detectable_independent,
    detectable_paired,
    paired_correlation,
    questions_independent,
    questions_paired,
)
from reasonmap.runs import RunError, read_run, read_scored

__all__ = ["PowerSettings", "power_rows", "power_markdown"]


@dataclass(frozen=True, slots=True)
class PowerSettings:
    """What is asked: the level, the power, and the difference to detect or the questions at hand.

    Attributes
    ----------
    alpha : float
        The test's two-sided level.
    power : float
        The chance of detecting the difference.
    difference : float or None
        The difference to detect, a share.
    questions : int or None
        The questions at hand.
    correlation : float or None
        The phi correlation of two sides' correctness, for the paired figures (``None``: measured on a
        run's two models, else no paired figures).
    """

    alpha: float = 0.05
    power: float = 0.8
    #: the difference to detect, a share (``--difference`` in points / 100)
    difference: float | None = None
    #: the questions at hand, for the minimum detectable effect of given rates
    questions: int | None = None
    correlation: float | None = None


def _row(where: str, n: int | None, a: float, b: float | None, rho: float | None, s: PowerSettings) -> dict[str, Any]:
    """One line of the table: the rates, and what they need or detect."""
    found: dict[str, Any] = {"where": where, "n": n, "a": a, "b": b, "correlation": rho}
    target = b  # the two sides' own rates, unless a difference is asked: A's rate moved by it
    if s.difference is not None:
        target = a + s.difference if a + s.difference <= 1.0 else a - s.difference
    if target is not None and target != a:
        found["questions_independent"] = questions_independent(a, target, alpha=s.alpha, power=s.power)
        if rho is not None:
            found["questions_paired"] = questions_paired(a, target, rho, alpha=s.alpha, power=s.power)
    if n:
        found["mde_independent"] = detectable_independent(a, n, alpha=s.alpha, power=s.power)
        if rho is not None:
            found["mde_paired"] = detectable_paired(a, rho, n, alpha=s.alpha, power=s.power)
    return found


def power_rows(
    settings: PowerSettings,
    *,
    rates: Sequence[float] = (),
    run: str | Path | None = None,
    models: tuple[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The table's rows: one for given ``rates`` (shares), or one per (task, mode, accuracy metric) of ``run``.

    Parameters
    ----------
    settings : PowerSettings
        What is asked.
    rates : sequence of float, optional
        Accuracies (shares) to plan for.
    run : str or Path, optional
        A run folder whose accuracies to plan from.
    models : (str, str), optional
        The two models of ``run`` compared.

    Returns
    -------
    list of dict
        Per row: the rate(s), the questions needed or the difference detectable.

    Raises
    ------
    RunError
        A run without scored rows, an unknown model, or nothing to compute (no rate and no run).
    ValueError
        Rates or a correlation out of range (:mod:`benchmarks.power`).
    """
    if run is None:
        if not rates:
            raise RunError("power needs --rates A B, --rate A (with --difference or --questions), or a run folder")
        b = rates[1] if len(rates) > 1 else None
        return [_row("given", settings.questions, rates[0], b, settings.correlation, settings)]
    from benchmarks.comparisons import scored_values
    from benchmarks.metrics import compared
    from benchmarks.tasks import get_task

    found = []
    for part in read_run(run):
        if part.scored is None:
            raise RunError(f"{part.run}: {part.label} has no scored rows (scored.jsonl, or the file `score --out`)")
        rows, _ = read_scored(part.scored)
        chosen = _models_of(part.models, models, part.label)
        metrics = [metric for metric in compared(get_task(part.task).metrics) if metric.test == "mcnemar"]
        values = [scored_values(rows, model, metrics) for model in chosen]
        for metric in metrics:
            by_model = [found_values[metric.name] for found_values in values]
            common = sorted(set.intersection(*(set(one) for one in by_model)))
            if not common:
                continue
            sides = [[one[id][0] for id in common] for one in by_model]
            a = sum(sides[0]) / len(common)
            b = sum(sides[1]) / len(common) if len(sides) > 1 else None
            rho = paired_correlation(sides[0], sides[1]) if len(sides) > 1 else settings.correlation
            label = f"{part.label} {metric.title}: {' → '.join(chosen)}"
            found.append(_row(label, len(common), a, b, rho, settings))
    return found


def _models_of(present: Sequence[str], asked: tuple[str, str] | None, label: str) -> list[str]:
    if asked is None:
        return list(present[:2])
    missing = [model for model in asked if model not in present]
    if missing:
        raise RunError(f"{label}: no model {missing[0]!r}; its models are {', '.join(present)}")
    return list(asked)


def _points(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.2f}"


def _count(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"


def power_markdown(rows: Sequence[Mapping[str, Any]], settings: PowerSettings) -> str:
    """The rows as one Markdown table (shares and effects in points), with what they assume.

    Parameters
    ----------
    rows : sequence of mapping
        What :func:`power_rows` returns.
    settings : PowerSettings
        What was asked.

    Returns
    -------
    str
    """
    lines = [
        f"Power {settings.power:.0%} at two-sided α = {settings.alpha:g} (normal approximations; paired: McNemar's"
        " test, from the correlation ρ of the two sides' per-question correctness).",
        "",
        "| Where | n | A (%) | B (%) | ρ | MDE independent | MDE paired | Questions: independent (a side)"
        " | Questions: paired |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        rho = "–" if row["correlation"] is None else f"{row['correlation']:.3f}"
        lines.append(
            f"| {row['where']} | {_count(row['n'])} | {_points(row['a'])} | {_points(row['b'])} | {rho}"
            f" | {_points(row.get('mde_independent'))} | {_points(row.get('mde_paired'))}"
            f" | {_count(row.get('questions_independent'))} | {_count(row.get('questions_paired'))} |"
        )
    notes = [
        "- MDE: the smallest difference (points) that n questions detect, moving A's rate towards 50%.",
        "- Questions: needed to tell A from B (or A from A ± the difference asked).",
    ]
    return "\n".join([*lines, "", *notes]) + "\n"

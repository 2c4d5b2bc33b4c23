"""Why two ReasonMap-Plus scoring variants differ: their accuracy side by side (``reasonmap score --explain``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchmarks.cells import markdown_text
from benchmarks.official_rules import official_rules_lines
from benchmarks.plus.records import PLUS_TYPES

__all__ = ["explain_variants"]


def _interval(summary: Mapping[str, Any], model: str, kind: str) -> dict[str, Any]:
    """``{"intervals": {"accuracy": ...}}`` of a type's weighted accuracy in a variant's summary, or ``{}``."""
    row = summary.get("models", {}).get(model, {}).get("per_type", {}).get(kind, {})
    interval = row.get("intervals", {}).get("weighted_accuracy")
    return {} if interval is None else {"intervals": {"accuracy": interval}}


def _half(found: Mapping[str, Any]) -> str:
    """`` ± x``: half the interval's width in points, or nothing without one."""
    interval = found.get("intervals", {}).get("accuracy")
    if interval is None:
        return ""
    if interval["low"] is None or interval["high"] is None:  # no interval to give (n < 2, no variance)
        return " ± –"
    return f" ± {(interval['high'] - interval['low']) / 2 * 100:.2f}"


def explain_variants(evaluations: Mapping[str, Any], variants: Sequence[str]) -> tuple[dict[str, Any], str]:
    """Two variants' plus accuracy per model and type, and the answers whose verdict differs.

    The one cause of a difference is the answer extraction (``extraction``): the variants
    differ in nothing else. With ``official``, the record's ``official_rules`` (from its
    summary) says which model path's rule read each model's answers.

    Parameters
    ----------
    evaluations : mapping
        Variant name to its evaluation (``verdicts`` in the same order for both, and ``summary``).
    variants : (str, str)
        The two variants, in the order shown.

    Returns
    -------
    record : dict
        ``{"question_set", "variants", "causes", "models"}`` (and ``official_rules`` with ``official``).
    markdown : str
        The record as markdown (``compare.md``).
    """
    first, second = variants
    rows: dict[str, dict[str, list[float]]] = {}
    for index, variant in enumerate((first, second)):
        for verdict in evaluations[variant].verdicts:
            tally = rows.setdefault(verdict.model, {}).setdefault(verdict.type, [0, 0.0, 0.0, 0.0, 0])
            if index == 0:
                tally[0] += 1
                tally[1] += verdict.weight
                tally[2] += verdict.weight * verdict.correct
            else:
                tally[3] += verdict.weight * verdict.correct
    flips: dict[tuple[str, str], int] = {}
    for a, b in zip(evaluations[first].verdicts, evaluations[second].verdicts):
        if a.correct != b.correct:
            flips[(a.model, a.type)] = flips.get((a.model, a.type), 0) + 1
    models: dict[str, Any] = {}
    lines = [
        f"ReasonMap-Plus, variants `{first}` and `{second}` (weighted accuracy in %; cause: `extraction`;"
        " ± half the width of the 95% interval, bootstrap over questions).",
        "",
        f"| Model | Type | n | Acc. {first} | Acc. {second} | Δ | Verdicts flipped |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for model in sorted(rows):
        models[model] = {}
        for kind in PLUS_TYPES:
            if kind not in rows[model]:
                continue
            n, weight, correct_a, correct_b, _ = rows[model][kind]
            a, b = 100 * correct_a / (weight or 1), 100 * correct_b / (weight or 1)
            flipped = flips.get((model, kind), 0)
            found = {variant: _interval(evaluations[variant].summary, model, kind) for variant in (first, second)}
            models[model][kind] = {
                "n": n,
                first: {"accuracy": round(a, 4), **found[first]},
                second: {"accuracy": round(b, 4), **found[second]},
                "difference": {"accuracy": round(b - a, 4)},
                "causes": {"extraction": {"verdicts": flipped, "accuracy_points": round(b - a, 4)}},
            }
            cells = [f"{value:.2f}" + _half(found[variant]) for value, variant in ((a, first), (b, second))]
            lines.append(
                f"| {markdown_text(model)} | {kind} | {n} | {cells[0]} | {cells[1]} | {b - a:+.2f} | {flipped} |"
            )
    record = {
        "question_set": "plus",
        "variants": [first, second],
        "causes": {"extraction": "how the answer is read from the response"},
        "models": models,
    }
    rules = evaluations["official"].summary.get("official_rules") if "official" in evaluations else None
    if rules:
        record["official_rules"] = rules
        lines += ["", *official_rules_lines(rules)]
    return record, "\n".join(lines) + "\n"

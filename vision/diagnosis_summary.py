"""A diagnosis run's summary: label and category counts and shares per model and city, and their tables.

:func:`summarize` counts the labels of :func:`vision.diagnose.diagnose` (overall, per model, per model and
city; the failures split into grounding, reasoning and other), :func:`summary_markdown` writes those
counts as markdown tables, and :func:`summary_paths` says where both go beside the labels.
:mod:`vision.diagnosis_report` writes them for ``reasonmap diagnose`` and re-exports the three.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from benchmarks.cells import markdown_text
from benchmarks.metrics import percent, ratio
from vision.diagnose import CATEGORIES, LABELS, Diagnosis

__all__ = ["summarize", "summary_markdown", "summary_paths"]

_FAILURE_CATEGORIES = ("grounding", "reasoning", "other")


def _share(count: int, total: int) -> float:
    return ratio(count, total, 4) or 0.0  # no answer: a share of 0, not None


def _counts(diagnoses: list[Diagnosis]) -> dict[str, Any]:
    total = len(diagnoses)
    labels = Counter(diagnosis.label for diagnosis in diagnoses)
    categories = Counter(diagnosis.category for diagnosis in diagnoses)
    failures = sum(categories[category] for category in _FAILURE_CATEGORIES)
    return {
        "total": total,
        "labels": {label: {"count": labels[label], "share": _share(labels[label], total)} for label in LABELS},
        "categories": {
            category: {"count": categories[category], "share": _share(categories[category], total)}
            for category in CATEGORIES
        },
        # grounding vs reasoning vs other among the answers that are not labelled correct
        "failure_split": {category: _share(categories[category], failures) for category in _FAILURE_CATEGORIES},
    }


def summarize(diagnoses: Iterable[Diagnosis]) -> dict[str, Any]:
    """Counts and shares per label and category, per model and per model and city.

    Models and cities are sorted; labels and categories follow :data:`~vision.diagnose.LABELS`
    and :data:`~vision.diagnose.CATEGORIES` (every one is listed, zeros included).

    Parameters
    ----------
    diagnoses : iterable of Diagnosis
        The diagnoses to count.

    Returns
    -------
    dict
        ``labels``: each label's category and description; ``models``: per model, its ``total``, its
        ``labels`` and ``categories`` (each a count and share), its ``failure_split`` (the shares of the
        failure categories among the answers not correct) and the same per city in ``cities`` (JSON-ready).

    Examples
    --------
    >>> rows = [Diagnosis("q1", "m", "short", "correct", "correct", {}, "rome"),
    ...         Diagnosis("q2", "m", "short", "suboptimal", "reasoning", {}, "rome")]
    >>> summary = summarize(rows)
    >>> summary["models"]["m"]["labels"]["suboptimal"], summary["models"]["m"]["failure_split"]["reasoning"]
    ({'count': 1, 'share': 0.5}, 1.0)
    """
    by_model: dict[str, list[Diagnosis]] = {}
    for diagnosis in diagnoses:
        by_model.setdefault(diagnosis.model, []).append(diagnosis)
    models: dict[str, Any] = {}
    for model in sorted(by_model):
        rows = by_model[model]
        by_city: dict[str, list[Diagnosis]] = {}
        for diagnosis in rows:
            by_city.setdefault(diagnosis.city, []).append(diagnosis)
        models[model] = _counts(rows) | {"cities": {city: _counts(by_city[city]) for city in sorted(by_city)}}
    return {
        "labels": {label: {"category": category, "description": text} for label, (category, text) in LABELS.items()},
        "models": models,
    }


def summary_markdown(summary: Mapping[str, Any]) -> str:
    """Markdown tables of a :func:`summarize` result: categories, labels, and categories per city.

    Parameters
    ----------
    summary : mapping
        What :func:`summarize` returns.

    Returns
    -------
    str
        The tables, names escaped for Markdown.

    Examples
    --------
    >>> rows = [Diagnosis("q1", "m", "short", "correct", "correct", {}, "rome")]
    >>> print(summary_markdown(summarize(rows)).splitlines()[2])
    | m | 1 | 100.0% | 0.0% | 0.0% | 0.0% |
    """
    models = summary["models"]
    lines = [
        "| model | answers | correct | grounding | reasoning | other |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for model, found in models.items():
        shares = [percent(found["categories"][category]["share"], 1, "%") for category in CATEGORIES]
        lines.append(f"| {markdown_text(model)} | {found['total']} | {' | '.join(shares)} |")
    labels = list(summary["labels"])
    lines += ["", "| model | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
    for model, found in models.items():
        cells = [f"{found['labels'][label]['count']}" for label in labels]
        lines.append(f"| {markdown_text(model)} | {' | '.join(cells)} |")
    lines += [
        "",
        "| model | city | answers | correct | grounding | reasoning | other |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for model, found in models.items():
        for city, counts in found["cities"].items():
            shares = [percent(counts["categories"][category]["share"], 1, "%") for category in CATEGORIES]
            shown = markdown_text(city) if city else "-"
            lines.append(f"| {markdown_text(model)} | {shown} | {counts['total']} | {' | '.join(shares)} |")
    if summary.get("examples"):
        lines += ["", "One wrong answer per failure label, drawn on its map:", "", "| label | drawing |", "|---|---|"]
        lines += [f"| {label} | ![{label}]({quote(path)}) |" for label, path in summary["examples"].items()]
    return "\n".join(lines) + "\n"


def summary_paths(out: str | Path) -> tuple[Path, Path]:
    """Where the summary JSON and markdown of ``out`` go: ``OUT.summary.json`` and ``OUT.summary.md``.

    Parameters
    ----------
    out : str or Path
        The diagnoses' JSON Lines file.

    Returns
    -------
    json, markdown : Path
        The two summary files.

    Examples
    --------
    >>> [path.name for path in summary_paths("runs/diagnosis.jsonl")]
    ['diagnosis.summary.json', 'diagnosis.summary.md']
    """
    out = Path(out)
    return out.with_name(f"{out.stem}.summary.json"), out.with_name(f"{out.stem}.summary.md")

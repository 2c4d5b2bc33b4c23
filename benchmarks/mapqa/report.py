"""Reports of scored map answers: a summary per model, per type, level, category and language, and tables.

:func:`summarize` aggregates verdicts (accuracy, the mean of every other
metric over the questions it applies to, invalid answers, unanswered
questions); :func:`markdown_table` renders it; :func:`write_report` writes
``summary.json`` and ``table.md``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.cells import markdown_text
from benchmarks.intervals import interval_method, interval_note, question_maps, scored_row
from benchmarks.mapqa.metrics import MAPQA_METRICS
from benchmarks.mapqa.records import LEVELS, QUESTION_TYPES, MapQuestion, MapVerdict
from benchmarks.mapqa.scoring import METRICS
from benchmarks.metrics import number, row_cell
from benchmarks.provenance import versions
from benchmarks.repeats import repeats_table
from benchmarks.summaries import model_table, partial_lines

__all__ = ["summarize", "markdown_table", "write_report", "REPORT_FILES"]

REPORT_FILES = ("summary.json", "table.md")


def _figures(
    verdicts: Sequence[MapVerdict], map_of: Callable[[MapVerdict], str], cluster: str, *, both: bool = False
) -> dict[str, Any]:
    """Counts, accuracy, and the mean of every metric over the verdicts it scored (None when it scored none);
    with ``both``, the intervals of both clusterings (maps: the questions' images)."""
    return scored_row(MAPQA_METRICS, verdicts, cluster=cluster, map_of=map_of, both=both)  # intervals: a bootstrap


def _model_row(
    rows: Sequence[MapVerdict], questions: Mapping[str, MapQuestion], map_of: Callable[[MapVerdict], str], cluster: str
) -> dict[str, Any]:
    """One model's row: its figures, and per type, level, category and language."""
    groups: dict[str, dict[str, list[MapVerdict]]] = {
        "per_type": defaultdict(list),
        "per_level": defaultdict(list),
        "per_category": defaultdict(list),
        "per_language": defaultdict(list),
    }
    for verdict in rows:
        question = questions[verdict.id]
        groups["per_type"][question.type].append(verdict)
        groups["per_level"][str(question.level)].append(verdict)
        groups["per_category"][question.category].append(verdict)
        groups["per_language"][question.language].append(verdict)
    order = {"per_type": list(QUESTION_TYPES), "per_level": [str(level) for level in LEVELS]}
    return {
        **_figures(rows, map_of, cluster, both=True),
        "n_unanswered": len(set(questions) - {verdict.id for verdict in rows}),
        **{
            name: {
                key: _figures(members[key], map_of, cluster)
                for key in order.get(name, sorted(members))
                if key in members
            }
            for name, members in groups.items()
        },
    }


def summarize(
    verdicts: Iterable[MapVerdict],
    questions: Mapping[str, MapQuestion],
    *,
    inputs: Mapping[str, Any] | None = None,
    problems: Sequence[str] = (),
    cluster: str = "question",
) -> dict[str, Any]:
    """Aggregate verdicts per model, overall and per type, level, category and language.

    Parameters
    ----------
    verdicts : iterable of MapVerdict
        Each must answer a question of ``questions``.
    questions : mapping of id to MapQuestion
        Tags each verdict; its size is the count of questions a model could answer.
    inputs : mapping, optional
        What was read (file names and checksums), recorded for traceability.
    problems : sequence of str
        Skipped records, recorded by their count.
    cluster : {"question", "map"}
        What the printed intervals resample (maps: the questions' images); each model's row records both in
        ``intervals_by_cluster``.

    Returns
    -------
    dict
        ``models`` (each model's row, models sorted: overall figures, per type, level, category and language),
        ``metrics`` (each metric's types, direction, aggregation and description), ``n_questions``,
        ``interval_method``, ``clusters``, ``skipped_records``, ``inputs`` and ``versions``.

    Examples
    --------
    >>> record = {"id": "q", "image": "m.png", "question": "Which?", "options": ["x", "y"], "answer": "A",
    ...           "type": "single", "level": 1, "category": "metro", "language": "en"}
    >>> question = MapQuestion.from_dict(record)
    >>> summary = summarize([MapVerdict("q", "m", ("A",), {"exact": 1.0})], {"q": question})
    >>> row = summary["models"]["m"]
    >>> row["accuracy"], row["per_level"]["1"]["accuracy"], row["per_type"]["single"]["n"]
    (1.0, 1.0, 1)
    """
    verdicts = list(verdicts)

    def map_of(verdict: MapVerdict) -> str:
        return questions[verdict.id].image

    by_model: dict[str, list[MapVerdict]] = defaultdict(list)
    for verdict in verdicts:
        by_model[verdict.model].append(verdict)
    models = {model: _model_row(by_model[model], questions, map_of, cluster) for model in sorted(by_model)}
    return {
        "models": models,
        "metrics": {
            name: {
                "types": list(metric.types),
                "higher_is_better": metric.higher_is_better,
                "aggregation": metric.aggregation,
                "description": metric.description,
            }
            for name, metric in METRICS.items()
        },
        "n_questions": len(questions),
        "interval_method": interval_method(cluster=cluster),
        "clusters": question_maps(verdicts, map_of),
        "skipped_records": len(problems),
        "inputs": dict(inputs or {}),
        "versions": versions(),
    }


def markdown_table(summary: Mapping[str, Any]) -> str:
    """The summary's tables in markdown.

    Parameters
    ----------
    summary : mapping
        What :func:`summarize` returns.

    Returns
    -------
    str
        Models × accuracy per type and level (multiple choice with its mean Jaccard credit, sorting with its mean
        Kendall tau), then accuracy per category and per language, the intervals' note, the repeats and partial
        runs where there are any; one trailing newline.
    """
    lines = [
        "| Model | Acc. (%) | Single (%) | Multiple (%) | Jaccard | Sorting (%) | Tau | L1 (%) | L2 (%) | L3 (%) "
        "| Invalid | Unanswered |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for model, row in summary["models"].items():
        per_type, per_level = row["per_type"], row["per_level"]
        cells = [
            row_cell(row, "accuracy"),
            row_cell(per_type.get("single", {}), "accuracy"),
            row_cell(per_type.get("multiple", {}), "accuracy"),
            number(row["mean_jaccard"], 3),
            row_cell(per_type.get("sorting", {}), "accuracy"),
            number(row["mean_kendall_tau"], 3),
            *(row_cell(per_level.get(str(level), {}), "accuracy") for level in LEVELS),
            f"{row['n_invalid']}/{row['n']}",
            str(row["n_unanswered"]),
        ]
        lines.append(f"| {markdown_text(model)} | " + " | ".join(cells) + " |")
    for group, title in (("per_category", "category"), ("per_language", "language")):
        keys = sorted({key for row in summary["models"].values() for key in row[group]})
        if not keys:
            continue
        labels = [markdown_text(key) for key in keys]
        table = model_table(summary, keys, "accuracy", group=group, labels=labels, overall=False, invalid=False)
        lines += ["", f"Accuracy (%) by {title}:", "", *table]
    if interval_note(summary):
        lines += ["", interval_note(summary).strip()]
    lines += repeats_table(summary) + partial_lines(summary)
    return "\n".join(lines) + "\n"


def write_report(directory: str | Path, summary: Mapping[str, Any], *, figures: bool = True) -> list[Path]:
    """Write ``summary.json`` and ``table.md`` into ``directory`` (atomically).

    The same shape as the other tasks' ``write_report``; map QA draws no figure, so ``figures`` adds nothing.

    Parameters
    ----------
    directory : str or Path
        The report folder (made when missing).
    summary : mapping
        What :func:`summarize` returned.
    figures : bool
        Whether to draw the task's figures (map QA has none).

    Returns
    -------
    list of Path
        The files written (:data:`REPORT_FILES`).
    """
    from benchmarks.summaries import write_summary, write_text

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    write_summary(out / "summary.json", summary)
    write_text(out / "table.md", markdown_table(summary))
    return [out / name for name in REPORT_FILES]

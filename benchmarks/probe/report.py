"""Reports of scored probes: summary, table per type and a plot.

``summarize`` aggregates verdicts per model: accuracy (exact) and the mean partial score, ``n`` and
``n_invalid``, overall, per type and per city. ``markdown_table`` renders models × types;
``write_report`` writes ``summary.json``, ``table.md`` and ``probes.png`` (accuracy per type with its
95% interval, one bar per model, for the top :data:`~benchmarks.plotting.PLOT_MODELS` models).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.intervals import INTERVAL_METHOD, interval_note, scored_row
from benchmarks.plotting import ModelCap, top_models
from benchmarks.probe.metrics import PROBE_METRICS
from benchmarks.probe.questions import PROBE_TYPES
from benchmarks.probe.scoring import ProbeVerdict
from benchmarks.provenance import versions
from benchmarks.repeats import repeats_table
from benchmarks.summaries import model_table

__all__ = ["REPORT_FILES", "summarize", "markdown_table", "write_report"]

REPORT_FILES = ("summary.json", "table.md", "probes.png", "probes.pdf")


def _figures(verdicts: Sequence[ProbeVerdict]) -> dict[str, Any]:
    return scored_row(PROBE_METRICS, verdicts)  # intervals: a bootstrap over the questions


def summarize(
    verdicts: Iterable[ProbeVerdict], *, inputs: Mapping[str, Any] | None = None, problems: Sequence[str] = ()
) -> dict[str, Any]:
    """Aggregate probe verdicts per model, overall, per type and per city.

    Parameters
    ----------
    verdicts : iterable of ProbeVerdict
    inputs : mapping, optional
        What was read (file names and checksums).
    problems : sequence of str
        Skipped records, recorded with their count.

    Returns
    -------
    dict
        The summary: per model (``models``) the accuracy and partial score overall, per type and per city.

    Examples
    --------
    >>> rows = [ProbeVerdict("1", "m", "follow", "rome", ("A", "B"), ("A", "C"), 0, 0.5),
    ...         ProbeVerdict("2", "m", "same_line", "rome", None, "no", 0, 0.0, "empty response")]
    >>> row = summarize(rows)["models"]["m"]
    >>> row["accuracy"], row["partial"], row["n_invalid"], row["per_type"]["follow"]["partial"]
    (0.0, 0.25, 1, 0.5)
    """
    overall: dict[str, list[ProbeVerdict]] = defaultdict(list)
    per_type: dict[str, dict[str, list[ProbeVerdict]]] = defaultdict(lambda: defaultdict(list))
    per_city: dict[str, dict[str, list[ProbeVerdict]]] = defaultdict(lambda: defaultdict(list))
    for verdict in verdicts:
        overall[verdict.model].append(verdict)
        per_type[verdict.model][verdict.type].append(verdict)
        per_city[verdict.model][verdict.city].append(verdict)
    models = {}
    for model in sorted(overall):
        row = _figures(overall[model])
        row["per_type"] = {kind: _figures(per_type[model][kind]) for kind in PROBE_TYPES if kind in per_type[model]}
        row["per_city"] = {city: _figures(per_city[model][city]) for city in sorted(per_city[model])}
        models[model] = row
    return {
        "question_set": "probe",
        "weighting": "none",
        "models": models,
        "interval_method": dict(INTERVAL_METHOD),
        "skipped_records": len(problems),
        "inputs": dict(inputs or {}),
        "versions": versions(),
    }


def _plotted_models(summary: Mapping[str, Any]) -> ModelCap:
    return top_models({model: row.get("accuracy") for model, row in summary["models"].items()}, metric="accuracy")


def markdown_table(summary: Mapping[str, Any]) -> str:
    """Models × probe types: accuracy (exact, %), then the mean partial score (%).

    Parameters
    ----------
    summary : mapping
        What :func:`summarize` returned.

    Returns
    -------
    str
        The markdown of ``table.md``.

    Examples
    --------
    >>> summary = {"models": {"m": {"accuracy": 0.5, "partial": 0.75, "n": 2, "n_invalid": 0,
    ...     "per_type": {"follow": {"accuracy": 0.5, "partial": 0.75}}}}}
    >>> print(markdown_table(summary))
    Accuracy (exact answers) in %, every probe weighing 1.
    <BLANKLINE>
    | Model | lines_at | follow | neighbours | same_line | count_between | Overall | Invalid |
    |---|---:|---:|---:|---:|---:|---:|---:|
    | m | – | 50.00 | – | – | – | 50.00 | 0/2 |
    <BLANKLINE>
    Partial score in % (set F1; edit similarity of sequences; exact for yes/no and counts).
    <BLANKLINE>
    | Model | lines_at | follow | neighbours | same_line | count_between | Overall |
    |---|---:|---:|---:|---:|---:|---:|
    | m | – | 75.00 | – | – | – | 75.00 |
    <BLANKLINE>
    """
    lines = [
        "Accuracy (exact answers) in %, every probe weighing 1." + interval_note(summary),
        "",
        *model_table(summary, PROBE_TYPES, "accuracy"),
        "",
        "Partial score in % (set F1; edit similarity of sequences; exact for yes/no and counts).",
        "",
        *model_table(summary, PROBE_TYPES, "partial", invalid=False),
    ]
    note = _plotted_models(summary).note
    if note:
        lines += ["", note[0].upper() + note[1:] + "."]
    lines += repeats_table(summary)
    return "\n".join(lines) + "\n"


def _plot_types(summary: Mapping[str, Any], path: Path) -> None:
    from benchmarks.plotting import PAGE_WIDTH, type_figure

    title = "Perception probes: accuracy per type"
    cap = _plotted_models(summary)  # five type names side by side: the page's width
    with type_figure(summary, cap, PROBE_TYPES, "accuracy", path, width_in=PAGE_WIDTH, title=title,
                     ylabel="accuracy (%)") as (axis, _):  # fmt: skip
        axis.tick_params(axis="x", labelsize=6.5)


def write_report(directory: str | Path, summary: Mapping[str, Any], *, figures: bool = True) -> list[Path]:
    """Write ``summary.json``, ``table.md`` and, with ``figures``, ``probes.png`` (with ``probes.pdf``).

    Parameters
    ----------
    directory : str or Path
        The report folder (made when missing).
    summary : mapping
        What :func:`summarize` returned.
    figures : bool
        Whether to draw ``probes.png``; without, earlier figures in the folder are removed.

    Returns
    -------
    list of Path
        The files written.
    """
    from benchmarks.summaries import write_report_files

    return write_report_files(
        directory,
        summary,
        files=REPORT_FILES,
        table=markdown_table,
        cap=_plotted_models(summary),
        plot=lambda out: _plot_types(summary, out / "probes.png"),
        figures=figures,
    )

"""Reports of scored predictions: summary, the paper's tables, and plots.

``summarize`` aggregates verdicts per model (weighted and unweighted
accuracy and map score per question kind, invalid answers, tokens, and
breakdowns per city and per (question, map) difficulty pair);
``markdown_table`` renders the models × metrics table in the shape of the
paper's Table 2; ``write_report`` writes ``summary.json``, ``table.md`` and
the figures (:mod:`benchmarks.reasonmap.figures`: accuracy over difficulty
pairs, as the paper's Figure A1, and per city, as its Figure A2; PNG and PDF).
The figures draw the top :data:`~benchmarks.plotting.PLOT_MODELS` models;
the table and ``summary.json`` keep every model and say what the figures left out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.cells import markdown_text
from benchmarks.intervals import INTERVAL_METHOD, grouped_intervals, interval_note
from benchmarks.metrics import DIGITS, MetricSpec, headline, interval_cell, number, weighted_mean
from benchmarks.provenance import versions
from benchmarks.reasonmap.figures import plotted_models
from benchmarks.reasonmap.metrics import ROUTE_METRICS, route_metrics_of
from benchmarks.reasonmap.records import DIFFICULTIES, KINDS, Question, Verdict
from benchmarks.repeats import repeats_table
from benchmarks.summaries import partial_lines

__all__ = ["summarize", "markdown_table", "published_aggregate_table", "write_report", "REPORT_FILES"]

REPORT_FILES = ("summary.json", "table.md", "difficulty.png", "difficulty.pdf", "cities.png", "cities.pdf")


_SPECS = {kind: route_metrics_of(kind) for kind in KINDS}
_HEADLINE = headline(ROUTE_METRICS)


def _kind_figures(kind: str, verdicts: Sequence[Verdict], read: dict[int, tuple] | None = None) -> dict[str, Any]:
    """The figures of one question kind's verdicts: every spec of the kind, and the counts.

    The figures are :func:`benchmarks.metrics.figures`' (the same ``(value, weight)`` pairs, the same exact
    means); ``read`` keeps each verdict's pairs by object, for the other groups it sits in.
    """
    read = {} if read is None else read
    specs = _SPECS[kind]
    rows = []
    for verdict in verdicts:
        pairs = read.get(id(verdict))
        if pairs is None:  # the verdict is kept with its pairs, so that its id names it while ``read`` lives
            pairs = read[id(verdict)] = (*(_pair(spec, verdict) for spec in specs), verdict)
        rows.append(pairs)
    figures: dict[str, Any] = {}
    # one column of pairs per spec (the verdict, last, is left out by zip)
    for spec, column in zip(specs, zip(*rows)) if rows else ((spec, ()) for spec in specs):
        value = weighted_mean([pair for pair in column if pair is not None])
        figures[spec.name] = None if value is None else round(value, DIGITS)
    figures[f"n_{kind}"] = len(verdicts)
    figures[f"n_invalid_{kind}"] = sum(verdict.parsed is None for verdict in verdicts)
    return figures


def _pair(spec: MetricSpec, verdict: Verdict) -> tuple[Any, Any] | None:
    """``(value, weight)`` of a verdict, as :meth:`~benchmarks.metrics.MetricSpec.pairs` gives it, or ``None``."""
    value = spec.value(verdict)
    if value is None:
        return None
    return value, spec.weight(verdict) if spec.weighted else 1


def summarize(
    verdicts: Iterable[Verdict],
    questions: Mapping[str, Question],
    *,
    weighting: str,
    variant: str = "paper",
    inputs: Mapping[str, Any] | None = None,
    problems: Sequence[str] = (),
) -> dict[str, Any]:
    """Aggregate verdicts per model.

    Parameters
    ----------
    verdicts : iterable of Verdict
    questions : mapping of id to Question
        Gives each verdict its city and difficulty pair.
    weighting, variant : str
        Recorded with the figures (the verdicts carry their weights already).
    inputs : mapping, optional
        What was read (file names and checksums), recorded for traceability.
    problems : sequence of str
        Skipped records, recorded with their count.
    """
    overall: dict[str, dict[str, list[Verdict]]] = defaultdict(lambda: defaultdict(list))
    cities: dict[str, dict[str, dict[str, list[Verdict]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    pairs: dict[str, dict[str, dict[str, list[Verdict]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    failures: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    city_difficulty: dict[str, str] = {}
    for verdict in verdicts:
        question = questions[verdict.id]
        city_difficulty.setdefault(question.city, question.difficulty_city)
        overall[verdict.model][verdict.question].append(verdict)
        cities[verdict.model][question.city][verdict.question].append(verdict)
        pair = f"{question.difficulty_question}/{question.difficulty_city}"
        pairs[verdict.model][pair][verdict.question].append(verdict)
        if verdict.failure:
            failures[verdict.model][verdict.failure] += 1

    # one bootstrap over each group's questions (a question's short and long answers are drawn together),
    # every group's at once once the rows are laid out: groups of one size share the draws
    pending: list[tuple[dict[str, Any], list[Verdict]]] = []

    read: dict[int, tuple] = {}  # each verdict's (value, weight) pairs, read once for its three groups

    def figures(groups: Mapping[str, list[Verdict]]) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for kind in KINDS:
            merged.update(_kind_figures(kind, groups.get(kind, []), read))
        merged["n"] = sum(merged[f"n_{kind}"] for kind in KINDS)
        merged["n_invalid"] = sum(merged[f"n_invalid_{kind}"] for kind in KINDS)
        merged["intervals"] = {}
        pending.append((merged, [verdict for kind in KINDS for verdict in groups.get(kind, [])]))
        return merged

    pair_order = [f"{q}/{m}" for q in DIFFICULTIES for m in DIFFICULTIES]
    models = {}
    for model in sorted(overall):
        models[model] = row = figures(overall[model])  # the row itself: its intervals are filled in below
        row["failures"] = dict(sorted(failures[model].items()))
        row["per_city"] = {city: figures(cities[model][city]) for city in sorted(cities[model])}
        row["per_difficulty"] = {pair: figures(pairs[model][pair]) for pair in pair_order if pair in pairs[model]}
    for (row, _), found in zip(pending, grouped_intervals(_HEADLINE, [group for _, group in pending])):
        row["intervals"] = {name: interval.to_dict() for name, interval in found.items()}
    return {
        "weighting": weighting,
        "variant": variant,
        "models": models,
        "interval_method": dict(INTERVAL_METHOD),
        "city_difficulty": dict(sorted(city_difficulty.items())),
        "skipped_records": len(problems),
        "inputs": dict(inputs or {}),
        "versions": versions(),
    }


def markdown_table(summary: Mapping[str, Any]) -> str:
    """Models × metrics, in the shape of the paper's Table 2 (accuracy in %, weighted)."""
    lines = [
        f"Weighting: `{summary['weighting']}`, variant: `{summary['variant']}`." + interval_note(summary),
        "",
        "| Model | Short Acc. (%) | Short Map Score | Long Acc. (%) | Long Map Score | Invalid | Tokens (short/long) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for model, row in summary["models"].items():

        def cell(key: str, scale: float = 1.0, row: Mapping[str, Any] = row) -> str:
            return interval_cell(row[key], row.get("intervals", {}).get(key), scale=scale)

        tokens = f"{number(row['mean_tokens_short'], 0)} / {number(row['mean_tokens_long'], 0)}"
        lines.append(
            f"| {markdown_text(model)} | {cell('weighted_accuracy_short', 100)} | {cell('map_score_short')} "
            f"| {cell('weighted_accuracy_long', 100)} | {cell('map_score_long')} "
            f"| {row['n_invalid']}/{row['n']} | {tokens} |"
        )
    note = plotted_models(summary).note
    if note:
        lines += ["", note[0].upper() + note[1:] + "."]
    if summary.get("official_rules"):
        from benchmarks.reasonmap.official_rules import official_rules_lines

        lines += ["", *official_rules_lines(summary["official_rules"])]
    aggregate = summary.get("published_aggregate")
    if aggregate:
        lines += ["", *published_aggregate_table(aggregate, "unweighted means over the 11 test maps")]
    lines += repeats_table(summary) + partial_lines(summary)
    return "\n".join(lines) + "\n"


def write_report(directory: str | Path, summary: Mapping[str, Any], *, figures: bool = True) -> list[Path]:
    """Write ``summary.json``, ``table.md`` and, with ``figures``, the two figures (PNG and PDF each).

    When the figures leave models out, ``summary.json`` says which they show under ``"plots"``.
    Without ``figures``, figures an earlier run left in ``directory`` are removed (they would not
    match these tables) and matplotlib is never imported.
    """
    from benchmarks.plotting import remove_figures
    from benchmarks.summaries import write_summary, write_text

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    cap = plotted_models(summary)
    write_summary(out / "summary.json", {**summary, "plots": cap.to_dict()} if cap.capped else summary)
    write_text(out / "table.md", markdown_table(summary))
    if not figures:
        remove_figures(out, REPORT_FILES[2:])
        return [out / name for name in REPORT_FILES[:2]]
    from benchmarks.reasonmap.figures import plot_cities, plot_difficulty

    plot_difficulty(summary, out / "difficulty.png")
    plot_cities(summary, out / "cities.png")
    return [out / name for name in REPORT_FILES]


def published_aggregate_table(aggregate: Mapping[str, Mapping[str, Any]], caption: str) -> list[str]:
    """The public ``cal_metrics.py`` aggregate per model as markdown lines, under a caption."""
    lines = [
        f"The public `cal_metrics.py` aggregate ({caption}):",
        "",
        "| Model | Questions | Acc. short | Acc. long | Map short | Map long | Via-stop part | Via-count part |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for model, row in aggregate.items():
        lines.append(
            f"| {markdown_text(model)} | {row['count']} | {row['acc_short']:.4f} | {row['acc_long']:.4f} "
            f"| {row['map_score_short']:.4f} | {row['map_score_long']:.4f} "
            f"| {row['via_stops_score']:.4f} | {row['num_via_stop_score']:.4f} |"
        )
    return lines

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

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter, mul
from pathlib import Path
from typing import Any

from benchmarks.cells import markdown_text
from benchmarks.difficulty import DIFFICULTIES
from benchmarks.intervals import grouped_intervals, interval_method, interval_note, question_maps
from benchmarks.metrics import DIGITS, MetricSpec, headline, interval_cell, number, weighted_mean
from benchmarks.provenance import versions
from benchmarks.reasonmap.figures import plotted_models
from benchmarks.reasonmap.metrics import ROUTE_METRICS, _OfKind, route_metrics_of
from benchmarks.reasonmap.records import KINDS, Question, Verdict
from benchmarks.repeats import repeats_table
from benchmarks.summaries import partial_lines

__all__ = ["summarize", "markdown_table", "published_aggregate_table", "write_report", "REPORT_FILES"]

REPORT_FILES = ("summary.json", "table.md", "difficulty.png", "difficulty.pdf", "cities.png", "cities.pdf")


_SPECS = {kind: route_metrics_of(kind) for kind in KINDS}
_HEADLINE = headline(ROUTE_METRICS)


def _kind_figures(kind: str, verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """The figures of one question kind's verdicts: every spec of the kind, and the counts.

    The figures are :func:`benchmarks.metrics.figures`' (the same ``(value, weight)`` pairs, the same exact
    means, so the same bits): each column of values is read with one ``map`` over the verdicts of the kind.
    """
    specs = _SPECS[kind]
    of_kind = [verdict for verdict in verdicts if verdict.question == kind]
    weights: dict[Any, list] = {}  # a weight function's column, read once for the specs it weighs
    figures: dict[str, Any] = {}
    for spec in specs:
        reader = spec.value
        if reader.__class__ is _OfKind and reader.kind == kind:
            value = _mean_of_column(spec, list(map(attrgetter(reader.field), of_kind)), of_kind, weights)
        else:  # any other spec: its pairs, read one by one
            value = weighted_mean(spec.pairs(verdicts))
        figures[spec.name] = None if value is None else round(value, DIGITS)
    figures[f"n_{kind}"] = len(verdicts)
    figures[f"n_invalid_{kind}"] = sum(verdict.parsed is None for verdict in verdicts)
    return figures


def _mean_of_column(spec: MetricSpec, values: list, rows: list[Verdict], weights: dict[Any, list]) -> float | None:
    """:func:`~benchmarks.metrics.weighted_mean` of ``spec``'s pairs, given its values of ``rows`` (``None``: the
    spec does not apply to that row): the same exact sums of the same products."""
    if spec.weighted:
        shares = weights.get(spec.weight)
        if shares is None:
            shares = weights[spec.weight] = list(map(spec.weight, rows))
        if None in values:
            shares = [share for share, value in zip(shares, values) if value is not None]
            values = [value for value in values if value is not None]
        weight = math.fsum(shares)
        return math.fsum(map(mul, shares, values)) / weight if weight else None
    if None in values:
        values = [value for value in values if value is not None]
    # every share is 1: each product is the value itself, and the weights add up to the count
    return math.fsum(values) / len(values) if values else None


def _grouped(
    verdicts: Iterable[Verdict], questions: Mapping[str, Question]
) -> tuple[
    dict[str, dict[str, list[Verdict]]],
    dict[str, dict[str, dict[str, list[Verdict]]]],
    dict[str, dict[str, dict[str, list[Verdict]]]],
    dict[str, dict[str, int]],
    dict[str, str],
]:
    """The verdicts by model (and city, and difficulty pair) and kind; the failures; each city's difficulty."""
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
    return overall, cities, pairs, failures, city_difficulty


def summarize(
    verdicts: Iterable[Verdict],
    questions: Mapping[str, Question],
    *,
    weighting: str,
    variant: str = "paper",
    inputs: Mapping[str, Any] | None = None,
    problems: Sequence[str] = (),
    cluster: str = "question",
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
    cluster : {"question", "map"}
        What the printed intervals resample (:mod:`benchmarks.intervals`); each model's row records both in
        ``intervals_by_cluster``, and ``clusters`` each city's questions.

    Returns
    -------
    dict
        ``weighting``, ``variant``, ``models`` (each model's row, models sorted: the figures of each kind, per
        city and per difficulty pair, the failures), ``interval_method``, ``clusters``, ``city_difficulty``,
        ``skipped_records``, ``inputs`` and ``versions``.
    """
    overall, cities, pairs, failures, city_difficulty = _grouped(verdicts, questions)

    # one bootstrap over each group's questions (a question's short and long answers are drawn together),
    # every group's at once once the rows are laid out: groups of one size share the draws
    pending: list[tuple[dict[str, Any], list[Verdict]]] = []

    def figures(groups: Mapping[str, list[Verdict]]) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for kind in KINDS:
            merged.update(_kind_figures(kind, groups.get(kind, [])))
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

    map_of = _city_of(questions)
    _fill_intervals(pending, models, overall, cluster, map_of)
    return {
        "weighting": weighting,
        "variant": variant,
        "models": models,
        "interval_method": interval_method(cluster=cluster),
        "clusters": question_maps((v for kinds in overall.values() for row in kinds.values() for v in row), map_of),
        "city_difficulty": dict(sorted(city_difficulty.items())),
        "skipped_records": len(problems),
        "inputs": dict(inputs or {}),
        "versions": versions(),
    }


def _city_of(questions: Mapping[str, Question]) -> Any:
    """A verdict's map: its question's city."""
    return lambda verdict: questions[verdict.id].city


def _fill_intervals(
    pending: Sequence[tuple[dict[str, Any], list[Verdict]]],
    models: Mapping[str, dict[str, Any]],
    overall: Mapping[str, Mapping[str, list[Verdict]]],
    cluster: str,
    map_of: Any,
) -> None:
    """Every row's ``intervals`` under the chosen clustering, and each model's ``intervals_by_cluster`` (both),
    from one bootstrap: the answers are read once."""
    other = "map" if cluster == "question" else "question"
    groups = [group for _, group in pending]
    groups += [[verdict for kind in KINDS for verdict in overall[model].get(kind, [])] for model in models]
    clusters = [cluster] * len(pending) + [other] * len(models)
    drawn = grouped_intervals(_HEADLINE, groups, cluster=clusters, map_of=map_of)
    for (row, _), found in zip(pending, drawn):
        row["intervals"] = {name: interval.to_dict() for name, interval in found.items()}
    for row, found in zip(models.values(), drawn[len(pending) :]):  # both recorded: the chosen one first
        row["intervals_by_cluster"] = {
            cluster: row["intervals"],
            other: {name: interval.to_dict() for name, interval in found.items()},
        }


def markdown_table(summary: Mapping[str, Any]) -> str:
    """Models × metrics, in the shape of the paper's Table 2 (accuracy in %, weighted).

    Parameters
    ----------
    summary : mapping
        What :func:`summarize` returns.

    Returns
    -------
    str
        The weighting and variant, the table, then the notes (models left out of the figures, official rules,
        the public aggregate, repeats, partial runs) where there are any; one trailing newline.
    """
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
        from benchmarks.official_rules import official_rules_lines

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

    Parameters
    ----------
    directory : str or Path
        The report folder.
    summary : mapping
        What :func:`summarize` returns.
    figures : bool, optional
        Draw the figures.

    Returns
    -------
    list of Path
        The files written.
    """
    from benchmarks.summaries import write_report_files

    def plot(out: Path) -> None:
        from benchmarks.reasonmap.figures import plot_cities, plot_difficulty

        plot_difficulty(summary, out / "difficulty.png")
        plot_cities(summary, out / "cities.png")

    return write_report_files(
        directory,
        summary,
        files=REPORT_FILES,
        table=markdown_table,
        cap=plotted_models(summary),
        plot=plot,
        figures=figures,
    )


def published_aggregate_table(aggregate: Mapping[str, Mapping[str, Any]], caption: str) -> list[str]:
    """The public ``cal_metrics.py`` aggregate per model as markdown lines, under a caption.

    Parameters
    ----------
    aggregate : mapping
        Per model: ``count``, ``acc_short``, ``acc_long``, ``map_score_short``, ``map_score_long``,
        ``via_stops_score`` and ``num_via_stop_score``.
    caption : str
        What the aggregate is over.

    Returns
    -------
    list of str
        The caption line, a blank line, then the table's lines.
    """
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

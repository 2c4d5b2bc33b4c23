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

from benchmarks.provenance import versions
from benchmarks.reasonmap.figures import plotted_models
from benchmarks.reasonmap.records import DIFFICULTIES, KINDS, Question, Verdict
from benchmarks.repeats import repeats_table

__all__ = ["summarize", "markdown_table", "published_aggregate_table", "write_report", "REPORT_FILES"]

REPORT_FILES = ("summary.json", "table.md", "difficulty.png", "difficulty.pdf", "cities.png", "cities.pdf")


def _ratio(numerator: float, denominator: float) -> float | None:
    return round(numerator / denominator, 6) if denominator else None


class _Tally:
    """Sums for one group of verdicts of one question kind."""

    __slots__ = (
        "n",
        "weight",
        "correct",
        "weighted_correct",
        "score",
        "weighted_score",
        "invalid",
        "tokens",
        "counted",
    )

    def __init__(self) -> None:
        self.n = self.invalid = self.counted = 0
        self.weight = self.correct = self.weighted_correct = self.score = self.weighted_score = 0.0
        self.tokens = 0

    def add(self, verdict: Verdict) -> None:
        self.n += 1
        self.weight += verdict.weight
        self.correct += verdict.correct
        self.weighted_correct += verdict.weight * verdict.correct
        self.score += verdict.map_score
        self.weighted_score += verdict.weight * verdict.map_score
        self.invalid += verdict.parsed is None
        if verdict.tokens is not None:
            self.tokens += verdict.tokens
            self.counted += 1

    def figures(self, kind: str) -> dict[str, Any]:
        return {
            f"weighted_accuracy_{kind}": _ratio(self.weighted_correct, self.weight),
            f"map_score_{kind}": _ratio(self.weighted_score, self.weight),
            f"accuracy_{kind}": _ratio(self.correct, self.n),
            f"map_score_unweighted_{kind}": _ratio(self.score, self.n),
            f"n_{kind}": self.n,
            f"n_invalid_{kind}": self.invalid,
            f"mean_tokens_{kind}": _ratio(self.tokens, self.counted),
        }


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
    overall: dict[str, dict[str, _Tally]] = defaultdict(lambda: defaultdict(_Tally))
    cities: dict[str, dict[str, dict[str, _Tally]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(_Tally)))
    pairs: dict[str, dict[str, dict[str, _Tally]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(_Tally)))
    failures: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    city_difficulty: dict[str, str] = {}
    for verdict in verdicts:
        question = questions[verdict.id]
        city_difficulty.setdefault(question.city, question.difficulty_city)
        overall[verdict.model][verdict.question].add(verdict)
        cities[verdict.model][question.city][verdict.question].add(verdict)
        pair = f"{question.difficulty_question}/{question.difficulty_city}"
        pairs[verdict.model][pair][verdict.question].add(verdict)
        if verdict.failure:
            failures[verdict.model][verdict.failure] += 1

    def figures(tallies: Mapping[str, _Tally]) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for kind in KINDS:
            merged.update(tallies[kind].figures(kind) if kind in tallies else _Tally().figures(kind))
        merged["n"] = sum(tally.n for tally in tallies.values())
        merged["n_invalid"] = sum(tally.invalid for tally in tallies.values())
        return merged

    pair_order = [f"{q}/{m}" for q in DIFFICULTIES for m in DIFFICULTIES]
    models = {}
    for model in sorted(overall):
        models[model] = {
            **figures(overall[model]),
            "failures": dict(sorted(failures[model].items())),
            "per_city": {city: figures(cities[model][city]) for city in sorted(cities[model])},
            "per_difficulty": {pair: figures(pairs[model][pair]) for pair in pair_order if pair in pairs[model]},
        }
    return {
        "weighting": weighting,
        "variant": variant,
        "models": models,
        "city_difficulty": dict(sorted(city_difficulty.items())),
        "skipped_records": len(problems),
        "inputs": dict(inputs or {}),
        "versions": versions(),
    }


def _cell(value: float | None, scale: float = 1.0, digits: int = 2) -> str:
    return "–" if value is None else f"{value * scale:.{digits}f}"


def markdown_table(summary: Mapping[str, Any]) -> str:
    """Models × metrics, in the shape of the paper's Table 2 (accuracy in %, weighted)."""
    lines = [
        f"Weighting: `{summary['weighting']}`, variant: `{summary['variant']}`.",
        "",
        "| Model | Short Acc. (%) | Short Map Score | Long Acc. (%) | Long Map Score | Invalid | Tokens (short/long) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for model, row in summary["models"].items():
        tokens = f"{_cell(row['mean_tokens_short'], digits=0)} / {_cell(row['mean_tokens_long'], digits=0)}"
        lines.append(
            f"| {model} | {_cell(row['weighted_accuracy_short'], 100)} | {_cell(row['map_score_short'])} "
            f"| {_cell(row['weighted_accuracy_long'], 100)} | {_cell(row['map_score_long'])} "
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
    lines += repeats_table(summary)
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
            f"| {model} | {row['count']} | {row['acc_short']:.4f} | {row['acc_long']:.4f} "
            f"| {row['map_score_short']:.4f} | {row['map_score_long']:.4f} "
            f"| {row['via_stops_score']:.4f} | {row['num_via_stop_score']:.4f} |"
        )
    return lines

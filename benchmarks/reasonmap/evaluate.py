"""Scoring files end to end: questions and predictions in, scored rows and a report out.

This is what ``reasonmap score`` runs. Bad records in either file are
reported and skipped (nothing else is lost); predictions that answer no
question, and repeated answers to one question by one model, are reported
too (the first answer counts). Variant ``official`` scores the public
evaluation code's way (:mod:`~benchmarks.reasonmap.official_scoring`) and adds
its published aggregate to the summary; :func:`compare_files` scores with two
variants and writes why they differ (:mod:`~benchmarks.reasonmap.compare`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.jsonl import first_answers, write_jsonl
from benchmarks.provenance import file_sha256
from benchmarks.reasonmap.loading import graph_lookup, load_questions
from benchmarks.reasonmap.records import Prediction, Question, Verdict
from benchmarks.reasonmap.report import summarize, write_report
from benchmarks.reasonmap.scoring import VARIANTS, score_predictions
from graphkit.graph import TransitGraph
from graphkit.metro import MetroData
from graphkit.overlays import Overlay

if TYPE_CHECKING:
    from graphkit.executors import Executor

__all__ = [
    "SCORING_VARIANTS",
    "Evaluation",
    "load_questions",
    "graph_lookup",
    "evaluate_files",
    "compare_files",
    "ScoreJob",
    "score_block",
]

#: Every variant ``reasonmap score`` takes: the paper-faithful ones and the public code's.
SCORING_VARIANTS: tuple[str, ...] = (*VARIANTS, "official")
# predictions per job handed to an executor: about a second of scoring
_PREDICTIONS_PER_JOB = 10_000


@dataclass(frozen=True, slots=True)
class Evaluation:
    """What scoring files produced."""

    verdicts: tuple[Verdict, ...]
    summary: dict[str, Any]
    problems: tuple[str, ...]
    report_files: tuple[Path, ...]


@dataclass(frozen=True, slots=True)
class ScoreJob:
    """A block of predictions with their questions and where their cities' graphs come from (for a worker)."""

    questions: dict[str, Question]
    predictions: tuple[Prediction, ...]
    metro: dict[str, Any]
    network: tuple[MetroData, Overlay] | None
    metro_dir: str | None
    weighting: str
    variant: str


def score_block(job: ScoreJob) -> tuple[list[Verdict], list[str]]:
    """The verdicts and unmatched ids of one block (run by a worker)."""
    from graphkit.graph import compile_graph

    override = compile_graph(*job.network) if job.network is not None else None
    graph_for = graph_lookup(job.metro, override, job.metro_dir)
    return _score(job.questions, job.predictions, graph_for, job.weighting, job.variant)


def _score(
    questions: dict[str, Question],
    predictions: Iterable[Prediction],
    graph_for: Callable[[Question], TransitGraph],
    weighting: str,
    variant: str,
) -> tuple[list[Verdict], list[str]]:
    if variant == "official":
        from benchmarks.reasonmap.official_scoring import score_official_predictions

        return score_official_predictions(questions, predictions, graph_for, weighting=weighting)
    return score_predictions(questions, predictions, graph_for, weighting=weighting, variant=variant)


def _score_on(
    executor: Executor,
    questions: dict[str, Question],
    predictions: list[Prediction],
    template: ScoreJob,
) -> tuple[list[Verdict], list[str]]:
    """Score blocks of predictions on ``executor``; verdicts and unmatched ids come back in input order."""
    jobs = (
        replace(
            template,
            questions={p.id: questions[p.id] for p in block if p.id in questions},
            predictions=block,
        )
        for start in range(0, len(predictions), _PREDICTIONS_PER_JOB)
        for block in [tuple(predictions[start : start + _PREDICTIONS_PER_JOB])]
    )
    verdicts: list[Verdict] = []
    unmatched: list[str] = []
    for block_verdicts, block_unmatched in executor.map(score_block, jobs):
        verdicts.extend(block_verdicts)
        unmatched.extend(block_unmatched)
    return verdicts, unmatched


def _answer_key(prediction: Prediction) -> tuple[str, str, str]:
    return (prediction.id, prediction.model, prediction.question)


def evaluate_files(
    questions_path: str | Path,
    predictions_path: str | Path,
    *,
    out: str | Path,
    report_dir: str | Path,
    weighting: str = "paper",
    variant: str = "paper",
    graph: TransitGraph | None = None,
    source: str = "jsonl",
    model: str | None = None,
    kind: str | None = None,
    metro_dir: str | Path | None = None,
    executor: Executor | None = None,
) -> Evaluation:
    """Score a predictions file against a questions file; write scored rows and the report.

    ``source`` names who wrote the predictions: the toolkit (``jsonl``), or
    ``lmms-eval``, ``vlmevalkit`` or ``inspect``, whose files are mapped onto
    prediction rows (``model`` and ``kind`` fill in what they leave out; see
    :mod:`benchmarks.reasonmap.harnesses`).

    A ReasonMap-Plus question file (records with a plus ``type``) is scored by exact match instead
    (see :func:`benchmarks.plus.evaluate.evaluate_plus_files`; ``variant`` and ``graph`` play no part).
    ``graph``, when given, is every question's city; ``metro_dir`` is a folder of Metro Data files named
    after their cities (see :func:`graph_lookup`). With an ``executor`` (:mod:`graphkit.executors`),
    blocks of predictions are scored by its workers; the outputs are the same byte for byte.

    Raises
    ------
    ValueError
        An unknown ``source``, or another harness's predictions of plus questions.
    """
    from benchmarks.plus.evaluate import evaluate_plus_files, is_plus_file
    from benchmarks.reasonmap.harnesses import read_harness_predictions

    if variant not in SCORING_VARIANTS:
        raise ValueError(f"variant must be one of {list(SCORING_VARIANTS)}, got {variant!r}")
    if is_plus_file(questions_path):
        if source != "jsonl":
            raise ValueError(f"--from {source} reads route answers; plus predictions are JSON Lines rows")
        return evaluate_plus_files(
            questions_path, predictions_path, out=out, report_dir=report_dir, weighting=weighting, variant=variant
        )
    questions, metro, question_problems = load_questions(questions_path)
    predictions, prediction_problems = read_harness_predictions(predictions_path, source, model=model, kind=kind)
    kept, repeated = first_answers(predictions, _answer_key, predictions_path)
    problems = [str(problem) for problem in question_problems + prediction_problems] + repeated
    if executor is None:
        verdicts, unmatched = _score(questions, kept, graph_lookup(metro, graph, metro_dir), weighting, variant)
    else:
        network = (graph.metro, graph.overlay) if graph is not None else None
        where = str(metro_dir) if metro_dir is not None else None
        template = ScoreJob({}, (), metro, network, where, weighting, variant)
        verdicts, unmatched = _score_on(executor, questions, list(kept), template)
    problems.extend(f"{predictions_path}: prediction {id!r} matches no question" for id in unmatched)
    write_jsonl(out, verdicts)
    summary = summarize(
        verdicts,
        questions,
        weighting=weighting,
        variant=variant,
        # file names, not paths: the same inputs give the same summary wherever they lie
        inputs={
            "questions": {"file": Path(questions_path).name, "sha256": file_sha256(questions_path)},
            "predictions": {"file": Path(predictions_path).name, "sha256": file_sha256(predictions_path)},
        },
        problems=problems,
    )
    if variant == "official":
        from benchmarks.reasonmap.compare import published_aggregate

        summary["published_aggregate"] = published_aggregate(verdicts, questions)
    files = write_report(report_dir, summary)
    return Evaluation(tuple(verdicts), summary, tuple(problems), tuple(files))


@dataclass(frozen=True, slots=True)
class Comparison:
    """What scoring files with two variants produced: each evaluation, the comparison, and the files."""

    evaluations: dict[str, Evaluation]
    comparison: dict[str, Any]
    files: tuple[Path, ...]


def compare_files(
    questions_path: str | Path,
    predictions_path: str | Path,
    *,
    out: str | Path,
    report_dir: str | Path,
    variants: tuple[str, str] = ("paper", "official"),
    weighting: str = "paper",
    graph: TransitGraph | None = None,
    source: str = "jsonl",
    model: str | None = None,
    kind: str | None = None,
    metro_dir: str | Path | None = None,
) -> Comparison:
    """Score with two variants, side by side, and charge their difference to causes.

    Each variant's scored rows go to ``<out stem>.<variant><suffix>`` and its report
    to ``<report_dir>/<variant>/``; ``compare.md`` and ``compare.json`` go to ``report_dir``.
    ReasonMap-Plus files are compared on accuracy, with one cause (``extraction``).
    ``source``, ``model`` and ``kind`` read another harness's predictions, and ``metro_dir`` finds the
    cities, as in :func:`evaluate_files`.
    """
    from benchmarks.plus.evaluate import compare_plus, is_plus_file
    from benchmarks.reasonmap.compare import attribute, compare_markdown, write_compare

    if len(variants) != 2 or variants[0] == variants[1] or not set(variants) <= set(SCORING_VARIANTS):
        raise ValueError(f"compare needs two different variants of {list(SCORING_VARIANTS)}, got {list(variants)}")
    out, report = Path(out), Path(report_dir)
    evaluations = {
        variant: evaluate_files(
            questions_path,
            predictions_path,
            out=out.with_name(f"{out.stem}.{variant}{out.suffix}"),
            report_dir=report / variant,
            weighting=weighting,
            variant=variant,
            graph=graph,
            source=source,
            model=model,
            kind=kind,
            metro_dir=metro_dir,
        )
        for variant in variants
    }
    if is_plus_file(questions_path):
        comparison, markdown = compare_plus(evaluations, variants)
    else:
        questions, metro, _ = load_questions(questions_path)
        from benchmarks.reasonmap.harnesses import read_harness_predictions

        predictions, _ = read_harness_predictions(predictions_path, source, model=model, kind=kind)
        kept, _ = first_answers(predictions, _answer_key, predictions_path)
        comparison = attribute(
            questions, kept, graph_lookup(metro, graph, metro_dir), variants=variants, weighting=weighting
        )
        aggregate = evaluations["official"].summary.get("published_aggregate") if "official" in evaluations else None
        comparison["published_aggregate"] = aggregate or {}
        markdown = compare_markdown(comparison, aggregate)
    files = write_compare(report, comparison, markdown)
    return Comparison(evaluations, comparison, tuple(files))

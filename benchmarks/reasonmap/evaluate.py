"""Scoring files end to end: questions and predictions in, scored rows and a report out.

This is what ``reasonmap score`` runs. Bad records in either file are
reported and skipped (nothing else is lost); predictions that answer no
question, and repeated answers to one question by one model, are reported
too (the first answer counts).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.reasonmap.io import (
    Problem,
    file_sha256,
    first_answers,
    first_record,
    read_jsonl,
    read_predictions,
    unique_by_id,
    write_jsonl,
)
from benchmarks.reasonmap.official import load_official
from benchmarks.reasonmap.records import Prediction, Question, Verdict
from benchmarks.reasonmap.report import summarize, write_report
from benchmarks.reasonmap.scoring import score_predictions
from graphkit.graph import TransitGraph
from graphkit.metro import MetroData
from graphkit.overlays import Overlay

if TYPE_CHECKING:
    from graphkit.executors import Executor

__all__ = ["Evaluation", "load_questions", "evaluate_files", "ScoreJob", "score_block"]

# predictions per job handed to an executor: about a second of scoring
_PREDICTIONS_PER_JOB = 10_000


@dataclass(frozen=True, slots=True)
class Evaluation:
    """What scoring files produced."""

    verdicts: tuple[Verdict, ...]
    summary: dict[str, Any]
    problems: tuple[str, ...]
    report_files: tuple[Path, ...]


def _is_official(path: Path) -> bool:
    """Public data set files have no ``long_template``; the toolkit's own question files do."""
    if path.suffix == ".parquet":
        return True
    first = first_record(path)
    return isinstance(first, dict) and "long_template" not in first and "json" in first


def load_questions(path: str | Path) -> tuple[dict[str, Question], dict[str, Any], list[Problem]]:
    """Questions of the toolkit's own files or of the public data set's, with any Metro Data they carry."""
    path = Path(path)
    if _is_official(path):
        found = load_official(path)
        return {q.id: q for q in found.questions}, dict(found.metro), list(found.problems)
    questions, problems = read_jsonl(path, Question.from_dict)
    unique, repeated = unique_by_id(questions, path)
    return unique, {}, problems + repeated


def _graphs(
    metro: dict[str, Any], override: TransitGraph | None, metro_dir: str | Path | None = None
) -> Callable[[Question], TransitGraph]:
    from graphkit.cities import city_graph, city_names, graphs_by_city
    from graphkit.graph import compile_graph

    compiled: dict[str, TransitGraph] = {}
    by_city = graphs_by_city(metro_dir) if metro_dir is not None else None

    def graph_for(question: Question) -> TransitGraph:
        if override is not None:
            return override
        if by_city is not None:
            return by_city(question.city)
        if question.city in city_names():
            return city_graph(question.city)  # embedded, with its topology overlay
        if question.city not in compiled:
            if question.city not in metro:
                raise ValueError(f"no Metro Data for city {question.city!r}: pass --metro or --metro-dir")
            compiled[question.city] = compile_graph(metro[question.city])
        return compiled[question.city]

    return graph_for


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
    """:func:`~benchmarks.reasonmap.scoring.score_predictions` of one block (run by a worker)."""
    from graphkit.graph import compile_graph

    override = compile_graph(*job.network) if job.network is not None else None
    graph_for = _graphs(job.metro, override, job.metro_dir)
    return score_predictions(job.questions, job.predictions, graph_for, weighting=job.weighting, variant=job.variant)


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
    metro_dir: str | Path | None = None,
    executor: Executor | None = None,
) -> Evaluation:
    """Score a predictions file against a questions file; write scored rows and the report.

    A ReasonMap-Plus question file (records with a plus ``type``) is scored by exact match instead
    (see :func:`benchmarks.reasonmap.plus_evaluate.evaluate_plus_files`; ``variant`` and ``graph`` play no part).
    ``graph``, when given, is every question's city; ``metro_dir`` is a folder of Metro Data files named
    after their cities (a synthetic benchmark's; :func:`graphkit.cities.graphs_by_city`). With an
    ``executor`` (:mod:`graphkit.executors`), blocks of predictions are scored by its workers; the
    outputs are the same byte for byte.
    """
    from benchmarks.reasonmap.plus_evaluate import evaluate_plus_files, is_plus_file

    if is_plus_file(questions_path):
        return evaluate_plus_files(
            questions_path, predictions_path, out=out, report_dir=report_dir, weighting=weighting
        )
    questions, metro, question_problems = load_questions(questions_path)
    predictions, prediction_problems = read_predictions(predictions_path)
    kept, repeated = first_answers(predictions, _answer_key, predictions_path)
    problems = [str(problem) for problem in question_problems + prediction_problems] + repeated
    if executor is None:
        verdicts, unmatched = score_predictions(
            questions, kept, _graphs(metro, graph, metro_dir), weighting=weighting, variant=variant
        )
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
    files = write_report(report_dir, summary)
    return Evaluation(tuple(verdicts), summary, tuple(problems), tuple(files))

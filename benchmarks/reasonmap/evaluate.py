"""Scoring files end to end: questions and predictions in, scored rows and a report out.

This is what ``reasonmap score`` runs. Bad records in either file are
reported and skipped (nothing else is lost); predictions that answer no
question, and repeated answers to one question by one model, are reported
too (the first answer counts).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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

__all__ = ["Evaluation", "load_questions", "evaluate_files"]


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
    metro: dict[str, Any], override: TransitGraph | None, by_city: Callable[[str], TransitGraph] | None = None
) -> Callable[[Question], TransitGraph]:
    from graphkit.cities import city_graph, city_names
    from graphkit.graph import compile_graph

    compiled: dict[str, TransitGraph] = {}

    def graph_for(question: Question) -> TransitGraph:
        if override is not None:
            return override
        if by_city is not None:
            return by_city(question.city)
        if question.city in city_names():
            return city_graph(question.city)  # embedded, with its topology overlay
        if question.city not in compiled:
            if question.city not in metro:
                raise ValueError(f"no Metro Data for city {question.city!r}: pass --metro")
            compiled[question.city] = compile_graph(metro[question.city])
        return compiled[question.city]

    return graph_for


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
    graph_of_city: Callable[[str], TransitGraph] | None = None,
) -> Evaluation:
    """Score a predictions file against a questions file; write scored rows and the report.

    A ReasonMap-Plus question file (records with a plus ``type``) is scored by exact match instead
    (see :func:`benchmarks.reasonmap.plus_evaluate.evaluate_plus_files`; ``variant`` and ``graph`` play no part).
    ``graph``, when given, is every question's city; ``graph_of_city`` finds a question's city by name
    (:func:`graphkit.cities.graphs_by_city`, for a folder of Metro Data such as a synthetic benchmark's).
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
    verdicts, unmatched = score_predictions(
        questions, kept, _graphs(metro, graph, graph_of_city), weighting=weighting, variant=variant
    )
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

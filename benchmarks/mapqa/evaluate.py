"""Scoring map QA files end to end: questions and predictions in, scored rows and a report out.

This is what ``reasonmap mapqa-score`` runs. Bad records in either file are
reported and skipped (nothing else is lost); predictions that answer no
question, and repeated answers to one question by one model, are reported
too (the first answer counts).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.jsonl import first_answers, write_jsonl
from benchmarks.mapqa.io import read_map_predictions, read_map_questions
from benchmarks.mapqa.records import MapPrediction, MapVerdict
from benchmarks.mapqa.report import summarize, write_report
from benchmarks.mapqa.scoring import score_predictions
from benchmarks.provenance import file_sha256

__all__ = ["MapEvaluation", "evaluate_map_files"]


@dataclass(frozen=True, slots=True)
class MapEvaluation:
    """What scoring files produced."""

    verdicts: tuple[MapVerdict, ...]
    summary: dict[str, Any]
    problems: tuple[str, ...]
    report_files: tuple[Path, ...]


def _answer_key(prediction: MapPrediction) -> tuple[str, str]:
    return (prediction.id, prediction.model)


def evaluate_map_files(
    questions_path: str | Path, predictions_path: str | Path, *, out: str | Path, report_dir: str | Path
) -> MapEvaluation:
    """Score a predictions file against a map questions file; write the scored rows and the report.

    Raises
    ------
    InvalidRecord
        A file cannot be read at all.
    """
    questions, question_problems = read_map_questions(questions_path)
    predictions, prediction_problems = read_map_predictions(predictions_path)
    problems = [str(problem) for problem in question_problems + prediction_problems]
    kept, repeated = first_answers(predictions, _answer_key, predictions_path)
    problems.extend(repeated)
    verdicts, unmatched = score_predictions(questions, kept)
    problems.extend(f"{predictions_path}: prediction {id!r} matches no question" for id in unmatched)
    write_jsonl(out, verdicts)
    summary = summarize(
        verdicts,
        questions,
        # file names, not paths: the same inputs give the same summary wherever they lie
        inputs={
            "questions": {"file": Path(questions_path).name, "sha256": file_sha256(questions_path)},
            "predictions": {"file": Path(predictions_path).name, "sha256": file_sha256(predictions_path)},
        },
        problems=problems,
    )
    files = write_report(report_dir, summary)
    return MapEvaluation(tuple(verdicts), summary, tuple(problems), tuple(files))

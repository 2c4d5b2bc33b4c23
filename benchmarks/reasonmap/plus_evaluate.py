"""Scoring ReasonMap-Plus files end to end: what ``reasonmap score`` runs for plus question files.

A question file is a plus file when its first record has a ``type`` among
the plus types. Predictions are ``{id, model, question, response, tokens}``
rows, as for route questions, where ``question`` is the type's name or left
out. Bad records are reported and skipped; predictions that match no
question, that name another type, or that repeat a model's answer to one
question are reported too (the first answer counts). Plus scoring needs no
graph: the answers are in the records.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.reasonmap.evaluate import Evaluation
from benchmarks.reasonmap.io import (
    Problem,
    file_sha256,
    first_answers,
    first_record,
    read_jsonl,
    unique_by_id,
    write_jsonl,
)
from benchmarks.reasonmap.plus import PLUS_TYPES, PlusPrediction, PlusQuestion
from benchmarks.reasonmap.plus_report import summarize_plus, write_plus_report
from benchmarks.reasonmap.plus_scoring import score_plus_predictions

__all__ = ["is_plus_file", "load_plus_questions", "evaluate_plus_files"]


def is_plus_file(path: str | Path) -> bool:
    """Whether the first record of a JSON Lines file is a plus question (a ``type`` among the plus types)."""
    first = first_record(path)
    return isinstance(first, dict) and first.get("type") in PLUS_TYPES


def load_plus_questions(path: str | Path) -> tuple[dict[str, PlusQuestion], list[Problem]]:
    """Plus questions of a JSON Lines file by id (a repeated id is reported; the first is used)."""
    questions, problems = read_jsonl(path, PlusQuestion.from_dict)
    unique, repeated = unique_by_id(questions, path)
    return unique, problems + repeated


def _answer_key(prediction: PlusPrediction) -> tuple[str, str]:
    return (prediction.id, prediction.model)


def evaluate_plus_files(
    questions_path: str | Path,
    predictions_path: str | Path,
    *,
    out: str | Path,
    report_dir: str | Path,
    weighting: str = "city",
) -> Evaluation:
    """Score a predictions file against a plus questions file; write scored rows and the report.

    ``weighting`` names a scheme of :mod:`~benchmarks.reasonmap.weighting`;
    plus questions are weighted by map difficulty whatever it is, except
    ``none`` (see :func:`~benchmarks.reasonmap.plus_scoring.plus_weight`).
    The returned evaluation's verdicts are :class:`~benchmarks.reasonmap.plus_scoring.PlusVerdict`.
    """
    questions, question_problems = load_plus_questions(questions_path)
    predictions, prediction_problems = read_jsonl(predictions_path, PlusPrediction.from_dict)
    kept, repeated = first_answers(predictions, _answer_key, predictions_path)
    problems = [str(problem) for problem in question_problems + prediction_problems] + repeated
    verdicts, skipped = score_plus_predictions(questions, kept, weighting=weighting)
    problems.extend(f"{predictions_path}: {reason}" for reason in skipped)
    write_jsonl(out, verdicts)
    summary = summarize_plus(
        verdicts,
        weighting=weighting,
        # file names, not paths: the same inputs give the same summary wherever they lie
        inputs={
            "questions": {"file": Path(questions_path).name, "sha256": file_sha256(questions_path)},
            "predictions": {"file": Path(predictions_path).name, "sha256": file_sha256(predictions_path)},
        },
        problems=problems,
    )
    files = write_plus_report(report_dir, summary)
    return Evaluation(tuple(verdicts), summary, tuple(problems), tuple(files))

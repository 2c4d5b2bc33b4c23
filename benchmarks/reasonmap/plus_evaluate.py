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

import json
from pathlib import Path

from benchmarks.reasonmap.evaluate import Evaluation
from benchmarks.reasonmap.io import Problem, file_sha256, read_jsonl, write_jsonl
from benchmarks.reasonmap.plus import PLUS_TYPES, PlusPrediction, PlusQuestion
from benchmarks.reasonmap.plus_report import summarize_plus, write_plus_report
from benchmarks.reasonmap.plus_scoring import score_plus_predictions

__all__ = ["is_plus_file", "load_plus_questions", "evaluate_plus_files"]


def is_plus_file(path: str | Path) -> bool:
    """Whether the first record of a JSON Lines file is a plus question (a ``type`` among the plus types)."""
    path = Path(path)
    if path.suffix == ".parquet":
        return False
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            for line in stream:
                if line.strip():
                    first = json.loads(line)
                    return isinstance(first, dict) and first.get("type") in PLUS_TYPES
    except (OSError, json.JSONDecodeError):
        return False  # not ours to report: the route loader names the file and what is wrong
    return False


def load_plus_questions(path: str | Path) -> tuple[dict[str, PlusQuestion], list[Problem]]:
    """Plus questions of a JSON Lines file by id (a repeated id is reported; the first is used)."""
    questions, problems = read_jsonl(path, PlusQuestion.from_dict)
    unique: dict[str, PlusQuestion] = {}
    for question in questions:
        if question.id in unique:
            problems.append(Problem(str(path), 0, f"question id {question.id!r} appears twice; the first is used"))
            continue
        unique[question.id] = question
    return unique, problems


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
    problems = [str(problem) for problem in question_problems + prediction_problems]
    seen: set[tuple[str, str]] = set()
    kept: list[PlusPrediction] = []
    for prediction in predictions:
        key = (prediction.id, prediction.model)
        if key in seen:
            problems.append(f"{predictions_path}: {prediction.model} answered {prediction.id} again; the first counts")
            continue
        seen.add(key)
        kept.append(prediction)
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

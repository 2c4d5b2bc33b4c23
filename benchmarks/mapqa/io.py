"""Reading map QA files: questions and predictions, bad records reported and skipped.

Reading never stops at a bad record: it is reported (file, line, what is
wrong) and skipped, and every good record is kept (as for ReasonMap, through
:func:`benchmarks.jsonl.read_jsonl`).
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.jsonl import Problem, first_record, read_jsonl, read_jsonl_lines, unique_by_id
from benchmarks.mapqa.records import QUESTION_TYPES, MapPrediction, MapQuestion

__all__ = ["load_questions", "read_predictions", "image_path", "is_mapqa_file"]


def load_questions(path: str | Path) -> tuple[dict[str, MapQuestion], list[Problem]]:
    """The questions of a JSON Lines file by id, and the records skipped (a repeated id keeps the first).

    Parameters
    ----------
    path : str or Path
        A JSON Lines file of map questions.

    Returns
    -------
    questions : dict of str to MapQuestion
        The questions by id, in file order.
    problems : list of Problem
        The records skipped, each with its line and why.

    Raises
    ------
    InvalidRecord
        The file cannot be read at all.
    """
    numbered, problems = read_jsonl_lines(path, MapQuestion.from_dict)
    unique, repeated = unique_by_id([q for _, q in numbered], path, lines=[line for line, _ in numbered])
    return unique, problems + repeated


def read_predictions(path: str | Path) -> tuple[list[MapPrediction], list[Problem]]:
    """The prediction rows of a JSON Lines file, and the records skipped.

    Parameters
    ----------
    path : str or Path
        A JSON Lines file of ``{id, model, response, ...}`` rows.

    Returns
    -------
    predictions : list of MapPrediction
        The rows read, in file order.
    problems : list of Problem
        The records skipped, each with its line and why.
    """
    return read_jsonl(path, MapPrediction.from_dict)


def image_path(question: MapQuestion, images: str | Path) -> Path:
    """Where a question's map image lies: its ``image`` field, relative to ``images`` unless absolute."""
    given = Path(question.image)
    return given if given.is_absolute() else Path(images) / given


def is_mapqa_file(path: str | Path) -> bool:
    """Whether a JSON Lines file holds map questions (its first record has ``options`` and a map QA ``type``)."""
    first = first_record(path)
    return isinstance(first, dict) and "options" in first and first.get("type") in QUESTION_TYPES

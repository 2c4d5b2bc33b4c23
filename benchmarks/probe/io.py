"""Reading probe files: questions (JSON Lines) and predictions; telling a probe file by its first record."""

from __future__ import annotations

from pathlib import Path

from benchmarks.jsonl import Problem, first_record, read_jsonl, unique_by_id
from benchmarks.probe.questions import PROBE_TYPES, ProbePrediction, ProbeQuestion

__all__ = ["is_probe_file", "load_questions", "read_predictions"]


def is_probe_file(path: str | Path) -> bool:
    """Whether the first record of a JSON Lines file is a probe (a probe ``type``)."""
    first = first_record(path)
    return isinstance(first, dict) and first.get("type") in PROBE_TYPES


def load_questions(path: str | Path) -> tuple[dict[str, ProbeQuestion], list[Problem]]:
    """Probes of a JSON Lines file by id; bad records and repeated ids are reported (the first is used).

    Parameters
    ----------
    path : str or Path
        A JSON Lines file.

    Returns
    -------
    questions : dict of str to ProbeQuestion
        The probes by id, in file order.
    problems : list of Problem
        The records skipped, each with its line and why.
    """
    questions, problems = read_jsonl(path, ProbeQuestion.from_dict)
    unique, repeated = unique_by_id(questions, path)
    return unique, problems + repeated


def read_predictions(path: str | Path) -> tuple[list[ProbePrediction], list[Problem]]:
    """Probe predictions of a JSON Lines file; bad rows are reported and skipped.

    Parameters
    ----------
    path : str or Path
        A JSON Lines file.

    Returns
    -------
    predictions : list of ProbePrediction
        The rows read, in file order.
    problems : list of Problem
        The records skipped, each with its line and why.
    """
    return read_jsonl(path, ProbePrediction.from_dict)

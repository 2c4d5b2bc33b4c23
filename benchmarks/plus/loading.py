"""Reading ReasonMap-Plus question files: the toolkit's own JSON Lines, and the hub's records as they are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.jsonl import Problem, first_record, read_jsonl, unique_by_id
from benchmarks.plus.questions import PLUS_TYPES, PlusQuestion

__all__ = ["is_plus_file", "load_plus_questions"]


def _first(path: str | Path) -> Any:
    """The first record of a JSON Lines or parquet file (``None`` when there is none or it cannot be read)."""
    if Path(path).suffix != ".parquet":
        return first_record(path)
    from benchmarks.errors import InvalidRecord
    from benchmarks.reasonmap.official import official_records

    try:
        return next((record for _, record in official_records(path)), None)
    except InvalidRecord:
        return None


def is_plus_file(path: str | Path) -> bool:
    """Whether the first record of a JSON Lines or parquet file is a plus question (a plus ``type``)."""
    first = _first(path)
    return isinstance(first, dict) and first.get("type") in PLUS_TYPES


def load_plus_questions(path: str | Path) -> tuple[dict[str, PlusQuestion], list[Problem]]:
    """Plus questions of a JSON Lines file by id (a repeated id is reported; the first is used).

    A file of the hub's records (see :func:`~benchmarks.plus.official.is_hub_record`)
    is read as it is, its ids being the records' positions.
    """
    from benchmarks.plus.official import is_hub_record, load_hub_plus

    if is_hub_record(_first(path)):
        return load_hub_plus(path)
    questions, problems = read_jsonl(path, PlusQuestion.from_dict)
    unique, repeated = unique_by_id(questions, path)
    return unique, problems + repeated

"""Reading ReasonMap-Plus files: questions (the toolkit's own JSON Lines, the hub's records as they are),
and VLMEvalKit's prediction sheets of its ``ReasonMap-Plus`` data set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import Problem, first_record, read_jsonl_lines, unique_by_id
from benchmarks.plus.questions import PLUS_TYPES, PlusPrediction, PlusQuestion

__all__ = ["is_plus_file", "load_plus_questions", "read_plus_sheet"]


def _first(path: str | Path) -> Any:
    """The first record of a JSON Lines or parquet file (``None`` when there is none or it cannot be read)."""
    if Path(path).suffix != ".parquet":
        return first_record(path)
    from benchmarks.reasonmap.public_dataset import public_records

    try:
        return next((record for _, record in public_records(path)), None)
    except InvalidRecord:
        return None


def is_plus_file(path: str | Path) -> bool:
    """Whether the first record of a JSON Lines or parquet file is a plus question (a plus ``type``)."""
    first = _first(path)
    return isinstance(first, dict) and first.get("type") in PLUS_TYPES


def load_plus_questions(path: str | Path) -> tuple[dict[str, PlusQuestion], list[Problem]]:
    """Plus questions of a JSON Lines file by id (a repeated id is reported; the first is used).

    A file of the hub's records (see :func:`~benchmarks.plus.public_dataset.is_hub_record`)
    is read as it is, its ids being the records' positions.
    """
    from benchmarks.plus.public_dataset import is_hub_record, load_hub_plus

    if is_hub_record(_first(path)):
        return load_hub_plus(path)
    numbered, problems = read_jsonl_lines(path, PlusQuestion.from_dict)
    unique, repeated = unique_by_id([q for _, q in numbered], path, lines=[line for line, _ in numbered])
    return unique, problems + repeated


def read_plus_sheet(path: str | Path, *, model: str | None = None) -> tuple[list[PlusPrediction], list[Problem]]:
    """Plus predictions of a VLMEvalKit sheet of ReasonMap-Plus (``.xlsx``, ``.tsv``, ``.csv`` or ``.json``).

    VLMEvalKit's ``inference.py`` writes the data set's columns without
    ``image``, plus ``prediction``: ``id`` is the ``index`` column (the
    data set's position of the question, as the hub's ids are), the type the
    ``type`` column, the model the ``model`` option, else the file's stem
    without ``_ReasonMap-Plus``. Bad rows are reported and skipped.

    Raises
    ------
    InvalidRecord
        The sheet cannot be read at all, or has no ``prediction`` column.
    """
    from benchmarks.reasonmap.harnesses import sheet_model
    from benchmarks.reasonmap.sheets import read_sheet

    header, rows, problems = read_sheet(path)
    if rows and "prediction" not in header:
        raise InvalidRecord(f"{path}: no 'prediction' column (found {', '.join(header)})")
    name = model or sheet_model(path)
    label = str(path)
    predictions: list[PlusPrediction] = []
    for number, row in rows:
        column = "id" if row.get("id") not in (None, "") else "index"
        record = {
            "id": _position(row.get(column)),
            "model": name,
            "response": _cell(row.get("prediction")),
            "question": row.get("type") if row.get("type") in PLUS_TYPES else None,
        }
        try:
            predictions.append(PlusPrediction.from_dict(record, where=f"{label}:{number}"))
        except InvalidRecord as error:
            problems.append(Problem(label, number, str(error).removeprefix(f"{label}:{number}: ")))
    return predictions, sorted(problems, key=lambda problem: problem.line)


def _position(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():  # spreadsheets store integers as floats
        return int(value)
    return str(value).strip() if isinstance(value, str) and value.strip() else value


def _cell(value: Any) -> Any:
    """A prediction cell as text: empty for an empty cell (scored as invalid), a bare number as written."""
    if value is None or isinstance(value, float) and value != value:
        return ""
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value

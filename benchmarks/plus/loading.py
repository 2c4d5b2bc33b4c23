"""Reading ReasonMap-Plus files: questions (the toolkit's own JSON Lines, the hub's records as they are),
and VLMEvalKit's prediction sheets of its ``ReasonMap-Plus`` data set."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchmarks.errors import InvalidRecord
from benchmarks.harness_rows import collect_rows, question_id
from benchmarks.jsonl import Problem, first_record, read_jsonl, read_jsonl_lines, unique_by_id
from benchmarks.log_checks import Logged, Mismatch, field_mismatch, logged_fields, text_mismatch
from benchmarks.plus.records import PLUS_TYPES, PlusPrediction, PlusQuestion
from benchmarks.sheets import read_sheet, sheet_columns, sheet_model

__all__ = ["is_plus_file", "load_questions", "read_predictions", "read_plus_sheet", "is_plus_sheet", "check_plus_row"]


def _first(path: str | Path) -> Any:
    """The first record of a JSON Lines or parquet file (``None`` when there is none or it cannot be read)."""
    if Path(path).suffix != ".parquet":
        return first_record(path)
    from benchmarks.dataset_records import public_records

    try:
        return next((record for _, record in public_records(path)), None)
    except InvalidRecord:
        return None


def is_plus_file(path: str | Path) -> bool:
    """Whether the first record of a JSON Lines or parquet file is a plus question.

    Parameters
    ----------
    path : str or Path
        The file (``.parquet``, else JSON Lines).

    Returns
    -------
    bool
        True when its first record is an object with a plus ``type`` (False when it cannot be read).
    """
    first = _first(path)
    return isinstance(first, dict) and first.get("type") in PLUS_TYPES


def load_questions(path: str | Path) -> tuple[dict[str, PlusQuestion], list[Problem]]:
    """Plus questions of a JSON Lines file by id (a repeated id is reported; the first is used).

    A file of the hub's records (see :func:`~benchmarks.plus.public_dataset.is_hub_record`)
    is read as it is, its ids being the records' positions.

    Parameters
    ----------
    path : str or Path
        A JSON Lines file of the toolkit's plus questions, or the hub's records (JSON Lines, JSON or parquet).

    Returns
    -------
    questions : dict of str to PlusQuestion
        The questions by id, in file order.
    problems : list of Problem
        The records skipped, each with where and why.
    """
    from benchmarks.plus.public_dataset import is_hub_record, load_hub_plus

    if is_hub_record(_first(path)):
        return load_hub_plus(path)
    numbered, problems = read_jsonl_lines(path, PlusQuestion.from_dict)
    unique, repeated = unique_by_id([q for _, q in numbered], path, lines=[line for line, _ in numbered])
    return unique, problems + repeated


def read_predictions(path: str | Path) -> tuple[list[PlusPrediction], list[Problem]]:
    """The prediction rows of a JSON Lines file, and the records skipped (VLMEvalKit sheets: :func:`read_plus_sheet`).

    Parameters
    ----------
    path : str or Path
        A JSON Lines file of ``{id, model, response, ...}`` rows, ``question`` a plus type or absent.

    Returns
    -------
    predictions : list of PlusPrediction
        The rows read, in file order.
    problems : list of Problem
        The records skipped, each with its line and why.
    """
    return read_jsonl(path, PlusPrediction.from_dict)


def read_plus_sheet(
    path: str | Path, *, model: str | None = None, questions: Mapping[str, PlusQuestion] | None = None
) -> tuple[list[PlusPrediction], list[Problem]]:
    """Plus predictions of a VLMEvalKit sheet of ReasonMap-Plus (``.xlsx``, ``.tsv``, ``.csv`` or ``.json``).

    VLMEvalKit's ``inference.py`` writes the data set's columns without
    ``image``, plus ``prediction``: ``id`` is the ``index`` column (the
    data set's position of the question, as the hub's ids are), the type the
    ``type`` column, the model the ``model`` option, else the file's stem
    without ``_ReasonMap-Plus``; an ``id`` cell is read without its surrounding
    spaces (an empty one, or ``true``/``false``, is a bad row), a ``type`` cell that is no plus type as
    no type. Bad rows are reported and skipped
    (unchecked). Scoring and ``reasonmap predictions`` both read sheets so. With
    ``questions`` (by id), each row's ``question`` (the prompt VLMEvalKit's
    ``build_prompt`` sent), ``type`` and ``city`` cells are checked against the
    question it is matched to (:func:`check_plus_row`).

    Parameters
    ----------
    path : str or Path
        The sheet.
    model : str, optional
        The model (default: the file's stem without ``_ReasonMap-Plus``).
    questions : mapping of str to PlusQuestion, optional
        The questions by id, to check each row against.

    Returns
    -------
    predictions : list of PlusPrediction
        The readable rows' predictions, in order.
    problems : list of Problem
        The rows skipped and why, by line.

    Raises
    ------
    InvalidRecord
        The sheet cannot be read at all, has no ``prediction`` column, or a row was not made
        from the question it is matched to.
    """
    header, rows, unreadable = read_sheet(path)
    if rows and "prediction" not in header:
        raise InvalidRecord(f"{path}: no 'prediction' column (found {', '.join(header)})")
    name = model or sheet_model(path)
    known = questions or {}

    def build(row: dict[str, Any], where: str) -> PlusPrediction:
        column = "id" if row.get("id") not in (None, "") else "index"
        record = {
            "id": question_id(_position(row.get(column)), column, where),  # an empty or true/false cell: refused
            "model": name,
            "response": _cell(row.get("prediction")),
            "question": row.get("type") if row.get("type") in PLUS_TYPES else None,
        }
        prediction = PlusPrediction.from_dict(record, where=where)  # a bad row is skipped, not checked
        check_plus_row(known, prediction.id, row, where)
        return prediction

    try:
        predictions, problems = collect_rows(rows, build, str(path))
    except Mismatch as mismatch:
        raise InvalidRecord(str(mismatch)) from None
    return predictions, sorted([*unreadable, *problems], key=lambda problem: problem.line)


def is_plus_sheet(path: str | Path, source: str = "vlmevalkit") -> bool:
    """Whether a prediction file is a VLMEvalKit sheet of ReasonMap-Plus: a ``type`` column and no ``kind`` one.

    Only the sheet's columns are read (:func:`benchmarks.sheets.sheet_columns`); a sheet whose columns cannot
    be read is not claimed (the route reader then names what is wrong with it).

    Parameters
    ----------
    path : str or Path
        The file.
    source : str, optional
        The harness that wrote it (only ``vlmevalkit`` writes sheets).

    Returns
    -------
    bool
        True for a sheet of ReasonMap-Plus.
    """
    if source != "vlmevalkit":
        return False
    try:
        columns = sheet_columns(path)
    except InvalidRecord:
        return False
    return "type" in columns and "kind" not in columns


def check_plus_row(questions: Mapping[str, PlusQuestion], identifier: str, row: Mapping[str, Any], where: str) -> None:
    """Refuse a sheet's row whose ``question``, ``type`` or ``city`` is not that of the question it is matched to.

    Parameters
    ----------
    questions : mapping of str to PlusQuestion
        The questions by id (a row whose id is not among them is not checked).
    identifier : str
        The row's question id.
    row : mapping
        The sheet's row (an empty ``question`` cell is not compared).
    where : str
        Where the row is, as the error names it.

    Raises
    ------
    Mismatch
        The row disagrees (one line: the row, the field, what the sheet says and what the question says);
        not an :class:`~benchmarks.errors.InvalidRecord`, so that no handler of bad rows skips it: the
        caller refuses the sheet.
    """

    question = questions.get(identifier)
    if question is None:
        return
    prompt = row.get("question")
    logged = Logged(
        (prompt,) if isinstance(prompt, str) and prompt.strip() else (), logged_fields(row, ("type", "city"))
    )
    found = _mismatch(question, logged)
    if found is not None:
        raise Mismatch(
            f"{where}: not made from the question it is matched to ({identifier!r}): {found};"
            " pass the question file the sheet was made from"
        )


def _position(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():  # spreadsheets store integers as floats
        return int(value)
    return str(value).strip() if isinstance(value, str) and value.strip() else value


def _cell(value: Any) -> Any:
    """A prediction cell as text: empty for an empty cell (scored as invalid), a bare number as written."""
    if value is None or isinstance(value, float) and value != value:
        return ""
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def _mismatch(question: PlusQuestion, logged: Logged) -> str | None:
    """How a row's record disagrees with the plus question it is matched to; ``None`` when it agrees."""
    if found := field_mismatch(logged, {"type": question.type, "city": question.city}):
        return found
    for prompt in logged.prompts:
        if found := text_mismatch("the prompt", prompt, question.question):
            return found
    return None

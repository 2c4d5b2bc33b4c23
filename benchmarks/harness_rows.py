"""Rows of another harness's file, built one by one: the cells every task's readers take in the same way.

A reader of lmms-eval's logs, VLMEvalKit's sheets or Inspect's logs maps each
raw row onto its task's prediction with :func:`collect_rows`; a row that cannot
be built is reported (file, row, what is wrong) and skipped, the others kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import Problem

__all__ = ["cell_text", "question_id", "collect_rows"]

T = TypeVar("T")


def cell_text(value: Any, name: str, where: str) -> str:
    """A response cell: text, or empty for a missing answer (scored as invalid, not dropped)."""
    if value is None or isinstance(value, float) and value != value:  # an empty spreadsheet cell
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):  # a bare number, as a spreadsheet keeps it
        return str(value)
    if not isinstance(value, str):
        raise InvalidRecord(f"{where}: field {name!r} must be text, got {type(value).__name__}")
    return value


def question_id(value: Any, name: str, where: str) -> str:
    """A question id cell: text or an integer (a spreadsheet's ``3.0`` read as ``3``).

    Raises
    ------
    InvalidRecord
        The cell is empty or not an id.
    """
    if isinstance(value, float) and value.is_integer():  # spreadsheets store integers as floats
        value = int(value)
    if value is None or isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        raise InvalidRecord(f"{where}: field {name!r} must be a question id, got {value!r:.40}")
    return str(value)


def collect_rows(
    items: Iterable[tuple[int, Any]], build: Callable[[Any, str], T], label: str
) -> tuple[list[T], list[Problem]]:
    """``build(item, where)`` for each ``(number, item)``; a bad item is reported under its number and skipped."""
    predictions: list[T] = []
    problems: list[Problem] = []
    for number, item in items:
        where = f"{label}:{number}"
        try:
            predictions.append(build(item, where))
        except InvalidRecord as error:
            problems.append(Problem(label, number, str(error).removeprefix(f"{where}: ")))
    return predictions, problems

"""Rows of another harness's file, built one by one: the cells every task's readers take in the same way.

A reader of lmms-eval's logs, VLMEvalKit's sheets or Inspect's logs maps each
raw row onto its task's prediction with :func:`collect_rows`; a row that cannot
be built is reported (file, row, what is wrong) and skipped, the others kept.
:func:`harness_files` names the files a run left: lmms-eval writes one
per-sample log per task, so a ReasonMap run's short and long answers are two
files in the model's folder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import Problem
from benchmarks.lmms_eval_logs import LMMS_EVAL_SAMPLES

__all__ = ["cell_text", "question_id", "collect_rows", "harness_files"]

T = TypeVar("T")


def cell_text(value: Any, name: str, where: str) -> str:
    """A response cell: text, or empty for a missing answer (scored as invalid, not dropped).

    Parameters
    ----------
    value : Any
        The cell.
    name : str
        Its column, for the message.
    where : str
        Its row, for the message.

    Returns
    -------
    str

    Raises
    ------
    InvalidRecord
        The cell is neither text nor empty.
    """
    if value is None or isinstance(value, float) and value != value:  # an empty spreadsheet cell
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):  # a bare number, as a spreadsheet keeps it
        return str(value)
    if not isinstance(value, str):
        raise InvalidRecord(f"{where}: field {name!r} must be text, got {type(value).__name__}")
    return value


def question_id(value: Any, name: str, where: str) -> str:
    """A question id cell: text or an integer (a spreadsheet's ``3.0`` read as ``3``).

    Parameters
    ----------
    value : Any
        The cell.
    name : str
        Its column, for the message.
    where : str
        Its row, for the message.

    Returns
    -------
    str
        The id as text.

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
    """``build(item, where)`` for each ``(number, item)``; a bad item is reported under its number and skipped.

    Parameters
    ----------
    items : iterable of (int, Any)
        Numbered raw rows.
    build : callable
        ``build(item, where) -> record``; raises :class:`~benchmarks.errors.InvalidRecord` for a bad one.
    label : str
        The file, for the problems.

    Returns
    -------
    records : list
        The good rows' records, in order.
    problems : list of Problem
        The rows skipped.
    """
    predictions: list[T] = []
    problems: list[Problem] = []
    for number, item in items:
        where = f"{label}:{number}"
        try:
            predictions.append(build(item, where))
        except InvalidRecord as error:
            problems.append(Problem(label, number, str(error).removeprefix(f"{where}: ")))
    return predictions, problems


def harness_files(paths: str | Path | Sequence[str | Path], source: str) -> tuple[str | Path, ...]:
    """The prediction files given: each file as it is, and for ``lmms-eval`` a folder's per-sample logs.

    A folder given with ``source`` ``lmms-eval`` stands for the
    :data:`~benchmarks.lmms_eval_logs.LMMS_EVAL_SAMPLES` files in it (sorted by name: a run's short and
    long tasks each write one). A file is named as given, so that
    one file reads and reports exactly as before.

    Parameters
    ----------
    paths : str, Path or sequence of them
        The files (or folders) given.
    source : str
        The harness (``--from``).

    Returns
    -------
    tuple of str or Path
        The files to read, in order.

    Raises
    ------
    InvalidRecord
        No file is given, a folder holds no per-sample log, or a folder is given for another source.

    Examples
    --------
    >>> harness_files("run/model.jsonl", "jsonl")
    ('run/model.jsonl',)
    """
    given = (paths,) if isinstance(paths, str | Path) else tuple(paths)
    if not given:
        raise InvalidRecord("no prediction file given")
    files: list[str | Path] = []
    for path in given:
        if not Path(path).is_dir():
            files.append(path)
            continue
        if source != "lmms-eval":
            raise InvalidRecord(f"{path}: a folder (only --from lmms-eval reads a folder: its per-sample logs)")
        found = sorted(Path(path).glob(LMMS_EVAL_SAMPLES))
        if not found:
            raise InvalidRecord(f"{path}: no lmms-eval per-sample log ({LMMS_EVAL_SAMPLES}) in this folder")
        files.extend(found)
    return tuple(files)

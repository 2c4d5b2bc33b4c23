"""Predictions written by other evaluation harnesses, read as the toolkit's prediction rows.

A user who ran ReasonMap elsewhere keeps the files that harness wrote and
gets the toolkit's scorer, reports and diagnosis from them. Each reader maps a
file onto :class:`~benchmarks.reasonmap.records.Prediction` rows
(``id, model, question, response, tokens``):

``lmms-eval``
    A per-sample log (``--log_samples``: ``<model>/<date>_samples_<task>.jsonl``),
    one JSON object per document. ``id`` is the logged document's ``id`` when
    it has one, else ``doc_id`` (its position in the data set: the id the
    toolkit gives the public data set's records); ``response`` is the first
    of ``filtered_resps`` (else of ``resps``); the kind is the document's
    ``kind``, else the task name's ending (``..._short`` / ``..._long``), else
    the ``kind`` option; the model is the ``model`` option, else the folder's name.
``vlmevalkit``
    A prediction sheet (``<model>_<dataset>.xlsx``, or ``.tsv`` / ``.csv``),
    one row per question, with a header row. ``id`` is the ``id`` column when
    there is one, else ``index``; ``response`` is ``prediction``; the kind is
    the ``kind`` column, else the ``kind`` option; the model is the ``model``
    option, else the file's stem. ``.xlsx`` needs openpyxl.
``inspect``
    An Inspect eval log (``.eval`` or ``.json``), read with Inspect itself.
    ``id`` and the kind are the sample's ``id`` and ``kind`` metadata (as
    :mod:`reasonmap.inspect_tasks` writes them), else its id ``<id>:<kind>``,
    else the id and the ``kind`` option; ``response`` is the output's
    completion (``""`` for a sample that errored); ``tokens`` its output
    tokens; the model is the ``model`` option, else the log's model. Each
    epoch is an answer: the first counts, the repeats are reported.

Rows that cannot be read are reported (file, row, what is wrong) and skipped;
every good row is kept. A file that cannot be read at all raises.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import Problem, read_jsonl
from benchmarks.reasonmap.loading import read_predictions
from benchmarks.reasonmap.records import KINDS, Prediction

__all__ = [
    "SOURCES",
    "read_harness_predictions",
    "read_lmms_eval",
    "read_vlmevalkit",
    "read_inspect_log",
    "convert_predictions",
]

#: Where predictions may come from: the toolkit's own JSON Lines, or another harness's files.
SOURCES: tuple[str, ...] = ("jsonl", "lmms-eval", "vlmevalkit", "inspect")

_TASK_KIND = re.compile(r"(?:^|[_\-.])(short|long)$")
_SAMPLES_FILE = re.compile(r"samples_(?P<task>.+)$")


def _kind(found: Any, fallback: str | None, where: str) -> str:
    kind = found if found is not None else fallback
    if kind not in KINDS:
        if kind is None:
            raise InvalidRecord(f"{where}: cannot tell a short from a long answer (pass the kind: --kind short|long)")
        raise InvalidRecord(f"{where}: the kind must be one of {list(KINDS)}, got {kind!r:.40}")
    return kind


def _text(value: Any, name: str, where: str) -> str:
    """A response cell: text, or empty for a missing answer (scored as invalid, not dropped)."""
    if value is None or isinstance(value, float) and value != value:  # an empty spreadsheet cell
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):  # a bare number, as a spreadsheet keeps it
        return str(value)
    if not isinstance(value, str):
        raise InvalidRecord(f"{where}: field {name!r} must be text, got {type(value).__name__}")
    return value


def _identifier(value: Any, name: str, where: str) -> str:
    if isinstance(value, float) and value.is_integer():  # spreadsheets store integers as floats
        value = int(value)
    if value is None or isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        raise InvalidRecord(f"{where}: field {name!r} must be a question id, got {value!r:.40}")
    return str(value)


def _collect(
    items: Iterable[tuple[int, Any]], build: Callable[[Any, str], Prediction], label: str
) -> tuple[list[Prediction], list[Problem]]:
    """``build(item, where)`` for each ``(number, item)``; a bad item is reported under its number and skipped."""
    predictions: list[Prediction] = []
    problems: list[Problem] = []
    for number, item in items:
        where = f"{label}:{number}"
        try:
            predictions.append(build(item, where))
        except InvalidRecord as error:
            problems.append(Problem(label, number, str(error).removeprefix(f"{where}: ")))
    return predictions, problems


# -- lmms-eval -------------------------------------------------------------------------------


def _first_response(record: Mapping[str, Any], where: str) -> str:
    for name in ("filtered_resps", "resps"):
        value = record.get(name)
        while isinstance(value, list) and value:  # resps nest one list per request
            value = value[0]
        if isinstance(value, str):
            return value
        if value is not None and value != []:
            raise InvalidRecord(f"{where}: field {name!r} must hold the response text")
    raise InvalidRecord(f"{where}: no response (fields 'filtered_resps' and 'resps' are missing or empty)")


def read_lmms_eval(
    path: str | Path, *, model: str | None = None, kind: str | None = None
) -> tuple[list[Prediction], list[Problem]]:
    """Prediction rows of an lmms-eval per-sample log (see the module notes for the mapping).

    Raises
    ------
    InvalidRecord
        The file cannot be read.
    """
    path = Path(path)
    name = model or path.resolve().parent.name
    task = _SAMPLES_FILE.search(path.stem)
    task_kind = _TASK_KIND.search(task.group("task")) if task else None
    fallback = kind or (task_kind.group(1) if task_kind else None)

    def parse(record: Any, *, where: str) -> Prediction:
        if not isinstance(record, Mapping):
            raise InvalidRecord(f"{where}: a sample must be a JSON object")
        doc = record.get("doc") if isinstance(record.get("doc"), Mapping) else {}
        identifier = _identifier(doc["id"], "doc.id", where) if "id" in doc else None
        if identifier is None:
            identifier = _identifier(record.get("doc_id"), "doc_id", where)
        return Prediction(identifier, name, _kind(doc.get("kind"), fallback, where), _first_response(record, where))

    return read_jsonl(path, parse)


# -- VLMEvalKit ------------------------------------------------------------------------------


def _sheet_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """``(row number, {column: cell})`` of the first sheet's rows under its header row; blank rows left out."""
    if path.suffix.lower() == ".xlsx":
        try:
            import openpyxl
        except ImportError:
            raise InvalidRecord(
                f"{path}: reading .xlsx needs openpyxl (pip install 'reasonmap-toolkit[xlsx]')"
            ) from None
        try:
            book = openpyxl.load_workbook(path, read_only=True, data_only=True)
        except Exception as error:  # openpyxl raises many kinds on a broken file
            raise InvalidRecord(f"{path}: not a readable .xlsx file ({error})") from None
        try:
            rows = list(book.worksheets[0].iter_rows(values_only=True))
        finally:
            book.close()
        if not rows:
            return []
        header = [str(cell) if cell is not None else "" for cell in rows[0]]
        return [
            (number, dict(zip(header, row)))
            for number, row in enumerate(rows[1:], start=2)
            if any(cell is not None for cell in row)
        ]
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    try:
        with open(path, encoding="utf-8", newline="") as stream:
            reader = csv.DictReader(stream, delimiter=delimiter)
            return [(reader.line_num, row) for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise InvalidRecord(f"{path}: cannot read the prediction sheet ({error})") from None


def read_vlmevalkit(
    path: str | Path, *, model: str | None = None, kind: str | None = None
) -> tuple[list[Prediction], list[Problem]]:
    """Prediction rows of a VLMEvalKit prediction sheet (see the module notes for the mapping).

    Raises
    ------
    InvalidRecord
        The file cannot be read, has no ``prediction`` column, or is ``.xlsx`` without openpyxl.
    """
    path = Path(path)
    if not path.is_file():
        raise InvalidRecord(f"{path}: no such file")
    rows = _sheet_rows(path)
    if rows and "prediction" not in rows[0][1]:
        raise InvalidRecord(f"{path}: no 'prediction' column (found {', '.join(map(str, rows[0][1]))})")
    name = model or path.stem

    def build(row: dict[str, Any], where: str) -> Prediction:
        column = "id" if row.get("id") not in (None, "") else "index"
        identifier = _identifier(row.get(column), column, where)
        chosen = row.get("kind") if row.get("kind") not in (None, "") else None
        return Prediction(
            identifier, name, _kind(chosen, kind, where), _text(row.get("prediction"), "prediction", where)
        )

    return _collect(rows, build, str(path))


# -- Inspect ---------------------------------------------------------------------------------


def read_inspect_log(
    path: str | Path, *, model: str | None = None, kind: str | None = None
) -> tuple[list[Prediction], list[Problem]]:
    """Prediction rows of an Inspect eval log (see the module notes for the mapping).

    Raises
    ------
    InvalidRecord
        The log cannot be read, or Inspect is not installed.
    """
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise InvalidRecord(
            f"{path}: reading Inspect logs needs inspect-ai (pip install 'reasonmap-toolkit[inspect]')"
        ) from None
    try:
        log = read_eval_log(str(path))
    except Exception as error:  # Inspect raises many kinds on a missing or broken log
        raise InvalidRecord(f"{path}: not a readable Inspect log ({error})") from None
    name = model or log.eval.model

    def build(sample: Any, where: str) -> Prediction:
        metadata = sample.metadata or {}
        identifier, found = metadata.get("id"), metadata.get("kind")
        if identifier is None:
            identifier = sample.id
            head, _, tail = str(sample.id).rpartition(":")
            if head and tail in KINDS:
                identifier, found = head, found or tail
        output = sample.output
        response = "" if sample.error is not None or output is None else output.completion
        usage = output.usage if output is not None else None
        tokens = usage.output_tokens if usage is not None else None
        return Prediction(_identifier(identifier, "id", where), name, _kind(found, kind, where), response, tokens)

    # numbered from 1 in the log's order
    return _collect(enumerate(log.samples or [], start=1), build, str(path))


_READERS: dict[str, Callable[..., tuple[list[Prediction], list[Problem]]]] = {
    "lmms-eval": read_lmms_eval,
    "vlmevalkit": read_vlmevalkit,
    "inspect": read_inspect_log,
}


def read_harness_predictions(
    path: str | Path, source: str = "jsonl", *, model: str | None = None, kind: str | None = None
) -> tuple[list[Prediction], list[Problem]]:
    """Prediction rows of a file written by ``source`` (one of :data:`SOURCES`).

    ``model`` and ``kind`` fill in what the harness's files do not say (see
    the module notes); the toolkit's own rows (``jsonl``) say both.

    Raises
    ------
    ValueError
        ``source`` is not one of :data:`SOURCES`, or ``kind`` is not ``short`` or ``long``.
    InvalidRecord
        The file cannot be read.
    """
    if source not in SOURCES:
        raise ValueError(f"source must be one of {list(SOURCES)}, got {source!r}")
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    if source == "jsonl":
        return read_predictions(path)
    return _READERS[source](path, model=model, kind=kind)


def convert_predictions(
    path: str | Path, source: str, out: str | Path, *, model: str | None = None, kind: str | None = None
) -> tuple[int, list[Problem]]:
    """Write another harness's predictions as the toolkit's JSON Lines rows (for ``diagnose`` and the rest).

    Returns the count written and the rows skipped (see :func:`read_harness_predictions`).
    """
    from benchmarks.jsonl import write_jsonl

    predictions, problems = read_harness_predictions(path, source, model=model, kind=kind)
    return write_jsonl(out, predictions), problems

"""Predictions written by other evaluation harnesses, read as the toolkit's prediction rows.

A user who ran ReasonMap elsewhere keeps the files that harness wrote and
gets the toolkit's scorer, reports and diagnosis from them. Each reader maps a
file onto :class:`~benchmarks.reasonmap.records.Prediction` rows
(``id, model, question, response, tokens, repeat``); several answers to one
request (lmms-eval ``repeats``, Inspect epochs) are kept, numbered by ``repeat``.

``lmms-eval``
    A per-sample log (``--log_samples``: ``<model>/<date>_samples_<task>.jsonl``),
    one JSON object per document, as its evaluation tracker writes it in every
    version since 0.3 (``doc`` and ``arguments`` dropped since 0.4; a single
    response a plain string, and ``token_counts``, since 0.7). ``id`` is the
    logged document's ``id`` when the row keeps the document and it has one;
    else ``doc_id``, the document's position in the data set lmms-eval
    iterated, matched to the question at that position in the question file
    given (the public data set's order gives its own ids), and refused when
    the file holds fewer questions than the log names. The responses are
    ``resps`` (the raw outputs: every repeat, think tags kept), else
    ``filtered_resps``; ``tokens`` the output tokens of ``token_counts``; the
    kind is the document's ``kind``, else the task name's ending
    (``..._short`` / ``..._long``), else the ``kind`` option; the model is the
    ``model`` option, else the folder's name.
``vlmevalkit``
    A prediction sheet (``<model>_<dataset>.xlsx``, ``.tsv`` or ``.json``, as
    ``PRED_FORMAT`` chooses; ``.csv`` too) read by :mod:`benchmarks.reasonmap.sheets`:
    the data set's columns, ``image`` removed, plus ``prediction``. ``id`` is
    the ``id`` column when there is one, else ``index``; ``response`` is
    ``prediction``; the kind is the ``kind`` column, else the ``kind`` option;
    the model is the ``model`` option, else the file's stem without its
    ``_<dataset>`` ending. A sheet of ReasonMap-Plus (a ``type`` column) is
    read by the plus task (:func:`benchmarks.plus.loading.read_plus_predictions`).
``inspect``
    An Inspect eval log (``.eval`` or ``.json``), read with Inspect's own
    models. A log whose run did not finish (status ``error``, ``cancelled`` or
    ``started``) is refused, naming the status and the first error, unless
    ``partial`` asks for its finished samples. ``id`` and the kind are the
    sample's ``id`` and ``kind`` metadata (as :mod:`reasonmap.inspect_tasks`
    writes them), else its id ``<id>:<kind>``, else the id and the ``kind``
    option; ``response`` is the output's completion, ``tokens`` its output
    tokens, ``repeat`` the epoch less one; the model is the ``model`` option,
    else the log's model. A sample that errored is reported and skipped (Inspect
    scores it neither). A sample over :data:`MAX_SAMPLE_BYTES` unpacked is reported and
    skipped without being read.

Rows that cannot be read are reported (file, row, what is wrong) and skipped;
every good row is kept. A file that cannot be read at all raises.
"""

from __future__ import annotations

import importlib.util
import os
import re
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import MAX_LINE_BYTES, Note, PartialRun, Problem, open_regular, read_jsonl
from benchmarks.reasonmap.loading import read_predictions
from benchmarks.reasonmap.records import KINDS, Prediction
from benchmarks.reasonmap.sheets import MAX_SHEET_BYTES, read_sheet
from graphkit.choices import check_choice

__all__ = [
    "SOURCES",
    "MAX_SAMPLE_BYTES",
    "read_harness_predictions",
    "read_lmms_eval",
    "read_vlmevalkit",
    "read_inspect_log",
    "sheet_model",
    "convert_predictions",
]

#: Where predictions may come from: the toolkit's own JSON Lines, or another harness's files.
SOURCES: tuple[str, ...] = ("jsonl", "lmms-eval", "vlmevalkit", "inspect")
#: The largest Inspect sample read (unpacked); an answer of the benchmarks is far smaller.
MAX_SAMPLE_BYTES = MAX_LINE_BYTES

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


def _responses(record: Mapping[str, Any], where: str) -> list[str]:
    """Every answer a row holds: ``resps`` (raw, all repeats), else ``filtered_resps``, in any version's nesting."""
    for name in ("resps", "filtered_resps"):
        if name not in record:
            continue
        value = record[name]
        while isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
            value = value[0]  # up to 0.6 one list per request: [[answer, ...]]
        if isinstance(value, str):
            return [value]  # 0.7: a single response is a plain string
        if isinstance(value, list) and value and all(isinstance(answer, str) for answer in value):
            return list(value)
        if value is not None and value != []:
            raise InvalidRecord(f"{where}: field {name!r} must hold the response text")
    raise InvalidRecord(f"{where}: no response (fields 'resps' and 'filtered_resps' are missing or empty)")


def _output_tokens(record: Mapping[str, Any]) -> int | None:
    counts = record.get("token_counts")  # 0.7: one entry per request, the first answer's counts
    first = counts[0] if isinstance(counts, list) and counts else None
    tokens = first.get("output_tokens") if isinstance(first, Mapping) else None
    return tokens if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 0 else None


def _doc_id(record: Mapping[str, Any], where: str) -> int:
    value = record.get("doc_id")
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidRecord(f"{where}: field 'doc_id' must be a position (a non-negative integer), got {value!r:.40}")
    return value


def read_lmms_eval(
    path: str | Path, *, model: str | None = None, kind: str | None = None, positions: Sequence[str] = ()
) -> tuple[list[Prediction], list[Problem]]:
    """Prediction rows of an lmms-eval per-sample log (see the module notes for the mapping).

    ``positions`` are the question file's ids in order: a row without its
    document is the question at position ``doc_id``. Without them ``doc_id``
    is the id (the public data set's). The problems returned begin with a
    :class:`~benchmarks.jsonl.Note` saying how rows were matched.

    Raises
    ------
    InvalidRecord
        The file cannot be read, or names a position the question file does not hold.
    """
    path = Path(path)
    name = model or path.resolve().parent.name
    task = _SAMPLES_FILE.search(path.stem)
    task_kind = _TASK_KIND.search(task.group("task")) if task else None
    fallback = kind or (task_kind.group(1) if task_kind else None)
    by_document, by_position, last = 0, 0, -1

    def parse(record: Any, *, where: str) -> list[Prediction]:
        nonlocal by_document, by_position, last
        if not isinstance(record, Mapping):
            raise InvalidRecord(f"{where}: a sample must be a JSON object")
        doc = record.get("doc") if isinstance(record.get("doc"), Mapping) else {}
        found = _kind(doc.get("kind"), fallback, where)
        answers = _responses(record, where)
        if "id" in doc:  # up to 0.3 the row keeps its document
            identifier = _identifier(doc["id"], "doc.id", where)
            by_document += 1
        else:
            position = _doc_id(record, where)
            identifier = str(position)
            if positions:
                if position >= len(positions):
                    raise _Unmatched(position)
                identifier = positions[position]
            by_position += 1
            last = max(last, position)
        tokens = _output_tokens(record)
        return [
            Prediction(identifier, name, found, answer, tokens if repeat == 0 else None, repeat)
            for repeat, answer in enumerate(answers)
        ]

    try:
        rows, problems = read_jsonl(path, parse)
    except _Unmatched as unmatched:
        raise InvalidRecord(
            f"{path}: doc_id {unmatched.position} names question {unmatched.position + 1}, but the question file"
            f" holds {len(positions)}: the log was not made from this question file (pass the one lmms-eval iterated)"
        ) from None
    predictions = [prediction for row in rows for prediction in row]
    how = []
    if by_document:
        how.append(f"{by_document} rows by their logged document's id")
    if by_position:
        target = f"the question file ({len(positions)} questions)" if positions else "the public data set's ids"
        how.append(f"{by_position} rows by doc_id as a position (0 to {last}) in {target}")
    if how:
        problems.insert(0, Note(str(path), 0, "lmms-eval rows matched to questions: " + "; ".join(how)))
    return predictions, problems


class _Unmatched(Exception):
    """A row names a position past the question file's end: the whole log belongs to another file."""

    def __init__(self, position: int) -> None:
        super().__init__(position)
        self.position = position


# -- VLMEvalKit ------------------------------------------------------------------------------


def sheet_model(path: str | Path) -> str:
    """The model of a VLMEvalKit sheet ``<model>_<dataset>``: the stem without its ReasonMap data set's name."""
    stem = Path(path).stem
    head, found, _ = stem.rpartition("_ReasonMap")
    return head if found and head else stem


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
    header, rows, unreadable = read_sheet(path)
    if rows and "prediction" not in header:
        raise InvalidRecord(f"{path}: no 'prediction' column (found {', '.join(header)})")
    name = model or sheet_model(path)

    def build(row: dict[str, Any], where: str) -> Prediction:
        column = "id" if row.get("id") not in (None, "") else "index"
        identifier = _identifier(row.get(column), column, where)
        chosen = row.get("kind") if row.get("kind") not in (None, "") else None
        return Prediction(
            identifier, name, _kind(chosen, kind, where), _text(row.get("prediction"), "prediction", where)
        )

    predictions, problems = _collect(rows, build, str(path))
    return predictions, sorted([*unreadable, *problems], key=lambda problem: problem.line)


def _plus_rows(path: Path, model: str | None) -> tuple[list[dict[str, Any]], list[Problem]] | None:
    """A ReasonMap-Plus sheet's rows in the plus task's prediction shape; ``None`` for a route sheet."""
    header, rows, unreadable = read_sheet(path)
    if "type" not in header or "kind" in header:
        return None
    if "prediction" not in header:
        raise InvalidRecord(f"{path}: no 'prediction' column (found {', '.join(header)})")
    name = model or sheet_model(path)

    def build(row: dict[str, Any], where: str) -> dict[str, Any]:
        column = "id" if row.get("id") not in (None, "") else "index"
        kind = row.get("type")
        return {
            "id": _identifier(row.get(column), column, where),
            "model": name,
            "question": kind if isinstance(kind, str) and kind else None,
            "response": _text(row.get("prediction"), "prediction", where),
            "tokens": None,
        }

    records, problems = _collect(rows, build, str(path))  # type: ignore[arg-type]
    return records, sorted([*unreadable, *problems], key=lambda problem: problem.line)


# -- Inspect ---------------------------------------------------------------------------------

_UNFINISHED = ("error", "cancelled", "started")
_SAMPLE_MEMBER = re.compile(r"samples/.+\.json")


def _first_line(text: Any) -> str:
    return str(text).strip().splitlines()[0][:300] if str(text).strip() else ""


def _eval_samples(path: Path, label: str) -> tuple[Any, list[tuple[int, Any]], list[Problem]]:
    """The header and the samples of an ``.eval`` archive, each sample unpacked only when within the bound."""
    from inspect_ai.log import EvalSample, read_eval_log

    problems: list[Problem] = []
    samples: list[tuple[int, Any]] = []
    with open_regular(path, "Inspect (.eval or .json) log") as handle:
        try:
            archive = zipfile.ZipFile(handle)
            members = archive.infolist()
            others = [m for m in members if not _SAMPLE_MEMBER.fullmatch(m.filename)]
            if sum(member.file_size for member in others) > MAX_SHEET_BYTES:
                raise InvalidRecord(f"{label}: its header parts unpack to over {MAX_SHEET_BYTES:,} bytes")
            handle.seek(0)
            log = read_eval_log(handle, header_only=True)
            number = 0
            for member in members:
                if not _SAMPLE_MEMBER.fullmatch(member.filename):
                    continue
                number += 1
                if member.file_size > MAX_SAMPLE_BYTES:
                    problems.append(
                        Problem(
                            label,
                            number,
                            f"{member.filename} unpacks to {member.file_size:,} bytes, over"
                            f" the {MAX_SAMPLE_BYTES:,} a sample may hold; not read",
                        )
                    )
                    continue
                samples.append((number, EvalSample.model_validate_json(archive.read(member))))
        except InvalidRecord:
            raise
        except Exception as error:  # zipfile, pydantic and Inspect raise many kinds on a broken log
            raise InvalidRecord(f"{label}: not a readable Inspect log ({type(error).__name__}: {error})") from None
    return log, samples, problems


def _json_log(path: Path, label: str) -> tuple[Any, list[tuple[int, Any]], list[Problem]]:
    from inspect_ai.log import read_eval_log

    with open_regular(path, "Inspect (.eval or .json) log") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_SHEET_BYTES:
            raise InvalidRecord(f"{label}: {size:,} bytes, over the {MAX_SHEET_BYTES:,} an Inspect log is read to")
        try:
            log = read_eval_log(handle, format="json")
        except Exception as error:  # Inspect raises many kinds on a broken log
            raise InvalidRecord(f"{label}: not a readable Inspect log ({type(error).__name__}: {error})") from None
    return log, list(enumerate(log.samples or [], start=1)), []


def read_inspect_log(
    path: str | Path, *, model: str | None = None, kind: str | None = None, partial: bool = False
) -> tuple[list[Prediction], list[Problem]]:
    """Prediction rows of an Inspect eval log (see the module notes for the mapping).

    Raises
    ------
    InvalidRecord
        The log cannot be read, its run did not finish (unless ``partial``), or Inspect is not installed.
    """
    if importlib.util.find_spec("inspect_ai") is None:  # found, not imported: that takes seconds, done when read
        raise InvalidRecord(f"{path}: reading Inspect logs needs inspect-ai (pip install 'reasonmap-toolkit[inspect]')")
    path, label = Path(path), str(path)
    with open_regular(path, "Inspect (.eval or .json) log") as handle:
        archived = handle.read(4) == b"PK\x03\x04"
    log, samples, problems = (_eval_samples if archived else _json_log)(path, label)
    if log.status in _UNFINISHED and not partial:
        error = _first_line(log.error.message) if log.error is not None else "no error recorded"
        raise InvalidRecord(
            f"{label}: the run ended with status {log.status!r} ({error}); pass --partial to score the samples"
            " it finished"
        )
    name = model or log.eval.model

    def build(sample: Any, where: str) -> Prediction:
        if sample.error is not None:
            raise InvalidRecord(f"{where}: the sample errored ({_first_line(sample.error.message)}); not scored")
        metadata = sample.metadata or {}
        identifier, found = metadata.get("id"), metadata.get("kind")
        if identifier is None:
            identifier = sample.id
            head, _, tail = str(sample.id).rpartition(":")
            if head and tail in KINDS:
                identifier, found = head, found or tail
        output = sample.output
        response = output.completion if output is not None else ""
        usage = output.usage if output is not None else None
        tokens = usage.output_tokens if usage is not None else None
        repeat = max(int(sample.epoch or 1) - 1, 0)
        return Prediction(
            _identifier(identifier, "id", where), name, _kind(found, kind, where), response, tokens, repeat
        )

    predictions, bad = _collect(samples, build, label)
    if log.status in _UNFINISHED:  # --partial: the report says it holds part of a run
        shown = f"the run ended with status {log.status!r}; {len(samples)} samples read (partial)"
        problems.append(PartialRun(label, 0, shown, source="inspect", status=log.status, samples=len(samples)))
    return predictions, sorted([*problems, *bad], key=lambda problem: problem.line)


def read_harness_predictions(
    path: str | Path,
    source: str = "jsonl",
    *,
    model: str | None = None,
    kind: str | None = None,
    positions: Sequence[str] = (),
    partial: bool = False,
) -> tuple[list[Prediction], list[Problem]]:
    """Prediction rows of a file written by ``source`` (one of :data:`SOURCES`).

    ``model`` and ``kind`` fill in what the harness's files do not say (see
    the module notes); the toolkit's own rows (``jsonl``) say both.
    ``positions`` (the question file's ids in order) match lmms-eval's
    ``doc_id``; ``partial`` reads the finished samples of an Inspect run that failed.

    Raises
    ------
    ValueError
        ``source`` is not one of :data:`SOURCES`, or ``kind`` is not ``short`` or ``long``.
    InvalidRecord
        The file cannot be read.
    """
    check_choice(source, SOURCES, what="source")
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    if source == "jsonl":
        return read_predictions(path)
    if source == "lmms-eval":
        return read_lmms_eval(path, model=model, kind=kind, positions=positions)
    if source == "inspect":
        return read_inspect_log(path, model=model, kind=kind, partial=partial)
    return read_vlmevalkit(path, model=model, kind=kind)


def convert_predictions(
    path: str | Path,
    source: str,
    out: str | Path,
    *,
    model: str | None = None,
    kind: str | None = None,
    questions: str | Path | None = None,
    partial: bool = False,
) -> tuple[int, list[Problem]]:
    """Write another harness's predictions as the toolkit's JSON Lines rows (for ``diagnose`` and the rest).

    A VLMEvalKit sheet of ReasonMap-Plus gives plus rows (its ``type`` as the
    row's ``question``). ``questions`` is the file lmms-eval's ``doc_id``
    positions refer to. Returns the count written and the rows skipped (see
    :func:`read_harness_predictions`).
    """
    from benchmarks.jsonl import write_jsonl

    plus = _plus_rows(Path(path), model) if source == "vlmevalkit" else None
    if plus is not None:
        return write_jsonl(out, plus[0]), plus[1]
    positions: tuple[str, ...] = ()
    if questions is not None and source == "lmms-eval":
        from benchmarks.tasks import detect_task

        positions = tuple(detect_task(questions).load(questions).questions)
    predictions, problems = read_harness_predictions(
        path, source, model=model, kind=kind, positions=positions, partial=partial
    )
    return write_jsonl(out, predictions), problems

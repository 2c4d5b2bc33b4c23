"""Predictions written by other evaluation harnesses, read as the toolkit's prediction rows.

A user who ran ReasonMap elsewhere keeps the files that harness wrote and
gets the toolkit's scorer, reports and diagnosis from them. Each reader maps a
file onto :class:`~benchmarks.reasonmap.records.Prediction` rows
(``id, model, question, response, tokens, repeat``); several answers to one
request (lmms-eval ``repeats``, Inspect epochs) are kept, numbered by ``repeat``.

``lmms-eval``
    A per-sample log (``--log_samples``: ``<model>/<date>_samples_<task>.jsonl``),
    its rows read by :mod:`benchmarks.lmms_eval_logs`:
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
    ``PRED_FORMAT`` chooses; ``.csv`` too) read by :mod:`benchmarks.sheets`:
    the data set's columns, ``image`` removed, plus ``prediction``. ``id`` is
    the ``id`` column when there is one, else ``index``; ``response`` is
    ``prediction``; the kind is the ``kind`` column, else the ``kind`` option;
    the model is the ``model`` option, else the file's stem without its
    ``_<dataset>`` ending. A sheet of ReasonMap-Plus (a ``type`` column) is
    read by the plus task (:func:`benchmarks.plus.loading.read_plus_sheet`).
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
    scores it neither). A sample over :data:`benchmarks.inspect_logs.MAX_SAMPLE_BYTES` unpacked is reported and
    skipped without being read; so is a sample of an ``.eval`` archive that is not a readable
    sample (broken or too deeply nested JSON): the other samples are kept.

Rows that cannot be read are reported (file, row, what is wrong) and skipped;
every good row is kept. A file that cannot be read at all raises, and so does a
file with a row that was not made from the question it is matched to (given the
questions: :mod:`benchmarks.reasonmap.log_checks`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from benchmarks.errors import InvalidRecord
from benchmarks.harness_rows import cell_text, collect_rows, question_id
from benchmarks.inspect_logs import UNFINISHED, first_line, read_inspect_samples, sample_prompts
from benchmarks.jsonl import Note, PartialRun, Problem
from benchmarks.lmms_eval_logs import LmmsEvalRow, logged_task, read_lmms_eval_rows
from benchmarks.log_checks import Logged, Mismatch, logged_fields
from benchmarks.reasonmap.loading import read_predictions
from benchmarks.reasonmap.log_checks import ROUTE_FIELDS, RowChecks
from benchmarks.reasonmap.records import KINDS, Prediction
from benchmarks.sheets import read_sheet, sheet_model
from benchmarks.tasks import Reader, ReadOptions
from graphkit.choices import check_choice

__all__ = [
    "READERS",
    "SOURCES",
    "read_harness_predictions",
    "read_lmms_eval",
    "read_vlmevalkit",
    "read_inspect_log",
]


_TASK_KIND = re.compile(r"(?:^|[_\-.])(short|long)$")


def _kind(found: Any, fallback: str | None, where: str) -> str:
    kind = found if found is not None else fallback
    if kind not in KINDS:
        if kind is None:
            raise InvalidRecord(f"{where}: cannot tell a short from a long answer (pass the kind: --kind short|long)")
        raise InvalidRecord(f"{where}: the kind must be one of {list(KINDS)}, got {kind!r:.40}")
    return kind


# -- lmms-eval -------------------------------------------------------------------------------


def read_lmms_eval(
    path: str | Path,
    *,
    model: str | None = None,
    kind: str | None = None,
    positions: Sequence[str] = (),
    questions: Mapping[str, Any] | None = None,
) -> tuple[list[Prediction], list[Problem]]:
    """Prediction rows of an lmms-eval per-sample log (see the module notes for the mapping).

    ``positions`` are the question file's ids in order: a row without its
    document is the question at position ``doc_id``. Without them ``doc_id``
    is the id (the public data set's). Each row's ``input`` (the prompt) and ``doc``
    are checked against ``questions`` (route questions by id, in the file's order;
    their ids are the positions when none are given). The problems returned begin
    with a :class:`~benchmarks.jsonl.Note` saying how rows were matched and checked.

    Parameters
    ----------
    path : str or Path
        The per-sample log.
    model : str, optional
        The model (default: the log's folder's name).
    kind : str, optional
        The kind when neither the document nor the task name says it.
    positions : sequence of str, optional
        The question file's ids in order (default: the ids of ``questions``).
    questions : mapping, optional
        The route questions by id, in the file's order.

    Returns
    -------
    predictions : list of Prediction
        One per response (every repeat).
    problems : list of Problem
        The rows skipped and why.

    Raises
    ------
    InvalidRecord
        The file cannot be read, names a position the question file does not hold, or a row
        was not made from the question it is matched to.
    """
    path = Path(path)
    positions = positions or tuple(questions or ())
    checks = RowChecks(questions)
    task = logged_task(path)
    task_kind = _TASK_KIND.search(task) if task else None
    mapper = _LmmsRows(
        model or path.resolve().parent.name, kind or (task_kind.group(1) if task_kind else None), positions, checks
    )
    raw, unreadable = read_lmms_eval_rows(path)
    try:
        built, bad = collect_rows(raw, mapper.build, str(path))
    except Mismatch as mismatch:
        raise InvalidRecord(str(mismatch)) from None
    except _Unmatched as unmatched:
        raise InvalidRecord(
            f"{path}: doc_id {unmatched.position} names question {unmatched.position + 1}, but the question file"
            f" holds {len(positions)}: the log was not made from this question file (pass the one lmms-eval iterated)"
        ) from None
    predictions = [prediction for row in built for prediction in row]
    problems = sorted([*unreadable, *bad], key=lambda problem: problem.line)
    how = _matched(mapper.by_document, mapper.by_position, mapper.last, len(positions))
    if how:
        how.extend(checks.said())
        problems.insert(0, Note(str(path), 0, "lmms-eval rows matched to questions: " + "; ".join(how)))
    return predictions, problems


class _LmmsRows:
    """Maps an lmms-eval log's rows onto route predictions, counting how each row found its question."""

    def __init__(self, model: str, fallback: str | None, positions: Sequence[str], checks: RowChecks) -> None:
        self.model, self.fallback, self.positions, self.checks = model, fallback, positions, checks
        self.by_document, self.by_position, self.last = 0, 0, -1

    def build(self, row: LmmsEvalRow, where: str) -> list[Prediction]:
        doc = row.doc
        found = _kind(doc.get("kind"), self.fallback, where)
        answers = row.responses(where)
        if "id" in doc:  # up to 0.3 the row keeps its document
            identifier = question_id(doc["id"], "doc.id", where)
            self.by_document += 1
        else:
            position = row.position(where)
            identifier = str(position)
            if self.positions:
                if position >= len(self.positions):
                    raise _Unmatched(position)
                identifier = self.positions[position]
            self.by_position += 1
            self.last = max(self.last, position)
        self.checks.check(identifier, found, Logged(row.prompts, logged_fields(doc, ROUTE_FIELDS)), where)
        tokens = row.tokens
        return [
            Prediction(identifier, self.model, found, answer, tokens if repeat == 0 else None, repeat)
            for repeat, answer in enumerate(answers)
        ]


def _matched(by_document: int, by_position: int, last: int, positions: int) -> list[str]:
    """How many rows were matched by their document's id, and how many by ``doc_id`` (up to ``last``)."""
    how = []
    if by_document:
        how.append(f"{by_document} rows by their logged document's id")
    if by_position:
        target = f"the question file ({positions} questions)" if positions else "the public data set's ids"
        how.append(f"{by_position} rows by doc_id as a position (0 to {last}) in {target}")
    return how


class _Unmatched(Exception):
    """A row names a position past the question file's end: the whole log belongs to another file."""

    def __init__(self, position: int) -> None:
        super().__init__(position)
        self.position = position


# -- VLMEvalKit ------------------------------------------------------------------------------


def read_vlmevalkit(
    path: str | Path, *, model: str | None = None, kind: str | None = None, questions: Mapping[str, Any] | None = None
) -> tuple[list[Prediction], list[Problem]]:
    """Prediction rows of a VLMEvalKit prediction sheet (see the module notes for the mapping).

    ``questions`` (route questions by id) are what each row is checked against: its
    ``station_1``, ``station_2``, ``city``, ``question_short`` and ``question_long``
    cells, and its ``question`` cell (the prompt), where the sheet has them.

    Parameters
    ----------
    path : str or Path
        The sheet.
    model : str, optional
        The model (default: the file's stem without its ``_<dataset>`` ending).
    kind : str, optional
        The kind when the sheet has no ``kind`` column.
    questions : mapping, optional
        The route questions by id.

    Returns
    -------
    predictions : list of Prediction
        The rows read.
    problems : list of Problem
        The rows skipped and why.

    Raises
    ------
    InvalidRecord
        The file cannot be read, has no ``prediction`` column, is ``.xlsx`` without openpyxl, or
        a row was not made from the question it is matched to.
    """
    path = Path(path)
    header, rows, unreadable = read_sheet(path)
    if rows and "prediction" not in header:
        raise InvalidRecord(f"{path}: no 'prediction' column (found {', '.join(header)})")
    name = model or sheet_model(path)
    checks = RowChecks(questions)

    def build(row: dict[str, Any], where: str) -> Prediction:
        column = "id" if row.get("id") not in (None, "") else "index"
        identifier = question_id(row.get(column), column, where)
        chosen = row.get("kind") if row.get("kind") not in (None, "") else None
        found = _kind(chosen, kind, where)
        prompts = (row["question"],) if isinstance(row.get("question"), str) and row["question"].strip() else ()
        checks.check(identifier, found, Logged(prompts, logged_fields(row, ROUTE_FIELDS)), where)
        return Prediction(identifier, name, found, cell_text(row.get("prediction"), "prediction", where))

    try:
        predictions, problems = collect_rows(rows, build, str(path))
    except Mismatch as mismatch:
        raise InvalidRecord(str(mismatch)) from None
    notes = checks.note(str(path), "VLMEvalKit rows: ")
    return predictions, [*notes, *sorted([*unreadable, *problems], key=lambda problem: problem.line)]


# -- Inspect ---------------------------------------------------------------------------------


def _refuse_other_task(label: str, task: str) -> None:
    """Refuse a log of the toolkit's Inspect task of another benchmark (``reasonmap/plus``): its samples are no
    route answers, and each was skipped as of no kind."""
    from benchmarks.tasks import task_names

    name = task.removeprefix("reasonmap/")
    if name != "route" and name in task_names():
        raise InvalidRecord(f"{label}: a log of the Inspect task {task}; only reasonmap/route logs are read")


def read_inspect_log(
    path: str | Path,
    *,
    model: str | None = None,
    kind: str | None = None,
    partial: bool = False,
    questions: Mapping[str, Any] | None = None,
) -> tuple[list[Prediction], list[Problem]]:
    """Prediction rows of an Inspect eval log (see the module notes for the mapping).

    ``questions`` (route questions by id) are what each sample is checked against: its
    input's text (the prompt; not in ``alias`` mode, whose prompt renames the stations)
    and its metadata's ``station_1``, ``station_2`` and ``city``.

    Parameters
    ----------
    path : str or Path
        The log (``.eval`` or ``.json``).
    model : str, optional
        The model (default: the log's).
    kind : str, optional
        The kind when neither the metadata nor the sample id says it.
    partial : bool, optional
        Read the finished samples of a run that did not finish.
    questions : mapping, optional
        The route questions by id.

    Returns
    -------
    predictions : list of Prediction
        One per sample and epoch (``repeat`` the epoch less one).
    problems : list of Problem
        The samples skipped (errored, too large, unreadable) and why.

    Raises
    ------
    InvalidRecord
        The log cannot be read, its run did not finish (unless ``partial``), Inspect is not
        installed, or a sample was not made from the question it is matched to.
    """
    label = str(path)
    log, samples, problems = read_inspect_samples(path, partial=partial)
    _refuse_other_task(label, str(log.eval.task))
    name = model or log.eval.model
    checks = RowChecks(questions)
    # alias mode renames the stations in the prompt: only the sample's metadata can be compared
    prompted = (log.eval.task_args or {}).get("mode") != "alias"

    def build(sample: Any, where: str) -> Prediction:
        if sample.error is not None:
            raise InvalidRecord(f"{where}: the sample errored ({first_line(sample.error.message)}); not scored")
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
        identifier, found = question_id(identifier, "id", where), _kind(found, kind, where)
        logged = Logged(sample_prompts(sample.input), logged_fields(metadata, ROUTE_FIELDS))
        checks.check(identifier, found, logged, where, prompts=prompted)
        return Prediction(identifier, name, found, response, tokens, repeat)

    try:
        predictions, bad = collect_rows(samples, build, label)
    except Mismatch as mismatch:
        raise InvalidRecord(str(mismatch)) from None
    if log.status in UNFINISHED:  # --partial: the report says it holds part of a run
        shown = f"the run ended with status {log.status!r}; {len(samples)} samples read (partial)"
        problems.append(PartialRun(label, 0, shown, source="inspect", status=log.status, samples=len(samples)))
    notes = checks.note(label, "Inspect samples: ")
    return predictions, [*notes, *sorted([*problems, *bad], key=lambda problem: problem.line)]


def _checked_kind(read: Callable[[str | Path, ReadOptions], tuple[list[Prediction], list[Problem]]]) -> Reader:
    """``read``, after refusing a ``kind`` that is neither ``short`` nor ``long``."""

    def reader(path: str | Path, options: ReadOptions, /) -> tuple[list[Prediction], list[Problem]]:
        if options.kind is not None and options.kind not in KINDS:
            raise ValueError(f"kind must be one of {list(KINDS)}, got {options.kind!r}")
        return read(path, options)

    return reader


#: The route task's readers (:attr:`benchmarks.tasks.Task.readers`): the toolkit's own JSON Lines, then
#: another harness's files (``model`` and ``kind`` fill in what they do not say; see the module notes).
READERS: Mapping[str, Reader] = MappingProxyType(
    {
        "jsonl": _checked_kind(lambda path, options: read_predictions(path)),
        "lmms-eval": _checked_kind(
            lambda path, options: read_lmms_eval(
                path, model=options.model, kind=options.kind, positions=options.positions, questions=options.questions
            )
        ),
        "vlmevalkit": _checked_kind(
            lambda path, options: read_vlmevalkit(
                path, model=options.model, kind=options.kind, questions=options.questions
            )
        ),
        "inspect": _checked_kind(
            lambda path, options: read_inspect_log(
                path, model=options.model, kind=options.kind, partial=options.partial, questions=options.questions
            )
        ),
    }
)
#: Where route predictions may come from: the toolkit's own JSON Lines, or another harness's files.
SOURCES: tuple[str, ...] = tuple(READERS)


def read_harness_predictions(
    path: str | Path,
    source: str = "jsonl",
    *,
    model: str | None = None,
    kind: str | None = None,
    positions: Sequence[str] = (),
    partial: bool = False,
    questions: Mapping[str, Any] | None = None,
) -> tuple[list[Prediction], list[Problem]]:
    """Prediction rows of a file written by ``source`` (one of :data:`SOURCES`, read by :data:`READERS`).

    ``model`` and ``kind`` fill in what the harness's files do not say (see
    the module notes); the toolkit's own rows (``jsonl``) say both.
    ``positions`` (the question file's ids in order) match lmms-eval's
    ``doc_id``; ``partial`` reads the finished samples of an Inspect run that failed.
    ``questions`` (the route questions by id, in the file's order) are what each row of
    another harness's file is checked against (:mod:`benchmarks.reasonmap.log_checks`).

    Parameters
    ----------
    path : str or Path
        The file.
    source : str, optional
        The harness that wrote it (:data:`SOURCES`).
    model, kind : str, optional
        What the file does not say.
    positions : sequence of str, optional
        The question file's ids in order (lmms-eval).
    partial : bool, optional
        Read the finished samples of an Inspect run that failed.
    questions : mapping, optional
        The route questions by id, to check each row against.

    Returns
    -------
    predictions : list of Prediction
        The rows read.
    problems : list of Problem
        The rows skipped and why (another harness's: first a note on how rows were matched and checked).

    Raises
    ------
    ValueError
        ``source`` is not one of :data:`SOURCES`, or ``kind`` is not ``short`` or ``long``.
    InvalidRecord
        The file cannot be read.
    """
    read = READERS[check_choice(source, SOURCES, what="source")]
    return read(path, ReadOptions(model, kind, tuple(positions), questions or {}, partial))

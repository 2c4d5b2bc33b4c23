"""lmms-eval per-sample logs read row by row: what every task takes of a row, before it maps it to a prediction.

lmms-eval's ``--log_samples`` writes ``<model>/<date>_samples_<task>.jsonl``
(:data:`LMMS_EVAL_SAMPLES`), one JSON object per document, as its evaluation
tracker writes it in every version since 0.3 (``doc`` and ``arguments`` dropped
since 0.4; a single response a plain string, and ``token_counts``, since 0.7).
:func:`read_lmms_eval_rows` gives each readable line's :class:`LmmsEvalRow`; a
line that is not a JSON object is reported (file, line, what is wrong) and
skipped. A task maps the rows onto its predictions (route:
:func:`benchmarks.reasonmap.harnesses.read_lmms_eval`); the fields that can be
wrong (``resps``, ``doc_id``) are checked when the task asks for them, so that a
task decides which of a row's faults it names first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.errors import InvalidRecord
from benchmarks.jsonl import Problem, read_jsonl_lines
from benchmarks.log_checks import texts_in

__all__ = ["LMMS_EVAL_SAMPLES", "LmmsEvalRow", "read_lmms_eval_rows", "logged_task"]

#: The per-sample logs in a model's folder of lmms-eval's ``--output_path``: its evaluation tracker's
#: ``save_results_samples`` writes ``<date_id>_samples_<task>.jsonl``, one file per task.
LMMS_EVAL_SAMPLES = "*_samples_*.jsonl"

_SAMPLES_FILE = re.compile(r"samples_(?P<task>.+)$")


@dataclass(frozen=True, slots=True)
class LmmsEvalRow:
    """One document's row of a per-sample log, as lmms-eval logged it.

    Attributes
    ----------
    record : mapping of str to object
        The row's JSON object.
    """

    record: Mapping[str, Any]

    @property
    def doc(self) -> Mapping[str, Any]:
        """The logged document (kept up to 0.3; empty when the row holds none)."""
        doc = self.record.get("doc")
        return doc if isinstance(doc, Mapping) else {}

    @property
    def prompts(self) -> tuple[str, ...]:
        """The texts of the row's ``input`` (the prompt sent; empty when the row logs none)."""
        found = self.record.get("input")
        return tuple(texts_in(found)) if found is not None else ()

    @property
    def tokens(self) -> int | None:
        """The output tokens of ``token_counts`` (0.7: one entry per request, the first answer's counts)."""
        counts = self.record.get("token_counts")
        first = counts[0] if isinstance(counts, list) and counts else None
        tokens = first.get("output_tokens") if isinstance(first, Mapping) else None
        return tokens if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 0 else None

    def responses(self, where: str) -> list[str]:
        """Every answer the row holds: ``resps`` (raw, all repeats), else ``filtered_resps``, in any version's nesting.

        Parameters
        ----------
        where : str
            The row's file and line, as an error names it.

        Returns
        -------
        list of str
            The answers, one per repeat.

        Raises
        ------
        InvalidRecord
            Neither field holds response text.
        """
        for name in ("resps", "filtered_resps"):
            if name not in self.record:
                continue
            value = self.record[name]
            while isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
                value = value[0]  # up to 0.6 one list per request: [[answer, ...]]
            if isinstance(value, str):
                return [value]  # 0.7: a single response is a plain string
            if isinstance(value, list) and value and all(isinstance(answer, str) for answer in value):
                return list(value)
            if value is not None and value != []:
                raise InvalidRecord(f"{where}: field {name!r} must hold the response text")
        raise InvalidRecord(f"{where}: no response (fields 'resps' and 'filtered_resps' are missing or empty)")

    def position(self, where: str) -> int:
        """``doc_id``: the document's position in the data set lmms-eval iterated.

        Parameters
        ----------
        where : str
            The row's file and line, as an error names it.

        Returns
        -------
        int
            The position (from 0).

        Raises
        ------
        InvalidRecord
            ``doc_id`` is not a non-negative integer.
        """
        value = self.record.get("doc_id")
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise InvalidRecord(
                f"{where}: field 'doc_id' must be a position (a non-negative integer), got {value!r:.40}"
            )
        return value


def _row(record: Any, *, where: str) -> LmmsEvalRow:
    if not isinstance(record, Mapping):
        raise InvalidRecord(f"{where}: a sample must be a JSON object")
    return LmmsEvalRow(record)


def read_lmms_eval_rows(path: str | Path) -> tuple[list[tuple[int, LmmsEvalRow]], list[Problem]]:
    """The rows of an lmms-eval per-sample log, each with its line, and the lines skipped.

    Parameters
    ----------
    path : str or Path
        The per-sample log.

    Returns
    -------
    rows : list of (int, LmmsEvalRow)
        Each JSON object's line and row, in file order.
    problems : list of Problem
        The lines skipped (bad bytes, bad JSON, too long, not an object).

    Raises
    ------
    InvalidRecord
        The file cannot be read at all.
    """
    return read_jsonl_lines(path, _row)


def logged_task(path: str | Path) -> str | None:
    """The task a per-sample log's name says it holds (``<date_id>_samples_<task>.jsonl``).

    Parameters
    ----------
    path : str or Path
        The per-sample log.

    Returns
    -------
    str or None
        The task's name; ``None`` when the file is not named as lmms-eval names it.

    Examples
    --------
    >>> logged_task("out/model/20250101_120000_samples_reasonmap_short.jsonl"), logged_task("rows.jsonl")
    ('reasonmap_short', None)
    """
    found = _SAMPLES_FILE.search(Path(path).stem)
    return found.group("task") if found else None

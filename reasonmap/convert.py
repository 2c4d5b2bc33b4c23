"""``reasonmap predictions``: another harness's files written as the toolkit's prediction rows.

The route task reads lmms-eval, VLMEvalKit and Inspect files
(:mod:`benchmarks.reasonmap.harnesses`); a VLMEvalKit sheet of ReasonMap-Plus
gives the plus task's rows (:func:`benchmarks.plus.loading.plus_sheet_rows`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.harness_rows import harness_files
from benchmarks.jsonl import Problem, write_jsonl
from benchmarks.plus.loading import plus_sheet_rows
from benchmarks.reasonmap.harnesses import read_harness_predictions
from benchmarks.tasks import detect_task

__all__ = ["convert_predictions"]


def convert_predictions(
    path: str | Path | Sequence[str | Path],
    source: str,
    out: str | Path,
    *,
    model: str | None = None,
    kind: str | None = None,
    questions: str | Path | None = None,
    partial: bool = False,
) -> tuple[int, list[Problem]]:
    """Write another harness's predictions as the toolkit's JSON Lines rows (for ``diagnose`` and the rest).

    ``path`` is one file, several, or (lmms-eval) a model's folder of per-sample logs: a run's short and
    long answers are two files, each telling its kind by its task name (see
    :func:`benchmarks.harness_rows.harness_files`); their rows are written in the files' order.
    A VLMEvalKit sheet of ReasonMap-Plus gives plus rows (its ``type`` as the
    row's ``question``). ``questions`` is the file lmms-eval's ``doc_id``
    positions refer to, and what every row is checked against (see
    :func:`~benchmarks.reasonmap.harnesses.read_harness_predictions`). Returns the count written and the rows
    skipped.

    Parameters
    ----------
    path : str, Path or sequence of them
        The harness's files (or an lmms-eval folder).
    source : str
        The harness (``lmms-eval``, ``vlmevalkit``, ``inspect``).
    out : str or Path
        The JSON Lines file to write.
    model : str, optional
        The model's name where the files do not say it.
    kind : {"short", "long"}, optional
        The question kind where the files do not say it.
    questions : str or Path, optional
        The question file.
    partial : bool, optional
        Read the finished part of a run that did not finish.

    Returns
    -------
    count : int
        The rows written.
    problems : list of Problem
        The rows skipped (and notes on how the files were read).
    """
    loaded: Mapping[str, Any] = {}
    if questions is not None:
        loaded = detect_task(questions).load(questions).questions
    rows: list[Any] = []
    problems: list[Problem] = []
    for file in harness_files(path, source):
        plus = plus_sheet_rows(Path(file), model, loaded) if source == "vlmevalkit" else None
        read, skipped = plus or read_harness_predictions(
            file, source, model=model, kind=kind, positions=tuple(loaded), partial=partial, questions=loaded
        )
        rows.extend(read)
        problems.extend(skipped)
    return write_jsonl(out, rows), problems

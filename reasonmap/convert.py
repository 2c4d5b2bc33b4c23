"""``reasonmap predictions``: another harness's files written as the toolkit's prediction rows.

Each file is read by a task's reader (:attr:`benchmarks.tasks.Task.readers`): of the tasks that read the
harness's files, the one that claims the file (:attr:`benchmarks.tasks.Task.claims`: plus a VLMEvalKit sheet
with a ``type`` column and no ``kind`` one), else the first (route: :mod:`benchmarks.reasonmap.harnesses`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.errors import InvalidRecord
from benchmarks.harness_rows import harness_files
from benchmarks.jsonl import Note, Problem, write_jsonl
from benchmarks.tasks import ReadOptions, detect_task, get_task, task_names

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

    Raises
    ------
    InvalidRecord
        A file cannot be read, is read as another task's predictions than ``questions`` holds, or every row
        was skipped (nothing is written).
    """
    loaded: Mapping[str, Any] = {}
    asked = None
    if questions is not None:
        asked = detect_task(questions)
        loaded = asked.load(questions).questions
    options = ReadOptions(model, kind, tuple(loaded), loaded, partial)
    tasks = [get_task(name) for name in task_names()]
    readers = [task for task in tasks if source in task.readers] or tasks[:1]  # none: the first names the choices
    rows: list[Any] = []
    problems: list[Problem] = []
    for file in harness_files(path, source):
        task = next((task for task in readers if task.claims is not None and task.claims(Path(file), source)), None)
        task = task or readers[0]
        if asked is not None and asked.name != task.name:  # its rows would be checked against no question
            raise InvalidRecord(
                f"{file}: read as {task.name} predictions, but --questions {questions} holds {asked.name} questions;"
                " pass the question file the predictions were made from"
            )
        read, skipped = task.reader(source)(file, options)
        rows.extend(read)
        problems.extend(skipped)
    skipped = [problem for problem in problems if not isinstance(problem, Note)]
    if not rows and skipped:  # an empty file would look like a harness run that asked nothing
        raise InvalidRecord(f"nothing written: every row was skipped ({len(skipped)}; the first: {skipped[0]})")
    return write_jsonl(out, rows), problems

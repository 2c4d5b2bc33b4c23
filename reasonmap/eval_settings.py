"""``reasonmap eval``'s settings record: what decides a run's answers, checked before anything is asked.

:func:`eval_settings` builds :class:`EvalSettings` (recorded in ``eval.json`` and ``results.json``) and finds the
question files by task; :mod:`reasonmap.eval` runs every (task, mode) cell under them. The errors a run stops
with (:class:`EvalError`, :class:`NothingDone`) are here too, beside the checks that raise most of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from graphkit.choices import UnknownChoice, check_choice
from reasonmap.errors import ReasonmapError
from reasonmap.options import DEFAULT_PIXEL_BUDGET

__all__ = ["EvalSettings", "EvalError", "NothingDone", "OPERATIONAL", "eval_settings"]

# Settings left out of eval.json at these values (runs made before they existed resume as they were).
_UNRECORDED: dict[str, Any] = {"repeats": 1}


#: Settings that only change how fast or how stubbornly the endpoint is asked, never what it answers.
OPERATIONAL = ("concurrency", "timeout", "max_retries", "retry_errors")


class EvalError(ReasonmapError, ValueError):
    """An evaluation that cannot start (exit 2, like any bad input); the message says why in one line."""

    status = 2


class NothingDone(EvalError):
    """An evaluation that ran and produced nothing: no answer, or nothing scored (exit 1)."""

    status = 1


@dataclass(frozen=True, slots=True)
class EvalSettings:
    """What decides the answers of a run (recorded in ``eval.json`` and ``results.json``).

    Attributes
    ----------
    endpoint : str
        The OpenAI-compatible base URL (any key in it removed).
    model, name : str
        The model asked, and its name in rows and tables.
    tasks, modes : tuple of str
        The tasks and prompt modes run.
    split : str or None
        The split whose questions are generated (``None``: every task's questions are given).
    questions : tuple of dict
        The question files given: ``task``, ``file``, ``sha256``.
    maps, metro_dir : str or None
        The folders of map images and of Metro Data (absolute).
    limit : int or None
        Questions per task at most (drawn by a seeded hash of their ids).
    seed : int
        Seeds generation and the draw of ``limit``.
    temperature, max_tokens : float or None, int or None
        The requests' options (``None``: the server's).
    pixel_budget : int or tuple of int
        The full mode's pixel budget(s).
    textualization, alias_strategy : str
        The symbolic and alias modes' options.
    require_maps : bool
        A missing map is an error, not a skip.
    repeats : int
        Answers asked of each request.
    """

    endpoint: str
    model: str
    name: str
    tasks: tuple[str, ...]
    modes: tuple[str, ...]
    split: str | None
    questions: tuple[dict[str, str], ...]
    maps: str | None
    metro_dir: str | None
    limit: int | None
    seed: int
    temperature: float | None
    max_tokens: int | None
    #: one budget, or several (``--pixel-budget 1M,4M,16M``): the full mode is asked at each
    pixel_budget: int | tuple[int, ...]
    textualization: str
    alias_strategy: str
    require_maps: bool
    #: answers asked of each request (``--repeats``)
    repeats: int = 1

    def to_dict(self) -> dict[str, Any]:
        record = asdict(self)
        record["tasks"], record["modes"], record["questions"] = list(self.tasks), list(self.modes), list(self.questions)
        if isinstance(self.pixel_budget, tuple):
            record["pixel_budget"] = list(self.pixel_budget)
        if self.repeats == _UNRECORDED["repeats"]:  # one answer each: eval.json as it was before --repeats
            del record["repeats"]
        return record


def _endpoint_without_key(endpoint: str) -> str:
    """The endpoint as recorded: user info (``user:key@``) and query strings are left out."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _generated_tasks() -> tuple[str, ...]:
    """The tasks whose questions ``eval`` generates when no file is given (``--split``), in the registry's order."""
    from benchmarks.tasks import get_task, task_names

    return tuple(name for name in task_names() if get_task(name).generation is not None)


def _question_files(given: Sequence[str]) -> dict[str, Path]:
    """Each given question file by its task; two files of one task fail."""
    from benchmarks.tasks import detect_task

    found: dict[str, Path] = {}
    for path in given:
        if not Path(path).exists():
            raise EvalError(f"{path}: no such question file")
        name = detect_task(path).name
        if name in found:
            raise EvalError(f"{path}: a second file of {name} questions (the first is {found[name]})")
        found[name] = Path(path)
    return found


def eval_settings(
    *,
    endpoint: str,
    model: str,
    name: str | None = None,
    tasks: Sequence[str] | None = None,
    modes: Sequence[str] = ("full", "text-only"),
    split: str = "test",
    questions: Sequence[str | Path] = (),
    maps: str | Path | None = None,
    metro_dir: str | Path | None = None,
    limit: int | None = None,
    seed: int = 0,
    temperature: float | None = None,
    max_tokens: int | None = None,
    pixel_budget: int | tuple[int, ...] = DEFAULT_PIXEL_BUDGET,
    textualization: str = "lines",
    alias_strategy: str = "romanize",
    require_maps: bool = False,
    repeats: int = 1,
) -> tuple[EvalSettings, dict[str, Path]]:
    """The settings of a run, checked, and the question files given by task (told from each file).

    ``tasks`` ``None`` is the tasks of the ``questions`` files, else every task whose questions are generated
    (``split``). The model client's options are the caller's to check (:func:`baselines.client.check_options`):
    the command line checks them once, before anything is read.

    Parameters
    ----------
    endpoint, model : str
        The OpenAI-compatible base URL and the model.
    name : str, optional
        The model's name in rows and tables (default: ``model``).
    tasks : sequence of str, optional
        The tasks (see above).
    modes : sequence of str, optional
        The prompt modes.
    split : {"test", "train", "all"}, optional
        Whose questions are generated.
    questions : sequence of str or Path, optional
        Question files, at most one per task.
    maps, metro_dir : str or Path, optional
        The folders of map images and of Metro Data.
    limit : int, optional
        Questions per task at most.
    seed : int, optional
        Seeds generation and the draw of ``limit``.
    temperature : float, optional
    max_tokens : int, optional
        The requests' options (default: the server's).
    pixel_budget : int or tuple of int, optional
        The full mode's pixel budget(s).
    textualization, alias_strategy : str, optional
        The symbolic and alias modes' options.
    require_maps : bool, optional
        A missing map is an error, not a skip.
    repeats : int, optional
        Answers asked of each request.

    Returns
    -------
    settings : EvalSettings
    files : dict of str to Path
        The question files, by task.

    Raises
    ------
    EvalError
        A question file missing or a second of one task, a task left out or not generated, an unknown mode,
        or a ``limit`` under 1.
    ValueError
        An unknown task; the message lists the known ones.
    """
    given = dict(locals())  # the arguments, named as the settings' fields
    tasks, files, generated = _checked_tasks(tasks, questions, modes, limit)
    return _settings(given, tasks, files, generated), files


def _checked_tasks(
    tasks: Sequence[str] | None, questions: Sequence[str | Path], modes: Sequence[str], limit: int | None
) -> tuple[tuple[str, ...], dict[str, Path], list[str]]:
    """The tasks, their question files and the tasks generated, checked with the modes and ``limit``."""
    from benchmarks.tasks import get_task, task_names

    if tasks is not None:
        tasks = tuple(tasks)
        for task in tasks:
            get_task(task)  # an unknown name lists the known ones
    files = _question_files([str(path) for path in questions])
    if tasks is None:
        tasks = tuple(files) or _generated_tasks()
    elif unused := [task for task in files if task not in tasks]:
        raise EvalError(f"--questions {files[unused[0]]} holds {unused[0]} questions, which --tasks leaves out")
    generated = [task for task in tasks if task not in files]
    if not_generated := [task for task in generated if task not in _generated_tasks()]:
        raise EvalError(f"{not_generated[0]} questions are not generated: pass their file with --questions FILE")
    files = {task: files[task] for task in tasks if task in files}
    known_modes = {mode for task in task_names() for mode in get_task(task).modes}
    for mode in modes:
        try:
            check_choice(mode, sorted(known_modes), what="mode")
        except UnknownChoice as error:
            raise EvalError(str(error)) from None
    if limit is not None and limit < 1:
        raise EvalError(f"--limit must be at least 1, got {limit}")
    return tasks, files, generated


def _settings(
    given: dict[str, Any], tasks: tuple[str, ...], files: dict[str, Path], generated: list[str]
) -> EvalSettings:
    """The settings of :func:`eval_settings`'s arguments ``given``, normalized."""
    from benchmarks.provenance import file_sha256

    maps, metro_dir = given["maps"], given["metro_dir"]
    return EvalSettings(
        **{
            **given,
            "endpoint": _endpoint_without_key(given["endpoint"]),
            "name": given["name"] or given["model"],
            "tasks": tasks,
            "modes": tuple(given["modes"]),
            "split": given["split"] if generated else None,
            "questions": tuple(
                {"task": task, "file": path.name, "sha256": file_sha256(path)} for task, path in files.items()
            ),
            "maps": str(Path(maps).resolve()) if maps else None,
            "metro_dir": str(Path(metro_dir).resolve()) if metro_dir else None,
        }
    )

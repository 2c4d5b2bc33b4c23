"""The task registry: every benchmark the toolkit evaluates, behind one interface.

A task (``route``: ReasonMap short and long route questions; ``plus``:
ReasonMap-Plus counting and true/false questions; ``mapqa``:
OmniMapBench-style map QA) knows how to recognise and load its question
files, what each question asks (:class:`Prompt`, dressed by a prompt mode in
:mod:`baselines.prompts`), how to read, score and aggregate answers, and how
to report them. Every command that takes questions finds the task of a file
here (:func:`detect_task`) or by name (:func:`get_task`); the evaluation
pipeline (:mod:`reasonmap.evaluate`) is the same for all of them.

Tasks are imported when first asked for, so the registry costs nothing to import.
"""

from __future__ import annotations

import importlib
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from benchmarks.jsonl import Problem

if TYPE_CHECKING:
    from benchmarks.metrics import MetricSpec
    from graphkit.executors import Executor
    from graphkit.graph import TransitGraph

__all__ = [
    "Loaded",
    "Prompt",
    "ScoreOptions",
    "Task",
    "TASKS",
    "task_names",
    "get_task",
    "detect_task",
    "results_of",
]


@dataclass(frozen=True, slots=True)
class Loaded:
    """A question file as its task read it: questions by id, the records skipped and why, and what the file
    carried beside them (route files of the public data set carry their cities' Metro Data: ``metro``)."""

    questions: Mapping[str, Any]
    problems: tuple[str, ...] = ()
    context: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Prompt:
    """What one request asks, before a prompt mode dresses it.

    ``kind`` tells the requests of one question apart (route: ``short`` and
    ``long``; plus: the question's type; map QA: ``mapqa``). The map is the
    city's (``city``, ``country``: looked up in a folder of maps, and the
    Metro Data for the symbolic modes) or the question's own image (``image``,
    a path relative to the maps folder).
    """

    id: str
    kind: str
    text: str
    city: str | None = None
    country: str | None = None
    image: str | None = None


@dataclass(frozen=True, slots=True)
class ScoreOptions:
    """How answers are read and judged; each task uses what applies to it.

    ``weighting`` ``None`` is the task's default. ``source``, ``model`` and
    ``kind`` read another harness's prediction files; ``positions`` are the
    question file's ids in order (harnesses that name a question by its
    position), ``partial`` takes the finished samples of a run that failed;
    ``graph`` and ``metro_dir`` say where cities' graphs come from (route).
    ``official_model`` is the public scripts' model path of every model, or
    a run name → path mapping, for variant ``official`` (route, plus).
    """

    weighting: str | None = None
    variant: str = "paper"
    source: str = "jsonl"
    model: str | None = None
    kind: str | None = None
    graph: TransitGraph | None = None
    metro_dir: str | None = None
    official_model: str | Mapping[str, str] | None = None
    positions: tuple[str, ...] = ()
    partial: bool = False


class Task(Protocol):
    """What the evaluation pipeline asks of a task."""

    name: str
    title: str
    #: the prompt modes the task can be asked in (full and text-only always)
    modes: tuple[str, ...]
    #: the scoring variants ``score --variant`` takes for it
    variants: tuple[str, ...]
    default_weighting: str
    #: the symbolic solvers ``reasonmap baseline`` has for it
    solvers: tuple[str, ...]
    #: its metrics (:class:`benchmarks.metrics.MetricSpec`), the headline ones in the order tables print them
    metrics: tuple[MetricSpec, ...]

    def recognise(self, path: Path) -> bool:
        """Whether ``path`` holds this task's questions (by its first record)."""
        ...

    def load(self, path: str | Path) -> Loaded:
        """The questions of a file; bad records are reported in ``problems``, never raised."""
        ...

    def prompts(self, question: Any) -> list[Prompt]:
        """What is asked for one question, one prompt per request."""
        ...

    def read_predictions(self, path: str | Path, options: ScoreOptions) -> tuple[list[Any], list[Problem]]:
        """The prediction rows of a file, and the records skipped."""
        ...

    def answer_key(self, prediction: Any) -> Hashable:
        """What makes a prediction a repeat of another (the first answer counts)."""
        ...

    def score(
        self, loaded: Loaded, predictions: Sequence[Any], options: ScoreOptions, executor: Executor | None
    ) -> tuple[list[Any], list[str]]:
        """Verdicts in input order, and one message per prediction skipped (file-less: the caller adds where)."""
        ...

    def summarize(
        self,
        verdicts: Sequence[Any],
        loaded: Loaded,
        options: ScoreOptions,
        inputs: Mapping[str, Any],
        problems: Sequence[str],
    ) -> dict[str, Any]:
        """The summary: per model, the task's metrics (``models``), and what was read (``inputs``)."""
        ...

    def write_report(self, directory: str | Path, summary: Mapping[str, Any], *, figures: bool = True) -> list[Path]:
        """``summary.json``, ``table.md`` and, with ``figures``, the task's figures; returns the paths written."""
        ...

    def table(self, summary: Mapping[str, Any]) -> str:
        """The summary as a markdown table."""
        ...

    # A task with two variants or more also has ``compare(evaluations, loaded, predictions, variants, options)
    # -> (record, markdown)``: why two variants' numbers differ (``reasonmap score --compare``).


#: Task name -> ``module:attribute`` of its registry entry.
TASKS: dict[str, str] = {
    "route": "benchmarks.reasonmap.task:ROUTE",
    "plus": "benchmarks.plus.task:PLUS",
    "mapqa": "benchmarks.mapqa.task:MAPQA",
}
# Recognised in this order: the route task reads any other file (the public data set's too), so it comes last.
_DETECTION_ORDER = ("mapqa", "plus", "route")


def task_names() -> tuple[str, ...]:
    """The registered tasks' names.

    >>> task_names()
    ('route', 'plus', 'mapqa')
    """
    return tuple(TASKS)


def get_task(name: str) -> Task:
    """The task called ``name``.

    Raises
    ------
    ValueError
        An unknown name; the message lists the known ones.

    >>> get_task("plus").name
    'plus'
    >>> get_task("maps")
    Traceback (most recent call last):
    ...
    ValueError: unknown task 'maps': the tasks are route, plus, mapqa
    """
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}: the tasks are {', '.join(TASKS)}")
    module, attribute = TASKS[name].split(":")
    return getattr(importlib.import_module(module), attribute)


def detect_task(path: str | Path) -> Task:
    """The task whose questions ``path`` holds (told by the first record; route when no other task claims it)."""
    for name in _DETECTION_ORDER:
        task = get_task(name)
        if name == "route" or task.recognise(Path(path)):
            return task
    raise AssertionError("unreachable: route claims every file")


def results_of(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per model of a task's summary: ``model``, ``n``, ``n_invalid``, its scalar metrics and, where the
    summary has them, the headline metrics' ``intervals``.

    >>> results_of({"models": {"m": {"n": 4, "n_invalid": 1, "accuracy": 0.5, "per_type": {}}}})
    [{'model': 'm', 'n': 4, 'n_invalid': 1, 'metrics': {'accuracy': 0.5}}]
    """
    rows = []
    for model, row in summary.get("models", {}).items():
        metrics = {
            key: value
            for key, value in sorted(row.items())
            if key not in ("n", "n_invalid") and isinstance(value, int | float) and not isinstance(value, bool)
        }
        found = {"model": model, "n": row.get("n", 0), "n_invalid": row.get("n_invalid", 0), "metrics": metrics}
        if row.get("intervals"):  # the headline metrics' (:mod:`benchmarks.intervals`)
            found["intervals"] = row["intervals"]
        rows.append(found)
    return rows

"""ReasonMap as Inspect AI tasks: ``reasonmap/<task>`` for each task whose record has an ``inspect`` spec.

Today that is ``reasonmap/route``, ``reasonmap/plus`` and ``reasonmap/probe``, judged by the toolkit's
scorers. What is the
task's own (its options, question set, sample ids and metadata, scorer and metrics) is declared by its
record (:class:`benchmarks.tasks.InspectSpec`, the scorers in ``benchmarks/<folder>/inspect_scorer.py``);
this module builds every task the same way from it.

Installed with ``pip install 'reasonmap-toolkit[inspect]'``, the tasks are
found by name through Inspect's entry point (``inspect_ai`` →
``reasonmap = reasonmap.inspect_tasks``)::

    inspect eval reasonmap/route --model openai/gpt-4o -T mode=full -T maps=maps/ -T split=test
    inspect eval reasonmap/plus  --model vllm/Qwen/Qwen2.5-VL-7B-Instruct -T maps=maps/

``maps`` defaults to the folder the environment variable ``REASONMAP_MAPS``
names, so that a machine that keeps its maps in one place can leave it out;
without either, a question file of the public data set's (parquet, JSON Lines,
a dataset folder) gives the maps its records carry (``figure``).

or from Python, ``inspect_ai.eval("reasonmap/route", model=..., task_args={...})``.

Samples
    ``route``: one per question and kind (``short``, ``long``), id
    ``<question id>:<kind>``, metadata ``id``, ``kind``, ``city``, ``station_1``,
    ``station_2`` and the two difficulties; the messages are exactly the toolkit's prompt ``mode``
    (:mod:`baselines.prompts`): in ``full`` the map is Inspect image content
    (a PNG data URL, downscaled under ``pixel_budget``). ``plus``: one per
    question, id the question's, metadata ``id``, ``type``, ``city``; modes
    those of the plus task. A map missing from ``maps``, or unreadable,
    stops the task with one line naming it (Inspect's prerequisite error).
Questions
    ``questions=PATH`` (any file ``reasonmap score`` reads: the toolkit's,
    the public data set's parquet or JSON Lines, a Hugging Face dataset
    folder), else the ``split`` generated from the embedded data with ``seed``
    (``test``: the paper's 11 held-out maps).
Scores
    The toolkit's scorer judges each answer: the score's value is
    ``{"correct": 1 or 0, "map_score": ...}``, so that Inspect's reducer
    averages both over epochs (``--epochs``: each epoch is a repeat, and
    ``reasonmap score`` on the log gives the same figures); its metadata
    holds every map-score component,
    the question's ``weight`` (``weighting``, the paper's 3×3 matrix by
    default), the ``failure`` label and the parsed route. The metrics are the
    report's figures per kind: ``weighted_accuracy_<kind>`` and
    ``map_score_<kind>`` (weighted), ``accuracy_<kind>`` and
    ``map_score_unweighted_<kind>``. Plus: ``weighted_accuracy`` (by map
    difficulty), ``accuracy``, and ``accuracy_<type>``. Probes: ``accuracy``
    (exact), ``partial`` and ``accuracy_<type>``, one sample per probe. Each headline
    figure (the weighted accuracies and map scores) has its standard error
    beside it, ``<figure>_stderr``: the report's bootstrap over questions
    (:mod:`benchmarks.intervals`), so it matches ``reasonmap score`` on the
    log. The values ``correct`` and ``map_score`` also carry Inspect's own
    ``stderr()``, clustered by question for routes (``cluster="id"``: a
    question's short and long samples are not independent). Each task has a
    ``version`` (:data:`TASK_VERSION`) in its logs.
"""

from __future__ import annotations

import inspect
import logging
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai._util.error import PrerequisiteError  # not public: Inspect's one-line errors (0.3.285)
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
from inspect_ai.solver import generate
from inspect_ai.util import registry_info

from benchmarks.tasks import Task as TaskRecord
from benchmarks.tasks import get_task, imported, task_names
from reasonmap.errors import ReasonmapError

_PACKAGE = "reasonmap"
#: The tasks' version, as Inspect records it in each log: raised when the samples or the scoring change.
TASK_VERSION = "1.1.0"
_LOG = logging.getLogger(__name__)
_MAPS_VARIABLE = "REASONMAP_MAPS"
_PIXEL_BUDGET = 4_000_000


def _report(problems: Sequence[Any]) -> None:
    """Skipped records go to the log Inspect shows; the good ones are all asked."""
    for problem in problems:
        _LOG.warning("skipped: %s", problem)


def _content(content: Any) -> str | list:
    """An OpenAI-style message content as Inspect content (image URLs and named map images become image content)."""
    from baselines.map_images import encoded_content

    if isinstance(content, str):
        return content
    parts: list = []
    for part in encoded_content(content):
        if part.get("type") == "image_url":
            parts.append(ContentImage(image=part["image_url"]["url"]))
        else:
            parts.append(ContentText(text=part["text"]))
    return parts


def task_samples(
    record: TaskRecord,
    questions: Iterable[Any],
    *,
    mode: str,
    kinds: str = "both",
    maps: str | None = None,
    textualization: str = "lines",
    pixel_budget: int = _PIXEL_BUDGET,
    graph_for: Callable[[Any], Any] | None = None,
) -> list[Sample]:
    """Inspect samples of a task's questions: the toolkit's requests of ``mode`` (see the module notes).

    Raises
    ------
    ValueError
        A mode the task has not, an unknown kind, or ``full`` without ``maps``.
    """
    from baselines.prompts import build_requests

    spec = record.inspect
    if spec is None:
        raise ValueError(f"{record.name} questions are not an Inspect task")
    choices = ("both", *spec.kinds)
    if kinds not in choices:
        raise ValueError(f"kinds must be one of {list(choices)}, got {kinds!r}")
    by_id = {question.id: question for question in questions}
    requests = build_requests(
        list(by_id.values()),
        mode=mode,
        task=record,
        graph_for=graph_for,
        textualization=textualization,
        maps=maps,
        pixel_budget=pixel_budget,
    )
    samples = []
    for request in requests:
        if kinds != "both" and request.question != kinds:
            continue
        identifier, metadata = spec.sample(by_id[request.id], request.question)
        messages = [ChatMessageUser(content=_content(message["content"])) for message in request.messages]
        samples.append(Sample(input=messages, id=identifier, metadata=dict(metadata)))
    return samples


def _maps(record: TaskRecord, maps: str | None, questions: str | None) -> str | None:
    """The map folder: given, else ``$REASONMAP_MAPS``, else the maps the question file carries, if any."""
    found = maps if maps is not None else os.environ.get(_MAPS_VARIABLE) or None
    if found is None and questions is not None and record.inspect.carried_maps is not None:
        folder = _carried_maps(record.name, questions, _stamp(questions))
        found = None if folder is None else folder.name
    return found


def _stamp(questions: str) -> int:
    return Path(questions).stat().st_mtime_ns


@lru_cache(maxsize=4)
def _carried_maps(name: str, questions: str, stamp: int) -> tempfile.TemporaryDirectory | None:
    """The maps a question file carries (the public data set's ``figure`` of each city), written once to a folder
    that lives as long as the process."""
    folder = tempfile.TemporaryDirectory(prefix="reasonmap-maps-")
    written, problems = get_task(name).inspect.carried_maps(questions, folder.name) or ([], [])
    _report(problems)
    if not written:
        folder.cleanup()
        return None
    return folder


class TaskInputError(ReasonmapError, PrerequisiteError, ValueError):
    """A task's input is wrong (a missing map, a mode it has not): Inspect reports it in one line, without a
    traceback, as it does its own pre-flight errors; Python callers catch it as a ``ValueError``."""

    def __init__(self, message: str) -> None:
        PrerequisiteError.__init__(self, message)
        ValueError.__init__(self, message)


def _one_line(error: Exception, name: str) -> TaskInputError:
    return TaskInputError(f"{_PACKAGE}/{name}: {' '.join(str(error).split())}")


def _path(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what}: expected a path, got {value!r}")
    return value


def _seed(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"seed: expected an integer, got {value!r}")
    return value


def checked_settings(record: TaskRecord, settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` (a task's ``-T`` options), each checked as the command line checks its option: the same
    choices (the registries'), the same pixel bounds (:func:`reasonmap.options.check_pixel_budget`), a
    folder for ``maps``. The pixel budget is returned as an ``int`` (``"4M"`` is read as the command line
    reads it).

    Raises
    ------
    TaskInputError
        The first wrong option, in one line naming it and the task.
    """
    from baselines.textualize import TEXTUALIZATIONS
    from benchmarks.splits import SPLITS
    from graphkit.choices import check_choice
    from reasonmap.options import check_pixel_budget

    checks: dict[str, Callable[[Any], Any]] = {
        "mode": lambda value: check_choice(value, record.modes, what=f"{record.name} prompt mode"),
        "kinds": lambda value: check_choice(value, ("both", *record.inspect.kinds), what="kinds"),
        "textualization": lambda value: check_choice(value, TEXTUALIZATIONS, what="textualization"),
        "variant": lambda value: record.variant(value).name,
        "weighting": lambda value: check_choice(value, record.weightings, what=f"{record.name} weighting"),
        "split": lambda value: check_choice(value, SPLITS, what="split"),
        "seed": _seed,
        "pixel_budget": lambda value: check_pixel_budget(value, option="pixel_budget"),
        "questions": lambda value: _path(value, "questions"),
        "maps": lambda value: _path(value, "maps"),
    }
    checked = dict(settings)
    try:
        for name, check in checks.items():
            if name in settings:
                checked[name] = check(settings[name])
        maps = checked.get("maps")
        if maps is not None and not Path(maps).is_dir():
            raise ValueError(f"maps: {maps}: {'not a folder' if Path(maps).exists() else 'no such folder'}")
    except ValueError as error:
        raise _one_line(error, record.name) from None
    return checked


def inspect_task(record: TaskRecord, settings: dict[str, Any]) -> Task:
    """The Inspect task of ``record`` under ``settings`` (every parameter of its factory, by name).

    Every option is checked first (:func:`checked_settings`), then the questions are read and the samples
    built: a wrong option or an unreadable input stops the task before its first sample is asked.
    """
    spec = record.inspect
    settings = checked_settings(record, settings)
    mode, questions = settings["mode"], settings["questions"]
    split, seed, maps = settings["split"], settings["seed"], settings["maps"]
    try:
        if mode == "full":
            maps = _maps(record, maps, questions)
        by_id, graph_for, problems = imported(spec.question_set)(questions, split, seed)
    except (OSError, ValueError) as error:  # a missing, unreadable or foreign question file
        raise _one_line(error, record.name) from None
    _report(problems)
    try:
        if mode == "full" and maps is None:
            raise ValueError(
                f"mode 'full' needs the folder of map images (maps=... or ${_MAPS_VARIABLE}; the toolkit ships none)"
            )
        samples = task_samples(
            record,
            by_id.values(),
            mode=mode,
            kinds=settings.get("kinds", "both"),
            maps=maps,
            textualization=settings.get("textualization", "lines"),
            pixel_budget=settings["pixel_budget"],
            graph_for=graph_for,
        )
    except (FileNotFoundError, ValueError) as error:  # a missing or unreadable map, a mode it has not
        raise _one_line(error, record.name) from None
    make_scorer = imported(spec.scorer)
    chosen = {name: settings[name] for name in inspect.signature(make_scorer).parameters}
    return Task(
        dataset=MemoryDataset(samples, name=questions or f"{spec.dataset}-{split}-seed{seed}"),
        solver=generate(),
        scorer=make_scorer(**chosen),
        version=TASK_VERSION,
    )


def _factory(record: TaskRecord) -> Callable[..., Task]:
    """The function Inspect calls with the task's ``-T`` options: ``mode, split, questions, maps``, the task's own
    options, ``seed, pixel_budget``."""
    defaults = {"mode": "full", "split": "test", "questions": None, "maps": None}
    defaults |= {**record.inspect.options, "seed": 0, "pixel_budget": _PIXEL_BUDGET}
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    parameters = [inspect.Parameter(name, kind, default=value) for name, value in defaults.items()]
    # any other name too, so that a misspelt -T option is refused here (Inspect would only log that it is unused)
    parameters.append(inspect.Parameter("unknown", inspect.Parameter.VAR_KEYWORD))
    signature = inspect.Signature(parameters)

    def factory(*args: Any, **kwargs: Any) -> Task:
        from graphkit.choices import close_choices

        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        settings = dict(bound.arguments)
        for name in settings.pop("unknown", {}):
            close = close_choices(name, list(defaults))
            hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
            options = list(defaults)
            raise TaskInputError(f"{_PACKAGE}/{record.name}: no option {name!r}; its options are {options}{hint}")
        return inspect_task(record, settings)

    factory.__signature__ = signature  # type: ignore[attr-defined]
    factory.__name__ = factory.__qualname__ = record.name
    factory.__doc__ = f"{record.title}, in a prompt mode (``full`` needs ``maps``, a folder of maps)."
    return factory


def _registered(factory: Callable[..., Task], name: str) -> Callable[..., Task]:
    """``factory`` as the Inspect task ``reasonmap/<name>`` however the toolkit is installed.

    Inspect prefixes a task's name with its package only for code installed
    in site-packages under a distribution of the package's name; from a
    checkout or an editable install of ``reasonmap-toolkit`` it does not, so
    the prefix is given then.
    """
    registered = task(name=name)(factory)
    if registry_info(registered).name != f"{_PACKAGE}/{name}":
        registered = task(name=f"{_PACKAGE}/{name}")(factory)
    return registered


#: The registered tasks' names (each a module attribute: ``from reasonmap.inspect_tasks import route``).
INSPECT_TASKS: tuple[str, ...] = tuple(name for name in task_names() if get_task(name).inspect is not None)
for _name in INSPECT_TASKS:
    globals()[_name] = _registered(_factory(get_task(_name)), _name)

__all__ = [
    "TASK_VERSION",
    "INSPECT_TASKS",
    "TaskInputError",
    "checked_settings",
    "inspect_task",
    "task_samples",
    *INSPECT_TASKS,
]

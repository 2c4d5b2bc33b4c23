"""ReasonMap as Inspect AI tasks: ``reasonmap/route`` and ``reasonmap/plus``, judged by the toolkit's scorers.

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
    ``<question id>:<kind>``, metadata ``id``, ``kind``, ``city`` and the two
    difficulties; the messages are exactly the toolkit's prompt ``mode``
    (:mod:`baselines.prompts`): in ``full`` the map is Inspect image content
    (a PNG data URL, downscaled under ``pixel_budget``). ``plus``: one per
    question, id the question's, metadata ``id``, ``type``, ``city``; modes
    ``full`` and ``text-only``. A map missing from ``maps``, or unreadable,
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
    difficulty), ``accuracy``, and ``accuracy_<type>``. Each headline
    figure (the weighted accuracies and map scores) has its standard error
    beside it, ``<figure>_stderr``: the report's bootstrap over questions
    (:mod:`benchmarks.intervals`), so it matches ``reasonmap score`` on the
    log. The values ``correct`` and ``map_score`` also carry Inspect's own
    ``stderr()``, clustered by question for routes (``cluster="id"``: a
    question's short and long samples are not independent). Each task has a
    ``version`` (:data:`TASK_VERSION`) in its logs.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai._util.error import PrerequisiteError  # not public: Inspect's one-line errors (0.3.285)
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
from inspect_ai.scorer import SampleScore, Score, Target, metric, scorer, stderr
from inspect_ai.solver import TaskState, generate
from inspect_ai.util import registry_info

from benchmarks.metrics import MetricSpec, aggregate
from benchmarks.reasonmap.records import KINDS, Prediction, Question
from graphkit.graph import TransitGraph
from reasonmap.errors import ReasonmapError

__all__ = [
    "TASK_VERSION",
    "route",
    "plus",
    "route_scorer",
    "route_metrics",
    "plus_scorer",
    "plus_metrics",
    "route_samples",
]

_PACKAGE = "reasonmap"
#: The tasks' version, as Inspect records it in each log: raised when the samples or the scoring change.
TASK_VERSION = "1.1.0"
_LOG = logging.getLogger(__name__)
_KIND_CHOICES = ("both", *KINDS)


# -- question sets ----------------------------------------------------------------------------


def _report(problems: Sequence[Any]) -> None:
    """Skipped records go to the log Inspect shows; the good ones are all asked."""
    for problem in problems:
        _LOG.warning("skipped: %s", problem)


def _stamp(questions: str | None) -> int | None:
    """When the question file last changed: a set is loaded once for the task and its scorer, and again when edited."""
    return None if questions is None else Path(questions).stat().st_mtime_ns


def _route_set(
    questions: str | None, split: str, seed: int
) -> tuple[dict[str, Question], Callable[[Question], TransitGraph]]:
    """Questions by id and the graph of each question's city."""
    return _load_route_set(questions, _stamp(questions), split, seed)


def _plus_set(questions: str | None, split: str, seed: int) -> dict[str, Any]:
    """Plus questions by id."""
    return _load_plus_set(questions, _stamp(questions), split, seed)


@lru_cache(maxsize=8)
def _load_route_set(
    questions: str | None, stamp: int | None, split: str, seed: int
) -> tuple[dict[str, Question], Callable[[Question], TransitGraph]]:
    from benchmarks.reasonmap.loading import graph_lookup, load_questions

    if questions is not None:
        found, metro, problems = load_questions(questions)
        _report(problems)
        if not found:
            reasons = "; ".join(str(problem) for problem in problems[:3])
            raise ValueError(f"{questions}: no readable question{f' ({reasons})' if reasons else ''}")
        return found, graph_lookup(metro)
    from benchmarks.reasonmap.generate import generate_set, split_cities
    from graphkit.cities import city_graph, city_names

    generated = generate_set([city_graph(name) for name in split_cities(split, city_names())], seed=seed)
    return {question.id: question for question in generated}, graph_lookup({})


@lru_cache(maxsize=8)
def _load_plus_set(questions: str | None, stamp: int | None, split: str, seed: int) -> dict[str, Any]:
    if questions is not None:
        from benchmarks.plus.loading import load_plus_questions

        found, problems = load_plus_questions(questions)
        _report(problems)
        if not found:
            reasons = "; ".join(str(problem) for problem in problems[:3])
            raise ValueError(f"{questions}: no readable plus question{f' ({reasons})' if reasons else ''}")
        return found
    from benchmarks.plus.questions import generate_plus_set
    from benchmarks.reasonmap.generate import split_cities
    from graphkit.cities import city_graph, city_names

    generated = generate_plus_set([city_graph(name) for name in split_cities(split, city_names())], seed=seed)
    return {question.id: question for question in generated}


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


def route_samples(
    questions: Sequence[Question],
    *,
    mode: str,
    kinds: str = "both",
    maps: str | None = None,
    textualization: str = "lines",
    pixel_budget: int = 4_000_000,
    graph_for: Callable[[Question], TransitGraph] | None = None,
) -> list[Sample]:
    """Inspect samples of route questions: the toolkit's requests of ``mode`` (see the module notes).

    Raises
    ------
    ValueError
        An unknown mode or kind, or ``full`` without ``maps``.
    """
    from baselines.prompts import build_requests

    if kinds not in _KIND_CHOICES:
        raise ValueError(f"kinds must be one of {list(_KIND_CHOICES)}, got {kinds!r}")
    by_id = {question.id: question for question in questions}
    requests = build_requests(
        questions, mode=mode, graph_for=graph_for, textualization=textualization, maps=maps, pixel_budget=pixel_budget
    )
    samples = []
    for request in requests:
        if kinds != "both" and request.question != kinds:
            continue
        question = by_id[request.id]
        samples.append(
            Sample(
                input=[ChatMessageUser(content=_content(message["content"])) for message in request.messages],
                id=f"{request.id}:{request.question}",
                metadata={
                    "id": request.id,
                    "kind": request.question,
                    "city": question.city,
                    "difficulty_question": question.difficulty_question,
                    "difficulty_city": question.difficulty_city,
                },
            )
        )
    return samples


# -- metrics ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Answer:
    """What a task's metric specs read of one answer, taken from its Inspect score."""

    id: str
    question: str | None
    correct: float
    map_score: float | None
    weight: float
    type: str | None = None
    tokens: int | None = None  # Inspect keeps the tokens in its own usage records


def _question_id(sample: SampleScore) -> str:
    """The question a sample asks: a route sample's id is ``<question id>:<kind>``, a plus sample's the question's."""
    identifier = str(sample.sample_id)
    kind = (sample.score.metadata or {}).get("kind")
    return identifier.removesuffix(f":{kind}") if kind else identifier


def _route_answer(sample: SampleScore) -> _Answer:
    score = sample.score
    metadata = score.metadata or {}
    value = score.value
    return _Answer(_question_id(sample), metadata.get("kind"), value["correct"], value["map_score"], metadata["weight"])


def _plus_answer(sample: SampleScore) -> _Answer:
    metadata = sample.score.metadata or {}
    return _Answer(_question_id(sample), None, sample.score.value, None, metadata["weight"], metadata["type"])


def _stderrs(specs: Sequence[MetricSpec], answers: Sequence[_Answer]) -> dict[str, float | None]:
    """``<metric>_stderr`` of each headline spec: the standard error of the report's bootstrap over questions
    (:mod:`benchmarks.intervals`; a question's short and long samples drawn together), beside the figure as
    Inspect's own ``stderr()`` sits beside a mean. With epochs, each sample's value is already their mean."""
    from benchmarks.intervals import intervals
    from benchmarks.metrics import headline

    chosen = headline(specs)
    found = intervals(chosen, answers)
    return {f"{spec.name}_stderr": found[spec.name].se if spec.name in found else None for spec in chosen}


@metric
def route_metrics() -> Callable[[list[SampleScore]], dict[str, float | None]]:
    """The report's figures per kind (the route task's metric specs, tokens aside), from the scores' ``correct``
    and their metadata's ``map_score`` and ``weight``."""
    from benchmarks.reasonmap.metrics import ROUTE_METRICS

    specs = [spec for spec in ROUTE_METRICS if not spec.name.startswith("mean_tokens")]

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        answers = [_route_answer(sample) for sample in scores]
        figures = {spec.name: aggregate(spec, answers) for spec in specs}
        return figures | _stderrs(specs, answers)

    return compute


@metric
def plus_metrics() -> Callable[[list[SampleScore]], dict[str, float | None]]:
    """Weighted (by map difficulty) and plain accuracy, and the accuracy per plus type."""
    from benchmarks.plus.metrics import PLUS_ACCURACY, PLUS_WEIGHTED_ACCURACY

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        answers = [_plus_answer(sample) for sample in scores]
        figures = {spec.name: aggregate(spec, answers) for spec in (PLUS_WEIGHTED_ACCURACY, PLUS_ACCURACY)}
        for kind in sorted({answer.type for answer in answers}):
            figures[f"accuracy_{kind}"] = aggregate(PLUS_ACCURACY, [a for a in answers if a.type == kind])
        return figures | _stderrs((PLUS_WEIGHTED_ACCURACY,), answers)

    return compute


# -- scorers ----------------------------------------------------------------------------------


def _tokens(state: TaskState) -> int | None:
    usage = state.output.usage if state.output is not None else None
    return usage.output_tokens if usage is not None else None


# the value holds both figures, so that Inspect's reducer averages each over the epochs
# (a score's metadata is the first epoch's)
# Inspect's stderr clustered by question (its `cluster`, inspect_ai 0.3.285 scorer/_metrics/std.py): a question's
# short and long samples are not independent
@scorer(metrics=[route_metrics(), {"correct": [stderr(cluster="id")], "map_score": [stderr(cluster="id")]}])
def route_scorer(
    questions: str | None = None, split: str = "test", seed: int = 0, weighting: str = "paper", variant: str = "paper"
) -> Callable:
    """The toolkit's route scorer (correctness and map score) over the task's question set."""
    by_id, graph_for = _route_set(questions, split, seed)

    async def score(state: TaskState, target: Target) -> Score:
        from benchmarks.reasonmap.scoring import score_prediction

        identifier, kind = state.metadata["id"], state.metadata["kind"]
        question = by_id[identifier]
        response = state.output.completion if state.output is not None else ""
        prediction = Prediction(identifier, str(state.model), kind, response, _tokens(state))
        verdict = score_prediction(prediction, question, graph_for(question), weighting=weighting, variant=variant)
        return Score(
            value={"correct": verdict.correct, "map_score": verdict.map_score},
            answer=response,
            explanation=verdict.failure or "correct",
            metadata={
                "kind": kind,
                "components": dict(verdict.components),
                "weight": verdict.weight,
                "failure": verdict.failure,
                "invalid_reason": verdict.invalid_reason,
                "parsed": None if verdict.parsed is None else [section.to_dict() for section in verdict.parsed],
            },
        )

    return score


@scorer(metrics=[plus_metrics(), stderr()])
def plus_scorer(questions: str | None = None, split: str = "test", seed: int = 0, weighting: str = "city") -> Callable:
    """The toolkit's ReasonMap-Plus scorer (exact match) over the task's question set."""
    by_id = _plus_set(questions, split, seed)

    async def score(state: TaskState, target: Target) -> Score:
        from benchmarks.plus.questions import PlusPrediction
        from benchmarks.plus.scoring import score_plus_prediction

        question = by_id[state.metadata["id"]]
        response = state.output.completion if state.output is not None else ""
        prediction = PlusPrediction(question.id, str(state.model), response, _tokens(state))
        verdict = score_plus_prediction(prediction, question, weighting=weighting)
        return Score(
            value=verdict.correct,
            answer=response,
            explanation=verdict.invalid_reason or ("correct" if verdict.correct else "wrong"),
            metadata={
                "type": verdict.type,
                "weight": verdict.weight,
                "parsed": verdict.parsed,
                "chosen": verdict.chosen,
                "answer": verdict.answer,
            },
        )

    return score


# -- tasks ------------------------------------------------------------------------------------

_MAPS_VARIABLE = "REASONMAP_MAPS"


def _maps(maps: str | None, questions: str | None = None) -> str | None:
    """The map folder: given, else ``$REASONMAP_MAPS``, else the maps the question file carries, if any."""
    found = maps if maps is not None else os.environ.get(_MAPS_VARIABLE) or None
    if found is None and questions is not None:
        folder = _carried_maps(questions, _stamp(questions))
        found = None if folder is None else folder.name
    return found


@lru_cache(maxsize=4)
def _carried_maps(questions: str, stamp: int | None) -> tempfile.TemporaryDirectory | None:
    """The public data set's ``figure`` of each city, written once to a folder that lives as long as the process."""
    from benchmarks.reasonmap.official import export_figures

    if not (Path(questions).is_dir() or Path(questions).suffix in (".parquet", ".jsonl", ".json")):
        return None
    folder = tempfile.TemporaryDirectory(prefix="reasonmap-maps-")
    try:
        written, problems = export_figures(questions, folder.name)
    except ValueError:  # not the public set's format: it carries no maps
        written, problems = [], []
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
    return TaskInputError(f"reasonmap/{name}: {' '.join(str(error).split())}")


def _route(
    mode: str = "full",
    split: str = "test",
    questions: str | None = None,
    maps: str | None = None,
    kinds: str = "both",
    textualization: str = "lines",
    weighting: str = "paper",
    variant: str = "paper",
    seed: int = 0,
    pixel_budget: int = 4_000_000,
) -> Task:
    """ReasonMap route questions, short and long, in a prompt mode (``full`` needs ``maps``, a folder of maps)."""
    maps = _maps(maps, questions) if mode == "full" else maps
    by_id, graph_for = _route_set(questions, split, seed)
    try:
        samples = route_samples(
            list(by_id.values()),
            mode=mode,
            kinds=kinds,
            maps=maps,
            textualization=textualization,
            pixel_budget=pixel_budget,
            graph_for=graph_for,
        )
    except (FileNotFoundError, ValueError) as error:  # a missing or unreadable map, a mode it has not
        raise _one_line(error, "route") from None
    return Task(
        dataset=MemoryDataset(samples, name=questions or f"reasonmap-{split}-seed{seed}"),
        solver=generate(),
        scorer=route_scorer(questions, split, seed, weighting, variant),
        version=TASK_VERSION,
    )


def _plus(
    mode: str = "full",
    split: str = "test",
    questions: str | None = None,
    maps: str | None = None,
    weighting: str = "city",
    seed: int = 0,
    pixel_budget: int = 4_000_000,
) -> Task:
    """ReasonMap-Plus counting and true/false questions, in ``full`` (needs ``maps``) or ``text-only`` mode."""
    maps = _maps(maps) if mode == "full" else maps
    from baselines.prompts import find_map, image_data_url

    if mode not in ("full", "text-only"):
        raise TaskInputError(f"reasonmap/plus: mode must be one of ['full', 'text-only'], got {mode!r}")
    if mode == "full" and maps is None:
        raise TaskInputError(
            "reasonmap/plus: "
            f"mode 'full' needs the folder of map images (maps=... or ${_MAPS_VARIABLE}; the toolkit ships none)"
        )
    samples = []
    for question in _plus_set(questions, split, seed).values():
        content: Any = question.question
        if mode == "full":
            try:
                url = image_data_url(str(find_map(maps, question)), pixel_budget=pixel_budget)
            except (FileNotFoundError, ValueError) as error:
                raise _one_line(error, "plus") from None
            content = [ContentImage(image=url), ContentText(text=question.question)]
        metadata = {"id": question.id, "type": question.type, "city": question.city}
        samples.append(Sample(input=[ChatMessageUser(content=content)], id=question.id, metadata=metadata))
    return Task(
        dataset=MemoryDataset(samples, name=questions or f"reasonmap-plus-{split}-seed{seed}"),
        solver=generate(),
        scorer=plus_scorer(questions, split, seed, weighting),
        version=TASK_VERSION,
    )


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


route = _registered(_route, "route")
plus = _registered(_plus, "plus")

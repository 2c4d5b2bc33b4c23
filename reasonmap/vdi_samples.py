"""Samples of the text-mediated pathway (:mod:`reasonmap.vdi`): questions of any benchmark with their map image.

A :class:`SampleSet` holds the questions to ask (id, request kind, map
image, the question as asked) and how an answer is judged. Map QA questions
(:mod:`benchmarks.mapqa`) are correct on an exact match; ReasonMap questions
are asked in their short form and are correct as the paper's Algorithm 1
judges them, against the city's graph; ReasonMap-Plus questions are correct
as :mod:`benchmarks.plus.scoring` judges them. ReasonMap maps come
from a folder of ``<city>.png`` (or ``<country>__<city>.png``), as for the
``full`` prompt mode. A question whose image is missing is skipped and
reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from baselines.prompts import find_map
from benchmarks.mapqa.records import KIND as MAPQA_KIND
from benchmarks.mapqa.records import MapQuestion
from benchmarks.reasonmap.records import Question
from graphkit.graph import TransitGraph

if TYPE_CHECKING:
    from benchmarks.plus.questions import PlusQuestion

__all__ = ["Sample", "SampleSet", "mapqa_samples", "reasonmap_samples", "plus_samples", "load_samples"]


@dataclass(frozen=True, slots=True)
class Sample:
    """One question to ask: its ``id`` and request ``kind``, its map (``image``, described once under the key
    ``image_id``), and the question text as asked (``prompt``)."""

    id: str
    kind: str
    image_id: str
    image: Path
    prompt: str


@dataclass(frozen=True, slots=True)
class SampleSet:
    """The samples of one benchmark, how an answer is judged (``judge(sample, response) -> correct``), the records
    skipped and why, and what was read (file names and checksums)."""

    benchmark: str
    samples: tuple[Sample, ...]
    judge: Callable[[Sample, str], bool] = field(compare=False)
    problems: tuple[str, ...] = ()
    inputs: dict[str, Any] = field(default_factory=dict)


def mapqa_samples(questions: Iterable[MapQuestion], *, images: str | Path) -> SampleSet:
    """Samples of map questions; images relative to ``images``; correct means an exact match."""
    from benchmarks.mapqa.io import image_path
    from benchmarks.mapqa.records import MapPrediction
    from benchmarks.mapqa.scoring import score_prediction

    by_id: dict[str, MapQuestion] = {}
    samples, problems = [], []
    for question in questions:
        path = image_path(question, images)
        if not path.is_file():
            problems.append(f"question {question.id!r}: no map image at {path}; skipped")
            continue
        by_id[question.id] = question
        samples.append(Sample(question.id, MAPQA_KIND, Path(question.image).as_posix(), path, question.text()))

    def judge(sample: Sample, response: str) -> bool:
        return score_prediction(MapPrediction(sample.id, "vdi", response), by_id[sample.id]).correct == 1

    return SampleSet("mapqa", tuple(samples), judge, tuple(problems))


def reasonmap_samples(
    questions: Iterable[Question], *, maps: str | Path, graph_for: Callable[[Question], TransitGraph] | None = None
) -> SampleSet:
    """Samples of ReasonMap questions (their short form); maps from the folder ``maps`` (``<city>.png`` or
    ``<country>__<city>.png``); correct as Algorithm 1 judges it against ``graph_for(question)`` (default: the
    embedded city)."""
    from benchmarks.reasonmap.records import Prediction
    from benchmarks.reasonmap.scoring import score_prediction

    if graph_for is None:
        from graphkit.cities import city_graph

        def graph_for(question: Question) -> TransitGraph:
            return city_graph(question.city)

    by_id, samples, problems = _with_maps(
        questions, maps, lambda question, path: Sample(question.id, "short", path.name, path, question.question_short)
    )

    def judge(sample: Sample, response: str) -> bool:
        question = by_id[sample.id]
        prediction = Prediction(sample.id, "vdi", "short", response)
        return score_prediction(prediction, question, graph_for(question), weighting="none").correct == 1

    return SampleSet("reasonmap", tuple(samples), judge, tuple(problems))


def plus_samples(questions: Iterable[PlusQuestion], *, maps: str | Path) -> SampleSet:
    """Samples of ReasonMap-Plus questions (asked as written; the request kind is the question's type), maps from
    the folder ``maps``; correct as the plus scorer judges an answer."""
    from benchmarks.plus.questions import PlusPrediction
    from benchmarks.plus.scoring import score_plus_prediction

    by_id, samples, problems = _with_maps(
        questions, maps, lambda question, path: Sample(question.id, question.type, path.name, path, question.question)
    )

    def judge(sample: Sample, response: str) -> bool:
        return score_plus_prediction(PlusPrediction(sample.id, "vdi", response), by_id[sample.id]).correct == 1

    return SampleSet("plus", tuple(samples), judge, tuple(problems))


def load_samples(path: str | Path, *, maps: str | Path | None = None, task: str | None = None) -> SampleSet:
    """The samples of a question file of any task (:mod:`benchmarks.tasks`): map QA, ReasonMap route (the
    toolkit's or the public data set's) or ReasonMap-Plus questions; ``task`` ``None`` tells them apart by the
    first record.

    Parameters
    ----------
    path
        The question file.
    maps
        The folder of map images: for map QA, what ``image`` paths are relative to (default: the file's folder);
        for route and plus questions, required.
    task : {"route", "plus", "mapqa"}, optional

    Raises
    ------
    ValueError
        An unknown task, or route or plus questions without ``maps``.
    InvalidRecord
        The file cannot be read at all.
    """
    from benchmarks.provenance import input_entry
    from reasonmap.evaluate import task_of

    path = Path(path)
    found = task_of(path, task)
    if found.name != "mapqa" and maps is None:
        raise ValueError(f"{found.name} questions need the folder of map images (--maps DIR; the toolkit ships none)")
    loaded = found.load(path)
    if found.name == "mapqa":
        samples = mapqa_samples(loaded.questions.values(), images=maps if maps is not None else path.parent)
    elif found.name == "plus":
        samples = plus_samples(loaded.questions.values(), maps=maps)
    else:
        from benchmarks.reasonmap.loading import graph_lookup

        graph_for = graph_lookup(dict(loaded.context.get("metro", {})))
        samples = reasonmap_samples(loaded.questions.values(), maps=maps, graph_for=graph_for)
    return SampleSet(
        samples.benchmark,
        samples.samples,
        samples.judge,
        loaded.problems + samples.problems,
        {"questions": input_entry(path)},
    )


def _with_maps(questions, maps, make_sample):
    """Questions by id and their samples, for those whose city map is in ``maps``; the others are reported."""
    by_id, samples, problems = {}, [], []
    for question in questions:
        try:
            path = find_map(maps, question)
        except FileNotFoundError as error:
            problems.append(f"question {question.id!r}: {error}; skipped")
            continue
        by_id[question.id] = question
        samples.append(make_sample(question, path))
    return by_id, samples, problems

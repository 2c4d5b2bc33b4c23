"""Questions with their map image, as the visual dependency index asks them (``reasonmap vdi``).

A :class:`SampleSet` holds the questions to ask (id, request kind, map
image, the question as asked) and how an answer is judged; each task builds
its own (the ``samples`` of its :class:`~benchmarks.tasks.Task` record).
City maps come from a folder of ``<city>.png`` (or
``<country>__<city>.png``, as ``export_figures`` writes them), found by
:func:`find_map`; a question whose image is missing is skipped and reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Sample", "SampleSet", "find_map", "with_city_maps", "typed_samples", "judged_exactly"]


@dataclass(frozen=True, slots=True)
class Sample:
    """One question to ask: its ``id`` and request ``kind``, its map (``image``, described once under the key
    ``image_id``), and the question text as asked (``prompt``).

    Attributes
    ----------
    id, kind : str
        The question's id and the request's kind.
    image_id : str
        The key its map is described under.
    image : Path
        The map image.
    prompt : str
        The question as asked.
    """

    id: str
    kind: str
    image_id: str
    image: Path
    prompt: str


@dataclass(frozen=True, slots=True)
class SampleSet:
    """The samples of one benchmark, how an answer is judged (``judge(sample, response) -> correct``), the records
    skipped and why, and what was read (file names and checksums).

    Attributes
    ----------
    benchmark : str
        The task.
    samples : tuple of Sample
        The questions to ask.
    judge : callable
        ``judge(sample, response) -> bool``.
    problems : tuple of str
        The records skipped, and why.
    inputs : dict
        The files read (names and checksums).
    """

    benchmark: str
    samples: tuple[Sample, ...]
    judge: Callable[[Sample, str], bool] = field(compare=False)
    problems: tuple[str, ...] = ()
    inputs: dict[str, Any] = field(default_factory=dict)


def find_map(maps: str | Path, question: Any) -> Path:
    """The map image of a question's city (its ``city`` and ``country``) in ``maps``.

    Parameters
    ----------
    maps : str or Path
        The folder of maps (``<city>.png`` or ``<country>__<city>.png``).
    question : Any
        A question with ``city`` and ``country``.

    Returns
    -------
    Path
        The map.

    Raises
    ------
    FileNotFoundError
        Naming the folder and the file names looked for; or the fields would name a file outside it.
    """
    from graphkit.files import file_in

    folder = Path(maps)
    names = [f"{question.city}.png", f"{question.country}__{question.city}.png"]
    for name in names:
        try:
            path = file_in(folder, name)  # a record's fields must not reach a file outside the folder
        except ValueError as error:
            raise FileNotFoundError(f"no map of {question.city!r} in {folder}: {error}") from None
        if path.is_file():
            return path
    raise FileNotFoundError(f"no map of {question.city!r} in {folder}: looked for {' or '.join(names)}")


def with_city_maps(
    questions: Iterable[Any], maps: str | Path, make_sample: Callable[[Any, Path], Sample]
) -> tuple[dict[str, Any], list[Sample], list[str]]:
    """Questions by id and their samples, for those whose city map is in ``maps``; the others are reported.

    Parameters
    ----------
    questions : iterable
        The questions (with ``id``, ``city`` and ``country``).
    maps : str or Path
        The folder of maps.
    make_sample : callable
        ``(question, map) -> Sample``.

    Returns
    -------
    questions : dict
        The questions with a map, by id.
    samples : list of Sample
        Their samples.
    problems : list of str
        The questions left out, and why.
    """
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


def typed_samples(
    benchmark: str, questions: Iterable[Any], maps: str | Path, correct: Callable[[Any, str], bool]
) -> SampleSet:
    """The samples of a task whose questions are asked as written (their ``question``).

    Parameters
    ----------
    benchmark : str
        The task's name.
    questions : iterable
        The questions (with ``id``, ``type``, ``question``, ``city`` and ``country``).
    maps : str or Path
        The folder of city maps (:func:`with_city_maps`).
    correct : callable
        ``(question, response) -> bool``: judges an answer.

    Returns
    -------
    SampleSet
        One sample per question with a map, the request kind being the question's ``type``; a question without a
        map is reported in its problems and skipped.
    """
    by_id, samples, problems = with_city_maps(
        questions, maps, lambda question, path: Sample(question.id, question.type, path.name, path, question.question)
    )

    def judge(sample: Sample, response: str) -> bool:
        return correct(by_id[sample.id], response)

    return SampleSet(benchmark, tuple(samples), judge, tuple(problems))


def judged_exactly(
    score: Callable[[Any, Any], Any], prediction: Callable[[str, str, str], Any]
) -> Callable[[Any, str], bool]:
    """A ``correct`` for :func:`typed_samples`: an answer is correct when the task's scorer gives it 1.

    Parameters
    ----------
    score : callable
        The task's ``score_prediction(prediction, question)``: a verdict with ``correct``.
    prediction : callable
        The task's prediction record, made as ``prediction(id, model, response)``.

    Returns
    -------
    callable
        ``(question, response) -> bool``, the answer made a prediction of the model ``vdi``.

    Examples
    --------
    >>> from types import SimpleNamespace as Record
    >>> score = lambda prediction, question: Record(correct=int(prediction.response == question.answer))
    >>> correct = judged_exactly(score, lambda *fields: Record(response=fields[2]))
    >>> correct(Record(id="q1", answer="yes"), "yes"), correct(Record(id="q1", answer="yes"), "no")
    (True, False)
    """

    def correct(question: Any, response: str) -> bool:
        return score(prediction(question.id, "vdi", response), question).correct == 1

    return correct

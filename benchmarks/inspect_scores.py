"""What the tasks' Inspect AI scorers share: the answers their metrics read, each headline's standard error, and
the pieces of a task scored right or wrong per question (plus, probes).

Each task's scorer and metrics live in its folder (``benchmarks/<folder>/inspect_scorer.py``, named by its
record's :class:`benchmarks.tasks.InspectSpec`); :mod:`reasonmap.inspect_tasks` builds the Inspect tasks. A task
whose answer is right or wrong builds its three pieces here: :func:`question_set` (its questions, cached),
:func:`typed_metrics` (the figures of its ``@metric``) and :func:`exact_score` (the coroutine of its ``@scorer``);
its folder keeps only the Inspect decorators, whose names Inspect records. Nothing here imports Inspect at import
time (the scores and states are read by their attributes; :func:`exact_score` imports Inspect's ``Score``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from benchmarks.metrics import MetricSpec

__all__ = [
    "Answer",
    "question_id",
    "headline_stderrs",
    "output_tokens",
    "file_stamp",
    "question_set",
    "typed_metrics",
    "exact_score",
    "one_sample_per_question",
]


@dataclass(frozen=True, slots=True)
class Answer:
    """What a task's metric specs read of one answer, taken from its Inspect score."""

    id: str
    question: str | None
    correct: float
    map_score: float | None
    weight: float
    type: str | None = None
    tokens: int | None = None  # Inspect keeps the tokens in its own usage records


def question_id(sample: Any) -> str:
    """The question an Inspect ``SampleScore`` asks: a sample's id less its ``:<kind>`` (the score's metadata
    ``kind``), or the whole id when the score names no kind."""
    identifier = str(sample.sample_id)
    kind = (sample.score.metadata or {}).get("kind")
    return identifier.removesuffix(f":{kind}") if kind else identifier


def headline_stderrs(specs: Sequence[MetricSpec], answers: Sequence[Answer]) -> dict[str, float | None]:
    """``<metric>_stderr`` of each headline spec: the standard error of the report's bootstrap over questions
    (:mod:`benchmarks.intervals`; a question's short and long samples drawn together), beside the figure as
    Inspect's own ``stderr()`` sits beside a mean. With epochs, each sample's value is already their mean."""
    from benchmarks.intervals import intervals
    from benchmarks.metrics import headline

    chosen = headline(specs)
    found = intervals(chosen, answers)
    return {f"{spec.name}_stderr": found[spec.name].se if spec.name in found else None for spec in chosen}


def output_tokens(state: Any) -> int | None:
    """The output tokens of an Inspect ``TaskState``'s answer, when its model reported them."""
    usage = state.output.usage if state.output is not None else None
    return usage.output_tokens if usage is not None else None


def file_stamp(questions: str | None) -> int | None:
    """When the question file last changed: a set is loaded once for the task and its scorer, and again when edited."""
    if questions is None:
        return None
    try:
        return Path(questions).stat().st_mtime_ns
    except OSError:  # missing or unreadable: the question file's reader names the problem
        return None


def one_sample_per_question(question: Any, kind: str) -> tuple[str, dict[str, Any]]:
    """The sample id and metadata of a task asked once per question (``InspectSpec.sample``): the question's id,
    and its ``id``, ``type`` and ``city``."""
    return question.id, {"id": question.id, "type": question.type, "city": question.city}


#: What a task's ``question_set`` returns: its questions by id, the graph of a question's city (``None``: the
#: embedded city's), and the records skipped (see :class:`benchmarks.tasks.InspectSpec`).
QuestionSet = tuple[dict[str, Any], None, tuple[Any, ...]]


def question_set(
    load: Callable[[str], tuple[Mapping[str, Any], Sequence[Any]]],
    generate: Callable[..., Iterable[Any]],
    what: str,
) -> Callable[[str | None, str, int], QuestionSet]:
    """The ``question_set(questions, split, seed)`` of a task whose questions carry what scoring needs (no graph).

    Parameters
    ----------
    load : callable
        Reads a question file: ``(questions by id, problems)``.
    generate : callable
        Generates a set from city graphs with a ``seed`` keyword (the generator's other defaults).
    what : str
        A question, as the error of a file without one readable question names it (``plus question``).

    Returns
    -------
    callable
        ``(questions, split, seed) -> (by id, None, records skipped)``: the file's questions, else the split's
        cities generated; a file without one readable question raises ``ValueError``. A set is loaded once for
        the task and its scorer, and again when its file is edited.
    """

    @lru_cache(maxsize=8)
    def loaded(questions: str | None, stamp: int | None, split: str, seed: int) -> QuestionSet:
        if questions is not None:
            found, problems = load(questions)
            if not found:
                reasons = "; ".join(str(problem) for problem in problems[:3])
                raise ValueError(f"{questions}: no readable {what}{f' ({reasons})' if reasons else ''}")
            return dict(found), None, tuple(problems)
        from benchmarks.splits import split_cities
        from graphkit.cities import city_graph, city_names

        generated = generate([city_graph(name) for name in split_cities(split, city_names())], seed=seed)
        return {question.id: question for question in generated}, None, ()

    def chosen(questions: str | None, split: str, seed: int) -> QuestionSet:
        return loaded(questions, file_stamp(questions), split, seed)

    return chosen


def _typed_answer(sample: Any) -> Answer:
    """A right-or-wrong score as its metrics read it: the value, the ``type`` and ``weight`` (1 when not given)
    of its metadata."""
    metadata = sample.score.metadata or {}
    return Answer(question_id(sample), None, sample.score.value, None, metadata.get("weight", 1.0), metadata["type"])


def typed_metrics(
    specs: Sequence[MetricSpec], by_type: MetricSpec, *, means: Sequence[str] = ()
) -> Callable[[list[Any]], dict[str, float | None]]:
    """What a right-or-wrong task's ``@metric`` returns: ``compute(scores)``, the figures of its Inspect log.

    Parameters
    ----------
    specs : sequence of MetricSpec
        The figures over all answers, in this order (their headline ones also get ``<name>_stderr``:
        :func:`headline_stderrs`).
    by_type : MetricSpec
        The figure of each question type's answers, as ``accuracy_<type>`` (types in sorted order).
    means : sequence of str
        Metadata fields whose mean (6 digits; ``None`` over no score) follows ``specs``' figures.

    Returns
    -------
    callable
        From Inspect's ``SampleScore`` list to the figures by name.
    """
    from benchmarks.metrics import aggregate

    def compute(scores: list[Any]) -> dict[str, float | None]:
        answers = [_typed_answer(sample) for sample in scores]
        figures = {spec.name: aggregate(spec, answers) for spec in specs}
        for name in means:
            values = [float((sample.score.metadata or {})[name]) for sample in scores]
            figures[name] = round(sum(values) / len(values), 6) if values else None
        for kind in sorted({answer.type for answer in answers}):
            figures[f"accuracy_{kind}"] = aggregate(by_type, [answer for answer in answers if answer.type == kind])
        return figures | headline_stderrs(specs, answers)

    return compute


def exact_score(
    by_id: Mapping[str, Any],
    verdict_of: Callable[[Any, str, str, int | None], Any],
    metadata_of: Callable[[Any], dict[str, Any]],
) -> Callable[[Any, Any], Any]:
    """What a right-or-wrong task's ``@scorer`` returns: the coroutine ``score(state, target)``.

    Parameters
    ----------
    by_id : mapping
        The task's questions by id (a sample's metadata ``id`` names its question).
    verdict_of : callable
        ``(question, model, response, output tokens) -> verdict``; the verdict has ``correct`` and
        ``invalid_reason``.
    metadata_of : callable
        The score's metadata of a verdict (what the task's metrics and readers of the log need).

    Returns
    -------
    callable
        The Inspect ``Score`` of a sample: the verdict's ``correct``, the response as the answer, and the reason
        it was invalid or ``correct`` / ``wrong`` as the explanation.
    """
    from inspect_ai.scorer import Score

    async def score(state: Any, target: Any) -> Any:
        question = by_id[state.metadata["id"]]
        response = state.output.completion if state.output is not None else ""
        verdict = verdict_of(question, str(state.model), response, output_tokens(state))
        return Score(
            value=verdict.correct,
            answer=response,
            explanation=verdict.invalid_reason or ("correct" if verdict.correct else "wrong"),
            metadata=metadata_of(verdict),
        )

    return score

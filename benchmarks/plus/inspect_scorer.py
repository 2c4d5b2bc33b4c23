"""The plus task's Inspect AI scorer and metrics, and its question set (see :mod:`reasonmap.inspect_tasks`).

Named by the plus record's :class:`benchmarks.tasks.InspectSpec`; imports Inspect (the ``[inspect]`` extra).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from inspect_ai.scorer import SampleScore, Score, Target, metric, scorer, stderr
from inspect_ai.solver import TaskState

from benchmarks.inspect_scores import Answer, file_stamp, headline_stderrs, output_tokens, question_id
from benchmarks.metrics import aggregate
from benchmarks.plus.records import PlusQuestion

__all__ = ["plus_set", "plus_metrics", "plus_scorer"]


def plus_set(questions: str | None, split: str, seed: int) -> tuple[dict[str, PlusQuestion], None, tuple[Any, ...]]:
    """Plus questions by id, no graph (a question's city is the embedded one), and the records skipped."""
    return _load_plus_set(questions, file_stamp(questions), split, seed)


@lru_cache(maxsize=8)
def _load_plus_set(
    questions: str | None, stamp: int | None, split: str, seed: int
) -> tuple[dict[str, PlusQuestion], None, tuple[Any, ...]]:
    if questions is not None:
        from benchmarks.plus.loading import load_questions

        found, problems = load_questions(questions)
        if not found:
            reasons = "; ".join(str(problem) for problem in problems[:3])
            raise ValueError(f"{questions}: no readable plus question{f' ({reasons})' if reasons else ''}")
        return found, None, tuple(problems)
    from benchmarks.plus.questions import generate_plus_set
    from benchmarks.splits import split_cities
    from graphkit.cities import city_graph, city_names

    generated = generate_plus_set([city_graph(name) for name in split_cities(split, city_names())], seed=seed)
    return {question.id: question for question in generated}, None, ()


def _answer(sample: SampleScore) -> Answer:
    metadata = sample.score.metadata or {}
    return Answer(question_id(sample), None, sample.score.value, None, metadata["weight"], metadata["type"])


@metric
def plus_metrics() -> Callable[[list[SampleScore]], dict[str, float | None]]:
    """Weighted (by map difficulty) and plain accuracy, and the accuracy per plus type."""
    from benchmarks.plus.metrics import PLUS_ACCURACY, PLUS_WEIGHTED_ACCURACY

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        answers = [_answer(sample) for sample in scores]
        figures = {spec.name: aggregate(spec, answers) for spec in (PLUS_WEIGHTED_ACCURACY, PLUS_ACCURACY)}
        for kind in sorted({answer.type for answer in answers}):
            figures[f"accuracy_{kind}"] = aggregate(PLUS_ACCURACY, [a for a in answers if a.type == kind])
        return figures | headline_stderrs((PLUS_WEIGHTED_ACCURACY,), answers)

    return compute


@scorer(metrics=[plus_metrics(), stderr()])
def plus_scorer(questions: str | None = None, split: str = "test", seed: int = 0, weighting: str = "city") -> Callable:
    """The toolkit's ReasonMap-Plus scorer (exact match) over the task's question set."""
    by_id, _, _ = plus_set(questions, split, seed)

    async def score(state: TaskState, target: Target) -> Score:
        from benchmarks.plus.records import PlusPrediction
        from benchmarks.plus.scoring import score_prediction

        question = by_id[state.metadata["id"]]
        response = state.output.completion if state.output is not None else ""
        prediction = PlusPrediction(question.id, str(state.model), response, output_tokens(state))
        verdict = score_prediction(prediction, question, weighting=weighting)
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

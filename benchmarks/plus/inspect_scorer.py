"""The plus task's Inspect AI scorer and metrics, and its question set (see :mod:`reasonmap.inspect_tasks`).

Named by the plus record's :class:`benchmarks.tasks.InspectSpec`; imports Inspect (the ``[inspect]`` extra). The
pieces are the shared ones of a right-or-wrong task (:mod:`benchmarks.inspect_scores`); here are what plus puts in
them and the Inspect names its log records.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from inspect_ai.scorer import SampleScore, metric, scorer, stderr

from benchmarks.inspect_scores import exact_score, question_set, typed_metrics
from benchmarks.plus.loading import load_questions
from benchmarks.plus.questions import generate_plus_set
from benchmarks.plus.records import PlusPrediction, PlusQuestion
from benchmarks.plus.scoring import PlusVerdict, score_prediction

__all__ = ["plus_set", "plus_metrics", "plus_scorer"]

#: Plus questions by id, no graph (a question's city is the embedded one), and the records skipped.
plus_set = question_set(load_questions, generate_plus_set, "plus question")


@metric
def plus_metrics() -> Callable[[list[SampleScore]], dict[str, float | None]]:
    """Weighted (by map difficulty) and plain accuracy, and the accuracy per plus type."""
    from benchmarks.plus.metrics import PLUS_ACCURACY, PLUS_WEIGHTED_ACCURACY

    return typed_metrics((PLUS_WEIGHTED_ACCURACY, PLUS_ACCURACY), PLUS_ACCURACY)


def _verdict(question: PlusQuestion, model: str, response: str, tokens: int | None, *, weighting: str) -> PlusVerdict:
    return score_prediction(PlusPrediction(question.id, model, response, tokens), question, weighting=weighting)


def _metadata(verdict: PlusVerdict) -> dict[str, Any]:
    return {
        "type": verdict.type,
        "weight": verdict.weight,
        "parsed": verdict.parsed,
        "chosen": verdict.chosen,
        "answer": verdict.answer,
    }


@scorer(metrics=[plus_metrics(), stderr()])
def plus_scorer(questions: str | None = None, split: str = "test", seed: int = 0, weighting: str = "city") -> Callable:
    """The toolkit's ReasonMap-Plus scorer (exact match) over the task's question set."""
    by_id, _, _ = plus_set(questions, split, seed)
    return exact_score(by_id, partial(_verdict, weighting=weighting), _metadata)

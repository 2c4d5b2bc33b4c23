"""The route task's Inspect AI scorer and metrics, and its question set (see :mod:`reasonmap.inspect_tasks`).

Named by the route record's :class:`benchmarks.tasks.InspectSpec`; imports Inspect (the ``[inspect]`` extra).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from inspect_ai.scorer import SampleScore, Score, Target, metric, scorer, stderr
from inspect_ai.solver import TaskState

from benchmarks.inspect_scores import Answer, file_stamp, headline_stderrs, output_tokens, question_id
from benchmarks.metrics import aggregate
from benchmarks.reasonmap.records import Prediction, Question
from graphkit.graph import TransitGraph

__all__ = ["route_set", "route_metrics", "route_scorer"]


def route_set(
    questions: str | None, split: str, seed: int
) -> tuple[dict[str, Question], Callable[[Question], TransitGraph], tuple[Any, ...]]:
    """Questions by id, the graph of each question's city, and the records skipped."""
    return _load_route_set(questions, file_stamp(questions), split, seed)


@lru_cache(maxsize=8)
def _load_route_set(
    questions: str | None, stamp: int | None, split: str, seed: int
) -> tuple[dict[str, Question], Callable[[Question], TransitGraph], tuple[Any, ...]]:
    from benchmarks.reasonmap.loading import graph_lookup, load_questions

    if questions is not None:
        found, metro, problems = load_questions(questions)
        if not found:
            reasons = "; ".join(str(problem) for problem in problems[:3])
            raise ValueError(f"{questions}: no readable question{f' ({reasons})' if reasons else ''}")
        return found, graph_lookup(metro), tuple(problems)
    from benchmarks.reasonmap.generate import generate_set
    from benchmarks.splits import split_cities
    from graphkit.cities import city_graph, city_names

    generated = generate_set([city_graph(name) for name in split_cities(split, city_names())], seed=seed)
    return {question.id: question for question in generated}, graph_lookup({}), ()


def _answer(sample: SampleScore) -> Answer:
    score = sample.score
    metadata = score.metadata or {}
    value = score.value
    return Answer(question_id(sample), metadata.get("kind"), value["correct"], value["map_score"], metadata["weight"])


@metric
def route_metrics() -> Callable[[list[SampleScore]], dict[str, float | None]]:
    """The report's figures per kind (the route task's metric specs, tokens aside), from the scores' ``correct``
    and their metadata's ``map_score`` and ``weight``."""
    from benchmarks.reasonmap.metrics import ROUTE_METRICS

    specs = [spec for spec in ROUTE_METRICS if not spec.name.startswith("mean_tokens")]

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        answers = [_answer(sample) for sample in scores]
        figures = {spec.name: aggregate(spec, answers) for spec in specs}
        return figures | headline_stderrs(specs, answers)

    return compute


# the value holds both figures, so that Inspect's reducer averages each over the epochs
# (a score's metadata is the first epoch's)
# Inspect's stderr clustered by question (its `cluster`, inspect_ai 0.3.285 scorer/_metrics/std.py): a question's
# short and long samples are not independent
@scorer(metrics=[route_metrics(), {"correct": [stderr(cluster="id")], "map_score": [stderr(cluster="id")]}])
def route_scorer(
    questions: str | None = None, split: str = "test", seed: int = 0, weighting: str = "paper", variant: str = "paper"
) -> Callable:
    """The toolkit's route scorer (correctness and map score) over the task's question set."""
    by_id, graph_for, _ = route_set(questions, split, seed)

    async def score(state: TaskState, target: Target) -> Score:
        from benchmarks.reasonmap.scoring import score_prediction

        identifier, kind = state.metadata["id"], state.metadata["kind"]
        question = by_id[identifier]
        response = state.output.completion if state.output is not None else ""
        prediction = Prediction(identifier, str(state.model), kind, response, output_tokens(state))
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

"""The probe task's Inspect AI scorer and metrics, and its question set (see :mod:`reasonmap.inspect_tasks`).

Named by the probe record's :class:`benchmarks.tasks.InspectSpec`; imports Inspect (the ``[inspect]`` extra).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from inspect_ai.scorer import SampleScore, Score, Target, metric, scorer, stderr
from inspect_ai.solver import TaskState

from benchmarks.inspect_scores import Answer, file_stamp, headline_stderrs, output_tokens, question_id
from benchmarks.metrics import aggregate
from benchmarks.probe.questions import ProbeQuestion

__all__ = ["probe_set", "probe_metrics", "probe_scorer"]


def probe_set(questions: str | None, split: str, seed: int) -> tuple[dict[str, ProbeQuestion], None, tuple[Any, ...]]:
    """Probes by id, no graph (a probe's references are in its record), and the records skipped."""
    return _load_probe_set(questions, file_stamp(questions), split, seed)


@lru_cache(maxsize=8)
def _load_probe_set(
    questions: str | None, stamp: int | None, split: str, seed: int
) -> tuple[dict[str, ProbeQuestion], None, tuple[Any, ...]]:
    if questions is not None:
        from benchmarks.probe.io import load_questions

        found, problems = load_questions(questions)
        if not found:
            reasons = "; ".join(str(problem) for problem in problems[:3])
            raise ValueError(f"{questions}: no readable probe{f' ({reasons})' if reasons else ''}")
        return found, None, tuple(problems)
    from benchmarks.probe.questions import generate_probe_set
    from benchmarks.splits import split_cities
    from graphkit.cities import city_graph, city_names

    generated = generate_probe_set([city_graph(name) for name in split_cities(split, city_names())], seed=seed)
    return {question.id: question for question in generated}, None, ()


def _answer(sample: SampleScore) -> Answer:
    metadata = sample.score.metadata or {}
    return Answer(question_id(sample), None, sample.score.value, None, 1.0, metadata["type"])


@metric
def probe_metrics() -> Callable[[list[SampleScore]], dict[str, float | None]]:
    """Accuracy, the mean partial score, and the accuracy per probe type."""
    from benchmarks.probe.metrics import PROBE_ACCURACY

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        answers = [_answer(sample) for sample in scores]
        figures: dict[str, float | None] = {"accuracy": aggregate(PROBE_ACCURACY, answers)}
        partial = [float((sample.score.metadata or {})["partial"]) for sample in scores]
        figures["partial"] = round(sum(partial) / len(partial), 6) if partial else None
        for kind in sorted({answer.type for answer in answers}):
            figures[f"accuracy_{kind}"] = aggregate(PROBE_ACCURACY, [a for a in answers if a.type == kind])
        return figures | headline_stderrs((PROBE_ACCURACY,), answers)

    return compute


@scorer(metrics=[probe_metrics(), stderr()])
def probe_scorer(questions: str | None = None, split: str = "test", seed: int = 0) -> Callable:
    """The toolkit's probe scorer (exact and partial) over the task's question set."""
    by_id, _, _ = probe_set(questions, split, seed)

    async def score(state: TaskState, target: Target) -> Score:
        from benchmarks.probe.questions import ProbePrediction
        from benchmarks.probe.scoring import score_prediction

        question = by_id[state.metadata["id"]]
        response = state.output.completion if state.output is not None else ""
        verdict = score_prediction(
            ProbePrediction(question.id, str(state.model), response, output_tokens(state)), question
        )
        record = verdict.to_dict()
        return Score(
            value=verdict.correct,
            answer=response,
            explanation=verdict.invalid_reason or ("correct" if verdict.correct else "wrong"),
            metadata={
                "type": verdict.type,
                "partial": verdict.partial,
                "parsed": record["parsed"],
                "answer": record["answer"],
            },  # fmt: skip
        )

    return score

"""The probe task's Inspect AI scorer and metrics, and its question set (see :mod:`reasonmap.inspect_tasks`).

Named by the probe record's :class:`benchmarks.tasks.InspectSpec`; imports Inspect (the ``[inspect]`` extra). The
pieces are the shared ones of a right-or-wrong task (:mod:`benchmarks.inspect_scores`); here are what the probes
put in them and the Inspect names their log records.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspect_ai.scorer import SampleScore, metric, scorer, stderr

from benchmarks.inspect_scores import exact_score, question_set, typed_metrics
from benchmarks.probe.io import load_questions
from benchmarks.probe.questions import ProbePrediction, ProbeQuestion, generate_probe_set
from benchmarks.probe.scoring import ProbeVerdict, score_prediction

__all__ = ["probe_set", "probe_metrics", "probe_scorer"]

#: Probes by id, no graph (a probe's references are in its record), and the records skipped.
probe_set = question_set(load_questions, generate_probe_set, "probe")


@metric
def probe_metrics() -> Callable[[list[SampleScore]], dict[str, float | None]]:
    """Accuracy, the mean partial score, and the accuracy per probe type."""
    from benchmarks.probe.metrics import PROBE_ACCURACY

    return typed_metrics((PROBE_ACCURACY,), PROBE_ACCURACY, means=("partial",))


def _verdict(question: ProbeQuestion, model: str, response: str, tokens: int | None) -> ProbeVerdict:
    return score_prediction(ProbePrediction(question.id, model, response, tokens), question)


def _metadata(verdict: ProbeVerdict) -> dict[str, Any]:
    record = verdict.to_dict()
    return {"type": verdict.type, "partial": verdict.partial, "parsed": record["parsed"], "answer": record["answer"]}


@scorer(metrics=[probe_metrics(), stderr()])
def probe_scorer(questions: str | None = None, split: str = "test", seed: int = 0) -> Callable:
    """The toolkit's probe scorer (exact and partial) over the task's question set."""
    by_id, _, _ = probe_set(questions, split, seed)
    return exact_score(by_id, _verdict, _metadata)

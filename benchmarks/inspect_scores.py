"""What the tasks' Inspect AI scorers share: the answers their metrics read, and each headline's standard error.

Each task's scorer and metrics live in its folder (``benchmarks/<folder>/inspect_scorer.py``, named by its
record's :class:`benchmarks.tasks.InspectSpec`); :mod:`reasonmap.inspect_tasks` builds the Inspect tasks.
Nothing here imports Inspect: the scores and states are read by their attributes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.metrics import MetricSpec

__all__ = ["Answer", "question_id", "headline_stderrs", "output_tokens", "file_stamp"]


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

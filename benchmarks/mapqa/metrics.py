"""The map QA task's metrics, one :class:`~benchmarks.metrics.MetricSpec` per figure of a report's row.

Accuracy (the mean of ``exact`` over every answer) is the headline; beside it
the mean of each other per-answer score of :data:`benchmarks.mapqa.scoring.METRICS`
over the answers it applies to (``mean_jaccard``: multiple choice,
``mean_kendall_tau``: sorting), with that score's range and direction.
Map QA weighs every question alike. ``reasonmap compare`` and ``leaderboard``
read all three from scored rows (their ``field``).
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from benchmarks.mapqa.scoring import METRICS
from benchmarks.metrics import MetricSpec

__all__ = ["MAPQA_METRICS", "MAPQA_ACCURACY"]


@dataclass(frozen=True, slots=True)
class _Score:
    """An answer's score under one per-answer metric, ``None`` where that metric does not apply."""

    name: str

    def __call__(self, answer: Any) -> float | None:
        return answer.scores.get(self.name)


MAPQA_ACCURACY = MetricSpec(
    "accuracy",
    attrgetter("correct"),
    "share of answers exactly right (the option, the set of options or the order)",
    label="Acc.",
    aggregation="mean",
    headline=True,
    field="correct",
)
#: Every map QA metric, the headline first.
MAPQA_METRICS: tuple[MetricSpec, ...] = (
    MAPQA_ACCURACY,
    *(
        MetricSpec(
            f"mean_{name}",
            _Score(name),
            f"mean {name} over the {' and '.join(metric.types)} questions: {metric.description}",
            label=name.replace("_", " ").capitalize(),
            aggregation="mean",
            higher_is_better=metric.higher_is_better,
            bounds=(metric.low, metric.high),
            field=name,  # a scored row holds each score under its name
        )
        for name, metric in METRICS.items()
        if name != "exact"
    ),
)

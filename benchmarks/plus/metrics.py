"""The ReasonMap-Plus task's metrics, one :class:`~benchmarks.metrics.MetricSpec` per figure of a report's row.

Accuracy weighted by map difficulty (each verdict's ``weight``: 1 / 1.5 / 2
under the default ``city`` weighting) is the headline (and what ``reasonmap compare`` and ``leaderboard`` read from
scored rows); the plain accuracy and
the mean output tokens sit beside it.
"""

from __future__ import annotations

from operator import attrgetter

from benchmarks.metrics import MEAN_TOKENS, MetricSpec

__all__ = ["PLUS_METRICS", "PLUS_WEIGHTED_ACCURACY", "PLUS_ACCURACY"]

PLUS_WEIGHTED_ACCURACY = MetricSpec(
    "weighted_accuracy",
    attrgetter("correct"),
    "share of right answers, weighted by map difficulty",
    label="Acc.",
    headline=True,
    field="correct",  # what paired comparisons and leaderboards read from scored rows
)
PLUS_ACCURACY = MetricSpec(
    "accuracy",
    attrgetter("correct"),
    "share of right answers, every question weighing 1",
    label="Acc. (unweighted)",
    aggregation="mean",
)
#: Every plus metric, the headline first.
PLUS_METRICS: tuple[MetricSpec, ...] = (
    PLUS_WEIGHTED_ACCURACY,
    PLUS_ACCURACY,
    MEAN_TOKENS,
)

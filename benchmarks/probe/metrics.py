"""The probe task's metrics, one :class:`~benchmarks.metrics.MetricSpec` per figure of a report's row.

Accuracy (exact answers, every probe weighing 1) is the headline, and what ``reasonmap compare`` and
``leaderboard`` read from scored rows; beside it the mean partial score (set F1, edit similarity of
sequences, exact for yes/no and counts) and the mean output tokens.
"""

from __future__ import annotations

from operator import attrgetter

from benchmarks.metrics import MEAN_TOKENS, MetricSpec

__all__ = ["PROBE_METRICS", "PROBE_ACCURACY", "PROBE_PARTIAL"]

PROBE_ACCURACY = MetricSpec(
    "accuracy",
    attrgetter("correct"),
    "share of probes answered exactly (the same set, sequence, yes/no or number)",
    label="Acc.",
    aggregation="mean",
    headline=True,
    field="correct",
)
PROBE_PARTIAL = MetricSpec(
    "partial",
    attrgetter("partial"),
    "mean partial score: set F1, normalised edit similarity of sequences, exact for yes/no and counts",
    label="Partial",
    aggregation="mean",
    field="partial",
)
#: Every probe metric, the headline first.
PROBE_METRICS: tuple[MetricSpec, ...] = (
    PROBE_ACCURACY,
    PROBE_PARTIAL,
    MEAN_TOKENS,
)

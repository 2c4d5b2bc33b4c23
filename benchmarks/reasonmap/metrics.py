"""The route task's metrics, one :class:`~benchmarks.metrics.MetricSpec` per figure of a report's model row.

Per question kind (``short``, ``long``): the weighted accuracy and map score
(the paper's Table 2, weighted by each verdict's difficulty weight), their
unweighted means, and the mean output tokens. The four of Table 2 are the
headline, and the ones ``reasonmap compare`` and ``leaderboard`` read from
scored rows (their ``field`` and ``kind``). Map scores are bounded by the kind's maximum: 20 short, 40 long
(the paper's Algorithm 2: 10 + 10 and 20 + 20 with the bonus).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from benchmarks.metrics import MetricSpec
from benchmarks.reasonmap.records import KINDS

__all__ = ["ROUTE_METRICS", "MAP_SCORE_MAXIMUM", "route_metrics_of"]

#: The largest map score of a kind (Algorithm 2, bonus included).
MAP_SCORE_MAXIMUM = {"short": 20.0, "long": 40.0}


@dataclass(frozen=True, slots=True)
class _OfKind:
    """An answer's ``field`` when it answers a question of ``kind``, else ``None`` (picklable, unlike a lambda)."""

    field: str
    kind: str

    def __call__(self, answer: Any) -> float | None:
        return getattr(answer, self.field) if answer.question == self.kind else None


def route_metrics_of(kind: str) -> tuple[MetricSpec, ...]:
    """The specs of one question kind, in the order a report's row lists them.

    Parameters
    ----------
    kind : {"short", "long"}
        The question kind.

    Returns
    -------
    tuple of MetricSpec
        ``weighted_accuracy_<kind>`` and ``map_score_<kind>`` (the headline), ``accuracy_<kind>`` and
        ``map_score_unweighted_<kind>`` (every question weighing 1), then ``mean_tokens_<kind>``.

    Examples
    --------
    >>> [spec.name for spec in route_metrics_of("short")][:2]
    ['weighted_accuracy_short', 'map_score_short']
    """
    title = kind.capitalize()
    top = MAP_SCORE_MAXIMUM[kind]
    return (
        MetricSpec(
            f"weighted_accuracy_{kind}",
            _OfKind("correct", kind),
            f"{kind} questions: share of correct routes, weighted by difficulty (the paper's Table 2)",
            label=f"{title} Acc.",
            headline=True,
            field="correct",
            kind=kind,
        ),
        MetricSpec(
            f"map_score_{kind}",
            _OfKind("map_score", kind),
            f"{kind} questions: map score (Algorithm 2), weighted by difficulty",
            label=f"{title} Map Score",
            bounds=(0.0, top),
            headline=True,
            field="map_score",
            kind=kind,
        ),
        MetricSpec(
            f"accuracy_{kind}",
            _OfKind("correct", kind),
            f"{kind} questions: share of correct routes, every question weighing 1",
            label=f"{title} Acc. (unweighted)",
            aggregation="mean",
        ),
        MetricSpec(
            f"map_score_unweighted_{kind}",
            _OfKind("map_score", kind),
            f"{kind} questions: map score, every question weighing 1",
            label=f"{title} Map Score (unweighted)",
            aggregation="mean",
            bounds=(0.0, top),
        ),
        MetricSpec(
            f"mean_tokens_{kind}",
            _OfKind("tokens", kind),
            f"{kind} questions: output tokens per answer, over the answers that reported them",
            label=f"{title} Tokens",
            aggregation="mean",
            higher_is_better=False,
            bounds=(0.0, math.inf),
        ),
    )


#: Every route metric: the short kind's, then the long kind's; the weighted accuracy and map score are the headline.
ROUTE_METRICS: tuple[MetricSpec, ...] = tuple(spec for kind in KINDS for spec in route_metrics_of(kind))

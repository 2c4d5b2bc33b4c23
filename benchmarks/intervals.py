"""Uncertainty of a metric: a seeded bootstrap over questions, and the intervals summaries carry.

What is resampled: **questions**, not answers. The answers of one question
(route: its short and its long answer; every repeat of it, rows with one id
and different ``repeat``) form one cluster and are drawn together, because
they are not independent: a model that misreads a map fails both forms. Each
resample draws as many questions as there are, with replacement, and
recomputes each metric the way the report does (:func:`~benchmarks.metrics.aggregate`):
the ratio of the drawn answers' weighted sums, so the difficulty weighting
applies inside every resample. All the metrics of a summary row use the same
draws, so the short and long figures of one resample come from one set of
questions.

The clusters are sorted by id before drawing, and the draws are
:func:`benchmarks.paired.bootstrap_counts` (seeded; the same draws as the
paired comparisons make): the same answers give the same interval, digit for
digit, whatever their order in the file or the number of workers that
scored them (a question's own answers are summed exactly, :func:`math.fsum`).
The interval is the percentile interval of the resampled figures (2.5 % and
97.5 % at level 0.95) and the standard error their standard deviation, both
by :func:`benchmarks.paired.mean_interval`; ``n`` is the number of questions
the metric applies to.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from benchmarks.metrics import DIGITS, MetricSpec
from benchmarks.paired import bootstrap_counts, mean_interval

__all__ = [
    "RESAMPLES",
    "SEED",
    "LEVEL",
    "INTERVAL_METHOD",
    "Interval",
    "intervals",
    "interval_note",
]

#: Resamples of a bootstrap.
RESAMPLES = 2000
#: Seed of the draws.
SEED = 0
#: Coverage of the interval.
LEVEL = 0.95
#: How the intervals of a summary were computed, as the summary records it.
INTERVAL_METHOD = {"method": "bootstrap over questions", "resamples": RESAMPLES, "seed": SEED, "level": LEVEL}


@dataclass(frozen=True, slots=True)
class Interval:
    """A metric's uncertainty: ``n`` questions, the standard error ``se`` and the interval ``[low, high]``."""

    n: int
    se: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        """Half the interval's width: what tables print after ``±``."""
        return (self.high - self.low) / 2

    def to_dict(self) -> dict[str, Any]:
        """As summaries keep it, every figure rounded to :data:`~benchmarks.metrics.DIGITS` like the metric."""
        return {
            "n": self.n,
            "se": round(self.se, DIGITS),
            "low": round(self.low, DIGITS),
            "high": round(self.high, DIGITS),
        }


@lru_cache(maxsize=16)
def _shared_counts(n: int, resamples: int, seed: int) -> np.ndarray:
    counts = bootstrap_counts(n, resamples=resamples, seed=seed)
    counts.flags.writeable = False
    return counts


def _counts(n: int, resamples: int, seed: int) -> np.ndarray:
    """The draws of ``n`` questions: the same for every row of that size (every model of a report, every city of
    one size), so drawn once while small enough to keep (at most 16 × 8 MB)."""
    if n * resamples <= 1_000_000:
        return _shared_counts(n, resamples, seed)
    return bootstrap_counts(n, resamples=resamples, seed=seed)


def intervals(
    specs: Sequence[MetricSpec],
    answers: Iterable[Any],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
) -> dict[str, Interval]:
    """The interval of each spec over ``answers``, by spec name, from one bootstrap over their questions.

    An answer's question is its ``id``. A spec that applies to no answer gets no interval.

    Examples
    --------
    >>> from types import SimpleNamespace as Answer
    >>> from benchmarks.metrics import MetricSpec
    >>> spec = MetricSpec("accuracy", lambda answer: answer.correct, "share right", aggregation="mean")
    >>> answers = [Answer(id=str(i), correct=i % 2, weight=1.0) for i in range(100)]
    >>> found = intervals([spec], answers)["accuracy"]
    >>> found.n, found.low < 0.5 < found.high, round(found.se, 2)
    (100, True, 0.05)
    """
    answers = list(answers)
    ids = sorted({str(answer.id) for answer in answers})
    if not ids:
        return {}
    position = {identifier: index for index, identifier in enumerate(ids)}
    numerators = np.zeros((len(ids), len(specs)))
    denominators = np.zeros((len(ids), len(specs)))
    counted = np.zeros((len(ids), len(specs)), dtype=bool)
    for column, spec in enumerate(specs):
        weighted = spec.aggregation == "weighted_mean"
        products: dict[int, list[float]] = {}
        shares: dict[int, list[float]] = {}
        for answer in answers:
            value = spec.value(answer)
            if value is None:
                continue
            row = position[str(answer.id)]
            share = spec.weight(answer) if weighted else 1.0
            products.setdefault(row, []).append(share * value)
            shares.setdefault(row, []).append(share)
        for row in products:  # exact sums: a cluster's answers in any order give the same bits
            numerators[row, column] = math.fsum(products[row])
            denominators[row, column] = math.fsum(shares[row])
            counted[row, column] = True
    counts = _counts(len(ids), resamples, seed)  # one draw for every spec of the row
    found = {}
    for column, spec in enumerate(specs):
        n = int(counted[:, column].sum())
        if n == 0:
            continue
        weights = denominators[:, column]  # 0 where the spec applies to none of a question's answers
        values = np.divide(numerators[:, column], weights, out=np.zeros(len(ids)), where=weights != 0)
        spread = mean_interval(counts, values, weights, level=level)
        found[spec.name] = Interval(n, spread["se"], spread["low"], spread["high"])
    return found


def interval_note(summary: Any) -> str:
    """What ``±`` means in a summary's tables, as a sentence after a space; ``""`` for a summary without intervals.

    >>> interval_note({"interval_method": INTERVAL_METHOD})
    ' ± is half the width of the 95% interval (bootstrap over questions, 2000 resamples, seed 0).'
    """
    method = summary.get("interval_method") if hasattr(summary, "get") else None
    if not method:
        return ""
    return (
        f" ± is half the width of the {method['level']:.0%} interval"
        f" ({method['method']}, {method['resamples']} resamples, seed {method['seed']})."
    )

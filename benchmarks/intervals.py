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

The clusters are sorted by id before drawing, and the draws come from
``numpy.random.default_rng(seed)``: the same answers give the same interval,
digit for digit, whatever their order in the file or the number of workers
that scored them. The interval is the percentile interval of the resampled
estimates (2.5 % and 97.5 % at level 0.95); the standard error is their
standard deviation. ``n`` is the number of questions the metric applies to.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks.metrics import DIGITS, MetricSpec

__all__ = [
    "RESAMPLES",
    "SEED",
    "LEVEL",
    "INTERVAL_METHOD",
    "Interval",
    "bootstrap_estimates",
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
# draws held in memory at once: resamples × questions (the chunking depends on the question count only)
_DRAWS_PER_CHUNK = 2_000_000


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


def bootstrap_estimates(
    numerators: np.ndarray, denominators: np.ndarray, *, resamples: int = RESAMPLES, seed: int = SEED
) -> np.ndarray:
    """Every metric's estimate in every resample of the clusters.

    Parameters
    ----------
    numerators, denominators : array of shape (clusters, metrics)
        Per cluster and metric, ``sum(weight · value)`` and ``sum(weight)`` of its answers
        (0 and 0 where the metric applies to none of them).
    resamples, seed : int

    Returns
    -------
    array of shape (resamples, metrics)
        ``sum(numerators of the drawn clusters) / sum(denominators)``; NaN in a
        resample where the drawn clusters hold no answer the metric applies to.

    Examples
    --------
    >>> estimates = bootstrap_estimates(np.array([[1.0], [0.0]]), np.array([[1.0], [1.0]]), resamples=4000)
    >>> sorted(set(estimates[:, 0].tolist()))  # both drawn twice, one of each, in either order
    [0.0, 0.5, 1.0]
    """
    clusters = numerators.shape[0]
    rng = np.random.default_rng(seed)
    rows = max(1, _DRAWS_PER_CHUNK // max(1, clusters))
    found = []
    for start in range(0, resamples, rows):
        chunk = min(rows, resamples - start)
        drawn = rng.integers(0, clusters, size=(chunk, clusters))
        # how often each cluster is drawn in each resample, then the weighted sums of the drawn clusters: a
        # product and numpy's pairwise row sum (not a BLAS product, whose order depends on the machine's threads)
        offsets = drawn + clusters * np.arange(chunk)[:, None]
        counts = np.bincount(offsets.ravel(), minlength=chunk * clusters).reshape(chunk, clusters).astype(float)
        top = np.stack([(counts * column).sum(axis=1) for column in numerators.T], axis=1)
        bottom = np.stack([(counts * column).sum(axis=1) for column in denominators.T], axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            found.append(top / bottom)
    return np.concatenate(found) if found else np.empty((0, numerators.shape[1]))


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
    estimates = bootstrap_estimates(numerators, denominators, resamples=resamples, seed=seed)
    tail = 100 * (1 - level) / 2
    # a resample that drew no question a metric applies to has no estimate of it (NaN): left out
    undefined = np.isnan(estimates).any()
    spread = (np.nanpercentile if undefined else np.percentile)(estimates, [tail, 100 - tail], axis=0)
    errors = (np.nanstd if undefined else np.std)(estimates, axis=0)
    found = {}
    for column, spec in enumerate(specs):
        n = int(counted[:, column].sum())
        if n == 0 or np.isnan(estimates[:, column]).all():
            continue
        found[spec.name] = Interval(n, float(errors[column]), float(spread[0, column]), float(spread[1, column]))
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

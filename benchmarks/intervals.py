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
as :func:`benchmarks.paired.mean_interval` computes them; ``n`` is the number of questions
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
from benchmarks.paired import _spreads, bootstrap_counts

__all__ = [
    "RESAMPLES",
    "SEED",
    "LEVEL",
    "INTERVAL_METHOD",
    "Interval",
    "intervals",
    "grouped_intervals",
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
    counts = _transposed(bootstrap_counts(n, resamples=resamples, seed=seed))
    counts.flags.writeable = False
    return counts


def _transposed(counts: np.ndarray) -> np.ndarray:
    # questions × resamples, as floats: the layout the matrix product reads, converted once per draw
    return np.ascontiguousarray(counts.T, dtype=float)


def _counts(n: int, resamples: int, seed: int) -> np.ndarray:
    """The draws of ``n`` questions (questions × resamples): the same for every row of that size (every model of
    a report, every city of one size), so drawn once while small enough to keep (at most 16 × 8 MB)."""
    if n * resamples <= 1_000_000:
        return _shared_counts(n, resamples, seed)
    return _transposed(bootstrap_counts(n, resamples=resamples, seed=seed))


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
    return grouped_intervals(specs, [answers], resamples=resamples, seed=seed, level=level)[0]


def grouped_intervals(
    specs: Sequence[MetricSpec],
    groups: Iterable[Iterable[Any]],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
) -> list[dict[str, Interval]]:
    """:func:`intervals` of each group of answers (a report's models, cities, difficulty pairs), in order.

    The same numbers as one :func:`intervals` call per group, digit for digit, in less time: the groups of one
    question count share the draws, which are made once per count (they are most of the cost), and an
    answer that sits in several groups is read once.

    >>> from types import SimpleNamespace as Answer
    >>> from benchmarks.metrics import MetricSpec
    >>> spec = MetricSpec("accuracy", lambda answer: answer.correct, "share right", aggregation="mean")
    >>> answers = [Answer(id=str(i), correct=i % 2, weight=1.0) for i in range(100)]
    >>> grouped_intervals([spec], [answers, answers[:50]]) == [intervals([spec], answers),
    ...                                                         intervals([spec], answers[:50])]
    True
    """
    read: dict[int, tuple[str, tuple[tuple[float, float] | None, ...]]] = {}
    tallies = [_tally(specs, list(group), read) for group in groups]
    found: list[dict[str, Interval]] = [{} for _ in tallies]
    by_size: dict[int, list[int]] = {}
    for index, tally in enumerate(tallies):
        if tally is not None:
            by_size.setdefault(tally[0].shape[1], []).append(index)
    for size in sorted(by_size):
        counts = _counts(size, resamples, seed)  # one draw for every spec of every group of this size
        # every spec's resampled weighted means of every group of this size in one product (a row of a product
        # is that row's own: the same bits as one group's alone): sum c·w·x / sum c·w (w·x is the numerator)
        sums = np.concatenate([tallies[index][part] for index in by_size[size] for part in (0, 1)]) @ counts
        sums = sums.reshape(len(by_size[size]), 2, len(specs), resamples)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = sums[:, 0] / sums[:, 1]  # groups × specs × resamples
        applies = np.array([tallies[index][2].sum(axis=1) for index in by_size[size]])  # questions per spec
        places = np.argwhere(applies > 0)
        if not len(places):
            continue
        # a resample that drew none of the spec's questions is dropped
        for (place, column), spread in zip(places.tolist(), _spreads(means[applies > 0], level)):
            n = int(applies[place, column])
            found[by_size[size][place]][specs[column].name] = Interval(n, spread["se"], spread["low"], spread["high"])
    return [{spec.name: group[spec.name] for spec in specs if spec.name in group} for group in found]


def _tally(
    specs: Sequence[MetricSpec], answers: list[Any], read: dict[int, Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Per spec and question (sorted by id): the exact sums of weight × value and of weight, and whether the
    spec applies; ``None`` for no answers. ``read`` keeps each answer's values by object, for other groups."""
    if not answers:
        return None
    values = []
    for answer in answers:
        known = read.get(id(answer))
        if known is None:  # the answer is kept with its values, so that its id names it while ``read`` lives
            known = read[id(answer)] = (str(answer.id), _values(specs, answer), answer)
        values.append(known)
    ids = sorted({key for key, _, _ in values})
    position = {identifier: index for index, identifier in enumerate(ids)}
    numerators = np.zeros((len(specs), len(ids)))
    denominators = np.zeros((len(specs), len(ids)))
    counted = np.zeros((len(specs), len(ids)), dtype=bool)
    for column in range(len(specs)):
        products: dict[int, list[float]] = {}
        shares: dict[int, list[float]] = {}
        for key, pairs, _ in values:
            pair = pairs[column]
            if pair is None:
                continue
            row = position[key]
            if row in products:
                products[row].append(pair[0])
                shares[row].append(pair[1])
            else:
                products[row] = [pair[0]]
                shares[row] = [pair[1]]
        for row in products:  # exact sums: a cluster's answers in any order give the same bits
            numerators[column, row] = math.fsum(products[row])
            denominators[column, row] = math.fsum(shares[row])
            counted[column, row] = True
    return numerators, denominators, counted


def _values(specs: Sequence[MetricSpec], answer: Any) -> tuple[tuple[float, float] | None, ...]:
    """Per spec, ``(weight × value, weight)`` of one answer, or ``None`` where the spec does not apply."""
    found = []
    for spec in specs:
        value = spec.value(answer)
        if value is None:
            found.append(None)
            continue
        share = spec.weight(answer) if spec.aggregation == "weighted_mean" else 1.0
        found.append((share * value, share))
    return tuple(found)


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

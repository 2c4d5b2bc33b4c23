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
    groups = [list(group) for group in groups]
    tally = _tally(specs, groups)
    found: list[dict[str, Interval]] = [{} for _ in groups]
    by_size: dict[int, list[int]] = {}
    for index, size in enumerate(tally.sizes.tolist()):
        if size:
            by_size.setdefault(size, []).append(index)
    width = len(specs)
    for size in sorted(by_size):
        counts = _counts(size, resamples, seed)  # one draw for every spec of every group of this size
        chosen = by_size[size]
        # each group's questions (sorted by id), by spec: the group's sums laid out as one matrix per group of
        # numerators (specs × questions) then denominators, the groups one after the other
        rows = (tally.first[chosen][:, None] + np.arange(size)).ravel()
        sums = np.stack([tally.numerators[rows], tally.denominators[rows]]).reshape(2, len(chosen), size, width)
        stacked = np.ascontiguousarray(sums.transpose(1, 0, 3, 2)).reshape(-1, size)
        # every spec's resampled weighted means of every group of this size in one product (a row of a product
        # is that row's own: the same bits as one group's alone): sum c·w·x / sum c·w (w·x is the numerator)
        sums = (stacked @ counts).reshape(len(chosen), 2, width, resamples)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = sums[:, 0] / sums[:, 1]  # groups × specs × resamples
        applies = tally.applies[rows].reshape(len(chosen), size, width).sum(axis=1)  # questions per spec
        places = np.argwhere(applies > 0)
        if not len(places):
            continue
        # a resample that drew none of the spec's questions is dropped; where every spec applies, the rows are
        # the means as they lie (no copy)
        kept = means.reshape(-1, resamples) if len(places) == applies.size else means[applies > 0]
        for (place, column), spread in zip(places.tolist(), _spreads(kept, level)):
            n = int(applies[place, column])
            found[chosen[place]][specs[column].name] = Interval(n, spread["se"], spread["low"], spread["high"])
    return [{spec.name: group[spec.name] for spec in specs if spec.name in group} for group in found]


@dataclass(frozen=True)
class _Tally:
    """Each group's answers summed by question: one row per (group, question), the groups in order and each
    group's questions sorted by id, with a column per spec."""

    #: the exact sum of weight × value of the question's answers in the group
    numerators: np.ndarray
    #: the exact sum of their weights
    denominators: np.ndarray
    #: whether the spec applies to one of them
    applies: np.ndarray
    #: per group, its first row and its number of questions
    first: np.ndarray
    sizes: np.ndarray


def _tally(specs: Sequence[MetricSpec], groups: list[list[Any]]) -> _Tally:
    """The sums of every group's questions (:class:`_Tally`); an answer in several groups is read once.

    A question's sums are exact (:func:`math.fsum`: the same bits in any order). A question with one or two
    answers in a group, as most have (a short and a long one), is summed by numpy: ``x + 0.0`` and ``x + y``
    are ``fsum``'s correctly rounded sums (``+ 0.0`` making ``-0.0`` the ``0.0`` that ``fsum`` gives);
    more answers, or a sum that is not finite, go through ``fsum`` itself.
    """
    width = len(specs)
    distinct = {id(answer): answer for group in groups for answer in group}
    position = {key: index for index, key in enumerate(distinct)}
    values = _values(specs, distinct.values())
    products = np.array([[0.0 if pair is None else pair[0] for pair in row] for row in values]).reshape(-1, width)
    shares = np.array([[0.0 if pair is None else pair[1] for pair in row] for row in values]).reshape(-1, width)
    applies = np.array([[pair is not None for pair in row] for row in values], dtype=bool).reshape(-1, width)
    questions = [str(answer.id) for answer in distinct.values()]
    rank = {question: index for index, question in enumerate(sorted(set(questions)))}
    ranks = np.array([rank[question] for question in questions], dtype=np.int64)

    lengths = np.array([len(group) for group in groups], dtype=np.int64)
    members = np.fromiter(
        (position[id(answer)] for group in groups for answer in group), dtype=np.intp, count=int(lengths.sum())
    )
    # sorted by group, then question: each (group, question) is one run of members
    keys = np.repeat(np.arange(len(groups), dtype=np.int64), lengths) * max(len(rank), 1) + ranks[members]
    order = np.argsort(keys, kind="stable")
    members, keys = members[order], keys[order]
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]])) if len(keys) else np.zeros(0, np.intp)
    numerators = np.add.reduceat(products[members], starts, axis=0) + 0.0 if len(starts) else products[:0]
    denominators = np.add.reduceat(shares[members], starts, axis=0) + 0.0 if len(starts) else shares[:0]
    counted = np.logical_or.reduceat(applies[members], starts, axis=0) if len(starts) else applies[:0]
    ends = np.append(starts[1:], len(members))
    exact = (ends - starts > 2) | ~np.isfinite(numerators).all(axis=1) | ~np.isfinite(denominators).all(axis=1)
    for row in np.flatnonzero(exact).tolist():
        answers = [values[member] for member in members[starts[row] : ends[row]].tolist()]
        for column in range(width):
            pairs = [answer[column] for answer in answers if answer[column] is not None]
            numerators[row, column] = math.fsum([pair[0] for pair in pairs])
            denominators[row, column] = math.fsum([pair[1] for pair in pairs])
    group_of_row = keys[starts] // max(len(rank), 1)
    sizes = np.bincount(group_of_row, minlength=len(groups))
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    return _Tally(numerators, denominators, counted, first, sizes)


def _values(specs: Sequence[MetricSpec], answers: Iterable[Any]) -> list[tuple[tuple[float, float] | None, ...]]:
    """Per answer and spec, ``(weight × value, weight)``, or ``None`` where the spec does not apply."""
    # each spec's reader of values, and of weights (``None``: every answer weighs 1)
    readers = [(spec.value, spec.weight if spec.aggregation == "weighted_mean" else None) for spec in specs]
    found = []
    for answer in answers:
        row = []
        for value_of, weight_of in readers:
            value = value_of(answer)
            if value is None:
                row.append(None)
            else:
                share = 1.0 if weight_of is None else weight_of(answer)
                row.append((share * value, share))
        found.append(tuple(row))
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

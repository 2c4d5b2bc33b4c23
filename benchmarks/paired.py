"""Paired comparisons of two sets of answers to the same questions: intervals of the difference and p-values.

Two runs, two models or two prompt modes answered the same questions; each
question gives a pair of values (correct or not, a map score). What is
compared is each side's (weighted) mean over the questions both answered:

- :func:`resampling_weights` draws the resamples (a Poisson bootstrap): each
  question's weight in resample ``r`` is a Poisson(1) draw keyed by (seed,
  question id, ``r``), times its map's (keyed the same way) when maps are the
  clusters, so that every metric of one comparison (a question's short and its
  long answer) and every run over the same questions is resampled with the same
  weights, and the weighting applies inside each resample (:func:`weighted_means`);
- :func:`difference_interval`: the paired-bootstrap percentile interval and
  standard error of ``mean(B) - mean(A)`` (:func:`mean_interval`: of one side's mean);
- :func:`mcnemar_exact`: the exact McNemar test of paired correctness (a
  two-sided binomial test on the discordant pairs);
- :func:`sign_flip_pvalue`: the paired permutation test of a mean difference
  (each question's difference keeps or flips its sign), exact when every sign
  pattern can be enumerated, else a seeded Monte Carlo estimate.

All of them are pure, vectorised numpy functions: the last axis is the
questions', leading axes are batches (many comparisons, or many simulations,
at once). The same inputs and seed give the same numbers.

Which metrics a task compares, from which scored-row field, over which request
kind, weighted or not and with which test, its metric records say
(:func:`benchmarks.metrics.compared`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from hashlib import blake2b

import numpy as np

__all__ = [
    "TESTS",
    "question_weights",
    "resampling_weights",
    "weighted_means",
    "difference_interval",
    "mean_interval",
    "mcnemar_exact",
    "sign_flip_pvalue",
]

#: The p-value of each kind of value: exact McNemar for 0/1 correctness, sign flips for a score.
TESTS = ("mcnemar", "permutation")
# below this many sign patterns the permutation test enumerates them all (an exact p-value)
_EXACT_PATTERNS = 1 << 12
# sign patterns drawn at a time (bounds the memory of a large Monte Carlo test)
_BLOCK = 512
# SplitMix64's increment and multipliers (Steele, Lea and Flood 2014)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
# P(X <= k) of X ~ Poisson(1), k = 0..19 (P(X > 19) < 2**-53: a uniform of 53 bits never reaches it)
_POISSON_CDF = np.cumsum([math.exp(-1.0) / math.factorial(k) for k in range(20)])
# the same steps for the uniform's 53 bits k: k × 2**-53 >= c exactly when k >= ceil(c × 2**53) (c × 2**53 is exact)
_POISSON_STEPS = np.array([math.ceil(float(c) * 2.0**53) for c in _POISSON_CDF], dtype=np.uint64)
# questions whose weights are made at once: the temporaries (8 bytes a resample) stay in the cache, and the
# kernel maps no fresh memory for each
_ROWS = 64


def question_weights(
    names: Sequence[str], *, resamples: int = 2000, seed: int = 0, unit: str = "question"
) -> np.ndarray:
    """Each named unit's Poisson(1) weight in each resample: a ``(len(names), resamples)`` float array.

    The weight of unit ``name`` in resample ``r`` is a function of ``(seed, unit, name, r)`` alone: the
    name and seed are hashed (BLAKE2b, keyed by the seed, personalised by ``unit``) into a 64-bit key,
    and resample ``r`` reads the ``r``-th output of the SplitMix64 sequence of that key, turned into a
    Poisson(1) draw by the inverse of its distribution function. So a question weighs the same in every
    group it sits in (a model, a city, a difficulty pair) and in every run over it, whatever else the
    file holds, in any process; two runs compared are paired by construction.

    Parameters
    ----------
    names : sequence of str
        The units (question ids, or maps).
    resamples : int, optional
        The resamples.
    seed : int, optional
        The seed, ``0 ≤ seed < 2**64``.
    unit : str, optional
        What the names are (``"question"``, ``"map"``): the same name weighs differently as another unit.

    Returns
    -------
    numpy.ndarray
        A ``(len(names), resamples)`` float array of whole-number weights.

    Raises
    ------
    ValueError
        ``resamples`` below 1, or a seed outside ``0 ≤ seed < 2**64``.

    Examples
    --------
    >>> weights = question_weights(["q1", "q2"], resamples=4000, seed=1)
    >>> weights.shape, round(float(weights.mean()), 1), round(float(weights.var()), 1)
    ((2, 4000), 1.0, 1.0)
    >>> bool((weights[1] == question_weights(["q2"], resamples=4000, seed=1)[0]).all())  # whatever else is drawn
    True
    """
    if resamples < 1:
        raise ValueError(f"bootstrap needs at least one resample, got {resamples}")
    if not 0 <= seed < 1 << 64:
        raise ValueError(f"seed must be an integer from 0 to 2**64 - 1, got {seed}")
    key, person = seed.to_bytes(8, "little"), unit.encode("utf-8")[:16]
    keys = np.fromiter(
        (
            int.from_bytes(blake2b(str(name).encode("utf-8"), digest_size=8, key=key, person=person).digest(), "little")
            for name in names
        ),
        dtype=np.uint64,
        count=len(names),
    )
    steps = np.arange(1, resamples + 1, dtype=np.uint64) * _GOLDEN
    found = np.empty((len(names), resamples))
    for start in range(0, len(names), _ROWS):  # a block of rows at a time: the temporaries stay small
        state = keys[start : start + _ROWS, None] + steps  # SplitMix64: wraps modulo 2**64
        state ^= state >> np.uint64(30)
        state *= _MIX1
        state ^= state >> np.uint64(27)
        state *= _MIX2
        state ^= state >> np.uint64(31)
        state >>= np.uint64(11)  # the uniform's 53 bits (the uniform is state × 2**-53, exactly)
        found[start : start + _ROWS] = np.searchsorted(_POISSON_STEPS, state, side="right")
    return found


def resampling_weights(
    ids: Sequence[str],
    *,
    resamples: int = 2000,
    seed: int = 0,
    maps: Sequence[str] | None = None,
) -> np.ndarray:
    """Each question's weight in each resample: its own Poisson(1) draw (:func:`question_weights`), times its
    map's when ``maps`` is given: the two-stage bootstrap of maps, then questions within them.

    Parameters
    ----------
    ids : sequence of str
        The questions' ids.
    resamples : int, optional
        The resamples.
    seed : int, optional
        The seed, ``0 ≤ seed < 2**64``.
    maps : sequence of str, optional
        Each question's map, in order.

    Returns
    -------
    numpy.ndarray
        A ``(len(ids), resamples)`` float array (read-only when kept for the next call: copy it to change it).

    Raises
    ------
    ValueError
        As :func:`question_weights`.

    Examples
    --------
    >>> one = resampling_weights(["a", "b"], resamples=5, maps=["rome", "rome"])
    >>> bool((one == question_weights(["a", "b"], resamples=5) * question_weights(["rome"], resamples=5,
    ...                                                                          unit="map")).all())
    True
    """
    weights = _kept_weights(tuple(str(id) for id in ids), resamples, seed)
    if maps is None:
        return weights
    names = sorted(set(maps))
    position = {name: index for index, name in enumerate(names)}
    by_map = question_weights(names, resamples=resamples, seed=seed, unit="map")
    return weights * by_map[[position[name] for name in maps]]


@lru_cache(maxsize=4)
def _cached_weights(ids: tuple[str, ...], resamples: int, seed: int) -> np.ndarray:
    weights = question_weights(ids, resamples=resamples, seed=seed)
    weights.flags.writeable = False
    return weights


def _kept_weights(ids: tuple[str, ...], resamples: int, seed: int) -> np.ndarray:
    """:func:`question_weights`, kept while small enough (a report asks for the same questions' weights for its
    chosen clusters and the other, a comparison for each pair of one run's sides): read-only."""
    if len(ids) * resamples <= 8_000_000:
        return _cached_weights(ids, resamples, seed)
    return question_weights(ids, resamples=resamples, seed=seed)


def weighted_means(counts: np.ndarray, values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The weighted mean of ``values`` in each resample of ``counts``: ``sum c w x / sum c w``.

    Parameters
    ----------
    counts : numpy.ndarray
        ``(resamples, questions)``: each question's count in each resample.
    values, weights : numpy.ndarray
        The questions on their last axis, broadcast together (weight 0 leaves a question out).

    Returns
    -------
    numpy.ndarray
        Shape ``(resamples, *leading axes of values)``; a resample that drew no weight is ``nan``.

    Examples
    --------
    >>> counts = np.array([[1, 1, 0], [0, 0, 3]])
    >>> weighted_means(counts, np.array([1.0, 0.0, 1.0]), np.array([1.0, 3.0, 1.0])).tolist()
    [0.25, 1.0]
    """
    counts = np.asarray(counts, dtype=float)
    values, weights = np.broadcast_arrays(np.asarray(values, dtype=float), np.asarray(weights, dtype=float))
    numerator = (values * weights) @ counts.T
    denominator = weights @ counts.T
    with np.errstate(invalid="ignore", divide="ignore"):
        means = numerator / denominator
    return np.moveaxis(means, -1, 0)


def difference_interval(
    counts: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    weights_a: np.ndarray,
    weights_b: np.ndarray | None = None,
    *,
    level: float = 0.95,
) -> dict[str, float]:
    """The paired-bootstrap interval of ``mean_w(b) - mean_w(a)``: both sides resampled by the same draw.

    Parameters
    ----------
    counts : numpy.ndarray
        ``(resamples, questions)``: each question's count in each resample.
    a, b : numpy.ndarray
        Each side's value per question.
    weights_a : numpy.ndarray
        Side ``a``'s question weights.
    weights_b : numpy.ndarray, optional
        Side ``b``'s (default: ``weights_a``).
    level : float, optional
        Coverage of the interval, strictly between 0 and 1.

    Returns
    -------
    dict of str to float
        ``difference`` (the point difference on all questions), ``se`` (the standard error of the resampled
        differences), ``low`` and ``high`` (the percentile interval at ``level``); ``nan`` where no resample
        drew any weight.

    Raises
    ------
    ValueError
        ``level`` not strictly between 0 and 1.

    Examples
    --------
    >>> counts = resampling_weights(["a", "b", "c"], resamples=200).T
    >>> found = difference_interval(counts, np.array([0.0, 0, 1]), np.array([1.0, 1, 1]), np.ones(3))
    >>> round(found["difference"], 4), found["low"] >= 0.0, found["high"] <= 1.0
    (0.6667, True, True)
    """
    weights_b = weights_a if weights_b is None else weights_b
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    weights_a, weights_b = np.asarray(weights_a, dtype=float), np.asarray(weights_b, dtype=float)
    point = float(np.sum(weights_b * b) / np.sum(weights_b) - np.sum(weights_a * a) / np.sum(weights_a))
    resampled = weighted_means(counts, b, weights_b) - weighted_means(counts, a, weights_a)
    return {"difference": point, **_spread(resampled, level)}


def mean_interval(
    counts: np.ndarray, values: np.ndarray, weights: np.ndarray, *, level: float = 0.95
) -> dict[str, float]:
    """The bootstrap interval of one weighted mean.

    Parameters
    ----------
    counts : numpy.ndarray
        ``(resamples, questions)``: each question's count in each resample.
    values, weights : numpy.ndarray
        The value and weight of each question.
    level : float, optional
        Coverage of the interval, strictly between 0 and 1.

    Returns
    -------
    dict of str to float
        ``mean`` (the point, on all questions), ``se`` (the standard error of the resampled means), ``low`` and
        ``high`` (the percentile interval at ``level``).

    Raises
    ------
    ValueError
        ``level`` not strictly between 0 and 1.

    Examples
    --------
    >>> found = mean_interval(resampling_weights("abcd", resamples=100).T, np.array([1.0, 1, 0, 0]), np.ones(4))
    >>> found["mean"], 0.0 <= found["low"] <= 0.5 <= found["high"] <= 1.0
    (0.5, True)
    """
    values, weights = np.asarray(values, dtype=float), np.asarray(weights, dtype=float)
    point = float(np.sum(weights * values) / np.sum(weights))
    return {"mean": point, **_spread(weighted_means(counts, values, weights), level)}


def _spread(resampled: np.ndarray, level: float) -> dict[str, float]:
    """Standard error and percentile interval of resampled statistics (a resample that drew no weight dropped)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level}")
    resampled = resampled[np.isfinite(resampled)]
    if not resampled.size:  # no resample gave any weight: nothing to spread
        return {"se": float("nan"), "low": float("nan"), "high": float("nan")}
    low, high = np.quantile(resampled, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    se = float(np.std(resampled, ddof=1)) if resampled.size > 1 else 0.0
    return {"se": se, "low": float(low), "high": float(high)}


def _spreads(resampled: np.ndarray, level: float) -> list[dict[str, float]]:
    """:func:`_spread` of each row of ``resampled`` (statistics × resamples), the same numbers bit for bit
    (:func:`spread_arrays`; a row with fewer than two finite resamples as :func:`_spread` has it)."""
    resampled = np.asarray(resampled, dtype=float)
    errors, lows, highs, kept = spread_arrays(resampled, level)
    return [
        {"se": se, "low": low, "high": high} if size >= 2 else _spread(resampled[row], level)
        for row, (se, low, high, size) in enumerate(zip(errors.tolist(), lows.tolist(), highs.tolist(), kept.tolist()))
    ]


def spread_arrays(resampled: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_spread` of each row of ``resampled`` (statistics × resamples, C-contiguous floats), as arrays:
    the standard errors, the lows and the highs (``nan`` where a row keeps fewer than two finite resamples),
    and the number of finite resamples of each row.

    The same numbers, bit for bit, in less time and memory than numpy's ``quantile`` of each row: the rows are
    partitioned at the quantiles' order statistics (sorted, their kept resamples first, where some resamples
    are not kept), and each quantile
    is numpy's ``linear`` one taken from them: the order statistics are the ones a partition finds, the virtual
    index ``(n - 1) q`` and the interpolation (``a + (b - a) g``, or ``b - (b - a)(1 - g)`` from ``g = 0.5``)
    are its own operations. The standard error is ``std(ddof=1)`` of the kept resamples in their order, the
    rows that keep as many at once (along the last axis of a C-contiguous array, numpy's ``std`` does per row
    what it does on one row: the same pairwise sums).
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level}")
    rows, width = resampled.shape
    finite = np.isfinite(resampled)
    kept = np.count_nonzero(finite, axis=1)
    errors = np.full(rows, np.nan)
    full = kept == width
    if width >= 2 and full.all():
        errors = np.std(resampled, axis=1, ddof=1)
    else:
        for size in sorted(set(kept.tolist())):
            if size >= 2:
                chosen = np.flatnonzero(kept == size)
                values = resampled[chosen] if size == width else resampled[chosen][finite[chosen]]
                errors[chosen] = np.std(values.reshape(len(chosen), size), axis=1, ddof=1)
    usable = np.flatnonzero(kept >= 2)
    shares = ((1.0 - level) / 2.0, (1.0 + level) / 2.0)
    if width >= 2 and full.all():
        # every row keeps every resample: the same order statistics of each row, which a partition finds
        # (the values a sort puts there) in less time than the sort
        wanted = sorted({int(np.floor((width - 1) * share)) + step for share in shares for step in (0, 1)})
        ordered = np.partition(resampled, wanted, axis=1)
    else:
        # nan sorts last, so a row's kept resamples are its first ones, in order (an infinite one is no kept one)
        ordered = np.sort(resampled if finite.all() else np.where(finite, resampled, np.nan), axis=1)
    bounds = []
    for share in shares:
        found = np.full(rows, np.nan)
        virtual = (kept[usable] - 1) * np.array([share])  # below n - 1 and at least 0: no index to clip
        previous = np.floor(virtual)
        gamma = virtual - previous
        before = previous.astype(np.intp)
        a, b = ordered[usable, before], ordered[usable, before + 1]
        difference = b - a
        found[usable] = np.where(gamma >= 0.5, b - difference * (1 - gamma), a + difference * gamma)
        bounds.append(found)
    return errors, bounds[0], bounds[1], kept


def _log_factorials(n: int) -> np.ndarray:
    return np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=float)))])


def mcnemar_exact(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Exact McNemar p-value (two-sided) of paired 0/1 outcomes ``a`` and ``b``.

    Under the null hypothesis a discordant pair (one side right, the other wrong) is
    equally likely either way, so the count ``k`` of the rarer kind among ``d``
    discordant pairs is Binomial(d, 1/2): ``p = min(1, 2 P(X <= k))``; 1 with no
    discordant pair.

    Parameters
    ----------
    a, b : numpy.ndarray
        The two sides' outcomes (truthy: right), the questions on the last axis.

    Returns
    -------
    numpy.ndarray
        One p-value per batch (the leading axes).

    Examples
    --------
    >>> float(mcnemar_exact(np.array([1, 1, 1, 1, 1, 0]), np.array([0, 0, 0, 0, 0, 0])))  # 2 / 2**5
    0.0625
    """
    a, b = np.asarray(a).astype(bool), np.asarray(b).astype(bool)
    only_a = np.sum(a & ~b, axis=-1)
    only_b = np.sum(~a & b, axis=-1)
    discordant = only_a + only_b
    rarer = np.minimum(only_a, only_b)
    top = int(np.max(discordant)) if discordant.size else 0
    logs = _log_factorials(top)
    i = np.arange(top + 1)
    d, k = discordant[..., None], rarer[..., None]
    inside = i <= k
    with np.errstate(invalid="ignore"):
        log_pmf = logs[d] - logs[np.minimum(i, d)] - logs[np.maximum(d - i, 0)] - d * np.log(2.0)
    tail = np.sum(np.where(inside, np.exp(log_pmf), 0.0), axis=-1)
    return np.minimum(1.0, 2.0 * tail)


def sign_flip_pvalue(
    differences: np.ndarray,
    weights: np.ndarray | None = None,
    *,
    permutations: int = 10_000,
    seed: int = 0,
) -> np.ndarray:
    """Paired permutation p-value (two-sided) of a weighted mean difference, by flipping signs per question.

    Under the null hypothesis the two sides of a pair are exchangeable, so each
    question's difference is as likely negated. The statistic is ``|sum w d|``
    (the weighted mean difference times the constant total weight). With at most
    ``max(permutations, 4096)`` sign patterns (``2**n``, n the questions) all are enumerated
    and the p-value is exact: the share of patterns at least as extreme as the one
    observed; otherwise ``permutations`` patterns are drawn (seeded) and
    ``p = (1 + extreme) / (1 + permutations)``.

    Parameters
    ----------
    differences : numpy.ndarray
        Each question's difference, the questions on the last axis.
    weights : numpy.ndarray, optional
        The questions' weights (default: 1 each).
    permutations : int, optional
        The sign patterns drawn when they are too many to enumerate.
    seed : int, optional
        Seed of those draws.

    Returns
    -------
    numpy.ndarray
        One p-value per batch (the leading axes).

    Examples
    --------
    >>> float(sign_flip_pvalue(np.array([1.0, 2.0, 3.0])))  # of the 8 patterns only +++ and --- reach 6
    0.25
    """
    d = np.asarray(differences, dtype=float)
    w = np.ones(d.shape[-1]) if weights is None else np.asarray(weights, dtype=float)
    wd = d * w
    batch = wd.reshape(-1, wd.shape[-1])
    observed = np.abs(batch.sum(axis=-1))
    # sums of many floats that are equal in exact arithmetic must count as equal
    tolerance = 1e-9 * np.maximum(np.abs(batch).sum(axis=-1), 1e-300)
    n = batch.shape[-1]
    if n <= 62 and (1 << n) <= max(permutations, _EXACT_PATTERNS):
        patterns = ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1) * 2.0 - 1.0
        extreme = np.sum(np.abs(batch @ patterns.T) >= (observed - tolerance)[:, None], axis=-1)
        p = extreme / float(1 << n)
    else:
        rng = np.random.default_rng(seed)
        extreme = np.zeros(batch.shape[0], dtype=np.int64)
        for start in range(0, permutations, _BLOCK):
            size = min(_BLOCK, permutations - start)
            signs = np.where(rng.random((size, n)) < 0.5, -1.0, 1.0)
            extreme += np.sum(np.abs(batch @ signs.T) >= (observed - tolerance)[:, None], axis=-1)
        p = (1.0 + extreme) / (1.0 + permutations)
    return p.reshape(d.shape[:-1])

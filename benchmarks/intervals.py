"""Uncertainty of a metric: a seeded Poisson bootstrap over questions (or maps), and the intervals summaries carry.

What is resampled: **questions**, not answers. The answers of one question
(route: its short and its long answer; every repeat of it, rows with one id
and different ``repeat``) form one cluster and weigh the same in a resample,
because they are not independent: a model that misreads a map fails both
forms. Each resample gives each question a Poisson(1) weight
(:func:`benchmarks.paired.resampling_weights`: a function of the seed, the
question's id and the resample's number alone) and recomputes each metric
the way the report does (:func:`~benchmarks.metrics.aggregate`): the ratio of
the answers' weighted sums, so the difficulty weighting applies inside every
resample. One draw serves every group (a model, a city, a difficulty pair)
and every run over the same questions; all the metrics of a summary row use
it, so the short and long figures of one resample come from one set of
weights. With ``cluster="map"`` the resampling has two stages: each map
(city, image) gets a Poisson(1) weight too, and a question weighs its own
weight times its map's, because the questions of one map are not
independent either (they share the map's legibility and size).

The same answers give the same interval, digit for digit, whatever their
order in the file, the other questions beside them or the number of workers
that scored them (a question's own answers are summed exactly,
:func:`math.fsum`). The interval is the percentile interval of the resampled
figures (2.5 % and 97.5 % at level 0.95) and the standard error their
standard deviation, both as :func:`benchmarks.paired.mean_interval` computes
them; ``n`` is the number of questions the metric applies to. A figure that
cannot have an interval says so: with fewer than two questions, or when
every resample gives the same figure (no variance: all right, all wrong),
``se``, ``low`` and ``high`` are ``None`` and tables print ``–`` after ``±``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks.metrics import DIGITS, MetricSpec, figures, headline
from benchmarks.paired import resampling_weights, spread_arrays

__all__ = [
    "RESAMPLES",
    "RESAMPLE_RANGE",
    "SEED_RANGE",
    "SEED",
    "LEVEL",
    "CLUSTERS",
    "INTERVAL_METHOD",
    "Interval",
    "interval_method",
    "intervals",
    "grouped_intervals",
    "interval_note",
    "question_maps",
    "scored_row",
]

#: Resamples of a bootstrap.
RESAMPLES = 2000
#: The fewest and most resamples a command takes: below 200 the 2.5% and 97.5% quantiles rest on fewer than five
#: resamples each (an interval can miss its own estimate); above 50,000 the weights of a few thousand questions
#: outgrow the memory of a laptop, for no digit a table prints.
RESAMPLE_RANGE = (200, 50_000)
#: Seeds a command takes (the key of the weights' hash is 8 bytes).
SEED_RANGE = (0, 2**64 - 1)
#: Seed of the draws.
SEED = 0
#: Coverage of the interval.
LEVEL = 0.95
#: What is resampled: questions (a question's answers together), or maps, then questions within them.
CLUSTERS = ("question", "map")
_DESCRIBED = {"question": "Poisson bootstrap over questions", "map": "Poisson bootstrap over maps, then questions"}


def interval_method(
    *, resamples: int = RESAMPLES, seed: int = SEED, level: float = LEVEL, cluster: str = "question"
) -> dict[str, Any]:
    """How a summary's printed intervals were computed, as ``summary.json`` records it (``interval_method``).

    Parameters
    ----------
    resamples : int, optional
        Resamples of the bootstrap.
    seed : int, optional
        Seed of the draws.
    level : float, optional
        Coverage of the interval.
    cluster : {"question", "map"}, optional
        What is resampled (:data:`CLUSTERS`).

    Returns
    -------
    dict
        ``method``, ``cluster``, ``unit``, ``weights`` (how each is drawn), ``resamples``, ``seed`` and ``level``.

    Raises
    ------
    ValueError
        ``cluster`` is not one of :data:`CLUSTERS`.

    Examples
    --------
    >>> interval_method(cluster="map")["unit"]
    'map, then question'
    """
    if cluster not in CLUSTERS:
        raise ValueError(f"cluster must be one of {', '.join(CLUSTERS)}, got {cluster!r}")
    return {
        "method": _DESCRIBED[cluster],
        "cluster": cluster,
        "unit": "question" if cluster == "question" else "map, then question",
        "weights": "Poisson(1) per (seed, question id, resample), times the map's per (seed, map, resample)"
        if cluster == "map"
        else "Poisson(1) per (seed, question id, resample)",
        "resamples": resamples,
        "seed": seed,
        "level": level,
    }


#: How the intervals of a summary are computed by default, as the summary records it.
INTERVAL_METHOD = interval_method()


@dataclass(frozen=True, slots=True)
class Interval:
    """A metric's uncertainty.

    ``se``, ``low`` and ``high`` are ``None`` where there is no interval to give (fewer than two questions, or
    no variance).

    Parameters
    ----------
    n : int
        The questions the metric applies to.
    se : float or None
        The standard error (the resampled figures' standard deviation).
    low, high : float or None
        The percentile interval's ends.
    """

    n: int
    se: float | None
    low: float | None
    high: float | None

    @property
    def half_width(self) -> float | None:
        """Half the interval's width: what tables print after ``±`` (``None``: no interval)."""
        if self.low is None or self.high is None:
            return None
        return (self.high - self.low) / 2

    def to_dict(self) -> dict[str, Any]:
        """As summaries keep it, every figure rounded to :data:`~benchmarks.metrics.DIGITS` like the metric."""
        return {
            "n": self.n,
            "se": None if self.se is None else round(self.se, DIGITS),
            "low": None if self.low is None else round(self.low, DIGITS),
            "high": None if self.high is None else round(self.high, DIGITS),
        }


def question_maps(answers: Iterable[Any], map_of: Callable[[Any], str]) -> dict[str, list[str]]:
    """The clusters of ``cluster="map"``: each map with its questions' ids, sorted (what ``summary.json`` records
    as ``clusters``, for ``compare --cluster map`` to read back).

    Parameters
    ----------
    answers : iterable
        The answers (read by their ``id``).
    map_of : callable
        An answer's map.

    Returns
    -------
    dict of str to list of str
        Each map, sorted by name, with its distinct question ids, sorted.

    Examples
    --------
    >>> from types import SimpleNamespace as Answer
    >>> question_maps([Answer(id="b", city="rome"), Answer(id="a", city="rome")], lambda answer: answer.city)
    {'rome': ['a', 'b']}
    """
    found: dict[str, set[str]] = {}
    for answer in answers:
        found.setdefault(str(map_of(answer)), set()).add(str(answer.id))
    return {name: sorted(ids) for name, ids in sorted(found.items())}


def intervals(
    specs: Sequence[MetricSpec],
    answers: Iterable[Any],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
    cluster: str = "question",
    map_of: Callable[[Any], str] | None = None,
) -> dict[str, Interval]:
    """The interval of each spec over ``answers``, by spec name, from one bootstrap over their questions.

    Parameters
    ----------
    specs : sequence of MetricSpec
        The metrics.
    answers : iterable
        The answers; an answer's question is its ``id``.
    resamples, seed, level : optional
        The bootstrap's resamples, seed and coverage.
    cluster : {"question", "map"}, optional
        What is resampled (:data:`CLUSTERS`).
    map_of : callable, optional
        An answer's map; required with ``cluster="map"``.

    Returns
    -------
    dict of str to Interval
        By spec name, in the specs' order; a spec that applies to no answer gets no interval.

    Raises
    ------
    ValueError
        ``cluster`` is not one of :data:`CLUSTERS`, or ``"map"`` without ``map_of``.

    Examples
    --------
    >>> from types import SimpleNamespace as Answer
    >>> from benchmarks.metrics import MetricSpec
    >>> spec = MetricSpec("accuracy", lambda answer: answer.correct, "share right", aggregation="mean")
    >>> answers = [Answer(id=str(i), correct=i % 2, weight=1.0) for i in range(100)]
    >>> found = intervals([spec], answers)["accuracy"]
    >>> found.n, found.low < 0.5 < found.high, round(found.se, 2)
    (100, True, 0.05)
    >>> intervals([spec], answers[:1])["accuracy"]  # one question: no interval
    Interval(n=1, se=None, low=None, high=None)
    """
    return grouped_intervals(
        specs, [answers], resamples=resamples, seed=seed, level=level, cluster=cluster, map_of=map_of
    )[0]


def grouped_intervals(
    specs: Sequence[MetricSpec],
    groups: Iterable[Iterable[Any]],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
    cluster: str | Sequence[str] = "question",
    map_of: Callable[[Any], str] | None = None,
) -> list[dict[str, Interval]]:
    """:func:`intervals` of each group of answers (a report's models, cities, difficulty pairs), in order.

    ``cluster`` is one clustering for every group, or one per group (a report's rows under the chosen one and
    its models' rows under both: the answers are read once).

    The same numbers as one :func:`intervals` call per group, digit for digit, in less time: each question's
    weights are drawn once for every group, the groups over one set of questions (every model's row, when
    the models answered the same questions) are one matrix product, and an answer that sits in several
    groups is read once. The batches of products run on up to four threads where the process may use as many
    cores (fewer where many resamples make a batch's weights large); the intervals are the same on any number.

    Parameters
    ----------
    specs : sequence of MetricSpec
        The metrics.
    groups : iterable of iterable
        The groups of answers.
    resamples, seed, level : optional
        The bootstrap's resamples, seed and coverage.
    cluster : str or sequence of str, optional
        What is resampled (:data:`CLUSTERS`), for every group or one per group.
    map_of : callable, optional
        An answer's map; required where a group's cluster is ``"map"``.

    Returns
    -------
    list of dict of str to Interval
        Per group, in order, what :func:`intervals` gives it.

    Raises
    ------
    ValueError
        ``cluster`` is not one of :data:`CLUSTERS` (or not one per group), or ``"map"`` without ``map_of``.

    Examples
    --------
    >>> from types import SimpleNamespace as Answer
    >>> from benchmarks.metrics import MetricSpec
    >>> spec = MetricSpec("accuracy", lambda answer: answer.correct, "share right", aggregation="mean")
    >>> answers = [Answer(id=str(i), correct=i % 2, weight=1.0) for i in range(100)]
    >>> grouped_intervals([spec], [answers, answers[:50]]) == [intervals([spec], answers),
    ...                                                         intervals([spec], answers[:50])]
    True
    """
    groups = [list(group) for group in groups]
    clusters = [cluster] * len(groups) if isinstance(cluster, str) else list(cluster)
    if len(clusters) != len(groups) or not set(clusters) <= set(CLUSTERS):
        raise ValueError(f"cluster must be one of {', '.join(CLUSTERS)} (or one per group), got {cluster!r}")
    if "map" in clusters and map_of is None:
        raise ValueError("cluster 'map' needs each answer's map (map_of)")
    tally = _tally(specs, groups)
    found: list[dict[str, Interval]] = [{} for _ in groups]
    if not len(tally.names):
        return found
    weights = {"question": resampling_weights(tally.names, resamples=resamples, seed=seed)}
    if "map" in clusters:
        of = {str(answer.id): str(map_of(answer)) for group in groups for answer in group}  # type: ignore[misc]
        maps = [of[name] for name in tally.names]
        weights["map"] = resampling_weights(tally.names, resamples=resamples, seed=seed, maps=maps)
    jobs = []
    for (chosen_cluster, sharing, size), batch in _batches(tally, clusters).items():
        if size == 1:  # one question: no interval, nothing to resample
            for group in (group for chosen in batch for group in chosen):
                row = int(tally.first[group])
                for column in np.flatnonzero(tally.applies[row]).tolist():
                    found[group][specs[column].name] = Interval(1, None, None, None)
            continue
        step = max(1, _BATCH_ROWS // (size * sharing))
        jobs += [(batch[part : part + step], weights[chosen_cluster]) for part in range(0, len(batch), step)]
    _run_batches(jobs, specs, tally, level, found)
    return [{spec.name: group[spec.name] for spec in specs if spec.name in group} for group in found]


#: the questions' weights one batch of :func:`_resampled` gathers at most (rows of resamples): its temporaries
#: stay a few megabytes, fresh memory the kernel need not map for each
_BATCH_ROWS = 256


#: threads that resample batches at once at most: numpy's products, partitions and sums release the interpreter
#: lock, and each batch writes only its own groups' intervals, so any number gives the same ones
_MAX_THREADS = 4
#: the gathered weights the threads' batches may hold at once: fewer threads where the largest batch needs more
#: (a model's row of 1,634 questions gathers 26 MB at 2,000 resamples, 650 MB at 50,000)
_THREAD_BYTES = 128 * 1024 * 1024


def _run_batches(
    jobs: list[tuple[list[list[int]], np.ndarray]],
    specs: Sequence[MetricSpec],
    tally: _Tally,
    level: float,
    found: list[dict[str, Interval]],
) -> None:
    """:func:`_resampled` of every batch, on up to :data:`_MAX_THREADS` threads (one per available core, and as
    many as the largest batch's gathered weights fit :data:`_THREAD_BYTES`)."""
    gathered = (len(batch) * int(tally.sizes[batch[0][0]]) * weights.shape[1] * 8 for batch, weights in jobs)
    largest = max(gathered, default=0)
    threads = min(_MAX_THREADS, _cores(), len(jobs), max(1, _THREAD_BYTES // max(largest, 1)))
    if threads <= 1:
        for batch, weights in jobs:
            _resampled(batch, specs, tally, weights, level, found)
        return
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(threads)
    try:
        # consumed in order: a batch's error is raised here, as without threads
        for _ in pool.map(lambda job: _resampled(job[0], specs, tally, job[1], level, found), jobs):
            pass
    finally:
        # after an error or Ctrl-C, even one that came while the batches were being handed out, the batches
        # not yet started are dropped, not waited for
        pool.shutdown(wait=True, cancel_futures=True)


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _batches(tally: _Tally, clusters: Sequence[str]) -> dict[tuple[str, int, int], list[list[int]]]:
    """The groups of :func:`grouped_intervals` that share weights, batched by (clustering, groups, questions)."""
    # the groups over one set of questions, and one clustering, share its weights
    by_questions: dict[tuple[str, bytes], list[int]] = {}
    for index, size in enumerate(tally.sizes.tolist()):
        if size:
            start = int(tally.first[index])
            key = (clusters[index], tally.questions[start : start + size].tobytes())
            by_questions.setdefault(key, []).append(index)
    # the sets of one shape (clustering, groups sharing the set, questions) are one batch of matrix products
    batches: dict[tuple[str, int, int], list[list[int]]] = {}
    for (chosen_cluster, _), chosen in by_questions.items():
        batches.setdefault((chosen_cluster, len(chosen), int(tally.sizes[chosen[0]])), []).append(chosen)
    return batches


def _resampled(
    batch: list[list[int]],
    specs: Sequence[MetricSpec],
    tally: _Tally,
    weights: np.ndarray,
    level: float,
    found: list[dict[str, Interval]],
) -> None:
    """The intervals of the groups of ``batch``: sets of groups, the groups of a set over the same questions, every
    set as many groups over as many questions. Each (group, spec that applies) gets its :class:`Interval` in
    ``found``."""
    width, resamples = len(specs), weights.shape[1]
    sharing, size = len(batch[0]), int(tally.sizes[batch[0][0]])
    chosen = np.array(batch, dtype=np.intp)  # sets × groups
    starts = tally.first[chosen[:, 0]]
    questions = tally.questions[starts[:, None] + np.arange(size)]  # sets × questions (sorted by id)
    if len(batch) == 1 and int(questions[0, -1]) - int(questions[0, 0]) + 1 == size:  # consecutive: a view
        mine = weights[None, int(questions[0, 0]) : int(questions[0, -1]) + 1]
    else:
        mine = weights[questions]  # sets × questions × resamples
    # each set's groups' sums laid out as one matrix per group of numerators (specs × questions) then
    # denominators, the groups one after the other; then every spec's resampled weighted means of every group
    # in one product per set (a row of a product, and a product of a stack, is its own: the same bits as one
    # group's alone): sum c·w·x / sum c·w (w·x is the numerator)
    members = tally.first[chosen][:, :, None] + np.arange(size)  # sets × groups × questions
    sums = np.stack([tally.numerators[members], tally.denominators[members]], axis=2)  # sets × groups × 2 × q × s
    stacked = np.ascontiguousarray(sums.transpose(0, 1, 2, 4, 3)).reshape(len(batch), -1, size)
    sums = (stacked @ mine).reshape(len(batch), sharing, 2, width, resamples)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums[:, :, 0] / sums[:, :, 1]  # sets × groups × specs × resamples
    applies = tally.applies[members].sum(axis=2)  # questions per spec: sets × groups × specs
    for at, group, column in np.argwhere(applies == 1).tolist():  # one question: no interval
        found[batch[at][group]][specs[column].name] = Interval(1, None, None, None)
    places = np.argwhere(applies >= 2)
    if not len(places):
        return
    # a resample that gave the spec's questions no weight is dropped (by the spreads)
    rows = means.reshape(-1, resamples) if len(places) == applies.size else means[applies >= 2]
    errors, lows, highs, kept = spread_arrays(rows, level)
    for (at, group, column), se, low, high in zip(places.tolist(), errors.tolist(), lows.tolist(), highs.tolist()):
        n = int(applies[at, group, column])
        found[batch[at][group]][specs[column].name] = _interval(n, se, low, high)


def _interval(n: int, se: float, low: float, high: float) -> Interval:
    """The interval of ``n`` questions from their resampled spread, or none where it would claim a precision
    the data do not have: fewer than two questions, no spread (fewer than two resamples kept: ``nan``), or no
    variance (every resample the same figure)."""
    if n < 2:
        return Interval(n, None, None, None)
    if not all(math.isfinite(value) for value in (se, low, high)):
        return Interval(n, None, None, None)
    if se <= 1e-12 * max(1.0, abs(low), abs(high)) or high - low <= 1e-12 * max(1.0, abs(high)):
        return Interval(n, None, None, None)
    return Interval(n, se, low, high)


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
    #: each row's question: its place in ``names``
    questions: np.ndarray
    #: the questions' ids, sorted
    names: tuple[str, ...]


def _tally(specs: Sequence[MetricSpec], groups: list[list[Any]]) -> _Tally:
    """The sums of every group's questions (:class:`_Tally`); an answer in several groups is read once.

    A question's sums are exact (:func:`math.fsum`: the same bits in any order). A question with one or two
    answers in a group, as most have (a short and a long one), is summed by numpy: ``x + 0.0`` and ``x + y``
    are ``fsum``'s correctly rounded sums (``+ 0.0`` making ``-0.0`` the ``0.0`` that ``fsum`` gives);
    more answers, or a sum that is not finite, go through ``fsum`` itself.
    """
    width = len(specs)
    flat = [answer for group in groups for answer in group]
    ids = list(map(id, flat))
    distinct = dict(zip(ids, flat))  # each answer once, in order of first sight
    position = dict(zip(distinct, range(len(distinct))))
    products, shares, applies = _values(specs, distinct.values())
    questions = [str(answer.id) for answer in distinct.values()]
    names = tuple(sorted(set(questions)))
    rank = dict(zip(names, range(len(names))))
    ranks = np.fromiter(map(rank.__getitem__, questions), dtype=np.int64, count=len(questions))

    lengths = np.array([len(group) for group in groups], dtype=np.int64)
    members = np.fromiter(map(position.__getitem__, ids), dtype=np.intp, count=len(ids))
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
        answers = members[starts[row] : ends[row]]
        for column in range(width):
            kept = answers[applies[answers, column]]
            numerators[row, column] = math.fsum(products[kept, column].tolist())
            denominators[row, column] = math.fsum(shares[kept, column].tolist())
    group_of_row = keys[starts] // max(len(rank), 1)
    sizes = np.bincount(group_of_row, minlength=len(groups))
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    row_questions = (keys[starts] % max(len(rank), 1)).astype(np.intp)
    return _Tally(numerators, denominators, counted, first, sizes, row_questions, names)


def _values(specs: Sequence[MetricSpec], answers: Collection[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per answer (a row) and spec (a column): ``weight × value``, the weight, and whether the spec applies
    (where it does not, the first two are 0)."""
    # each spec's reader of values, and of weights (``None``: every answer weighs 1)
    readers = [(spec.value, spec.weight if spec.aggregation == "weighted_mean" else None) for spec in specs]
    products: list[float] = []
    shares: list[float] = []
    applies: list[bool] = []
    for answer in answers:
        for value_of, weight_of in readers:
            value = value_of(answer)
            if value is None:
                products.append(0.0)
                shares.append(0.0)
                applies.append(False)
            else:
                share = 1.0 if weight_of is None else weight_of(answer)
                products.append(share * value)
                shares.append(share)
                applies.append(True)
    shape = (len(answers), len(specs))
    return (
        np.array(products, dtype=float).reshape(shape),
        np.array(shares, dtype=float).reshape(shape),
        np.array(applies, dtype=bool).reshape(shape),
    )


def interval_note(summary: Any) -> str:
    """What ``±`` means in a summary's tables, as a sentence after a space.

    Parameters
    ----------
    summary : dict
        A summary (read by its ``interval_method``); anything without ``get`` has none.

    Returns
    -------
    str
        The sentence, or ``""`` for a summary without intervals.

    Examples
    --------
    >>> interval_note({"interval_method": INTERVAL_METHOD})
    ' ± is half the width of the 95% interval (Poisson bootstrap over questions, 2000 resamples, seed 0); – where \
there is none (fewer than two questions, or no variance).'
    """
    method = summary.get("interval_method") if hasattr(summary, "get") else None
    if not method:
        return ""
    return (
        f" ± is half the width of the {method['level']:.0%} interval"
        f" ({method['method']}, {method['resamples']} resamples, seed {method['seed']});"
        " – where there is none (fewer than two questions, or no variance)."
    )


def scored_row(
    specs: Sequence[MetricSpec],
    verdicts: Sequence[Any],
    *,
    cluster: str = "question",
    map_of: Callable[[Any], str] | None = None,
    both: bool = False,
) -> dict[str, Any]:
    """A report's row of scored answers: every spec's figure, ``n``, ``n_invalid`` and the headline intervals.

    Parameters
    ----------
    specs : sequence of MetricSpec
        The task's metrics; their headline ones get an interval (one bootstrap over the questions).
    verdicts : sequence
        Scored answers; ``parsed is None`` marks an invalid one.
    cluster, map_of
        What the intervals resample (:func:`intervals`).
    both : bool
        Also ``intervals_by_cluster``: the intervals of both clusterings, by clustering.

    Returns
    -------
    dict
        Each spec's figure by name, then ``n``, ``n_invalid``, ``intervals`` (each headline interval as
        :meth:`Interval.to_dict` gives it) and, with ``both``, ``intervals_by_cluster``.

    Examples
    --------
    >>> from types import SimpleNamespace as Verdict
    >>> spec = MetricSpec("accuracy", lambda verdict: verdict.correct, "share right", aggregation="mean", headline=True)
    >>> row = scored_row([spec], [Verdict(id="1", correct=1, parsed="A"), Verdict(id="2", correct=0, parsed=None)])
    >>> row["accuracy"], row["n"], row["n_invalid"], sorted(row["intervals"])
    (0.5, 2, 1, ['accuracy'])
    """
    chosen = headline(specs)
    found = intervals(chosen, verdicts, cluster=cluster, map_of=map_of)  # a bootstrap
    row = {
        **figures(specs, verdicts),
        "n": len(verdicts),
        "n_invalid": sum(verdict.parsed is None for verdict in verdicts),
        "intervals": {name: interval.to_dict() for name, interval in found.items()},
    }
    if both:
        other = "map" if cluster == "question" else "question"
        also = intervals(chosen, verdicts, cluster=other, map_of=map_of)
        row["intervals_by_cluster"] = {
            cluster: row["intervals"],
            other: {name: interval.to_dict() for name, interval in also.items()},
        }
    return row

"""Metrics: one record per metric, one aggregation, and the cells tables print them in.

Each task registers its metrics as :class:`MetricSpec` records (route:
:mod:`benchmarks.reasonmap.metrics`, plus: :mod:`benchmarks.plus.metrics`,
map QA: :mod:`benchmarks.mapqa.metrics`), exposed on its registry entry as
``metrics``. A spec says how one answer counts (``value``: a number, or
``None`` where the metric does not apply to that answer) and how answers
aggregate: ``weighted_mean`` (``sum(weight · value) / sum(weight)`` with
each answer's ``weight``, the paper's weighted accuracy) or ``mean`` (every
answer weighs 1). :func:`aggregate` is the one computation behind every
report, ``results.json``, ``score --explain`` and the Inspect metrics;
:func:`ratio` rounds a figure the way summaries store it and
:func:`percent` / :func:`number` print it.

A spec that names the scored row's ``field`` (and the request ``kind`` it is
restricted to) is also computed from scored rows, by the paired comparisons
(``reasonmap compare``) and shown on leaderboards: :func:`compared` lists
those; each one's p-value test, display scale and column title follow from the
spec (:attr:`MetricSpec.test`, :attr:`MetricSpec.scale`, :attr:`MetricSpec.title`).

Like lm-evaluation-harness's registered metrics (``higher_is_better`` and an
aggregation per metric) and scikit-learn's scorer registry, the properties
travel with the metric instead of being re-derived by each report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Literal

__all__ = [
    "AGGREGATIONS",
    "DIGITS",
    "MetricSpec",
    "BINARY_FIELDS",
    "aggregate",
    "weighted_mean",
    "figures",
    "headline",
    "compared",
    "ratio",
    "percent",
    "number",
    "interval_cell",
    "row_cell",
    "MEAN_TOKENS",
]

Aggregation = Literal["weighted_mean", "mean"]
#: The aggregations a spec can name.
AGGREGATIONS: tuple[str, ...] = ("weighted_mean", "mean")
#: Digits a summary keeps of every figure.
DIGITS = 6
#: Scored-row fields that hold a 0/1 verdict in every task: their mean is a share, shown in %, and two sides'
#: values are compared by exact McNemar (any other field: by sign-flip permutation).
BINARY_FIELDS: tuple[str, ...] = ("correct",)

_weight_of = attrgetter("weight")


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """One metric of a task: how an answer counts, how answers aggregate, and what the number means.

    Attributes
    ----------
    name : str
        The key of the figure in a summary's model row (``weighted_accuracy_short``).
    value : callable
        ``value(answer) -> float | None``: the answer's contribution, ``None`` where
        the metric does not apply to it (a long answer for a short-question metric,
        an answer that reported no tokens); those answers are left out of the mean.
    description : str
        One line.
    label : str
        Its column title in tables (``Short Acc.``).
    aggregation : {"weighted_mean", "mean"}
        ``weighted_mean`` weighs each answer by ``weight(answer)``; ``mean`` by 1.
    higher_is_better : bool
    bounds : tuple of float
        The smallest and largest value the figure can take (``math.inf`` when unbounded).
    headline : bool
        Printed in the run-level tables (``results.md``) and given an interval.
    weight : callable
        ``weight(answer) -> float`` for ``weighted_mean`` (default: the answer's ``weight``).
    field : str
        The scored row's key that holds this metric's per-answer value (``correct``, ``map_score``);
        set on the metrics paired comparisons and leaderboards compute and show (:func:`compared`),
        empty on the others.
    kind : str or None
        The scored rows' request kind (the row's ``question``: ``short``) the value is read from;
        ``None``: every row.
    """

    name: str
    value: Callable[[Any], float | None]
    description: str
    label: str = ""
    aggregation: Aggregation = "weighted_mean"
    higher_is_better: bool = True
    bounds: tuple[float, float] = (0.0, 1.0)
    headline: bool = False
    weight: Callable[[Any], float] = _weight_of
    field: str = ""
    kind: str | None = None

    def __post_init__(self) -> None:
        if self.aggregation not in AGGREGATIONS:
            raise ValueError(
                f"metric {self.name!r}: aggregation must be one of {list(AGGREGATIONS)}, got {self.aggregation!r}"
            )
        low, high = self.bounds
        if not low < high:
            raise ValueError(f"metric {self.name!r}: bounds must be (low, high) with low < high, got {self.bounds!r}")

    @property
    def is_share(self) -> bool:
        """Whether the figure is a share in [0, 1] (printed in %)."""
        return tuple(self.bounds) == (0.0, 1.0)

    @property
    def weighted(self) -> bool:
        """Whether each answer's weight weighs it (``weighted_mean``)."""
        return self.aggregation == "weighted_mean"

    @property
    def test(self) -> Literal["mcnemar", "permutation"]:
        """The p-value of a paired comparison: exact McNemar for a 0/1 field, sign-flip permutation otherwise."""
        return "mcnemar" if self.field in BINARY_FIELDS else "permutation"

    @property
    def scale(self) -> float:
        """How comparisons and leaderboards show the figure: a share of 0/1 verdicts in % (100), else as it is."""
        return 100.0 if self.field in BINARY_FIELDS else 1.0

    @property
    def title(self) -> str:
        """Its column title in comparisons and leaderboards: the label, ``(%)`` added when shown in %."""
        return f"{self.label} (%)" if self.scale == 100.0 else self.label

    def pairs(self, answers: Iterable[Any]) -> list[tuple[float, float]]:
        """``(value, weight)`` of every answer the metric applies to, in input order."""
        weighted = self.weighted
        found = []
        for answer in answers:
            value = self.value(answer)
            if value is not None:
                found.append((value, self.weight(answer) if weighted else 1))
        return found

    def cell(self, value: float | None, interval: Any = None) -> str:
        """The figure as a table prints it: a share in %, anything else as a number (2 digits each), with
        ``± half the interval's width`` when given one (see :func:`interval_cell`)."""
        return interval_cell(value, interval, scale=100 if self.is_share else 1)


#: The mean output tokens per answer, the same spec in every task whose answers are one request each (plus, probes).
MEAN_TOKENS = MetricSpec(
    "mean_tokens",
    attrgetter("tokens"),
    "output tokens per answer, over the answers that reported them",
    label="Tokens",
    aggregation="mean",
    higher_is_better=False,
    bounds=(0.0, math.inf),
)


def weighted_mean(pairs: Iterable[tuple[float, float]]) -> float | None:
    """``sum(weight · value) / sum(weight)`` over ``(value, weight)`` pairs; ``None`` when the weights add up to 0.

    Both sums are exact (:func:`math.fsum`), so the same answers give the same
    bits in any order: shuffled input or another worker count changes no digit.

    Parameters
    ----------
    pairs : iterable of (float, float)
        ``(value, weight)`` pairs.

    Returns
    -------
    float or None
        The mean.

    Examples
    --------
    >>> weighted_mean([(1, 3.0), (0, 1.0)])
    0.75
    >>> weighted_mean([]) is None
    True
    """
    products, shares = [], []
    for value, share in pairs:
        products.append(share * value)
        shares.append(share)
    weight = math.fsum(shares)
    return math.fsum(products) / weight if weight else None


def aggregate(spec: MetricSpec, answers: Iterable[Any]) -> float | None:
    """The metric over ``answers`` (unrounded): its weighted mean, or plain mean; ``None`` when none applies.

    Parameters
    ----------
    spec : MetricSpec
        The metric.
    answers : iterable
        Verdicts (or scored rows) the metric reads.

    Returns
    -------
    float or None
        The figure, unrounded.

    Examples
    --------
    >>> from types import SimpleNamespace as Answer
    >>> spec = MetricSpec("accuracy", attrgetter("correct"), "share of right answers")
    >>> aggregate(spec, [Answer(correct=1, weight=3.0), Answer(correct=0, weight=1.0)])
    0.75
    >>> plain = MetricSpec("accuracy", attrgetter("correct"), "share of right answers", aggregation="mean")
    >>> aggregate(plain, [Answer(correct=1, weight=3.0), Answer(correct=0, weight=1.0)])
    0.5
    """
    return weighted_mean(spec.pairs(answers))


def ratio(numerator: float, denominator: float, digits: int = DIGITS) -> float | None:
    """``numerator / denominator`` rounded as summaries keep figures; ``None`` for a zero denominator.

    Parameters
    ----------
    numerator, denominator : float
    digits : int, optional
        Digits kept.

    Returns
    -------
    float or None

    Examples
    --------
    >>> ratio(1, 3), ratio(1, 0)
    (0.333333, None)
    """
    return round(numerator / denominator, digits) if denominator else None


def figures(specs: Sequence[MetricSpec], answers: Sequence[Any]) -> dict[str, float | None]:
    """Every spec's figure over ``answers``, rounded to :data:`DIGITS`, by name.

    Parameters
    ----------
    specs : sequence of MetricSpec
        The metrics.
    answers : sequence
        The verdicts they read.

    Returns
    -------
    dict of str to float or None
        Each metric's figure by name.
    """
    found = {}
    for spec in specs:
        value = aggregate(spec, answers)
        found[spec.name] = None if value is None else round(value, DIGITS)
    return found


def headline(specs: Iterable[MetricSpec]) -> tuple[MetricSpec, ...]:
    """The headline specs, in registration order.

    Parameters
    ----------
    specs : iterable of MetricSpec

    Returns
    -------
    tuple of MetricSpec
        Those marked ``headline``.
    """
    return tuple(spec for spec in specs if spec.headline)


def compared(specs: Iterable[MetricSpec]) -> tuple[MetricSpec, ...]:
    """The specs paired comparisons and leaderboards compute from scored rows (those naming a ``field``), in
    registration order.

    Parameters
    ----------
    specs : iterable of MetricSpec

    Returns
    -------
    tuple of MetricSpec
        Those naming a scored row's ``field``.
    """
    return tuple(spec for spec in specs if spec.field)


def percent(value: float | None, digits: int = 2, suffix: str = "") -> str:
    """A share as a percentage cell; ``–`` for no value.

    Parameters
    ----------
    value : float or None
        A share (0.4123 is 41.23).
    digits : int, optional
        Digits after the point.
    suffix : str, optional
        Written after the figure (``%``).

    Returns
    -------
    str

    Examples
    --------
    >>> percent(0.41234), percent(None), percent(0.5, 1, "%")
    ('41.23', '–', '50.0%')
    """
    return "–" if value is None else f"{100 * value:.{digits}f}{suffix}"


def number(value: float | None, digits: int = 2) -> str:
    """A figure as a table cell; ``–`` for no value.

    Parameters
    ----------
    value : float or None
    digits : int, optional
        Digits after the point.

    Returns
    -------
    str

    Examples
    --------
    >>> number(17.256), number(None), number(0.5, 3)
    ('17.26', '–', '0.500')
    """
    return "–" if value is None else f"{value:.{digits}f}"


def interval_cell(value: float | None, interval: Any, *, scale: float = 1.0, digits: int = 2) -> str:
    """``41.23 ± 2.31``: a figure and half its interval's width.

    ``interval`` is a :class:`~benchmarks.intervals.Interval` or its dict (``low``, ``high``).

    Without an interval, the figure alone; without a figure, ``–``; with an interval that has no bounds
    (fewer than two questions, or no variance: :mod:`benchmarks.intervals`), ``± –``.

    Parameters
    ----------
    value : float or None
        The figure.
    interval : Interval, mapping or None
        Its interval.
    scale : float, optional
        Multiplies the figure and the half-width (100 for a share shown as a percentage).
    digits : int, optional
        Digits after the point.

    Returns
    -------
    str

    Examples
    --------
    >>> interval_cell(0.41234, {"n": 9, "se": 0.01, "low": 0.39, "high": 0.4362}, scale=100)
    '41.23 ± 2.31'
    >>> interval_cell(None, None), interval_cell(17.256, None), interval_cell(1.0, {"n": 1, "low": None, "high": None})
    ('–', '17.26', '1.00 ± –')
    """
    if value is None:
        return "–"
    if interval is None:
        return f"{value * scale:.{digits}f}"
    low, high = (interval["low"], interval["high"]) if isinstance(interval, Mapping) else (interval.low, interval.high)
    if low is None or high is None:
        return f"{value * scale:.{digits}f} ± –"
    return f"{value * scale:.{digits}f} ± {(high - low) / 2 * scale:.{digits}f}"


def row_cell(row: Mapping[str, Any], key: str) -> str:
    """A summary row's share ``key`` in %, with its interval when the row has one (its ``intervals``).

    Parameters
    ----------
    row : mapping
        A row of a task's summary (a model's, or one of its groups').
    key : str
        The share shown.

    Returns
    -------
    str
        What :func:`interval_cell` writes of it, scaled to %.

    Examples
    --------
    >>> row_cell({"accuracy": 0.5, "intervals": {"accuracy": {"low": 0.4, "high": 0.6}}}, "accuracy")
    '50.00 ± 10.00'
    >>> row_cell({}, "accuracy")
    '–'
    """
    return interval_cell(row.get(key), row.get("intervals", {}).get(key), scale=100)

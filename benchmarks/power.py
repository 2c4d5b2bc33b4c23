"""Power of a comparison of two accuracies: questions needed to detect a difference, and the smallest difference
a number of questions detects (the minimum detectable effect), at a two-sided level and a power.

Two designs, each by its normal approximation (no continuity correction):

- independent proportions (two models on different questions; the conservative
  figure for a single run): per side
  ``n = (z_a √(2 p̄ q̄) + z_b √(p₁q₁ + p₂q₂))² / δ²`` with ``p̄ = (p₁ + p₂)/2``,
  the sample size of the pooled two-proportion z-test;
- paired proportions (two models on the same questions, as every comparison here
  is): with the discordant shares ``p₁₀`` (A right, B wrong) and ``p₀₁``,
  ``ψ = p₁₀ + p₀₁`` and ``δ = p₀₁ − p₁₀ = p₂ − p₁``,
  ``n = (z_a √ψ + z_b √(ψ − δ²))² / δ²`` (Connor 1987), the questions of McNemar's
  z-test. The discordance follows from both accuracies and the correlation of the
  two models' per-question correctness (the phi coefficient ``ρ``):
  ``p₁₁ = p₁p₂ + ρ √(p₁q₁p₂q₂)``, ``p₁₀ = p₁ − p₁₁``, ``p₀₁ = p₂ − p₁₁``.

``z_a`` is the normal quantile at ``1 − α/2``, ``z_b`` at the power
(:class:`statistics.NormalDist`). The minimum detectable effect inverts these
(bisection over δ), moving the rate towards 50% (where a difference is hardest to
see), keeping the correlation; :func:`detectable_from_se` is the one of a
comparison already made: ``(z_a + z_b) × se`` of its difference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

__all__ = [
    "ALPHA",
    "POWER",
    "questions_independent",
    "questions_paired",
    "discordance",
    "detectable_independent",
    "detectable_paired",
    "detectable_from_se",
    "paired_correlation",
]

#: Two-sided level of the test.
ALPHA = 0.05
#: Power asked for.
POWER = 0.8


def _z(alpha: float, power: float) -> tuple[float, float]:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    if not 0.0 < power < 1.0:
        raise ValueError(f"power must lie strictly between 0 and 1, got {power}")
    normal = NormalDist()
    return normal.inv_cdf(1.0 - alpha / 2.0), normal.inv_cdf(power)


def _rate(value: float, what: str) -> float:
    if not (isinstance(value, int | float) and math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"{what} must be a share from 0 to 1, got {value}")
    return float(value)


def _independent(p1: float, p2: float, za: float, zb: float) -> float:
    mean = (p1 + p2) / 2.0
    spread = za * math.sqrt(2.0 * mean * (1.0 - mean)) + zb * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))
    return spread**2 / (p2 - p1) ** 2


def questions_independent(p1: float, p2: float, *, alpha: float = ALPHA, power: float = POWER) -> int:
    """Questions per side for a two-proportion z-test to tell ``p1`` from ``p2`` (shares) at ``power``.

    Parameters
    ----------
    p1, p2 : float
        The two rates.
    alpha : float, optional
        The test's two-sided level.
    power : float, optional
        The chance of detecting the difference.

    Returns
    -------
    int
        Questions per side, rounded up.

    Examples
    --------
    >>> questions_independent(0.4, 0.5)  # (1.95996·√0.495 + 0.84162·√0.49)² / 0.01 = 387.3
    388

    Raises
    ------
    ValueError
        A rate outside [0, 1], equal rates, or ``alpha``/``power`` outside (0, 1).
    """
    p1, p2 = _rate(p1, "the first rate"), _rate(p2, "the second rate")
    if p1 == p2:
        raise ValueError("the two rates are equal: no number of questions tells them apart")
    return math.ceil(_independent(p1, p2, *_z(alpha, power)) - 1e-9)


def discordance(p1: float, p2: float, correlation: float) -> tuple[float, float]:
    """``(p10, p01)``: the shares of questions only A (rate ``p1``) and only B (``p2``) get right, when their
    per-question correctness correlates by ``correlation`` (phi).

    Parameters
    ----------
    p1, p2 : float
        The two rates.
    correlation : float
        Phi.

    Returns
    -------
    p10, p01 : float

    Examples
    --------
    >>> [round(x, 6) for x in discordance(0.5, 0.5, 0.0)]
    [0.25, 0.25]

    Raises
    ------
    ValueError
        A correlation that those two rates cannot have (a share would fall below 0).
    """
    p1, p2 = _rate(p1, "the first rate"), _rate(p2, "the second rate")
    if not (math.isfinite(correlation) and -1.0 <= correlation <= 1.0):
        raise ValueError(f"the correlation must lie from -1 to 1, got {correlation}")
    both = p1 * p2 + correlation * math.sqrt(p1 * (1 - p1) * p2 * (1 - p2))
    only_a, only_b = p1 - both, p2 - both
    if min(both, only_a, only_b, 1.0 - both - only_a - only_b) < -1e-12:
        raise ValueError(f"rates {p1:g} and {p2:g} cannot correlate by {correlation:g} (a share would be negative)")
    return max(only_a, 0.0), max(only_b, 0.0)


def _paired(p1: float, p2: float, correlation: float, za: float, zb: float) -> float:
    only_a, only_b = discordance(p1, p2, correlation)
    either, delta = only_a + only_b, only_b - only_a
    return (za * math.sqrt(either) + zb * math.sqrt(max(either - delta**2, 0.0))) ** 2 / delta**2


def questions_paired(p1: float, p2: float, correlation: float, *, alpha: float = ALPHA, power: float = POWER) -> int:
    """Questions (each answered by both) for McNemar's z-test to tell ``p1`` from ``p2`` at ``power``.

    Parameters
    ----------
    p1, p2 : float
        The two rates.
    correlation : float
        The phi correlation of the two sides' correctness.
    alpha : float, optional
        The test's two-sided level.
    power : float, optional
        The chance of detecting the difference.

    Returns
    -------
    int
        Questions, rounded up.

    Examples
    --------
    >>> questions_paired(0.4, 0.5, 0.0)  # p10 = 0.2, p01 = 0.3: (1.95996·√0.5 + 0.84162·√0.49)² / 0.01 = 390.1
    391
    >>> questions_paired(0.4, 0.5, 0.5)  # correlated: p10 = 0.0775, p01 = 0.1775, ψ = 0.2551: 197.8
    198

    Raises
    ------
    ValueError
        As :func:`questions_independent` and :func:`discordance`.
    """
    if p1 == p2:
        raise ValueError("the two rates are equal: no number of questions tells them apart")
    return math.ceil(_paired(p1, p2, correlation, *_z(alpha, power)) - 1e-9)


def _solve(needed: object, n: int, room: float) -> float | None:
    """The δ in (0, ``room``] at which ``needed(δ)`` (decreasing) is ``n``; ``None`` if even ``room`` needs more."""
    if needed(room) > n:  # type: ignore[operator]
        return None
    low, high = 0.0, room
    for _ in range(100):
        middle = (low + high) / 2.0
        if needed(middle) > n:  # type: ignore[operator]
            low = middle
        else:
            high = middle
    return high


def _towards_half(p: float) -> tuple[float, float]:
    """The direction (+1 or -1) that moves ``p`` towards 50%, and the room there is that way."""
    return (1.0, 1.0 - p) if p <= 0.5 else (-1.0, p)


def _detectable_setup(p: float, n: int, alpha: float, power: float) -> tuple[float, float, float, float, float]:
    """The checked rate ``p``, ``z_a``, ``z_b``, and the direction and room towards 50% for a detectable effect."""
    p = _rate(p, "the rate")
    if n < 1:
        raise ValueError(f"the number of questions must be at least 1, got {n}")
    za, zb = _z(alpha, power)
    sign, room = _towards_half(p)
    return p, za, zb, sign, room


def detectable_independent(p: float, n: int, *, alpha: float = ALPHA, power: float = POWER) -> float | None:
    """The smallest difference (a share) that ``n`` questions a side detect from rate ``p`` at ``power``
    (towards 50%); ``None`` when no difference within [0, 1] is detectable.

    Parameters
    ----------
    p : float
        The rate of one side.
    n : int
        Questions per side.
    alpha : float, optional
        The test's two-sided level.
    power : float, optional
        The chance of detecting it.

    Returns
    -------
    float or None

    Examples
    --------
    >>> round(detectable_independent(0.4, 388), 3)  # the inverse of questions_independent(0.4, 0.5)
    0.1
    """
    p, za, zb, sign, room = _detectable_setup(p, n, alpha, power)
    return _solve(lambda delta: _independent(p, p + sign * delta, za, zb) if delta else math.inf, n, room)


def detectable_paired(
    p: float, correlation: float, n: int, *, alpha: float = ALPHA, power: float = POWER
) -> float | None:
    """The smallest difference (a share) that ``n`` paired questions detect from rate ``p`` at ``power`` when the
    two sides' correctness correlates by ``correlation`` (towards 50%; ``None``: none within reach).

    Parameters
    ----------
    p : float
        The rate of one side.
    correlation : float
        Phi.
    n : int
        Questions.
    alpha : float, optional
        The test's two-sided level.
    power : float, optional
        The chance of detecting it.

    Returns
    -------
    float or None

    Examples
    --------
    >>> round(detectable_paired(0.4, 0.0, 391), 3)
    0.1
    """
    p, za, zb, sign, room = _detectable_setup(p, n, alpha, power)

    def needed(delta: float) -> float:
        if not delta:
            return math.inf
        try:
            return _paired(p, p + sign * delta, correlation, za, zb)
        except ValueError:  # that far, the correlation is out of reach: not detectable there
            return math.inf

    return _solve(needed, n, room)


def detectable_from_se(se: float | None, *, level: float = 1.0 - ALPHA, power: float = POWER) -> float | None:
    """The minimum detectable effect of a comparison whose difference has standard error ``se``:
    ``(z_a + z_b) × se`` (``None`` without a standard error).

    Parameters
    ----------
    se : float or None
        The difference's standard error.
    level : float, optional
        The confidence level (two-sided).
    power : float, optional
        The chance of detecting it.

    Returns
    -------
    float or None

    Examples
    --------
    >>> round(detectable_from_se(0.01), 4)  # (1.95996 + 0.84162) × 0.01
    0.028
    """
    if se is None or not math.isfinite(se):
        return None
    za, zb = _z(1.0 - level, power)
    return (za + zb) * se


def paired_correlation(a: Sequence[float], b: Sequence[float]) -> float | None:
    """The phi coefficient of two sides' 0/1 correctness on the same questions (``None`` when a side has no
    variance, or fewer than two questions).

    Parameters
    ----------
    a, b : sequence of float
        Each side's 0/1 correctness, question by question.

    Returns
    -------
    float or None

    Examples
    --------
    >>> paired_correlation([1, 1, 0, 0], [1, 0, 1, 0]), paired_correlation([1, 1, 0, 0], [1, 1, 0, 0])
    (0.0, 1.0)
    """
    n = len(a)
    if n != len(b):
        raise ValueError(f"the two sides answered {len(a)} and {len(b)} questions: they must be paired")
    if n < 2:
        return None
    mean_a, mean_b = sum(a) / n, sum(b) / n
    covariance = sum((x - mean_a) * (y - mean_b) for x, y in zip(a, b)) / n
    spread = math.sqrt(mean_a * (1 - mean_a) * mean_b * (1 - mean_b)) if all(0 <= x <= 1 for x in (*a, *b)) else 0
    if spread <= 0:
        return None
    return covariance / spread

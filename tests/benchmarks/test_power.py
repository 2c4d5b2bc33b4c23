"""Power of comparisons of two accuracies: closed forms worked by hand, then checked by simulating the tests."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks.power import (
    detectable_from_se,
    detectable_independent,
    detectable_paired,
    discordance,
    paired_correlation,
    questions_independent,
    questions_paired,
)

Z975, Z80 = 1.959964, 0.841621  # the normal quantiles at 97.5% and 80%, from a table


def test_questions_for_independent_proportions_by_hand():
    # 40% against 50%: p̄ = 0.45, √(2·0.45·0.55) = 0.703562, √(0.4·0.6 + 0.5·0.5) = 0.7;
    # (1.959964·0.703562 + 0.841621·0.7)² / 0.1² = 1.968088² / 0.01 = 387.34: 388 a side
    assert questions_independent(0.4, 0.5) == 388
    assert questions_independent(0.5, 0.4) == 388  # the direction does not matter
    # at 90% power z = 1.281552: (1.378953 + 0.897086)² / 0.01 = 518.04
    assert questions_independent(0.4, 0.5, power=0.9) == 519
    with pytest.raises(ValueError, match="equal"):
        questions_independent(0.4, 0.4)
    with pytest.raises(ValueError, match="share from 0 to 1"):
        questions_independent(40, 50)


def test_questions_for_paired_proportions_by_hand():
    # no correlation: p10 = 0.4·0.5 = 0.2, p01 = 0.6·0.5 = 0.3, ψ = 0.5, δ = 0.1:
    # (1.959964·√0.5 + 0.841621·√0.49)² / 0.01 = (1.385904 + 0.589135)² / 0.01 = 390.08
    assert discordance(0.4, 0.5, 0.0) == pytest.approx((0.2, 0.3))  # p11 = 0.2: p10 = 0.4 − 0.2, p01 = 0.5 − 0.2
    assert questions_paired(0.4, 0.5, 0.0) == 391
    # correlation 0.5: p11 = 0.2 + 0.5·√(0.24·0.25) = 0.322474; p10 = 0.077526, p01 = 0.177526, ψ = 0.255051:
    # (1.959964·0.505026 + 0.841621·√0.245051)² / 0.01 = (0.989833 + 0.416623)² / 0.01 = 197.81
    assert discordance(0.4, 0.5, 0.5) == pytest.approx((0.077526, 0.177526), abs=1e-6)
    assert questions_paired(0.4, 0.5, 0.5) == 198
    with pytest.raises(ValueError, match="cannot correlate"):
        discordance(0.4, 0.5, 0.99)  # p11 would exceed 0.4


def test_the_minimum_detectable_effect_inverts_the_questions_needed():
    # 388 questions a side are enough for 10 points from 40% (387.34 needed), 387 are not
    assert detectable_independent(0.4, 388) <= 0.1 < detectable_independent(0.4, 387)
    assert detectable_paired(0.4, 0.0, 391) <= 0.1 < detectable_paired(0.4, 0.0, 390)
    assert detectable_paired(0.4, 0.5, 198) <= 0.1 < detectable_paired(0.4, 0.5, 197)
    # above 50% it moves down, towards 50%: the mirror of 40% → 30%
    assert detectable_independent(0.7, 300) == pytest.approx(detectable_independent(0.3, 300))
    assert detectable_independent(0.5, 2) is None  # two questions detect nothing within 0..100%
    # a comparison made: (z at 97.5% + z at 80%) × its standard error
    assert detectable_from_se(0.01) == pytest.approx((Z975 + Z80) * 0.01, abs=1e-8)
    assert detectable_from_se(None) is None


def test_paired_correlation_is_the_phi_coefficient_by_hand():
    # both right 4, A only 1, B only 3, neither 2: (4·2 − 1·3) / √(5·5·7·3) = 5 / √525
    a = [1, 1, 1, 0, 0, 0, 0, 0, 1, 1]
    b = [1, 1, 1, 1, 1, 1, 0, 0, 0, 1]
    assert paired_correlation(a, b) == pytest.approx(5 / math.sqrt(525))
    assert paired_correlation([1, 1], [0, 1]) is None  # A has no variance
    with pytest.raises(ValueError, match="paired"):
        paired_correlation([1, 0], [1])


def test_the_sample_sizes_reach_their_power_in_simulation():
    # 4,000 simulated experiments at each sample size: the pooled two-proportion z-test and McNemar's z-test,
    # written here, reject at 5% in 80% ± 2.5 points of them
    rng = np.random.default_rng(11)
    trials = 4000
    n = questions_independent(0.4, 0.5)
    a = rng.binomial(n, 0.4, trials) / n
    b = rng.binomial(n, 0.5, trials) / n
    pooled = (a + b) / 2
    z = (b - a) / np.sqrt(2 * pooled * (1 - pooled) / n)
    assert np.mean(np.abs(z) > Z975) == pytest.approx(0.8, abs=0.025)
    n = questions_paired(0.4, 0.5, 0.5)
    only_a, only_b = discordance(0.4, 0.5, 0.5)
    counts = rng.multinomial(n, [only_a, only_b, 1 - only_a - only_b], trials)
    z = (counts[:, 1] - counts[:, 0]) / np.sqrt(counts[:, 0] + counts[:, 1])
    assert np.mean(np.abs(z) > Z975) == pytest.approx(0.8, abs=0.025)

"""Paired statistics: exact McNemar, sign-flip permutation p-values, the paired bootstrap, and their error rates."""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction
from hashlib import blake2b
from itertools import product
from math import comb

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.paired import (
    difference_interval,
    mcnemar_exact,
    mean_interval,
    question_weights,
    resampling_weights,
    sign_flip_pvalue,
    weighted_means,
)


def bootstrap_counts(n: int, *, resamples: int = 2000, seed: int = 0) -> np.ndarray:
    """The weights of ``n`` questions named q0.. in each resample (resamples × questions)."""
    return resampling_weights([f"q{i}" for i in range(n)], resamples=resamples, seed=seed).T


def _pairs(only_a: int, only_b: int, both: int = 3, neither: int = 2) -> tuple[np.ndarray, np.ndarray]:
    a = [1] * only_a + [0] * only_b + [1] * both + [0] * neither
    b = [0] * only_a + [1] * only_b + [1] * both + [0] * neither
    return np.array(a), np.array(b)


@pytest.mark.parametrize(
    ("only_a", "only_b", "expected"),
    [
        # 1 vs 7 discordant: 2 * P(X <= 1), X ~ Bin(8, 1/2) = 2 * (1 + 8) / 256
        (1, 7, 18 / 256),
        # 5 vs 0: 2 * P(X = 0), X ~ Bin(5, 1/2) = 2 / 32
        (5, 0, 2 / 32),
        # 2 vs 10: 2 * (1 + 12 + 66) / 4096
        (2, 10, 158 / 4096),
        # 3 vs 3: 2 * (1 + 6 + 15 + 20) / 64 > 1, so 1
        (3, 3, 1.0),
        # no discordant pair: nothing tells the sides apart
        (0, 0, 1.0),
    ],
)
def test_mcnemar_matches_the_binomial_by_hand(only_a, only_b, expected):
    a, b = _pairs(only_a, only_b)
    assert float(mcnemar_exact(a, b)) == pytest.approx(expected, rel=1e-12)
    assert float(mcnemar_exact(b, a)) == pytest.approx(expected, rel=1e-12)  # two-sided: symmetric


def test_mcnemar_batches_along_the_leading_axes():
    first, second = _pairs(1, 7), _pairs(5, 0)
    width = max(len(first[0]), len(second[0]))
    pad = [np.pad(x, (0, width - len(x))) for x in (*first, *second)]
    p = mcnemar_exact(np.stack([pad[0], pad[2]]), np.stack([pad[1], pad[3]]))
    assert p.shape == (2,)
    assert p.tolist() == pytest.approx([18 / 256, 2 / 32])


@pytest.mark.parametrize(
    ("differences", "weights", "expected"),
    [
        # sums ±1 ±2 ±3: 6 4 2 0 0 −2 −4 −6; |sum| >= 6 in 2 of 8 patterns
        ([1.0, 2.0, 3.0], None, 2 / 8),
        # ±3 ±1 ±1: 5 3 3 1 −1 −3 −3 −5; |sum| >= 5 in 2 of 8
        ([3.0, 1.0, 1.0], None, 2 / 8),
        # weighted: 3·(±1) + 1·(±1): 4 2 −2 −4; |sum| >= 4 in 2 of 4
        ([1.0, 1.0], [3.0, 1.0], 2 / 4),
        # observed 0: every pattern is at least as extreme
        ([1.0, -1.0], None, 1.0),
        # ±1 ±1 ±1 ±1: |sum| = 4 in 2 of 16
        ([1.0, 1.0, 1.0, 1.0], None, 2 / 16),
    ],
)
def test_sign_flips_enumerated_on_a_tiny_case(differences, weights, expected):
    assert float(sign_flip_pvalue(np.array(differences), weights)) == expected


def test_sign_flips_drawn_when_too_many_to_enumerate():
    rng = np.random.default_rng(5)
    zero = sign_flip_pvalue(np.zeros(40), permutations=999, seed=1)
    assert float(zero) == 1.0  # (1 + 999) / (1 + 999): every draw ties the observed 0
    shifted = sign_flip_pvalue(rng.normal(2.0, 1.0, 40), permutations=999, seed=1)
    assert float(shifted) == 1 / 1000  # no draw reaches a mean two SDs from zero: the smallest p it can say
    # 5 and 1, the rest zero: |±5 ±1| reaches 6 only when both keep or both flip their signs, half the patterns
    lone = sign_flip_pvalue(np.array([5.0, 1.0] + [0.0] * 38), permutations=4000, seed=1)
    assert 0.45 < float(lone) < 0.55


def test_sign_flips_are_seeded():
    d = np.random.default_rng(0).normal(0.3, 1.0, 50)
    assert sign_flip_pvalue(d, permutations=500, seed=3) == sign_flip_pvalue(d, permutations=500, seed=3)


def _splitmix_poisson(name: str, seed: int, resample: int, unit: str = "question") -> int:
    """The weight of ``name`` in resample ``resample`` spelt out with Python integers: the BLAKE2b key, the
    SplitMix64 output (Steele, Lea and Flood 2014: add the golden gamma, then xor-shift-multiply thrice), its
    top 53 bits as a uniform, and the Poisson(1) draw found by summing e^-1/k! until it passes the uniform."""
    key = int.from_bytes(
        blake2b(name.encode(), digest_size=8, key=seed.to_bytes(8, "little"), person=unit.encode()).digest(), "little"
    )
    mask = (1 << 64) - 1
    z = (key + (resample + 1) * 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    z ^= z >> 31
    uniform = (z >> 11) / 2.0**53
    k, total = 0, math.exp(-1.0)
    while uniform >= total:
        k += 1
        total += math.exp(-1.0) / math.factorial(k)
    return k


def test_each_weight_is_a_function_of_seed_question_and_resample_alone():
    found = question_weights(["q1", "beijing-017", "é"], resamples=300, seed=7)
    for row, name in enumerate(["q1", "beijing-017", "é"]):
        assert found[row].tolist() == [_splitmix_poisson(name, 7, r) for r in range(300)]
    # a question weighs the same whatever else is drawn, and another seed draws anew
    assert (question_weights(["beijing-017"], resamples=300, seed=7)[0] == found[1]).all()
    assert (question_weights(["q1"], resamples=300, seed=8)[0] != found[0]).any()
    maps = question_weights(["q1"], resamples=300, seed=7, unit="map")
    assert maps[0].tolist() == [_splitmix_poisson("q1", 7, r, "map") for r in range(300)]


def test_weights_are_the_same_in_another_process():
    # Python's hash() is salted per process; the weights must not be
    code = "from benchmarks.paired import question_weights as w; print(w(['q1', 'q2'], resamples=50).sum())"
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout for _ in range(2)}
    assert runs == {f"{question_weights(['q1', 'q2'], resamples=50).sum()}\n"}


def test_weights_are_poisson_one():
    # 400 questions × 2,000 resamples: P(0) = P(1) = e^-1 = 0.3679, P(2) = 0.1839, mean and variance 1
    weights = question_weights([f"q{i}" for i in range(400)], resamples=2000, seed=3)
    shares = np.bincount(weights.astype(int).ravel(), minlength=4)[:3] / weights.size
    assert shares == pytest.approx([math.exp(-1), math.exp(-1), math.exp(-1) / 2], abs=0.002)
    assert (weights.mean(), weights.var()) == (pytest.approx(1.0, abs=0.005), pytest.approx(1.0, abs=0.01))
    with pytest.raises(ValueError, match="at least one resample"):
        question_weights(["q"], resamples=0)
    with pytest.raises(ValueError, match="seed must be"):
        question_weights(["q"], seed=-1)


def test_map_clusters_multiply_each_questions_weight_by_its_maps():
    ids, maps = ["a", "b", "c"], ["rome", "oslo", "rome"]
    found = resampling_weights(ids, resamples=40, seed=2, maps=maps)
    own = question_weights(ids, resamples=40, seed=2)
    by_map = question_weights(["oslo", "rome"], resamples=40, seed=2, unit="map")
    assert (found == own * by_map[[1, 0, 1]]).all()


def test_weighted_means_weight_inside_each_resample():
    counts = np.array([[2, 1, 0], [0, 1, 1]])
    values = np.array([1.0, 0.0, 1.0])
    weights = np.array([1.0, 2.0, 3.0])
    # resample 1: (2·1·1 + 1·2·0) / (2·1 + 1·2) = 2/4; resample 2: (2·0 + 3·1) / (2 + 3) = 3/5
    assert weighted_means(counts, values, weights).tolist() == [0.5, 0.6]


def test_difference_interval_of_identical_sides_is_zero():
    counts = bootstrap_counts(30, resamples=100, seed=0)
    x = np.random.default_rng(1).random(30)
    found = difference_interval(counts, x, x, np.ones(30))
    assert found == {"difference": 0.0, "se": 0.0, "low": 0.0, "high": 0.0}


def test_difference_interval_covers_the_point_and_is_seeded():
    rng = np.random.default_rng(4)
    a, b = rng.random(80) < 0.4, rng.random(80) < 0.6
    weights = rng.choice([1.0, 2.0, 3.0], 80)
    counts = bootstrap_counts(80, resamples=400, seed=9)
    found = difference_interval(counts, a, b, weights)
    assert found["low"] < found["difference"] < found["high"] and found["se"] > 0
    # the point: the weighted means on all questions, computed here directly
    expected = np.sum(weights * b) / np.sum(weights) - np.sum(weights * a) / np.sum(weights)
    assert found["difference"] == pytest.approx(expected)
    assert found == difference_interval(bootstrap_counts(80, resamples=400, seed=9), a, b, weights)


def test_false_positive_rate_of_both_tests_on_two_runs_of_one_model():
    """Two runs of the same simulated model: each question has its own chance of a right answer (and a map
    score drawn from it); over 1,000 seeded simulations each test rejects at 5% in 3–7% of them."""
    simulations, questions = 1000, 300
    rng = np.random.default_rng(20)
    chance = rng.beta(2.0, 2.0, questions)
    weights = rng.choice([1.0, 1.5, 2.0, 2.5, 3.0], questions)
    a = rng.random((simulations, questions)) < chance
    b = rng.random((simulations, questions)) < chance
    accuracy = mcnemar_exact(a, b)
    score_a = np.where(a, 10 + 10 * rng.random(a.shape), 8 * rng.random(a.shape))
    score_b = np.where(b, 10 + 10 * rng.random(b.shape), 8 * rng.random(b.shape))
    scores = sign_flip_pvalue(score_b - score_a, weights, permutations=999, seed=21)
    assert accuracy.shape == scores.shape == (simulations,)
    assert 0.03 <= np.mean(accuracy < 0.05) <= 0.07
    assert 0.03 <= np.mean(scores < 0.05) <= 0.07


def test_a_real_difference_is_found():
    """The other side of the error rate: a model right 15 points more often is told apart nearly always."""
    rng = np.random.default_rng(30)
    a = rng.random((200, 300)) < 0.45
    b = rng.random((200, 300)) < 0.60
    assert np.mean(mcnemar_exact(a, b) < 0.05) > 0.9


def test_mean_interval_of_one_side():
    counts = bootstrap_counts(50, resamples=300, seed=2)
    values = np.array([1.0] * 20 + [0.0] * 30)
    weights = np.array([2.0] * 20 + [1.0] * 30)
    found = mean_interval(counts, values, weights)
    # weighted: 20·2 / (20·2 + 30·1) = 40/70
    assert found["mean"] == pytest.approx(40 / 70)
    assert found["low"] < 40 / 70 < found["high"] and found["se"] > 0
    # its difference against a side of zeros is the same interval, shifted by nothing
    zero = difference_interval(counts, np.zeros(50), values, weights)
    assert (zero["low"], zero["high"]) == pytest.approx((found["low"], found["high"]))
    with pytest.raises(ValueError, match="level must lie strictly between 0 and 1"):
        mean_interval(counts, values, weights, level=1.0)


def test_the_paired_interval_excludes_zero_as_often_as_it_should():
    """The same two-runs-of-one-model simulation: the 95% paired-bootstrap interval of the weighted accuracy
    difference leaves out 0 in 3–7% of 1,000 simulations (each resample weights inside itself)."""
    simulations, questions = 1000, 300
    rng = np.random.default_rng(20)
    chance = rng.beta(2.0, 2.0, questions)
    weights = rng.choice([1.0, 1.5, 2.0, 2.5, 3.0], questions)
    a = (rng.random((simulations, questions)) < chance).astype(float)
    b = (rng.random((simulations, questions)) < chance).astype(float)
    counts = bootstrap_counts(questions, resamples=1000, seed=3)
    resampled = weighted_means(counts, b, weights) - weighted_means(counts, a, weights)  # (resamples, simulations)
    low, high = np.quantile(resampled, [0.025, 0.975], axis=0)
    assert 0.03 <= np.mean((low > 0) | (high < 0)) <= 0.07


# -- properties against independent brute force ------------------------------------------------------------------


@given(st.integers(0, 40), st.integers(0, 40))
def test_mcnemar_is_the_binomial_tail_summed_with_exact_integers(only_a, only_b):
    d, k = only_a + only_b, min(only_a, only_b)
    tail = Fraction(sum(comb(d, i) for i in range(k + 1)), 2**d)
    expected = min(Fraction(1), 2 * tail)
    a, b = _pairs(only_a, only_b)
    assert float(mcnemar_exact(a, b)) == pytest.approx(float(expected), rel=1e-9, abs=1e-300)


@given(
    st.lists(st.integers(-5, 5), min_size=1, max_size=8),
    st.lists(st.sampled_from([1.0, 1.5, 2.0, 3.0]), min_size=8, max_size=8),
)
def test_sign_flips_enumerated_equal_a_brute_force(differences, weights):
    d = np.array(differences, dtype=float)
    w = np.array(weights[: len(differences)])
    observed = abs(float(np.sum(w * d)))
    patterns = list(product((-1.0, 1.0), repeat=len(differences)))
    extreme = sum(abs(sum(s * x * v for s, x, v in zip(signs, d, w))) >= observed - 1e-9 for signs in patterns)
    assert float(sign_flip_pvalue(d, w)) == extreme / len(patterns)


def test_poisson_draws_from_the_uniforms_bits_are_the_draws_from_the_uniform():
    # the draw counts the CDF's values at or below the uniform k × 2**-53; read from k itself, through integer
    # steps, it must be the same count at every step's edge (k one below, at and above each step)
    from benchmarks.paired import _POISSON_STEPS

    cdf = np.cumsum([math.exp(-1.0) / math.factorial(k) for k in range(20)])
    edges = sorted({int(step) + d for step in _POISSON_STEPS for d in (-1, 0, 1) if 0 <= int(step) + d < 2**53})
    bits = np.array(edges, dtype=np.uint64)
    by_float = np.searchsorted(cdf, bits.astype(float) * 2.0**-53, side="right")
    assert by_float.tolist() == np.searchsorted(_POISSON_STEPS, bits, side="right").tolist()
    assert by_float.min() == 0 and by_float.max() >= 15

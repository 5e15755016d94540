"""Tests of rdplib.local: the private count-mean sketch (privacy, bias, error, validation).

All random tests use fixed seeds, so they run identically every time.
"""

import math

import numpy as np
import pytest
from scipy.stats import ks_2samp

from rdplib.local import CountMeanSketch

ALL_VECTORS_8 = (np.arange(2**8)[:, None] >> np.arange(8)) & 1


def _distinct_bucket_item(sketch, item=0, j=0):
    return next(b for b in range(1, 1000) if sketch.hash(b, j)[0] != sketch.hash(item, j)[0])


def _report_log_probability(sketch, vectors, j, item):
    """Exact log P[(vector, j) | item] = -ln m + k ln q + (w - k) ln(1 - q), k = bits that differ."""
    onehot = np.arange(sketch.width) == sketch.hash(item, j)[0]
    differ = np.sum(vectors != onehot, axis=-1)
    q = sketch.flip_probability
    return -math.log(sketch.num_hashes) + differ * math.log(q) + (sketch.width - differ) * math.log1p(-q)


def _mse_formula(counts, epsilon, m, w):
    """Theorem of chapter 11: flips + hash choice + collisions, times (w/(w-1))^2."""
    counts = np.asarray(counts, dtype=float)
    n, half, c = counts.sum(), math.exp(epsilon / 2), (1 / w) * (1 - 1 / w)
    return (w / (w - 1)) ** 2 * (n * half / (half - 1) ** 2 + (n - counts) * c * (1 - 1 / m)
                                 + c / m * (np.sum(counts**2) - counts**2))


# --- privacy ------------------------------------------------------------------------------
def test_flip_probability_uses_half_epsilon():
    assert CountMeanSketch(2 * math.log(3), 2, 8, rng=0).flip_probability == pytest.approx(0.25)
    assert CountMeanSketch(1.0, 2, 8, rng=0).flip_probability == pytest.approx(1 / (math.exp(0.5) + 1))


@pytest.mark.parametrize("epsilon", [0.5, 2.0, 5.0])
def test_one_report_is_exactly_epsilon_dp(epsilon):
    """The likelihood ratio of two items in different buckets, over all 2^w reports, reaches exactly e^ε."""
    sketch = CountMeanSketch(epsilon, num_hashes=1, width=8, rng=3)
    a, b = 0, _distinct_bucket_item(sketch)
    log_ratio = _report_log_probability(sketch, ALL_VECTORS_8, 0, a) - _report_log_probability(sketch, ALL_VECTORS_8, 0, b)
    assert log_ratio.max() == pytest.approx(epsilon, abs=1e-12)
    assert log_ratio.min() == pytest.approx(-epsilon, abs=1e-12)
    attains = np.isclose(log_ratio, epsilon)
    assert np.all(ALL_VECTORS_8[attains, sketch.hash(a, 0)[0]] == 1)
    assert np.all(ALL_VECTORS_8[attains, sketch.hash(b, 0)[0]] == 0)
    assert np.exp(_report_log_probability(sketch, ALL_VECTORS_8, 0, a)).sum() == pytest.approx(1.0)


def test_encode_matches_the_exact_report_probability():
    sketch = CountMeanSketch(2.0, num_hashes=2, width=4, rng=5)
    reports, j = sketch.encode(np.zeros(200_000, dtype=int))
    target = (np.arange(4) == sketch.hash(0, 0)[0]).astype(int)
    observed = np.mean(np.all(reports == target, axis=1) & (j == 0))
    assert observed == pytest.approx(math.exp(_report_log_probability(sketch, target, 0, 0)), rel=0.04)


def test_encode_flip_rate():
    sketch = CountMeanSketch(1.0, num_hashes=4, width=32, rng=1)
    items = np.arange(20_000)
    reports, j = sketch.encode(items)
    assert reports.shape == (20_000, 32) and j.shape == (20_000,)
    onehot = np.zeros_like(reports)
    onehot[np.arange(20_000), sketch.hash(items, j)] = 1
    # 640,000 bits: the flip rate's standard error is 0.0005
    assert np.mean(reports != onehot) == pytest.approx(1 / (math.exp(0.5) + 1), abs=0.003)


# --- estimation: unbiased over the hash draw, a fixed bias for one sketch ---------------------
def test_estimates_are_unbiased_over_the_hash_draw_with_the_formula_variance():
    counts = np.array([30_000, 15_000, 5_000, 2_000, 0, 48_000])
    repeats = 400
    estimates = np.empty((repeats, counts.size))
    for seed in range(repeats):
        sketch = CountMeanSketch(2.0, num_hashes=4, width=16, rng=seed)
        sketch.collect_counts(counts)
        estimates[seed] = sketch.estimate(np.arange(counts.size))
    mse = _mse_formula(counts, 2.0, 4, 16)
    assert np.all(np.abs(estimates.mean(axis=0) - counts) < 4 * np.sqrt(mse / repeats))
    ratio = estimates.var(axis=0) / mse
    assert np.all((ratio > 0.75) & (ratio < 1.3))


def test_one_sketch_carries_a_fixed_collision_bias():
    """With the hash functions fixed, the mean estimate is f_d plus the bias in the estimate() docstring."""
    counts = np.array([50_000, 30_000, 20_000, 10_000, 5_000, 2_000, 1_000, 500])
    sketch = CountMeanSketch(4.0, num_hashes=1, width=4, rng=8)
    cols = sketch.hash(np.arange(counts.size))[:, 0]
    share = (cols[:, None] == cols[None, :]).astype(float)
    np.fill_diagonal(share, 1 / 4)
    bias = 4 / 3 * counts @ (share - 1 / 4)
    assert np.max(np.abs(bias)) > 5_000  # a bias far larger than the noise below
    repeats, estimates = 200, []
    for _ in range(repeats):  # the same hash functions, fresh coins (the sketch's generator moves on)
        sketch.sketch[:] = 0.0
        sketch.num_reports = 0
        sketch.collect_counts(counts)
        estimates.append(sketch.estimate(np.arange(counts.size)))
    estimates = np.array(estimates)
    sd = estimates.std(axis=0)
    assert np.all(np.abs(estimates.mean(axis=0) - counts - bias) < 4 * sd / math.sqrt(repeats))


def test_encode_aggregate_and_collect_counts_have_the_same_distribution():
    counts = np.array([1_200, 500, 300])
    items = np.repeat(np.arange(3), counts)
    per_user, shortcut = [], []
    for seed in range(200):
        a = CountMeanSketch(2.0, num_hashes=4, width=16, rng=seed)
        a.aggregate(a.encode(items))
        per_user.append(a.estimate(0))
        b = CountMeanSketch(2.0, num_hashes=4, width=16, rng=1_000 + seed)
        b.collect_counts(counts)
        shortcut.append(b.estimate(0))
    assert ks_2samp(per_user, shortcut).pvalue > 0.01


def test_string_items_and_scalar_estimate():
    sketch = CountMeanSketch(6.0, num_hashes=16, width=256, rng=0)
    sketch.aggregate(sketch.encode(np.array(["cat"] * 8_000 + ["dog"] * 2_000)))
    assert isinstance(sketch.estimate("cat"), float)
    assert sketch.estimate("cat") == pytest.approx(8_000, abs=400)
    assert sketch.estimate("unicorn") == pytest.approx(0, abs=400)


def test_hash_is_deterministic_and_in_range():
    sketch = CountMeanSketch(1.0, num_hashes=5, width=7, rng=2)
    cols = sketch.hash(np.arange(1000))
    assert cols.shape == (1000, 5) and cols.min() >= 0 and cols.max() < 7
    np.testing.assert_array_equal(cols[:, 3], sketch.hash(np.arange(1000), np.full(1000, 3)))
    # roughly uniform buckets
    assert np.all(np.bincount(cols[:, 0], minlength=7) > 100)


# --- validation ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"epsilon": 0.0, "num_hashes": 2, "width": 8}, "epsilon"),
        ({"epsilon": float("nan"), "num_hashes": 2, "width": 8}, "epsilon"),
        ({"epsilon": 1.0, "num_hashes": 0, "width": 8}, "num_hashes"),
        ({"epsilon": 1.0, "num_hashes": 2, "width": 1}, "width"),
        ({"epsilon": 1.0, "num_hashes": 2.5, "width": 8}, "num_hashes"),
    ],
)
def test_constructor_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        CountMeanSketch(**kwargs)


def test_aggregate_validation():
    sketch = CountMeanSketch(1.0, 2, 4, rng=0)
    with pytest.raises(ValueError, match="reports"):
        sketch.aggregate(np.zeros((3, 5)), [0, 1, 0])
    with pytest.raises(ValueError, match="reports"):
        sketch.aggregate(np.full((3, 4), 2), [0, 1, 0])
    with pytest.raises(ValueError, match="hash_index"):
        sketch.aggregate(np.zeros((3, 4)), [0, 2, 0])
    with pytest.raises(ValueError, match="hash_indices"):
        sketch.aggregate(np.zeros((3, 4)), [0, 1])
    with pytest.raises(TypeError, match="items"):
        sketch.hash(np.array([1.5, 2.5]))
    with pytest.raises(ValueError, match="counts"):
        sketch.collect_counts([3, -1])


def test_aggregate_accepts_the_pair_returned_by_encode():
    from rdplib import CountMeanSketch

    items = np.repeat(np.arange(4), [400, 300, 200, 100])
    a = CountMeanSketch(3.0, 8, 32, rng=5)
    b = CountMeanSketch(3.0, 8, 32, rng=5)
    reports = a.encode(item=items)
    b.encode(items)  # keep the two generators in step
    a.aggregate(reports)
    b.aggregate(*reports)
    np.testing.assert_allclose(a.sketch, b.sketch)
    assert a.estimate(item=0) == b.estimate(0)
    with pytest.raises(TypeError, match="reports"):
        a.aggregate(reports[0])

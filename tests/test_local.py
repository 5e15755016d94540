"""Tests of rdplib.local (count-mean sketch and randomized-response baselines) and its explorer."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rdplib.local import (
    CountMeanSketch,
    cms_flip_probability,
    cms_variance,
    items_from_counts,
    kary_randomized_response,
    kary_rr_estimate,
    kary_rr_variance,
    unary_rr_counts,
    unary_rr_variance,
    zipf_counts,
)
from rdplib.widgets import cms_explorer, cms_simulation

ALL_VECTORS_8 = (np.arange(2**8)[:, None] >> np.arange(8)) & 1


def _distinct_bucket_item(sketch, item=0, j=0):
    return next(b for b in range(1, 1000) if sketch.hash(b, j)[0] != sketch.hash(item, j)[0])


# --- privacy ------------------------------------------------------------------------------
def test_flip_probability_uses_half_epsilon():
    assert cms_flip_probability(2 * math.log(3)) == pytest.approx(0.25)
    assert CountMeanSketch(1.0, 2, 8, rng=0).flip_probability == pytest.approx(1 / (math.exp(0.5) + 1))


@pytest.mark.parametrize("epsilon", [0.5, 2.0, 5.0])
def test_one_report_is_exactly_epsilon_dp(epsilon):
    """The likelihood ratio of the two most different inputs, over all 2^w reports, is exactly e^ε."""
    sketch = CountMeanSketch(epsilon, num_hashes=1, width=8, rng=3)
    a, b = 0, _distinct_bucket_item(sketch)
    zeros = np.zeros(256, dtype=int)
    log_ratio = sketch.report_log_probability(ALL_VECTORS_8, zeros, a) - sketch.report_log_probability(
        ALL_VECTORS_8, zeros, b
    )
    assert log_ratio.max() == pytest.approx(epsilon, abs=1e-12)
    assert log_ratio.min() == pytest.approx(-epsilon, abs=1e-12)
    # the clean one-hot vector of a attains the worst case (as does any report with a's bit 1, b's bit 0)
    clean = np.zeros(8, dtype=int)
    clean[sketch.hash(a, 0)[0]] = 1
    clean_index = int(np.sum(clean * 2 ** np.arange(8)))
    assert log_ratio[clean_index] == pytest.approx(epsilon, abs=1e-12)
    attains = np.isclose(log_ratio, epsilon)
    assert np.all(ALL_VECTORS_8[attains, sketch.hash(a, 0)[0]] == 1)
    assert np.all(ALL_VECTORS_8[attains, sketch.hash(b, 0)[0]] == 0)
    # probabilities of all reports sum to one
    assert np.exp(sketch.report_log_probability(ALL_VECTORS_8, zeros, a)).sum() == pytest.approx(1.0)


def test_report_probability_matches_simulation():
    sketch = CountMeanSketch(2.0, num_hashes=2, width=4, rng=5)
    reports, j = sketch.encode(np.zeros(200_000, dtype=int))
    target = np.array([0, 0, 0, 0])
    target[sketch.hash(0, 0)[0]] = 1
    observed = np.mean(np.all(reports == target, axis=1) & (j == 0))
    exact = math.exp(sketch.report_log_probability(target, [0], 0)[0])
    assert observed == pytest.approx(exact, rel=0.04)


def test_encode_flip_rate():
    sketch = CountMeanSketch(1.0, num_hashes=4, width=32, rng=1)
    items = np.arange(20_000)
    reports, j = sketch.encode(items)
    assert reports.shape == (20_000, 32) and j.shape == (20_000,)
    onehot = np.zeros_like(reports)
    onehot[np.arange(20_000), sketch.hash(items, j)] = 1
    # 640,000 bits: the flip rate's standard error is 0.0005
    assert np.mean(reports != onehot) == pytest.approx(1 / (math.exp(0.5) + 1), abs=0.003)


# --- estimation ---------------------------------------------------------------------------
def test_debiased_estimates_are_unbiased_over_seeds():
    """Mean estimate over 400 independent sketches (fresh hashes) is within 4 standard errors of the truth."""
    counts = np.array([30_000, 15_000, 5_000, 2_000, 0, 48_000])
    repeats = 400
    estimates = np.empty((repeats, counts.size))
    for seed in range(repeats):
        sketch = CountMeanSketch(2.0, num_hashes=4, width=16, rng=seed)
        sketch.collect_counts(counts)
        estimates[seed] = sketch.estimate(np.arange(counts.size))
    standard_error = np.sqrt(cms_variance(counts, 2.0, 4, 16) / repeats)
    assert np.all(np.abs(estimates.mean(axis=0) - counts) < 4 * standard_error)
    # tight: the tolerance is a small fraction of the counts
    assert np.all(4 * standard_error < 0.02 * counts.sum())
    # and the variance formula matches the simulation
    ratio = estimates.var(axis=0) / cms_variance(counts, 2.0, 4, 16)
    assert np.all((ratio > 0.75) & (ratio < 1.3))


def test_encode_aggregate_equals_collect_in_distribution():
    items = np.repeat([0, 1, 2], [6_000, 3_000, 1_000])
    a = CountMeanSketch(3.0, num_hashes=4, width=64, rng=11)
    reports, j = a.encode(items)
    a.aggregate(reports, j)
    b = CountMeanSketch(3.0, num_hashes=4, width=64, rng=11)
    b.collect(items)
    sd = np.sqrt(cms_variance([6_000, 3_000, 1_000], 3.0, 4, 64))
    assert a.num_reports == b.num_reports == 10_000
    assert np.all(np.abs(a.estimate([0, 1, 2]) - [6_000, 3_000, 1_000]) < 4 * sd)
    assert np.all(np.abs(b.estimate([0, 1, 2]) - [6_000, 3_000, 1_000]) < 4 * sd)


def test_string_items_and_scalar_estimate():
    sketch = CountMeanSketch(6.0, num_hashes=16, width=256, rng=0)
    sketch.collect(np.array(["cat"] * 8_000 + ["dog"] * 2_000))
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


def test_baselines_are_unbiased_with_the_right_variance():
    counts = np.array([40_000, 10_000, 0, 50_000])
    unary = np.array([unary_rr_counts(counts, 1.0, rng=s) for s in range(300)])
    assert unary.var(axis=0) / unary_rr_variance(counts.sum(), 1.0) == pytest.approx(np.ones(4), rel=0.25)
    items = items_from_counts(counts, rng=0)
    kary = np.array([kary_rr_estimate(kary_randomized_response(items, 4, 1.0, rng=s), 4, 1.0)
                     for s in range(200)])
    sd = np.sqrt(kary_rr_variance(counts, 1.0))
    assert np.all(np.abs(kary.mean(axis=0) - counts) < 4 * sd / math.sqrt(200))
    assert kary.var(axis=0) / sd**2 == pytest.approx(np.ones(4), rel=0.3)


def test_kary_keep_probability():
    reports = kary_randomized_response(np.full(100_000, 2), 5, math.log(4), rng=0)
    assert np.mean(reports == 2) == pytest.approx(0.5, abs=0.01)  # 4 / (4 + 4)
    assert set(np.unique(reports)) == {0, 1, 2, 3, 4}


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 1000), min_size=1, max_size=20).filter(lambda c: sum(c) > 0))
def test_items_from_counts_roundtrip(counts):
    items = items_from_counts(counts, rng=0)
    np.testing.assert_array_equal(np.bincount(items, minlength=len(counts)), counts)


@settings(max_examples=30, deadline=None)
@given(st.floats(0.05, 10.0), st.integers(1, 64), st.integers(2, 4096))
def test_cms_variance_at_least_flip_floor(epsilon, m, w):
    counts = np.array([100, 50, 10])
    assert np.all(cms_variance(counts, epsilon, m, w) >= unary_rr_variance(160, epsilon) - 1e-9)


def test_zipf_counts():
    counts = zipf_counts(100, 1_000_000, rng=0)
    assert counts.sum() == 1_000_000
    harmonic = np.sum(1 / np.arange(1, 101))
    assert counts[0] / 1e6 == pytest.approx(1 / harmonic, rel=0.02)


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


def test_kary_validation():
    with pytest.raises(ValueError, match="items"):
        kary_randomized_response([0, 5], 5, 1.0)
    with pytest.raises(ValueError, match="num_categories"):
        kary_randomized_response([0], 1, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        kary_rr_estimate([0, 1], 3, -1.0)


# --- explorer -------------------------------------------------------------------------------
def test_cms_explorer_reacts_to_sliders():
    ex = cms_explorer(seed=2)
    assert ex.results["flip probability"] == pytest.approx(1 / (math.exp(2.0) + 1))
    first_png = bytes(ex.figure.value)
    assert first_png.startswith(b"\x89PNG")

    ex.controls["epsilon"].value = 2.0
    assert ex.results["flip probability"] == pytest.approx(1 / (math.e + 1))
    ex.controls["num_users"].value = 100_000
    ex.controls["num_hashes"].value = 8
    ex.controls["width"].value = 64
    counts = zipf_counts(300, 100_000, rng=np.random.default_rng(2))
    expected = np.sqrt(np.mean(cms_variance(counts, 2.0, 8, 64)))
    assert ex.results["RMSE, formula"] == pytest.approx(expected)
    assert ex.results["top item: true count"] == counts[0]
    assert ex.results["RMSE, one RR bit per item (formula)"] == pytest.approx(math.sqrt(unary_rr_variance(100_000, 2.0)))
    assert ex.results["RMSE, K-ary RR (formula)"] == pytest.approx(np.sqrt(np.mean(kary_rr_variance(counts, 2.0))))
    assert f"{ex.results['RMSE, formula']:.4g}" in ex.readout.value
    assert bytes(ex.figure.value) != first_png


def test_cms_simulation_is_deterministic_and_matches_formula():
    a = cms_simulation(4.0, 300_000, 16, 256, seed=5)
    b = cms_simulation(4.0, 300_000, 16, 256, seed=5)
    assert a["RMSE, simulated"] == b["RMSE, simulated"]
    assert a["RMSE, simulated"] == pytest.approx(a["RMSE, formula"], rel=0.5)


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

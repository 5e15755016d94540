"""Tests for thresholding (chapter 6): δ(T), the threshold for a target δ, the thresholded
histogram, the chapter's simulation helpers, the catastrophic mechanism and the explorer."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rdplib
from rdplib.thresholding import (
    catastrophic_leaks,
    catastrophic_mechanism,
    empirical_delta,
    expected_leaks,
    noisy_thresholded_counts,
    prob_any_leak,
    release_probability,
    simulate_release_rate,
)
from rdplib.widgets import threshold_explorer, threshold_summary

LN3 = math.log(3)


# --- contract functions -------------------------------------------------------------------


def test_threshold_delta_blog_example():
    # Laplace scale 1/ln 3, threshold 5: the noise must exceed 4, probability 1/(2 * 3**4).
    assert rdplib.threshold_delta(5, LN3) == pytest.approx(1 / 162, rel=1e-12)


def test_threshold_delta_closed_form_and_lower_side():
    thresholds = np.array([-2.0, 0.0, 0.5, 1.0, 3.0, 10.0])
    eps = 0.7
    expected = np.where(
        thresholds >= 1,
        0.5 * np.exp(-eps * (thresholds - 1)),
        1 - 0.5 * np.exp(-eps * (1 - thresholds)),
    )
    np.testing.assert_allclose(rdplib.threshold_delta(thresholds, eps), expected, rtol=1e-12)
    assert rdplib.threshold_delta(1, eps) == 0.5


def test_threshold_for_delta_million_users():
    # n = 10**6 and n * delta < 0.1: threshold 16 (15 gives n * delta = 0.1045).
    assert rdplib.threshold_for_delta(1e-7, LN3) == 16
    assert 1e6 * rdplib.threshold_delta(15, LN3) == pytest.approx(0.10454, abs=1e-4)
    assert 1e6 * rdplib.threshold_delta(16, LN3) == pytest.approx(0.034846, abs=1e-5)


@settings(max_examples=200, deadline=None)
@given(
    delta=st.floats(min_value=1e-15, max_value=0.999, allow_nan=False),
    epsilon=st.floats(min_value=0.01, max_value=10.0, allow_nan=False),
)
def test_threshold_for_delta_is_smallest(delta, epsilon):
    t = rdplib.threshold_for_delta(delta, epsilon)
    assert rdplib.threshold_delta(t, epsilon) <= delta
    assert rdplib.threshold_delta(t - 1, epsilon) > delta


@settings(max_examples=100, deadline=None)
@given(
    t1=st.floats(min_value=-50, max_value=50), t2=st.floats(min_value=-50, max_value=50),
    epsilon=st.floats(min_value=0.01, max_value=5.0),
)
def test_threshold_delta_decreasing(t1, t2, epsilon):
    lo, hi = sorted([t1, t2])
    assert rdplib.threshold_delta(lo, epsilon) >= rdplib.threshold_delta(hi, epsilon)


def test_thresholded_histogram_statistics():
    # Release frequency of a singleton over many runs matches 1/162 (a factor-2 scale error fails).
    rng = np.random.default_rng(7)
    items = ["green"] * 10 + ["red"] * 5 + ["ultramarine"]
    num_runs = 40_000
    hits = sum("ultramarine" in rdplib.thresholded_histogram(items, LN3, 5, rng=rng)
               for _ in range(num_runs))
    # sd of the frequency ~ 3.9e-4; scale 2/ln3 would give 0.068, scale 1/(2 ln3) 2e-5
    assert abs(hits / num_runs - 1 / 162) < 0.0016


def test_thresholded_histogram_values_and_errors():
    out = rdplib.thresholded_histogram(["a"] * 1000 + ["b"], 1.0, threshold=5, rng=0)
    assert list(out) == ["a"]
    assert abs(out["a"] - 1000) < 20
    assert rdplib.thresholded_histogram([], 1.0, 5) == {}
    with pytest.raises(ValueError, match="epsilon"):
        rdplib.thresholded_histogram(["a"], 0.0, 5)
    with pytest.raises(ValueError, match="items"):
        rdplib.thresholded_histogram([["a", "b"]], 1.0, 5)
    with pytest.raises(ValueError, match="threshold"):
        rdplib.thresholded_histogram(["a"], 1.0, float("nan"))


def test_contract_errors():
    with pytest.raises(ValueError, match="delta"):
        rdplib.threshold_for_delta(0.0, 1.0)
    with pytest.raises(ValueError, match="delta"):
        rdplib.threshold_for_delta(1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        rdplib.threshold_delta(3, -1.0)
    with pytest.raises(ValueError, match="threshold"):
        rdplib.threshold_delta(float("nan"), 1.0)
    with pytest.raises(TypeError, match="threshold"):
        rdplib.threshold_delta(True, 1.0)


# --- chapter helpers ----------------------------------------------------------------------


def test_release_probability():
    assert release_probability(1, 5, LN3) == pytest.approx(1 / 162)
    assert release_probability(5, 5, 1.0) == 0.5
    np.testing.assert_allclose(
        release_probability([2, 10], 5, LN3), [0.5 * 3.0**-3, 1 - 0.5 * 3.0**-5], rtol=1e-12
    )
    with pytest.raises(ValueError, match="epsilon"):
        release_probability(1, 5, 0)
    with pytest.raises(ValueError, match="count"):
        release_probability(np.nan, 5, 1.0)
    with pytest.raises(TypeError, match="threshold"):
        release_probability(1, "five", 1.0)


def test_simulate_release_rate_matches_formula():
    thresholds = np.arange(0, 9)
    rates = simulate_release_rate(thresholds, LN3, 400_000, rng=3)
    exact = rdplib.threshold_delta(thresholds, LN3)
    sd = np.sqrt(exact * (1 - exact) / 400_000)
    assert np.all(np.abs(rates - exact) < 5 * sd)
    assert np.all(np.diff(rates) <= 0)
    # a count other than 1 shifts the curve: P[3 + Lap >= 5] = P[1 + Lap >= 3]
    shifted = simulate_release_rate([5], LN3, 200_000, count=3.0, rng=4)
    assert shifted[0] == pytest.approx(rdplib.threshold_delta(3, LN3), abs=0.003)
    with pytest.raises(ValueError, match="num_trials"):
        simulate_release_rate([1], 1.0, 0)


def test_noisy_thresholded_counts():
    out = noisy_thresholded_counts([10, 5, 2, 1, 0], LN3, 5, 200_000, rng=5)
    assert out.shape == (200_000, 5)
    assert np.all(np.isnan(out[:, 4]))
    released = np.nan_to_num(out, nan=np.inf)
    assert np.all(released >= 5)
    freq = np.mean(~np.isnan(out), axis=0)
    exact = release_probability([10, 5, 2, 1, 0], 5, LN3) * np.array([1, 1, 1, 1, 0])
    np.testing.assert_allclose(freq, exact, atol=0.004)
    with pytest.raises(ValueError, match="counts"):
        noisy_thresholded_counts([1.5], 1.0, 5, 10)
    with pytest.raises(ValueError, match="counts"):
        noisy_thresholded_counts([-1], 1.0, 5, 10)
    with pytest.raises(ValueError, match="counts"):
        noisy_thresholded_counts([[1, 2]], 1.0, 5, 10)


def test_leak_counts():
    assert expected_leaks(10**6, 1e-7) == pytest.approx(0.1)
    assert prob_any_leak(10**6, 1e-7) == pytest.approx(1 - math.exp(-0.1), rel=1e-6)
    assert prob_any_leak(0, 0.5) == 0.0
    assert prob_any_leak(3, 1.0) == 1.0
    assert np.all(prob_any_leak([1, 10, 100], 0.01) <= expected_leaks([1, 10, 100], 0.01))
    with pytest.raises(ValueError, match="delta"):
        expected_leaks(10, 1.5)
    with pytest.raises(ValueError, match="n"):
        prob_any_leak(-1, 0.1)


def test_empirical_delta():
    assert empirical_delta(0.3, 0.1, 0.0) == pytest.approx(0.2)
    assert empirical_delta(0.3, 0.1, math.log(3)) == 0.0
    with pytest.raises(ValueError, match="prob_on_x"):
        empirical_delta(1.2, 0.1, 0.0)
    with pytest.raises(ValueError, match="epsilon"):
        empirical_delta(0.2, 0.1, -1.0)


def test_catastrophic_mechanism():
    db = ["a", "b"]
    assert catastrophic_mechanism(db, 0.0, rng=0) == 42
    leaked = catastrophic_mechanism(db, 0.999_999_9, rng=0)
    assert list(leaked) == db
    leaks = catastrophic_leaks(1e-3, 1_000_000, rng=11)
    # sd of the count ~ 31.6 around 1000; delta 2e-3 or 5e-4 fails
    assert 850 < leaks.sum() < 1150
    with pytest.raises(ValueError, match="delta"):
        catastrophic_leaks(1.0, 10)
    with pytest.raises(ValueError, match="num_runs"):
        catastrophic_leaks(0.1, 0)


# --- explorer -----------------------------------------------------------------------------


def test_threshold_explorer_updates():
    ex = threshold_explorer()
    assert ex.results["threshold needed for n·δ ≤ 0.1"] == 16
    ex.controls["threshold"].value = 15
    assert ex.results["δ = P[1 + Lap(1/ε) ≥ T]"] == pytest.approx(0.5 * 3.0**-14)
    assert ex.results["n · δ"] == pytest.approx(1e6 * 0.5 * 3.0**-14)
    ex.controls["epsilon"].value = 2.0
    assert ex.results["δ = P[1 + Lap(1/ε) ≥ T]"] == pytest.approx(0.5 * math.exp(-2.0 * 14))
    assert ex.results["threshold needed for n·δ ≤ 0.1"] == math.ceil(1 + math.log(1e6 / 0.2) / 2.0)
    ex.controls["n"].value = 1e3
    assert ex.results["threshold needed for n·δ ≤ 0.1"] == math.ceil(1 + math.log(1e3 / 0.2) / 2.0)
    # T = 15 is five above a count of 10: P[10 + Lap(1/2) >= 15] = exp(-10) / 2
    assert ex.results["P[a category of 10 people is released]"] == pytest.approx(
        0.5 * math.exp(-2.0 * 5)
    )
    assert ex.figure.value[:4] == b"\x89PNG"
    assert "n · δ" in ex.readout.value


def test_threshold_summary_matches_chapter():
    out = threshold_summary(LN3, 5, 10**6)
    assert out["δ = P[1 + Lap(1/ε) ≥ T]"] == pytest.approx(1 / 162)
    assert out["n · δ"] == pytest.approx(1e6 / 162)

"""Tests for rdplib.properties (chapter 5) and its explorer."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rdplib
from rdplib.properties import (
    empirical_log_ratios,
    event_log_ratio,
    gaussian_delta,
    group_delta_chain,
    group_delta_notes,
    laplace_clamped_pmf,
    round_and_clamp,
    simulate_split_rmse,
    split_budget,
    split_budget_rmse,
)
from rdplib.widgets import budget_split_explorer, budget_split_summary

# --- post-processing -----------------------------------------------------------------------

def test_round_and_clamp():
    out = round_and_clamp([-3.2, 0.49, 0.51, 5.5, 99.0], n=6)
    assert out.tolist() == [0, 0, 1, 6, 6]
    assert out.dtype == np.int64


@given(
    count=st.integers(min_value=0, max_value=10),
    n=st.integers(min_value=1, max_value=10),
    scale=st.floats(min_value=0.2, max_value=5.0),
)
@settings(max_examples=40, deadline=None)
def test_clamped_pmf_sums_to_one_and_ratio_within_epsilon(count, n, scale):
    """Post-processing theorem, exactly: the clamped pmfs of neighbours stay e^(1/scale) close."""
    pmf = laplace_clamped_pmf(count, n, scale)
    pmf_neighbour = laplace_clamped_pmf(count + 1, n, scale)
    assert math.isclose(pmf.sum(), 1.0, rel_tol=1e-12)
    assert np.all(pmf > 0)
    log_ratio = np.log(pmf / pmf_neighbour)
    assert np.all(np.abs(log_ratio) <= 1.0 / scale + 1e-9)


def test_clamped_pmf_against_simulation():
    rng = np.random.default_rng(4)
    noisy = rdplib.laplace_mechanism(np.full(400_000, 2.0), 1, 1.0, rng=rng)
    freq = np.bincount(round_and_clamp(noisy, 6), minlength=7) / noisy.size
    pmf = laplace_clamped_pmf(2, 6, 1.0)
    assert np.max(np.abs(freq - pmf)) < 0.004
    # the ends collect whole tails: P[0] = F(0.5 - 2) = exp(-1.5)/2
    assert pmf[0] == pytest.approx(0.5 * math.exp(-1.5))
    # a scale of 2 (a factor-2 error) would be visibly different
    assert np.max(np.abs(laplace_clamped_pmf(2, 6, 2.0) - freq)) > 0.05


def test_empirical_log_ratios_match_exact_and_mask_rare_outputs():
    rng = np.random.default_rng(9)
    a = round_and_clamp(rdplib.laplace_mechanism(np.full(300_000, 2.0), 1, 1.0, rng=rng), 6)
    b = round_and_clamp(rdplib.laplace_mechanism(np.full(300_000, 3.0), 1, 1.0, rng=rng), 6)
    support = np.arange(7)
    exact = np.log(laplace_clamped_pmf(2, 6, 1.0) / laplace_clamped_pmf(3, 6, 1.0))
    sim = empirical_log_ratios(a, b, support)
    assert np.max(np.abs(sim - exact)) < 0.06
    masked = empirical_log_ratios(a, b, np.array([0, 50]), min_count=100)
    assert np.isfinite(masked[0]) and np.isnan(masked[1])
    # unsorted support gives the same values in its own order
    np.testing.assert_allclose(empirical_log_ratios(a, b, support[::-1]), sim[::-1])


def test_event_log_ratio_group_growth_and_edge_cases():
    rng = np.random.default_rng(2)
    zero = rdplib.laplace_mechanism(np.zeros(400_000), 1, 0.5, rng=rng)
    for k in (1, 3, 5):
        far = rdplib.laplace_mechanism(np.full(400_000, float(k)), 1, 0.5, rng=rng)
        assert abs(event_log_ratio(zero, far, lambda y: y <= 0) - 0.5 * k) < 0.05
    assert event_log_ratio([1.0, 2.0], [3.0, 4.0], lambda y: y < 2.5) == math.inf
    assert event_log_ratio([3.0], [1.0], lambda y: y < 2.5) == -math.inf
    with pytest.raises(TypeError, match="event"):
        event_log_ratio([1.0], [1.0], "y < 0")


# --- group privacy -------------------------------------------------------------------------

@given(
    epsilon=st.floats(min_value=0.01, max_value=3.0),
    delta=st.floats(min_value=0.0, max_value=0.01),
    k=st.integers(min_value=1, max_value=20),
)
@settings(max_examples=60, deadline=None)
def test_group_delta_ordering(epsilon, delta, k):
    chain = group_delta_chain(epsilon, delta, k)
    tight = rdplib.group_privacy(epsilon, delta, k)[1]
    notes = group_delta_notes(epsilon, delta, k)
    assert chain <= tight * (1 + 1e-12) + 1e-300
    assert tight <= notes * (1 + 1e-12) + 1e-300


def test_group_delta_values():
    assert group_delta_chain(math.log(2), 1.0e-6, 1) == pytest.approx(1e-6)
    np.testing.assert_allclose(group_delta_chain(math.log(2), 0.1, [1, 2, 3]), [0.1, 0.3, 0.7])
    np.testing.assert_allclose(group_delta_notes(math.log(2), 0.1, [1, 2, 3]), [0.2, 0.8, 2.4])


def test_gaussian_delta_exact_calibration_and_group():
    sigma = rdplib.gaussian_sigma(1.0, 0.5, 1e-5, method="analytic")
    assert gaussian_delta(0.5, sigma) == pytest.approx(1e-5, rel=1e-6)
    for k in range(2, 7):
        exact = gaussian_delta(0.5 * k, sigma, shift=k)
        assert exact <= group_delta_chain(0.5, 1e-5, k)


def test_gaussian_delta_against_simulation():
    """δ(ε) = P0[L > ε] - e^ε P1[L > ε], estimated from samples under both inputs."""
    rng = np.random.default_rng(8)
    sigma, eps = 1.0, 0.5
    y0 = rng.normal(0.0, sigma, 1_000_000)
    y1 = rng.normal(1.0, sigma, 1_000_000)
    loss = lambda y: (1.0 - 2.0 * y) / (2.0 * sigma**2)  # noqa: E731
    sim = np.mean(loss(y0) > eps) - math.exp(eps) * np.mean(loss(y1) > eps)
    assert abs(sim - gaussian_delta(eps, sigma)) < 0.003


# --- composition and budget splitting ------------------------------------------------------

def test_split_budget_adds_up():
    budgets = split_budget(2.0, 8)
    assert len(budgets) == 8 and budgets[0] == (0.25, 0.0)
    assert rdplib.basic_composition(budgets) == pytest.approx((2.0, 0.0))


def test_split_budget_rmse_formula():
    np.testing.assert_allclose(split_budget_rmse(0.5, [1, 4]), [2 * math.sqrt(2), 8 * math.sqrt(2)])
    assert split_budget_rmse(1.0, 3, sensitivity=2.0) == pytest.approx(6 * math.sqrt(2))


@pytest.mark.parametrize("m", [1, 4, 25])
def test_simulated_rmse_matches_formula(m):
    sim = simulate_split_rmse(1.0, m, num_trials=20_000, rng=m)
    # relative sd of an RMSE from N Laplace draws is about sqrt(5/4 / N); N >= 20,000 here
    assert abs(sim / split_budget_rmse(1.0, m) - 1) < 0.03
    # splitting by m (not sqrt(m), not 1) is what the simulation shows
    if m > 1:
        assert abs(sim / (math.sqrt(2) * math.sqrt(m)) - 1) > 0.5


def test_composition_of_two_releases_adds_epsilons():
    rng = np.random.default_rng(6)
    a = rdplib.laplace_mechanism(np.zeros((400_000, 2)), 1, 0.5, rng=rng)
    b = rdplib.laplace_mechanism(np.ones((400_000, 2)), 1, 0.5, rng=rng)
    both = event_log_ratio(a, b, lambda y: np.all(y <= 0, axis=1))
    assert abs(both - 1.0) < 0.05


@pytest.mark.parametrize(
    ("call", "exc", "message"),
    [
        (lambda: round_and_clamp([1.0], n=0), ValueError, "n: must be an integer >= 1"),
        (lambda: round_and_clamp([np.nan], n=3), ValueError, "noisy"),
        (lambda: laplace_clamped_pmf(1, 3, scale=0), ValueError, "scale"),
        (lambda: laplace_clamped_pmf(np.nan, 3, 1.0), ValueError, "count"),
        (lambda: empirical_log_ratios([1], [1], [0], min_count=0), ValueError, "min_count"),
        (lambda: empirical_log_ratios([1], [1], [[0]]), ValueError, "support"),
        (lambda: group_delta_chain(-1.0, 1e-6, 2), ValueError, "epsilon"),
        (lambda: group_delta_chain(1.0, 1.5, 2), ValueError, "delta"),
        (lambda: group_delta_notes(1.0, 1e-6, 0), ValueError, "k"),
        (lambda: group_delta_notes(1.0, 1e-6, 1.5), ValueError, "k"),
        (lambda: gaussian_delta(-0.1, 1.0), ValueError, "epsilon"),
        (lambda: gaussian_delta(0.1, 1.0, shift=0.0), ValueError, "shift"),
        (lambda: split_budget(0.0, 3), ValueError, "total_epsilon"),
        (lambda: split_budget(1.0, 0), ValueError, "num_queries"),
        (lambda: split_budget_rmse(1.0, [0.5]), ValueError, "num_queries"),
        (lambda: simulate_split_rmse(1.0, 2, num_trials=1), ValueError, "num_trials"),
        (lambda: simulate_split_rmse(1.0, 2, rng=-3), ValueError, "rng"),
    ],
)
def test_errors_name_the_parameter(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


# --- explorer ------------------------------------------------------------------------------

def test_budget_split_explorer_responds_to_sliders():
    ex = budget_split_explorer(seed=3, num_trials=2_000)
    assert set(ex.controls) == {"total_epsilon", "num_queries"}
    ex.controls["total_epsilon"].value = 2.0
    ex.controls["num_queries"].value = 8
    assert ex.results["ε per query"] == pytest.approx(0.25)
    assert ex.results["total ε spent"] == pytest.approx(2.0)
    assert ex.results["formula RMSE per answer"] == pytest.approx(math.sqrt(2) * 8 / 2.0)
    assert ex.results["RMSE of one query alone"] == pytest.approx(math.sqrt(2) / 2.0)
    # the simulated number is the same seeded simulation, computed independently
    independent = np.random.default_rng(3).laplace(0.0, 8 / 2.0, size=(2_000, 8))
    assert ex.results["simulated RMSE per answer"] == pytest.approx(
        float(np.sqrt(np.mean(independent**2))), rel=1e-12)
    assert abs(ex.results["simulated RMSE per answer"] / ex.results["formula RMSE per answer"] - 1) < 0.05
    assert "RMSE" in ex.readout.value and len(ex.figure.value) > 1000
    assert ex.results == budget_split_summary(2.0, 8, num_trials=2_000, seed=3)

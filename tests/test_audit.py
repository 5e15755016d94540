"""Tests of rdplib.audit (Clopper-Pearson audits, threshold search, samplers) and its explorer."""

import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import beta, binom

from rdplib.audit import (
    audit_epsilon,
    audit_threshold_search,
    clopper_pearson,
    coin_flip_geometric_sampler,
    expected_audit_bound,
    gaussian_sampler,
    laplace_sampler,
    one_sided_sampler,
    rr_sampler,
    threshold_bounds,
    threshold_counts,
)
from rdplib.widgets import MECHANISMS, audit_explorer, audit_setup, audit_simulation


# --- Clopper-Pearson ------------------------------------------------------------------------
def test_clopper_pearson_matches_scipy_beta():
    low, up = clopper_pearson(7, 40, 0.9)
    assert low == pytest.approx(beta.ppf(0.1, 7, 34))
    assert up == pytest.approx(beta.ppf(0.9, 8, 33))
    assert clopper_pearson(0, 10, 0.95) == (0.0, pytest.approx(1 - 0.05 ** (1 / 10)))
    assert clopper_pearson(10, 10, 0.95) == (pytest.approx(0.05 ** (1 / 10)), 1.0)


def test_clopper_pearson_coverage_is_exact_at_least_level():
    """Exact coverage of the one-sided lower bound over all outcomes, for several p."""
    n = 60
    lows = np.array([clopper_pearson(k, n, 0.95)[0] for k in range(n + 1)])
    for p in [0.05, 0.3, 0.5, 0.9]:
        coverage = binom.pmf(np.arange(n + 1), n, p)[lows <= p].sum()
        assert coverage >= 0.95


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))), st.floats(0.5, 0.999))
def test_clopper_pearson_brackets_the_estimate(kn, confidence):
    k, n = kn
    low, up = clopper_pearson(k, n, confidence)
    assert 0 <= low <= k / n <= up <= 1


# --- soundness on correct mechanisms ---------------------------------------------------------
def test_sound_for_correct_mechanisms_across_200_seeded_runs():
    """At 95 % confidence, the bound exceeds the true ε in at most ~5 % of runs (here: far fewer)."""
    start = time.perf_counter()
    cases = [
        (rr_sampler(1.0), 1, 0, lambda y: y == 1, 1.0),  # tight event: ratio exactly e^ε
        (laplace_sampler(1.0), 1.0, 0.0, lambda y: y > 1.0, 1.0),  # tight event
        (laplace_sampler(0.5), 0.0, 1.0, lambda y: y < 0.0, 0.5),  # other direction, tight
    ]
    for sampler, x, x_prime, event, true_eps in cases:
        bounds = np.array([audit_epsilon(sampler, x, x_prime, event, trials=2_000, rng=seed).epsilon_lower
                           for seed in range(200)])
        exceed = int(np.sum(bounds > true_eps))
        # Binomial(200, 0.05) exceeds 18 with probability < 2 %; a wrong-way bound exceeds ~50 %
        assert exceed <= 18, exceed
        # the bound is informative, not trivially 0
        assert np.median(bounds) > 0.6 * true_eps
    assert time.perf_counter() - start < 10


def test_plug_in_estimate_would_fail_the_same_test():
    """Sanity: without confidence bounds about half the runs overshoot, so the test above has teeth."""
    sampler = rr_sampler(1.0)
    hats = np.array([audit_epsilon(sampler, 1, 0, lambda y: y == 1, 2_000, rng=s).epsilon_hat for s in range(200)])
    assert 60 < np.sum(hats > 1.0) < 140


def test_bound_approaches_true_epsilon():
    bound = audit_epsilon(laplace_sampler(1.0), 1.0, 0.0, lambda y: y > 1.5, 1_000_000, rng=0).epsilon_lower
    assert 0.97 < bound <= 1.0
    typical = expected_audit_bound(0.5 * math.exp(-0.5), 0.5 * math.exp(-1.5), [1e2, 1e4, 1e6])
    assert np.all(np.diff(typical) > 0) and typical[-1] == pytest.approx(1.0, abs=0.015)


# --- broken mechanisms are flagged -------------------------------------------------------------
def test_flags_gaussian_passed_off_as_pure_dp():
    res = audit_epsilon(gaussian_sampler(1.0), 1.0, 0.0, lambda y: y > 3, trials=1_000_000, rng=1)
    exact = math.log(math.erfc(2 / math.sqrt(2)) / math.erfc(3 / math.sqrt(2)))
    assert 1.0 < res.epsilon_lower <= exact
    assert res.epsilon_lower > 2.5


def test_flags_one_sided_noise():
    res = audit_epsilon(one_sided_sampler(1.0), 0.0, 1.0, lambda y: y < 1, trials=10_000, rng=2)
    assert res.p_prime_hat == 0.0 and math.isinf(res.epsilon_hat)
    assert res.epsilon_lower > 5.0


def test_flags_coin_flip_geometric_claimed_ln2():
    res = audit_epsilon(coin_flip_geometric_sampler(), 0, 1, lambda y: y == 0, trials=100_000, rng=3)
    assert math.log(2) < res.epsilon_lower <= math.log(4)
    assert res.epsilon_lower > 1.3


@pytest.mark.parametrize("mechanism", ["Gaussian as pure DP", "one-sided noise", "coin-flip geometric"])
def test_threshold_search_flags_broken_mechanisms(mechanism):
    setup = audit_setup(mechanism, 1.0)
    res = audit_threshold_search(setup["sampler"], setup["x"], setup["x_prime"], setup["thresholds"],
                                 trials=100_000, rng=4)
    assert res.epsilon_lower > setup["claimed epsilon"]
    assert res.correction == "bonferroni" and res.num_tests == 4 * len(setup["thresholds"])


def test_coin_flip_noise_distribution():
    noise = coin_flip_geometric_sampler()(0, 400_000, np.random.default_rng(0))
    for k, p in [(0, 0.5), (1, 1 / 8), (-1, 1 / 8), (2, 1 / 16), (-3, 1 / 32)]:
        assert np.mean(noise == k) == pytest.approx(p, abs=4 * math.sqrt(p / 400_000))


# --- threshold search and the Bonferroni correction --------------------------------------------
def test_threshold_counts_matches_direct_count():
    rng = np.random.default_rng(0)
    out = rng.normal(size=(3, 500))
    t = np.linspace(-2, 2, 9)
    direct = (out[:, :, None] > t).sum(axis=1)
    np.testing.assert_array_equal(threshold_counts(out, t), direct)


def test_bonferroni_search_is_sound_and_uncorrected_is_not_more_conservative():
    rng = np.random.default_rng(7)
    runs, trials = 200, 2_000
    t = np.linspace(-4, 8, 61)
    a = 1.0 + rng.laplace(0, 1, (runs, trials))
    b = rng.laplace(0, 1, (runs, trials))
    corrected = threshold_bounds(a, b, t).reshape(runs, -1).max(axis=1)
    uncorrected = threshold_bounds(a, b, t, correction="none").reshape(runs, -1).max(axis=1)
    assert np.sum(corrected > 1.0) <= 18
    assert np.all(uncorrected >= corrected)
    assert np.sum(uncorrected > 1.0) > np.sum(corrected > 1.0)


def test_audit_threshold_search_on_laplace_stays_below():
    res = audit_threshold_search(laplace_sampler(1.0), 1.0, 0.0, np.linspace(-2, 5, 29), 200_000, rng=5)
    assert 0.9 < res.epsilon_lower <= 1.0
    assert res.bounds.shape == (29,) and res.thresholds.shape == (29,)


# --- validation ---------------------------------------------------------------------------------
def test_input_validation():
    sampler = laplace_sampler(1.0)
    with pytest.raises(TypeError, match="sampler"):
        audit_epsilon(3, 0, 1, lambda y: y > 0, 10)
    with pytest.raises(TypeError, match="event"):
        audit_epsilon(sampler, 0, 1, None, 10)
    with pytest.raises(ValueError, match="trials"):
        audit_epsilon(sampler, 0, 1, lambda y: y > 0, 0)
    with pytest.raises(ValueError, match="confidence"):
        audit_epsilon(sampler, 0, 1, lambda y: y > 0, 10, confidence=1.0)
    with pytest.raises(ValueError, match="event"):
        audit_epsilon(sampler, 0, 1, lambda y: np.ones(3, bool), 10)
    with pytest.raises(ValueError, match="sampler"):
        audit_epsilon(lambda d, n, r: np.zeros(n + 1), 0, 1, lambda y: y > 0, 10)
    with pytest.raises(ValueError, match="thresholds"):
        threshold_counts(np.zeros(5), [1.0, 0.0])
    with pytest.raises(ValueError, match="correction"):
        threshold_bounds(np.zeros(5), np.zeros(5), [0.0], correction="holm")
    with pytest.raises(ValueError, match="successes"):
        clopper_pearson(11, 10, 0.95)
    with pytest.raises(ValueError, match="epsilon"):
        laplace_sampler(0.0)
    with pytest.raises(ValueError, match="sigma"):
        gaussian_sampler(-1.0)
    with pytest.raises(ValueError, match="data"):
        rr_sampler(1.0)(0.5, 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="mechanism"):
        audit_setup("Cauchy", 1.0)


# --- explorer ---------------------------------------------------------------------------------
def test_audit_explorer_reacts_to_controls():
    ex = audit_explorer(seed=3)
    assert ex.results["claimed ε"] == 1.0
    assert ex.results["verdict"] == "no evidence against the claim"
    first_png = bytes(ex.figure.value)

    ex.controls["mechanism"].value = "coin-flip geometric"
    expected = audit_simulation("coin-flip geometric", 1.0, 10_000, seed=3)
    assert ex.results["claimed ε"] == pytest.approx(math.log(2))
    assert ex.results["true ε"] == pytest.approx(math.log(4))
    assert ex.results["lower bound on ε (95 %)"] == pytest.approx(expected["lower bound on ε (95 %)"])
    assert ex.results["verdict"] == "claim refuted"
    assert bytes(ex.figure.value) != first_png

    ex.controls["mechanism"].value = "Laplace"
    ex.controls["epsilon"].value = 2.0
    ex.controls["trials"].value = 100_000
    setup = audit_setup("Laplace", 2.0)
    direct = audit_threshold_search(setup["sampler"], 1.0, 0.0, setup["thresholds"], 100_000, rng=3)
    assert ex.results["lower bound on ε (95 %)"] == pytest.approx(direct.epsilon_lower)
    assert ex.results["claimed ε"] == 2.0
    assert "claim" in ex.readout_text()


def test_every_menu_entry_runs():
    for mechanism in MECHANISMS:
        out = audit_simulation(mechanism, 1.0, 1_000, seed=0)
        assert out["lower bound on ε (95 %)"] >= 0

"""Tests of rdplib.audit: Clopper-Pearson bounds and the two-direction (ε, δ) audit.

Every random test uses fixed seeds, so each runs the same way every time; the
statistical limits are chosen so that a correct auditor would fail them with
probability below 1e-3 under a fresh seed (binomial tail, computed below).
"""

import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import beta, binom, norm

from rdplib import gaussian_mechanism, gaussian_sigma, laplace_mechanism, randomized_response
from rdplib.audit import AuditResult, _bound_from_counts, audit_epsilon, clopper_pearson


# --- samplers written here (the library ships none) ---------------------------------------------
def laplace_sampler(epsilon):
    def sample(data, size, rng):
        return laplace_mechanism(np.full(size, float(data)), 1.0, epsilon, rng=rng)

    return sample


def rr_sampler(epsilon):
    def sample(data, size, rng):
        return randomized_response(np.full(size, int(data)), epsilon, rng=rng)

    return sample


def gaussian_sampler(sigma):
    def sample(data, size, rng):
        return float(data) + rng.normal(0.0, sigma, size=size)

    return sample


def one_sided_sampler(scale):
    def sample(data, size, rng):
        return float(data) + rng.exponential(scale, size=size)

    return sample


def coin_flip_sampler(data, size, rng):
    """Fair-coin sign, heads before the first tail as magnitude: ln 4-DP, claimed ln 2."""
    magnitude = rng.geometric(0.5, size=size) - 1
    return int(data) + np.where(rng.random(size) < 0.5, 1, -1) * magnitude


# --- Clopper-Pearson ------------------------------------------------------------------------------
def test_clopper_pearson_matches_scipy_beta():
    low, up = clopper_pearson(7, 40, 0.9)
    assert low == pytest.approx(beta.ppf(0.1, 7, 34))
    assert up == pytest.approx(beta.ppf(0.9, 8, 33))
    assert clopper_pearson(0, 10, 0.95) == (0.0, pytest.approx(1 - 0.05 ** (1 / 10)))
    assert clopper_pearson(10, 10, 0.95) == (pytest.approx(0.05 ** (1 / 10)), 1.0)


def test_clopper_pearson_coverage_is_exact_at_least_level():
    """Exact coverage of both one-sided bounds over all outcomes, for several p."""
    n = 60
    bounds = np.array([clopper_pearson(k, n, 0.95) for k in range(n + 1)])
    for p in [0.05, 0.3, 0.5, 0.9]:
        pmf = binom.pmf(np.arange(n + 1), n, p)
        assert pmf[bounds[:, 0] <= p].sum() >= 0.95
        assert pmf[bounds[:, 1] >= p].sum() >= 0.95


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))), st.floats(0.5, 0.999))
def test_clopper_pearson_brackets_the_estimate(kn, confidence):
    k, n = kn
    low, up = clopper_pearson(k, n, confidence)
    assert 0 <= low <= k / n <= up <= 1


# --- the order of the neighbours does not matter --------------------------------------------------
def test_swapping_the_counts_swaps_only_the_direction():
    for hits, hits_prime, delta in [(3_700, 1_300, 0.0), (40, 900, 0.0), (5_000, 5_000, 0.0), (800, 100, 0.01)]:
        a = _bound_from_counts(hits, hits_prime, 10_000, 0.95, delta)
        b = _bound_from_counts(hits_prime, hits, 10_000, 0.95, delta)
        assert a["epsilon_lower"] == b["epsilon_lower"]
        assert a["epsilon_hat"] == b["epsilon_hat"]
        if hits != hits_prime:
            assert {a["direction"], b["direction"]} == {"x/x_prime", "x_prime/x"}


def test_wrong_order_no_longer_returns_zero():
    """The issue's example: Laplace ε = 1, x = 0, x' = 1, event y > 2, 200,000 trials (was 0.0)."""
    sampler, event = laplace_sampler(1.0), (lambda y: y > 2)
    forward = audit_epsilon(sampler, 0.0, 1.0, event, 200_000, rng=11)
    backward = audit_epsilon(sampler, 1.0, 0.0, event, 200_000, rng=11)
    assert forward.direction == "x_prime/x" and backward.direction == "x/x_prime"
    for res in (forward, backward):
        assert 0.93 < res.epsilon_lower <= 1.0
    assert abs(forward.epsilon_lower - backward.epsilon_lower) < 0.05


def test_two_direction_bound_is_the_one_direction_bound_at_the_split_level():
    """Bonferroni costs only the split: the bound is the one-direction bound at level 1 - α/4,
    and it lies within 0.01 of the one-direction bound at level 1 - α/2 (the old auditor's)."""
    res = audit_epsilon(laplace_sampler(1.0), 1.0, 0.0, lambda y: y > 1.5, 200_000, rng=12)
    k, k_prime = round(res.p_hat * res.trials), round(res.p_prime_hat * res.trials)
    split = math.log(beta.ppf(0.0125, k, res.trials - k + 1) / beta.ppf(0.9875, k_prime + 1, res.trials - k_prime))
    one_way = math.log(beta.ppf(0.025, k, res.trials - k + 1) / beta.ppf(0.975, k_prime + 1, res.trials - k_prime))
    assert res.epsilon_lower == pytest.approx(split, rel=1e-9)
    assert split <= one_way < split + 0.01


# --- soundness on correct mechanisms, in both directions ----------------------------------------
RUNS, LEVEL = 200, 0.95
# If P[bound > true ε] <= 1 - LEVEL, more than LIMIT exceedances in RUNS runs has probability < 1e-3.
LIMIT = int(binom.isf(1e-3, RUNS, 1 - LEVEL))

SOUNDNESS_CASES = {
    # name: (sampler, x, x_prime, event, true epsilon, delta); each event is tight (ratio exactly e^ε)
    "RR": (rr_sampler(1.0), 1, 0, lambda y: y == 1, 1.0, 0.0),
    "Laplace": (laplace_sampler(1.0), 1.0, 0.0, lambda y: y > 1.0, 1.0, 0.0),
    "Laplace eps 0.5": (laplace_sampler(0.5), 0.0, 1.0, lambda y: y < 0.0, 0.5, 0.0),
    # Gaussian σ = 1 is exactly (1, Φ(-1/2) - e Φ(-3/2))-DP; {y > 3/2} attains that δ.
    "Gaussian (1, delta)": (gaussian_sampler(1.0), 1.0, 0.0, lambda y: y > 1.5, 1.0,
                            norm.cdf(-0.5) - math.e * norm.cdf(-1.5)),
}


def test_binomial_limit():
    assert LIMIT == 21 and binom.sf(LIMIT, RUNS, 0.05) < 1e-3


@pytest.mark.parametrize("name", list(SOUNDNESS_CASES))
@pytest.mark.parametrize("swap", [False, True], ids=["given order", "swapped"])
def test_sound_for_correct_mechanisms_across_200_seeded_runs(name, swap):
    sampler, x, x_prime, event, true_eps, delta = SOUNDNESS_CASES[name]
    if swap:
        x, x_prime = x_prime, x
    start = time.perf_counter()
    bounds = np.array([audit_epsilon(sampler, x, x_prime, event, trials=2_000, rng=seed, delta=delta).epsilon_lower
                       for seed in range(RUNS)])
    assert time.perf_counter() - start < 10
    assert int(np.sum(bounds > true_eps)) <= LIMIT
    assert np.median(bounds) > 0.6 * true_eps  # informative, not trivially 0


def test_plug_in_estimate_would_fail_the_same_test():
    """Without confidence bounds about half the runs overshoot, so the soundness test has teeth."""
    sampler = rr_sampler(1.0)
    hats = np.array([audit_epsilon(sampler, 1, 0, lambda y: y == 1, 2_000, rng=s).epsilon_hat for s in range(200)])
    assert 60 < np.sum(hats > 1.0) < 140


def test_bound_approaches_true_epsilon():
    bound = audit_epsilon(laplace_sampler(1.0), 1.0, 0.0, lambda y: y > 1.5, 1_000_000, rng=0).epsilon_lower
    assert 0.97 < bound <= 1.0


# --- broken mechanisms are refuted, in either order --------------------------------------------
@pytest.mark.parametrize("swap", [False, True])
def test_refutes_broken_mechanisms(swap):
    cases = [
        # Gaussian σ = 1 claimed 1-DP; {y > 3} has ln ratio 2.8
        (gaussian_sampler(1.0), 1.0, 0.0, lambda y: y > 3, 1_000_000, 1.0, 2.5,
         math.log(norm.sf(2) / norm.sf(3))),
        # one-sided Exponential noise claimed 1-DP; {y < 1} is impossible on x' = 1
        (one_sided_sampler(1.0), 0.0, 1.0, lambda y: y < 1, 10_000, 1.0, 5.0, math.inf),
        # coin-flip geometric claimed ln 2-DP; {y = 0} has ratio 4
        (coin_flip_sampler, 0, 1, lambda y: y == 0, 100_000, math.log(2), 1.3, math.log(4)),
    ]
    for seed, (sampler, x, x_prime, event, trials, claim, floor, true_ratio) in enumerate(cases):
        if swap:
            x, x_prime = x_prime, x
        res = audit_epsilon(sampler, x, x_prime, event, trials, rng=seed)
        assert claim < floor < res.epsilon_lower <= true_ratio
        assert res.direction == ("x_prime/x" if swap else "x/x_prime")


# --- (ε, δ) claims ------------------------------------------------------------------------------
def test_gaussian_passes_its_honest_claim_and_fails_the_pure_one():
    epsilon, delta = 1.0, 0.01
    sigma = gaussian_sigma(1.0, epsilon, delta, method="analytic")

    def sampler(data, size, rng):
        return gaussian_mechanism(np.full(size, float(data)), 1.0, epsilon, delta, rng=rng, method="analytic")

    tight = sigma**2 + 0.5  # where the density ratio equals e^ε: this event attains δ exactly
    for seed, (event, x, x_prime) in enumerate([(lambda y: y > 6, 1.0, 0.0), (lambda y: y > tight, 1.0, 0.0),
                                                (lambda y: y < 1 - tight, 0.0, 1.0)]):
        honest = audit_epsilon(sampler, x, x_prime, event, 1_000_000, rng=seed, delta=delta)
        assert honest.epsilon_lower <= epsilon, "the honest (ε, δ) claim must survive"
    pure = audit_epsilon(sampler, 1.0, 0.0, lambda y: y > 6, 1_000_000, rng=7)
    assert pure.epsilon_lower > 1.4 > epsilon  # the pure claim is refuted
    understated = audit_epsilon(sampler, 1.0, 0.0, lambda y: y > tight, 1_000_000, rng=8, delta=delta / 10)
    assert understated.epsilon_lower > 1.1 > epsilon  # and so is a δ ten times too small


def test_delta_lowers_the_bound_monotonically():
    numbers = [_bound_from_counts(6_000, 2_000, 100_000, 0.95, d)["epsilon_lower"] for d in (0, 0.001, 0.01, 0.04)]
    assert numbers[0] > numbers[1] > numbers[2] > numbers[3] == 0.0


def test_result_fields():
    res = audit_epsilon(rr_sampler(1.0), 0, 1, lambda y: y == 0, 1_000, rng=0, delta=0.001)
    assert isinstance(res, AuditResult)
    assert res.trials == 1_000 and res.confidence == 0.95 and res.delta == 0.001
    assert res.p_lower <= res.p_hat <= res.p_upper and res.p_prime_lower <= res.p_prime_hat <= res.p_prime_upper


# --- validation ---------------------------------------------------------------------------------
def test_input_validation_names_the_parameter():
    sampler = laplace_sampler(1.0)
    with pytest.raises(TypeError, match="sampler"):
        audit_epsilon(3, 0, 1, lambda y: y > 0, 10)
    with pytest.raises(TypeError, match="event"):
        audit_epsilon(sampler, 0, 1, None, 10)
    with pytest.raises(ValueError, match="trials"):
        audit_epsilon(sampler, 0, 1, lambda y: y > 0, 0)
    with pytest.raises(ValueError, match="confidence"):
        audit_epsilon(sampler, 0, 1, lambda y: y > 0, 10, confidence=1.0)
    for bad_delta in (-0.1, 1.0, float("nan")):
        with pytest.raises(ValueError, match="delta"):
            audit_epsilon(sampler, 0, 1, lambda y: y > 0, 10, delta=bad_delta)
    with pytest.raises(ValueError, match="event"):
        audit_epsilon(sampler, 0, 1, lambda y: np.ones(3, bool), 10)
    with pytest.raises(ValueError, match="sampler"):
        audit_epsilon(lambda d, n, r: np.zeros(n + 1), 0, 1, lambda y: y > 0, 10)
    with pytest.raises(ValueError, match="successes"):
        clopper_pearson(11, 10, 0.95)
    with pytest.raises(ValueError, match="trials"):
        clopper_pearson(0, 0, 0.95)
    with pytest.raises(ValueError, match="confidence"):
        clopper_pearson(1, 10, 0.0)

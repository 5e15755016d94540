"""The Poisson-subsampled Gaussian: Rényi curve, its (ε, δ) after T steps, and its PLD.

References: exact sums for integer orders (the binomial expansion of the Rényi moment),
Google's dp-accounting 0.6.0 (its RDP accountant with ``PoissonSampledDpEvent`` and its
PLD ``from_gaussian_mechanism(..., sampling_prob=q)``), and an independent adaptive
quadrature. At fractional orders below about 3 dp-accounting's series gives values up to
three times the integral (it adds the absolute values of the alternating binomial terms,
an upper bound); the tests compare there with the quadrature instead.
"""

from __future__ import annotations

import functools
import logging
import math

import numpy as np
import pytest

from rdplib import (
    gaussian_renyi,
    renyi_to_dp,
    subsampled_gaussian_epsilon,
    subsampled_gaussian_pld,
    subsampled_gaussian_renyi,
)
from rdplib.composition import _log_mixture_moment

dp_accounting = pytest.importorskip("dp_accounting")
from dp_accounting.pld import privacy_loss_distribution as dp_pld  # noqa: E402
from dp_accounting.rdp import rdp_privacy_accountant as dp_rdp  # noqa: E402

logging.getLogger("absl").setLevel(logging.ERROR)  # dp-accounting warns when its series fails

ORDERS = np.array(dp_rdp.DEFAULT_RDP_ORDERS, dtype=float)
INTEGER = ORDERS == np.round(ORDERS)
RATES = [0.001, 0.01, 0.1, 0.5]
SIGMAS = [0.7, 1.0, 2.0, 5.0]


@functools.lru_cache(maxsize=None)
def our_curve(sigma: float, q: float) -> np.ndarray:
    return subsampled_gaussian_renyi(ORDERS, sigma, q)


@functools.lru_cache(maxsize=None)
def their_curve(sigma: float, q: float) -> np.ndarray:
    event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
    return np.asarray(dp_rdp.RdpAccountant(list(ORDERS)).compose(event)._rdp)


def binomial_curve(alpha: int, sigma: float, q: float) -> float:
    """Integer order: E[(1 - q + q e^u)^α] as a finite sum, in logs."""
    j = np.arange(alpha + 1)
    log_binom = np.array([math.lgamma(alpha + 1) - math.lgamma(i + 1) - math.lgamma(alpha - i + 1) for i in j])
    terms = log_binom + j * math.log(q) + (alpha - j) * math.log1p(-q) + j * (j - 1) / (2 * sigma**2)
    top = terms.max()
    return (top + math.log(np.exp(terms - top).sum())) / (alpha - 1)


def quadrature_curve(alpha: float, sigma: float, q: float, power: float | None = None) -> float:
    """An independent check: scipy's adaptive quadrature of the scaled integrand."""
    from scipy import integrate

    power = alpha if power is None else power

    def log_integrand(y):
        u = (2 * y - 1) / (2 * sigma**2)
        return -0.5 * (y / sigma) ** 2 + power * np.logaddexp(math.log1p(-q), math.log(q) + u)

    grid = np.linspace(min(0.0, power) - 40 * sigma, max(0.0, power) + 40 * sigma, 20001)
    peak = float(np.max(log_integrand(grid)))
    value, _ = integrate.quad(lambda y: math.exp(log_integrand(y) - peak), grid[0], grid[-1],
                              points=sorted({0.0, 0.5, float(power), 1.0}), limit=500, epsabs=0, epsrel=1e-11)
    log_moment = peak + math.log(value) - math.log(sigma * math.sqrt(2 * math.pi))
    return log_moment / (alpha - 1)


# ---------------------------------------------------------------------- the Rényi curve
@pytest.mark.parametrize("q", RATES)
@pytest.mark.parametrize("sigma", SIGMAS)
def test_integer_orders_match_dp_accounting_and_the_binomial_sum(sigma, q):
    ours, theirs = our_curve(sigma, q)[INTEGER], their_curve(sigma, q)[INTEGER]
    assert np.allclose(ours, theirs, rtol=1e-8, atol=0)  # well within 1 %
    for alpha in [2, 7, 32]:
        assert subsampled_gaussian_renyi(float(alpha), sigma, q) == pytest.approx(binomial_curve(alpha, sigma, q), rel=1e-9)


@pytest.mark.parametrize("q", RATES)
@pytest.mark.parametrize("sigma", SIGMAS)
def test_fractional_orders(sigma, q):
    ours, theirs = our_curve(sigma, q), their_curve(sigma, q)
    fractional = ~INTEGER & np.isfinite(theirs)
    high = fractional & (ORDERS > 5)  # where dp-accounting's series is accurate
    assert np.allclose(ours[high], theirs[high], rtol=0.01)
    # everywhere dp-accounting's value is at least ours (its series bounds the moment from above)
    assert np.all(ours[fractional] <= theirs[fractional] * (1 + 1e-9))
    for alpha in [1.1, 1.5, 2.5, 4.3]:
        assert subsampled_gaussian_renyi(alpha, sigma, q) == pytest.approx(quadrature_curve(alpha, sigma, q), rel=1e-6)


def test_the_mixture_against_the_gaussian_is_the_larger_direction():
    """Mironov, Talwar & Zhang (2019): D_α(mixture || N(0, σ²)) >= D_α(N(0, σ²) || mixture)."""
    for sigma in SIGMAS:
        for q in RATES:
            for alpha in [1.1, 1.7, 2.0, 3.5, 8.0, 40.0]:
                forward = _log_mixture_moment(alpha, sigma, q)
                backward = _log_mixture_moment(1.0 - alpha, sigma, q)
                assert forward >= backward * (1 - 1e-9)
                assert backward / (alpha - 1) == pytest.approx(
                    quadrature_curve(alpha, sigma, q, power=1.0 - alpha), rel=1e-6, abs=1e-14)


def test_full_sampling_is_the_gaussian():
    alphas = np.array([1.01, 1.5, 2.0, 10.0, 256.0])
    for sigma in [0.5, 1.0, 3.0]:
        assert np.array_equal(subsampled_gaussian_renyi(alphas, sigma, 1.0), gaussian_renyi(alphas, sigma))
        numeric = np.array([_log_mixture_moment(a, sigma, 1.0) / (a - 1) for a in alphas])
        assert np.allclose(numeric, gaussian_renyi(alphas, sigma), rtol=1e-10)


def test_curve_is_monotone_in_the_rate_and_small_at_small_rates():
    alphas = np.array([1.5, 2.0, 8.0])
    curves = [subsampled_gaussian_renyi(alphas, 1.0, q) for q in [1e-4, 1e-3, 1e-2, 1e-1, 1.0]]
    assert all(np.all(a < b) for a, b in zip(curves, curves[1:], strict=False))
    # small q: about q² α (e^(1/σ²) - 1) / 2 at small orders
    approx = 1e-8 * 2.0 * math.expm1(1.0) / 2
    assert subsampled_gaussian_renyi(2.0, 1.0, 1e-4) == pytest.approx(approx, rel=1e-3)


def test_extreme_orders_and_noise():
    big = subsampled_gaussian_renyi(np.array([1.0 + 1e-9, 1e5]), 1e-3, 0.5)
    assert np.all(np.isfinite(big)) and big[1] == pytest.approx(1e5 / (2e-6), rel=1e-2)
    tiny = subsampled_gaussian_renyi(2.0, 1e6, 1e-9)
    assert 0 <= tiny < 1e-29


# ---------------------------------------------------------------------- (ε, δ) after T steps
STEP_GRID = [(q, s, t, d) for q in [0.001, 0.01, 0.1] for s in [0.8, 1.0, 2.0] for t in [10, 1000, 10_000]
             for d in [1e-5, 1e-9]]


def _their_epsilon(q, sigma, steps, delta, orders=None):
    event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
    accountant = dp_rdp.RdpAccountant(None if orders is None else list(orders))
    return accountant.compose(event, steps).get_epsilon(delta)


def test_epsilon_after_t_steps_matches_dp_accounting():
    worst_integer, worst_default = 0.0, 0.0
    for q, sigma, steps, delta in STEP_GRID:
        curve = steps * our_curve(sigma, q)
        ours_default = renyi_to_dp(ORDERS, curve, delta)[0]
        theirs_default = _their_epsilon(q, sigma, steps, delta)
        ours_integer = renyi_to_dp(ORDERS[INTEGER], curve[INTEGER], delta)[0]
        theirs_integer = _their_epsilon(q, sigma, steps, delta, ORDERS[INTEGER])
        worst_integer = max(worst_integer, abs(ours_integer / theirs_integer - 1))
        assert ours_default <= theirs_default * (1 + 1e-9)  # our curve is never above theirs
        if theirs_default < 10:  # small ε: the best order is large enough for their series
            worst_default = max(worst_default, abs(ours_default / theirs_default - 1))
    assert worst_integer < 1e-6 and worst_default < 0.01, (worst_integer, worst_default)
    assert subsampled_gaussian_epsilon(1.0, 0.01, 1000, 1e-5) == pytest.approx(
        renyi_to_dp(ORDERS, 1000 * our_curve(1.0, 0.01), 1e-5)[0], rel=1e-12)


# ---------------------------------------------------------------------- the PLD
@functools.lru_cache(maxsize=None)
def _plds(sigma, q):
    return subsampled_gaussian_pld(sigma, q), dp_pld.from_gaussian_mechanism(sigma, sampling_prob=q)


@pytest.mark.parametrize("q", [0.001, 0.01, 0.1])
@pytest.mark.parametrize("sigma", [0.8, 2.0])
@pytest.mark.parametrize("steps", [10, 1000])
def test_pld_epsilon_matches_dp_accounting(sigma, q, steps):
    ours, theirs = _plds(sigma, q)
    ours, theirs = ours.self_compose(steps), theirs.self_compose(steps)
    for delta in [1e-5, 1e-9]:
        assert ours.epsilon(delta) == pytest.approx(theirs.get_epsilon_for_delta(delta), rel=0.01)


def test_pld_bracket_and_rdp_comparison():
    upper = subsampled_gaussian_pld(1.0, 0.01).self_compose(1000)
    lower = subsampled_gaussian_pld(1.0, 0.01, pessimistic=False).self_compose(1000)
    eps_upper, eps_lower = upper.epsilon(1e-5), lower.epsilon(1e-5)
    assert eps_lower < eps_upper < eps_lower + 1000 * 1e-4  # optimistic about k h / 2 lower
    assert eps_upper < subsampled_gaussian_epsilon(1.0, 0.01, 1000, 1e-5)  # the PLD is tighter than Rényi DP


# ---------------------------------------------------------------------- bad inputs
@pytest.mark.parametrize(("call", "parameter"), [
    (lambda: subsampled_gaussian_renyi(1.0, 1.0, 0.1), "alpha"),
    (lambda: subsampled_gaussian_renyi([2.0, np.nan], 1.0, 0.1), "alpha"),
    (lambda: subsampled_gaussian_renyi(2.0, 1e-4, 0.1), "sigma"),
    (lambda: subsampled_gaussian_renyi(2.0, 1.0, 0.0), "sampling_rate"),
    (lambda: subsampled_gaussian_renyi(2.0, 1.0, 1.1), "sampling_rate"),
    (lambda: subsampled_gaussian_epsilon(1.0, 0.1, 0, 1e-5), "steps"),
    (lambda: subsampled_gaussian_epsilon(1.0, 0.1, 10, 0.0), "delta"),
    (lambda: subsampled_gaussian_epsilon(1.0, 0.1, 10, 1e-5, orders=[0.5]), "alpha"),
    (lambda: subsampled_gaussian_epsilon(1.0, 0.1, 10, 1e-5, method="x"), "method"),
])
def test_bad_inputs(call, parameter):
    with pytest.raises(ValueError, match=rf"^{parameter}(?!\w)"):
        call()

"""Tests for rdplib.discrete (chapter 4) and its explorer."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rdplib
from rdplib.discrete import (
    coin_flip_epsilon,
    coin_flip_mechanism,
    coin_flip_noise,
    coin_flip_pmf,
    discrete_laplace_pmf,
    exponential_loss_by_output,
    gaussian_loss_by_output,
    gaussian_loss_tail,
    laplace_loss_by_output,
    likelihood_ratios,
    one_sided_mechanism,
    worst_case_ratio,
)
from rdplib.widgets import privacy_loss_explorer, privacy_loss_summary

# --- exact pmfs -----------------------------------------------------------------------------

def test_coin_flip_pmf_values():
    assert coin_flip_pmf(0) == 0.5
    np.testing.assert_allclose(coin_flip_pmf([1, -1, 2, -5]), [1 / 8, 1 / 8, 1 / 16, 2.0**-7])


def test_coin_flip_pmf_exact_sums_to_one():
    pmf = coin_flip_pmf(np.arange(-30, 31), exact=True)
    assert all(isinstance(p, Fraction) for p in pmf)
    total = sum(pmf)
    assert total == 1 - Fraction(1, 2**31)


def test_coin_flip_pmf_biased_exact():
    h = Fraction(2, 3)
    pmf = coin_flip_pmf([0, 1, 2], heads_probability=h, exact=True)
    assert list(pmf) == [Fraction(1, 3), Fraction(1, 9), Fraction(2, 27)]
    # float h is turned into the nearby simple fraction
    assert coin_flip_pmf([1], heads_probability=2 / 3, exact=True)[0] == Fraction(1, 9)


@given(st.floats(min_value=0.05, max_value=0.95))
@settings(max_examples=30, deadline=None)
def test_coin_flip_pmf_normalised_for_any_coin(h):
    d = np.arange(-1000, 1001)
    assert math.isclose(coin_flip_pmf(d, heads_probability=h).sum(), 1.0, rel_tol=1e-9)


@given(st.floats(min_value=0.05, max_value=5.0))
@settings(max_examples=30, deadline=None)
def test_discrete_laplace_normalised_and_ratio(epsilon):
    d = np.arange(-2000, 2001)
    pmf = discrete_laplace_pmf(d, epsilon)
    assert math.isclose(pmf.sum(), 1.0, rel_tol=1e-9)
    near = np.arange(-50, 51)
    ratio = discrete_laplace_pmf(near, epsilon) / discrete_laplace_pmf(near - 1, epsilon)
    assert np.all(np.isclose(np.maximum(ratio, 1 / ratio), math.exp(epsilon)))


def test_discrete_laplace_matches_geometric_constant():
    a = 0.5
    np.testing.assert_allclose(
        discrete_laplace_pmf([0, 1, -3], math.log(2)), (1 - a) / (1 + a) * a ** np.array([0, 1, 3])
    )
    # sensitivity 2 halves the decay exponent
    np.testing.assert_allclose(discrete_laplace_pmf([2], 1.0, sensitivity=2)[0],
                               (1 - math.exp(-0.5)) / (1 + math.exp(-0.5)) * math.exp(-1.0))


# --- worst-case ratios ---------------------------------------------------------------------

def test_worst_case_ratio_coin_flip_is_exactly_four_at_the_counts():
    pmf = lambda d: coin_flip_pmf(d, exact=True)  # noqa: E731
    worst = worst_case_ratio(pmf, np.arange(-50, 52))
    assert worst.ratio == Fraction(4)
    assert worst.outputs.tolist() == [0, 1]
    assert math.isclose(worst.epsilon, math.log(4))
    shifted = worst_case_ratio(pmf, np.arange(-20, 40), count=9, neighbour=10)
    assert shifted.ratio == 4 and shifted.outputs.tolist() == [9, 10]


def test_worst_case_ratio_discrete_laplace_everywhere():
    worst = worst_case_ratio(lambda d: discrete_laplace_pmf(d, math.log(2)), np.arange(-10, 11))
    assert math.isclose(worst.ratio, 2.0)
    assert worst.outputs.size == 21


@pytest.mark.parametrize("h", [0.25, 0.5, 2 / 3, 0.9])
def test_coin_flip_epsilon_matches_scan(h):
    worst = worst_case_ratio(lambda d: coin_flip_pmf(d, heads_probability=h), np.arange(-60, 61))
    assert math.isclose(worst.epsilon, coin_flip_epsilon(h), rel_tol=1e-9)


def test_likelihood_ratios_zero_denominator():
    out = likelihood_ratios([0.5, 0.0, 0.0], [0.0, 0.0, 0.25])
    assert out[0] == np.inf and np.isnan(out[1]) and out[2] == 0.0
    exact = likelihood_ratios(np.array([Fraction(1, 2)], dtype=object), np.array([0], dtype=object))
    assert exact[0] == math.inf


def test_likelihood_ratios_shape_mismatch():
    with pytest.raises(ValueError, match="pmf_x_prime"):
        likelihood_ratios([0.1, 0.2], [0.1])


def test_worst_case_ratio_infinite_for_one_sided_pmf():
    one_sided = lambda d: np.where(d >= 0, 0.5 ** (d + 1.0), 0.0)  # noqa: E731
    worst = worst_case_ratio(one_sided, np.arange(-5, 10))
    assert worst.ratio == math.inf and worst.epsilon == math.inf
    assert worst.outputs.tolist() == [0]


# --- samplers (statistical, fixed seeds) ----------------------------------------------------

def test_coin_flip_noise_frequencies():
    noise = coin_flip_noise(400_000, rng=123)
    for d, p in [(0, 0.5), (1, 0.125), (-1, 0.125), (2, 0.0625), (-3, 1 / 32)]:
        freq = np.mean(noise == d)
        assert abs(freq - p) < 5 * math.sqrt(p * (1 - p) / noise.size), (d, freq)
    # a wrong mass at zero (e.g. 1/3, the discrete Laplace) would be far outside this bound
    assert abs(np.mean(noise == 0) - 1 / 3) > 0.1
    assert abs(noise.var() - 3.0) < 0.06


def test_coin_flip_mechanism_shifts_and_shape():
    out = coin_flip_mechanism(np.full((200, 300), 5), rng=7)
    assert out.shape == (200, 300) and out.dtype == np.int64
    assert abs(np.mean(out == 5) - 0.5) < 0.01
    assert isinstance(coin_flip_mechanism(3, rng=0), int)


def test_geometric_mechanism_pmf_against_formula():
    noise = rdplib.geometric_mechanism(np.zeros(400_000, dtype=int), 1, math.log(2), rng=5)
    for d in range(-3, 4):
        p = discrete_laplace_pmf([d], math.log(2))[0]
        assert abs(np.mean(noise == d) - p) < 5 * math.sqrt(p * (1 - p) / noise.size)


def test_one_sided_mechanism_never_below_value():
    out = one_sided_mechanism(np.full(100_000, 2.0), 1.0, rng=1)
    assert out.min() >= 2.0
    assert abs(np.mean(out < 3.0) - (1 - math.exp(-1))) < 0.01


# --- privacy loss functions ----------------------------------------------------------------

def test_laplace_loss_bounded_and_attained():
    y = np.linspace(-100, 100, 2001)
    loss = laplace_loss_by_output(y, scale=0.5, shift=1.0)
    assert loss.max() == pytest.approx(2.0) and loss.min() == pytest.approx(-2.0)


def test_gaussian_loss_formula_and_unbounded():
    sigma = 1.5
    y = np.array([-3.0, 0.5, 4.0])
    direct = np.log(np.exp(-(y**2) / (2 * sigma**2)) / np.exp(-((y - 1) ** 2) / (2 * sigma**2)))
    np.testing.assert_allclose(gaussian_loss_by_output(y, sigma), direct)
    assert gaussian_loss_by_output(-1e3, sigma) > 400


def test_gaussian_loss_tail_against_simulation():
    rng = np.random.default_rng(11)
    sigma = 2.0
    y = rng.normal(0.0, sigma, 400_000)
    sim = np.mean(gaussian_loss_by_output(y, sigma) > 1.0)
    assert abs(sim - gaussian_loss_tail(1.0, sigma)) < 0.002
    assert gaussian_loss_tail(1.0, sigma) == pytest.approx(0.040059, abs=1e-6)
    np.testing.assert_allclose(gaussian_loss_tail([0.5, 1.0], sigma),
                               [gaussian_loss_tail(0.5, sigma), gaussian_loss_tail(1.0, sigma)])


def test_exponential_loss_regions():
    out = exponential_loss_by_output([-0.1, 0.0, 0.99, 1.0, 7.0], scale=2.0)
    assert np.isnan(out[0]) and out[1] == np.inf and out[2] == np.inf
    np.testing.assert_allclose(out[3:], [-0.5, -0.5])


# --- input validation ----------------------------------------------------------------------

@pytest.mark.parametrize(
    ("call", "exc", "message"),
    [
        (lambda: coin_flip_pmf([0.5]), ValueError, "d: must contain integers"),
        (lambda: coin_flip_pmf([1], heads_probability=1.0), ValueError, "heads_probability"),
        (lambda: coin_flip_pmf(["a"]), TypeError, "d:"),
        (lambda: discrete_laplace_pmf([1], 0.0), ValueError, "epsilon"),
        (lambda: discrete_laplace_pmf([1], 1.0, sensitivity=-1), ValueError, "sensitivity"),
        (lambda: coin_flip_noise(10, rng="seed"), TypeError, "rng"),
        (lambda: coin_flip_mechanism([1.5]), ValueError, "value"),
        (lambda: worst_case_ratio("pmf", [0, 1]), TypeError, "pmf"),
        (lambda: worst_case_ratio(coin_flip_pmf, [[0, 1]]), ValueError, "outputs"),
        (lambda: laplace_loss_by_output([0.0], scale=0.0), ValueError, "scale"),
        (lambda: gaussian_loss_by_output([np.nan], sigma=1.0), ValueError, "y"),
        (lambda: gaussian_loss_tail(1.0, sigma=-1.0), ValueError, "sigma"),
        (lambda: exponential_loss_by_output([0.0], 1.0, shift=-1.0), ValueError, "shift"),
        (lambda: one_sided_mechanism([0.0], scale=0), ValueError, "scale"),
    ],
)
def test_errors_name_the_parameter(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


# --- explorer ------------------------------------------------------------------------------

def test_privacy_loss_explorer_responds_to_sliders():
    ex = privacy_loss_explorer()
    assert set(ex.controls) == {"epsilon", "sigma"}
    ex.controls["epsilon"].value = 2.0
    ex.controls["sigma"].value = 3.0
    from scipy.stats import norm

    assert ex.results["Laplace: largest loss"] == pytest.approx(2.0)
    assert ex.results["Laplace scale b = Δ/ε"] == pytest.approx(0.5)
    assert ex.results["Gaussian: loss at y = -3σ"] == pytest.approx((1 + 2 * 3 * 3.0) / (2 * 9.0))
    assert ex.results["Gaussian: P[loss > ε]"] == pytest.approx(norm.cdf(1 / 6 - 2.0 * 3.0))
    delta = norm.cdf(1 / 6 - 6.0) - math.exp(2.0) * norm.cdf(-1 / 6 - 6.0)
    assert ex.results["Gaussian: exact δ at this ε"] == pytest.approx(delta, rel=1e-9)
    assert "Gaussian" in ex.readout.value and len(ex.figure.value) > 1000
    assert ex.results == privacy_loss_summary(2.0, 3.0)

"""The privacy-loss-distribution accountant (rdplib.pld) against exact answers and dp-accounting.

Exact answers: k Gaussian releases with sensitivity 1 are one release with sensitivity
sqrt(k) (``gaussian_epsilon``); one Laplace release has ``δ(ε) = 1 - e^((ε - ε0)/2)``; k
randomized-response releases have a binomial privacy loss. Google's dp-accounting (0.6.0)
is the reference implementation: its PLD with the default connect-the-dots discretisation
at the same grid step.
"""

from __future__ import annotations

import functools
import math
import re
import time

import numpy as np
import pytest

import rdplib
from rdplib import (
    PrivacyLossDistribution,
    advanced_composition,
    gaussian_delta,
    gaussian_epsilon,
    gaussian_pld,
    laplace_pld,
    subsampled_gaussian_pld,
)

dp_pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")

KS = [1, 10, 100, 1000]
DELTAS = [1e-3, 1e-6, 1e-9]
SIGMAS = [2.0, 10.0]  # Gaussian noise, sensitivity 1
SCALES = [2.0, 20.0]  # Laplace scale b, sensitivity 1 (ε0 = 0.5 and 0.05)
NAN, INF = math.nan, math.inf


@functools.lru_cache(maxsize=None)
def ours(kind: str, parameter: float, k: int, pessimistic: bool = True) -> PrivacyLossDistribution:
    build = gaussian_pld if kind == "gaussian" else laplace_pld
    return build(parameter, pessimistic=pessimistic).self_compose(k)


@functools.lru_cache(maxsize=None)
def theirs(kind: str, parameter: float, k: int):
    build = dp_pld.from_gaussian_mechanism if kind == "gaussian" else dp_pld.from_laplace_mechanism
    return build(parameter, value_discretization_interval=1e-4).self_compose(k)


# ---------------------------------------------------------------------- against dp-accounting
@pytest.mark.parametrize("kind, parameter", [("gaussian", s) for s in SIGMAS] + [("laplace", b) for b in SCALES])
@pytest.mark.parametrize("k", KS)
def test_epsilon_within_one_percent_of_dp_accounting(kind, parameter, k):
    mine, reference = ours(kind, parameter, k), theirs(kind, parameter, k)
    for delta in DELTAS:
        ref = reference.get_epsilon_for_delta(delta)
        got = mine.epsilon(delta)
        assert got == pytest.approx(ref, rel=0.01, abs=1e-9), (kind, parameter, k, delta)


@pytest.mark.parametrize("kind, parameter", [("gaussian", 10.0), ("laplace", 20.0)])
def test_delta_curve_agrees_with_dp_accounting(kind, parameter):
    mine, reference = ours(kind, parameter, 100), theirs(kind, parameter, 100)
    eps = np.linspace(0.0, 3.0, 31)
    got, ref = mine.delta(eps), np.asarray(reference.get_delta_for_epsilon(eps))
    big = ref > 1e-9
    assert np.allclose(got[big], ref[big], rtol=1e-3)
    # below 1e-9 the difference is the ∞-mass, the bound on FFT round-off (about 3e-11 here)
    assert np.all(np.abs(got - ref) <= 1e-3 * ref + mine.infinity_mass + 1e-15)


# ---------------------------------------------------------------------- brackets around exact answers
@pytest.mark.parametrize("sigma", SIGMAS)
@pytest.mark.parametrize("k", KS)
def test_gaussian_bracket_contains_the_exact_epsilon(sigma, k):
    upper, lower = ours("gaussian", sigma, k), ours("gaussian", sigma, k, False)
    for delta in DELTAS:
        exact = gaussian_epsilon(delta, sigma, math.sqrt(k))
        assert lower.epsilon(delta) <= exact <= upper.epsilon(delta)
        # the pessimistic (connect-the-dots) answer is close; the optimistic one is about k h / 2 low
        assert upper.epsilon(delta) - exact <= 1e-4 * exact + 1e-6
        assert exact - lower.epsilon(delta) <= k * 1e-4 / 2 * 1.25 + 1e-6


@pytest.mark.parametrize("sigma", SIGMAS)
def test_gaussian_delta_curve_is_bracketed(sigma):
    eps = np.linspace(0.0, 6.0, 61)
    exact = gaussian_delta(eps, sigma / math.sqrt(10))
    upper, lower = ours("gaussian", sigma, 10).delta(eps), ours("gaussian", sigma, 10, False).delta(eps)
    assert np.all(lower <= exact * (1 + 1e-12)) and np.all(exact <= upper * (1 + 1e-12))


@pytest.mark.parametrize("scale, sensitivity", [(1.0, 1.0), (2.0, 1.0), (0.3, 0.7), (20.0, 1.0)])
def test_single_laplace_release_is_exact(scale, sensitivity):
    """One Laplace release: δ(ε) = 1 - e^((ε - ε0)/2) for ε < ε0, and 0 from ε0 on."""
    eps0 = sensitivity / scale
    upper = laplace_pld(scale, sensitivity)
    lower = laplace_pld(scale, sensitivity, pessimistic=False)
    eps = np.linspace(0.0, 1.2 * eps0, 50)
    exact = np.where(eps < eps0, -np.expm1(np.minimum(eps - eps0, 0.0) / 2), 0.0)
    assert np.all(lower.delta(eps) <= exact + 1e-15) and np.all(exact <= upper.delta(eps) + 1e-15)
    assert np.max(upper.delta(eps) - exact) < 1e-8  # connect the dots: exact at grid points, ~h² between
    for delta in [0.3, 1e-3, 1e-9, 1e-300]:
        exact_eps = max(0.0, eps0 + 2 * math.log1p(-delta))
        assert lower.epsilon(delta) - 1e-12 <= exact_eps <= upper.epsilon(delta) + 1e-12
        assert upper.epsilon(delta) - lower.epsilon(delta) <= 1e-4 + 1e-12
    top = math.ceil(eps0 / 1e-4 - 1e-9) * 1e-4  # ε0 or the grid point above it
    assert upper.delta(top) == 0.0 and eps0 - 1e-12 <= upper.epsilon(0.0) <= top + 1e-12


@pytest.mark.parametrize("k", [1, 7, 50])
def test_randomized_response_composition_is_exact(k):
    """Losses on the grid are not rounded: k releases of randomized response have the binomial curve."""
    eps = 0.5  # a multiple of the grid step
    p = 1 / (1 + math.exp(-eps))
    single = PrivacyLossDistribution.from_losses([eps, -eps], [p, 1 - p])
    composed = single.self_compose(k)
    folded = functools.reduce(lambda a, b: a.compose(b), [single] * k)
    i = np.arange(k + 1)
    log_binom = np.array([math.lgamma(k + 1) - math.lgamma(j + 1) - math.lgamma(k - j + 1) for j in i])
    loss = (k - 2 * i) * eps
    for target in [0.0, 0.3, 1.0, 2.5]:
        terms = np.exp(log_binom + (k - i) * math.log(p) + i * math.log1p(-p)) * -np.expm1(target - loss)
        exact = float(np.sum(terms[loss > target]))
        assert composed.delta(target) == pytest.approx(exact, rel=1e-9, abs=1e-12)
        assert folded.delta(target) == pytest.approx(exact, rel=1e-9, abs=1e-12)
    assert composed.epsilon(0.0) == pytest.approx(k * eps, abs=1e-9)  # pure DP: the largest loss


@pytest.mark.parametrize("kind, parameter", [("gaussian", 10.0), ("laplace", 10.0)])
def test_bracket_shrinks_with_the_grid_step(kind, parameter):
    build = gaussian_pld if kind == "gaussian" else laplace_pld
    widths = []
    for step in [1e-3, 1e-4, 1e-5]:
        upper = build(parameter, grid_step=step).self_compose(100).epsilon(1e-6)
        lower = build(parameter, grid_step=step, pessimistic=False).self_compose(100).epsilon(1e-6)
        assert lower <= upper
        widths.append(upper - lower)
    assert widths[0] > 5 * widths[1] > 25 * widths[2]  # about ten times narrower per decade of h


def test_laplace_exercise_of_chapter_10():
    """200 Laplace releases, each 0.1-DP, at the ε' of advanced composition with δ' = 1e-3."""
    eps_prime = advanced_composition(0.1, 0.0, 200, 1e-3)[0]
    upper = laplace_pld(10.0).self_compose(200).delta(eps_prime)
    lower = laplace_pld(10.0, pessimistic=False).self_compose(200).delta(eps_prime)
    reference = dp_pld.from_laplace_mechanism(10.0, value_discretization_interval=1e-4).self_compose(200)
    assert 3.33e-7 < lower < upper < 3.34e-7 and upper / lower - 1 < 2e-3
    assert upper == pytest.approx(reference.get_delta_for_epsilon(eps_prime), rel=1e-3)


# ---------------------------------------------------------------------- structure
def test_mass_is_conserved_and_q_is_a_probability():
    for pld in (gaussian_pld(3.0), laplace_pld(1.0), subsampled_gaussian_pld(1.0, 0.01)):
        for direction in (pld, pld.reverse) if pld.reverse is not None else (pld,):
            total = direction.probabilities.sum() + direction.infinity_mass
            assert total == pytest.approx(1.0, abs=1e-9)
            # connect the dots keeps each outcome's probability under Q: sum p e^-l is Q's mass, 1
            q_mass = float(np.sum(direction.probabilities * np.exp(-direction.losses)))
            assert q_mass == pytest.approx(1.0, abs=1e-9)
    assert np.all(np.diff(gaussian_pld(3.0).losses) > 0)


def test_compose_agrees_with_self_compose():
    single = gaussian_pld(4.0)
    chained = single.compose(single).compose(single).compose(single)
    assert chained.epsilon(1e-6) == pytest.approx(single.self_compose(4).epsilon(1e-6), rel=1e-6)
    mixed = gaussian_pld(4.0).compose(laplace_pld(5.0))
    assert 0 < mixed.epsilon(1e-6) < gaussian_pld(4.0).epsilon(1e-6) + 0.2


def test_subsampled_pld_has_two_directions_and_takes_the_worse():
    pld = subsampled_gaussian_pld(1.0, 0.05)
    assert pld.reverse is not None and pld.reverse.reverse is None
    eps = np.linspace(0.0, 3.0, 13)
    forward = PrivacyLossDistribution(pld.grid_step, True, pld.offset, pld.probabilities, pld.infinity_mass)
    assert np.array_equal(pld.delta(eps), np.maximum(forward.delta(eps), pld.reverse.delta(eps)))
    full = subsampled_gaussian_pld(2.0, 1.0)
    assert full.reverse is None and full.epsilon(1e-6) == gaussian_pld(2.0).epsilon(1e-6)


def test_speed_of_a_thousand_compositions():
    gaussian_pld(10.0).self_compose(2)  # imports
    single = gaussian_pld(10.0)
    start = time.perf_counter()
    single.self_compose(1000)
    assert time.perf_counter() - start < 2.0  # about 0.1 s on a quiet 2-core machine


# ---------------------------------------------------------------------- extremes
def test_huge_epsilon_and_tiny_delta():
    one = gaussian_pld(1.0)
    assert one.delta(1e6) == one.infinity_mass < 1e-300 and one.delta(INF) == one.infinity_mass
    eps_tiny = one.epsilon(1e-300)  # kept tails: finite before composition
    assert math.isfinite(eps_tiny) and eps_tiny == pytest.approx(gaussian_epsilon(1e-300, 1.0), rel=1e-3)
    many = one.self_compose(100)
    assert many.epsilon(1e-300) == INF  # below the ∞-mass nothing is certified
    assert math.isfinite(gaussian_pld(1.0, pessimistic=False).self_compose(100).epsilon(1e-300))
    laplace_100 = laplace_pld(1.0).self_compose(100)  # bounded loss: the ∞-mass is the round-off bound
    assert laplace_100.delta(1e6) == laplace_100.infinity_mass < 1e-11


@pytest.mark.parametrize("sigma, step", [(1e-3, 0.05), (1e4, 1e-4)])
def test_extreme_noise(sigma, step):
    upper = gaussian_pld(sigma, grid_step=step)
    lower = gaussian_pld(sigma, grid_step=step, pessimistic=False)
    for delta in [1e-3, 1e-9]:
        exact = gaussian_epsilon(delta, sigma)
        assert lower.epsilon(delta) <= exact <= upper.epsilon(delta) + 1e-12
        assert upper.epsilon(delta) - lower.epsilon(delta) <= step + 1e-9


def test_ten_thousand_releases():
    upper = gaussian_pld(50.0).self_compose(10_000)
    exact = gaussian_epsilon(1e-6, 50.0, 100.0)
    assert upper.epsilon(1e-6) == pytest.approx(exact, rel=1e-4) and upper.epsilon(1e-6) >= exact
    sub = subsampled_gaussian_pld(1.0, 0.01).self_compose(10_000)
    assert math.isfinite(sub.epsilon(1e-6))


# ---------------------------------------------------------------------- bad inputs
V, TE = ValueError, TypeError
ONE = gaussian_pld(5.0)
BAD = [
    ("grid_step 0", lambda: gaussian_pld(1.0, grid_step=0.0), V, "grid_step", "[1e-8, 1]"),
    ("grid_step 2", lambda: laplace_pld(1.0, grid_step=2.0), V, "grid_step", "[1e-8, 1]"),
    ("grid_step nan", lambda: gaussian_pld(1.0, grid_step=NAN), V, "grid_step", "NaN"),
    ("grid_step string", lambda: gaussian_pld(1.0, grid_step="1e-4"), TE, "grid_step", None),
    ("grid too fine", lambda: gaussian_pld(1e-3), V, "grid_step", "use grid_step >="),
    ("pessimistic string", lambda: gaussian_pld(1.0, pessimistic="yes"), TE, "pessimistic", "True or False"),
    ("sigma 0", lambda: gaussian_pld(0.0), V, "sigma", "> 0"),
    ("sigma inf", lambda: subsampled_gaussian_pld(INF, 0.1), V, "sigma", "finite"),
    ("sensitivity negative", lambda: gaussian_pld(1.0, sensitivity=-1.0), V, "sensitivity", "> 0"),
    ("scale 0", lambda: laplace_pld(0.0), V, "scale", "> 0"),
    ("scale nan", lambda: laplace_pld(NAN), V, "scale", "NaN"),
    ("sampling_rate 0", lambda: subsampled_gaussian_pld(1.0, 0.0), V, "sampling_rate", "(0, 1]"),
    ("sampling_rate 1.5", lambda: subsampled_gaussian_pld(1.0, 1.5), V, "sampling_rate", "(0, 1]"),
    ("sampling_rate bool", lambda: subsampled_gaussian_pld(1.0, True), TE, "sampling_rate", None),
    ("losses shape", lambda: PrivacyLossDistribution.from_losses([0.1, 0.2], [1.0]), V, "probabilities", "shape"),
    ("losses nan", lambda: PrivacyLossDistribution.from_losses([NAN], [1.0]), V, "losses", "finite"),
    ("losses 2-D", lambda: PrivacyLossDistribution.from_losses([[0.1]], [[1.0]]), V, "losses", "one-dimensional"),
    ("probabilities negative", lambda: PrivacyLossDistribution.from_losses([0.1, 0.2], [1.5, -0.5]), V,
     "probabilities", ">= 0"),
    ("probabilities sum", lambda: PrivacyLossDistribution.from_losses([0.1, 0.2], [0.5, 0.2]), V,
     "probabilities", "sum to 1"),
    ("infinity_mass 2", lambda: PrivacyLossDistribution.from_losses([0.1], [1.0], infinity_mass=2.0), V,
     "infinity_mass", "[0, 1]"),
    ("compose type", lambda: ONE.compose(3), TE, "other", "PrivacyLossDistribution"),
    ("compose grid", lambda: ONE.compose(gaussian_pld(5.0, grid_step=1e-3)), V, "other", "grid_step"),
    ("compose rounding", lambda: ONE.compose(gaussian_pld(5.0, pessimistic=False)), V, "other", "optimistic"),
    ("self_compose 0", lambda: ONE.self_compose(0), V, "k", ">= 1"),
    ("self_compose fractional", lambda: ONE.self_compose(2.5), V, "k", "integer"),
    ("self_compose bool", lambda: ONE.self_compose(True), TE, "k", "integer"),
    ("self_compose too long", lambda: gaussian_pld(0.5).self_compose(10**6), V, "grid_step", "use grid_step >="),
    ("delta negative", lambda: ONE.delta(-0.1), V, "epsilon", ">= 0"),
    ("delta nan", lambda: ONE.delta([0.1, NAN]), V, "epsilon", "NaN"),
    ("delta string", lambda: ONE.delta("a"), TE, "epsilon", None),
    ("delta bool", lambda: ONE.delta(True), TE, "epsilon", "bool"),
    ("epsilon 1", lambda: ONE.epsilon(1.0), V, "delta", "[0, 1)"),
    ("epsilon negative", lambda: ONE.epsilon(-1e-9), V, "delta", "[0, 1)"),
    ("epsilon nan", lambda: ONE.epsilon(NAN), V, "delta", "finite"),
    ("epsilon bool", lambda: ONE.epsilon(False), TE, "delta", "bool"),
]


@pytest.mark.parametrize(("call", "exception", "parameter", "allowed"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_input_raises_and_names_parameter(call, exception, parameter, allowed):
    with pytest.raises(exception, match=rf"^{re.escape(parameter)}(?!\w)") as info:
        call()
    assert type(info.value) is exception
    if allowed is not None:
        assert allowed in str(info.value)


def test_vectorised_curve_and_inverse():
    pld = ours("gaussian", 10.0, 100)
    eps = np.array([[0.5, 1.0], [2.0, 4.0]])
    deltas = pld.delta(eps)
    assert deltas.shape == (2, 2) and np.all(np.diff(deltas.ravel()) < 0)
    back = pld.epsilon(deltas)
    assert np.allclose(back, eps, atol=1e-9)
    assert isinstance(pld.delta(1.0), float) and isinstance(pld.epsilon(1e-6), float)
    assert rdplib.PrivacyLossDistribution is PrivacyLossDistribution

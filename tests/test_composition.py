"""Tests of rdplib.composition: advanced composition, Rényi DP, zCDP and the exact Gaussian ε.

The Rényi DP accountant is cross-checked against Google's dp-accounting (a pinned
test-only dependency): with dp-accounting's own grid of orders the two agree to
1e-9, and with rdplib's denser default grid they agree within 1 % wherever
dp-accounting's grid is fine enough, rdplib never being the looser.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, optimize, stats

import rdplib
from rdplib import (
    advanced_composition,
    gaussian_epsilon,
    gaussian_renyi,
    gaussian_renyi_epsilon,
    renyi_to_dp,
    zcdp_to_dp,
)

dp_accounting = pytest.importorskip("dp_accounting")
from dp_accounting.rdp.rdp_privacy_accountant import DEFAULT_RDP_ORDERS  # noqa: E402

HYPOTHESIS = settings(max_examples=60, deadline=None)

# The grid of the cross-check: σ from 0.7 to 10, up to 1000 releases, δ from 1e-3 to 1e-8
# (ε from about 0.05 to 1300). Outside it dp-accounting's orders get too sparse: see below.
SIGMAS = [0.7, 1.0, 2.0, 5.0, 10.0]
COUNTS = [1, 10, 100, 1000]
DELTAS = [1e-3, 1e-5, 1e-8]
GRID = list(itertools.product(SIGMAS, COUNTS, DELTAS))


def dp_accounting_epsilon(sigma, k, delta):
    accountant = dp_accounting.rdp.RdpAccountant()
    accountant.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(sigma), k))
    return accountant.get_epsilon(delta)


# ---------------------------------------------------------------- cross-check with dp-accounting
class TestAgainstDpAccounting:
    @pytest.mark.parametrize("sigma, k, delta", GRID)
    def test_within_one_percent(self, sigma, k, delta):
        ours = gaussian_renyi_epsilon(sigma, k, delta)
        theirs = dp_accounting_epsilon(sigma, k, delta)
        assert abs(ours / theirs - 1) < 0.01, (ours, theirs)

    @pytest.mark.parametrize("sigma, k, delta", GRID + [(0.2, 1000, 1e-5), (100.0, 1, 1e-5), (1e-3, 1, 1e-5)])
    def test_same_orders_same_answer_and_never_looser(self, sigma, k, delta):
        theirs = dp_accounting_epsilon(sigma, k, delta)
        assert gaussian_renyi_epsilon(sigma, k, delta, orders=DEFAULT_RDP_ORDERS) == pytest.approx(theirs, rel=1e-9)
        assert gaussian_renyi_epsilon(sigma, k, delta) <= theirs * (1 + 1e-12)

    def test_where_the_grids_differ_rdplib_is_tighter(self):
        """dp-accounting's orders jump from 63 to 128 and stop below at 1.1: the optimum can fall outside.

        rdplib optimises over every real order, so there it is tighter by more than 1 %.
        """
        assert gaussian_renyi_epsilon(20.0, 1, 1e-5) < 0.99 * dp_accounting_epsilon(20.0, 1, 1e-5)
        assert gaussian_renyi_epsilon(100.0, 1, 1e-3) < 0.95 * dp_accounting_epsilon(100.0, 1, 1e-3)
        assert gaussian_renyi_epsilon(0.5, 1000, 1e-3) < 0.99 * dp_accounting_epsilon(0.5, 1000, 1e-3)

    def test_sensitivity_scales_like_sigma(self):
        assert gaussian_renyi_epsilon(6.0, 7, 1e-6, sensitivity=3.0) == pytest.approx(
            dp_accounting_epsilon(2.0, 7, 1e-6), rel=0.01
        )


# ---------------------------------------------------------------- the Gaussian's Rényi curve
class TestGaussianRenyi:
    def test_values(self):
        assert gaussian_renyi(2.0, sigma=1.0) == 1.0
        np.testing.assert_allclose(gaussian_renyi([1.5, 4.0], sigma=2.0, sensitivity=3.0), [1.6875, 4.5])

    @pytest.mark.parametrize("alpha, sigma", [(1.5, 1.0), (2.0, 2.0), (5.0, 3.0), (0.5, 1.0)])
    def test_equals_the_renyi_divergence_by_quadrature(self, alpha, sigma):
        p, q = stats.norm(0.0, sigma), stats.norm(1.0, sigma)
        integrand = lambda y: math.exp(alpha * p.logpdf(y) + (1 - alpha) * q.logpdf(y))  # noqa: E731
        integral, _ = integrate.quad(integrand, -np.inf, np.inf)
        assert math.log(integral) / (alpha - 1) == pytest.approx(gaussian_renyi(alpha, sigma), rel=1e-8)

    def test_composition_adds_curves(self):
        """Two releases with σ = 1 and σ = 2 are one Gaussian release of sensitivity sqrt(1 + 1/4) and σ = 1."""
        alphas = np.array([1.5, 3.0, 10.0])
        added = gaussian_renyi(alphas, 1.0) + gaussian_renyi(alphas, 2.0)
        np.testing.assert_allclose(added, gaussian_renyi(alphas, 1.0, sensitivity=math.sqrt(1.25)))


# ---------------------------------------------------------------- conversions
class TestConversions:
    def test_classic_formula_at_a_single_order(self):
        eps, order = renyi_to_dp([3.0], [0.5], 1e-4, method="classic")
        assert order == 3.0 and eps == pytest.approx(0.5 + math.log(1e4) / 2)

    def test_improved_formula_at_a_single_order(self):
        eps, _ = renyi_to_dp([3.0], [0.5], 1e-4)
        assert eps == pytest.approx(0.5 + math.log(2 / 3) - (math.log(1e-4) + math.log(3)) / 2)

    @HYPOTHESIS
    @given(st.floats(1.01, 500.0), st.floats(0.0, 50.0), st.floats(1e-12, 0.5))
    def test_improved_never_worse_than_classic(self, alpha, r, delta):
        assert renyi_to_dp([alpha], [r], delta)[0] <= renyi_to_dp([alpha], [r], delta, method="classic")[0]

    def test_infinite_orders_are_skipped(self):
        eps, order = renyi_to_dp([2.0, 3.0], [math.inf, 0.3], 1e-5)
        assert order == 3.0 and math.isfinite(eps)
        assert renyi_to_dp([2.0], [math.inf], 1e-5)[0] == math.inf

    @pytest.mark.parametrize("rho, delta", [(0.01, 1e-5), (0.5, 1e-8), (3.0, 1e-3)])
    def test_zcdp_formula_is_the_classic_conversion_at_its_best_order(self, rho, delta):
        alphas = 1 + np.geomspace(1e-4, 1e4, 200_001)
        classic, _ = renyi_to_dp(alphas, rho * alphas, delta, method="classic")
        assert zcdp_to_dp(rho, delta) == pytest.approx(classic, rel=1e-8)
        assert zcdp_to_dp(rho, delta) == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1 / delta)))

    def test_zero_rho_is_zero_epsilon(self):
        assert zcdp_to_dp(0.0, 1e-5) == 0.0


# ---------------------------------------------------------------- exact ε of Gaussian releases
class TestGaussianEpsilon:
    @pytest.mark.parametrize("delta, sigma, sensitivity", [(1e-5, 3.0, 1.0), (1e-10, 0.5, 1.0), (0.01, 10.0, 5.0)])
    def test_inverts_gaussian_delta(self, delta, sigma, sensitivity):
        eps = gaussian_epsilon(delta, sigma, sensitivity)
        assert rdplib.gaussian_delta(eps, sigma, sensitivity) == pytest.approx(delta, rel=1e-8)
        assert rdplib.gaussian_delta(eps * 0.999, sigma, sensitivity) > delta

    def test_matches_the_analytic_calibration(self):
        sigma = rdplib.gaussian_sigma(1.0, 0.7, 1e-6, method="analytic")
        assert gaussian_epsilon(1e-6, sigma) == pytest.approx(0.7, rel=1e-7)

    def test_vectorised_and_zero_when_delta_is_large(self):
        eps = gaussian_epsilon([1e-6, 1e-3, 0.9], 2.0)
        assert eps.shape == (3,) and eps[2] == 0.0 and eps[0] > eps[1] > 0

    def test_extremes_are_finite(self):
        assert 0 < gaussian_epsilon(1e-300, 1.0) < 50
        assert 1e5 < gaussian_epsilon(1e-5, 1e-3) < 1e6
        assert gaussian_epsilon(1e-5, 1e6) == 0.0

    @pytest.mark.parametrize("sigma, k, delta", [(1.0, 10, 1e-5), (5.0, 100, 1e-8), (20.0, 1000, 1e-3)])
    def test_every_accountant_is_an_upper_bound_on_the_exact_epsilon(self, sigma, k, delta):
        exact = gaussian_epsilon(delta, sigma, math.sqrt(k))
        renyi = gaussian_renyi_epsilon(sigma, k, delta)
        zcdp = zcdp_to_dp(k / (2 * sigma**2), delta)
        per_release = gaussian_epsilon(delta / (2 * k), sigma)
        advanced, total_delta = advanced_composition(per_release, delta / (2 * k), k, delta / 2)
        assert total_delta == pytest.approx(delta)
        assert exact < renyi <= zcdp
        assert exact < advanced and exact < k * gaussian_epsilon(delta / k, sigma)


# ---------------------------------------------------------------- advanced composition
class TestAdvancedComposition:
    def test_formula(self):
        eps, delta = advanced_composition(0.2, 1e-7, 50, 1e-5)
        assert eps == pytest.approx(0.2 * math.sqrt(100 * math.log(1e5)) + 50 * 0.2 * math.expm1(0.2))
        assert delta == pytest.approx(50 * 1e-7 + 1e-5)

    def test_beats_basic_composition_for_many_small_releases(self):
        assert advanced_composition(0.01, 0.0, 10_000, 1e-6)[0] < 0.1 * 10_000 * 0.01

    def test_falls_back_to_basic_composition_for_few_releases(self):
        theorem = 1.0 * math.sqrt(10 * math.log(1e6)) + 5 * 1.0 * math.expm1(1.0)
        assert theorem > 5 * 1.0  # the theorem's bound loses here ...
        assert advanced_composition(1.0, 0.0, 5, 1e-6) == (5.0, 1e-6)  # ... so basic composition is returned

    @pytest.mark.parametrize("epsilon, k", [(0.05, 10), (0.1, 40), (0.5, 100), (0.01, 10_000), (2.0, 3), (0.6, 1), (0.69, 1)])
    @pytest.mark.parametrize("delta_prime", [1e-6, 0.5, 0.99])
    def test_never_looser_than_either_bound(self, epsilon, k, delta_prime):
        theorem = epsilon * math.sqrt(2 * k * math.log(1 / delta_prime)) + k * epsilon * math.expm1(epsilon)
        assert advanced_composition(epsilon, 0.0, k, delta_prime)[0] == pytest.approx(min(theorem, k * epsilon), rel=1e-12)

    def test_pure_dp_privacy_loss_tail_by_simulation(self):
        """k randomized-response releases (ε each): P[loss > ε'] <= δ', as the proof says."""
        epsilon, k, delta_prime = 0.1, 400, 1e-2
        eps_total, _ = advanced_composition(epsilon, 0.0, k, delta_prime)
        rng = np.random.default_rng(5)
        truthful = rng.random((50_000, k)) < math.exp(epsilon) / (1 + math.exp(epsilon))
        loss = epsilon * (2 * truthful.sum(axis=1) - k)
        assert np.mean(loss > eps_total) < delta_prime

    def test_huge_epsilon_is_finite_basic_composition(self):
        assert advanced_composition(1000.0, 0.0, 2, 1e-6)[0] == 2000.0  # e^1000 overflows a float
        assert advanced_composition(1e6, 1e-9, 10_000, 1e-6) == (1e10, pytest.approx(1e-5 + 1e-6))


# ---------------------------------------------------------------- numbers the accounting chapter prints
class TestAccountingChapterNumbers:
    """book/ch10_accounting.ipynb computes these with its own NumPy; here rdplib recomputes them.

    The chapter's privacy-loss-distribution (PLD) accountant rounds losses up and down on a grid of
    1e-4; rdplib's pessimistic PLD is tighter (connect-the-dots), so it must fall inside the
    chapter's bracket, and its optimistic PLD is the same rounding down.
    """

    @staticmethod
    def _randomized_response_delta(epsilon0, k, epsilon):  # the optimal composition theorem's sum
        truthful = np.arange(k + 1)
        loss = epsilon0 * (2 * truthful - k)
        pmf = stats.binom.pmf(truthful, k, math.exp(epsilon0) / (1 + math.exp(epsilon0)))
        return float(np.sum(pmf * np.maximum(-np.expm1(epsilon - loss), 0.0)))

    def test_a_year_of_weekly_counts_is_bracketed_by_the_pld(self):
        exact = gaussian_epsilon(1e-6, 20.0, math.sqrt(52))
        upper = rdplib.gaussian_pld(20.0).self_compose(52).epsilon(1e-6)
        lower = rdplib.gaussian_pld(20.0, pessimistic=False).self_compose(52).epsilon(1e-6)
        assert round(exact, 4) == 1.5769 and round(lower, 4) == 1.5743  # the chapter prints 1.5743 and 1.5795
        assert lower <= exact <= upper <= 1.5795

    def test_500_laplace_releases_fall_below_the_optimal_composition_bound(self):
        optimal = optimize.brentq(lambda e: self._randomized_response_delta(0.1, 500, e) - 1e-6, 0.0, 50.0)
        upper = rdplib.laplace_pld(10.0).self_compose(500).epsilon(1e-6)
        lower = rdplib.laplace_pld(10.0, pessimistic=False).self_compose(500).epsilon(1e-6)
        assert round(optimal, 2) == 12.52  # the chapter: the exact eps of 500 randomized responses
        assert 12.2692 <= lower <= upper <= 12.2716 < optimal  # the chapter: between 12.2692 and 12.2715

    def test_the_laplace_exercise_exact_delta(self):
        eps_prime = 0.1 * math.sqrt(2 * 200 * math.log(1e3)) + 200 * 0.1 * math.expm1(0.1)
        upper = rdplib.laplace_pld(10.0).self_compose(200).delta(eps_prime)
        lower = rdplib.laplace_pld(10.0, pessimistic=False).self_compose(200).delta(eps_prime)
        # the chapter: between 3.3321e-07 and 3.3436e-07 (its bracket gives up a larger allowance for round-off)
        assert 3.33205e-7 <= lower <= upper <= 3.34365e-7

    def test_the_gdp_central_limit_is_an_approximation_that_errs_either_way(self):
        """Dong, Roth and Su's limit mu = 2K / sqrt(S) is no bound: too small for DP-SGD, too large for Laplace."""
        mu_sgd = 0.05 * math.sqrt(200 * math.expm1(1.0))  # q = 0.05, sigma = 1, T = 200 (chapter 17's setting)
        limit_sgd = gaussian_epsilon(1e-5, 1 / mu_sgd)
        lower, upper = (rdplib.subsampled_gaussian_pld(1.0, 0.05, grid_step=1e-3, pessimistic=up).self_compose(200).epsilon(1e-5)
                        for up in (False, True))
        assert round(limit_sgd, 2) == 4.01 and (round(lower, 3), round(upper, 3)) == (4.666, 4.766)  # as the chapter prints
        assert limit_sgd < 0.86 * lower
        eps0, k = 1.0, 10  # ten Laplace releases: mean loss eps0 + e^-eps0 - 1, second moment from the loss law
        second_moment = eps0**2 * (1 + math.exp(-eps0)) / 2 + integrate.quad(
            lambda y: (eps0 * (1 - 2 * y)) ** 2 * eps0 / 2 * math.exp(-eps0 * y), 0.0, 1.0)[0]
        limit_laplace = gaussian_epsilon(1e-6, math.sqrt(k * second_moment) / (2 * k * (eps0 + math.expm1(-eps0))))
        exact = [rdplib.laplace_pld(1 / eps0, grid_step=1e-3, pessimistic=up).self_compose(k).epsilon(1e-6) for up in (False, True)]
        assert round(limit_laplace, 2) == 15.27 and [round(e, 4) for e in exact] == [9.999, 9.999]
        assert exact[1] <= k * eps0 < limit_laplace  # above even basic composition's (10, 0)

    def test_the_chapters_pld_bracket_holds_at_delta_zero(self):
        """rdplib's bracket, like the chapter's, keeps the pure-DP eps of 500 Laplace releases (50) at delta = 0."""
        lower = rdplib.laplace_pld(10.0, pessimistic=False).self_compose(500).epsilon(0.0)
        upper = rdplib.laplace_pld(10.0).self_compose(500).epsilon(0.0)
        assert lower <= 50.0 <= upper

    def test_the_sharper_conversion_is_44_percent_above_exact_for_one_noisy_release(self):
        ratio = gaussian_renyi_epsilon(100.0, 1, 1e-3) / gaussian_epsilon(1e-3, 100.0)
        assert round(100 * (ratio - 1)) == 44

    def test_below_the_grid_the_excess_of_the_sharper_conversion_has_no_bound(self):
        ratios = [gaussian_renyi_epsilon(1 / mu, 1, 1e-3) / gaussian_epsilon(1e-3, 1 / mu) for mu in (0.005, 0.003)]
        assert [round(r, 2) for r in ratios] == [1.80, 3.77]  # the chapter prints 1.80 and 3.77
        mu_zero = 2 * stats.norm.ppf((1 + 1e-3) / 2)  # total variation 2 Phi(mu/2) - 1 = delta: exact eps 0
        assert round(mu_zero, 4) == 0.0025 and gaussian_epsilon(1e-3, 1 / mu_zero) == 0.0
        assert round(gaussian_renyi_epsilon(1 / mu_zero, 1, 1e-3), 6) == 9.55e-4  # the chapter: 9.55e-04

    def test_the_slope_of_the_exact_epsilon_in_k_rises_above_one_half(self):
        slopes = {}
        for sigma in (20.0, 5.0, 2.0, 1.0):
            eps = [gaussian_epsilon(1e-6, sigma, math.sqrt(k)) for k in (10, 100, 1000)]
            slopes[sigma] = (round(math.log10(eps[1] / eps[0]), 2), round(math.log10(eps[2] / eps[1]), 2))
            if sigma == 20.0:
                assert round(eps[2] / eps[0], 1) == 12.8  # the chapter: k = 10 to 1000 multiplies eps by 12.8
        assert slopes == {20.0: (0.54, 0.57), 5.0: (0.58, 0.65), 2.0: (0.63, 0.75), 1.0: (0.70, 0.83)}


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call, exception, parameter",
    [
        (lambda: advanced_composition(0.0, 0.0, 3, 1e-6), ValueError, "epsilon"),
        (lambda: advanced_composition(0.1, 1.0, 3, 1e-6), ValueError, "delta"),
        (lambda: advanced_composition(0.1, 0.0, 0, 1e-6), ValueError, "k"),
        (lambda: advanced_composition(0.1, 0.0, 2.5, 1e-6), ValueError, "k"),
        (lambda: advanced_composition(0.1, 0.0, 3, 0.0), ValueError, "delta_prime"),
        (lambda: gaussian_renyi([2.0, 0.0], 1.0), ValueError, "alpha"),
        (lambda: gaussian_renyi(2.0, -1.0), ValueError, "sigma"),
        (lambda: gaussian_renyi(2.0, 1.0, sensitivity=math.nan), ValueError, "sensitivity"),
        (lambda: gaussian_renyi("2", 1.0), TypeError, "alpha"),
        (lambda: renyi_to_dp([1.0, 2.0], [0.1, 0.2], 1e-5), ValueError, "orders"),
        (lambda: renyi_to_dp([2.0, 3.0], [0.1], 1e-5), ValueError, "renyi_epsilon"),
        (lambda: renyi_to_dp([2.0], [-0.1], 1e-5), ValueError, "renyi_epsilon"),
        (lambda: renyi_to_dp([2.0], [0.1], 0.0), ValueError, "delta"),
        (lambda: renyi_to_dp([2.0], [0.1], 1e-5, method="best"), ValueError, "method"),
        (lambda: gaussian_renyi_epsilon(0.0, 3, 1e-5), ValueError, "sigma"),
        (lambda: gaussian_renyi_epsilon(1.0, 0, 1e-5), ValueError, "k"),
        (lambda: gaussian_renyi_epsilon(1.0, 3, 1.5), ValueError, "delta"),
        (lambda: zcdp_to_dp(-0.1, 1e-5), ValueError, "rho"),
        (lambda: zcdp_to_dp(math.inf, 1e-5), ValueError, "rho"),
        (lambda: zcdp_to_dp(True, 1e-5), TypeError, "rho"),
        (lambda: zcdp_to_dp(0.1, 0.0), ValueError, "delta"),
        (lambda: gaussian_epsilon(0.0, 1.0), ValueError, "delta"),
        (lambda: gaussian_epsilon(1e-5, 0.0), ValueError, "sigma"),
        (lambda: gaussian_epsilon(1e-5, 1.0, sensitivity=-2.0), ValueError, "sensitivity"),
    ],
)
def test_bad_input_names_the_parameter(call, exception, parameter):
    with pytest.raises(exception, match=rf"^{parameter}(?!\w)"):
        call()


@pytest.mark.parametrize("epsilon", [1e-12, 1e-9, 1e-6, 0.5, 50.0])
@pytest.mark.parametrize("delta", [1e-300, 1e-50, 1e-20, 1e-5])
def test_gaussian_epsilon_inverts_gaussian_sigma_at_tiny_epsilon(epsilon, delta):
    # a huge sigma with a tiny epsilon: log Phi(a) - log Phi(b) must not cancel (it once gave 6.56e-13 for 1e-12)
    sigma = rdplib.gaussian_sigma(1.0, epsilon, delta)
    assert rdplib.gaussian_epsilon(delta, sigma) == pytest.approx(epsilon, rel=1e-6)

"""Every public name of rdplib at the edges of its parameter range.

Extreme but valid values (ε = 1e-9 and 1e6, δ next to 0 and next to 1, n = 1e12,
groups of 10,000, huge inputs) must give finite, correct results; values that
cannot be represented (NaN, inf, overflowing scales) must raise a ValueError or
TypeError whose message starts with the parameter's name. A table at the end
checks that every name in ``rdplib.__all__`` is exercised here.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import rdplib

TINY_EPS, HUGE_EPS = 1e-9, 1e6
TINY_DELTA, BIG_DELTA = 1e-300, 1.0 - 2.0**-53
NAN, INF = math.nan, math.inf
EXERCISED: set[str] = set()


def exercises(*names: str):
    EXERCISED.update(names)
    return lambda f: f


def finite(x) -> bool:
    return bool(np.all(np.isfinite(np.asarray(x, dtype=float))))


def raises_naming(exc, parameter, call):
    with pytest.raises(exc, match=rf"^{re.escape(parameter)}(?!\w)"):
        call()


@pytest.fixture(autouse=True)
def _no_runtime_warnings():
    """An overflow or an invalid operation inside rdplib is a bug, even if the result is finite."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


# ---------------------------------------------------------------- randomized response
@exercises("randomized_response", "rr_estimate", "rr_flip_probability", "rr_variance")
class TestRandomizedResponse:
    def test_flip_probability_at_the_extremes(self):
        assert rdplib.rr_flip_probability(HUGE_EPS) == 0.0
        assert rdplib.rr_flip_probability(TINY_EPS) == pytest.approx(0.5 - TINY_EPS / 4, abs=1e-15)
        assert 0.0 < rdplib.rr_flip_probability(700.0) < 1e-300

    @pytest.mark.parametrize("eps", [TINY_EPS, 1.0, HUGE_EPS])
    def test_release_and_estimate_are_finite(self, eps):
        bits = np.array([0, 1, 1, 0, 1])
        noisy = rdplib.randomized_response(bits, eps, rng=0)
        assert set(np.unique(noisy)) <= {0, 1}
        est = rdplib.rr_estimate(noisy, eps)
        assert finite(est)
        if eps == HUGE_EPS:
            assert np.array_equal(noisy, bits) and est == pytest.approx(0.6)

    def test_estimate_at_tiny_epsilon_is_exact_algebra(self):
        # mean 1/2 + 1e-10 exactly: the estimate is (mean - q) / tanh(eps / 2)
        eps = 1e-6
        q = rdplib.rr_flip_probability(eps)
        bits = np.zeros(1_000_000, dtype=np.int8)
        bits[:500_001] = 1
        expected = (500_001 / 1_000_000 - q) / math.tanh(eps / 2)
        assert rdplib.rr_estimate(bits, eps) == pytest.approx(expected, rel=1e-6)

    def test_variance_at_the_extremes(self):
        assert rdplib.rr_variance(0.5, 1e12, HUGE_EPS) == pytest.approx(0.25e-12)
        assert rdplib.rr_variance(0.5, 1, TINY_EPS) == pytest.approx(1 / TINY_EPS**2, rel=1e-6)
        assert finite(rdplib.rr_variance([0.0, 1.0], [1.0, 1e12], [TINY_EPS, HUGE_EPS]))

    def test_variance_rejects_unrepresentable(self):
        raises_naming(ValueError, "epsilon", lambda: rdplib.rr_variance(0.5, 10, INF))
        raises_naming(ValueError, "p", lambda: rdplib.rr_variance(NAN, 10, 1.0))
        raises_naming(ValueError, "n", lambda: rdplib.rr_variance(0.5, INF, 1.0))
        raises_naming(ValueError, "n", lambda: rdplib.rr_variance(0.5, NAN, 1.0))


# ---------------------------------------------------------------- Laplace, geometric, clipped mean
@exercises("laplace_mechanism", "geometric_mechanism", "clipped_mean")
class TestAdditiveNoise:
    @pytest.mark.parametrize("eps", [TINY_EPS, HUGE_EPS])
    def test_laplace_finite(self, eps):
        out = rdplib.laplace_mechanism(np.array([0.0, 1e300, -1e300]), 1.0, eps, rng=1)
        assert finite(out)

    def test_laplace_scale_overflow_is_an_error(self):
        raises_naming(ValueError, "sensitivity", lambda: rdplib.laplace_mechanism(0.0, 1e300, TINY_EPS))
        raises_naming(ValueError, "value", lambda: rdplib.laplace_mechanism([0.0, INF], 1.0, 1.0))
        raises_naming(ValueError, "value", lambda: rdplib.laplace_mechanism(NAN, 1.0, 1.0))

    @pytest.mark.parametrize("eps", [TINY_EPS, HUGE_EPS])
    def test_geometric_finite(self, eps):
        out = rdplib.geometric_mechanism(np.array([0, 2**62, -(2**62)]), 1, eps, rng=2)
        assert out.dtype == np.int64
        if eps == HUGE_EPS:
            assert np.array_equal(out, [0, 2**62, -(2**62)])

    def test_geometric_too_much_noise_is_an_error(self):
        raises_naming(ValueError, "epsilon", lambda: rdplib.geometric_mechanism(0, 10**6, 1e-12))
        raises_naming(ValueError, "value", lambda: rdplib.geometric_mechanism(2.0**70, 1, 1.0))

    @pytest.mark.parametrize("eps", [TINY_EPS, HUGE_EPS])
    def test_clipped_mean_finite(self, eps):
        x = np.array([-1e300, 0.0, 1e300])
        out = rdplib.clipped_mean(x, -1.0, 1.0, eps, rng=3)
        assert finite(out)
        if eps == HUGE_EPS:
            assert out == pytest.approx(0.0, abs=1e-5)

    def test_clipped_mean_range_overflow_is_an_error(self):
        raises_naming(ValueError, "upper", lambda: rdplib.clipped_mean([0.0], -1e308, 1e308, 1.0))
        raises_naming(ValueError, "upper", lambda: rdplib.clipped_mean([0.0], 0.0, INF, 1.0))


# ---------------------------------------------------------------- Gaussian
@exercises("gaussian_mechanism", "gaussian_sigma", "gaussian_delta")
class TestGaussian:
    GRID = [(e, d) for e in (TINY_EPS, 0.5, 3.0, HUGE_EPS) for d in (TINY_DELTA, 1e-5, 0.5, BIG_DELTA)]

    @pytest.mark.parametrize(("eps", "delta"), GRID)
    def test_analytic_sigma_is_finite_and_meets_delta(self, eps, delta):
        sigma = rdplib.gaussian_sigma(1.0, eps, delta)
        assert 0.0 < sigma < math.inf
        achieved = rdplib.gaussian_delta(eps, sigma)
        assert 0.0 <= achieved <= delta * (1 + 1e-9)
        if 1e-300 < delta < 0.9 and eps < 10:  # tight, not only valid: 1 % less noise breaks delta
            assert rdplib.gaussian_delta(eps, 0.99 * sigma) > delta

    @pytest.mark.parametrize(("eps", "delta"), [(1e-12, TINY_DELTA), (TINY_EPS, TINY_DELTA), (1e-12, 1e-50)])
    def test_analytic_sigma_at_tiny_eps_meets_delta_independently(self, eps, delta):
        """Checked by the lemma's integral E[(1 - e^(eps - L))+] = ∫_0^∞ φ(a - s)(1 - e^(-mu s)) ds,
        not by gaussian_delta: the closed form's two terms nearly cancel here."""
        from scipy import integrate

        sigma = rdplib.gaussian_sigma(1.0, eps, delta)
        mu = 1.0 / sigma
        a = mu / 2.0 - eps / mu  # negative here
        value, _ = integrate.quad(lambda s: math.exp(a * s - s * s / 2.0) * -math.expm1(-mu * s), 0.0, 40.0,
                                  epsabs=0.0, epsrel=1e-12, limit=200)
        true_delta = math.exp(-a * a / 2.0) / math.sqrt(2.0 * math.pi) * value
        assert 1 - 1e-6 < true_delta / delta <= 1 + 1e-9

    def test_default_calibration_is_analytic(self):
        assert rdplib.gaussian_sigma(1.0, 0.5, 1e-5) == rdplib.gaussian_sigma(1.0, 0.5, 1e-5, method="analytic")
        a = rdplib.gaussian_mechanism(np.zeros(3), 1.0, 0.5, 1e-5, rng=4)
        b = rdplib.gaussian_mechanism(np.zeros(3), 1.0, 0.5, 1e-5, rng=4, method="analytic")
        assert np.array_equal(a, b)

    def test_sigma_overflow_is_an_error(self):
        raises_naming(ValueError, "sensitivity", lambda: rdplib.gaussian_sigma(1e300, TINY_EPS, TINY_DELTA))

    @pytest.mark.parametrize("eps", [0.0, TINY_EPS, 1.0, 700.0, HUGE_EPS])
    @pytest.mark.parametrize("sigma", [1e-300, 1e-3, 1.0, 1e6, 1e300])
    def test_delta_curve_is_a_probability(self, eps, sigma):
        d = rdplib.gaussian_delta(eps, sigma)
        assert 0.0 <= d <= 1.0

    def test_delta_curve_limits(self):
        assert rdplib.gaussian_delta(HUGE_EPS, 1.0) == 0.0
        assert rdplib.gaussian_delta(0.0, 1e-300) == 1.0
        tiny = rdplib.gaussian_delta(40.0, 1.0)  # about 1e-350 would underflow; still >= 0
        assert 0.0 <= tiny < 1e-300
        small = rdplib.gaussian_delta(10.0, 1.0)  # relative precision kept in the far tail
        from scipy.stats import norm

        assert small == pytest.approx(norm.cdf(0.5 - 10.0) - math.exp(10.0) * norm.cdf(-0.5 - 10.0), rel=1e-9)

    def test_delta_curve_rejects_bad_input(self):
        raises_naming(ValueError, "epsilon", lambda: rdplib.gaussian_delta(INF, 1.0))
        raises_naming(ValueError, "epsilon", lambda: rdplib.gaussian_delta(NAN, 1.0))
        raises_naming(ValueError, "sigma", lambda: rdplib.gaussian_delta(1.0, INF))

    def test_mechanism_finite_at_extremes(self):
        for eps, delta in [(TINY_EPS, 1e-5), (HUGE_EPS, TINY_DELTA), (0.5, BIG_DELTA)]:
            assert finite(rdplib.gaussian_mechanism(np.zeros(5), 1.0, eps, delta, rng=5))


# ---------------------------------------------------------------- accounting
@exercises("basic_composition", "group_privacy", "threshold_delta", "threshold_for_delta",
           "thresholded_histogram")
class TestAccounting:
    def test_group_privacy_is_the_tight_chain(self):
        for eps, delta, k in [(0.5, 1e-5, 6), (TINY_EPS, 1e-5, 10_000), (2.0, 1e-12, 5)]:
            chain = delta * math.fsum(math.exp(i * eps) for i in range(k))
            assert rdplib.group_privacy(eps, delta, k) == (pytest.approx(k * eps), pytest.approx(min(1.0, chain), rel=1e-9))

    @pytest.mark.parametrize("eps", [TINY_EPS, 1.0, HUGE_EPS])
    @pytest.mark.parametrize("delta", [0.0, TINY_DELTA, 1e-5, BIG_DELTA])
    @pytest.mark.parametrize("k", [1, 2, 10_000])
    def test_group_privacy_finite_and_capped(self, eps, delta, k):
        group_eps, group_delta = rdplib.group_privacy(eps, delta, k)
        assert group_eps == pytest.approx(k * eps) and math.isfinite(group_eps)
        assert 0.0 <= group_delta <= 1.0 and group_delta >= delta * (1 - 1e-12)

    def test_group_privacy_huge_k(self):
        assert rdplib.group_privacy(HUGE_EPS, 1e-9, 10**12) == (1e18, 1.0)
        raises_naming(ValueError, "k", lambda: rdplib.group_privacy(HUGE_EPS, 1e-9, 10**400))

    def test_basic_composition_extremes(self):
        eps, delta = rdplib.basic_composition([(HUGE_EPS, BIG_DELTA)] * 10_000)
        assert eps == pytest.approx(1e10) and math.isfinite(delta)
        assert rdplib.basic_composition([(TINY_EPS, TINY_DELTA)] * 3) == (pytest.approx(3e-9), pytest.approx(3e-300))
        raises_naming(ValueError, "budgets", lambda: rdplib.basic_composition([(1e308, 0.0), (1e308, 0.0)]))
        raises_naming(ValueError, "budgets[1] epsilon", lambda: rdplib.basic_composition([(1.0, 0.0), (NAN, 0.0)]))

    @pytest.mark.parametrize("eps", [TINY_EPS, HUGE_EPS])
    def test_threshold_delta_extremes(self, eps):
        out = rdplib.threshold_delta(np.array([-INF, -1e300, 0.0, 1.0, 1e300, INF]), eps)
        assert finite(out) and np.all((out >= 0) & (out <= 1))
        assert out[0] == 1.0 and out[-1] == 0.0

    @pytest.mark.parametrize("eps", [TINY_EPS, 1.0, HUGE_EPS])
    @pytest.mark.parametrize("delta", [TINY_DELTA, 1e-7, 0.5, BIG_DELTA])
    def test_threshold_for_delta_extremes(self, eps, delta):
        t = rdplib.threshold_for_delta(delta, eps)
        assert rdplib.threshold_delta(t, eps) <= delta < rdplib.threshold_delta(t - 1, eps)

    @pytest.mark.parametrize("eps", [1.0, HUGE_EPS])
    @pytest.mark.parametrize("delta", [5e-324, 1e-309])
    def test_threshold_for_delta_subnormal(self, eps, delta):
        t = rdplib.threshold_for_delta(delta, eps)
        assert rdplib.threshold_delta(t, eps) <= delta < rdplib.threshold_delta(t - 1, eps)

    def test_threshold_for_delta_too_large_is_an_error(self):
        raises_naming(ValueError, "epsilon", lambda: rdplib.threshold_for_delta(TINY_DELTA, 1e-300))

    @pytest.mark.parametrize("eps", [TINY_EPS, HUGE_EPS])
    def test_thresholded_histogram_extremes(self, eps):
        out = rdplib.thresholded_histogram(["a"] * 5 + ["b"], eps, 3.0, rng=6)
        assert all(math.isfinite(v) for v in out.values())
        if eps == HUGE_EPS:
            assert list(out) == ["a"]
        raises_naming(ValueError, "threshold", lambda: rdplib.thresholded_histogram(["a"], 1.0, INF))


# ---------------------------------------------------------------- histograms
@exercises("histogram_counts", "dp_histogram", "rdp_histogram", "rdp_condition_holds",
           "project_to_histograms", "l1_loss")
class TestHistograms:
    def test_histogram_counts_huge_k_and_label(self):
        assert rdplib.histogram_counts([0, 3], k=10_000).sum() == 2
        raises_naming(ValueError, "cells", lambda: rdplib.histogram_counts([2**62], k=4))

    @pytest.mark.parametrize("eps", [TINY_EPS, HUGE_EPS])
    def test_dp_histogram_with_a_trillion_records(self, eps):
        counts = np.array([600_000_000_000, 400_000_000_000])  # n = 1e12
        z = rdplib.dp_histogram(counts, eps, rng=7)
        assert finite(z)
        if eps == HUGE_EPS:
            assert z == pytest.approx([0.6, 0.4], abs=1e-12)

    @pytest.mark.parametrize("eps", [TINY_EPS, HUGE_EPS])
    @pytest.mark.parametrize("gamma", [1e-9, 0.5, 1 - 1e-9])
    def test_rdp_histogram_finite(self, eps, gamma):
        counts = np.array([600_000_000_000, 400_000_000_000, 0, 0])
        assert finite(rdplib.rdp_histogram(counts, eps, gamma, rng=8))

    def test_rdp_condition_extremes(self):
        assert rdplib.rdp_condition_holds(4, 10**12, 1e-9)
        assert not rdplib.rdp_condition_holds(10**6, 10**12, 1e-9)
        raises_naming(ValueError, "gamma", lambda: rdplib.rdp_condition_holds(4, 100, NAN))

    def test_projection_of_huge_and_tiny_vectors(self):
        for z in ([1e-300, 0.0, -1e-300], [0.5, 0.5, 0.0], [1e3, -1e3, 0.0]):
            h = rdplib.project_to_histograms(np.array(z), 10**12)
            assert finite(h) and h.sum() == pytest.approx(1.0) and np.all(h >= 0)
        raises_naming(ValueError, "z", lambda: rdplib.project_to_histograms([1e300, -1e300], 10**12))
        raises_naming(ValueError, "z", lambda: rdplib.project_to_histograms([INF, 0.0], 10))

    def test_l1_loss_huge(self):
        assert rdplib.l1_loss([1e300, 0.0], [0.0, 1e300]) == pytest.approx(2e300)
        raises_naming(ValueError, "a", lambda: rdplib.l1_loss([NAN], [0.0]))


# ---------------------------------------------------------------- data-dependent, local, audit
@exercises("quantile_scale")
def test_quantile_scale_extremes():
    x = np.array([0.0, 1e300, 0.0, -1e300])
    s = rdplib.quantile_scale(x, lambda a, b: np.abs(a - b) / 4, quantile=1 - 1e-9)
    assert finite(s)
    raises_naming(ValueError, "quantile", lambda: rdplib.quantile_scale(x, lambda a, b: np.abs(a - b), 1.0))
    raises_naming(ValueError, "x", lambda: rdplib.quantile_scale([0.0, NAN], lambda a, b: np.abs(a - b), 0.5))


@exercises("CountMeanSketch")
@pytest.mark.parametrize("eps", [TINY_EPS, HUGE_EPS])
def test_count_mean_sketch_extremes(eps):
    cms = rdplib.CountMeanSketch(eps, num_hashes=4, width=8, rng=9)
    assert 0.0 <= cms.flip_probability < 0.5
    cms.aggregate(cms.encode(np.array(["a"] * 50 + ["b"] * 10)))
    est = cms.estimate("a")
    assert finite(est)
    if eps == HUGE_EPS:
        assert 0.0 <= est <= 60.0 * 8 / 7 + 1e-9


@exercises("audit_epsilon", "AuditResult", "clopper_pearson")
class TestAudit:
    def test_clopper_pearson_extremes(self):
        for k, n in [(0, 10**12), (10**12, 10**12), (1, 10**12)]:
            low, up = rdplib.clopper_pearson(k, n, 1 - 1e-9)
            assert 0.0 <= low <= up <= 1.0 and finite([low, up])

    @pytest.mark.parametrize("eps", [TINY_EPS, HUGE_EPS])
    def test_audit_of_randomized_response_is_finite(self, eps):
        def sampler(bit, size, rng):
            return rdplib.randomized_response(np.full(size, bit), eps, rng=rng)

        result = rdplib.audit_epsilon(sampler, 1, 0, lambda y: y == 1, 2_000, rng=10)
        assert isinstance(result, rdplib.AuditResult)
        assert math.isfinite(result.epsilon_lower) or result.epsilon_lower == math.inf


# ---------------------------------------------------------------- accountants (rdplib.composition)
@exercises("advanced_composition", "gaussian_renyi", "gaussian_renyi_epsilon", "renyi_to_dp",
           "zcdp_to_dp", "gaussian_epsilon")
class TestAccountants:
    @pytest.mark.parametrize("eps", [
        TINY_EPS, 1.0, HUGE_EPS,
    ])
    @pytest.mark.parametrize("delta_prime", [TINY_DELTA, 1e-6, BIG_DELTA])
    def test_advanced_composition_finite(self, eps, delta_prime):
        total_eps, total_delta = rdplib.advanced_composition(eps, 1e-9, 10_000, delta_prime)
        assert math.isfinite(total_eps) and total_eps > 0 and math.isfinite(total_delta)

    @pytest.mark.parametrize("sigma", [1e-3, 1.0, 1e6])
    @pytest.mark.parametrize("delta", [TINY_DELTA, 1e-5, BIG_DELTA])
    def test_gaussian_accountants_finite(self, sigma, delta):
        curve = rdplib.gaussian_renyi(np.array([1.5, 2.0, 1e6]), sigma)
        assert finite(curve)
        eps_renyi = rdplib.gaussian_renyi_epsilon(sigma, 10_000, delta)
        eps_exact = rdplib.gaussian_epsilon(delta, sigma, math.sqrt(10_000))
        assert math.isfinite(eps_renyi) and math.isfinite(eps_exact)
        assert eps_exact <= eps_renyi * (1 + 1e-9) + 1e-12  # the exact epsilon is the smallest
        eps_conv, order = rdplib.renyi_to_dp([2.0, 10.0], [1e-12, 1e-11], delta)
        assert math.isfinite(eps_conv) and math.isfinite(order)

    @pytest.mark.parametrize("rho", [1e-12, 1.0, 1e6])
    @pytest.mark.parametrize("delta", [TINY_DELTA, BIG_DELTA])
    def test_zcdp_to_dp_finite(self, rho, delta):
        assert math.isfinite(rdplib.zcdp_to_dp(rho, delta))

    def test_accountants_reject_nan(self):
        raises_naming(ValueError, "epsilon", lambda: rdplib.advanced_composition(NAN, 0.0, 2, 1e-6))
        raises_naming(ValueError, "rho", lambda: rdplib.zcdp_to_dp(NAN, 1e-6))
        raises_naming(ValueError, "sigma", lambda: rdplib.gaussian_renyi(2.0, NAN))


@exercises("kolmogorov_sf", "ks_two_sample")
class TestKolmogorov:
    def test_survival_function_at_the_extremes(self):
        out = rdplib.kolmogorov_sf(np.array([1e-3, 0.5, 40.0, 1e6]))
        assert finite(out) and np.all((0 <= out) & (out <= 1)) and np.all(np.diff(out) <= 0)

    def test_two_sample_with_huge_values(self):
        statistic, p_value = rdplib.ks_two_sample(np.array([1e300, -1e300, 0.0]), np.array([1.0]))
        assert 0 <= statistic <= 1 and 0 <= p_value <= 1

    def test_survival_function_at_zero(self):
        assert rdplib.kolmogorov_sf(np.array([0.0, 1e-300])).tolist() == [1.0, 1.0]


# ---------------------------------------------------------------- subsampling and privacy-loss distributions
@exercises("subsampled_gaussian_renyi", "subsampled_gaussian_epsilon")
class TestSubsampledRenyi:
    @pytest.mark.parametrize("sigma", [1e-3, 0.5, 1e4])
    @pytest.mark.parametrize("q", [1e-9, 0.01, 1.0 - 1e-9, 1.0])
    def test_curve_is_finite_and_below_the_gaussian(self, sigma, q):
        alphas = np.array([1.0 + 1e-6, 1.5, 2.0, 64.0, 1e4])
        curve = rdplib.subsampled_gaussian_renyi(alphas, sigma, q)
        assert finite(curve) and np.all(curve >= 0)
        gaussian = rdplib.gaussian_renyi(alphas, sigma)
        assert np.all(curve <= gaussian * (1 + 1e-9) + 1e-300)

    @pytest.mark.parametrize("delta", [TINY_DELTA, 1e-5, BIG_DELTA])
    def test_epsilon_after_many_steps_is_finite(self, delta):
        eps = rdplib.subsampled_gaussian_epsilon(1.0, 0.01, 10_000, delta)
        assert math.isfinite(eps) and eps >= 0

    def test_rejects_unrepresentable(self):
        raises_naming(ValueError, "sigma", lambda: rdplib.subsampled_gaussian_renyi(2.0, NAN, 0.1))
        raises_naming(ValueError, "sampling_rate", lambda: rdplib.subsampled_gaussian_renyi(2.0, 1.0, 0.0))
        raises_naming(ValueError, "alpha", lambda: rdplib.subsampled_gaussian_renyi(INF, 1.0, 0.1))


@exercises("PrivacyLossDistribution", "laplace_pld", "gaussian_pld", "subsampled_gaussian_pld")
class TestPrivacyLossDistributions:
    def test_huge_epsilon_gives_the_infinity_mass(self):
        for pld in (rdplib.laplace_pld(1.0), rdplib.gaussian_pld(1.0), rdplib.subsampled_gaussian_pld(1.0, 0.01)):
            composed = pld.self_compose(100)
            assert composed.delta(HUGE_EPS) == composed.infinity_mass <= 1e-12
            assert composed.delta(INF) == composed.infinity_mass

    def test_tiny_delta_is_finite_before_composition(self):
        for pld in (rdplib.laplace_pld(1.0), rdplib.gaussian_pld(1.0)):
            eps = pld.epsilon(TINY_DELTA)
            assert math.isfinite(eps) and eps > 0
        assert rdplib.laplace_pld(1.0).epsilon(TINY_DELTA) <= 1.0 + 1e-9  # pure ε = 1

    def test_ten_thousand_compositions(self):
        pld = rdplib.gaussian_pld(50.0).self_compose(10_000)
        exact = rdplib.gaussian_epsilon(1e-6, 50.0, 100.0)
        assert pld.epsilon(1e-6) == pytest.approx(exact, rel=1e-3)
        assert pld.epsilon(TINY_DELTA) == INF  # below the ∞-mass: no finite ε is certified

    @pytest.mark.parametrize("sigma", [1e-3, 1e4])
    def test_extreme_noise(self, sigma):
        step = 0.05 if sigma < 1 else 1e-4
        pld = rdplib.gaussian_pld(sigma, grid_step=step)
        delta = pld.delta(np.array([0.0, 1.0, HUGE_EPS]))
        assert finite(delta) and np.all((0 <= delta) & (delta <= 1))
        assert delta[0] == pytest.approx(rdplib.gaussian_delta(0.0, sigma), abs=1e-6)

    def test_rejects_unrepresentable(self):
        raises_naming(ValueError, "grid_step", lambda: rdplib.gaussian_pld(1e-3))  # needs too many grid points
        raises_naming(ValueError, "epsilon", lambda: rdplib.gaussian_pld(1.0).delta(NAN))
        raises_naming(ValueError, "scale", lambda: rdplib.laplace_pld(INF))


def test_every_public_name_is_exercised():
    missing = set(rdplib.__all__) - EXERCISED
    assert not missing, f"no extreme-value test for {sorted(missing)}"

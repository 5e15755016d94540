"""Unit and statistical tests of rdplib.mechanisms.

Every statistical test uses a fixed seed, so it is deterministic. Its tolerance is a
few standard errors wide (so the right constant passes with a wide margin) and far
narrower than the effect of a wrong constant: a Laplace scale off by a factor 2 or a
flip probability of 1/(1 + e^{ε/2}) instead of 1/(1 + e^ε) fails.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import rdplib
from rdplib import (
    clipped_mean,
    gaussian_mechanism,
    gaussian_sigma,
    geometric_mechanism,
    laplace_mechanism,
    randomized_response,
    rr_estimate,
    rr_flip_probability,
    rr_variance,
)

KS_LEVEL = 1e-3  # p-value below which a KS / chi-square test rejects


def flip_probability(epsilon: float) -> float:
    """Independent statement of the randomized-response flip probability."""
    return 1.0 / (1.0 + math.exp(epsilon))


# ---------------------------------------------------------------- randomized response
class TestRandomizedResponseUnit:
    @pytest.mark.parametrize("epsilon", [0.1, math.log(3), 1.0, 5.0])
    def test_flip_probability_value(self, epsilon):
        assert rr_flip_probability(epsilon) == pytest.approx(flip_probability(epsilon), rel=1e-15)

    def test_flip_probability_log3_is_a_quarter(self):
        assert rr_flip_probability(math.log(3)) == pytest.approx(0.25, abs=1e-15)

    @pytest.mark.parametrize("shape", [(), (7,), (3, 4), (2, 3, 5), (0,)])
    def test_shape_dtype_and_values(self, shape):
        bits = np.random.default_rng(0).integers(0, 2, size=shape)
        out = randomized_response(bits, 1.0, rng=1)
        assert isinstance(out, np.ndarray)
        assert out.shape == shape
        assert out.dtype == np.int8
        assert np.isin(out, [0, 1]).all()

    @pytest.mark.parametrize("dtype", [bool, np.int8, np.int32, np.int64, np.uint8, float, np.float32])
    def test_input_dtypes_agree(self, dtype):
        bits = np.random.default_rng(2).integers(0, 2, size=500)
        reference = randomized_response(bits.astype(np.int64), 0.7, rng=3)
        out = randomized_response(bits.astype(dtype), 0.7, rng=3)
        assert out.dtype == np.int8
        np.testing.assert_array_equal(out, reference)

    def test_list_input(self):
        out = randomized_response([0, 1, 1, 0], 2.0, rng=0)
        assert out.shape == (4,) and out.dtype == np.int8

    def test_does_not_modify_input(self):
        bits = np.array([0, 1, 1, 0, 1], dtype=np.int8)
        copy = bits.copy()
        randomized_response(bits, 0.1, rng=0)
        np.testing.assert_array_equal(bits, copy)

    def test_huge_epsilon_is_almost_truthful(self):
        bits = np.random.default_rng(0).integers(0, 2, size=10_000)
        np.testing.assert_array_equal(randomized_response(bits, 50.0, rng=0), bits)

    def test_rng_contract(self, check_rng_contract):
        bits = np.random.default_rng(0).integers(0, 2, size=200)
        check_rng_contract(lambda rng: randomized_response(bits, 1.0, rng=rng))

    def test_rr_estimate_exact_values(self):
        q = flip_probability(1.0)
        # Half ones: (0.5 - q) / (1 - 2q) = 0.5 exactly, whatever q.
        assert rr_estimate([0, 1] * 10, 1.0) == pytest.approx(0.5, abs=1e-15)
        assert rr_estimate([1, 1, 1, 1], 1.0) == pytest.approx((1 - q) / (1 - 2 * q), rel=1e-14)
        assert rr_estimate([0, 0, 0], 1.0) == pytest.approx(-q / (1 - 2 * q), rel=1e-14)
        assert isinstance(rr_estimate([0, 1], 1.0), float)

    def test_rr_estimate_axis(self):
        noisy = np.array([[1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]])
        rows = rr_estimate(noisy, 0.5, axis=1)
        assert rows.shape == (3,)
        for row, est in zip(noisy, rows, strict=True):
            assert est == pytest.approx(rr_estimate(row, 0.5), rel=1e-14)
        assert rr_estimate(noisy, 0.5, axis=0).shape == (4,)

    def test_rr_variance_formula(self):
        p, n, eps = 0.3, 250, 0.8
        expected = (p * (1 - p) + math.exp(eps) / (math.exp(eps) - 1) ** 2) / n
        assert rr_variance(p, n, eps) == pytest.approx(expected, rel=1e-14)
        q = flip_probability(eps)  # the price of privacy is q(1-q)/(1-2q)^2
        assert rr_variance(0.0, 1, eps) == pytest.approx(q * (1 - q) / (1 - 2 * q) ** 2, rel=1e-12)

    def test_rr_variance_vectorised(self):
        out = rr_variance(np.array([0.1, 0.5]), np.array([[10], [100]]), 1.0)
        assert out.shape == (2, 2)
        assert out[1, 0] == pytest.approx(rr_variance(0.1, 100, 1.0))


class TestRandomizedResponseStatistics:
    @pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
    def test_flip_rates_binomial_bound(self, epsilon):
        n = 100_000
        q = flip_probability(epsilon)
        tolerance = 5.0 * math.sqrt(n * q * (1 - q))  # 5 binomial standard deviations
        # a flip probability of 1/(1+e^{ε/2}) is > 20 standard deviations away
        assert n * abs(q - flip_probability(epsilon / 2)) > 4 * tolerance
        from_ones = randomized_response(np.ones(n, dtype=int), epsilon, rng=11)
        from_zeros = randomized_response(np.zeros(n, dtype=int), epsilon, rng=12)
        assert abs(np.sum(from_ones == 0) - n * q) < tolerance
        assert abs(np.sum(from_zeros == 1) - n * q) < tolerance

    def test_flip_rates_scipy_binomtest(self):
        n, epsilon = 50_000, math.log(3)
        flips = np.sum(randomized_response(np.ones(n, dtype=int), epsilon, rng=5) == 0)
        assert stats.binomtest(int(flips), n, 0.25).pvalue > KS_LEVEL

    def test_flips_are_independent_of_position(self):
        bits = np.ones((400, 250), dtype=int)
        flips = 1 - randomized_response(bits, 1.0, rng=8)
        q = flip_probability(1.0)
        per_column = flips.mean(axis=0)
        assert abs(per_column.mean() - q) < 4 * math.sqrt(q * (1 - q) / flips.size)
        # column rates scatter as Binomial(400, q)/400 would
        chi2 = np.sum((per_column - q) ** 2 / (q * (1 - q) / 400))
        assert stats.chi2.sf(chi2, df=per_column.size) > KS_LEVEL

    def test_rr_estimate_unbiased_with_rr_variance(self):
        p, n, epsilon, surveys = 0.3, 500, 1.0, 4_000
        rng = np.random.default_rng(2024)
        truth = rng.random((surveys, n)) < p  # Bernoulli(p) respondents
        estimates = rr_estimate(randomized_response(truth, epsilon, rng=rng), epsilon, axis=1)
        variance = rr_variance(p, n, epsilon)
        assert abs(estimates.mean() - p) < 5 * math.sqrt(variance / surveys)
        # sample variance of `surveys` draws: relative standard error sqrt(2/surveys) ~ 2.2 %
        assert estimates.var(ddof=1) / variance == pytest.approx(1.0, abs=0.1)


# ---------------------------------------------------------------- Laplace
class TestLaplaceUnit:
    def test_scalar_returns_float(self):
        out = laplace_mechanism(3.0, 1.0, 1.0, rng=0)
        assert isinstance(out, float)
        assert isinstance(laplace_mechanism(3, 1, 1, rng=0), float)

    @pytest.mark.parametrize("shape", [(1,), (5,), (2, 3)])
    def test_array_shape_dtype(self, shape):
        out = laplace_mechanism(np.zeros(shape, dtype=int), 2.0, 0.5, rng=0)
        assert out.shape == shape and out.dtype == np.float64

    def test_noise_is_added_to_value(self):
        values = np.arange(10.0)
        a = laplace_mechanism(values, 1.0, 1.0, rng=3)
        b = laplace_mechanism(np.zeros(10), 1.0, 1.0, rng=3)
        np.testing.assert_allclose(a - values, b, atol=1e-12)

    def test_matches_numpy_laplace_stream(self):
        expected = np.random.default_rng(4).laplace(0.0, 2.0 / 0.5, size=6)
        np.testing.assert_array_equal(laplace_mechanism(np.zeros(6), 2.0, 0.5, rng=4), expected)

    def test_rng_contract(self, check_rng_contract):
        check_rng_contract(lambda rng: laplace_mechanism(np.zeros(50), 1.0, 1.0, rng=rng))
        check_rng_contract(lambda rng: laplace_mechanism(0.0, 1.0, 1.0, rng=rng))


class TestLaplaceStatistics:
    @pytest.mark.parametrize(
        ("sensitivity", "epsilon", "seed"), [(1.0, 1.0, 1), (2.0, 0.5, 2), (0.1, 3.0, 3)]
    )
    def test_ks_against_scipy_laplace(self, sensitivity, epsilon, seed):
        noise = laplace_mechanism(np.full(20_000, 3.0), sensitivity, epsilon, rng=seed) - 3.0
        scale = sensitivity / epsilon
        assert stats.kstest(noise, stats.laplace(scale=scale).cdf).pvalue > KS_LEVEL
        # the same sample is decisively rejected by the wrong scales
        assert stats.kstest(noise, stats.laplace(scale=2 * scale).cdf).pvalue < 1e-12
        assert stats.kstest(noise, stats.laplace(scale=scale / 2).cdf).pvalue < 1e-12

    @pytest.mark.parametrize("n", [20, 100, 500])
    def test_bernoulli_mean_mse_claim_3_3(self, n):
        """Lecture 001, Claim 3.3: E[(p - p~)^2] = p(1-p)/n + 2/(ε² n²)."""
        p, epsilon, reps = 0.3, 0.5, 40_000
        rng = np.random.default_rng(33 + n)
        sums = rng.binomial(n, p, size=reps)  # true count of ones in each data set
        estimates = laplace_mechanism(sums, 1.0, epsilon, rng=rng) / n
        mse = np.mean((estimates - p) ** 2)
        claim = p * (1 - p) / n + 2.0 / (epsilon**2 * n**2)
        assert mse / claim == pytest.approx(1.0, abs=0.06)


# ---------------------------------------------------------------- geometric
class TestGeometricUnit:
    def test_scalar_returns_int(self):
        out = geometric_mechanism(5, 1, 1.0, rng=0)
        assert isinstance(out, int)
        assert isinstance(geometric_mechanism(5.0, 1, 1.0, rng=0), int)

    @pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16, float, bool])
    def test_array_is_int64_and_dtype_independent(self, dtype):
        values = np.array([0, 1, 1, 0, 1, 0])
        out = geometric_mechanism(values.astype(dtype), 2, 1.0, rng=9)
        assert out.dtype == np.int64 and out.shape == values.shape
        np.testing.assert_array_equal(out, geometric_mechanism(values, 2, 1.0, rng=9))

    def test_no_overflow_of_small_integer_types(self):
        out = geometric_mechanism(np.full(1_000, 127, dtype=np.int8), 1, 0.1, rng=0)
        assert out.dtype == np.int64 and out.max() > 127

    def test_noise_is_integer_and_symmetric_difference(self):
        values = np.arange(-5, 5)
        noisy = geometric_mechanism(values, 1, 0.3, rng=1)
        zero = geometric_mechanism(np.zeros(10, dtype=int), 1, 0.3, rng=1)
        np.testing.assert_array_equal(noisy - values, zero)

    def test_rng_contract(self, check_rng_contract):
        check_rng_contract(lambda rng: geometric_mechanism(np.zeros(100, dtype=int), 1, 0.5, rng=rng))
        # scalar input: compare a few draws (a single discrete draw may repeat by chance)
        check_rng_contract(
            lambda rng: np.array([geometric_mechanism(0, 1, 0.2, rng=g) for g in [rdplib._validation.as_rng(rng)] * 8])
        )


class TestGeometricStatistics:
    @pytest.mark.parametrize(
        ("sensitivity", "epsilon", "seed"), [(1, math.log(2), 1), (3, 1.5, 2), (1, 2.0, 3)]
    )
    def test_chi_square_against_discrete_laplace(self, sensitivity, epsilon, seed):
        num = 100_000
        noise = geometric_mechanism(np.zeros(num, dtype=int), sensitivity, epsilon, rng=seed)

        def chi_square_pvalue(a: float) -> float:
            dist = stats.dlaplace(a)  # pmf tanh(a/2) exp(-a|d|)
            limit = int(dist.isf(50 / num))  # tail cells expect >= ~50 draws
            edges = np.arange(-limit, limit + 1)
            observed = np.array(
                [np.sum(noise < -limit)] + [np.sum(noise == d) for d in edges] + [np.sum(noise > limit)]
            )
            expected = num * np.concatenate([[dist.cdf(-limit - 1)], dist.pmf(edges), [dist.sf(limit)]])
            return stats.chisquare(observed, expected).pvalue

        assert chi_square_pvalue(epsilon / sensitivity) > KS_LEVEL
        assert chi_square_pvalue(epsilon / (2 * sensitivity)) < 1e-12  # scale 2x too large
        assert chi_square_pvalue(2 * epsilon / sensitivity) < 1e-12  # scale 2x too small

    def test_ln2_zero_probability(self):
        """With a = 1/2 the noise is 0 with probability (1 - a)/(1 + a) = 1/3."""
        noise = geometric_mechanism(np.zeros(90_000, dtype=int), 1, math.log(2), rng=4)
        assert abs(np.mean(noise == 0) - 1 / 3) < 5 * math.sqrt((1 / 3) * (2 / 3) / 90_000)


# ---------------------------------------------------------------- Gaussian
class TestGaussian:
    def test_classic_sigma_formula(self):
        for sens, eps, delta in [(1.0, 0.5, 1e-5), (2.5, 0.9, 1e-3), (0.1, 0.1, 0.2)]:
            expected = sens * math.sqrt(2 * math.log(1.25 / delta)) / eps
            assert gaussian_sigma(sens, eps, delta, method="classic") == pytest.approx(expected, rel=1e-14)

    @pytest.mark.parametrize(("eps", "delta"), [(0.5, 1e-5), (1.0, 1e-6), (3.0, 1e-3)])
    def test_analytic_sigma_solves_balle_wang(self, eps, delta):
        sigma = gaussian_sigma(1.0, eps, delta, method="analytic")
        a, b = 1 / (2 * sigma), eps * sigma

        def tight_delta(s):
            return stats.norm.cdf(1 / (2 * s) - eps * s) - math.exp(eps) * stats.norm.cdf(-1 / (2 * s) - eps * s)

        assert tight_delta(sigma) == pytest.approx(delta, rel=1e-6)
        assert tight_delta(0.99 * sigma) > delta  # smaller noise would break (ε, δ)
        assert a > 0 and b > 0
        if eps < 1:
            assert sigma < gaussian_sigma(1.0, eps, delta, method="classic")  # analytic is tighter

    def test_default_is_the_analytic_calibration(self):
        """The book (the Gaussian chapter) recommends the exact calibration, so it is the default."""
        assert gaussian_sigma(1.0, 0.5, 1e-5) == gaussian_sigma(1.0, 0.5, 1e-5, method="analytic")
        assert gaussian_sigma(1.0, 2.0, 1e-5) > 0  # valid for epsilon >= 1 too
        noise = gaussian_mechanism(np.zeros(5), 1.0, 0.5, 1e-5, rng=3)
        assert np.array_equal(noise, gaussian_mechanism(np.zeros(5), 1.0, 0.5, 1e-5, rng=3, method="analytic"))

    def test_analytic_scales_with_sensitivity(self):
        assert gaussian_sigma(3.0, 0.7, 1e-5, method="analytic") == pytest.approx(
            3.0 * gaussian_sigma(1.0, 0.7, 1e-5, method="analytic"), rel=1e-8
        )

    def test_shapes_and_types(self):
        assert isinstance(gaussian_mechanism(1.0, 1.0, 0.5, 1e-5, rng=0), float)
        out = gaussian_mechanism(np.zeros((3, 2)), 1.0, 0.5, 1e-5, rng=0)
        assert out.shape == (3, 2) and out.dtype == np.float64

    def test_rng_contract(self, check_rng_contract):
        check_rng_contract(lambda rng: gaussian_mechanism(np.zeros(20), 1.0, 0.5, 1e-5, rng=rng))

    @pytest.mark.parametrize("method", ["classic", "analytic"])
    def test_std_matches_gaussian_sigma(self, method):
        sigma = gaussian_sigma(2.0, 0.5, 1e-5, method=method)
        noise = gaussian_mechanism(np.zeros(40_000), 2.0, 0.5, 1e-5, rng=77, method=method)
        # relative standard error of a sample std: 1/sqrt(2 * 40000) ~ 0.35 %
        assert np.std(noise) / sigma == pytest.approx(1.0, abs=0.02)
        assert stats.kstest(noise, stats.norm(scale=sigma).cdf).pvalue > KS_LEVEL


# ---------------------------------------------------------------- clipped mean
class TestClippedMean:
    def test_returns_float_near_clipped_mean(self):
        x = np.linspace(-50.0, 150.0, 201)
        est = clipped_mean(x, 0.0, 100.0, epsilon=1e6, rng=0)
        assert isinstance(est, float)
        assert est == pytest.approx(np.clip(x, 0, 100).mean(), abs=1e-3)

    def test_clipping_bias(self):
        x = np.full(1_000, 200.0)  # all beyond the upper bound
        assert clipped_mean(x, 0.0, 100.0, epsilon=1e6, rng=0) == pytest.approx(100.0, abs=1e-3)

    def test_rng_contract(self, check_rng_contract):
        check_rng_contract(lambda rng: clipped_mean(np.arange(10.0), 0.0, 5.0, 1.0, rng=rng))

    def test_noise_scale(self):
        x = np.linspace(-50.0, 150.0, 200)
        lower, upper, epsilon = 0.0, 100.0, 0.5
        truth = np.clip(x, lower, upper).mean()
        scale = (upper - lower) / (x.size * epsilon)  # = 1.0
        rng = np.random.default_rng(99)
        draws = np.array([clipped_mean(x, lower, upper, epsilon, rng=rng) for _ in range(3_000)])
        assert stats.kstest(draws - truth, stats.laplace(scale=scale).cdf).pvalue > KS_LEVEL
        assert stats.kstest(draws - truth, stats.laplace(scale=2 * scale).cdf).pvalue < 1e-9
        assert stats.kstest(draws - truth, stats.laplace(scale=scale / 2).cdf).pvalue < 1e-9


def test_mechanisms_are_reexported():
    for name in rdplib.mechanisms.__all__:
        assert getattr(rdplib, name) is getattr(rdplib.mechanisms, name)


# --- the exact privacy curve of the Gaussian mechanism ---------------------------------


def test_gaussian_delta_docstring_value_and_calibration():
    sigma = rdplib.gaussian_sigma(1.0, 0.5, 1e-5, method="analytic")
    assert rdplib.gaussian_delta(0.5, sigma) == pytest.approx(1e-5, rel=1e-6)
    assert rdplib.gaussian_delta(0.5, 1.0) == pytest.approx(0.2384217, rel=1e-6)


def test_gaussian_delta_group_bound_by_the_chain():
    """k records changed: the shift is k; the exact δ is at most the group-privacy chain."""
    sigma = rdplib.gaussian_sigma(1.0, 0.5, 1e-5, method="analytic")
    for k in range(2, 7):
        chain = 1e-5 * (math.exp(0.5 * k) - 1) / (math.exp(0.5) - 1)
        assert rdplib.gaussian_delta(0.5 * k, sigma, shift=k) <= chain


def test_gaussian_delta_against_simulation():
    """δ(ε) = P0[L > ε] - e^ε P1[L > ε], estimated from samples under both inputs."""
    rng = np.random.default_rng(8)
    sigma, eps = 1.0, 0.5
    y0 = rng.normal(0.0, sigma, 1_000_000)
    y1 = rng.normal(1.0, sigma, 1_000_000)
    loss = lambda y: (1.0 - 2.0 * y) / (2.0 * sigma**2)  # noqa: E731
    sim = np.mean(loss(y0) > eps) - math.exp(eps) * np.mean(loss(y1) > eps)
    # sd of the estimate is below 0.001; a wrong constant moves δ by far more
    assert abs(sim - rdplib.gaussian_delta(eps, sigma)) < 0.003
    assert abs(rdplib.gaussian_delta(eps, sigma / 2) - rdplib.gaussian_delta(eps, sigma)) > 0.1


@pytest.mark.parametrize(
    "kwargs, message",
    [({"epsilon": -1.0, "sigma": 1.0}, "epsilon"), ({"epsilon": 1.0, "sigma": 0.0}, "sigma"),
     ({"epsilon": 1.0, "sigma": 1.0, "shift": 0.0}, "shift")],
)
def test_gaussian_delta_errors_name_the_parameter(kwargs, message):
    with pytest.raises(ValueError, match=message):
        rdplib.gaussian_delta(**kwargs)


# --- tiny epsilon and tiny delta: the two normal probabilities nearly cancel -----------


def _gaussian_delta_lemma(epsilon: float, sigma: float) -> float:
    """Independent δ(ε) for N(0, σ²) against N(1, σ²): E[(1 - e^(ε - L))_+] as the integral
    of a positive function (no cancellation). With mu = 1/σ and a = mu/2 - ε/mu,
    δ = ∫_0^∞ φ(a - s) (1 - e^(-mu s)) ds."""
    from scipy import integrate

    mu = 1.0 / sigma
    a = mu / 2.0 - epsilon / mu
    c = max(a, 0.0)  # the integrand peaks at s = c; outside c ± 40 it is below e^-800 of the peak

    def integrand(s):
        return math.exp(-((s - c) ** 2) / 2.0 + (a - c) * s) * -math.expm1(-mu * s)

    value, _ = integrate.quad(integrand, max(c - 40.0, 0.0), c + 40.0, points=[c] if c > 0 else None,
                              epsabs=0.0, epsrel=1e-12, limit=200)
    return math.exp(-(a - c) * (a + c) / 2.0) / math.sqrt(2.0 * math.pi) * value


def _gaussian_delta_mp(epsilon: float, sigma: float) -> float:
    """The closed form in 400-digit arithmetic (enough for δ down to 1e-300 at any σ used here)."""
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(400):
        eps, sig = mpmath.mpf(epsilon), mpmath.mpf(sigma)
        u, v = 1 / (2 * sig), eps * sig
        return float(mpmath.ncdf(u - v) - mpmath.exp(eps) * mpmath.ncdf(-u - v))


@pytest.mark.parametrize("eps", [1e-12, 1e-9, 1e-6])
@pytest.mark.parametrize("delta", [1e-300, 1e-50, 1e-20, 1e-5])
def test_gaussian_sigma_meets_delta_at_tiny_epsilon(eps, delta):
    """The true δ of the returned σ (two independent computations) is the target: not
    above it beyond rounding, and 1 % less noise breaks it. Before the fix, the difference
    log Φ(a) - log Φ(b) cancelled here: at (1e-12, 1e-300) the true δ was 2.6e263 x the target."""
    sigma = gaussian_sigma(1.0, eps, delta)
    for true_delta in (_gaussian_delta_mp(eps, sigma), _gaussian_delta_lemma(eps, sigma)):
        assert 1 - 1e-6 < true_delta / delta <= 1 + 1e-9
    assert _gaussian_delta_lemma(eps, 0.99 * sigma) > delta


def test_gaussian_sigma_refuses_epsilon_zero():
    with pytest.raises(ValueError, match="^epsilon"):
        gaussian_sigma(1.0, 0.0, 1e-5)


@pytest.mark.parametrize("eps", [0.0, 1e-12, 1e-6, 0.5, 50.0])
@pytest.mark.parametrize("sigma", [0.3, 3.0, 1e3, 1e8, 1e15, 1e100])
def test_gaussian_delta_matches_independent_computations(eps, sigma):
    """Relative error of δ below 1e-10 wherever δ > 1e-300, also where σ is huge and ε tiny."""
    got = rdplib.gaussian_delta(eps, sigma)
    ref = _gaussian_delta_mp(eps, sigma)
    if ref > 1e-300:
        assert got == pytest.approx(ref, rel=1e-10)
        assert got == pytest.approx(_gaussian_delta_lemma(eps, sigma), rel=1e-9)
    else:
        assert 0.0 <= got <= 1e-299

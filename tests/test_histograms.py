"""Tests of rdplib.histograms: DP and RDP histograms, counts, the L1 loss.

The projection onto histograms has its own file, tests/test_projection.py.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import rdplib
from rdplib import (
    dp_histogram,
    histogram_counts,
    l1_loss,
    rdp_condition_holds,
    rdp_histogram,
)

KS_LEVEL = 1e-3


def laplace_ks(noise: np.ndarray, scale: float) -> float:
    return stats.kstest(np.ravel(noise), stats.laplace(scale=scale).cdf).pvalue


# ---------------------------------------------------------------- counts and condition
class TestHistogramCounts:
    def test_example(self):
        np.testing.assert_array_equal(histogram_counts([0, 2, 2, 1, 2], k=4), [1, 1, 3, 0])

    def test_empty_cells_and_dtype(self):
        out = histogram_counts(np.array([], dtype=int), k=3)
        assert out.dtype == np.int64 and out.tolist() == [0, 0, 0]

    @pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.uint64, float, np.float32])
    def test_label_dtypes_agree(self, dtype):
        cells = np.array([3, 0, 3, 1, 2, 3])
        out = histogram_counts(cells.astype(dtype), k=5)
        assert out.dtype == np.int64 and out.tolist() == [1, 1, 1, 3, 0]

    def test_matches_bincount(self):
        cells = np.random.default_rng(0).integers(0, 25, size=1_000)
        np.testing.assert_array_equal(histogram_counts(cells, 25), np.bincount(cells, minlength=25))


class TestRdpCondition:
    def test_examples(self):
        assert rdp_condition_holds(25, 500, 0.1) is True
        assert rdp_condition_holds(25, 200, 0.1) is False

    def test_boundary_is_inclusive(self):
        assert rdp_condition_holds(5, 40, 0.25) is True  # 2k = 10 = γn
        assert rdp_condition_holds(5, 39, 0.25) is False

    def test_boundary_exact_where_the_float_product_rounds_down(self):
        # 0.29 * 200 == 57.99999999999999 in floats; 2k = 58 = γn exactly
        assert 0.29 * 200 < 58
        assert rdp_condition_holds(29, 200, 0.29) is True
        assert rdp_condition_holds(30, 200, 0.29) is False
        assert rdp_condition_holds(29, 199, 0.29) is False

    def test_every_exact_boundary_on_a_grid(self):
        # γ = g/100 and n with γn an even integer: k = γn/2 holds, k + 1 does not
        for g in range(1, 100):
            gamma = g / 100
            for n in range(100, 2_001, 20):
                if (g * n) % 200 == 0:
                    k = g * n // 200
                    assert rdp_condition_holds(k, n, gamma), (k, n, gamma)
                    assert not rdp_condition_holds(k + 1, n, gamma), (k + 1, n, gamma)

    def test_computed_gamma_one_ulp_below_the_boundary(self):
        # Equal splits of a budget: the float quotient falls just below the value meant.
        assert 0.15 / 3 == 0.049999999999999996 and 0.3 / 3 == 0.09999999999999999
        assert rdp_condition_holds(400, 16_000, 0.15 / 3) is True  # 2k = 800 = n/20
        assert rdp_condition_holds(400, 15_999, 0.15 / 3) is False
        assert rdp_condition_holds(25, 500, 0.3 / 3) is True  # 2k = 50 = n/10
        assert rdp_condition_holds(25, 499, 0.3 / 3) is False
        gamma = 0.15 * 400 / 700  # 0.08571428571428572: 800 <= γ·9334 = 800.06, not γ·9333 = 799.97
        assert rdp_condition_holds(400, 9_334, gamma) and not rdp_condition_holds(400, 9_333, gamma)

    def test_fraction_and_decimal_gamma_are_exact(self):
        third = Fraction("0.15") / 3
        assert rdp_condition_holds(400, 16_000, third) is True
        assert rdp_condition_holds(400, 15_999, third) is False
        assert rdp_condition_holds(400, 16_000, Decimal("0.05")) is True
        assert rdp_condition_holds(401, 16_000, Decimal("0.05")) is False
        # no slack for an exact γ: 2k must not exceed γn by even 1/10**30
        assert rdp_condition_holds(1, 20, Fraction(1, 10) - Fraction(1, 10**30)) is False
        assert rdp_condition_holds(1, 20, Fraction(1, 10)) is True

    @pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1), Fraction(3, 2), Decimal("-0.1"),
                                       Decimal("NaN"), Decimal("Infinity"), Decimal("1")])
    def test_exact_gamma_out_of_range(self, gamma):
        with pytest.raises(ValueError, match="gamma"):
            rdp_condition_holds(1, 10, gamma)
        with pytest.raises(ValueError, match="gamma"):
            rdp_histogram([3, 0, 2], 1.0, gamma)

    def test_float_slack_never_exceeds_what_the_proof_needs(self):
        # The proof needs 2k <= γ(n+1) for the float γ passed. Near 10**17 the slack
        # 2**-50 γn would exceed the margin γ; the second test refuses such k.
        assert rdp_condition_holds(450_000_000_000_000, 10**17, 0.009) is False
        assert Fraction(2 * 450_000_000_000_000, 10**17 + 1) > Fraction(0.009)
        rng = np.random.default_rng(11)
        ns = np.concatenate([np.arange(1, 2_000), 10 ** rng.uniform(3, 18, size=400)]).astype(np.int64)
        for n in ns.tolist():
            for gamma in (rng.integers(1, 1_000) / 1_000, rng.uniform(0.001, 0.999)):
                top = int(Fraction(gamma) * n) // 2
                for k in (top, top + 1):
                    if k >= 1 and rdp_condition_holds(k, n, gamma):
                        assert 2 * k <= Fraction(gamma) * (n + 1), (k, n, gamma)

    def test_agrees_with_the_rule_in_rational_arithmetic(self):
        # The float fast path must give the same answer as the rule written out with Fractions.
        def rule(k, n, gamma):
            exact = Fraction(gamma)
            return 2 * k <= exact * n * (1 + Fraction(1, 2**50)) and 2 * k <= exact * (n + 1)

        rng = np.random.default_rng(12)
        for _ in range(3_000):
            n = int(10 ** rng.uniform(0, 17))
            gamma = float(rng.choice([rng.uniform(1e-6, 1), rng.integers(1, 100) / 100, 0.15 / 3]))
            centre = int(Fraction(gamma) * n) // 2
            for k in {max(1, centre + d) for d in (-1, 0, 1, 2)}:
                assert rdp_condition_holds(k, n, gamma) == rule(k, n, gamma), (k, n, gamma)

    def test_slack_is_a_few_ulps_only(self):
        # 2**-50 relative: 1 - 2**-53 passes as "1" at n = 2 (and 2k = 2 <= 3γ, so the proof holds),
        # but a γ 1e-12 below the boundary does not.
        assert rdp_condition_holds(1, 2, np.float64(1.0 - 1e-16)) is True
        assert Fraction(2) <= Fraction(np.float64(1.0 - 1e-16)) * 3
        assert rdp_condition_holds(400, 16_000, 0.05 - 1e-12) is False
        assert rdp_condition_holds(25, 500, np.nextafter(0.1, 0, dtype=np.float64)) is True
        below = 0.1 * (1 - 2.0**-48)  # about 32 ulps below 0.1
        assert rdp_condition_holds(25, 500, below) is False

    def test_rdp_histogram_takes_fraction_and_computed_gamma(self):
        counts = np.zeros(25, dtype=int)
        counts[[3, 9]] = [300, 200]  # k = 25, n = 500: 2k = 50 = γn at γ = 1/10
        for gamma in (0.3 / 3, Fraction(3, 10) / 3, Decimal("0.1")):
            z = rdp_histogram(counts, 1.0, gamma, rng=2, size=4, require_sparse=True)
            assert np.all(z[:, counts == 0] == 0.0) and np.all(z[:, counts > 0] != 0.0)
        with pytest.raises(ValueError, match="2k <= gamma"):
            rdp_histogram(counts[:-1].tolist() + [0, 0], 1.0, Fraction(1, 10), require_sparse=True)

    def test_rdp_histogram_uses_the_exact_condition(self):
        counts = np.zeros(29, dtype=int)
        counts[0] = 100  # k = 29, n = 100, γ = 0.58: 2k = 58 = γn, although 0.58 * 100 < 58 in floats
        z = rdp_histogram(counts, 1.0, 0.58, rng=0, size=5)
        assert np.all(z[:, 1:] == 0.0)
        assert rdp_histogram(counts, 1.0, 0.58, rng=0, require_sparse=True)[1:].tolist() == [0.0] * 28


# ---------------------------------------------------------------- DP histogram
class TestDpHistogram:
    counts = np.array([120, 80, 0, 0, 200])

    def test_shape_dtype(self):
        z = dp_histogram(self.counts, 1.0, rng=0)
        assert z.shape == (5,) and z.dtype == np.float64
        zs = dp_histogram(self.counts, 1.0, rng=0, size=7)
        assert zs.shape == (7, 5)

    def test_accepts_float_integer_counts_and_lists(self):
        a = dp_histogram(self.counts, 0.5, rng=4)
        np.testing.assert_array_equal(a, dp_histogram(self.counts.astype(float), 0.5, rng=4))
        np.testing.assert_array_equal(a, dp_histogram(self.counts.tolist(), 0.5, rng=4))

    def test_centred_on_proportions(self):
        z = dp_histogram(self.counts, 1e9, rng=0)
        np.testing.assert_allclose(z, self.counts / self.counts.sum(), atol=1e-7)

    def test_rng_contract(self, check_rng_contract):
        check_rng_contract(lambda rng: dp_histogram(self.counts, 1.0, rng=rng))
        check_rng_contract(lambda rng: dp_histogram(self.counts, 1.0, rng=rng, size=3))

    @pytest.mark.parametrize("epsilon", [0.8, 2.0])
    def test_noise_scale_two_over_n_epsilon(self, epsilon):
        n = self.counts.sum()
        z = dp_histogram(self.counts, epsilon, rng=21, size=4_000)
        noise = z - self.counts / n
        scale = 2.0 / (n * epsilon)
        assert laplace_ks(noise, scale) > KS_LEVEL
        assert laplace_ks(noise, 2 * scale) < 1e-12
        assert laplace_ks(noise, scale / 2) < 1e-12

    def test_cells_are_independent(self):
        noise = dp_histogram(self.counts, 1.0, rng=5, size=5_000) - self.counts / self.counts.sum()
        corr = np.corrcoef(noise.T)[np.triu_indices(5, 1)]
        assert np.all(np.abs(corr) < 5 / np.sqrt(5_000))


# ---------------------------------------------------------------- RDP histogram
class TestRdpHistogram:
    sparse_counts = np.array([250, 250, 0, 0, 0])  # k = 5, n = 500: 2k = 10 <= γn = 50

    def test_example(self):
        z = rdp_histogram(self.sparse_counts, epsilon=1.0, gamma=0.1, rng=0)
        assert z[2:].tolist() == [0.0, 0.0, 0.0]

    def test_shapes(self):
        assert rdp_histogram(self.sparse_counts, 1.0, 0.1, rng=0).shape == (5,)
        assert rdp_histogram(self.sparse_counts, 1.0, 0.1, rng=0, size=6).shape == (6, 5)

    def test_rng_contract(self, check_rng_contract):
        check_rng_contract(lambda rng: rdp_histogram(self.sparse_counts, 1.0, 0.1, rng=rng))
        check_rng_contract(lambda rng: rdp_histogram([3, 0, 2], 1.0, 0.1, rng=rng))

    @pytest.mark.parametrize("epsilon", [0.5, 1.0])
    def test_sparse_empty_cells_exactly_zero_and_others_laplace(self, epsilon):
        n = self.sparse_counts.sum()
        z = rdp_histogram(self.sparse_counts, epsilon, gamma=0.1, rng=31, size=5_000)
        assert np.all(z[:, 2:] == 0.0)  # exactly, no noise at all
        noise = z[:, :2] - 0.5
        scale = 2.0 / (n * epsilon)
        assert laplace_ks(noise, scale) > KS_LEVEL
        assert laplace_ks(noise, 2 * scale) < 1e-12

    def test_sparse_at_the_boundary(self):
        counts = np.array([20, 0, 20, 0, 0])  # k = 5, n = 40, γ = 0.25: 2k = γn = 10
        z = rdp_histogram(counts, 1.0, 0.25, rng=1, size=50)
        assert np.all(z[:, [1, 3, 4]] == 0.0)

    def test_fallback_adds_noise_everywhere(self):
        counts = np.array([30, 0, 0, 0, 20])  # n = 50, γn = 5 < 2k = 10
        assert not rdp_condition_holds(5, 50, 0.1)
        z = rdp_histogram(counts, 1.0, gamma=0.1, rng=41, size=4_000)
        assert np.all(z != 0.0)
        noise = z - counts / 50
        scale = 2.0 / (50 * 1.0)
        assert laplace_ks(noise, scale) > KS_LEVEL
        assert laplace_ks(noise[:, 1:4], scale) > KS_LEVEL  # empty cells get the same noise
        assert laplace_ks(noise, 2 * scale) < 1e-12

    def test_fallback_equals_dp_histogram(self):
        counts = [30, 0, 0, 0, 20]
        np.testing.assert_array_equal(
            rdp_histogram(counts, 1.0, 0.1, rng=3, size=4), dp_histogram(counts, 1.0, rng=3, size=4)
        )

    def test_nonempty_cells_match_dp_histogram_when_sparse(self):
        sparse = rdp_histogram(self.sparse_counts, 1.0, 0.1, rng=8, size=3)
        dense = dp_histogram(self.sparse_counts, 1.0, rng=8, size=3)
        np.testing.assert_array_equal(sparse[:, :2], dense[:, :2])

    def test_require_sparse(self):
        with pytest.raises(ValueError, match=r"gamma.*2k <= gamma\*n"):
            rdp_histogram([30, 0, 0, 0, 20], 1.0, 0.1, require_sparse=True)
        z = rdp_histogram(self.sparse_counts, 1.0, 0.1, rng=0, require_sparse=True)
        assert np.all(z[2:] == 0)


# ---------------------------------------------------------------- L1 loss
class TestL1Loss:
    def test_example(self):
        assert l1_loss([0.5, 0.5, 0.0], [0.4, 0.5, 0.1]) == pytest.approx(0.2, abs=1e-15)
        assert isinstance(l1_loss([1, 2], [1, 2]), float)

    def test_batched_and_broadcast(self):
        a = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
        b = np.array([0.5, 0.5])
        np.testing.assert_allclose(l1_loss(a, b), [1.0, 0.0, 1.0])
        np.testing.assert_allclose(l1_loss(b, a), [1.0, 0.0, 1.0])

    def test_metric_properties(self):
        rng = np.random.default_rng(0)
        a, b, c = rng.normal(size=(3, 10))
        assert l1_loss(a, a) == 0.0
        assert l1_loss(a, b) == pytest.approx(l1_loss(b, a))
        assert l1_loss(a, c) <= l1_loss(a, b) + l1_loss(b, c) + 1e-12


def test_histograms_are_reexported():
    for name in rdplib.histograms.__all__:
        assert getattr(rdplib, name) is getattr(rdplib.histograms, name)

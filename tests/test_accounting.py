"""Tests of rdplib.accounting: composition, group privacy and thresholding."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import rdplib
from rdplib import (
    basic_composition,
    group_privacy,
    threshold_delta,
    threshold_for_delta,
    thresholded_histogram,
)

HYPOTHESIS = settings(max_examples=150, deadline=None)

epsilons = st.floats(min_value=1e-3, max_value=10.0, allow_nan=False)
deltas = st.floats(min_value=0.0, max_value=1e-2, allow_nan=False)
budgets = st.lists(st.tuples(epsilons, deltas), min_size=1, max_size=12)


# ---------------------------------------------------------------- basic composition
class TestBasicComposition:
    def test_example(self):
        assert basic_composition([(0.5, 1e-6), (0.25, 0.0), (0.25, 1e-6)]) == (1.0, 2e-6)

    def test_single_budget_is_identity(self):
        assert basic_composition([(0.7, 1e-5)]) == (0.7, 1e-5)

    def test_returns_floats(self):
        eps, delta = basic_composition([(1, 0)])
        assert type(eps) is float and type(delta) is float

    def test_accepts_any_iterable(self):
        pairs = [(0.1, 1e-7), (0.2, 0.0), (0.3, 2e-7)]
        expected = basic_composition(pairs)
        assert basic_composition(iter(pairs)) == expected
        assert basic_composition(p for p in pairs) == expected
        assert basic_composition(tuple(pairs)) == expected
        assert basic_composition(np.array(pairs)) == expected

    def test_exact_sum_regardless_of_floating_point_order(self):
        # plain left-to-right summation gives 0.6000000000000001
        assert basic_composition([(0.1, 0), (0.2, 0), (0.3, 0)])[0] == 0.6

    @HYPOTHESIS
    @given(budgets)
    def test_additive(self, pairs):
        eps, delta = basic_composition(pairs)
        assert eps == math.fsum(e for e, _ in pairs)
        assert delta == math.fsum(d for _, d in pairs)
        assert eps == pytest.approx(sum(e for e, _ in pairs), rel=1e-12)

    @HYPOTHESIS
    @given(st.lists(st.tuples(epsilons, deltas), min_size=1, max_size=12).flatmap(
        lambda pairs: st.tuples(st.just(pairs), st.permutations(pairs))
    ))
    def test_order_independent(self, pair_and_permutation):
        pairs, permuted = pair_and_permutation
        assert basic_composition(permuted) == basic_composition(pairs)

    @HYPOTHESIS
    @given(budgets, budgets)
    def test_composing_compositions(self, first, second):
        whole = basic_composition(first + second)
        nested = basic_composition([basic_composition(first), basic_composition(second)])
        assert whole[0] == pytest.approx(nested[0], rel=1e-14)
        assert whole[1] == pytest.approx(nested[1], rel=1e-14, abs=1e-300)

    def test_budget_splitting(self):
        """Splitting ε into k equal parts composes back to ε."""
        for k in (1, 3, 7, 10):
            assert basic_composition([(1.0 / k, 0.0)] * k)[0] == pytest.approx(1.0, abs=1e-15)


# ---------------------------------------------------------------- group privacy
class TestGroupPrivacy:
    def test_formula_is_the_tight_chain(self):
        eps, delta = group_privacy(0.5, 1e-6, 3)
        assert eps == 1.5
        assert delta == pytest.approx((1 + math.exp(0.5) + math.exp(1.0)) * 1e-6, rel=1e-13)
        for e, d, k in [(0.1, 1e-8, 50), (2.0, 1e-9, 4), (1e-6, 1e-5, 1_000)]:
            chain = d * math.fsum(math.exp(i * e) for i in range(k))
            assert group_privacy(e, d, k)[1] == pytest.approx(chain, rel=1e-9)

    def test_chain_is_below_the_looser_bounds(self):
        for k in range(2, 8):
            delta = group_privacy(0.5, 1e-5, k)[1]
            assert delta < k * math.exp((k - 1) * 0.5) * 1e-5 < k * math.exp(k * 0.5) * 1e-5

    def test_recursion(self):
        """delta_k = e^eps delta_{k-1} + delta (the chain of neighbouring steps)."""
        eps, delta = 0.7, 1e-7
        for k in range(2, 20):
            previous = group_privacy(eps, delta, k - 1)[1]
            assert group_privacy(eps, delta, k)[1] == pytest.approx(math.exp(eps) * previous + delta, rel=1e-12)

    def test_pure_dp_stays_pure(self):
        assert group_privacy(0.3, 0.0, 10) == (pytest.approx(3.0), 0.0)

    def test_integer_like_k(self):
        assert group_privacy(0.5, 1e-6, 3.0) == group_privacy(0.5, 1e-6, np.int64(3))

    def test_huge_group_gives_delta_capped_at_one(self):
        eps, delta = group_privacy(1.0, 1e-6, 1_000)
        assert eps == 1_000.0 and delta == 1.0
        assert group_privacy(1e6, 1e-300, 10_000) == (1e10, 1.0)
        assert group_privacy(1.0, 0.0, 1_000) == (1_000.0, 0.0)

    @HYPOTHESIS
    @given(epsilons, st.floats(min_value=0.0, max_value=0.999, allow_nan=False))
    def test_k_one_is_identity(self, eps, delta):
        assert group_privacy(eps, delta, 1) == (eps, delta)

    @HYPOTHESIS
    @given(epsilons, deltas, st.integers(1, 300), st.integers(1, 300))
    def test_monotone_in_k(self, eps, delta, k1, k2):
        small, large = sorted((k1, k2))
        eps_small, delta_small = group_privacy(eps, delta, small)
        eps_large, delta_large = group_privacy(eps, delta, large)
        assert eps_small <= eps_large
        assert delta_small <= delta_large
        assert eps_large == pytest.approx(large * eps)


# ---------------------------------------------------------------- thresholds
class TestThresholdDelta:
    def test_six_tenths_of_a_percent_example(self):
        """Blog example: Laplace scale 1/ln 3, threshold 5: δ = 1/(2·3⁴) ≈ 0.6 %."""
        assert threshold_delta(5, math.log(3)) == pytest.approx(1 / 162, rel=1e-12)

    @pytest.mark.parametrize("threshold", [1.0, 1.5, 2.0, 5.0, 17.25])
    def test_matches_scipy_laplace_tail(self, threshold):
        eps = 0.8
        expected = stats.laplace(loc=1.0, scale=1 / eps).sf(threshold)
        assert threshold_delta(threshold, eps) == pytest.approx(expected, rel=1e-12)

    @pytest.mark.parametrize("threshold", [-3.0, 0.0, 0.5, 0.999])
    def test_below_one(self, threshold):
        eps = 1.3
        expected = 1 - 0.5 * math.exp(-eps * (1 - threshold))
        assert threshold_delta(threshold, eps) == pytest.approx(expected, rel=1e-12)

    def test_array_and_scalar_types(self):
        assert isinstance(threshold_delta(3, 1.0), float)
        out = threshold_delta(np.array([[1, 2], [3, 4]]), 1.0)
        assert out.shape == (2, 2)
        np.testing.assert_allclose(out, 0.5 * np.exp(-(np.array([[1, 2], [3, 4]]) - 1.0)))

    def test_extremes(self):
        assert threshold_delta(1e6, 1.0) == 0.0
        assert threshold_delta(-1e6, 1.0) == 1.0
        assert threshold_delta(1, 5.0) == 0.5

    @HYPOTHESIS
    @given(
        st.floats(-50, 200, allow_nan=False), st.floats(-50, 200, allow_nan=False), epsilons
    )
    def test_monotone_decreasing(self, t1, t2, eps):
        low, high = sorted((t1, t2))
        assert threshold_delta(low, eps) >= threshold_delta(high, eps)


class TestThresholdForDelta:
    def test_examples(self):
        assert threshold_for_delta(1 / 162, math.log(3)) == 5
        assert threshold_for_delta(1e-7, math.log(3)) == 16

    def test_returns_int(self):
        assert type(threshold_for_delta(1e-3, 1.0)) is int

    def test_million_users(self):
        """δ ≪ 1/n for n = 10⁶ users: T grows like ln(1/δ)/ε."""
        eps = math.log(3)
        for delta in (1e-7, 1e-8, 1e-9):
            t = threshold_for_delta(delta, eps)
            assert t == math.ceil(1 + math.log(1 / (2 * delta)) / eps)

    def test_subnormal_delta(self):
        """1/(2δ) overflows below δ ≈ 2.8e-309, but the threshold is small: no spurious error."""
        assert threshold_for_delta(5e-324, 1e6) == 2
        assert threshold_for_delta(1e-309, 1.0) == 712  # ½e^-710 = 2.2e-309 > δ >= ½e^-711
        for delta in (5e-324, 1e-320, 1e-309, 2.7e-309, 3e-309):
            for eps in (0.5, 1.0, 1e3):
                t = threshold_for_delta(delta, eps)
                assert threshold_delta(t, eps) <= delta < threshold_delta(t - 1, eps)
                assert t == math.ceil(1 + (-math.log(2) - math.log(delta)) / eps)

    @HYPOTHESIS
    @given(
        st.floats(min_value=1e-15, max_value=0.999, allow_nan=False),
        st.floats(min_value=0.01, max_value=20.0, allow_nan=False),
    )
    def test_smallest_integer_threshold(self, delta, eps):
        t = threshold_for_delta(delta, eps)
        assert isinstance(t, int)
        assert threshold_delta(t, eps) <= delta < threshold_delta(t - 1, eps)

    @HYPOTHESIS
    @given(st.integers(-20, 60), st.floats(min_value=0.05, max_value=5.0))
    def test_inverts_threshold_delta_at_integers(self, t, eps):
        delta = threshold_delta(t, eps)
        if 0 < delta < 1:
            assert threshold_for_delta(delta, eps) <= t


# ---------------------------------------------------------------- thresholded histogram
class TestThresholdedHistogram:
    def test_example(self):
        items = ["cat"] * 500 + ["dog"] * 300 + ["emu"]
        released = thresholded_histogram(items, math.log(3), threshold=5, rng=0)
        assert list(released) == ["cat", "dog"]
        assert all(type(v) is float for v in released.values())
        assert abs(released["cat"] - 500) < 50 and abs(released["dog"] - 300) < 50

    def test_keys_are_python_scalars_in_sorted_order(self):
        items = np.array([5, 3, 3, 9, 5, 5] * 100)
        released = thresholded_histogram(items, 1.0, threshold=10, rng=1)
        assert list(released) == [3, 5, 9]
        assert all(type(k) is int for k in released)

    def test_empty_items_release_nothing(self):
        assert thresholded_histogram([], 1.0, threshold=5, rng=0) == {}

    def test_absent_categories_are_never_released(self):
        released = thresholded_histogram(["a"] * 10, 1.0, threshold=-100.0, rng=0)
        assert list(released) == ["a"]

    def test_rng_contract(self, check_rng_contract):
        items = ["x"] * 50 + ["y"] * 20 + ["z"] * 3
        check_rng_contract(lambda rng: thresholded_histogram(items, 1.0, threshold=-1e9, rng=rng))

    @pytest.mark.parametrize(("threshold", "count"), [(2.0, 1), (5.0, 1), (1.0, 1), (5.0, 3)])
    def test_release_probability_is_threshold_delta(self, threshold, count):
        """A category held by `count` people survives w.p. P[count + Lap(1/ε) >= T]."""
        eps, categories = math.log(3), 200_000 // count
        items = np.repeat(np.arange(categories), count)
        released = thresholded_histogram(items, eps, threshold, rng=int(10 * threshold) + count)
        rate = len(released) / categories
        # for count = 1 this is threshold_delta itself; shift the threshold otherwise
        prob = threshold_delta(threshold - (count - 1), eps)
        assert abs(rate - prob) < 5 * math.sqrt(prob * (1 - prob) / categories)

    def test_noise_is_laplace_one_over_epsilon(self):
        eps = 0.7
        items = np.repeat(np.arange(5_000), 10)
        released = thresholded_histogram(items, eps, threshold=-1e9, rng=3)
        noise = np.array(list(released.values())) - 10
        assert noise.size == 5_000
        assert stats.kstest(noise, stats.laplace(scale=1 / eps).cdf).pvalue > 1e-3
        assert stats.kstest(noise, stats.laplace(scale=2 / eps).cdf).pvalue < 1e-12


def test_accounting_is_reexported():
    for name in rdplib.accounting.__all__:
        assert getattr(rdplib, name) is getattr(rdplib.accounting, name)

"""Tests of rdplib.quantile_scale, the data-dependent noise scale of the paper's Sec. 6."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rdplib import quantile_scale

HYPOTHESIS = settings(max_examples=60, deadline=None)
absdiff = lambda a, b: np.abs(a - b)  # noqa: E731


class TestQuantileScale:
    def test_contract_example(self):
        assert quantile_scale(np.arange(10.0), absdiff, 0.5) == 0.5

    def test_inverted_cdf_is_smallest_value_reaching_level(self):
        # pairs: |0-10|, |1-12|, |2-15|, |3-19| = 10, 11, 13, 16; n = 8
        x = np.array([0, 1, 2, 3, 10, 12, 15, 19.0])
        assert quantile_scale(x, absdiff, 0.5) == 11 / 8
        assert quantile_scale(x, absdiff, 0.51) == 13 / 8
        assert quantile_scale(x, absdiff, 0.99) == 16 / 8

    def test_odd_n_ignores_last_record(self):
        x = np.array([0.0, 1.0, 5.0, 7.0, 1e9])
        assert quantile_scale(x, absdiff, 0.99) == 6.0 / 5

    def test_statistical_coverage_of_a_fresh_pair(self):
        """s_n n is the q-quantile of |X - X'|: a fresh pair exceeds it with probability ~1 - q."""
        rng = np.random.default_rng(11)
        x = rng.normal(size=20_000)
        d = quantile_scale(x, absdiff, 0.9) * x.size
        # |X - X'| ~ |N(0, 2)|: its 0.9 quantile is sqrt(2) * 1.6449 = 2.326
        assert d == pytest.approx(math.sqrt(2) * 1.6448536, rel=0.03)

    def test_multivariate_records(self):
        x = np.zeros((4, 2))
        x[2:] = [3.0, 4.0]
        norm = lambda a, b: np.linalg.norm(a - b, axis=-1)  # noqa: E731
        assert quantile_scale(x, norm, 0.5) == 5.0 / 4

    @pytest.mark.parametrize("q", [0.0, 1.0, -0.1, 1.5, float("nan")])
    def test_bad_quantile(self, q):
        with pytest.raises(ValueError, match="quantile"):
            quantile_scale(np.arange(10.0), absdiff, q)

    def test_bad_inputs(self):
        with pytest.raises(ValueError, match="x"):
            quantile_scale([1.0], absdiff, 0.5)
        with pytest.raises(TypeError, match="h"):
            quantile_scale([1.0, 2.0], "abs", 0.5)
        with pytest.raises(ValueError, match="h"):
            quantile_scale([1.0, 2.0, 3.0, 4.0], lambda a, b: a - b - 10, 0.5)
        with pytest.raises(ValueError, match="finite"):
            quantile_scale([1.0, np.nan], absdiff, 0.5)

    @HYPOTHESIS
    @given(
        st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=40),
        st.floats(0.01, 0.99),
        st.floats(0.1, 10.0),
        st.floats(-100.0, 100.0),
    )
    def test_equivariance(self, values, q, factor, shift):
        x = np.array(values)
        s = quantile_scale(x, absdiff, q)
        assert s >= 0
        assert quantile_scale(factor * x + shift, absdiff, q) == pytest.approx(factor * s, rel=1e-9, abs=1e-9)


def test_quantile_rank_is_not_moved_by_floating_point():
    # 1 - 0.7 is 0.30000000000000004: the rank must still be ceil(0.3 * 10) = 3, as with 0.3
    x = np.arange(20.0)
    h = lambda a, b: np.abs(a - b)  # noqa: E731
    assert quantile_scale(x, h, 1 - 0.7) == quantile_scale(x, h, 0.3)
    for m in range(2, 60):
        x = np.random.default_rng(m).normal(size=2 * m)
        for quantile in (0.1, 0.3, 1 - 0.7, 0.5, 0.9, 1 - 0.1):
            values = np.sort(np.abs(x[:m] - x[m:]))
            rank = min(max(int(np.ceil(round(quantile * m, 9))), 1), m)
            assert quantile_scale(x, h, quantile) == values[rank - 1] / (2 * m)

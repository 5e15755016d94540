"""Tests of rdplib.datadep (paper Sec. 6), its plots and its explorer."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import erf

import rdplib
from rdplib.datadep import (
    abs_difference,
    clipped_means,
    dkw_bound,
    dkw_radius,
    ks_distance,
    laplace_privacy_slack,
    local_sensitivity_delta,
    lognormal_sampler,
    quantile_miss_bound,
    quantile_scale,
    quantile_scales,
    rdp_mean,
    scale_condition_failures,
    worst_case_slack,
)

HYPOTHESIS = settings(max_examples=60, deadline=None)
absdiff = lambda a, b: np.abs(a - b)  # noqa: E731


# ---------------------------------------------------------------- the scale
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

    def test_batch_matches_single(self):
        batch = np.random.default_rng(1).normal(size=(7, 101))
        single = [quantile_scale(row, absdiff, 0.9) for row in batch]
        np.testing.assert_allclose(quantile_scales(batch, 0.9), single)

    def test_multivariate_records(self):
        x = np.zeros((4, 2))
        x[2:] = [3.0, 4.0]
        norm = lambda a, b: np.linalg.norm(a - b, axis=-1)  # noqa: E731
        assert quantile_scale(x, norm, 0.5) == 5.0 / 4

    @pytest.mark.parametrize("q", [0.0, 1.0, -0.1, 1.5, float("nan")])
    def test_bad_quantile(self, q):
        with pytest.raises(ValueError, match="quantile"):
            quantile_scale(np.arange(10.0), absdiff, q)
        with pytest.raises(ValueError, match="quantile"):
            quantile_scales(np.ones((2, 10)), q)

    def test_bad_inputs(self):
        with pytest.raises(ValueError, match="x"):
            quantile_scale([1.0], absdiff, 0.5)
        with pytest.raises(TypeError, match="h"):
            quantile_scale([1.0, 2.0], "abs", 0.5)
        with pytest.raises(ValueError, match="h"):
            quantile_scale([1.0, 2.0, 3.0, 4.0], lambda a, b: a - b - 10, 0.5)
        with pytest.raises(ValueError, match="x"):
            quantile_scales(np.arange(5.0), 0.5)
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


# ---------------------------------------------------------------- the releases
class TestRdpMean:
    def test_noise_scale_is_two_s_over_epsilon(self):
        # identical rows: the release minus the mean is Lap(2 s / eps); E|L| = scale
        row = np.random.default_rng(2).normal(5.0, 2.0, 500)
        batch = np.tile(row, (40_000, 1))
        releases, scales = rdp_mean(batch, 0.5, 0.95, rng=3, return_scale=True)
        expected = 2 * scales[0] / 0.5
        assert np.all(scales == scales[0])
        mean_abs = np.mean(np.abs(releases - row.mean()))
        assert mean_abs == pytest.approx(expected, rel=0.03)  # a factor 2 would fail

    def test_single_dataset_returns_float(self):
        x = np.random.default_rng(0).normal(size=200)
        out = rdp_mean(x, 1.0, 0.99, rng=1)
        assert isinstance(out, float)

    def test_errors(self):
        with pytest.raises(ValueError, match="epsilon"):
            rdp_mean(np.ones(10), 0.0, 0.9)
        with pytest.raises(ValueError, match="x"):
            rdp_mean(np.ones((2, 2, 2)), 1.0, 0.9)

    def test_clipped_means_matches_contract_function(self):
        data = np.random.default_rng(4).lognormal(3.0, 1.0, size=(5, 300))
        batch = clipped_means(data, 0.0, 100.0, 1.0, rng=7)
        assert batch[0] == pytest.approx(rdplib.clipped_mean(data[0], 0.0, 100.0, 1.0, rng=7))

    def test_clipped_means_noise_scale(self):
        data = np.full((40_000, 200), 50.0)
        out = clipped_means(data, 0.0, 100.0, 2.0, rng=5)
        assert np.mean(np.abs(out - 50.0)) == pytest.approx(100.0 / (200 * 2.0), rel=0.03)

    def test_clipped_means_errors(self):
        with pytest.raises(ValueError, match="upper"):
            clipped_means(np.ones((2, 3)), 1.0, 1.0, 1.0)
        with pytest.raises(ValueError, match="x"):
            clipped_means(np.ones(3), 0.0, 1.0, 1.0)


# ---------------------------------------------------------------- DKW
class TestDkw:
    def test_bound_values(self):
        assert dkw_bound(500, 0.05) == pytest.approx(2 * math.exp(-2.5))
        assert dkw_bound(10, 0.0) == 1.0
        np.testing.assert_allclose(dkw_bound(200, np.array([0.1, 0.2])), 2 * np.exp(-400 * np.array([0.01, 0.04])))

    def test_radius_inverts_bound(self):
        t = dkw_radius(4_611, 0.05)
        assert dkw_bound(4_611, t) == pytest.approx(0.05)
        assert t == pytest.approx(0.02, abs=1e-5)

    def test_errors(self):
        with pytest.raises(ValueError, match="deviation"):
            dkw_bound(10, -0.1)
        with pytest.raises(ValueError, match="num_samples"):
            dkw_bound(0, 0.1)
        with pytest.raises(ValueError, match="probability"):
            dkw_radius(10, 1.0)

    def test_ks_distance_exact(self):
        assert ks_distance([0.1, 0.6], lambda t: np.clip(t, 0, 1)) == pytest.approx(0.4)
        assert ks_distance([0.5], lambda t: np.clip(t, 0, 1)) == pytest.approx(0.5)

    def test_simulated_tail_respects_massart_bound(self):
        rng = np.random.default_rng(11)
        m = 100
        x = rng.normal(size=(5_000, 2 * m))
        h = np.abs(x[:, :m] - x[:, m:])
        dist = ks_distance(h, lambda t: erf(t / 2))
        for t in (0.1, 0.13, 0.16):
            tail = np.mean(dist > t)
            assert tail <= dkw_bound(m, t) + 3 * math.sqrt(dkw_bound(m, t) / 5_000) + 1e-3
        # the bound is nearly tight: a constant 1 in front instead of 2 would fail
        assert np.mean(dist > 0.13) > 0.5 * dkw_bound(m, 0.13) + 0.005

    def test_quantile_miss_bound(self):
        assert quantile_miss_bound(1_000, 0.01) > 0.01
        assert quantile_miss_bound(10_000, 0.01) < quantile_miss_bound(1_000, 0.01)
        with pytest.raises(ValueError, match="miss"):
            quantile_miss_bound(100, 0.0)


# ---------------------------------------------------------------- conditions (10) and (11)
class TestScaleConditions:
    def test_failure_rate_near_exact_value(self):
        # one scale: P[fresh h > j-th order statistic of m] = 1 - j/(m+1); here m=100, j=99
        normal = lambda g, shape: g.normal(size=shape)  # noqa: E731
        res = scale_condition_failures(normal, 200, 0.99, 8_000, rng=0)
        one_scale = 1 - 99 / 101
        assert one_scale - 0.006 < res.fresh_failure_rate < one_scale + 0.015
        assert 0.005 < res.neighbour_failure_rate < 0.04

    def test_lower_quantile_fails_more(self):
        normal = lambda g, shape: g.normal(size=shape)  # noqa: E731
        res = scale_condition_failures(normal, 200, 0.9, 4_000, rng=1)
        assert 0.08 < res.fresh_failure_rate < 0.16

    def test_scale_rarely_moves_for_neighbours(self):
        res = scale_condition_failures(lognormal_sampler(40, 0.8), 1_000, 0.99, 1_000, rng=2)
        assert np.mean(res.log_ratio == 0) > 0.95
        assert res.scales.shape == (1_000,)

    def test_errors(self):
        with pytest.raises(TypeError, match="sampler"):
            scale_condition_failures(None, 10, 0.9, 10)
        with pytest.raises(ValueError, match="sampler"):
            scale_condition_failures(lambda g, s: np.zeros(3), 10, 0.9, 10)
        with pytest.raises(ValueError, match="num_trials"):
            scale_condition_failures(lambda g, s: g.normal(size=s), 10, 0.9, 0)

    def test_lognormal_sampler(self):
        draws = lognormal_sampler(40.0, 0.8)(np.random.default_rng(0), (200_000,))
        assert np.median(draws) == pytest.approx(40.0, rel=0.01)
        with pytest.raises(ValueError, match="sigma"):
            lognormal_sampler(40.0, 0.0)


# ---------------------------------------------------------------- eq. (9) and exact slack
class TestSlack:
    @pytest.mark.parametrize(
        "loc1, s1, loc2, s2, eps", [(0, 1.2, 0.5, 1, 1.0), (0, 1, 0, 1.3, 0.2), (0.3, 2, 0, 1.5, 0.5)]
    )
    def test_matches_numerical_integration(self, loc1, s1, loc2, s2, eps):
        z = np.linspace(-150, 150, 1_500_001)
        p = np.exp(-np.abs(z - loc1) / s1) / (2 * s1)
        q = np.exp(-np.abs(z - loc2) / s2) / (2 * s2)
        numeric = np.trapezoid(np.maximum(p - np.exp(eps) * q, 0), z)
        assert laplace_privacy_slack(loc1, s1, loc2, s2, eps) == pytest.approx(numeric, rel=1e-5, abs=1e-12)

    def test_equal_scales_pure_dp(self):
        assert laplace_privacy_slack(0.0, 1.0, 1.0, 1.0, 1.0) == 0.0
        assert laplace_privacy_slack(0.0, 1.0, 1.0, 1.0, 0.5) > 0.0

    def test_paper_bound_is_valid_and_loose(self):
        for beta in (0.05, 0.1, 0.2, 0.5):
            exact = worst_case_slack(0.5, beta)
            assert exact <= local_sensitivity_delta(0.5, beta)
            assert exact <= math.exp(-0.5 / beta) * 2  # behaves like e^{-eps/beta}

    def test_beta_zero(self):
        assert local_sensitivity_delta(1.0, 0.0) == 0.0
        assert worst_case_slack(1.0, 0.0) == 0.0
        with pytest.raises(ValueError, match="beta"):
            local_sensitivity_delta(1.0, -0.1)

    def test_errors(self):
        with pytest.raises(ValueError, match="scale1"):
            laplace_privacy_slack(0, 0, 0, 1, 1)
        with pytest.raises(ValueError, match="epsilon"):
            laplace_privacy_slack(0, 1, 0, 1, -1)

    def test_abs_difference(self):
        np.testing.assert_array_equal(abs_difference(np.array([1.0, 5.0]), np.array([4.0, 2.0])), [3.0, 3.0])


# ---------------------------------------------------------------- plots
def test_plots_return_axes():
    import matplotlib.pyplot as plt

    from rdplib.plotting import (
        plot_dkw_check,
        plot_mean_error_vs_n,
        plot_mean_release_errors,
        plot_scale_failures,
        plot_slack_vs_beta,
    )

    assert plot_dkw_check([0.1, 0.2], [0.1, 0.01], [0.2, 0.02]) is not None
    assert plot_slack_vs_beta([0.1, 0.2], [1e-3, 1e-2], [0.1, 0.2]) is not None
    assert plot_scale_failures([100, 200], {"a": [0.01, 0.02]}, bound=[0.5, 0.3], miss=0.01) is not None
    assert plot_mean_error_vs_n([100, 200], {"a": [1.0, 0.5]}) is not None
    assert plot_mean_release_errors(np.arange(10.0), np.arange(10.0) + 1, title="t") is not None
    plt.close("all")


# ---------------------------------------------------------------- explorer
class TestExplorer:
    def test_sliders_drive_results(self):
        from rdplib.widgets import SALARY_MEDIAN, SALARY_SIGMA, datadep_explorer

        ex = datadep_explorer(seed=3, num_datasets=200)
        ex.controls["epsilon"].value = 2.0
        ex.controls["n"].value = 600
        ex.controls["quantile"].value = 0.95
        ex.controls["upper"].value = 150.0
        # independent computation: the first draw of the seeded generator is the data
        data = np.random.default_rng(3).lognormal(np.log(SALARY_MEDIAN), SALARY_SIGMA, (200, 600))
        bias = np.mean(np.clip(data, 0.0, 150.0).mean(axis=1) - data.mean(axis=1))
        scales = [quantile_scale(row, absdiff, 0.95) for row in data]
        assert ex.results["clipping bias"] == pytest.approx(bias, rel=1e-12)
        assert ex.results["median scale s_n(X)"] == pytest.approx(np.median(scales), rel=1e-12)
        assert set(ex.results) == {
            "median scale s_n(X)", "RMSE, RDP mean", "RMSE, clipped mean", "clipping bias", "P[scale too small]",
        }
        assert "clipping bias" in ex.readout.value
        assert len(ex.figure.value) > 1_000

    def test_rmse_responds_to_epsilon(self):
        from rdplib.widgets import datadep_explorer

        ex = datadep_explorer(seed=0, num_datasets=200)
        before = ex.results["RMSE, RDP mean"]
        ex.controls["epsilon"].value = 4.0
        # same seed, same data and noise draws: the RDP noise is exactly scaled by 1/4
        assert ex.results["RMSE, RDP mean"] == pytest.approx(before / 4.0, rel=1e-9)

"""Tests of rdplib.accuracy (chapter 3) and the chapter-3 explorer."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import rdplib
from rdplib.accuracy import (
    clipped_mean_bias_variance,
    clipped_mean_mse,
    laplace_bernoulli_mean,
    laplace_mean_crossover_n,
    laplace_mean_mse,
    laplace_mean_mse_terms,
    laplace_mean_relative_rmse,
    simulate_clipped_mean,
    simulate_laplace_mean,
    simulated_crossover_n,
)
from rdplib.widgets import draw_laplace_mse, laplace_mse_explorer, laplace_mse_summary


def test_names_are_reexported():
    for name in ["laplace_bernoulli_mean", "laplace_mean_mse", "laplace_mean_crossover_n",
                 "clipped_mean_bias_variance", "simulate_clipped_mean"]:
        assert name in rdplib.__all__
        assert getattr(rdplib, name) is getattr(rdplib.accuracy, name)


# ---------------------------------------------------------------- the Bernoulli-mean mechanism


def test_bernoulli_mean_noise_scale_is_one_over_eps_n():
    bits = np.zeros((50_000, 40), dtype=np.int8)
    bits[:, :10] = 1  # every dataset has mean 0.25
    out = laplace_bernoulli_mean(bits, epsilon=0.5, rng=3)
    assert out.shape == (50_000,)
    assert out.mean() == pytest.approx(0.25, abs=0.002)
    # variance 2 / (eps n)^2 = 0.005; sd of the estimate about 1 % here.
    # A factor 2 in the scale would give 0.02 or 0.00125.
    assert out.var() == pytest.approx(2 / (0.5 * 40) ** 2, rel=0.05)
    # and the noise is Laplace, not Gaussian: mean |noise| = b = 1/(eps n)
    assert np.mean(np.abs(out - 0.25)) == pytest.approx(1 / (0.5 * 40), rel=0.03)


def test_bernoulli_mean_axis_and_scalar_output():
    bits = np.ones((3, 100), dtype=int)
    assert laplace_bernoulli_mean(bits.T, 1.0, axis=0, rng=0).shape == (3,)
    single = laplace_bernoulli_mean(np.ones(100, dtype=int), 1.0, rng=0)
    assert isinstance(single, float)


def test_bernoulli_mean_rng_contract(check_rng_contract):
    bits = np.ones((4, 10), dtype=int)
    check_rng_contract(lambda rng: laplace_bernoulli_mean(bits, 1.0, rng=rng))


def test_bernoulli_mean_is_the_laplace_mechanism_on_the_sum():
    bits = np.array([[1, 0, 1, 1], [0, 0, 0, 1]])
    ours = laplace_bernoulli_mean(bits, 0.7, rng=9)
    theirs = rdplib.laplace_mechanism(bits.sum(axis=1).astype(float), 1.0, 0.7, rng=9) / 4
    assert np.allclose(ours, theirs)


# ---------------------------------------------------------------- the MSE formula


def test_mse_terms_values_and_broadcasting():
    sampling, privacy = laplace_mean_mse_terms(0.3, 1_000, 0.1)
    assert sampling == pytest.approx(0.21 / 1_000)
    assert privacy == pytest.approx(2 / (0.01 * 1_000**2))
    n = np.array([10, 100, 1_000])
    s, p = laplace_mean_mse_terms(0.5, n, np.array([[1.0], [2.0]]))
    assert s.shape == p.shape == (2, 3)
    assert np.allclose(laplace_mean_mse(0.5, n, 1.0), 0.25 / n + 2 / n**2)


@pytest.mark.parametrize("p, epsilon", [(0.3, 0.1), (0.5, 1.0), (0.01, 0.5)])
def test_crossover_equates_the_terms(p, epsilon):
    n_star = laplace_mean_crossover_n(p, epsilon)
    assert p * (1 - p) / n_star == pytest.approx(2 / (epsilon**2 * n_star**2))


def test_crossover_known_values():
    assert laplace_mean_crossover_n(0.3, 0.1) == pytest.approx(952.38, abs=0.01)
    assert laplace_mean_crossover_n(0.5, 1.0) == pytest.approx(8.0)
    assert laplace_mean_crossover_n(0.001, 1.0) == pytest.approx(2002.0, abs=0.01)


def test_relative_rmse():
    assert laplace_mean_relative_rmse(0.01, 1_000, 1.0) == pytest.approx(
        np.sqrt(0.0099 / 1000 + 2e-6) / 0.01)


@pytest.mark.parametrize("n", [10, 100, 1_000, 10_000])
def test_simulated_mse_matches_formula_exactly(n):
    # 40,000 datasets: relative sd of an MSE estimate is at most ~1.6 %
    est = simulate_laplace_mean(0.3, n, 0.1, 40_000, rng=n)
    ratio = np.mean((est - 0.3) ** 2) / laplace_mean_mse(0.3, n, 0.1)
    assert ratio == pytest.approx(1.0, abs=0.06)


def test_simulated_privacy_term_alone():
    private, plain = simulate_laplace_mean(0.3, [50, 500], 0.2, 40_000, rng=1, return_sums=True)
    assert private.shape == plain.shape == (2, 40_000)
    noise_var = np.var(private - plain, axis=1)
    # 2 / (eps n)^2, the cost of privacy (a wrong factor 2 would be far outside 6 %)
    assert np.allclose(noise_var / (2 / (0.2 * np.array([50, 500])) ** 2), 1.0, atol=0.06)
    assert np.allclose(np.var(plain, axis=1) / (0.21 / np.array([50, 500])), 1.0, atol=0.06)


def test_simulate_rng_contract(check_rng_contract):
    check_rng_contract(lambda rng: simulate_laplace_mean(0.3, 20, 1.0, 5, rng=rng))


def test_simulated_crossover_recovers_formula():
    grid = np.round(np.geomspace(200, 5_000, 25)).astype(int)
    private, plain = simulate_laplace_mean(0.3, grid, 0.1, 20_000, rng=4, return_sums=True)
    n_star = simulated_crossover_n(grid, np.mean((private - 0.3) ** 2, axis=1),
                                   np.mean((plain - 0.3) ** 2, axis=1))
    assert n_star == pytest.approx(laplace_mean_crossover_n(0.3, 0.1), rel=0.08)


def test_simulated_crossover_exact_on_noiseless_curves():
    grid = np.geomspace(10, 10_000, 7)
    sampling = 0.21 / grid
    private = sampling + 2 / (0.01 * grid**2)
    assert simulated_crossover_n(grid, private, sampling) == pytest.approx(2 / (0.01 * 0.21))


# ---------------------------------------------------------------- clipping


@settings(max_examples=60, deadline=None)
@given(
    x=arrays(np.float64, st.integers(1, 40), elements=st.floats(-1e3, 1e3)),
    lower=st.floats(-1e3, 1e3),
    width=st.floats(1e-3, 2e3),
)
def test_bias_matches_direct_clipping(x, lower, width):
    upper = lower + width
    bias, var = clipped_mean_bias_variance(x, lower, upper, 0.5)
    assert bias == pytest.approx(np.clip(x, lower, upper).mean() - x.mean(), abs=1e-7)
    assert var == pytest.approx(2 * (width / (x.size * 0.5)) ** 2)


def test_bias_zero_when_bounds_cover_data_and_vectorised():
    x = np.array([1.0, 2.0, 7.0])
    bias, _ = clipped_mean_bias_variance(x, 0.0, np.array([3.0, 7.0, 100.0]), 1.0)
    assert np.array_equal(bias, np.array([-4 / 3, 0.0, 0.0]))
    assert clipped_mean_mse(x, 0.0, 100.0, 1.0) == pytest.approx(2 * (100 / 3) ** 2)


def test_clipping_tradeoff_has_interior_optimum():
    rng = np.random.default_rng(0)
    salaries = rng.lognormal(np.log(110_000), 0.5, 500)
    uppers = np.geomspace(30_000, 3_000_000, 400)
    mse = clipped_mean_mse(salaries, 0.0, uppers, 0.5)
    best = int(np.argmin(mse))
    assert 0 < best < uppers.size - 1
    assert np.median(salaries) < uppers[best] < salaries.max()


def test_simulate_clipped_mean_is_clipped_mean():
    x = np.array([10.0, 20.0, 30.0, 100.0])
    for seed in range(5):
        assert simulate_clipped_mean(x, 0, 50, 1.0, 1, rng=seed)[0] == pytest.approx(
            rdplib.clipped_mean(x, 0, 50, 1.0, rng=seed))
    draws = simulate_clipped_mean(x, 0, 50, 1.0, 100_000, rng=1)
    assert draws.mean() == pytest.approx(27.5, abs=0.15)
    assert draws.var() == pytest.approx(2 * (50 / 4) ** 2, rel=0.03)


def test_simulate_clipped_mean_rng_contract(check_rng_contract):
    check_rng_contract(lambda rng: simulate_clipped_mean([1.0, 2.0], 0, 5, 1.0, 3, rng=rng))


# ---------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: laplace_bernoulli_mean([0, 2, 1], 1.0), ValueError, "bits"),
        (lambda: laplace_bernoulli_mean([], 1.0), ValueError, "bits"),
        (lambda: laplace_bernoulli_mean([0, 1], 0.0), ValueError, "epsilon"),
        (lambda: laplace_bernoulli_mean([0, 1], float("nan")), ValueError, "epsilon"),
        (lambda: laplace_mean_mse(1.5, 10, 1.0), ValueError, "p"),
        (lambda: laplace_mean_mse(0.5, 0, 1.0), ValueError, "n"),
        (lambda: laplace_mean_mse(0.5, 10.5, 1.0), ValueError, "n"),
        (lambda: laplace_mean_mse(0.5, 10, -1.0), ValueError, "epsilon"),
        (lambda: laplace_mean_mse(float("nan"), 10, 1.0), ValueError, "p"),
        (lambda: laplace_mean_crossover_n(0.0, 1.0), ValueError, "p"),
        (lambda: laplace_mean_crossover_n(0.5, 0.0), ValueError, "epsilon"),
        (lambda: laplace_mean_relative_rmse(0.0, 10, 1.0), ValueError, "p"),
        (lambda: simulate_laplace_mean(0.5, 10, 1.0, 0), ValueError, "num_trials"),
        (lambda: simulate_laplace_mean(-0.1, 10, 1.0, 5), ValueError, "p"),
        (lambda: simulated_crossover_n([1, 2], [1.0], [1.0, 1.0]), ValueError, "equal length"),
        (lambda: simulated_crossover_n([2, 1], [3.0, 3.0], [1.0, 1.0]), ValueError, "n_grid"),
        (lambda: simulated_crossover_n([1, 2], [1.5, 1.2], [1.0, 1.0]), ValueError, "never crosses"),
        (lambda: clipped_mean_bias_variance([1.0, 2.0], 5.0, 1.0, 1.0), ValueError, "upper"),
        (lambda: clipped_mean_bias_variance([[1.0, 2.0]], 0.0, 1.0, 1.0), ValueError, "x"),
        (lambda: clipped_mean_bias_variance([1.0], 0.0, 1.0, 0.0), ValueError, "epsilon"),
        (lambda: simulate_clipped_mean([1.0], 0.0, 0.0, 1.0, 5), ValueError, "upper"),
        (lambda: simulate_clipped_mean([1.0], 0.0, 1.0, 1.0, 0), ValueError, "num_trials"),
        (lambda: simulate_clipped_mean(["a"], 0.0, 1.0, 1.0, 2), TypeError, "x"),
    ],
)
def test_bad_inputs_name_the_parameter(call, exc, words):
    with pytest.raises(exc, match=words):
        call()


# ---------------------------------------------------------------- explorer


def test_laplace_explorer_reacts_to_sliders():
    ex = laplace_mse_explorer(seed=2)
    assert ex.results["crossover n"] == pytest.approx(2 / 0.21)
    first_png = bytes(ex.figure.value)
    assert first_png.startswith(b"\x89PNG")

    ex.controls["epsilon"].value = 0.1
    ex.controls["n"].value = 1_000
    ex.controls["p"].value = 0.3
    sampling, privacy = 0.21 / 1_000, 2 / (0.01 * 1_000**2)
    assert ex.results["n (rounded)"] == 1_000
    assert ex.results["sampling error p(1-p)/n"] == pytest.approx(sampling)
    assert ex.results["cost of privacy 2/(ε²n²)"] == pytest.approx(privacy)
    assert ex.results["exact MSE"] == pytest.approx(sampling + privacy)
    assert ex.results["share of MSE due to privacy"] == pytest.approx(privacy / (sampling + privacy))
    assert ex.results["crossover n"] == pytest.approx(2 / (0.01 * 0.21))
    assert ex.results["relative RMSE √MSE/p"] == pytest.approx(np.sqrt(sampling + privacy) / 0.3)
    # the simulated MSE is the documented simulation with the explorer's seed
    releases = simulate_laplace_mean(0.3, 1_000, 0.1, 4_000, rng=2)
    assert ex.results["simulated MSE"] == pytest.approx(np.mean((releases - 0.3) ** 2))
    assert ex.results["simulated MSE"] == pytest.approx(sampling + privacy, rel=0.1)
    assert bytes(ex.figure.value) != first_png
    assert "crossover n: 952.4" in ex.readout_text()

    ex.controls["p"].value = 0.01
    assert ex.results["crossover n"] == pytest.approx(2 / (0.01 * 0.0099))


def test_summary_rounds_n_and_is_deterministic():
    a = laplace_mse_summary(1.0, 99.6, 0.3, seed=5)
    b = laplace_mse_summary(1.0, 100, 0.3, seed=5)
    assert a == b and a["n (rounded)"] == 100


def test_draw_laplace_mse_returns_axes():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    summary = laplace_mse_summary(1.0, 100, 0.3, num_trials=100)
    assert draw_laplace_mse(ax, summary, 1.0, 100, 0.3) is ax
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    plt.close(fig)

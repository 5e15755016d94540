"""Tests of the Part III histogram helpers (rdplib.rdp), their figures and explorers."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import rdplib  # noqa: E402
from rdplib import plotting  # noqa: E402
from rdplib.widgets import (  # noqa: E402
    dp_histogram_explorer,
    dp_histogram_simulation,
    rdp_histogram_explorer,
    rdp_histogram_simulation,
    uniform_counts,
)

# ---------------------------------------------------------------- probabilities, sampling


def test_check_probabilities_errors():
    with pytest.raises(ValueError, match="probabilities: entries must sum to 1"):
        rdplib.check_probabilities([0.5, 0.6])
    with pytest.raises(ValueError, match="probabilities: entries must be >= 0"):
        rdplib.check_probabilities([1.5, -0.5])
    with pytest.raises(ValueError, match="probabilities: must be one-dimensional"):
        rdplib.check_probabilities([[0.5, 0.5]])
    with pytest.raises(TypeError, match="probabilities"):
        rdplib.check_probabilities(["a", "b"])


def test_sample_histograms_shapes_and_mean():
    p = np.array([0.5, 0.3, 0.2, 0.0])
    counts = rdplib.sample_histograms(p, n=200, size=5_000, rng=0)
    assert counts.shape == (5_000, 4)
    assert np.all(counts.sum(axis=1) == 200)
    assert np.all(counts[:, 3] == 0)
    # mean count n p_j, standard error sqrt(n p (1-p) / reps) < 0.1
    assert np.allclose(counts.mean(axis=0), 200 * p, atol=0.5)
    single = rdplib.sample_histograms(p, n=10, rng=1)
    assert single.shape == (4,)
    with pytest.raises(ValueError, match="n: must be an integer >= 1"):
        rdplib.sample_histograms(p, n=0)
    with pytest.raises(ValueError, match="size"):
        rdplib.sample_histograms(p, n=10, size=0)


# ---------------------------------------------------------------- projections


def test_l1_projection_smallest_is_contract_projection():
    rng = np.random.default_rng(3)
    z = rng.normal(0.05, 0.1, size=(200, 20))
    assert np.array_equal(rdplib.l1_projection(z, 50), rdplib.project_to_histograms(z, 50))
    assert np.array_equal(rdplib.l1_projection(z, 50, ties="smallest"),
                          rdplib.project_to_histograms(z, 50))


def test_l1_projection_bad_ties():
    with pytest.raises(ValueError, match="ties: must be one of"):
        rdplib.l1_projection([0.5, 0.5], 2, ties="largest")


def test_l1_projection_proportional_known_case():
    # w = (3, 2.4, 2.1, -0.6): floors (3, 2, 2, 0) hold 7 > 6 units; remove one, from the largest share
    out = rdplib.l1_projection([0.5, 0.4, 0.35, -0.1], 6, ties="proportional")
    assert np.allclose(out * 6, [2, 2, 2, 0])
    smallest = rdplib.l1_projection([0.5, 0.4, 0.35, -0.1], 6, ties="smallest")
    assert np.allclose(smallest * 6, [3, 1, 2, 0])


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 7),
    values=st.lists(st.floats(-0.5, 1.5, allow_nan=False), min_size=1, max_size=4),
)
def test_both_tie_breaks_are_exact_minimisers(n, values):
    z = np.array(values)
    _, best = rdplib.all_l1_projections(z, n)
    for ties in ["smallest", "proportional"]:
        out = rdplib.l1_projection(z, n, ties=ties)
        counts = out * n
        assert np.allclose(counts, np.round(counts))
        assert np.all(counts >= -1e-9)
        assert np.isclose(counts.sum(), n)
        assert np.isclose(np.abs(z - out).sum(), best, atol=1e-9)


def test_l1_projection_batches_match_rows():
    rng = np.random.default_rng(4)
    z = rng.laplace(0.1, 0.2, size=(30, 10))
    batch = rdplib.l1_projection(z, 40, ties="proportional")
    rows = np.stack([rdplib.l1_projection(row, 40, ties="proportional") for row in z])
    assert np.array_equal(batch, rows)


def test_all_l1_projections_known_case_and_limit():
    best, distance = rdplib.all_l1_projections([0.75, 0.5, 0.0], n=4)
    assert best.tolist() == [[0.5, 0.5, 0.0], [0.75, 0.25, 0.0]]
    assert distance == pytest.approx(0.25)
    with pytest.raises(ValueError, match="n: brute force would enumerate"):
        rdplib.all_l1_projections(np.zeros(20), n=50)
    with pytest.raises(ValueError, match="z: must be one-dimensional"):
        rdplib.all_l1_projections(np.zeros((2, 2)), n=2)


# ---------------------------------------------------------------- risk simulations


def test_raw_dp_loss_matches_laplace_scale():
    # E||z - θ||₁ = k · 2/(nε) exactly: a factor-2 error in the scale would be far outside
    k, n, eps = 40, 1_000, 1.0
    losses = rdplib.histogram_losses(uniform_counts(n, k), eps, 20_000, project=False, rng=5)
    expected = k * 2 / (n * eps)
    assert losses.mean() == pytest.approx(expected, rel=0.02)


def test_raw_rdp_loss_only_from_occupied_cells():
    k, n, eps, r = 100, 5_000, 0.5, 3
    losses = rdplib.histogram_losses(uniform_counts(n, k, support=r), eps, 20_000, gamma=0.1,
                                     project=False, rng=6)
    assert losses.mean() == pytest.approx(r * 2 / (n * eps), rel=0.03)


def test_projected_dp_risk_linear_in_k():
    n, eps = 1_000, 1.0
    risk = [rdplib.histogram_risk(uniform_counts(n, k), eps, 3_000, rng=7) for k in [10, 50, 100]]
    slope, _ = rdplib.fit_slope([9, 49, 99], risk)
    # simulated slope is about 1.9/(εn); the bound's is 0.146/(εn)
    assert 1.6 / (eps * n) < slope < 2.1 / (eps * n)
    assert all(r > rdplib.minimax_lower_bound(k, n, eps) for r, k in zip(risk, [10, 50, 100], strict=True))


def test_rdp_risk_flat_in_k_and_dp_proportional_grows():
    n, eps, r = 5_000, 0.2, 4
    rdp_risk = [rdplib.histogram_risk(uniform_counts(n, k, r), eps, 1_000, gamma=0.1, rng=8)
                for k in [20, 250]]
    dp_risk = [rdplib.histogram_risk(uniform_counts(n, k, r), eps, 1_000, ties="proportional", rng=9)
               for k in [20, 250]]
    assert rdp_risk[1] < 1.2 * rdp_risk[0]
    assert dp_risk[1] > 8 * dp_risk[0]
    assert rdp_risk[1] < 4 * r / (eps * n)


def test_rdp_fallback_equals_dp_with_same_seed():
    counts = uniform_counts(400, 25, support=2)  # 2k = 50 > 0.1 * 400
    dp = rdplib.histogram_losses(counts, 0.2, 50, rng=11)
    rdp = rdplib.histogram_losses(counts, 0.2, 50, gamma=0.1, rng=11)
    assert np.array_equal(dp, rdp)


def test_histogram_losses_errors():
    with pytest.raises(ValueError, match="num_reps"):
        rdplib.histogram_losses([1, 2], 1.0, 0)
    with pytest.raises(ValueError, match="epsilon"):
        rdplib.histogram_losses([1, 2], -1.0, 5)
    with pytest.raises(ValueError, match="gamma"):
        rdplib.histogram_losses([1, 2], 1.0, 5, gamma=1.5)
    with pytest.raises(ValueError, match="ties"):
        rdplib.histogram_losses([1, 2], 1.0, 5, ties="random")
    with pytest.raises(ValueError, match="counts"):
        rdplib.histogram_losses([[1, 2]], 1.0, 5)


def test_two_cell_profile_equalizer():
    theta, risk = rdplib.two_cell_risk_profile(200, 1.0, 2_000, rng=12)
    assert theta[0] == 0.0 and theta[-1] == 1.0 and theta.size == 201
    scaled = risk * 200
    assert 2.9 < np.median(scaled[20:-20]) < 3.7   # interior ≈ 3.3/(εn)
    assert 1.0 < scaled[0] < 1.7                   # corner ≈ 1.3/(εn), still bounded away from 0
    with pytest.raises(ValueError, match="epsilon"):
        rdplib.two_cell_risk_profile(10, 0.0, 5)


# ---------------------------------------------------------------- lower bound


def test_minimax_lower_bound_values_and_brute_force_tau():
    for k, n, eps in [(11, 1_000, 1.0), (5, 10_000, 0.1), (30, 300, 0.3), (2, 50, 2.0)]:
        taus = np.arange(1, n // (k - 1) + 1)
        brute = max(0.0, np.max((k - 1) * taus / (2 * n) * (1 - np.sqrt(eps * taus / 2))))
        assert rdplib.minimax_lower_bound(k, n, eps) == pytest.approx(brute, rel=1e-12, abs=1e-15)
    assert rdplib.minimax_lower_bound(1, 100, 1.0) == 0.0
    values = rdplib.minimax_lower_bound(np.arange(2, 12), 1_000, 1.0)
    assert np.allclose(np.diff(values), values[0])   # linear in k - 1
    assert values[0] == pytest.approx((1 - np.sqrt(0.5)) / 2_000)


def test_minimax_lower_bound_errors():
    with pytest.raises(ValueError, match="k: must be integers >= 1"):
        rdplib.minimax_lower_bound(0, 10, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        rdplib.minimax_lower_bound(3, 10, float("nan"))
    with pytest.raises(ValueError, match="n"):
        rdplib.minimax_lower_bound(3, 0, 1.0)


# ---------------------------------------------------------------- bad event (Prop. 5.1)


def test_bad_event_uniform_exact_probability():
    # P uniform on k cells: P(bad) = 2(1-1/k)^n - (1-1/k)(1-2/k)^(n-1)
    k, n = 25, 50
    exact = 2 * (1 - 1 / k) ** n - (1 - 1 / k) * (1 - 2 / k) ** (n - 1)
    out = rdplib.simulate_bad_event(np.full(k, 1 / k), n, 100_000, rng=13)
    assert abs(out["probability"] - exact) < 4 * out["standard error"]
    assert abs(out["exact conditional mean"] - exact) < 0.003
    assert out["probability"] <= out["mean bound"] <= out["worst-case bound"]


def test_bad_event_two_cells_never_happens_and_bound_below_gamma():
    out = rdplib.simulate_bad_event([0.6, 0.4] + [0.0] * 23, 500, 10_000, rng=14)
    assert out["probability"] == 0.0
    assert out["worst-case bound"] == pytest.approx(50 / 501)
    assert out["worst-case bound"] < 0.1


def test_bad_event_errors():
    with pytest.raises(ValueError, match="n: must be an integer >= 2"):
        rdplib.simulate_bad_event([0.5, 0.5], 1, 10)
    with pytest.raises(ValueError, match="probabilities"):
        rdplib.simulate_bad_event([0.5, 0.4], 10, 10)


def test_fit_slope():
    slope, intercept = rdplib.fit_slope([0, 1, 2, 3], [1.0, 3.0, 5.0, 7.0])
    assert slope == pytest.approx(2.0) and intercept == pytest.approx(1.0)
    with pytest.raises(ValueError, match="x, y"):
        rdplib.fit_slope([1, 2], [1.0])


# ---------------------------------------------------------------- figures


def test_plotting_helpers_return_axes():
    for ax in [
        plotting.plot_histogram_releases([0.5, 0.5], {"DP": [0.4, 0.6]}),
        plotting.plot_risk_vs_k([2, 3], {"DP": [0.1, 0.2]}, bound=[0.01, 0.02]),
        plotting.plot_risk_profile([0, 1], {"a": [1, 1]}),
        plotting.plot_loss_distributions({"DP": [0.1, 0.2]}, threshold=0.5),
        plotting.plot_bad_event([10, 20], [0.1, 0.05], [0.01, 0.01], [0.2, 0.1], [0.3, 0.2], gamma=0.3),
        plotting.plot_grid_histogram(np.ones((3, 3)) / 9, title="t"),
    ]:
        assert isinstance(ax, plt.Axes)
    plt.close("all")


# ---------------------------------------------------------------- explorers


def test_uniform_counts():
    assert uniform_counts(10, 4).tolist() == [3, 3, 2, 2]
    assert uniform_counts(7, 5, support=9).sum() == 7


def test_dp_histogram_explorer_updates():
    ex = dp_histogram_explorer(seed=3, num_reps=200)
    ex.controls["epsilon"].value = 2.0
    ex.controls["n"].value = 2_000
    ex.controls["k"].value = 20
    res = ex.results
    assert res["Laplace scale 2/(nε)"] == pytest.approx(2 / (2_000 * 2.0))
    assert res["minimax lower bound (Prop. 3.1)"] == pytest.approx(
        rdplib.minimax_lower_bound(20, 2_000, 2.0))
    independent = rdplib.histogram_losses(uniform_counts(2_000, 20), 2.0, 200,
                                          rng=np.random.default_rng(3)).mean()
    assert res["simulated risk (uniform θ)"] == pytest.approx(independent)
    assert 1.4 < res["risk × εn/(k−1)"] < 2.6
    assert "Laplace scale" in ex.readout.value and ex.figure.value[:4] == b"\x89PNG"
    assert "risk" in ex.readout_text()


def test_dp_histogram_simulation_release_is_histogram():
    out = dp_histogram_simulation(1.0, 500, 7, num_reps=10, seed=0)
    assert out["release"].shape == (7,) and out["release"].sum() == pytest.approx(1.0)


def test_rdp_histogram_explorer_updates():
    ex = rdp_histogram_explorer(seed=2, num_reps=150)
    assert ex.results["2k ≤ γn (noise-free empty cells)"] is True      # k = 25, n = 500, γ = 0.1
    ex.controls["n"].value = 400
    assert ex.results["2k ≤ γn (noise-free empty cells)"] is False
    assert ex.results["bad-event bound 2k/(n+1)"] == pytest.approx(50 / 401)
    ex.controls["n"].value = 1_000
    ex.controls["k"].value = 50
    ex.controls["epsilon"].value = 0.5
    ex.controls["ties"].value = "smallest"
    independent = rdp_histogram_simulation(0.5, 0.1, 1_000, 50, 2, "smallest", 150, 2)
    for key in ["median DP loss", "median RDP loss", "DP runs with loss > 0.5"]:
        assert ex.results[key] == pytest.approx(independent[key])
    rng = np.random.default_rng(2)
    counts = uniform_counts(1_000, 50, 2)
    dp = rdplib.histogram_losses(counts, 0.5, 150, ties="smallest", rng=rng)
    rdp = rdplib.histogram_losses(counts, 0.5, 150, gamma=0.1, ties="smallest", rng=rng)
    assert ex.results["median DP loss"] == pytest.approx(np.median(dp))
    assert ex.results["median RDP loss"] == pytest.approx(np.median(rdp))


def test_rdp_explorer_fallback_makes_methods_agree():
    sim = rdp_histogram_simulation(0.2, 0.1, 500, 40, 2, "proportional", 400, 1)
    assert sim["2k ≤ γn (noise-free empty cells)"] is False
    assert sim["median RDP loss"] == pytest.approx(sim["median DP loss"], rel=0.1)

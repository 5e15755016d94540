"""Tests of rdplib.attacks (paper Sec. 7), its plots and its explorer."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rdplib
from rdplib.attacks import (
    dp_attack_bound,
    exposure_probability,
    last_record_attack,
    release_histograms,
    simulate_last_record_attack,
    zipf_probabilities,
)

HYPOTHESIS = settings(max_examples=50, deadline=None)


class TestPopulation:
    def test_zipf(self):
        p = zipf_probabilities(50, 2.0)
        assert p.sum() == pytest.approx(1.0)
        assert np.all(np.diff(p) < 0)
        assert p[0] / p[1] == pytest.approx(4.0)
        with pytest.raises(ValueError, match="exponent"):
            zipf_probabilities(5, 0.0)
        with pytest.raises(ValueError, match="k"):
            zipf_probabilities(0, 1.0)

    def test_exposure_formula(self):
        p = np.array([0.7, 0.2, 0.1])
        assert exposure_probability(p, 5) == pytest.approx(0.7 * 0.3**4 + 0.2 * 0.8**4 + 0.1 * 0.9**4)
        np.testing.assert_allclose(exposure_probability(p, 5, per_cell=True), [0.3**4, 0.8**4, 0.9**4])

    def test_exposure_against_monte_carlo(self):
        rng = np.random.default_rng(0)
        p = zipf_probabilities(20, 2.0)
        n, trials = 300, 40_000
        others = rng.multinomial(n - 1, p, size=trials)
        target = rng.choice(20, size=trials, p=p)
        alone = np.mean(others[np.arange(trials), target] == 0)
        exact = exposure_probability(p, n)
        assert abs(alone - exact) < 4 * math.sqrt(exact / trials)

    def test_bad_distribution(self):
        with pytest.raises(ValueError, match="p"):
            exposure_probability([0.5, 0.6], 10)
        with pytest.raises(ValueError, match="p"):
            exposure_probability([[0.5, 0.5]], 10)


class TestRelease:
    def test_matches_contract_functions_for_one_row(self):
        counts = np.array([300, 200, 0, 0, 0])
        np.testing.assert_array_equal(
            release_histograms(counts, 1.0, "rdp", gamma=0.1, rng=5)[0],
            rdplib.rdp_histogram(counts, 1.0, 0.1, rng=5),
        )
        np.testing.assert_array_equal(
            release_histograms(counts, 1.0, "dp", rng=5)[0], rdplib.dp_histogram(counts, 1.0, rng=5)
        )

    def test_fallback_when_not_sparse(self):
        counts = np.array([[30, 10, 0, 0]])  # 2k = 8 > gamma n = 4
        z = release_histograms(counts, 1.0, "rdp", gamma=0.1, rng=0)
        assert np.all(z != 0)

    def test_noise_scale(self):
        counts = np.tile([600, 400], (50_000, 1))
        z = release_histograms(counts, 0.5, "dp", rng=1)
        assert np.mean(np.abs(z[:, 0] - 0.6)) == pytest.approx(2 / (1000 * 0.5), rel=0.03)

    def test_errors(self):
        with pytest.raises(ValueError, match="gamma"):
            release_histograms([[3, 0]], 1.0, "rdp")
        with pytest.raises(ValueError, match="mechanism"):
            release_histograms([[3, 0]], 1.0, "rrr")
        with pytest.raises(ValueError, match="counts"):
            release_histograms([[3, -1]], 1.0)
        with pytest.raises(ValueError, match="epsilon"):
            release_histograms([[3, 1]], -1.0)


class TestAttack:
    def test_exposed_cell_is_named(self):
        known = np.array([[30, 10, 0, 0, 0]])
        z = np.array([[30 / 41 + 0.3, 10 / 41 - 0.2, 0.0, 0.001, 0.0]])
        assert last_record_attack(z, known, 1.0, "rdp", gamma=0.5).tolist() == [3]

    def test_empty_cells_ruled_out(self):
        known = np.array([[30, 10, 0, 0]])
        z = np.array([[30 / 41 - 0.1, 11 / 41 - 0.2, 0.0, 0.0]])  # both residuals negative
        assert last_record_attack(z, known, 1.0, "rdp", gamma=0.5).tolist() == [0]
        assert last_record_attack(z, known, 1.0, "dp").tolist() in ([2], [3])

    def test_largest_residual(self):
        known = np.array([[5, 5, 5]])
        z = np.array([[5 / 16, 5 / 16 + 0.05, 5 / 16 + 0.01]])
        assert last_record_attack(z, known, 1.0).tolist() == [1]

    def test_prior_changes_guess(self):
        known = np.array([[5, 5, 5]])
        z = np.array([[5 / 16, 5 / 16 + 0.001, 5 / 16]])
        prior = [0.98, 0.01, 0.01]
        assert last_record_attack(z, known, 1.0, prior=prior).tolist() == [0]

    def test_errors(self):
        with pytest.raises(ValueError, match="shapes"):
            last_record_attack([[0.5, 0.5]], [[1, 0, 0]], 1.0)
        with pytest.raises(ValueError, match="prior"):
            last_record_attack([[0.5, 0.5]], [[1, 0]], 1.0, prior=[1.0])
        with pytest.raises(ValueError, match="gamma"):
            last_record_attack([[0.5, 0.5]], [[1, 0]], 1.0, "rdp")

    @HYPOTHESIS
    @given(st.integers(0, 2**31 - 1), st.floats(0.2, 5.0))
    def test_rdp_sole_inhabitant_always_found(self, seed, epsilon):
        rng = np.random.default_rng(seed)
        k, n = 10, 200
        known = rng.multinomial(n - 1, np.full(k, 0.1))
        known[0] += known[9]
        known[9] = 0  # cell 9 has no known record
        counts = known.copy()
        counts[9] = 1
        z = release_histograms(counts, epsilon, "rdp", gamma=0.1, rng=rng)
        assert last_record_attack(z, known[None, :], epsilon, "rdp", gamma=0.1).tolist() == [9]


class TestSimulation:
    def test_rdp_success_when_alone_is_certain(self):
        p = zipf_probabilities(50, 2.0)
        out = simulate_last_record_attack(p, 1_000, 1.0, 5_000, "rdp", gamma=0.1, target="uniform", rng=0)
        assert out["success when alone"] == 1.0
        exact_alone = np.mean(exposure_probability(p, 1_000, per_cell=True))
        assert abs(out["alone rate"] - exact_alone) < 4 * math.sqrt(0.25 / 5_000)

    @pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
    def test_dp_success_below_bound(self, epsilon):
        p = zipf_probabilities(50, 2.0)
        out = simulate_last_record_attack(p, 1_000, epsilon, 20_000, "dp", target="uniform", rng=1)
        bound = dp_attack_bound(epsilon, np.full(50, 0.02))
        assert out["success rate"] <= bound + 3 * math.sqrt(bound / 20_000)
        assert out["success rate"] > 0.02  # better than blind guessing

    def test_dp_attack_works_with_little_noise(self):
        p = zipf_probabilities(10, 1.0)
        out = simulate_last_record_attack(p, 200, 50.0, 2_000, "dp", target="uniform", rng=2)
        assert out["success rate"] > 0.99

    def test_by_cell_output(self):
        p = zipf_probabilities(5, 1.0)
        out = simulate_last_record_attack(p, 100, 1.0, 1_000, "dp", target="uniform", rng=3)
        assert out["trials by cell"].sum() == 1_000
        weighted = np.nansum(out["success by cell"] * out["trials by cell"]) / 1_000
        assert weighted == pytest.approx(out["success rate"])

    def test_errors(self):
        p = zipf_probabilities(5, 1.0)
        with pytest.raises(ValueError, match="target"):
            simulate_last_record_attack(p, 100, 1.0, 10, target="everyone")
        with pytest.raises(ValueError, match="gamma"):
            simulate_last_record_attack(p, 100, 1.0, 10, "rdp")
        with pytest.raises(ValueError, match="n"):
            simulate_last_record_attack(p, 1, 1.0, 10)

    def test_dp_attack_bound(self):
        assert dp_attack_bound(1.0, [0.1] * 10) == pytest.approx(math.e / 10)
        assert dp_attack_bound(5.0, [0.5, 0.5]) == 1.0
        with pytest.raises(ValueError, match="epsilon"):
            dp_attack_bound(0.0, [0.5, 0.5])


def test_plots_return_axes():
    import matplotlib.pyplot as plt

    from rdplib.plotting import plot_attack_success, plot_attack_view, plot_success_by_cell

    assert plot_attack_view([0.5, 0.5, 0.0], [5, 4, 0], 10, target=1, title="x") is not None
    assert plot_attack_success([0.5, 1.0], {"a": [0.1, 0.2]}, bound=[0.1, 0.2], baseline=0.05) is not None
    assert plot_success_by_cell([0.5, 0.3, 0.2], {"a": [0.1, 0.2, 0.3]}, alone=[0.0, 0.1, 0.2]) is not None
    plt.close("all")


class TestExplorer:
    def test_sliders_drive_results(self):
        from rdplib.widgets import attack_explorer

        ex = attack_explorer(seed=5, num_trials=2_000)
        ex.controls["epsilon"].value = 2.0
        ex.controls["exponent"].value = 1.5
        ex.controls["n"].value = 1_200
        weights = np.arange(1, 51) ** -1.5
        p = weights / weights.sum()
        assert ex.results["ε-DP bound e^ε/k"] == pytest.approx(math.exp(2.0) / 50)
        assert ex.results["P[target alone], uniform target"] == pytest.approx(np.mean((1 - p) ** 1_199))
        assert ex.results["P[target alone], random person"] == pytest.approx(np.sum(p * (1 - p) ** 1_199))
        assert ex.results["sparse mechanism active (2k <= γn)"] is True
        assert ex.results["success vs RDP histogram"] > ex.results["success vs DP histogram"]
        assert "success vs DP histogram" in ex.readout.value

    def test_fallback_makes_rdp_equal_dp(self):
        from rdplib.widgets import attack_explorer

        ex = attack_explorer(seed=1, num_trials=2_000)
        ex.controls["gamma"].value = 0.05  # 2k = 100 > 0.05 * 1000
        assert ex.results["sparse mechanism active (2k <= γn)"] is False
        assert ex.results["success vs RDP histogram"] == ex.results["success vs DP histogram"]

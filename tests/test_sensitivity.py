"""Tests of rdplib.sensitivity (chapter 1) and the chapter-1 explorer."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rdplib
from rdplib.sensitivity import (
    NEIGHBOUR_RELATIONS,
    all_datasets,
    brute_force_sensitivity,
    count_query,
    histogram_query,
    laplace_cdf,
    laplace_density,
    laplace_expected_privacy_loss,
    laplace_privacy_loss,
    laplace_privacy_loss_cdf,
    mean_query,
    query_sensitivity,
    sample_laplace_privacy_loss,
    sum_query,
)
from rdplib.widgets import draw_neighbour_densities, neighbour_explorer, neighbour_summary

# ---------------------------------------------------------------- exports


def test_names_are_reexported():
    for name in ["query_sensitivity", "brute_force_sensitivity", "laplace_privacy_loss",
                 "sample_laplace_privacy_loss", "laplace_cdf"]:
        assert name in rdplib.__all__
        assert getattr(rdplib, name) is getattr(rdplib.sensitivity, name)


# ---------------------------------------------------------------- formulas


@pytest.mark.parametrize(
    "query, relation, lower, upper, n, expected",
    [
        ("count", "replace-one", 0, 1, None, 1.0),
        ("count", "add-remove", 0, 1, None, 1.0),
        ("sum", "replace-one", 0, 200, None, 200.0),
        ("sum", "add-remove", 0, 200, None, 200.0),
        ("sum", "replace-one", -100, 200, None, 300.0),
        ("sum", "add-remove", -100, 200, None, 200.0),
        ("sum", "add-remove", -300, 200, None, 300.0),
        ("mean", "replace-one", 0, 200, 4, 50.0),
        ("mean", "add-remove", 0, 200, 4, 40.0),
        ("histogram", "replace-one", 0, 1, None, 2.0),
        ("histogram", "add-remove", 0, 1, None, 1.0),
    ],
)
def test_query_sensitivity_table(query, relation, lower, upper, n, expected):
    assert query_sensitivity(query, relation, lower, upper, n=n) == expected


def test_mean_add_remove_is_below_the_notes_bound():
    # the lecture notes give M/N; the exact value M/(N+1) is smaller but close
    for n in [1, 10, 1000]:
        exact = query_sensitivity("mean", "add-remove", 0, 300_000, n=n)
        assert exact < 300_000 / n
        assert exact == pytest.approx(300_000 / (n + 1))


@pytest.mark.parametrize(
    "label, query, domain, name, lower, upper",
    [
        ("count", count_query, [0, 1], "count", 0, 1),
        ("sum", sum_query, [0, 50, 100, 150, 200], "sum", 0, 200),
        ("sum negative", sum_query, [-100, 0, 100, 200], "sum", -100, 200),
        ("sum mostly negative", sum_query, [-300, -100, 50], "sum", -300, 50),
        ("mean", mean_query, [0, 50, 100, 150, 200], "mean", 0, 200),
        ("mean shifted", mean_query, [-20, 0, 30], "mean", -20, 30),
        ("histogram", histogram_query(3), [0, 1, 2], "histogram", 0, 1),
    ],
)
@pytest.mark.parametrize("relation", NEIGHBOUR_RELATIONS)
@pytest.mark.parametrize("n", [1, 2, 4])
def test_brute_force_matches_formula(label, query, domain, name, lower, upper, relation, n):
    expected = query_sensitivity(name, relation, lower, upper, n=n)
    assert brute_force_sensitivity(query, domain, n, relation) == pytest.approx(expected)


@settings(max_examples=40, deadline=None)
@given(
    domain=st.lists(st.integers(-50, 50), min_size=2, max_size=4, unique=True),
    n=st.integers(1, 3),
)
def test_brute_force_sum_and_mean_property(domain, n):
    lower, upper = min(domain), max(domain)
    for relation in NEIGHBOUR_RELATIONS:
        assert brute_force_sensitivity(sum_query, domain, n, relation) == pytest.approx(
            query_sensitivity("sum", relation, lower, upper))
        assert brute_force_sensitivity(mean_query, domain, n, relation) == pytest.approx(
            query_sensitivity("mean", relation, lower, upper, n=n))


@pytest.mark.parametrize("relation", NEIGHBOUR_RELATIONS)
def test_returned_pair_are_neighbours_attaining_the_maximum(relation):
    worst, x, x_prime = brute_force_sensitivity(
        sum_query, [-100, 0, 100, 200], 3, relation, return_pair=True)
    assert abs(sum_query(x)[0] - sum_query(x_prime)[0]) == worst
    if relation == "replace-one":
        assert x.size == x_prime.size and np.sum(x != x_prime) == 1
    else:
        assert x_prime.size == x.size + 1
        # x is x_prime with one entry deleted
        assert any(np.array_equal(np.delete(x_prime, i), x) for i in range(x_prime.size))


def test_clipping_bounds_the_sum():
    domain = [0, 100, 300, 1_000, 10_000]
    clipped = lambda d: sum_query(np.clip(d, 0, 300))  # noqa: E731
    assert brute_force_sensitivity(sum_query, domain, 3) == 10_000
    assert brute_force_sensitivity(clipped, domain, 3) == 300


def test_all_datasets_and_queries():
    data = all_datasets([0, 1, 2], 3)
    assert data.shape == (27, 3)
    assert len({tuple(row) for row in data}) == 27
    assert np.array_equal(histogram_query(3)(data).sum(axis=1), np.full(27, 3.0))
    assert count_query([1, 1, 0])[0] == 2.0
    assert mean_query([[1.0, 3.0]])[0] == 2.0


# ---------------------------------------------------------------- Laplace and the privacy loss


def test_laplace_density_and_cdf_agree():
    grid = np.linspace(-30, 30, 60_001)
    dens = laplace_density(grid, 1.5, 2.0)
    assert np.trapezoid(dens, grid) == pytest.approx(1.0, abs=1e-3)
    numeric = np.gradient(laplace_cdf(grid, 1.5, 2.0), grid)
    assert np.max(np.abs(numeric - dens)) < 1e-3
    assert laplace_cdf(1.5, 1.5, 2.0) == 0.5


def test_privacy_loss_bounded_and_attained():
    y = np.linspace(-20, 20, 4001)
    for gap, scale in [(1.0, 1.0), (2.0, 0.5), (0.3, 3.0)]:
        loss = laplace_privacy_loss(y, 0.0, gap, scale)
        assert np.max(np.abs(loss)) == pytest.approx(gap / scale)
        # the pointwise definition: log ratio of the densities
        direct = np.log(laplace_density(y, 0.0, scale) / laplace_density(y, gap, scale))
        assert np.allclose(loss, direct)


@pytest.mark.parametrize("epsilon", [0.25, 1.0, 2.0])
def test_sampled_loss_matches_exact_distribution(epsilon):
    loss = sample_laplace_privacy_loss(epsilon, 200_000, rng=11)
    assert np.max(np.abs(loss)) <= epsilon + 1e-12
    # atoms: 1/2 at +eps, e^-eps / 2 at -eps (sd of each frequency < 0.0012)
    assert np.mean(np.isclose(loss, epsilon)) == pytest.approx(0.5, abs=0.006)
    assert np.mean(np.isclose(loss, -epsilon)) == pytest.approx(np.exp(-epsilon) / 2, abs=0.006)
    # the whole CDF (Kolmogorov distance)
    grid = np.linspace(-epsilon, epsilon, 41)[:-1]
    empirical = np.searchsorted(np.sort(loss), grid, side="right") / loss.size
    assert np.max(np.abs(empirical - laplace_privacy_loss_cdf(grid, epsilon))) < 0.006
    # the mean: eps + e^-eps - 1, not eps^2/2 and not eps
    assert loss.mean() == pytest.approx(laplace_expected_privacy_loss(epsilon), abs=0.01)


def test_expected_loss_values():
    assert laplace_expected_privacy_loss(1.0) == pytest.approx(math.exp(-1))
    small = laplace_expected_privacy_loss(np.array([1e-3, 1e-2]))
    assert np.allclose(small, np.array([1e-3, 1e-2]) ** 2 / 2, rtol=0.01)


def test_sample_loss_rng_contract(check_rng_contract):
    check_rng_contract(lambda rng: sample_laplace_privacy_loss(1.0, 50, rng=rng))


# ---------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: query_sensitivity("median"), ValueError, "query"),
        (lambda: query_sensitivity("sum", "swap"), ValueError, "neighbours"),
        (lambda: query_sensitivity("mean", "replace-one", 0, 1), ValueError, "n"),
        (lambda: query_sensitivity("mean", "replace-one", 0, 1, n=0), ValueError, "n"),
        (lambda: query_sensitivity("sum", "replace-one", 5, 1), ValueError, "upper"),
        (lambda: query_sensitivity("sum", "replace-one", float("nan"), 1), ValueError, "lower"),
        (lambda: all_datasets([0, 1], 0), ValueError, "n"),
        (lambda: all_datasets(list(range(10)), 7), ValueError, "n"),
        (lambda: all_datasets([[0, 1]], 2), ValueError, "domain"),
        (lambda: brute_force_sensitivity("sum", [0, 1], 2), TypeError, "query"),
        (lambda: brute_force_sensitivity(sum_query, [0, 1], 2, "swap"), ValueError, "neighbours"),
        (lambda: histogram_query(0), ValueError, "num_categories"),
        (lambda: laplace_density(0.0, 0.0, 0.0), ValueError, "scale"),
        (lambda: laplace_privacy_loss(0.0, 0.0, 1.0, -1.0), ValueError, "scale"),
        (lambda: laplace_privacy_loss(0.0, float("nan"), 1.0, 1.0), ValueError, "value"),
        (lambda: laplace_expected_privacy_loss(0.0), ValueError, "epsilon"),
        (lambda: laplace_privacy_loss_cdf(0.0, -1.0), ValueError, "epsilon"),
        (lambda: sample_laplace_privacy_loss(0.0, 10), ValueError, "epsilon"),
        (lambda: sample_laplace_privacy_loss(1.0, 0), ValueError, "num_samples"),
        (lambda: sample_laplace_privacy_loss(1.0, 10, sensitivity=0), ValueError, "sensitivity"),
    ],
)
def test_bad_inputs_name_the_parameter(call, exc, words):
    with pytest.raises(exc, match=words):
        call()


# ---------------------------------------------------------------- explorer


def _expected_summary(epsilon, sensitivity, gap):
    scale = sensitivity / epsilon
    worst = gap / scale
    return scale, worst, worst + math.exp(-worst) - 1


def test_neighbour_explorer_reacts_to_sliders():
    ex = neighbour_explorer()
    assert ex.results["noise scale b = sensitivity/ε"] == pytest.approx(1.0)
    assert ex.results["ε-DP promise kept"] is True
    first_png = bytes(ex.figure.value)
    assert first_png.startswith(b"\x89PNG")

    ex.controls["epsilon"].value = 0.5
    ex.controls["sensitivity"].value = 2.0
    ex.controls["gap"].value = 3.0
    scale, worst, mean_loss = _expected_summary(0.5, 2.0, 3.0)
    assert ex.results["noise scale b = sensitivity/ε"] == pytest.approx(scale)
    assert ex.results["noise standard deviation √2·b"] == pytest.approx(math.sqrt(2) * scale)
    assert ex.results["worst-case privacy loss"] == pytest.approx(worst)
    assert ex.results["mean privacy loss (on x)"] == pytest.approx(mean_loss)
    assert ex.results["ε-DP promise kept"] is False  # gap 3 > sensitivity 2
    assert bytes(ex.figure.value) != first_png
    assert "worst-case privacy loss: 0.75" in ex.readout_text()

    ex.controls["gap"].value = 2.0
    assert ex.results["ε-DP promise kept"] is True
    assert ex.results["worst-case privacy loss"] == pytest.approx(0.5)

    ex.controls["gap"].value = 0.0
    assert ex.results["worst-case privacy loss"] == 0.0
    assert ex.results["mean privacy loss (on x)"] == 0.0


def test_neighbour_summary_agrees_with_sampling():
    out = neighbour_summary(1.0, 1.0, 1.0)
    loss = sample_laplace_privacy_loss(1.0, 100_000, gap=1.0, sensitivity=1.0, rng=5)
    assert out["mean privacy loss (on x)"] == pytest.approx(loss.mean(), abs=0.01)
    assert out["worst-case privacy loss"] == pytest.approx(np.abs(loss).max())


def test_draw_returns_axes():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    out = draw_neighbour_densities(ax, neighbour_summary(1.0, 1.0, 2.0), 1.0, 1.0, 2.0)
    assert out is ax and len(ax.lines) == 2 and len(ax.loss_axes.lines) >= 1
    plt.close(fig)

"""The shared Kolmogorov-Smirnov test (rdplib.audit) against SciPy, and the plain log-axis labels."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy import special, stats  # noqa: E402

from rdplib import kolmogorov_sf, ks_two_sample  # noqa: E402
from rdplib.plotting import plain_log_ticks  # noqa: E402


def test_kolmogorov_sf_matches_scipy_on_a_grid():
    x = np.concatenate([[0.0, 1e-6, 0.01, 0.05], np.linspace(0.1, 3.0, 300), [5.0, 10.0, 40.0]])
    ours = kolmogorov_sf(x)
    assert np.max(np.abs(ours - special.kolmogorov(x))) < 1e-13
    assert isinstance(kolmogorov_sf(0.8), float)


def test_kolmogorov_sf_critical_values():
    # the textbook critical values 1.2239 (10 %), 1.3581 (5 %), 1.6276 (1 %)
    for crit, level in ((1.2239, 0.10), (1.3581, 0.05), (1.6276, 0.01)):
        assert abs(kolmogorov_sf(crit) - level) < 2e-4


@pytest.mark.parametrize("bad", [-0.1, np.nan, np.inf])
def test_kolmogorov_sf_refuses_bad_input(bad):
    with pytest.raises(ValueError, match="x:"):
        kolmogorov_sf(bad)


@pytest.mark.parametrize("seed", range(5))
def test_ks_two_sample_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=300 + 50 * seed)
    b = rng.normal(loc=0.1 * seed, size=250)
    ours = ks_two_sample(a, b)
    theirs = stats.ks_2samp(a, b, method="exact")
    assert ours[0] == pytest.approx(theirs.statistic, abs=1e-12)
    # the p-value is Kolmogorov's limiting law at the scaled statistic (SciPy's own special function) ...
    limit = special.kolmogorov(theirs.statistic * np.sqrt(a.size * b.size / (a.size + b.size)))
    assert ours[1] == pytest.approx(limit, abs=1e-12)
    # ... which at these sizes is close to SciPy's exact two-sample p-value
    assert ours[1] == pytest.approx(theirs.pvalue, abs=0.03)


def test_ks_two_sample_detects_a_shift_and_accepts_the_same_law():
    rng = np.random.default_rng(12)
    same = [ks_two_sample(rng.laplace(size=400), rng.laplace(size=400))[1] for _ in range(200)]
    # under the null the p-value is (close to) uniform: about 5 % below 0.05
    assert 0.01 <= np.mean(np.array(same) < 0.05) <= 0.10
    # a scale wrong by a factor 1.5 is caught at these sizes
    assert ks_two_sample(rng.laplace(size=2_000), rng.laplace(scale=1.5, size=2_000))[1] < 1e-4


@pytest.mark.parametrize("a, b, name", [([], [1.0], "a"), ([1.0], [], "b"), ([np.nan], [1.0], "a")])
def test_ks_two_sample_refuses_bad_input(a, b, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        ks_two_sample(a, b)


def test_plain_log_ticks_labels_only_log_axes():
    fig, ax = plt.subplots()
    ax.plot([1, 10, 1_000_000], [0.001, 0.5, 2.0])
    ax.set_xscale("log")
    linear_formatter = ax.yaxis.get_major_formatter()
    plain_log_ticks(ax)
    assert ax.xaxis.get_major_formatter()(1_000_000, 0) == "1,000,000"
    assert ax.xaxis.get_major_formatter()(0.001, 0) == "0.001"
    assert len(ax.xaxis.get_minorticklocs()) == 0
    assert ax.yaxis.get_major_formatter() is linear_formatter  # a linear axis is untouched
    with pytest.raises(ValueError, match="axis:"):
        plain_log_ticks(ax, axis="z")
    plt.close(fig)

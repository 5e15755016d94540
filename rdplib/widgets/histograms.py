"""Explorers for the histogram chapters: DP histogram risk (ch. 7) and DP vs RDP losses (ch. 8)."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..histograms import dp_histogram, project_to_histograms, rdp_condition_holds
from ..plotting.histograms import plot_histogram_releases, plot_loss_distributions
from ..rdp import histogram_losses, minimax_lower_bound
from ._base import Explorer

__all__ = [
    "uniform_counts",
    "dp_histogram_simulation",
    "dp_histogram_explorer",
    "rdp_histogram_simulation",
    "rdp_histogram_explorer",
]


def uniform_counts(n: int, k: int, support: int | None = None) -> np.ndarray:
    """Counts of n observations spread as evenly as possible over the first ``support`` of k cells.

    Examples
    --------
    >>> uniform_counts(10, 4).tolist(), uniform_counts(10, 5, support=2).tolist()
    ([3, 3, 2, 2], [5, 5, 0, 0, 0])
    """
    support = k if support is None else min(int(support), int(k))
    counts = np.zeros(int(k), dtype=np.int64)
    counts[:support] = n // support
    counts[: n % support] += 1
    return counts


def dp_histogram_simulation(
    epsilon: float, n: int, k: int, num_reps: int = 400, seed: int = 0
) -> dict:
    """Risk of the projected ε-DP histogram at the uniform θ over k cells, against Prop. 3.1.

    Returns the Laplace scale, the simulated risk (mean L1 loss over
    ``num_reps`` releases), the risk in units of (k-1)/(εn), the minimax lower
    bound, and under ``"release"`` one projected release (for the figure).

    Examples
    --------
    >>> out = dp_histogram_simulation(epsilon=1.0, n=1000, k=10, seed=0)
    >>> out["Laplace scale 2/(nε)"]
    0.002
    """
    rng = np.random.default_rng(seed)
    counts = uniform_counts(n, k)
    losses = histogram_losses(counts, epsilon, num_reps, rng=rng)
    risk = float(losses.mean())
    release = project_to_histograms(dp_histogram(counts, epsilon, rng=rng), n)
    return {
        "Laplace scale 2/(nε)": 2.0 / (n * epsilon),
        "simulated risk (uniform θ)": risk,
        "risk × εn/(k−1)": risk * epsilon * n / max(k - 1, 1),
        "minimax lower bound (Prop. 3.1)": float(minimax_lower_bound(k, n, epsilon)),
        "release": release,
    }


def dp_histogram_explorer(seed: int = 0, num_reps: int = 400) -> Explorer:
    """Sliders for ε, n and k; shows one DP release of the uniform histogram and the risk.

    Examples
    --------
    >>> ex = dp_histogram_explorer()
    >>> ex.controls["epsilon"].value = 2.0
    >>> ex.results["Laplace scale 2/(nε)"]
    0.001
    """

    def compute(epsilon: float, n: int, k: int) -> dict:
        out = dp_histogram_simulation(epsilon, n, k, num_reps=num_reps, seed=seed)
        out.pop("release")
        return out

    def draw(ax, results, epsilon, n, k):
        sim = dp_histogram_simulation(epsilon, n, k, num_reps=1, seed=seed)
        plot_histogram_releases(uniform_counts(n, k) / n, {"DP, projected": sim["release"]}, ax=ax,
                                title=f"ε = {epsilon:g}, n = {n:,}, k = {k}")

    controls = {
        "epsilon": widgets.FloatSlider(value=1.0, min=0.1, max=5.0, step=0.1, description="ε"),
        "n": widgets.IntSlider(value=1_000, min=100, max=10_000, step=100, description="n"),
        "k": widgets.IntSlider(value=10, min=2, max=100, step=1, description="k"),
    }
    return Explorer(controls, compute, draw, title="DP histogram: risk against k, n and ε")


def rdp_histogram_simulation(
    epsilon: float,
    gamma: float,
    n: int,
    k: int,
    support: int,
    ties: str = "proportional",
    num_reps: int = 300,
    seed: int = 0,
) -> dict:
    """L1 losses of the DP and the RDP histogram of n points spread evenly over ``support`` of k cells.

    Both releases are projected with the tie-break ``ties`` (see
    :func:`~rdplib.rdp.l1_projection`), so that when ``2k > γn`` (RDP falls back to
    DP) the two loss distributions coincide in law.
    Returns the sparse condition, medians, the share of DP runs with loss > 0.5,
    the worst-case bad-event bound 2k/(n+1), and the two loss arrays under
    ``"DP losses"`` and ``"RDP losses"``.

    Examples
    --------
    >>> out = rdp_histogram_simulation(0.2, 0.1, n=500, k=25, support=2, seed=0)
    >>> out["2k ≤ γn (noise-free empty cells)"]
    True
    """
    rng = np.random.default_rng(seed)
    counts = uniform_counts(n, k, support)
    dp = histogram_losses(counts, epsilon, num_reps, ties=ties, rng=rng)
    rdp = histogram_losses(counts, epsilon, num_reps, gamma=gamma, ties=ties, rng=rng)
    return {
        "2k ≤ γn (noise-free empty cells)": rdp_condition_holds(k, n, gamma),
        "median DP loss": float(np.median(dp)),
        "median RDP loss": float(np.median(rdp)),
        "DP runs with loss > 0.5": float(np.mean(dp > 0.5)),
        "bad-event bound 2k/(n+1)": 2 * k / (n + 1),
        "DP losses": dp,
        "RDP losses": rdp,
    }


def rdp_histogram_explorer(seed: int = 0, num_reps: int = 300) -> Explorer:
    """Sliders for ε, γ, n, k, the support size and the projection's tie-break; DP vs RDP losses.

    Examples
    --------
    >>> ex = rdp_histogram_explorer()
    >>> ex.controls["n"].value = 200
    >>> ex.results["2k ≤ γn (noise-free empty cells)"]
    False
    """

    def compute(epsilon, gamma, n, k, support, ties) -> dict:
        out = rdp_histogram_simulation(epsilon, gamma, n, k, support, ties, num_reps, seed)
        out.pop("DP losses")
        out.pop("RDP losses")
        return out

    def draw(ax, results, epsilon, gamma, n, k, support, ties):
        sim = rdp_histogram_simulation(epsilon, gamma, n, k, support, ties, num_reps, seed)
        plot_loss_distributions({"DP": sim["DP losses"], "RDP": sim["RDP losses"]},
                                ax=ax, threshold=0.5,
                                title=f"ε = {epsilon:g}, γ = {gamma:g}, n = {n:,}, k = {k}, "
                                      f"r = {min(support, k)}, {ties} ties")

    controls = {
        "epsilon": widgets.FloatSlider(value=0.2, min=0.05, max=2.0, step=0.05, description="ε"),
        "gamma": widgets.FloatSlider(value=0.1, min=0.01, max=0.5, step=0.01, description="γ"),
        "n": widgets.IntSlider(value=500, min=100, max=10_000, step=100, description="n"),
        "k": widgets.IntSlider(value=25, min=2, max=400, step=1, description="k"),
        "support": widgets.IntSlider(value=2, min=1, max=50, step=1, description="r (non-empty)"),
        "ties": widgets.Dropdown(options=["proportional", "smallest"], value="proportional",
                                 description="ties"),
    }
    return Explorer(controls, compute, draw, title="Sparse histograms: DP against RDP")

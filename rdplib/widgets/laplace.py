"""Explorer for chapter 3: the two terms of the Laplace mean's squared error."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..accuracy import (
    laplace_mean_crossover_n,
    laplace_mean_mse_terms,
    simulate_laplace_mean,
)
from ..plotting.laplace import plot_mse_vs_n
from ._base import Explorer

__all__ = ["laplace_mse_summary", "draw_laplace_mse", "laplace_mse_explorer"]


def laplace_mse_summary(
    epsilon: float, n: float, p: float, num_trials: int = 4_000, seed: int = 0
) -> dict:
    """Exact and simulated MSE of the Bernoulli-mean Laplace mechanism at one (ε, n, p).

    ``n`` is rounded to the nearest integer (the explorer's n slider is logarithmic).

    Examples
    --------
    >>> out = laplace_mse_summary(0.1, 1_000, 0.3)
    >>> round(out["cost of privacy 2/(ε²n²)"], 6), round(out["crossover n"], 1)
    (0.0002, 952.4)
    """
    n = int(round(n))
    sampling, privacy = laplace_mean_mse_terms(p, n, epsilon)
    releases = simulate_laplace_mean(p, n, epsilon, num_trials, rng=seed)
    total = sampling + privacy
    return {
        "n (rounded)": n,
        "sampling error p(1-p)/n": sampling,
        "cost of privacy 2/(ε²n²)": privacy,
        "exact MSE": total,
        "simulated MSE": float(np.mean((releases - p) ** 2)),
        "share of MSE due to privacy": privacy / total,
        "crossover n": float(laplace_mean_crossover_n(p, epsilon)),
        "relative RMSE √MSE/p": float(np.sqrt(total) / p),
    }


def draw_laplace_mse(ax, results: dict, epsilon: float, n: float, p: float, legend: bool = True):
    """The explorer's figure: both MSE terms against n, the crossover, and the simulated point.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> ax = draw_laplace_mse(ax, laplace_mse_summary(1.0, 100, 0.3, num_trials=50), 1.0, 100, 0.3)
    >>> ax.get_title()
    'ε = 1, p = 0.3, n = 100'
    >>> plt.close(fig)
    """
    grid = np.round(np.geomspace(10, 10**6, 60))
    sampling, privacy = laplace_mean_mse_terms(p, grid, epsilon)
    plot_mse_vs_n(grid, None, sampling, privacy, crossover=results["crossover n"], ax=ax)
    ax.plot([results["n (rounded)"]], [results["simulated MSE"]], "o", color="black", ms=7,
            label="simulated at this n")
    if legend:
        ax.legend(fontsize=8)
    else:
        ax.get_legend().remove()
    ax.set_title(f"ε = {epsilon:.3g}, p = {p:g}, n = {results['n (rounded)']:,}")
    return ax


def laplace_mse_explorer(seed: int = 0, num_trials: int = 4_000) -> Explorer:
    """Sliders for ε, n (logarithmic) and p; shows the MSE terms against n.

    Examples
    --------
    >>> ex = laplace_mse_explorer()
    >>> ex.controls["p"].value = 0.5
    >>> round(ex.results["crossover n"], 1)  # 2 / (1 * 0.25)
    8.0
    """

    def compute(epsilon: float, n: float, p: float) -> dict:
        return laplace_mse_summary(epsilon, n, p, num_trials=num_trials, seed=seed)

    controls = {
        "epsilon": widgets.FloatLogSlider(value=1.0, base=10, min=-2, max=1, step=0.05,
                                          description="ε"),
        "n": widgets.FloatLogSlider(value=1_000, base=10, min=1, max=6, step=0.1, description="n"),
        "p": widgets.FloatSlider(value=0.3, min=0.01, max=0.99, step=0.01, description="p"),
    }
    return Explorer(controls, compute, draw_laplace_mse,
                    title="Laplace mean: sampling error against the cost of privacy")

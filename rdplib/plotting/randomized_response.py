"""Figures for the randomized-response chapter."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

__all__ = ["plot_rr_likelihood_ratio", "plot_rr_variance", "plot_rr_estimate_distribution"]


def plot_rr_likelihood_ratio(
    epsilons: ArrayLike, empirical_ratios: ArrayLike, ax: plt.Axes | None = None
) -> plt.Axes:
    """Empirical worst-case likelihood ratio of randomized response against the bound e^ε."""
    if ax is None:
        _, ax = plt.subplots()
    epsilons = np.asarray(epsilons, dtype=float)
    grid = np.linspace(0, epsilons.max() * 1.05, 200)
    ax.plot(grid, np.exp(grid), label=r"theory: $e^{\varepsilon}$")
    ax.plot(epsilons, empirical_ratios, "o", label="simulated ratio")
    ax.set_yscale("log")
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel("likelihood ratio")
    ax.legend()
    return ax


def plot_rr_variance(
    x: ArrayLike,
    simulated: ArrayLike,
    theory: ArrayLike,
    xlabel: str,
    ax: plt.Axes | None = None,
    sampling_only: ArrayLike | None = None,
) -> plt.Axes:
    """Variance of the randomized-response estimator: formula (line) against simulation (dots)."""
    if ax is None:
        _, ax = plt.subplots()
    ax.plot(x, theory, label="formula")
    ax.plot(x, simulated, "o", label="simulation")
    if sampling_only is not None:
        ax.plot(x, sampling_only, "--", color="grey", label="no privacy: p(1-p)/n")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(np.asarray(x, dtype=float))
    ax.set_xticklabels([f"{v:g}" for v in np.asarray(x, dtype=float)])
    ax.minorticks_off()
    ax.set_xlabel(xlabel)
    ax.set_ylabel(r"variance of $\hat p$")
    ax.legend()
    return ax


def plot_rr_estimate_distribution(
    estimates: ArrayLike, p: float, sd: float, ax: plt.Axes | None = None, title: str | None = None
) -> plt.Axes:
    """Histogram of repeated estimates with the normal curve of the exact variance."""
    if ax is None:
        _, ax = plt.subplots()
    estimates = np.asarray(estimates, dtype=float)
    ax.hist(estimates, bins=40, density=True, alpha=0.6, label="simulated estimates")
    grid = np.linspace(p - 4 * sd, p + 4 * sd, 200)
    ax.plot(grid, np.exp(-0.5 * ((grid - p) / sd) ** 2) / (sd * np.sqrt(2 * np.pi)),
            label="normal, exact variance")
    ax.axvline(p, color="black", lw=1)
    ax.set_xlabel(r"estimate $\hat p$")
    ax.set_ylabel("density")
    if title:
        ax.set_title(title)
    ax.legend(fontsize=9)
    return ax

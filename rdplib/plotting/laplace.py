"""Figures for chapter 3: the Laplace mechanism and its accuracy."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike


def _log_log(ax: plt.Axes) -> None:
    """Log scale on both axes, major ticks only (minor log ticks are slow to lay out)."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_minor_locator(plt.NullLocator())
    ax.yaxis.set_minor_locator(plt.NullLocator())


__all__ = [
    "plot_laplace_likelihood_ratio",
    "plot_mse_vs_n",
    "plot_relative_error_vs_p",
    "plot_clipping_tradeoff",
]


def plot_laplace_likelihood_ratio(
    centres: ArrayLike,
    empirical_ratio: ArrayLike,
    exact_ratio: ArrayLike,
    epsilon: float,
    ax: plt.Axes | None = None,
) -> plt.Axes:
    """Ratio of the output probabilities on two neighbours, simulated (dots) and exact (line).

    Examples
    --------
    >>> ax = plot_laplace_likelihood_ratio([0, 1], [1.6, 0.6], [1.65, 0.61], epsilon=0.5)
    >>> ax.get_yscale()
    'log'
    >>> plt.close("all")
    """
    if ax is None:
        _, ax = plt.subplots()
    ax.plot(centres, exact_ratio, label="exact density ratio")
    ax.plot(centres, empirical_ratio, "o", label="simulated (histogram bins)")
    for level in (np.exp(-epsilon), np.exp(epsilon)):
        ax.axhline(level, color="grey", ls=":", lw=1)
    ax.set_yscale("log")
    ticks = [np.exp(-epsilon), 1.0, np.exp(epsilon)]
    ax.set_yticks(ticks, [rf"$e^{{-{epsilon:g}}}$", "1", rf"$e^{{{epsilon:g}}}$"])
    ax.yaxis.set_minor_locator(plt.NullLocator())
    ax.set_xlabel(r"released noisy sum $\tilde s$")
    ax.set_ylabel("P[output | x] / P[output | x']")
    ax.legend(fontsize=9)
    return ax


def plot_mse_vs_n(
    n_grid: ArrayLike,
    simulated_mse: ArrayLike,
    sampling_term: ArrayLike,
    privacy_term: ArrayLike,
    crossover: float | None = None,
    ax: plt.Axes | None = None,
    marker_n: float | None = None,
) -> plt.Axes:
    """Log-log plot of the MSE against n: the formula, its two terms, and simulation.

    ``simulated_mse`` may be None (formula only).

    Examples
    --------
    >>> n = np.array([10, 100, 1000])
    >>> ax = plot_mse_vs_n(n, None, 0.21 / n, 2 / n**2, crossover=9.5)
    >>> ax.get_xscale(), ax.get_yscale()
    ('log', 'log')
    >>> plt.close("all")
    """
    if ax is None:
        _, ax = plt.subplots()
    n_grid = np.asarray(n_grid, dtype=float)
    sampling_term = np.asarray(sampling_term, dtype=float)
    privacy_term = np.asarray(privacy_term, dtype=float)
    ax.plot(n_grid, sampling_term + privacy_term, label="formula: sum of both terms")
    ax.plot(n_grid, sampling_term, "--", label="sampling error p(1-p)/n")
    ax.plot(n_grid, privacy_term, "--", label=r"cost of privacy $2/(\varepsilon^2 n^2)$")
    if simulated_mse is not None:
        ax.plot(n_grid, simulated_mse, "o", color="black", label="simulated MSE")
    if crossover is not None:
        ax.axvline(crossover, color="grey", ls=":", lw=1.5,
                   label=f"crossover n = {crossover:,.0f}")
    if marker_n is not None:
        ax.axvline(marker_n, color="black", lw=1)
    _log_log(ax)
    ax.set_xlabel("number of records n")
    ax.set_ylabel("mean squared error")
    ax.legend(fontsize=9)
    return ax


def plot_relative_error_vs_p(
    p_grid: ArrayLike,
    private_relative: ArrayLike,
    sampling_relative: ArrayLike,
    simulated_relative: ArrayLike | None = None,
    sim_p: ArrayLike | None = None,
    ax: plt.Axes | None = None,
) -> plt.Axes:
    """Relative root mean squared error sqrt(MSE)/p against p, with and without privacy.

    Examples
    --------
    >>> p = np.array([0.01, 0.1, 0.5])
    >>> ax = plot_relative_error_vs_p(p, [0.4, 0.1, 0.03], [0.3, 0.09, 0.03])
    >>> len(ax.lines)
    2
    >>> plt.close("all")
    """
    if ax is None:
        _, ax = plt.subplots()
    ax.plot(p_grid, private_relative, label="Laplace mechanism (formula)")
    ax.plot(p_grid, sampling_relative, "--", label="no privacy: sqrt(p(1-p)/n)/p")
    if simulated_relative is not None:
        ax.plot(p_grid if sim_p is None else sim_p, simulated_relative, "o", color="black",
                label="simulated")
    _log_log(ax)
    ax.set_xlabel("true proportion p")
    ax.set_ylabel("relative RMSE  sqrt(MSE) / p")
    ax.legend(fontsize=9)
    return ax


def plot_clipping_tradeoff(
    uppers: ArrayLike,
    bias_squared: ArrayLike,
    noise_variance: ArrayLike,
    simulated_mse: ArrayLike | None = None,
    best_upper: float | None = None,
    ax: plt.Axes | None = None,
) -> plt.Axes:
    """MSE of the clipped Laplace mean against the upper clipping bound (log-log).

    Examples
    --------
    >>> uppers = np.array([1e4, 1e5, 1e6])
    >>> ax = plot_clipping_tradeoff(uppers, [1e9, 1e6, 0.0], [1e3, 1e5, 1e7], best_upper=1e5)
    >>> len(ax.lines)
    4
    >>> plt.close("all")
    """
    if ax is None:
        _, ax = plt.subplots()
    uppers = np.asarray(uppers, dtype=float)
    bias_squared = np.asarray(bias_squared, dtype=float)
    noise_variance = np.asarray(noise_variance, dtype=float)
    ax.plot(uppers, bias_squared + noise_variance, label="exact MSE")
    ax.plot(uppers, bias_squared, "--", label="squared clipping bias")
    ax.plot(uppers, noise_variance, "--", label="Laplace noise variance")
    if simulated_mse is not None:
        ax.plot(uppers, simulated_mse, "o", color="black", label="simulated MSE")
    if best_upper is not None:
        ax.axvline(best_upper, color="grey", ls=":", lw=1.5, label=f"best bound {best_upper:,.0f}")
    _log_log(ax)
    ax.set_xlabel("upper clipping bound")
    ax.set_ylabel("mean squared error")
    ax.legend(fontsize=9)
    return ax

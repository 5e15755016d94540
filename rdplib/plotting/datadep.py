"""Figures for the data-dependent-noise chapter (paper, Sec. 6)."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "plot_dkw_check",
    "plot_slack_vs_beta",
    "plot_scale_failures",
    "plot_mean_error_vs_n",
    "plot_mean_release_errors",
]


def plot_dkw_check(
    deviations: ArrayLike,
    simulated: ArrayLike,
    bound: ArrayLike,
    ax: plt.Axes | None = None,
    label: str = "simulated",
) -> plt.Axes:
    """Tail probability of the Kolmogorov distance: simulation (dots) against the DKW bound (line)."""
    if ax is None:
        _, ax = plt.subplots()
    ax.plot(deviations, bound, label=r"DKW–Massart: $2e^{-2mt^2}$")
    ax.plot(deviations, simulated, "o", label=label)
    ax.set_yscale("log")
    ax.set_xlabel(r"deviation $t$")
    ax.set_ylabel(r"$P[\sup_u |D(X,u) - H(u)| > t]$")
    ax.legend()
    return ax


def plot_slack_vs_beta(
    betas: ArrayLike, exact: ArrayLike, paper: ArrayLike, ax: plt.Axes | None = None
) -> plt.Axes:
    """Exact δ of the data-dependent Laplace release against the paper's eq. (9), as β varies."""
    if ax is None:
        _, ax = plt.subplots()
    ax.plot(betas, paper, label=r"paper, eq. (9): $e^{-\varepsilon/(2\beta)}$")
    ax.plot(betas, exact, "o-", label="exact worst case")
    ax.set_yscale("log")
    ax.set_xlabel(r"scale ratio bound $\beta$  ($s_n(X) \leq e^{\beta} s_n(X')$)")
    ax.set_ylabel(r"$\delta$ at $2\varepsilon$")
    ax.legend()
    return ax


def plot_scale_failures(
    n_grid: ArrayLike,
    curves: Mapping[str, ArrayLike],
    bound: ArrayLike | None = None,
    miss: float | None = None,
    ax: plt.Axes | None = None,
) -> plt.Axes:
    """How often the scale is too small (condition 11 fails) against n, with the DKW-based bound."""
    if ax is None:
        _, ax = plt.subplots()
    markers = iter("osd^v")
    for label, values in curves.items():
        ax.plot(n_grid, values, marker=next(markers), label=label)
    if bound is not None:
        ax.plot(n_grid, bound, "--", color="grey", label="bound via DKW")
    if miss is not None:
        ax.axhline(miss, color="black", lw=1, ls=":", label=rf"quantile miss level $\rho$ = {miss:g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of records n")
    ax.set_ylabel("failure probability")
    ax.legend(fontsize=9)
    return ax


def plot_mean_error_vs_n(
    n_grid: ArrayLike, errors: Mapping[str, ArrayLike], ax: plt.Axes | None = None
) -> plt.Axes:
    """Root-mean-square error of private means against n, one curve per method."""
    if ax is None:
        _, ax = plt.subplots()
    markers = iter("osd^v<>")
    for label, values in errors.items():
        ax.plot(n_grid, values, marker=next(markers), label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of records n")
    ax.set_ylabel("RMSE about the sample mean")
    ax.legend(fontsize=9)
    return ax


def plot_mean_release_errors(
    rdp_errors: ArrayLike,
    clipped_errors: ArrayLike,
    ax: plt.Axes | None = None,
    title: str | None = None,
) -> plt.Axes:
    """Histograms of release minus sample mean for the RDP mean and the clipped mean."""
    if ax is None:
        _, ax = plt.subplots()
    rdp_errors = np.asarray(rdp_errors, dtype=float)
    clipped_errors = np.asarray(clipped_errors, dtype=float)
    both = np.concatenate([rdp_errors, clipped_errors])
    lo, hi = np.quantile(both, [0.005, 0.995])
    bins = np.linspace(lo, hi, 50)
    ax.hist(rdp_errors, bins=bins, alpha=0.6, histtype="stepfilled", label="RDP mean (quantile scale)")
    ax.hist(clipped_errors, bins=bins, alpha=0.6, histtype="stepfilled", label="clipped Laplace mean")
    ax.axvline(0.0, color="black", lw=1)
    ax.set_xlabel("release − sample mean")
    ax.set_ylabel("count")
    if title:
        ax.set_title(title)
    ax.legend(fontsize=9)
    return ax

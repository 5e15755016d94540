"""Figures for the histogram chapters (DP histograms, random DP sparse histograms)."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "plot_histogram_releases",
    "plot_risk_vs_k",
    "plot_risk_profile",
    "plot_loss_distributions",
    "plot_bad_event",
    "plot_grid_histogram",
]


def plot_histogram_releases(
    theta: ArrayLike,
    releases: Mapping[str, ArrayLike],
    ax: plt.Axes | None = None,
    title: str | None = None,
) -> plt.Axes:
    """Grouped bars: the true histogram θ beside one or more released histograms.

    Examples
    --------
    >>> ax = plot_histogram_releases([0.5, 0.5, 0.0], {"DP": [0.4, 0.5, 0.1]})
    >>> len(ax.patches)
    6
    """
    if ax is None:
        _, ax = plt.subplots()
    series = {"original": np.asarray(theta, dtype=float)}
    series.update({name: np.asarray(v, dtype=float) for name, v in releases.items()})
    k = series["original"].size
    width = 0.8 / len(series)
    cells = np.arange(k)
    for i, (name, values) in enumerate(series.items()):
        ax.bar(cells + (i - (len(series) - 1) / 2) * width, values, width=width, label=name)
    ax.set_xlabel("cell")
    ax.set_ylabel("proportion")
    if title:
        ax.set_title(title)
    ax.legend(fontsize=9)
    return ax


def plot_risk_vs_k(
    k: ArrayLike,
    risks: Mapping[str, ArrayLike],
    bound: ArrayLike | None = None,
    bound_label: str = "minimax lower bound (Prop. 3.1)",
    ax: plt.Axes | None = None,
) -> plt.Axes:
    """Simulated risk against the number of cells k, one line per method, with an optional bound.

    Examples
    --------
    >>> ax = plot_risk_vs_k([2, 4], {"DP": [0.1, 0.3]}, bound=[0.01, 0.03])
    >>> len(ax.lines)
    2
    """
    if ax is None:
        _, ax = plt.subplots()
    k = np.asarray(k)
    markers = ["o", "s", "^", "D", "v"]
    for i, (name, values) in enumerate(risks.items()):
        ax.plot(k, values, marker=markers[i % len(markers)], label=name)
    if bound is not None:
        ax.plot(k, bound, "--", color="black", label=bound_label)
    ax.set_xlabel("number of cells k")
    ax.set_ylabel(r"risk $E\,\|\hat\theta - \theta\|_1$")
    ax.legend(fontsize=9)
    return ax


def plot_risk_profile(
    theta_first: ArrayLike,
    scaled_risks: Mapping[str, ArrayLike],
    ax: plt.Axes | None = None,
) -> plt.Axes:
    """Risk (scaled by εn) as a function of θ₁ for k = 2, one curve per setting.

    Examples
    --------
    >>> ax = plot_risk_profile([0.0, 0.5, 1.0], {"ε = 1": [1.3, 4.0, 1.3]})
    >>> len(ax.lines)
    1
    """
    if ax is None:
        _, ax = plt.subplots()
    for name, values in scaled_risks.items():
        ax.plot(theta_first, values, label=name)
    ax.set_xlabel(r"$\theta_1$ (share of the first cell)")
    ax.set_ylabel(r"$\varepsilon n \times$ risk")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=9)
    return ax


def plot_loss_distributions(
    losses: Mapping[str, ArrayLike],
    ax: plt.Axes | None = None,
    bins: int | ArrayLike = 30,
    threshold: float | None = None,
    title: str | None = None,
) -> plt.Axes:
    """Overlaid histograms of L1 losses, one per method, with dotted lines at the medians.

    Examples
    --------
    >>> ax = plot_loss_distributions({"DP": [0.3, 0.4], "RDP": [0.05, 0.06]}, threshold=0.5)
    >>> ax.get_xlabel()
    'L1 loss'
    """
    if ax is None:
        _, ax = plt.subplots()
    all_values = np.concatenate([np.asarray(v, dtype=float) for v in losses.values()])
    if np.isscalar(bins):
        top = max(float(all_values.max()), threshold or 0.0) * 1.05
        bins = np.linspace(0.0, top if top > 0 else 1.0, int(bins) + 1)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (name, values) in enumerate(losses.items()):
        values = np.asarray(values, dtype=float)
        color = colors[i % len(colors)]
        ax.hist(values, bins=bins, alpha=0.55, color=color,
                label=f"{name} (median {np.median(values):.3f})")
        ax.axvline(np.median(values), color=color, ls=":", lw=1.5)
    if threshold is not None:
        ax.axvline(threshold, color="black", ls="--", lw=1, label=f"loss = {threshold:g}")
    ax.set_xlabel("L1 loss")
    ax.set_ylabel("number of runs")
    if title:
        ax.set_title(title)
    ax.legend(fontsize=9)
    return ax


def plot_bad_event(
    n: ArrayLike,
    simulated: ArrayLike,
    standard_error: ArrayLike,
    mean_bound: ArrayLike,
    worst_case_bound: ArrayLike,
    gamma: float | None = None,
    ax: plt.Axes | None = None,
) -> plt.Axes:
    """Simulated probability of the bad event of Prop. 5.1 against its bounds, as n grows.

    Examples
    --------
    >>> ax = plot_bad_event([500, 1000], [0.03, 0.01], [0.001, 0.001], [0.06, 0.02], [0.1, 0.05])
    >>> ax.get_yscale()
    'log'
    """
    if ax is None:
        _, ax = plt.subplots()
    n = np.asarray(n)
    ax.errorbar(n, simulated, yerr=2 * np.asarray(standard_error), marker="o", capsize=3,
                label="simulated P(bad event) ± 2 se")
    ax.plot(n, mean_bound, marker="s", label=r"mean of $2|S^*|/(n+1)$")
    ax.plot(n, worst_case_bound, "--", color="black", label=r"$2k/(n+1)$")
    if gamma is not None:
        ax.axhline(gamma, color="grey", ls=":", label=rf"$\gamma$ = {gamma:g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("sample size n")
    ax.set_ylabel("probability")
    ax.legend(fontsize=9)
    return ax


def plot_grid_histogram(
    values: ArrayLike, ax: plt.Axes | None = None, title: str | None = None
) -> plt.Axes:
    """A two-dimensional histogram (a matrix of proportions) as an image with a colour bar.

    Examples
    --------
    >>> ax = plot_grid_histogram(np.eye(3) / 3)
    >>> ax.get_title()
    ''
    """
    if ax is None:
        _, ax = plt.subplots()
    values = np.asarray(values, dtype=float)
    image = ax.imshow(values, cmap="viridis", origin="lower")
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    ax.set_xlabel("column cell")
    ax.set_ylabel("row cell")
    ax.grid(False)
    if title:
        ax.set_title(title)
    return ax

"""Figures for the chapter on the properties of differential privacy."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

__all__ = ["plot_clamped_pmfs", "plot_log_ratio_check", "plot_group_loss", "plot_group_delta",
           "plot_budget_split"]


def plot_clamped_pmfs(
    support: ArrayLike,
    exact: Mapping[str, ArrayLike],
    simulated: Mapping[str, ArrayLike],
    ax: plt.Axes | None = None,
) -> plt.Axes:
    """Exact pmfs (bars, side by side) and simulated frequencies (dots) of post-processed outputs."""
    if ax is None:
        _, ax = plt.subplots()
    support = np.asarray(support, dtype=float)
    width = 0.8 / max(len(exact), 1)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (label, pmf) in enumerate(exact.items()):
        offset = (i - (len(exact) - 1) / 2) * width
        ax.bar(support + offset, np.asarray(pmf, dtype=float), width=width, alpha=0.5,
               color=colours[i], label=f"exact, {label}")
        if label in simulated:
            ax.plot(support + offset, np.asarray(simulated[label], dtype=float), "o",
                    color=colours[i], ms=4, label=f"simulated, {label}")
    ax.set_xlabel("released (rounded, clamped) count")
    ax.set_ylabel("probability")
    ax.legend(fontsize=8)
    return ax


def plot_log_ratio_check(
    support: ArrayLike,
    exact: ArrayLike,
    simulated: ArrayLike,
    epsilon: float,
    ax: plt.Axes | None = None,
    xlabel: str = "output",
) -> plt.Axes:
    """Exact and simulated log-likelihood ratio per output, inside the band ``[-ε, ε]``."""
    if ax is None:
        _, ax = plt.subplots()
    support = np.asarray(support, dtype=float)
    ax.axhspan(-epsilon, epsilon, color="grey", alpha=0.15, label=rf"$\pm\varepsilon = \pm{epsilon:g}$")
    ax.plot(support, np.asarray(exact, dtype=float), "-", marker="s", label="exact")
    ax.plot(support, np.asarray(simulated, dtype=float), "o", label="simulated")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(r"$\ln P[y \mid x] / P[y \mid x']$")
    ax.legend(fontsize=9)
    return ax


def plot_group_loss(
    k: ArrayLike, simulated: ArrayLike, epsilon: float, ax: plt.Axes | None = None
) -> plt.Axes:
    """Worst-case log ratio for datasets ``k`` records apart: simulation against ``kε``."""
    if ax is None:
        _, ax = plt.subplots()
    k = np.asarray(k, dtype=float)
    grid = np.linspace(0, k.max() * 1.05, 100)
    ax.plot(grid, grid * epsilon, label=rf"theory: $k\varepsilon$ ($\varepsilon = {epsilon:g}$)")
    ax.plot(k, np.asarray(simulated, dtype=float), "o", label="simulated log ratio")
    ax.set_xlabel("records changed $k$")
    ax.set_ylabel("log likelihood ratio")
    ax.legend(fontsize=9)
    return ax


def plot_group_delta(
    k: ArrayLike, curves: Mapping[str, ArrayLike], ax: plt.Axes | None = None
) -> plt.Axes:
    """Group-privacy δ factors (δ_k / δ) against ``k`` on a log scale, one curve per bound."""
    if ax is None:
        _, ax = plt.subplots()
    k = np.asarray(k, dtype=float)
    markers = iter(["o", "s", "^", "D"])
    for label, values in curves.items():
        ax.plot(k, np.asarray(values, dtype=float), marker=next(markers, "o"), label=label)
    ax.set_yscale("log")
    ax.set_xlabel("records changed $k$")
    ax.set_ylabel(r"$\delta_k / \delta$")
    ax.legend(fontsize=9)
    return ax


def plot_budget_split(
    num_queries: ArrayLike,
    simulated: ArrayLike,
    formula: ArrayLike,
    ax: plt.Axes | None = None,
    highlight: int | None = None,
    simulated_queries: ArrayLike | None = None,
    log: bool = False,
) -> plt.Axes:
    """RMSE per answer against the number of queries sharing a fixed budget.

    ``formula`` is drawn as a line over ``num_queries``; ``simulated`` as dots over
    ``simulated_queries`` (default: ``num_queries``). Axes are linear (the
    formula is a straight line through the origin) unless ``log`` is True.
    """
    if ax is None:
        _, ax = plt.subplots()
    m = np.asarray(num_queries, dtype=float)
    m_sim = m if simulated_queries is None else np.asarray(simulated_queries, dtype=float)
    ax.plot(m, np.asarray(formula, dtype=float), label=r"formula $\sqrt{2}\,m/\varepsilon$")
    ax.plot(m_sim, np.asarray(simulated, dtype=float), "o", ms=8, label="simulated RMSE")
    if highlight is not None:
        ax.axvline(highlight, color="grey", ls=":", lw=1.2, label=f"m = {highlight}")
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
    else:
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
    ax.set_xlabel("number of queries $m$ sharing the budget")
    ax.set_ylabel("RMSE of each answer")
    ax.legend(fontsize=9)
    return ax

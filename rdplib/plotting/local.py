"""Figures for the local-DP chapter (count-mean sketch and randomized-response baselines)."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

__all__ = ["plot_cms_frequencies", "plot_error_curves"]


def plot_cms_frequencies(
    true_counts: ArrayLike,
    estimates: ArrayLike,
    sd: ArrayLike | None = None,
    top: int = 30,
    ax: plt.Axes | None = None,
    title: str | None = None,
) -> plt.Axes:
    """True (bars) and estimated (dots, ±2 sd whiskers) frequencies of the ``top`` most common items.

    Counts are divided by their total, so the axis shows frequencies.

    Examples
    --------
    >>> ax = plot_cms_frequencies([50, 30, 20], [52.0, 27.0, 21.0], sd=[3, 3, 3])
    >>> len(ax.patches)
    3
    """
    if ax is None:
        _, ax = plt.subplots()
    true_counts = np.asarray(true_counts, dtype=float)
    estimates = np.asarray(estimates, dtype=float)
    total = true_counts.sum()
    order = np.argsort(-true_counts, kind="stable")[:top]
    ranks = np.arange(1, order.size + 1)
    ax.bar(ranks, true_counts[order] / total, color="0.8", label="true frequency")
    yerr = None if sd is None else 2 * np.broadcast_to(np.asarray(sd, dtype=float), true_counts.shape)[order] / total
    ax.errorbar(ranks, estimates[order] / total, yerr=yerr, fmt="o", ms=4, capsize=2,
                label="estimate" + ("" if sd is None else " ± 2 sd (formula)"))
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xlabel("item rank")
    ax.set_ylabel("frequency")
    if title:
        ax.set_title(title)
    ax.legend(fontsize=9)
    return ax


def plot_error_curves(
    x: ArrayLike,
    curves: Mapping[str, tuple[ArrayLike, ArrayLike | None]],
    xlabel: str,
    ylabel: str = "RMSE of a count (users)",
    ax: plt.Axes | None = None,
    logx: bool = True,
) -> plt.Axes:
    """Formula (line) and simulation (dots, same colour) for several methods on log axes.

    ``curves`` maps a label to ``(formula, simulated)``; ``simulated`` may be ``None``.

    Examples
    --------
    >>> ax = plot_error_curves([1, 2, 4], {"a": ([3, 2, 1], [3.1, 1.9, 1.0])}, "x")
    >>> len(ax.lines)
    2
    """
    if ax is None:
        _, ax = plt.subplots()
    for label, (formula, simulated) in curves.items():
        (line,) = ax.plot(x, formula, label=f"{label}: formula")
        if simulated is not None:
            ax.plot(x, simulated, "o", color=line.get_color(), label=f"{label}: simulation")
    if logx:
        ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    return ax

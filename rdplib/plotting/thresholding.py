"""Figures for the thresholding chapter (unknown categories and (ε, δ)-DP)."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "plot_noisy_categories",
    "plot_threshold_delta",
    "plot_expected_leaks",
    "plot_catastrophic_leaks",
]


def plot_noisy_categories(
    categories: Sequence[str],
    true_counts: ArrayLike,
    noisy_counts: ArrayLike,
    threshold: float | None = None,
    ax: plt.Axes | None = None,
    title: str | None = None,
) -> plt.Axes:
    """Bar chart of a noisy histogram: true counts (outline) and released noisy counts (filled).

    Categories whose noisy count is NaN (suppressed) show only their outline, so the
    reader sees what thresholding removed.
    """
    if ax is None:
        _, ax = plt.subplots()
    true_counts = np.asarray(true_counts, dtype=float)
    noisy_counts = np.asarray(noisy_counts, dtype=float)
    x = np.arange(len(categories))
    released = ~np.isnan(noisy_counts)
    ax.bar(x[released], noisy_counts[released], width=0.6, label="released noisy count")
    ax.bar(x, true_counts, width=0.6, fill=False, edgecolor="black", linestyle="--",
           label="true count")
    if threshold is not None:
        ax.axhline(threshold, color="C3", lw=1.2, label=f"threshold T = {threshold:g}")
    ax.set_xticks(x, categories)
    ax.set_ylabel("count")
    if title:
        ax.set_title(title)
    ax.legend(fontsize=8)
    return ax


def plot_threshold_delta(
    thresholds: ArrayLike,
    exact: ArrayLike,
    simulated: ArrayLike | None = None,
    label: str = "",
    ax: plt.Axes | None = None,
    color: str | None = None,
    num_trials: int | None = None,
    min_hits: int = 10,
) -> plt.Axes:
    """δ(T) on a log scale: the exact curve (line) and simulated frequencies (dots).

    Simulated values of zero are left out of the log plot; when ``num_trials`` is given,
    so are those resting on fewer than ``min_hits`` hits (too noisy to show).
    """
    if ax is None:
        _, ax = plt.subplots()
    thresholds = np.asarray(thresholds, dtype=float)
    (line,) = ax.plot(thresholds, exact, color=color, label=f"exact {label}".strip())
    if simulated is not None:
        simulated = np.asarray(simulated, dtype=float)
        shown = simulated > 0
        if num_trials is not None:
            shown &= np.rint(simulated * num_trials) >= min_hits
        ax.plot(thresholds[shown], simulated[shown], "o", color=line.get_color(), ms=5,
                label=f"simulated {label}".strip())
    ax.set_yscale("log")
    ax.set_xlabel("threshold T")
    ax.set_ylabel(r"$\delta(T) = P[1 + \mathrm{Lap}(1/\varepsilon) \geq T]$")
    ax.legend(fontsize=8)
    return ax


def plot_expected_leaks(
    thresholds: ArrayLike,
    leaks: ArrayLike,
    target: float,
    ax: plt.Axes | None = None,
    marks: Sequence[int] = (),
    n: int | None = None,
) -> plt.Axes:
    """Expected number of exposed singletons ``n δ(T)`` against T, with the target line."""
    if ax is None:
        _, ax = plt.subplots()
    thresholds = np.asarray(thresholds, dtype=float)
    leaks = np.asarray(leaks, dtype=float)
    ax.plot(thresholds, leaks, "o-", label=r"$n\,\delta(T)$" + (f", n = {n:,}" if n else ""))
    ax.axhline(target, color="C3", lw=1.2, label=f"target {target:g}")
    for t in marks:
        idx = np.flatnonzero(thresholds == t)
        if idx.size:
            ax.annotate(f"T = {t}: {leaks[idx[0]]:.3f}", (t, leaks[idx[0]]),
                        textcoords="offset points", xytext=(8, 8), fontsize=9)
    ax.set_yscale("log")
    ax.set_xlabel("threshold T")
    ax.set_ylabel("expected exposed people")
    ax.legend(fontsize=8)
    return ax


def plot_catastrophic_leaks(
    leaks: ArrayLike, delta: float, ax: plt.Axes | None = None
) -> plt.Axes:
    """Cumulative number of full-database leaks over repeated runs, against ``δ × runs``."""
    if ax is None:
        _, ax = plt.subplots()
    leaks = np.asarray(leaks, dtype=bool)
    runs = np.arange(1, leaks.size + 1)
    ax.step(runs, np.cumsum(leaks), where="post", label="simulated leaks of the whole database")
    ax.plot(runs, delta * runs, "--", label=r"expected: $\delta \times$ runs")
    ax.set_xlabel("number of runs")
    ax.set_ylabel("cumulative leaks")
    ax.legend(fontsize=8)
    return ax

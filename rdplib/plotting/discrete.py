"""Figures for the chapter on discrete noise and noise that fails pure DP."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

__all__ = ["plot_pmf_check", "plot_ratio_by_output", "plot_privacy_loss"]


def plot_pmf_check(
    d: ArrayLike,
    exact: ArrayLike,
    simulated: ArrayLike,
    ax: plt.Axes | None = None,
    label: str = "exact pmf",
) -> plt.Axes:
    """Exact pmf (bars) against simulated frequencies (dots), log scale on y."""
    if ax is None:
        _, ax = plt.subplots()
    d = np.asarray(d)
    ax.bar(d, np.asarray(exact, dtype=float), width=0.7, alpha=0.5, label=label)
    ax.plot(d, np.asarray(simulated, dtype=float), "o", label="simulated frequency")
    ax.set_yscale("log")
    ax.set_xlabel("noise value $d$")
    ax.set_ylabel("probability")
    ax.legend(fontsize=9)
    return ax


def plot_ratio_by_output(
    outputs: ArrayLike,
    ratios: Mapping[str, ArrayLike],
    ax: plt.Axes | None = None,
    bounds: Mapping[str, float] | None = None,
) -> plt.Axes:
    """Likelihood ratio ``P[y | x] / P[y | x']`` against the output ``y`` (log scale).

    ``ratios`` maps a legend label to the ratio at each output; ``bounds`` maps
    a label to a horizontal reference line (e.g. ``e^ε``).
    """
    if ax is None:
        _, ax = plt.subplots()
    outputs = np.asarray(outputs)
    markers = iter(["o", "s", "^", "D"])
    for label, values in ratios.items():
        ax.plot(outputs, np.asarray(values, dtype=float), marker=next(markers, "o"),
                lw=1, label=label)
    for (label, value), style in zip((bounds or {}).items(), ["--", ":", "-."], strict=False):
        ax.axhline(value, color="grey", ls=style, lw=1.2, label=label)
        ax.axhline(1 / value, color="grey", ls=style, lw=1.2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("output $y$")
    ax.set_ylabel(r"$P[y \mid x] \,/\, P[y \mid x']$")
    ax.legend(fontsize=9)
    return ax


def plot_privacy_loss(
    y: ArrayLike,
    losses: Mapping[str, ArrayLike],
    ax: plt.Axes | None = None,
    epsilon: float | None = None,
    infinite_spans: Mapping[str, tuple[float, float]] | None = None,
) -> plt.Axes:
    """Privacy loss ``ln p_x(y)/p_x'(y)`` against the output ``y``, one curve per noise.

    ``epsilon`` draws the band ``[-ε, ε]``; ``infinite_spans`` shades output
    intervals on which a loss is infinite (one-sided noise).
    """
    if ax is None:
        _, ax = plt.subplots()
    y = np.asarray(y, dtype=float)
    for label, values in losses.items():
        values = np.asarray(values, dtype=float)
        ax.plot(y, np.where(np.isfinite(values), values, np.nan), label=label)
    for label, (lo, hi) in (infinite_spans or {}).items():
        ax.axvspan(lo, hi, color="#D55E00", alpha=0.2, label=label)
    if epsilon is not None:
        ax.axhspan(-epsilon, epsilon, color="grey", alpha=0.15,
                   label=rf"$|L| \leq \varepsilon = {epsilon:g}$")
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xlabel("output $y$")
    ax.set_ylabel("privacy loss $L(y)$")
    ax.legend(fontsize=9)
    return ax

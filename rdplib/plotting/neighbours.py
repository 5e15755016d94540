"""Figures for chapter 1: neighbouring datasets, sensitivity and the privacy loss."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

from ..sensitivity import laplace_density, laplace_privacy_loss, laplace_privacy_loss_cdf

__all__ = [
    "plot_neighbour_densities",
    "plot_privacy_loss_cdf",
    "plot_sensitivity_comparison",
    "plot_output_histograms",
]


def plot_neighbour_densities(
    value: float,
    neighbour_value: float,
    scale: float,
    epsilon: float | None = None,
    ax: plt.Axes | None = None,
    show_loss: bool = True,
    labels: tuple[str, str] = ("on x", "on x'"),
) -> plt.Axes:
    """Laplace output densities on two neighbours and, on a second axis, the privacy loss.

    Parameters
    ----------
    value, neighbour_value : float
        True answers of the query on ``x`` and on its neighbour ``x'``.
    scale : float
        Laplace noise scale ``b = sensitivity / ε``.
    epsilon : float, optional
        The promised ε; drawn as dotted lines ``±ε`` on the loss axis.
    show_loss : bool
        Draw the privacy loss ``ln p_x(y) / p_x'(y)`` on a twin axis.

    Returns
    -------
    matplotlib.axes.Axes
        The density axes (the loss axes is ``ax.loss_axes`` when drawn).

    Examples
    --------
    >>> ax = plot_neighbour_densities(10, 11, scale=1.0, epsilon=1.0)
    >>> len(ax.lines), [round(float(v), 2) for v in ax.loss_axes.get_ylim()]
    (2, [-1.3, 1.3])
    >>> plt.close("all")
    """
    if ax is None:
        _, ax = plt.subplots()
    lo, hi = min(value, neighbour_value), max(value, neighbour_value)
    grid = np.linspace(lo - 6 * scale, hi + 6 * scale, 600)
    ax.plot(grid, laplace_density(grid, value, scale), label=f"density {labels[0]}")
    ax.plot(grid, laplace_density(grid, neighbour_value, scale), label=f"density {labels[1]}")
    ax.set_xlabel("released value y")
    ax.set_ylabel("density")
    if show_loss:
        loss_ax = ax.twinx()
        loss = laplace_privacy_loss(grid, value, neighbour_value, scale)
        loss_ax.plot(grid, loss, color="black", lw=1.5, ls="--", label="privacy loss (right axis)")
        top = 1.3 * max(np.abs(loss).max(), epsilon or 0.0, 1e-9)
        loss_ax.set_ylim(-top, top)
        if epsilon is not None:
            for level in (-epsilon, epsilon):
                loss_ax.axhline(level, color="grey", ls=":", lw=1)
        loss_ax.set_ylabel("privacy loss  ln p(y|x) / p(y|x')")
        loss_ax.grid(False)
        loss_ax.spines["right"].set_visible(True)
        handles, names = ax.get_legend_handles_labels()
        h2, n2 = loss_ax.get_legend_handles_labels()
        ax.legend(handles + h2, names + n2, fontsize=9, loc="upper right")
        ax.loss_axes = loss_ax
    else:
        ax.legend(fontsize=9)
    return ax


def plot_privacy_loss_cdf(
    losses: ArrayLike, epsilon: float, ax: plt.Axes | None = None
) -> plt.Axes:
    """Empirical CDF of sampled privacy losses against the exact CDF.

    Examples
    --------
    >>> from rdplib.sensitivity import sample_laplace_privacy_loss
    >>> ax = plot_privacy_loss_cdf(sample_laplace_privacy_loss(1.0, 1_000, rng=0), 1.0)
    >>> ax.get_xlabel()
    'privacy loss L'
    >>> plt.close("all")
    """
    if ax is None:
        _, ax = plt.subplots()
    losses = np.sort(np.asarray(losses, dtype=float))
    grid = np.linspace(-1.3 * epsilon, 1.3 * epsilon, 600)
    ax.plot(grid, laplace_privacy_loss_cdf(grid, epsilon), label="exact CDF")
    steps = np.linspace(-1.3 * epsilon, 1.3 * epsilon, 53)
    empirical = np.searchsorted(losses, steps, side="right") / losses.size
    ax.plot(steps, empirical, "o", label="simulated")
    for level in (-epsilon, epsilon):
        ax.axvline(level, color="grey", ls=":", lw=1)
    ax.set_xlabel("privacy loss L")
    ax.set_ylabel(r"$P[L \leq \ell]$")
    ax.legend()
    return ax


def plot_sensitivity_comparison(
    labels: list[str], formula: ArrayLike, brute_force: ArrayLike, ax: plt.Axes | None = None
) -> plt.Axes:
    """Side-by-side bars: sensitivity from the formula and by brute force over all neighbours.

    Examples
    --------
    >>> ax = plot_sensitivity_comparison(["COUNT", "SUM"], [1, 200], [1, 200])
    >>> len(ax.patches)
    4
    >>> plt.close("all")
    """
    if ax is None:
        _, ax = plt.subplots()
    positions = np.arange(len(labels))
    width = 0.38
    ax.bar(positions - width / 2, formula, width, label="formula")
    ax.bar(positions + width / 2, brute_force, width, label="brute force")
    ax.set_xticks(positions, labels, rotation=20, ha="right")
    ax.set_ylabel("sensitivity")
    ax.set_yscale("log")
    ax.legend()
    return ax


def plot_output_histograms(
    outputs: ArrayLike,
    neighbour_outputs: ArrayLike,
    bins: ArrayLike,
    ax: plt.Axes | None = None,
    labels: tuple[str, str] = ("on x", "on x'"),
    title: str | None = None,
) -> plt.Axes:
    """Histograms (as probabilities per bin) of a mechanism's outputs on two neighbours.

    Examples
    --------
    >>> ax = plot_output_histograms([10, 10, 11], [11, 11, 12], bins=np.arange(8.5, 14))
    >>> ax.get_ylabel()
    'probability per bin'
    >>> plt.close("all")
    """
    if ax is None:
        _, ax = plt.subplots()
    bins = np.asarray(bins, dtype=float)
    for sample, label in ((outputs, labels[0]), (neighbour_outputs, labels[1])):
        sample = np.asarray(sample, dtype=float)
        counts, _ = np.histogram(sample, bins=bins)
        ax.stairs(counts / sample.size, bins, label=label, lw=2)
    ax.set_xlabel("released value")
    ax.set_ylabel("probability per bin")
    if title:
        ax.set_title(title)
    ax.legend(fontsize=9)
    return ax

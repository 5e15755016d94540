"""Figures for the auditing chapter."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

__all__ = ["plot_bound_vs_trials", "plot_threshold_bounds", "plot_audit_verdicts"]


def plot_bound_vs_trials(
    trials: ArrayLike,
    simulated: ArrayLike,
    expected: ArrayLike,
    true_epsilon: float,
    ax: plt.Axes | None = None,
    label: str = "",
) -> plt.Axes:
    """Audit bound against the number of trials: simulated runs (dots), typical bound (line), true ε.

    ``simulated`` has shape ``(len(trials),)`` or ``(runs, len(trials))``.

    Examples
    --------
    >>> ax = plot_bound_vs_trials([100, 1000], [[0.5, 0.8], [0.4, 0.9]], [0.45, 0.85], 1.0)
    >>> ax.get_xscale()
    'log'
    """
    if ax is None:
        _, ax = plt.subplots()
    trials = np.asarray(trials, dtype=float)
    sims = np.atleast_2d(np.asarray(simulated, dtype=float))
    prefix = f"{label}: " if label else ""
    (line,) = ax.plot(trials, expected, label=f"{prefix}bound at expected counts")
    for i, row in enumerate(sims):
        ax.plot(trials, row, "o", ms=3, alpha=0.6, color=line.get_color(),
                label=f"{prefix}simulated audits" if i == 0 else None)
    ax.axhline(true_epsilon, ls="--", color=line.get_color(), lw=1, label=f"{prefix}true ε = {true_epsilon:.3g}")
    ax.set_xscale("log")
    ax.set_xlabel("trials on each input")
    ax.set_ylabel("lower bound on ε (95 %)")
    ax.legend(fontsize=8)
    return ax


def plot_threshold_bounds(
    thresholds: ArrayLike,
    bounds: ArrayLike,
    claim: float | None = None,
    true_epsilon: float | None = None,
    ax: plt.Axes | None = None,
    label: str = "bound at each threshold",
) -> plt.Axes:
    """Lower bound on ε as a function of the threshold of the event, with the claim and truth.

    Examples
    --------
    >>> ax = plot_threshold_bounds([0, 1, 2], [0.2, 0.9, 0.7], claim=1.0)
    >>> len(ax.lines)
    2
    """
    if ax is None:
        _, ax = plt.subplots()
    ax.plot(thresholds, bounds, "o-", ms=3, label=label)
    if claim is not None:
        ax.axhline(claim, color="C3", ls="--", label=f"claimed ε = {claim:.3g}")
    if true_epsilon is not None and np.isfinite(true_epsilon):
        ax.axhline(true_epsilon, color="black", ls=":", label=f"true ε = {true_epsilon:.3g}")
    ax.set_xlabel("threshold t")
    ax.set_ylabel("lower bound on ε")
    ax.legend(fontsize=8)
    return ax


def plot_audit_verdicts(
    names: Sequence[str], bounds: ArrayLike, claims: ArrayLike, ax: plt.Axes | None = None
) -> plt.Axes:
    """Bars of the audited lower bounds with a marker at each mechanism's claimed ε.

    Examples
    --------
    >>> ax = plot_audit_verdicts(["a", "b"], [0.9, 2.5], [1.0, 1.0])
    >>> len(ax.patches)
    2
    """
    if ax is None:
        _, ax = plt.subplots()
    bounds = np.asarray(bounds, dtype=float)
    claims = np.asarray(claims, dtype=float)
    positions = np.arange(len(names))
    colours = ["C2" if b <= c else "C3" for b, c in zip(bounds, claims, strict=True)]
    ax.bar(positions, bounds, color=colours, alpha=0.8, label="audited lower bound")
    ax.plot(positions, claims, "k_", ms=30, mew=2, label="claimed ε")
    ax.set_xticks(positions, names, rotation=15)
    ax.set_ylabel("ε")
    ax.legend(fontsize=9)
    return ax

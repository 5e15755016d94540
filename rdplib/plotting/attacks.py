"""Figures for the chapter on what random differential privacy does not protect."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import ArrayLike

__all__ = ["plot_attack_view", "plot_attack_success", "plot_success_by_cell"]


def plot_attack_view(
    release: ArrayLike,
    known_counts: ArrayLike,
    n: int,
    target: int | None = None,
    ax: plt.Axes | None = None,
    title: str | None = None,
) -> plt.Axes:
    """What the adversary sees: the released proportions beside the known n − 1 counts / n."""
    if ax is None:
        _, ax = plt.subplots()
    release = np.asarray(release, dtype=float)
    known = np.asarray(known_counts, dtype=float) / n
    cells = np.arange(release.size)
    ax.plot(cells, known, "o", ms=5, label="known records / n")
    ax.plot(cells, release, "x", ms=6, mew=1.5, label="released")
    if target is not None:
        ax.axvline(target, color="black", ls=":", lw=1, label="last record's cell")
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.set_xlabel("cell")
    ax.set_ylabel("proportion")
    if title:
        ax.set_title(title)
    ax.legend(fontsize=9)
    return ax


def plot_attack_success(
    epsilons: ArrayLike,
    rates: Mapping[str, ArrayLike],
    bound: ArrayLike | None = None,
    baseline: float | None = None,
    ax: plt.Axes | None = None,
) -> plt.Axes:
    """Attack success rate against ε: one curve per mechanism, with the ε-DP bound."""
    if ax is None:
        _, ax = plt.subplots()
    markers = iter("osd^v")
    for label, values in rates.items():
        ax.plot(epsilons, values, marker=next(markers), label=label)
    if bound is not None:
        ax.plot(epsilons, bound, "--", color="grey", label=r"ε-DP bound $e^{\varepsilon}/k$")
    if baseline is not None:
        ax.axhline(baseline, color="black", lw=1, ls=":", label="blind guess 1/k")
    epsilons = np.asarray(epsilons, dtype=float)
    ax.set_xscale("log")
    ax.set_xticks(epsilons)
    ax.set_xticklabels([f"{e:g}" for e in epsilons])
    ax.minorticks_off()
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel("P[adversary names the right cell]")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=9)
    return ax


def plot_success_by_cell(
    p: ArrayLike,
    success: Mapping[str, ArrayLike],
    alone: ArrayLike | None = None,
    ax: plt.Axes | None = None,
) -> plt.Axes:
    """Success rate by the target's true cell, against the cell's population probability."""
    if ax is None:
        _, ax = plt.subplots()
    p = np.asarray(p, dtype=float)
    markers = iter("osd^v")
    for label, values in success.items():
        ax.plot(p, values, marker=next(markers), ls="none", label=label)
    if alone is not None:
        order = np.argsort(p)
        ax.plot(p[order], np.asarray(alone)[order], color="grey",
                label=r"P[alone] $=(1-p_j)^{n-1}$")
    ax.set_xscale("log")
    ax.set_xlabel(r"population probability $p_j$ of the target's cell")
    ax.set_ylabel("success rate")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=9)
    return ax

"""Explorer for the thresholding chapter: ε, the threshold T and the number of people n."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..accounting import threshold_delta, threshold_for_delta
from ..thresholding import expected_leaks, prob_any_leak, release_probability
from ._base import Explorer


def threshold_summary(epsilon: float, threshold: float, n: int, target: float = 0.1) -> dict:
    """The numbers the explorer shows for one setting of ε, T and n.

    Examples
    --------
    >>> out = threshold_summary(np.log(3), 16, 10**6)
    >>> out["threshold needed for n·δ ≤ 0.1"], round(out["n · δ"], 4)
    (16, 0.0348)
    """
    n = int(round(n))
    delta = float(threshold_delta(threshold, epsilon))
    return {
        "δ = P[1 + Lap(1/ε) ≥ T]": delta,
        "n · δ": float(expected_leaks(n, delta)),
        "P[at least one singleton released]": float(prob_any_leak(n, delta)),
        f"threshold needed for n·δ ≤ {target:g}": threshold_for_delta(target / n, epsilon),
        "P[a category of 10 people is released]": float(release_probability(10, threshold, epsilon)),
    }


def draw_threshold_delta(ax, epsilon: float, threshold: float, n: int, target: float = 0.1):
    """δ(T) on a log scale for this ε, with the current T and the level target/n marked."""
    n = int(round(n))
    grid = np.arange(0, 31)
    ax.plot(grid, threshold_delta(grid, epsilon), "-", label=r"$\delta(T)$")
    ax.axhline(target / n, color="C3", lw=1.2, label=f"{target:g}/n, n = {n:,}")
    delta = float(threshold_delta(threshold, epsilon))
    ax.plot([threshold], [delta], "o", color="black", ms=7, label=f"T = {threshold:g}: δ = {delta:.2e}")
    ax.set_yscale("log")
    ax.set_ylim(1e-14, 1.0)
    ax.set_xlabel("threshold T")
    ax.set_ylabel(r"$\delta$")
    ax.set_title(f"ε = {epsilon:.3g}")
    ax.legend(fontsize=8, loc="lower left")
    return ax


def threshold_explorer(target: float = 0.1) -> Explorer:
    """Sliders for ε, the threshold T and log10 of n; prints δ, nδ and the threshold needed.

    Examples
    --------
    >>> ex = threshold_explorer()
    >>> ex.controls["threshold"].value = 15
    >>> round(ex.results["n · δ"], 4)
    0.1045
    """

    def compute(epsilon: float, threshold: float, n: float) -> dict:
        return threshold_summary(epsilon, threshold, int(round(n)), target=target)

    def draw(ax, results, epsilon, threshold, n):
        draw_threshold_delta(ax, epsilon, threshold, int(round(n)), target=target)

    controls = {
        "epsilon": widgets.FloatSlider(value=float(np.log(3)), min=0.1, max=3.0,
                                       step=0.05, description="ε"),
        "threshold": widgets.IntSlider(value=16, min=1, max=30, step=1, description="T"),
        "n": widgets.FloatLogSlider(value=1e6, base=10, min=2, max=9, step=1, description="n"),
    }
    return Explorer(controls, compute, draw, title="Thresholding: δ against the threshold")


__all__ = ["threshold_explorer", "threshold_summary", "draw_threshold_delta"]

"""Explorer for the local-DP chapter: the count-mean sketch on a Zipf population."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..local import (
    CountMeanSketch,
    cms_flip_probability,
    cms_variance,
    kary_rr_variance,
    unary_rr_variance,
    zipf_counts,
)
from ..plotting.local import plot_cms_frequencies
from ._base import Explorer

__all__ = ["cms_simulation", "cms_explorer"]


def cms_simulation(
    epsilon: float,
    num_users: int,
    num_hashes: int,
    width: int,
    num_items: int = 300,
    exponent: float = 1.0,
    seed: int = 0,
) -> dict:
    """One count-mean-sketch collection from a Zipf population, with the formulas beside it.

    Draws the population's item counts and one sketch (hash functions and
    every user's report) from ``seed``. Returns the flip probability, the
    simulated and predicted root-mean-squared error over all items, the top
    item's true and estimated count, the predicted RMSE of the two
    randomized-response baselines, and the arrays ``"counts"``,
    ``"estimates"`` and ``"sd"`` (predicted per item).

    Examples
    --------
    >>> sim = cms_simulation(4.0, 100_000, 16, 256, seed=0)
    >>> sim["top item: true count"], round(sim["top item: estimate"])
    (16060, 16073)
    """
    rng = np.random.default_rng(seed)
    counts = zipf_counts(num_items, num_users, exponent, rng=rng)
    sketch = CountMeanSketch(epsilon, num_hashes, width, rng=rng)
    sketch.collect_counts(counts)
    estimates = sketch.estimate(np.arange(num_items))
    mse = cms_variance(counts, epsilon, num_hashes, width)
    return {
        "flip probability": cms_flip_probability(epsilon),
        "RMSE, simulated": float(np.sqrt(np.mean((estimates - counts) ** 2))),
        "RMSE, formula": float(np.sqrt(np.mean(mse))),
        "top item: true count": int(counts[0]),
        "top item: estimate": float(estimates[0]),
        "RMSE, one RR bit per item (formula)": float(np.sqrt(unary_rr_variance(num_users, epsilon))),
        "RMSE, K-ary RR (formula)": float(np.sqrt(np.mean(kary_rr_variance(counts, epsilon)))),
        "counts": counts,
        "estimates": estimates,
        "sd": np.sqrt(mse),
    }


def cms_explorer(seed: int = 0, num_items: int = 300) -> Explorer:
    """Sliders for ε, the number of users, the number of hashes m and the width w.

    Examples
    --------
    >>> ex = cms_explorer()
    >>> ex.controls["epsilon"].value = 2.0
    >>> round(ex.results["flip probability"], 4)
    0.2689
    """
    arrays = ("counts", "estimates", "sd")
    latest: dict = {}  # the arrays of the last compute, reused by draw

    def compute(epsilon: float, num_users: int, num_hashes: int, width: int) -> dict:
        out = cms_simulation(epsilon, num_users, num_hashes, width, num_items=num_items, seed=seed)
        for key in arrays:
            latest[key] = out.pop(key)
        return out

    def draw(ax, results, epsilon, num_users, num_hashes, width):
        sim = latest
        plot_cms_frequencies(sim["counts"], sim["estimates"], sim["sd"], top=30, ax=ax,
                             title=f"ε = {epsilon:g}, {num_users:,} users, m = {num_hashes}, w = {width}")

    controls = {
        "epsilon": widgets.FloatSlider(value=4.0, min=0.5, max=10.0, step=0.5, description="ε"),
        "num_users": widgets.IntSlider(value=200_000, min=10_000, max=2_000_000, step=10_000,
                                       description="users"),
        "num_hashes": widgets.IntSlider(value=16, min=1, max=128, step=1, description="hashes m"),
        "width": widgets.SelectionSlider(options=[2**k for k in range(3, 13)], value=256,
                                         description="width w"),
    }
    return Explorer(controls, compute, draw, title="Private count-mean sketch on a Zipf population")

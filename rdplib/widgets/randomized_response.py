"""Explorer for the randomized-response chapter."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..mechanisms import randomized_response, rr_estimate, rr_flip_probability, rr_variance
from ..plotting.randomized_response import plot_rr_estimate_distribution
from ._base import Explorer


def rr_simulation(epsilon: float, n: int, p: float, num_surveys: int = 400, seed: int = 0) -> dict:
    """Run ``num_surveys`` independent randomized-response surveys of ``n`` people.

    Returns the flip probability, the exact and simulated standard deviation of
    the estimate, and the estimates themselves (key ``"estimates"``).
    """
    rng = np.random.default_rng(seed)
    truth = (rng.random((num_surveys, n)) < p).astype(np.int8)
    estimates = rr_estimate(randomized_response(truth, epsilon, rng=rng), epsilon, axis=1)
    return {
        "flip probability": rr_flip_probability(epsilon),
        "exact sd of estimate": float(np.sqrt(rr_variance(p, n, epsilon))),
        "simulated sd of estimate": float(np.std(estimates, ddof=1)),
        "sd without privacy": float(np.sqrt(p * (1 - p) / n)),
        "estimates": estimates,
    }


def rr_explorer(seed: int = 0, num_surveys: int = 400) -> Explorer:
    """Sliders for ε, n and the true proportion p; shows the spread of the RR estimate.

    Examples
    --------
    >>> ex = rr_explorer()
    >>> ex.controls["epsilon"].value = 2.0
    >>> round(ex.results["flip probability"], 4)
    0.1192
    """

    def compute(epsilon: float, n: int, p: float) -> dict:
        out = rr_simulation(epsilon, n, p, num_surveys=num_surveys, seed=seed)
        out.pop("estimates")
        return out

    def draw(ax, results, epsilon, n, p):
        sim = rr_simulation(epsilon, n, p, num_surveys=num_surveys, seed=seed)
        plot_rr_estimate_distribution(
            sim["estimates"], p, results["exact sd of estimate"], ax=ax,
            title=f"ε = {epsilon:g}, n = {n:,}, p = {p:g}",
        )

    controls = {
        "epsilon": widgets.FloatSlider(value=1.0, min=0.1, max=5.0, step=0.1, description="ε"),
        "n": widgets.IntSlider(value=1_000, min=100, max=10_000, step=100, description="n"),
        "p": widgets.FloatSlider(value=0.3, min=0.0, max=1.0, step=0.05, description="p"),
    }
    return Explorer(controls, compute, draw, title="Randomized response: spread of the estimate")


__all__ = ["rr_explorer", "rr_simulation"]

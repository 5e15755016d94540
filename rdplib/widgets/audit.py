"""Explorer for the auditing chapter: audit a mechanism's ε claim with a threshold search."""

from __future__ import annotations

import math

import ipywidgets as widgets
import numpy as np

from ..audit import (
    audit_threshold_search,
    coin_flip_geometric_sampler,
    gaussian_sampler,
    laplace_sampler,
    one_sided_sampler,
    rr_sampler,
)
from ..plotting.audit import plot_threshold_bounds
from ._base import Explorer

__all__ = ["MECHANISMS", "audit_setup", "audit_simulation", "audit_explorer"]

MECHANISMS = (
    "Laplace",
    "randomized response",
    "Gaussian as pure DP",
    "one-sided noise",
    "coin-flip geometric",
)


def audit_setup(mechanism: str, epsilon: float) -> dict:
    """Sampler, neighbouring inputs, thresholds, claimed ε and true ε of a named mechanism.

    ``epsilon`` is the claim: the noise is calibrated as if the mechanism
    were ε-DP with sensitivity 1 (Laplace scale 1/ε, Gaussian σ = 1/ε,
    exponential scale 1/ε). The coin-flip geometric mechanism has no
    parameter: its claim is ln 2 whatever ``epsilon`` is, its truth ln 4.

    Examples
    --------
    >>> setup = audit_setup("coin-flip geometric", 1.0)
    >>> round(setup["claimed epsilon"], 4), round(setup["true epsilon"], 4)
    (0.6931, 1.3863)
    """
    if mechanism == "Laplace":
        return {"sampler": laplace_sampler(epsilon), "x": 1.0, "x_prime": 0.0,
                "thresholds": np.linspace(-2.0, 5.0, 29), "claimed epsilon": epsilon,
                "true epsilon": epsilon}
    if mechanism == "randomized response":
        return {"sampler": rr_sampler(epsilon), "x": 1, "x_prime": 0, "thresholds": np.array([0.5]),
                "claimed epsilon": epsilon, "true epsilon": epsilon}
    if mechanism == "Gaussian as pure DP":
        sigma = 1.0 / epsilon
        return {"sampler": gaussian_sampler(sigma), "x": 1.0, "x_prime": 0.0,
                "thresholds": np.linspace(-2.0, 5.0, 29) * sigma, "claimed epsilon": epsilon,
                "true epsilon": math.inf}
    if mechanism == "one-sided noise":
        return {"sampler": one_sided_sampler(1.0 / epsilon), "x": 0.0, "x_prime": 1.0,
                "thresholds": np.linspace(-1.0, 6.0, 29) / epsilon, "claimed epsilon": epsilon,
                "true epsilon": math.inf}
    if mechanism == "coin-flip geometric":
        return {"sampler": coin_flip_geometric_sampler(), "x": 0, "x_prime": 1,
                "thresholds": np.arange(-4.5, 5.0), "claimed epsilon": math.log(2),
                "true epsilon": math.log(4)}
    raise ValueError(f"mechanism: must be one of {MECHANISMS}, got {mechanism!r}")


def audit_simulation(mechanism: str, epsilon: float, trials: int, seed: int = 0) -> dict:
    """Run a Bonferroni-corrected threshold-search audit of a mechanism's claim.

    Returns the claim, the true ε, the 95 % lower bound, the best threshold,
    the verdict, and (key ``"result"``) the full
    :class:`~rdplib.audit.ThresholdAuditResult`.

    Examples
    --------
    >>> out = audit_simulation("one-sided noise", 1.0, 10_000)
    >>> out["verdict"]
    'claim refuted'
    """
    setup = audit_setup(mechanism, epsilon)
    result = audit_threshold_search(setup["sampler"], setup["x"], setup["x_prime"], setup["thresholds"],
                                    trials=trials, rng=seed)
    refuted = result.epsilon_lower > setup["claimed epsilon"]
    return {
        "claimed ε": float(setup["claimed epsilon"]),
        "true ε": float(setup["true epsilon"]),
        "lower bound on ε (95 %)": result.epsilon_lower,
        "best threshold": result.threshold,
        "events tested": result.num_tests,
        "verdict": "claim refuted" if refuted else "no evidence against the claim",
        "result": result,
    }


def audit_explorer(seed: int = 0) -> Explorer:
    """A mechanism menu, a claimed-ε slider and a trials slider; shows the bound at each threshold.

    Examples
    --------
    >>> ex = audit_explorer()
    >>> ex.controls["mechanism"].value = "one-sided noise"
    >>> ex.results["verdict"]
    'claim refuted'
    """

    latest: dict = {}  # the full result of the last compute, reused by draw

    def compute(mechanism: str, epsilon: float, trials: int) -> dict:
        out = audit_simulation(mechanism, epsilon, trials, seed=seed)
        latest["result"] = out.pop("result")
        return out

    def draw(ax, results, mechanism, epsilon, trials):
        res = latest["result"]
        plot_threshold_bounds(res.thresholds, res.bounds, claim=results["claimed ε"],
                              true_epsilon=results["true ε"], ax=ax)
        ax.set_title(f"{mechanism}: {trials:,} trials per input")

    controls = {
        "mechanism": widgets.Dropdown(options=list(MECHANISMS), value="Laplace", description="mechanism"),
        "epsilon": widgets.FloatSlider(value=1.0, min=0.25, max=3.0, step=0.25, description="claimed ε"),
        "trials": widgets.SelectionSlider(options=[10**k for k in range(2, 7)], value=10_000,
                                          description="trials"),
    }
    return Explorer(controls, compute, draw, title="Audit a privacy claim")

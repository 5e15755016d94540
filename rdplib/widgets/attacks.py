"""Explorer for the chapter on what RDP does not protect: the n − 1 adversary."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..attacks import (
    dp_attack_bound,
    exposure_probability,
    simulate_last_record_attack,
    zipf_probabilities,
)
from ._base import Explorer

__all__ = ["attack_simulation", "attack_explorer"]


def attack_simulation(
    epsilon: float,
    n: int,
    exponent: float,
    gamma: float,
    k: int = 50,
    num_trials: int = 5_000,
    seed: int = 0,
) -> dict:
    """Success of the last-record adversary against the DP and RDP histograms.

    The population is Zipf over ``k`` cells with the given ``exponent``; the
    target is drawn uniformly over the cells (every kind of person weighted
    equally) so the ε-DP bound ``e^ε / k`` applies. Both mechanisms see the same
    simulated datasets (same seed).
    """
    p = zipf_probabilities(k, exponent)
    dp = simulate_last_record_attack(p, n, epsilon, num_trials, "dp", target="uniform", rng=seed)
    rdp = simulate_last_record_attack(p, n, epsilon, num_trials, "rdp", gamma=gamma,
                                      target="uniform", rng=seed)
    return {
        "sparse mechanism active (2k <= γn)": bool(2 * k <= gamma * n),
        "success vs DP histogram": dp["success rate"],
        "success vs RDP histogram": rdp["success rate"],
        "ε-DP bound e^ε/k": dp_attack_bound(epsilon, np.full(k, 1.0 / k)),
        "P[target alone], uniform target": float(np.mean(exposure_probability(p, n, per_cell=True))),
        "P[target alone], random person": exposure_probability(p, n),
    }


def attack_explorer(seed: int = 0, num_trials: int = 5_000) -> Explorer:
    """Sliders for ε, n, the Zipf exponent and γ; shows the adversary's success against DP and RDP.

    Examples
    --------
    >>> ex = attack_explorer(num_trials=2_000)
    >>> ex.controls["n"].value = 200      # 2k = 100 > γn = 20: RDP falls back to DP
    >>> ex.results["success vs RDP histogram"] == ex.results["success vs DP histogram"]
    True
    """

    def compute(epsilon: float, n: int, exponent: float, gamma: float) -> dict:
        return attack_simulation(epsilon, n, exponent, gamma, num_trials=num_trials, seed=seed)

    def draw(ax, results, epsilon, n, exponent, gamma):
        labels = ["DP", "RDP", "ε-DP bound", "P[alone]"]
        values = [results["success vs DP histogram"], results["success vs RDP histogram"],
                  results["ε-DP bound e^ε/k"], results["P[target alone], uniform target"]]
        ax.bar(labels, values, color=["C0", "C1", "grey", "C2"])
        for i, v in enumerate(values):
            ax.text(i, v + 0.02, f"{v:.3f}", ha="center")
        ax.set_ylim(0, 1.1)
        ax.set_ylabel("probability")
        ax.set_title(f"ε = {epsilon:g}, n = {n:,}, Zipf exponent {exponent:g}, γ = {gamma:g}")

    controls = {
        "epsilon": widgets.FloatSlider(value=1.0, min=0.1, max=5.0, step=0.1, description="ε"),
        "n": widgets.IntSlider(value=1_000, min=100, max=5_000, step=100, description="n"),
        "exponent": widgets.FloatSlider(value=2.0, min=0.5, max=3.0, step=0.1, description="Zipf exp."),
        "gamma": widgets.FloatSlider(value=0.1, min=0.01, max=0.5, step=0.01, description="γ"),
    }
    return Explorer(controls, compute, draw, title="The adversary who knows n − 1 records")

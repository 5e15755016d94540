"""Explorer for the data-dependent-noise chapter: RDP mean against the clipped Laplace mean."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..datadep import clipped_means, lognormal_sampler, rdp_mean, scale_condition_failures
from ..plotting.datadep import plot_mean_release_errors
from ._base import Explorer

__all__ = ["datadep_simulation", "datadep_explorer", "SALARY_MEDIAN", "SALARY_SIGMA"]

SALARY_MEDIAN = 40.0
"""Median of the book's log-normal salary population (thousands)."""
SALARY_SIGMA = 0.8
"""Log-scale standard deviation of the salary population."""


def datadep_simulation(
    epsilon: float,
    n: int,
    quantile: float,
    upper: float,
    num_datasets: int = 400,
    seed: int = 0,
) -> dict:
    """Release the mean of ``num_datasets`` log-normal salary samples both ways, at the same ε.

    The RDP mean uses :func:`rdplib.datadep.rdp_mean` (quantile scale, final
    guarantee (ε, δ, γ)); the clipped mean clips to ``[0, upper]``. Errors are
    measured about each sample's own mean. Also estimates how often the
    quantile scale is too small (condition 11, fresh records).

    Returns a dict of numbers plus the two error arrays (keys ``"rdp errors"``
    and ``"clipped errors"``).
    """
    rng = np.random.default_rng(seed)
    sampler = lognormal_sampler(SALARY_MEDIAN, SALARY_SIGMA)
    data = sampler(rng, (num_datasets, n))
    sample_means = data.mean(axis=1)
    rdp, scales = rdp_mean(data, epsilon, quantile, rng=rng, return_scale=True)
    clipped = clipped_means(data, 0.0, upper, epsilon, rng=rng)
    rdp_err = rdp - sample_means
    clip_err = clipped - sample_means
    bias = np.clip(data, 0.0, upper).mean(axis=1) - sample_means
    failures = scale_condition_failures(sampler, n, quantile, num_datasets, rng=rng)
    return {
        "median scale s_n(X)": float(np.median(scales)),
        "RMSE, RDP mean": float(np.sqrt(np.mean(rdp_err**2))),
        "RMSE, clipped mean": float(np.sqrt(np.mean(clip_err**2))),
        "clipping bias": float(np.mean(bias)),
        "P[scale too small]": failures.fresh_failure_rate,
        "rdp errors": rdp_err,
        "clipped errors": clip_err,
    }


def datadep_explorer(seed: int = 0, num_datasets: int = 400) -> Explorer:
    """Sliders for ε, n, the quantile level and the clipping bound; compares the two private means.

    Examples
    --------
    >>> ex = datadep_explorer()
    >>> ex.controls["upper"].value = 1_000.0
    >>> ex.results["RMSE, clipped mean"] > ex.results["RMSE, RDP mean"]
    True
    """

    last: dict = {}

    def compute(epsilon: float, n: int, quantile: float, upper: float) -> dict:
        out = datadep_simulation(epsilon, n, quantile, upper, num_datasets, seed)
        last["rdp errors"] = out.pop("rdp errors")
        last["clipped errors"] = out.pop("clipped errors")
        return out

    def draw(ax, results, epsilon, n, quantile, upper):
        sim = last  # arrays of the simulation that produced ``results``
        plot_mean_release_errors(
            sim["rdp errors"], sim["clipped errors"], ax=ax,
            title=f"ε = {epsilon:g}, n = {n:,}, quantile {quantile:g}, clip at {upper:g}",
        )

    controls = {
        "epsilon": widgets.FloatSlider(value=1.0, min=0.1, max=4.0, step=0.1, description="ε"),
        "n": widgets.IntSlider(value=1_000, min=100, max=10_000, step=100, description="n"),
        "quantile": widgets.FloatSlider(value=0.99, min=0.80, max=0.999, step=0.001,
                                        readout_format=".3f", description="quantile"),
        "upper": widgets.FloatSlider(value=200.0, min=50.0, max=2_000.0, step=50.0,
                                     description="clip at"),
    }
    return Explorer(controls, compute, draw, title="Mean of unbounded data: RDP scale vs clipping")

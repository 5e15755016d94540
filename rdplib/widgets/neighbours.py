"""Explorer for chapter 1: Laplace output densities of a count on two neighbours."""

from __future__ import annotations

import math

import ipywidgets as widgets

from ..plotting.neighbours import plot_neighbour_densities
from ..sensitivity import laplace_expected_privacy_loss
from ._base import Explorer

__all__ = ["neighbour_summary", "draw_neighbour_densities", "neighbour_explorer"]

#: the true count on dataset x in the explorer (the neighbour's count is this plus the gap)
BASE_COUNT = 10


def neighbour_summary(epsilon: float, sensitivity: float, gap: float) -> dict:
    """Numbers for a Laplace mechanism calibrated to ``sensitivity`` on two datasets ``gap`` apart.

    The noise scale is ``b = sensitivity / epsilon``. When the true answers of
    the neighbours differ by ``gap``, the privacy loss lies in
    ``[-gap/b, gap/b]``, so the promise ε holds exactly when ``gap <= sensitivity``.

    Examples
    --------
    >>> out = neighbour_summary(epsilon=1.0, sensitivity=1.0, gap=2.0)
    >>> out["worst-case privacy loss"], out["ε-DP promise kept"]
    (2.0, False)
    """
    scale = sensitivity / epsilon
    worst = gap / scale
    mean_loss = float(laplace_expected_privacy_loss(worst)) if worst > 0 else 0.0
    return {
        "noise scale b = sensitivity/ε": scale,
        "noise standard deviation √2·b": math.sqrt(2.0) * scale,
        "worst-case privacy loss": worst,
        "promised ε": float(epsilon),
        "ε-DP promise kept": bool(worst <= epsilon + 1e-12),
        "mean privacy loss (on x)": mean_loss,
        "P[loss = its maximum]": 0.5 if worst > 0 else 1.0,
    }


def draw_neighbour_densities(ax, results: dict, epsilon: float, sensitivity: float, gap: float):
    """The explorer's figure: the two output densities and the privacy loss (right axis).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> ax = draw_neighbour_densities(ax, neighbour_summary(1.0, 1.0, 1.0), 1.0, 1.0, 1.0)
    >>> ax.get_title()
    'ε = 1, calibrated to sensitivity 1, gap 1'
    >>> plt.close(fig)
    """
    plot_neighbour_densities(
        BASE_COUNT, BASE_COUNT + gap, results["noise scale b = sensitivity/ε"], epsilon=epsilon,
        ax=ax, labels=(f"count {BASE_COUNT} (x)", f"count {BASE_COUNT + gap:g} (x')"),
    )
    ax.set_title(f"ε = {epsilon:g}, calibrated to sensitivity {sensitivity:g}, gap {gap:g}")
    return ax


def neighbour_explorer() -> Explorer:
    """Sliders for ε, the sensitivity used to calibrate the noise, and the true gap.

    Examples
    --------
    >>> ex = neighbour_explorer()
    >>> ex.controls["epsilon"].value = 0.5
    >>> ex.results["noise scale b = sensitivity/ε"]
    2.0
    """

    controls = {
        "epsilon": widgets.FloatSlider(value=1.0, min=0.1, max=3.0, step=0.1, description="ε"),
        "sensitivity": widgets.FloatSlider(
            value=1.0, min=0.5, max=5.0, step=0.5, description="sensitivity"
        ),
        "gap": widgets.FloatSlider(value=1.0, min=0.0, max=5.0, step=0.5, description="true gap"),
    }
    return Explorer(controls, neighbour_summary, draw_neighbour_densities,
                    title="Laplace noise on a count: two neighbours and the privacy loss")

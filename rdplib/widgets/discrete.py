"""Explorer for the chapter on discrete noise and noise that fails: Laplace vs Gaussian loss."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..discrete import gaussian_loss_by_output, gaussian_loss_tail, laplace_loss_by_output
from ..plotting.discrete import plot_privacy_loss
from ..properties import gaussian_delta
from ._base import Explorer

__all__ = ["privacy_loss_summary", "privacy_loss_explorer"]


def privacy_loss_summary(epsilon: float, sigma: float, shift: float = 1.0) -> dict:
    """Key numbers comparing Laplace noise of scale ``shift/epsilon`` with Gaussian noise ``sigma``.

    The neighbouring true answers are 0 and ``shift``.

    Examples
    --------
    >>> out = privacy_loss_summary(1.0, 2.0)
    >>> out["Laplace: largest loss"], round(out["Gaussian: P[loss > ε]"], 4)
    (1.0, 0.0401)
    """
    laplace_scale = shift / epsilon
    return {
        "Laplace scale b = Δ/ε": laplace_scale,
        "Laplace: largest loss": float(
            np.max(laplace_loss_by_output(np.array([-1e6, 0.0, 1e6]), laplace_scale, shift))
        ),
        "Laplace: P[loss > ε]": 0.0,
        "Gaussian: loss at y = -3σ": float(gaussian_loss_by_output(-3.0 * sigma, sigma, shift)),
        "Gaussian: P[loss > ε]": gaussian_loss_tail(epsilon, sigma, shift),
        "Gaussian: exact δ at this ε": gaussian_delta(epsilon, sigma, shift),
        "noise sd, Laplace": float(np.sqrt(2.0) * laplace_scale),
        "noise sd, Gaussian": float(sigma),
    }


def privacy_loss_explorer(shift: float = 1.0) -> Explorer:
    """Sliders for ε (Laplace scale Δ/ε) and σ (Gaussian); plots both privacy-loss curves.

    Examples
    --------
    >>> ex = privacy_loss_explorer()
    >>> ex.controls["sigma"].value = 1.0
    >>> round(ex.results["Gaussian: loss at y = -3σ"], 2)  # (1 + 6) / 2
    3.5
    """

    def compute(epsilon: float, sigma: float) -> dict:
        return privacy_loss_summary(epsilon, sigma, shift)

    def draw(ax, results, epsilon, sigma):
        reach = 4.0 * max(sigma, shift / epsilon)
        y = np.linspace(-reach, reach + shift, 400)
        plot_privacy_loss(
            y,
            {
                f"Laplace, b = {shift / epsilon:.3g}": laplace_loss_by_output(y, shift / epsilon, shift),
                f"Gaussian, σ = {sigma:g}": gaussian_loss_by_output(y, sigma, shift),
            },
            ax=ax,
            epsilon=epsilon,
        )
        ax.set_title(f"true answers 0 and {shift:g}: ε = {epsilon:g}, σ = {sigma:g}")

    controls = {
        "epsilon": widgets.FloatSlider(value=1.0, min=0.1, max=3.0, step=0.1, description="ε"),
        "sigma": widgets.FloatSlider(value=2.0, min=0.5, max=10.0, step=0.5, description="σ"),
    }
    return Explorer(controls, compute, draw, title="Privacy loss: Laplace against Gaussian noise")

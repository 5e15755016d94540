"""Tests of the generic explorer, rdplib.widgets.Explorer (the chapters' explorers: test_explorers.py)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import ipywidgets as widgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from rdplib.widgets import Explorer  # noqa: E402


def _explorer(draw=True):
    calls = []

    def compute(epsilon, n):
        calls.append((epsilon, n))
        return {"flip probability": float(1 / (1 + np.exp(epsilon))), "n": n, "label": "<b>x</b>"}

    def plot(ax, results, epsilon, n):
        ax.bar([0, 1], [1 - results["flip probability"], results["flip probability"]])

    controls = {
        "epsilon": widgets.FloatSlider(value=1.0, min=0.1, max=5.0, step=0.1, continuous_update=False),
        "n": widgets.IntSlider(value=1_000, min=100, max=10_000, step=100),
    }
    return Explorer(controls, compute, plot if draw else None, title="RR"), calls


def test_first_update_at_construction_and_one_per_move():
    explorer, calls = _explorer()
    assert calls == [(1.0, 1_000)]
    explorer.controls["n"].value = 2_000
    assert calls[-1] == (1.0, 2_000) and len(calls) == 2
    assert explorer.values == {"epsilon": 1.0, "n": 2_000}


def test_readout_formats_and_escapes():
    explorer, _ = _explorer()
    text = explorer.readout_text()
    assert "flip probability: 0.2689" in text and "n: 1,000" in text
    assert "&lt;b&gt;" in explorer.readout.value  # HTML in results is escaped in the table
    assert "label: <b>x</b>" in text  # and left as it is in the plain text


def test_figure_is_png_bytes_and_optional():
    explorer, _ = _explorer()
    assert explorer.figure.value[:8] == b"\x89PNG\r\n\x1a\n"
    bare, _ = _explorer(draw=False)
    assert bare.figure.value == b""


def test_keyboard_reachable_controls_are_real_sliders():
    explorer, _ = _explorer()
    assert all(isinstance(c, widgets.ValueWidget) for c in explorer.controls.values())
    assert explorer.controls["epsilon"].continuous_update is False


def test_compute_errors_surface():
    def compute(epsilon):
        raise ValueError("epsilon: must be > 0")

    with pytest.raises(ValueError, match="epsilon"):
        Explorer({"epsilon": widgets.FloatSlider(value=1.0)}, compute)


def test_underscore_results_reach_draw_but_not_the_readout():
    seen = []

    def compute(epsilon):
        return {"flip probability": float(1 / (1 + np.exp(epsilon))), "_samples": np.arange(3) * epsilon}

    def plot(ax, results, epsilon):
        seen.append(results["_samples"])
        ax.plot(results["_samples"])

    explorer = Explorer({"epsilon": widgets.FloatSlider(value=1.0, min=0.5, max=2.0, step=0.5)}, compute, plot)
    explorer.controls["epsilon"].value = 2.0
    assert np.array_equal(seen[-1], [0.0, 2.0, 4.0])
    assert explorer.readout_text() == "flip probability: 0.1192"
    assert "_samples" not in explorer.readout.value

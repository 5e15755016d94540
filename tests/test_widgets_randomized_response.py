"""Headless tests of the randomized-response explorer and the Explorer base class."""

import numpy as np
import pytest

import rdplib
from rdplib.widgets import Explorer, rr_explorer, rr_simulation


def test_explorer_reacts_to_sliders():
    ex = rr_explorer(seed=3)
    assert ex.results["flip probability"] == pytest.approx(1 / (1 + np.e))
    first_png = bytes(ex.figure.value)
    assert first_png.startswith(b"\x89PNG")

    ex.controls["epsilon"].value = 2.0
    assert ex.results["flip probability"] == pytest.approx(1 / (1 + np.exp(2.0)))
    expected_sd = np.sqrt(rdplib.rr_variance(0.3, 1_000, 2.0))
    assert ex.results["exact sd of estimate"] == pytest.approx(expected_sd)
    assert bytes(ex.figure.value) != first_png

    ex.controls["n"].value = 4_000
    assert ex.results["exact sd of estimate"] == pytest.approx(
        np.sqrt(rdplib.rr_variance(0.3, 4_000, 2.0))
    )
    assert ex.results["sd without privacy"] == pytest.approx(np.sqrt(0.21 / 4_000))
    # The readout shows the new numbers.
    assert f"{ex.results['exact sd of estimate']:.4g}" in ex.readout.value
    assert "flip probability: 0.1192" in ex.readout_text()


def test_simulated_sd_close_to_exact():
    sim = rr_simulation(1.0, n=1_000, p=0.3, num_surveys=2_000, seed=0)
    # relative standard error of a sd estimated from 2000 draws is about 1.6 %
    assert sim["simulated sd of estimate"] == pytest.approx(sim["exact sd of estimate"], rel=0.06)


def test_simulation_is_deterministic():
    a = rr_simulation(0.5, n=200, p=0.1, num_surveys=50, seed=7)
    b = rr_simulation(0.5, n=200, p=0.1, num_surveys=50, seed=7)
    np.testing.assert_array_equal(a["estimates"], b["estimates"])


def test_explorer_without_figure():
    import ipywidgets as widgets

    ex = Explorer({"x": widgets.IntSlider(value=2, min=0, max=10)}, lambda x: {"square": x * x})
    assert ex.results == {"square": 4}
    ex.controls["x"].value = 7
    assert ex.results == {"square": 49}
    assert bytes(ex.figure.value) == b""

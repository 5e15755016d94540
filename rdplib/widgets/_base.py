"""The common shape of every explorer: sliders, a readout of key numbers, and a figure."""

from __future__ import annotations

import html
import io
from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as widgets
import matplotlib
import numpy as np  # noqa: F401  (used by the docstring example)
from matplotlib.figure import Figure


def _format_number(value: Any) -> str:
    """Format a readout value: integers plainly, floats with 4 significant digits."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _clear_data(ax: Any) -> None:
    """Remove what a draw function added, keeping the axis objects and their ticks."""
    for container in list(ax.containers):
        container.remove()
    for artist in [*ax.lines, *ax.patches, *ax.collections, *ax.texts, *ax.images, *ax.tables, *ax.artists]:
        artist.remove()
    if ax.legend_ is not None:
        ax.legend_.remove()
    for loc in ("left", "center", "right"):
        ax.set_title("", loc=loc)
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.set_prop_cycle(None)  # colours start again at C0
    ax.relim()
    ax.set_autoscale_on(True)


class Explorer(widgets.VBox):
    """An interactive explorer: ``controls`` drive ``compute`` (numbers) and ``draw`` (a figure).

    Parameters
    ----------
    controls : mapping of name -> ipywidgets value widget
        The sliders; their names are the keyword arguments of ``compute``.
    compute : callable
        ``compute(**values)`` returns a dict of named results, shown in the
        readout table. A key that starts with ``_`` is not shown: it carries data
        (the simulated samples, say) to ``draw`` without a global. ``compute``
        must be deterministic (seed any randomness).
    draw : callable, optional
        ``draw(ax, results, **values)`` draws the figure. The axes is reused from
        one update to the next (a new axes costs about a third of a redraw): before
        each call its lines, patches, collections, texts, legend, labels and title
        are removed and autoscaling is switched back on. Tick positions, scales and
        other axes settings persist, so a ``draw`` that sets them must set them on
        every call. A ``draw`` that adds axes (twin or inset) gets a fresh figure
        each time.
    title : str
        Shown above the controls.

    Attributes
    ----------
    results : dict
        The latest output of ``compute``; tests read it after moving a slider.
    readout : ipywidgets.HTML
        The rendered table of ``results``.
    figure : ipywidgets.Image
        The figure as PNG bytes (an image widget, so the explorer needs no
        output capture and works the same in JupyterLab, Colab and tests).

    Examples
    --------
    >>> import ipywidgets as widgets
    >>> def compute(epsilon):
    ...     return {"flip probability": float(1 / (1 + np.exp(epsilon)))}
    >>> slider = widgets.FloatSlider(value=1.0, min=0.1, max=5.0, step=0.1, description="ε")
    >>> explorer = Explorer({"epsilon": slider}, compute, title="Randomized response")
    >>> round(explorer.results["flip probability"], 4)
    0.2689
    >>> slider.value = 2.0  # moving the slider recomputes the readout
    >>> explorer.readout_text()
    'flip probability: 0.1192'
    """

    def __init__(
        self,
        controls: Mapping[str, widgets.ValueWidget],
        compute: Callable[..., dict[str, Any]],
        draw: Callable[..., None] | None = None,
        title: str = "",
        figsize: tuple[float, float] = (6.0, 3.2),
    ) -> None:
        self.controls = dict(controls)
        self._compute = compute
        self._draw = draw
        self._figsize = figsize
        self._canvas_figure = Figure(figsize=figsize)
        self._margins: dict[str, float] | None = None
        self._axes: Any = None
        self.results: dict[str, Any] = {}
        self.readout = widgets.HTML()
        self.figure = widgets.Image(format="png")
        header = [widgets.HTML(f"<b>{html.escape(title)}</b>")] if title else []
        super().__init__(
            [*header, widgets.VBox(list(self.controls.values())), self.readout, self.figure]
        )
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.update()

    @property
    def values(self) -> dict[str, Any]:
        """Current slider values by name."""
        return {name: control.value for name, control in self.controls.items()}

    def _on_change(self, change: Any) -> None:
        self.update()

    def update(self) -> None:
        """Recompute the results and redraw (called on every slider move)."""
        values = self.values
        self.results = self._compute(**values)
        rows = "".join(
            f"<tr><td style='padding-right:1em'>{html.escape(k)}</td>"
            f"<td style='text-align:right'>{html.escape(_format_number(v))}</td></tr>"
            for k, v in self._shown().items()
        )
        self.readout.value = f"<table>{rows}</table>"
        if self._draw is not None:
            self.figure.value = self._render()

    def _render(self, fresh: bool = False) -> bytes:
        """Draw ``results`` and return the PNG bytes.

        One figure, reused, drawn once per update: the margins come from one tight
        layout at the first update and stay fixed (no layout pass, no tight bounding
        box later), and the PNG is small and lightly compressed. ``fresh=True``
        draws on a new axes (tests compare the two).
        """
        fig = self._canvas_figure
        ax = None if fresh else self._axes
        if ax is None:
            fig.clear()
            ax = fig.add_subplot()
        else:
            _clear_data(ax)
        self._draw(ax, self.results, **self.values)
        self._axes = ax if len(fig.axes) == 1 and not ax.child_axes else None
        if self._margins is None:
            fig.tight_layout()
            pars = fig.subplotpars
            self._margins = {"left": pars.left, "right": pars.right, "bottom": pars.bottom, "top": pars.top}
            fig.set_layout_engine(None)  # else every save runs a second, layout draw
        fig.subplots_adjust(**self._margins)
        buffer = io.BytesIO()
        with matplotlib.rc_context({"savefig.bbox": "standard"}):  # no second, "tight" draw
            fig.savefig(buffer, format="png", dpi=72, pil_kwargs={"compress_level": 1})
        return buffer.getvalue()

    def _shown(self) -> dict[str, Any]:
        """The results the readout shows: every key that does not start with ``_``."""
        return {k: v for k, v in self.results.items() if not k.startswith("_")}

    def readout_text(self) -> str:
        """The readout as plain text, ``name: value`` per line."""
        return "\n".join(f"{k}: {_format_number(v)}" for k, v in self._shown().items())

"""The book's plot style; importing this module applies it.

The palette is colour-blind safe (Okabe-Ito) and readable on light and dark pages.

Examples
--------
>>> import rdplib.plotting
>>> rdplib.plotting.STYLE_PATH.name
'book.mplstyle'
"""

from __future__ import annotations

from pathlib import Path

import matplotlib as mpl
import matplotlib.pyplot as plt

STYLE_PATH = Path(__file__).with_name("book.mplstyle")


def set_book_style() -> None:
    """Apply the book's matplotlib style (idempotent).

    Examples
    --------
    >>> set_book_style()
    >>> import matplotlib as mpl
    >>> mpl.rcParams["axes.spines.top"]
    False
    """
    plt.style.use(str(STYLE_PATH))
    mpl.rcParams["figure.max_open_warning"] = 0


def plain_log_ticks(ax, axis: str = "both") -> None:
    """Label the log-scaled axes of ``ax`` with plain numbers and drop their minor ticks.

    Matplotlib labels a log axis with powers of ten (:math:`10^3`) drawn by its
    mathtext engine, and adds minor ticks: both are slow to draw in an explorer
    that redraws on every slider move, and powers of ten read less easily than
    ``1,000``. Values of at least 1 are written with thousands separators and no
    decimals (``1,000``), smaller ones in the shortest form (``0.001``). Axes
    that are not log-scaled are left alone, so call it after setting the scales.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to label.
    axis : {"both", "x", "y"}, default "both"
        Which of its axes to consider.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.loglog([1, 10, 1_000], [0.01, 0.1, 1])
    >>> plain_log_ticks(ax)
    >>> ax.xaxis.get_major_formatter()(1_000, 0), ax.yaxis.get_major_formatter()(0.01, 0)
    ('1,000', '0.01')
    >>> plt.close(fig)
    """
    from matplotlib.ticker import FuncFormatter, NullLocator

    if axis not in ("both", "x", "y"):
        raise ValueError(f'axis: must be "both", "x" or "y", got {axis!r}')
    chosen = {"both": (ax.xaxis, ax.yaxis), "x": (ax.xaxis,), "y": (ax.yaxis,)}[axis]
    for one in chosen:
        if one.get_scale() == "log":
            one.set_major_formatter(FuncFormatter(_plain_number))
            one.set_minor_locator(NullLocator())


def _plain_number(value: float, position=None) -> str:
    return f"{value:,.0f}" if value >= 1 else f"{value:g}"


set_book_style()

__all__ = ["STYLE_PATH", "set_book_style", "plain_log_ticks"]

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


set_book_style()

__all__ = ["STYLE_PATH", "set_book_style"]

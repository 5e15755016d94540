"""Plotting helpers for the book; importing this module applies the book-wide style.

Chapters call these helpers so that notebook cells stay short. The palette is
colour-blind safe (Okabe-Ito).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib as mpl
import matplotlib.pyplot as plt

STYLE_PATH = Path(__file__).with_name("book.mplstyle")


def set_book_style() -> None:
    """Apply the book's matplotlib style (idempotent)."""
    plt.style.use(str(STYLE_PATH))
    mpl.rcParams["figure.max_open_warning"] = 0


set_book_style()

__all__ = ["STYLE_PATH", "set_book_style"]


from .._gather import gather_chapter_modules  # noqa: E402

gather_chapter_modules(__name__, __path__, globals(), __all__)

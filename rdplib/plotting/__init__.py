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


def _gather_chapter_modules() -> None:
    """Import every chapter module of this package and re-export its ``__all__``."""
    import importlib
    import pkgutil

    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name in getattr(module, "__all__", []):
            globals()[name] = getattr(module, name)
            if name not in __all__:
                __all__.append(name)


_gather_chapter_modules()

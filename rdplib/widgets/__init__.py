"""ipywidgets explorers, one (or more) per chapter.

Every explorer is an :class:`Explorer`: sliders that drive a readout of key
numbers (``explorer.results``) and a matplotlib figure. In the rendered book a
static figure of a few slider settings stands beside each explorer.
"""

from ._base import Explorer, format_number

__all__ = ["Explorer", "format_number"]


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

"""The explorers' machinery: sliders that drive a readout of numbers and a figure.

Each chapter builds its explorer from its own compute function and :class:`Explorer`;
the rendered book shows a static figure of a few slider settings beside it. Needs
ipywidgets: ``pip install "rdplib[widgets]"``.
"""

try:
    import ipywidgets as _ipywidgets  # noqa: F401
except ModuleNotFoundError as error:  # pragma: no cover - exercised in the standalone test
    raise ModuleNotFoundError(
        "rdplib.widgets needs ipywidgets: install it with pip install 'rdplib[widgets]'",
        name="ipywidgets",
    ) from error

from ._base import Explorer

__all__ = ["Explorer"]

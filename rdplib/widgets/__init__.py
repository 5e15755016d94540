"""ipywidgets explorers, one (or more) per chapter.

Every explorer is an :class:`Explorer`: sliders that drive a readout of key
numbers (``explorer.results``) and a matplotlib figure. In the rendered book a
static figure of a few slider settings stands beside each explorer.
"""

from ._base import Explorer, format_number

__all__ = ["Explorer", "format_number"]


from .._gather import gather_chapter_modules  # noqa: E402

gather_chapter_modules(__name__, __path__, globals(), __all__)

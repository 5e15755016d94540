"""Every markdown cell of a chapter shows something in JupyterLab.

A cell holding only the closing fence of a gated solution (``:::{solution-end}``) renders as
nothing in JupyterLab (jupyterlab-myst), so a student sees an empty cell and the JupyterLab
browser test waits in vain for it. The fence belongs at the top of the next markdown cell.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "book").glob("ch*.ipynb"))
# Directives that render nothing by themselves: the markers of gated exercises and solutions.
MARKERS = re.compile(r"^:{3,}\{(?:solution|exercise)-(?:start|end)\}[^\n]*\n(?::[^\n]*\n)*:{3,}[ \t]*$", re.M)


def _visible_text(source: str) -> str:
    return MARKERS.sub("", source).strip()


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_markdown_cell_renders_empty(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    empty = [i for i, cell in enumerate(cells)
             if cell["cell_type"] == "markdown" and not _visible_text("".join(cell["source"]))]
    assert not empty, f"{path.name}: markdown cells {empty} hold only solution/exercise markers"


def test_the_check_sees_a_lone_marker():
    assert _visible_text(":::{solution-end}\n:::") == ""
    assert _visible_text(":::{solution-start} ex-a\n:class: dropdown\n:::") == ""
    assert _visible_text(":::{solution-end}\n:::\n\n## Summary") == "## Summary"

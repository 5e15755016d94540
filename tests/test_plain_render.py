"""The book's Markdown read by a renderer that knows dollar math but not MyST (Colab, GitHub,
any plain Markdown viewer): directive bodies must stay ordinary Markdown, so that their math
is still typeset there.

Every markdown cell of every chapter notebook (book/ch*.ipynb), the preface (book/intro.md) and
the assignment notebooks (book/assignments/**/*.ipynb) is rendered with markdown-it-py's
CommonMark parser plus the dollarmath plugin, and nothing from MyST. The test fails when

- a directive is backtick-fenced (```{name} ... ```): a plain renderer shows the whole directive,
  math included, as a grey code block. Use a colon fence (:::{name} ... :::) instead
  (tests/quality/colon_fences.py rewrites them); write code as ```python and math as $$ ... $$;
- `$` math ends up inside a code block (a fenced block, or an indented block made by four
  leading spaces, e.g. an indented directive body), where it is shown as raw TeX.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"

# `$...$` or `$$...$$` that looks like TeX: the kind of math that a code block would show raw.
MATH_IN_TEXT = re.compile(r"\$\$.+?\$\$|\$[^$\n]*[\\^_{}][^$\n]*\$", re.S)


def sources() -> list[Path]:
    files = sorted(BOOK.glob("ch*.ipynb")) + [BOOK / "intro.md"]
    files += sorted(p for p in (BOOK / "assignments").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    return files


def markdown_cells(path: Path) -> list[tuple[str, str]]:
    """(where, text) of every markdown cell of a notebook, or the whole file for .md."""
    if path.suffix == ".md":
        return [(path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8"))]
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "markdown":
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            cells.append((f"{path.relative_to(ROOT).as_posix()} cell {index}", source))
    return cells


def plain_renderer() -> MarkdownIt:
    """CommonMark (plus GFM tables, as Colab and GitHub render them) and dollar math, no MyST."""
    return MarkdownIt("commonmark").enable("table").use(dollarmath_plugin, double_inline=True)


def problems_in(text: str, md: MarkdownIt | None = None) -> list[str]:
    md = md or plain_renderer()
    problems = []
    for token in md.parse(text):
        if token.type not in ("fence", "code_block"):
            continue
        line = (token.map[0] + 1) if token.map else "?"
        info = token.info.strip()
        if token.type == "fence" and info.startswith("{"):
            name = info.split("}", 1)[0] + "}"
            problems.append(f"line {line}: directive {name} is backtick-fenced; a plain renderer shows it "
                            "as a code block (use a colon fence :::{...})")
            continue
        math = MATH_IN_TEXT.search(token.content)
        if math:
            kind = "an indented code block" if token.type == "code_block" else f"a fenced code block ({info or 'no language'})"
            problems.append(f"line {line}: math {math.group(0)[:60]!r} is inside {kind}")
    return problems


def math_count(text: str, md: MarkdownIt) -> int:
    return sum(1 for t in md.parse(text) if t.type in ("math_block", "math_block_label")) + sum(
        1 for t in md.parse(text) if t.type == "inline" for c in (t.children or []) if c.type.startswith("math_inline"))


SOURCES = sources()


def test_sources_found():
    names = {p.name for p in SOURCES}
    assert len([p for p in SOURCES if p.parent == BOOK and p.suffix == ".ipynb"]) >= 12, names
    assert "intro.md" in names
    assert any("assignments" in p.parts for p in SOURCES), names


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(BOOK).as_posix())
def test_plain_markdown_keeps_math_out_of_code(path):
    md = plain_renderer()
    problems = []
    formulas = 0
    for where, text in markdown_cells(path):
        problems += [f"{where}: {p}" for p in problems_in(text, md)]
        formulas += math_count(text, md)
    assert not problems, "\n".join(problems)
    if path.name.startswith("ch"):
        assert formulas > 0, f"{path.name}: the plain renderer found no math at all"


def test_the_check_catches_what_it_should():
    """The two failures the test exists for, and a colon fence that passes."""
    backtick = "```{prf:theorem} Title\n:label: thm-x\n\n$$ a^2 $$\n```\n"
    indented = "Text.\n\n    $$\n    \\frac{1}{2}\n    $$\n"
    colon = ":::{prf:theorem} Title\n:label: thm-x\n\nFor every $y \\in \\{0, 1\\}$,\n\n$$\n\\frac{1}{2}\n$$\n:::\n"
    assert any("backtick-fenced" in p for p in problems_in(backtick))
    assert any("indented code block" in p for p in problems_in(indented))
    assert problems_in(colon) == []
    html = plain_renderer().render(colon)
    assert "<pre" not in html and "math" in html

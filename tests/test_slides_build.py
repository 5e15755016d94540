"""The slide builder (book/_slides/build_slides.py) without a browser: which cells become slides,
how MyST is turned into slide HTML, and that a deck loads nothing from the network.
tests/browser/test_slides.py opens the decks in Chromium."""

from __future__ import annotations

import base64
import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("build_slides", ROOT / "book" / "_slides" / "build_slides.py")
build_slides = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_slides)

PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c6360f8cfc0f01f0005000201e2a2a5d60000000049454e44ae426082")).decode()


def _figure_cell(name: str, tags=()):
    cell = nbformat.v4.new_code_cell("plt.show()")
    cell.metadata = {"tags": list(tags), "mystnb": {
        "figure": {"caption": f"Caption of {name}, see {{numref}}`{name}`.", "name": name},
        "image": {"alt": "A test figure with an x axis and a y axis and one line."}}}
    cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"})]
    return cell


@pytest.fixture(scope="module")
def book():
    return build_slides.Book()


@pytest.fixture
def chapter(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(
            "(ch-test)=\n# A test chapter\n\n:::{admonition} Learning objectives\n:class: tip\n"
            "- know $\\varepsilon$ {cite:p}`hall2013random`\n:::\n\n## Overview\n\nPlain prose is not a slide."),
        nbformat.v4.new_markdown_cell(
            "## The mechanism\n\n:::{prf:definition} Privacy\n:label: def-test\n\nA bound $e^{\\varepsilon}$.\n:::\n\n"
            ":::{prf:proof}\nNot on a slide.\n:::\n\n:::{prf:theorem} Kept\n:label: thm-test\n\n"
            "By {prf:ref}`def-test` and {doc}`the neighbours <ch02_neighbours>`:\n$$\nx^2 < 1\n$$\n:::"),
        nbformat.v4.new_code_cell("def mechanism(x):\n    return x", metadata={"tags": ["slide"]}),
        nbformat.v4.new_code_cell("hidden = 1"),
        _figure_cell("fig-shown"),
        nbformat.v4.new_code_cell("explorer", metadata={"tags": ["explorer", "remove-output"]}),
        _figure_cell("fig-dropped", tags=["no-slide"]),
        _figure_cell("fig-removed", tags=["remove-cell"]),
        nbformat.v4.new_markdown_cell(
            "## Exercises\n\n:::{exercise} First one\n:label: ex-test-one\n\nDo it.\n:::\n\n"
            ":::{solution-start} ex-test-one\n:class: dropdown\n:::\nSecret solution.\n:::{solution-end}\n:::"),
        nbformat.v4.new_markdown_cell("## Summary\n\n:::{admonition} Summary\n:class: important\n- done\n:::"),
    ]
    path = tmp_path / "ch99_test.ipynb"
    nbformat.write(nb, path)
    return path


def test_rules_and_tags_choose_the_slides(book, chapter):
    deck, count = build_slides.chapter_slides(chapter, book)
    text = "\n".join(cell.source for cell in deck.cells)
    # title, objectives, definition, theorem, tagged code (heading + cell), one figure, exercises, summary
    assert count == 8
    assert "Learning objectives" in text and "Definition (Privacy)" in text and "Theorem (Kept)" in text
    assert "def mechanism(x)" in text and "hidden = 1" not in text
    assert "Plain prose" not in text and "Not on a slide" not in text and "Secret solution" not in text
    assert text.count("<figure>") == 1 and "fig-dropped" not in text and "explorer" not in text
    assert "ex-test-one" in text and text.index("ex-test-one") < text.index("Summary</p>")
    assert "explorer with sliders" not in text  # the only figure after the explorer is dropped by its tag


def test_myst_becomes_plain_html_with_mathjax_delimiters(book, chapter):
    deck, _ = build_slides.chapter_slides(chapter, book)
    text = "\n".join(cell.source for cell in deck.cells)
    assert "{cite:p}" not in text and "(Hall et al. 2013)" in text
    assert "Definition (Privacy)" in text.split("Theorem (Kept)")[1]  # {prf:ref} shows the box it names
    assert "the neighbours" in text and "{doc}" not in text
    assert r"\(\varepsilon\)" in text and r"\[" in text and "&lt; 1" in text
    assert "$" not in re.sub(r"<code>.*?</code>", "", text)


def test_a_built_deck_is_offline(tmp_path, chapter):
    counts = build_slides.build([chapter], tmp_path / "slides")
    html = (tmp_path / "slides" / "ch99_test.html").read_text(encoding="utf-8")
    assert counts == {"ch99_test": 8}
    assert html.count("<section") >= 8
    assert "http://" not in html and "https://" not in html
    assert (tmp_path / "slides" / "reveal.js" / "dist" / "reveal.js").exists()
    assert (tmp_path / "slides" / "mathjax" / "tex-chtml.js").exists()


@pytest.mark.parametrize("path", sorted((ROOT / "book").glob("ch*.ipynb")), ids=lambda p: p.stem)
def test_every_chapter_deck_has_its_slides_and_explorer_figures(book, path):
    deck, count = build_slides.chapter_slides(path, book)
    text = "\n".join(cell.source for cell in deck.cells)
    explorers = sum("explorer" in c.metadata.get("tags", []) for c in nbformat.read(path, as_version=4).cells)
    assert count >= 5
    assert "Learning objectives" in text and 'class="box-title">Summary' in text
    assert text.count("explorer with sliders") == explorers  # each explorer as its static figure
    assert all("application/vnd.jupyter.widget-view+json" not in o.get("data", {})
               for c in deck.cells if c.cell_type == "code" for o in c.outputs)


def test_boxes_exercises_and_figures_are_numbered_as_in_the_book(book):
    """Per kind within the chapter, after the chapter's number in the TOC (Theorem 3.2, Fig. 3.1)."""
    for number, path in enumerate(sorted((ROOT / "book").glob("ch*.ipynb")), start=1):
        assert book.chapter_number[f"book/{path.stem}"] == number
        text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")
        for label in re.findall(r"^:label: ([\w-]+)", text, flags=re.MULTILINE):
            if label.startswith(("thm-", "def-", "alg-", "lem-", "ex-")):
                assert re.fullmatch(rf"[A-Z][a-z]+ {number}\.\d+", book.labels[label]), (label, book.labels[label])
    assert book.labels["fig-rr-ratio"] == "Fig. 3.1"


@pytest.mark.parametrize("path", sorted((ROOT / "book").glob("ch*.ipynb")), ids=lambda p: p.stem)
def test_a_slide_tag_never_shows_what_the_book_hides(path):
    for cell in nbformat.read(path, as_version=4).cells:
        tags = set(cell.metadata.get("tags", []))
        if "slide" in tags:
            assert not tags & {"remove-cell", "remove-input", "no-slide"}, cell.source[:60]


def test_a_long_summary_is_shared_over_slides():
    """A summary list longer than LIST_SLIDE_CHARS goes on several slides, items in order, none lost."""
    items = [f"- point {i}: " + "word " * 60 for i in range(8)]
    block = build_slides.Directive("admonition", "Summary", {"class": "important"}, "\n".join(items))
    parts = build_slides._split_long_list(block)
    assert len(parts) > 1 and all(len(p.body) <= build_slides.LIST_SLIDE_CHARS for p in parts)
    assert [p.title for p in parts] == [f"Summary ({i} of {len(parts)})" for i in range(1, len(parts) + 1)]
    assert "\n".join(p.body for p in parts) == block.body
    short = build_slides.Directive("admonition", "Summary", {}, "- one\n- two")
    assert build_slides._split_long_list(short) == [short]

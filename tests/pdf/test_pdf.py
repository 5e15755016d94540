"""The PDF edition (``make pdf``): checks of _build/latex/rdp-book.pdf and its LaTeX log.

Run by ``make test-pdf`` right after ``make pdf``. ``BOOK_LATEX_DIR=<dir>`` checks another build.
Needs ``pdftotext`` and ``pdfinfo`` (Debian's poppler-utils, installed with TeX Live by .ci/run).
The numbering test also reads the HTML book (``_build/html``; ``BOOK_HTML_DIR=<dir>`` reads
another build, as in tests/browser) and is skipped when it has not been built.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
LATEX_DIR = Path(os.environ.get("BOOK_LATEX_DIR", ROOT / "_build" / "latex")).resolve()
HTML_DIR = Path(os.environ.get("BOOK_HTML_DIR", ROOT / "_build" / "html")).resolve()
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
STEM = Path(CONFIG["latex"]["latex_documents"]["targetname"]).stem
PDF = LATEX_DIR / f"{STEM}.pdf"
LOG = LATEX_DIR / f"{STEM}.log"
TEX = LATEX_DIR / f"{STEM}.tex"
PART_PREFIX = re.compile(r"^Part [IVXLC]+:\s*")
# Text that must never reach a reader (as in tests/browser/test_rendered_book.py).
FORBIDDEN = [
    re.compile(r"Traceback \(most recent call last\)"),
    re.compile(r"\b(VBox|HBox|Explorer|FloatSlider|IntSlider)\(children="),
    re.compile(r"<(Figure|Axes) size \d+x\d+"),
    re.compile(r"Loading widget|Error displaying widget|application/vnd\.jupyter\.widget"),
]

pytestmark = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) missing")


@pytest.fixture(scope="module")
def text() -> str:
    if not PDF.exists():
        pytest.fail(f"no PDF edition at {PDF}: run make pdf")
    result = subprocess.run(["pdftotext", "-layout", str(PDF), "-"], capture_output=True, text=True,
                            check=True, timeout=300)
    return result.stdout


@pytest.fixture(scope="module")
def reading_order_text() -> str:
    """The text without -layout: a table cell's lines stay together (-layout interleaves columns)."""
    if not PDF.exists():
        pytest.fail(f"no PDF edition at {PDF}: run make pdf")
    result = subprocess.run(["pdftotext", str(PDF), "-"], capture_output=True, text=True, check=True,
                            timeout=300)
    return result.stdout


def _normal(s: str) -> str:
    """Collapse whitespace, hyphenation at line ends, and typographic quotes and dashes."""
    s = s.replace("\u2019", "'").replace("\u2018", "'").replace("\u2010", "-").replace("\u2011", "-")
    s = re.sub(r"-\n\s*", "-", s)
    return re.sub(r"\s+", " ", s).strip()


def _title(doc: str) -> str:
    """A page's title: the first heading of the notebook or Markdown file."""
    path = ROOT / doc
    if path.with_suffix(".md").exists():
        source = path.with_suffix(".md").read_text()
    else:
        import nbformat

        nb = nbformat.read(path.with_suffix(".ipynb"), as_version=4)
        source = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    heading = re.search(r"^# (.+)$", source, re.M).group(1)
    return re.sub(r"`([^`]*)`", r"\1", heading).strip()


def _toc_entries():
    for part in TOC["parts"]:
        yield part["caption"], [entry["file"] for entry in part["chapters"]]


def test_page_count_and_size():
    info = subprocess.run(["pdfinfo", str(PDF)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    print(f"\nPDF edition: {pages} pages, {PDF.stat().st_size / 1e6:.1f} MB")
    assert pages > 100, pages


def test_every_part_and_chapter_title_is_in_the_pdf(text):
    flat = _normal(text)
    missing = []
    for index, (caption, files) in enumerate(_toc_entries(), start=1):
        roman = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"][index - 1]
        part_title = PART_PREFIX.sub("", caption)
        # LaTeX numbers the parts itself: "Part I" above the title.
        if not re.search(rf"Part {roman}\s+{re.escape(part_title)}", flat):
            missing.append(f"Part {roman}: {part_title}")
        for doc in files:
            title = _normal(_title(doc))
            if title not in flat:
                missing.append(title)
    assert not missing, f"titles missing from the PDF: {missing}"


def test_chapters_are_numbered_in_the_contents(text):
    contents = _normal(text[: text.index("Solutions to the exercises")])
    for number, doc in enumerate(TOC["parts"][0]["chapters"], start=1):
        title = _normal(_title(doc["file"]))
        assert re.search(rf"\b{number} {re.escape(title)}", contents), f"chapter {number} {title}"


def test_no_unresolved_reference_or_citation(text):
    assert "??" not in text, [line for line in text.splitlines() if "??" in line][:10]
    assert not re.search(r"\[\?\]|\[\s*\?\s*\]", text)
    log = LOG.read_text(errors="replace")
    undefined = re.findall(r"(?:Reference|Citation|Hyper reference) `[^']+' on page \d+ undefined", log)
    assert not undefined, undefined[:10]


def test_no_missing_character_in_the_log():
    log = LOG.read_text(errors="replace")
    missing = sorted(set(re.findall(r"Missing character: There is no .+? in font [^!]+", log)))
    assert not missing, missing


def test_no_widget_placeholder_or_error_output(text):
    found = [p.pattern for p in FORBIDDEN if p.search(text)]
    assert not found, found


def test_solutions_are_in_the_appendix_not_after_the_exercises(text):
    # Every exercise says where its solution is ("Solution: appendix A, page 301."); every
    # solution comes after the last exercise, in the appendix (its heading is set in capitals).
    last_pointer = text.rindex("Solution: appendix")
    first_solution = text.index("Solution to Exercise")
    assert first_solution > last_pointer, text[first_solution - 300: first_solution + 100]
    appendix = text[last_pointer:]
    assert re.search(r"solutions to the exercises", appendix, re.I)
    solutions = re.findall(r"Solution to Exercise (\d+\.\d+)\b", appendix)
    exercises = set(re.findall(r"Exercise (\d+\.\d+)\b", text[:last_pointer]))
    assert len(solutions) >= 40, len(solutions)
    assert set(solutions) <= exercises, sorted(set(solutions) - exercises)
    assert text.count("Solution: appendix") == len(solutions)


def test_boxes_figures_math_and_bibliography(text):
    flat = _normal(text)
    for kind in ("Definition", "Theorem", "Exercise"):
        # Numbered by chapter, as in the HTML book: "Exercise 10.3", never "Exercise 10.9.3".
        assert re.search(rf"{kind} \d+\.\d+ \(", flat), kind
        assert not re.search(rf"{kind} \d+\.\d+\.\d+", flat), kind
    captions = re.findall(r"Fig\. \d+\.\d+:", flat)
    assert len(captions) >= 40, len(captions)
    # Typeset math: Greek letters and operators from the formulas, not TeX source.
    assert "ε" in flat and "δ" in flat
    source = re.findall(r".{60}\\(?:frac|varepsilon|mathbb|operatorname)\b.{20}", flat)
    assert not source, f"TeX source printed instead of typeset math: {source}"
    start = flat.index("BIBLIOGRAPHY")  # the chapter's heading (running headers are in title case)
    bibliography = flat[start:flat.index("SOLUTIONS TO THE EXERCISES", start)]
    assert not re.search(r"\\[a-z]+", bibliography), "TeX command printed in the bibliography"
    assert "Random differential privacy" in bibliography or "random differential privacy" in bibliography
    assert "Hall" in bibliography


def test_log_has_no_latex_error():
    log = LOG.read_text(errors="replace")
    errors = re.findall(r"^! .+$", log, re.M)
    assert not errors, errors[:10]


# ------------------------------------------------------------- numbering shared with the HTML

NUMBERED = re.compile(r"^(Definition|Theorem|Lemma|Proposition|Corollary|Algorithm|Exercise|Fig\.)\s+(\d+(?:\.\d+)*)\s*$")


def _squash(s: str) -> str:
    """Letters and digits only: survives line breaks, hyphenation and spacing of pdftotext."""
    return re.sub(r"[\W_]+", "", s.replace("\u00ad", "")).lower()


def _html_numbered_items(page: Path) -> list[tuple[str, str, str, str]]:
    """(label, kind, number, start of the title) of every numbered box and figure of a page."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    items = []
    for number_span in soup.select("span.caption-number"):
        match = NUMBERED.match(number_span.get_text().strip())
        if not match:
            continue
        holder = number_span.find_parent(["figure", "div"])
        # The title (box) or caption (figure) up to its first formula, whose text differs.
        words = []
        for piece in number_span.next_siblings:
            if getattr(piece, "name", None) and "math" in (piece.get("class") or []):
                break
            words.append(piece.get_text() if getattr(piece, "name", None) else str(piece))
        title = _squash("".join(words))[:30]
        items.append((holder.get("id", "?") if holder else "?", match[1], match[2], title))
    return items


def test_boxes_and_figures_have_the_html_numbers(text):
    """Every numbered theorem, definition, lemma, algorithm, exercise and figure of every
    chapter carries the same number in the PDF as in the HTML book (issue #32: the PDF
    numbered boxes by section, "Exercise 1.9.1", where the HTML has "Exercise 1.1")."""
    chapters = [doc for caption, files in _toc_entries() for doc in files if Path(doc).name.startswith("ch")]
    if not (HTML_DIR / f"{chapters[0]}.html").exists():
        pytest.skip(f"no HTML book at {HTML_DIR}: run make book (or set BOOK_HTML_DIR)")
    flat = _squash(text)
    compared, wrong, kinds_by_chapter = 0, [], {}
    for doc in chapters:
        for label, kind, number, title in _html_numbered_items(HTML_DIR / f"{doc}.html"):
            if len(title) < 6:  # a title that starts with a formula cannot be found in the text
                continue
            compared += 1
            kinds_by_chapter.setdefault(doc, set()).add(kind)
            separator = ":" if kind == "Fig." else "("  # "Fig. 10.1: caption", "Theorem 10.7 (title)"
            if _squash(f"{kind} {number}{separator}") + title not in flat:
                found = re.findall(_squash(kind) + r"(\d+)" + re.escape(title), flat)
                wrong.append(f"{doc}:{label}: HTML {kind} {number}, PDF {found or 'not found'} (digits only)")
    assert not wrong, wrong
    print(f"\n{compared} numbered boxes and figures have the same number in the HTML and the PDF")
    complete = [doc for doc, kinds in kinds_by_chapter.items()
                if {"Theorem", "Definition", "Exercise", "Fig."} <= kinds]
    assert len(complete) >= 3, kinds_by_chapter
    assert compared >= 100, compared


def test_course_plan_references_show_the_exercise_numbers(reading_order_text):
    """The course plans cite exercises by label; both editions print the number before it."""
    if not (HTML_DIR / "book" / "assignments" / "course_plans.html").exists():
        pytest.skip(f"no HTML book at {HTML_DIR}: run make book (or set BOOK_HTML_DIR)")
    from bs4 import BeautifulSoup

    page = (HTML_DIR / "book" / "assignments" / "course_plans.html").read_text(encoding="utf-8")
    html = _normal(BeautifulSoup(page, "html.parser").get_text(" ")).replace("\u00a0", " ")
    cited = re.findall(r"Exercise (\d+\.\d+) \((ex-[\w-]+)\)", html)
    source = (ROOT / "book" / "assignments" / "course_plans.md").read_text(encoding="utf-8")
    assert len(cited) == len(re.findall(r"\{ref\}`(ex-[\w-]+) <", source)), "a reference lost its number"
    flat = _squash(_course_plans_text(reading_order_text))
    for number, label in cited:
        assert _squash(f"Exercise {number} ({label})") in flat, (number, label)


def test_one_bibliography_chapter_with_every_entry(text):
    """Issue #32: an empty numbered "Bibliography" chapter came before the real, unnumbered one."""
    contents = [line for line in text.splitlines() if re.match(r"^\s*(\d+\s+)?Bibliography\s+\d+\s*$", line)]
    assert len(contents) == 1, contents
    headings = [line for line in text.splitlines() if line.strip() == "BIBLIOGRAPHY"]
    assert len(headings) == 1, headings  # the chapter heading (fncychap sets it in capitals)
    start = text.index(headings[0])
    chapter = text[start:text.index("SOLUTIONS TO THE EXERCISES", start)]
    numbers = [int(n) for n in re.findall(r"^\[(\d+)\]", chapter, re.M)]
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    entries = len(re.findall(r"^@(?!comment|string|preamble)\w+\{", bib, re.M | re.I))
    # book/reference/bibliography.md lists every entry (:all:), numbered 1 to N.
    assert numbers == list(range(1, entries + 1)), (len(numbers), entries)


def _course_plans_text(text: str) -> str:
    """The PDF text of the course plans chapter: from its heading to the next chapter's."""
    docs = [doc for caption, files in _toc_entries() for doc in files]
    here = docs.index("book/assignments/course_plans")
    start = text.index(_title(docs[here]).upper())
    return text[start:text.index(_title(docs[here + 1]).upper(), start)]


def _tex_lines_of(doc: str) -> range:
    """The lines of the .tex file that hold one document of the book."""
    lines = TEX.read_text(encoding="utf-8").splitlines()
    starts = [i + 1 for i, line in enumerate(lines) if re.search(r"\\label\{\\detokenize\{[^}]+::doc\}\}", line)]
    mine = next(i + 1 for i, line in enumerate(lines) if rf"\label{{\detokenize{{{doc}::doc}}}}" in line)
    return range(mine, min([s for s in starts if s > mine], default=len(lines) + 1))


def test_no_course_plan_table_cell_is_clipped(text):
    """Issue #32: "(week" ran out of the narrow lecture column and showed as "(weel".

    A word wider than its cell makes TeX report an overfull box; none may fall in the course
    plans' lines of the .tex file. And every "(week" of the Markdown is in the PDF text.
    """
    log = LOG.read_text(errors="replace")
    lines = _tex_lines_of("book/assignments/course_plans")
    overfull = []
    for match in re.finditer(r"^Overfull \\hbox \(([\d.]+)pt too wide\) (?:in paragraph|in alignment) "
                             r"at lines (\d+)--(\d+)|^Overfull \\hbox \(([\d.]+)pt too wide\) detected at line (\d+)",
                             log, re.M):
        first = int(match[2] or match[5])
        last = int(match[3] or match[5])
        if first <= lines[-1] and last >= lines[0]:
            overfull.append(match[0])
    assert not overfull, overfull
    source = (ROOT / "book" / "assignments" / "course_plans.md").read_text(encoding="utf-8")
    chapter = _course_plans_text(text)
    assert chapter.count("(week") == source.count("(week"), (chapter.count("(week"), source.count("(week"))
    assert "(weel" not in chapter


ASSIGNMENT_PAGES = sorted(p.stem for p in (ROOT / "book" / "assignments").glob("a[0-9]_*.md")) + ["index"]


@pytest.mark.parametrize("page", ASSIGNMENT_PAGES)
def test_no_assignment_table_cell_is_clipped(page):
    """The question tables of the assignment pages (and the index's table) fit their columns in the
    PDF: no overfull box wider than 1 pt in the page's lines of the .tex file."""
    log = LOG.read_text(errors="replace")
    lines = _tex_lines_of(f"book/assignments/{page}")
    overfull = []
    for match in re.finditer(r"^Overfull \\hbox \(([\d.]+)pt too wide\) (?:in paragraph|in alignment) "
                             r"at lines (\d+)--(\d+)|^Overfull \\hbox \(([\d.]+)pt too wide\) detected at line (\d+)",
                             log, re.M):
        width = float(match[1] or match[4])
        first = int(match[2] or match[5])
        last = int(match[3] or match[5])
        if width > 1.0 and first <= lines[-1] and last >= lines[0]:
            overfull.append(match[0])
    assert not overfull, overfull

"""The PDF edition (``make pdf``): checks of _build/latex/rdp-book.pdf and its LaTeX log.

Run by ``make test-pdf`` right after ``make pdf``. ``BOOK_LATEX_DIR=<dir>`` checks another build.
Needs ``pdftotext`` and ``pdfinfo`` (Debian's poppler-utils, installed with TeX Live by .ci/run).
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
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
STEM = Path(CONFIG["latex"]["latex_documents"]["targetname"]).stem
PDF = LATEX_DIR / f"{STEM}.pdf"
LOG = LATEX_DIR / f"{STEM}.log"
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
    solutions = re.findall(r"Solution to Exercise (\d+\.\d+\.\d+)", appendix)
    exercises = set(re.findall(r"Exercise (\d+\.\d+\.\d+)", text[:last_pointer]))
    assert len(solutions) >= 40, len(solutions)
    assert set(solutions) <= exercises, sorted(set(solutions) - exercises)
    assert text.count("Solution: appendix") == len(solutions)


def test_boxes_figures_math_and_bibliography(text):
    flat = _normal(text)
    for kind in ("Definition", "Theorem", "Exercise"):
        assert re.search(rf"{kind} \d+\.\d+\.\d+", flat), kind
    captions = re.findall(r"Fig\. \d+\.\d+:", flat)
    assert len(captions) >= 40, len(captions)
    # Typeset math: Greek letters and operators from the formulas, not TeX source.
    assert "ε" in flat and "δ" in flat
    source = re.findall(r".{60}\\(?:frac|varepsilon|mathbb|operatorname)\b.{20}", flat)
    assert not source, f"TeX source printed instead of typeset math: {source}"
    start = flat.rindex("BIBLIOGRAPHY")  # the chapter's heading (running headers are in title case)
    bibliography = flat[start:flat.index("SOLUTIONS TO THE EXERCISES", start)]
    assert not re.search(r"\\[a-z]+", bibliography), "TeX command printed in the bibliography"
    assert "Random differential privacy" in bibliography or "random differential privacy" in bibliography
    assert "Hall" in bibliography


def test_log_has_no_latex_error():
    log = LOG.read_text(errors="replace")
    errors = re.findall(r"^! .+$", log, re.M)
    assert not errors, errors[:10]

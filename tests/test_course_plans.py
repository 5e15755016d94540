"""The course plans page (book/assignments/course_plans.md) follows the book it plans.

Every chapter has its learning outcomes there; every section it names, every exercise label it
sets and every reading it cites exists; every assignment goes out and comes due.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "assignments" / "course_plans.md"
CHAPTERS = sorted(p.stem for p in (ROOT / "book").glob("ch*.ipynb"))
ASSIGNMENTS = sorted(p.stem for p in (ROOT / "book" / "assignments").glob("a[0-9]_*.md"))


def _markdown(stem: str) -> str:
    nb = json.loads((ROOT / "book" / f"{stem}.ipynb").read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


@pytest.fixture(scope="module")
def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def test_the_page_is_in_the_toc_and_linked_from_the_assignments_index():
    assert "file: book/assignments/course_plans" in (ROOT / "_toc.yml").read_text(encoding="utf-8")
    assert "{doc}`course_plans`" in (ROOT / "book" / "assignments" / "index.md").read_text(encoding="utf-8")


def test_every_chapter_has_its_learning_outcomes(page):
    outcomes = page.split("## Learning outcomes by chapter", 1)[1]
    listed = re.findall(r"^- \{doc\}`\.\./(ch\d\d[a-z]?_\w+)`:", outcomes, flags=re.MULTILINE)
    assert listed == CHAPTERS
    for stem in CHAPTERS:
        assert ":::{admonition} Learning objectives" in _markdown(stem), stem


def test_both_plans_use_every_chapter(page):
    semester = page.split("## A full semester", 1)[1].split("## Learning outcomes", 1)[0]
    for stem in CHAPTERS:
        assert f"{{doc}}`../{stem}`" in semester, f"the semester plan never covers {stem}"
    module = page.split("## A three-week module", 1)[1].split("## A full semester", 1)[0]
    assert "{doc}`a4_rdp_histograms`" in module


def test_every_assignment_goes_out_and_comes_due_in_order(page):
    semester = page.split("## A full semester", 1)[1].split("## Learning outcomes", 1)[0]
    weeks = {}
    for row in re.findall(r"^\| \d+ \(week (\d+)\) \|(.*)$", semester, flags=re.MULTILINE):
        for name, event in re.findall(r"\{doc\}`(a\d_\w+)` (out|due)", row[1]):
            weeks[name, event] = int(row[0]) + (1 if "due in week 15" in row[1] else 0)
    for name in ASSIGNMENTS:
        assert (name, "out") in weeks and (name, "due") in weeks, name
        assert weeks[name, "due"] - weeks[name, "out"] >= 2, f"{name} is open for less than two weeks"


def test_every_quoted_section_exists_in_its_chapter(page):
    for stem, names in re.findall(r"\{doc\}`\.\./(ch\d\d[a-z]?_\w+)`: ((?:\"[^\"]+\"[^|;{]*)+)", page):
        headings = set(re.findall(r"^##+ (.+?)\s*$", _markdown(stem), flags=re.MULTILINE))
        for name in re.findall(r"\"([^\"]+)\"", names):
            assert name in headings, f"{stem} has no section {name!r}"


def test_every_exercise_label_exists(page):
    labels = set()
    for stem in CHAPTERS:
        labels |= set(re.findall(r":::\{exercise\}[^\n]*\n:label: ([\w-]+)", _markdown(stem)))
    used = re.findall(r"\{ref\}`([\w-]+) <([\w-]+)>`", page)
    assert len(used) >= 40
    for shown, target in used:
        assert shown == target and target in labels, target


def test_every_reading_is_in_the_bibliography(page):
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    keys = set(re.findall(r"^@\w+\{([^,]+),", bib, flags=re.MULTILINE))
    cited = {k.strip() for group in re.findall(r"\{cite:p\}`([^`]+)`", page) for k in group.split(",")}
    assert cited and cited <= keys, cited - keys
    outside = re.findall(r"\*outside\*: ([^|]+)", page)
    for topic in ("abadi2016deep", "mckenna2021winning", "abowd2022topdown", "erlingsson2019amplification"):
        assert any(topic in reading for reading in outside), topic


def _semester_weeks(page: str) -> tuple[dict, dict]:
    """(assignment, out|due) -> week; chapter -> the first week a semester row covers it."""
    semester = page.split("## A full semester", 1)[1].split("### A general privacy course", 1)[0]
    events, taught = {}, {}
    for week, rest in re.findall(r"^\| \d+ \(week (\d+)\) \|(.*)$", semester, flags=re.MULTILINE):
        week = int(week)
        for name, event in re.findall(r"\{doc\}`(a\d_\w+)` (out|due)", rest):
            events[name, event] = week + (1 if f"{name}` due in week 15" in rest else 0)
        sections = rest.split("|")[0]
        for stem in re.findall(r"\{doc\}`\.\./(ch\d\d[a-z]?_\w+)`", sections):
            taught.setdefault(stem, week)
    return events, taught


def test_eight_assignments_cover_the_semester_without_gaps(page):
    events, _ = _semester_weeks(page)
    masters = sorted(p.stem for p in (ROOT / "book" / "assignments" / "masters").glob("a[0-9]_*.ipynb"))
    assert len(masters) >= 8
    for name in masters:
        assert (name, "out") in events and (name, "due") in events, f"{name} is not in the semester plan"
    windows = sorted((events[n, "out"], events[n, "due"]) for n in masters)
    first, last = windows[0][0], max(due for _, due in windows)
    for week in range(first, last + 1):
        open_now = [w for w in windows if w[0] <= week <= w[1]]
        assert open_now, f"no assignment is open in week {week}"


def test_each_assignment_goes_out_after_its_chapters_are_taught(page):
    events, taught = _semester_weeks(page)
    for path in sorted((ROOT / "book" / "assignments").glob("a[0-9]_*.md")):
        text = path.read_text(encoding="utf-8")
        draws_on = text.split("**Draws on**", 1)[1].split("\n\n", 1)[0] if "**Draws on**" in text else text
        chapters = set(re.findall(r"\{doc\}`\.\./(ch\d\d[a-z]?_\w+)`", draws_on))
        assert chapters, f"{path.stem}: the page names no chapter it draws on"
        for stem in chapters:
            assert stem in taught, f"{path.stem} draws on {stem}, which the semester never covers"
            assert events[path.stem, "out"] >= taught[stem], (
                f"{path.stem} goes out in week {events[path.stem, 'out']}, before {stem} is taught "
                f"(week {taught[stem]})")

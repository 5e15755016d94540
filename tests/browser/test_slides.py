"""The chapter slide decks (``make slides``) in headless Chromium, opened from file://.

Each deck must load offline (every request stays on the local disk), show at least five slides,
log no console error, typeset all of its math (no ``$``, ``\\(`` or TeX command left in the text
once MathJax is done, no MathJax error), show every image, and hold no widget.
``make test-slides`` builds the decks and runs this file; SLIDES_HTML_DIR=<dir> tests another copy.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .helpers import ROOT

pytestmark = pytest.mark.browser

SLIDES_DIR = Path(os.environ.get("SLIDES_HTML_DIR", ROOT / "_build" / "slides")).resolve()
CHAPTERS = sorted(p.stem for p in (ROOT / "book").glob("ch*.ipynb"))
MIN_SLIDES = 5
DECK_WIDTH, DECK_HEIGHT = 1280, 800  # build_slides.DECK_WIDTH, DECK_HEIGHT
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")

# Slide text outside code and typeset formulas: whatever is left of TeX there was not typeset.
SLIDE_TEXT = """
() => {
  const root = document.querySelector('.reveal .slides').cloneNode(true);
  root.querySelectorAll('pre, code, .jp-Cell, mjx-container, script, style').forEach(e => e.remove());
  return root.textContent;
}
"""
RAW_TEX = re.compile(r"\$|\\\(|\\\)|\\\[|\\\]|\\[a-zA-Z]{2,}")

# Every slide in turn: its content's width and height (to find slides that overflow the deck), and its images.
MEASURE_SLIDES = """
async () => {
  const sizes = [];
  for (let i = 0; i < Reveal.getTotalSlides(); i++) {
    Reveal.slide(i);
    await new Promise(resolve => requestAnimationFrame(resolve));
    const slide = Reveal.getCurrentSlide();
    sizes.push([slide.scrollWidth, slide.scrollHeight]);
  }
  const images = Array.from(document.querySelectorAll('.reveal img'));
  return {sizes, images: images.map(img => ({ok: img.complete && img.naturalWidth > 0, alt: img.alt}))};
}
"""

_TOTALS = {"decks": 0, "slides": 0, "formulas": 0, "start": time.monotonic()}


@pytest.fixture(scope="session")
def built_slides():
    """The folder of the decks; built from the notebooks when missing (about 10 s)."""
    if not (SLIDES_DIR / "index.html").exists():
        if SLIDES_DIR != (ROOT / "_build" / "slides").resolve():
            pytest.fail(f"SLIDES_HTML_DIR={SLIDES_DIR} has no index.html")
        result = subprocess.run([sys.executable, str(ROOT / "book" / "_slides" / "build_slides.py"),
                                 "--out", str(SLIDES_DIR)], cwd=ROOT, capture_output=True, text=True, timeout=600)
        if result.returncode != 0:
            pytest.fail("build_slides.py failed:\n" + result.stdout[-3000:] + result.stderr[-3000:])
    return SLIDES_DIR


class _Summary:
    """Prints the decks' totals in pytest's closing summary."""

    @staticmethod
    def pytest_terminal_summary(terminalreporter):
        if _TOTALS["decks"]:
            terminalreporter.write_line(
                f"slides: {_TOTALS['decks']} decks, {_TOTALS['slides']} slides, {_TOTALS['formulas']} formulas "
                f"typeset offline; {time.monotonic() - _TOTALS['start']:.1f} s")


@pytest.fixture(scope="module", autouse=True)
def _report(request):
    if not request.config.pluginmanager.has_plugin("slides-summary"):
        request.config.pluginmanager.register(_Summary(), "slides-summary")
    yield


def test_every_chapter_has_a_deck_and_the_index_lists_it(built_slides):
    index = (built_slides / "index.html").read_text(encoding="utf-8")
    for stem in CHAPTERS:
        assert (built_slides / f"{stem}.html").exists(), f"no deck for {stem}"
        assert f'href="{stem}.html"' in index


@pytest.mark.parametrize("stem", CHAPTERS)
def test_deck_is_offline_and_has_no_widget(built_slides, stem):
    text = (built_slides / f"{stem}.html").read_text(encoding="utf-8")
    remote = re.findall(r"""(?:src|href)\s*=\s*["']((?:https?:)?//[^"']+)""", text)
    assert not remote, f"{stem} loads from the network: {remote}"
    assert "https://" not in text and "http://" not in text
    assert "application/vnd.jupyter.widget" not in text and "widget-state" not in text
    for asset in ("reveal.js/dist/reveal.js", "reveal.js/dist/reveal.css", "mathjax/tex-chtml.js"):
        assert f'"{asset}"' in text and (built_slides / asset).exists(), asset


@pytest.mark.parametrize("stem", CHAPTERS)
def test_deck_in_chromium(built_slides, chromium, stem):
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors, remote, failed = [], [], []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda req: None if req.url.startswith(LOCAL_SCHEMES) else remote.append(req.url))
    page.on("requestfailed", lambda req: failed.append(f"{req.url[:120]} ({req.failure})"))
    try:
        page.goto((built_slides / f"{stem}.html").as_uri())
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("MathJax.startup.promise")
        total = page.evaluate("Reveal.getTotalSlides()")
        formulas = page.evaluate("document.querySelectorAll('mjx-container').length")
        merrors = page.evaluate("document.querySelectorAll('mjx-merror').length")
        leftover = RAW_TEX.findall(page.evaluate(SLIDE_TEXT))
        measured = page.evaluate(MEASURE_SLIDES)
    finally:
        context.close()

    assert not remote, f"{stem} requested the network: {remote[:5]}"
    assert not failed, f"{stem}: failed requests {failed[:5]}"
    assert not errors, f"{stem}: console errors {errors[:5]}"
    assert total >= MIN_SLIDES, f"{stem} has {total} slides"
    assert formulas > 0 and merrors == 0, f"{stem}: {formulas} formulas, {merrors} MathJax errors"
    assert not leftover, f"{stem}: untypeset math left in the slide text: {sorted(set(leftover))}"
    images = measured["images"]
    assert images and all(img["ok"] for img in images), f"{stem}: an image did not load"
    assert all(len(img["alt"].split()) >= 8 for img in images), f"{stem}: an image lacks its alt text"
    too_big = [i + 1 for i, (w, h) in enumerate(measured["sizes"]) if w > DECK_WIDTH or h > DECK_HEIGHT]
    assert not too_big, f"{stem}: slides {too_big} do not fit the deck ({DECK_WIDTH} x {DECK_HEIGHT} px)"
    _TOTALS["decks"] += 1
    _TOTALS["slides"] += total
    _TOTALS["formulas"] += formulas

"""The rendered book in headless Chromium: every TOC page loads, shows its figures and typeset
formulas, has no error output, and links only to pages and anchors that exist."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from urllib.parse import unquote, urldefrag, urlsplit

import pytest

from .conftest import STATS
from .helpers import IGNORED_PAGE_ERRORS, SCREENSHOT_DIR, WAIT_FOR_MATH, html_ids, toc_files

pytestmark = pytest.mark.browser

PAGES = toc_files()

# Text that must never reach a reader: tracebacks, error outputs, raw widget reprs.
FORBIDDEN_TEXT = [
    re.compile(r"Traceback \(most recent call last\)"),
    re.compile(r"\b\w+(Error|Exception): "),
    re.compile(r"\b(VBox|HBox|Explorer|FloatSlider|IntSlider)\(children="),
    re.compile(r"<(Figure|Axes) size \d+x\d+"),
]

WAIT_FOR_IMAGES = """
async () => {
  const images = Array.from(document.images);
  for (const img of images) { if (img.loading === 'lazy') img.loading = 'eager'; }
  await Promise.all(images.map(img => img.complete ? null :
      new Promise(resolve => { img.addEventListener('load', resolve); img.addEventListener('error', resolve); })));
  return images.map(img => ({src: img.currentSrc || img.src, width: img.naturalWidth}));
}
"""


# Article text outside code and typeset math: a TeX command left there means a formula that
# the Markdown parser did not recognise (e.g. `$$` glued to a paragraph), which MathJax then skips.
PROSE_TEXT = """
() => {
  const root = (document.querySelector('article') || document.body).cloneNode(true);
  root.querySelectorAll('pre, code, mjx-container, script, style, .MathJax, .highlight, .cell_input')
      .forEach(e => e.remove());
  return root.textContent;
}
"""
RAW_TEX = re.compile(r"\\[a-zA-Z]{2,}|\$\$")

# One cache of anchors per target file, shared by all pages.
_ANCHORS: dict[str, set[str] | None] = {}
_CHECKED_URLS: set[str] = set()


def _fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=20) as response:  # noqa: S310 - local server
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, b""


def _check_links(hrefs: list[str], base_url: str) -> list[str]:
    """Return the problems among ``hrefs`` that point into the served book."""
    problems = []
    for href in sorted(set(hrefs)):
        if not href.startswith(base_url):
            continue  # external, mailto:, javascript:
        target, fragment = urldefrag(href)
        target = target.split("?", 1)[0]
        if target not in _ANCHORS:
            status, body = _fetch(target)
            STATS["links"] += 1
            if status != 200:
                _ANCHORS[target] = None
            elif urlsplit(target).path.endswith((".html", "/")):
                _ANCHORS[target] = html_ids(body.decode("utf-8", "replace"))
            else:
                _ANCHORS[target] = set()
        anchors = _ANCHORS[target]
        if anchors is None:
            problems.append(f"broken link: {href} (target missing)")
            continue
        fragment = unquote(fragment)
        if fragment and urlsplit(target).path.endswith((".html", "/")) and href not in _CHECKED_URLS:
            _CHECKED_URLS.add(href)
            STATS["anchors"] += 1
            if fragment not in anchors:
                problems.append(f"broken anchor: {href}")
    return problems


@pytest.mark.timeout(240)
@pytest.mark.parametrize("doc", PAGES)
def test_page(page, book_server, doc):
    page_errors: list[str] = []
    failed_requests: list[str] = []
    page.on("pageerror", lambda exc: page_errors.append(str(exc)))
    page.on("response", lambda r: failed_requests.append(f"{r.status} {r.url}")
            if r.status >= 400 and r.url.startswith(book_server.base_url) else None)
    page.on("requestfailed", lambda r: failed_requests.append(f"failed {r.url}")
            if r.url.startswith(book_server.base_url) else None)

    response = page.goto(book_server.base_url + doc + ".html", wait_until="load")
    assert response is not None and response.status == 200, f"{doc}: HTTP {response and response.status}"
    STATS["pages"] += 1

    images = page.evaluate(WAIT_FOR_IMAGES)
    STATS["images"] += len(images)
    broken = [img["src"] for img in images if img["width"] == 0]
    assert not broken, f"{doc}: images that did not load: {broken}"

    math = page.evaluate(WAIT_FOR_MATH)
    if math["nodes"]:
        assert math["containers"] != -1, f"{doc}: MathJax never started (offline MathJax missing?)"
        assert math["containers"] >= math["nodes"], (
            f"{doc}: only {math['containers']} of {math['nodes']} formulas typeset")
        assert math["errors"] == 0, f"{doc}: {math['errors']} MathJax errors (undefined macro?)"
        STATS["formulas"] += math["nodes"]

    raw_tex = RAW_TEX.findall(page.evaluate(PROSE_TEXT))
    assert not raw_tex, f"{doc}: untypeset TeX in the text: {sorted(set(raw_tex))[:10]}"

    text = page.inner_text("article") if page.locator("article").count() else page.inner_text("body")
    for pattern in FORBIDDEN_TEXT:
        match = pattern.search(text)
        assert match is None, f"{doc}: error or raw output on the page: {match.group(0)!r}"
    bad_outputs = page.eval_on_selector_all(
        ".output.error, .output.traceback, .output.stderr, .system-message, .problematic",
        "els => els.map(e => e.className + ': ' + e.innerText.slice(0, 200))",
    )
    assert not bad_outputs, f"{doc}: error output in the page: {bad_outputs}"

    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(a => a.href)")
    problems = _check_links(hrefs, book_server.base_url)
    assert not problems, f"{doc}: " + "; ".join(problems)

    errors = [e for e in page_errors if not any(ok in e for ok in IGNORED_PAGE_ERRORS)]
    assert not errors, f"{doc}: JavaScript errors: {errors}"
    assert not failed_requests, f"{doc}: failed requests: {failed_requests}"

    page.screenshot(path=str(SCREENSHOT_DIR / (doc.replace("/", "__") + ".png")), full_page=True)


@pytest.mark.timeout(120)
def test_search_finds_laplace(page, book_server):
    page.goto(book_server.base_url + "search.html?q=Laplace", wait_until="load")
    page.wait_for_function(
        "() => document.querySelectorAll('#search-results ul.search li').length > 0", timeout=60_000
    )
    results = page.eval_on_selector_all("#search-results ul.search li", "els => els.map(e => e.innerText)")
    assert results, "the search page found nothing for 'Laplace'"
    assert any("laplace" in r.lower() for r in results), results[:5]
    page.screenshot(path=str(SCREENSHOT_DIR / "search_laplace.png"))


@pytest.mark.timeout(120)
def test_launch_buttons_point_at_the_notebook(page, book_server):
    page.goto(book_server.base_url + "book/ch03_randomized_response.html", wait_until="load")
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(a => a.href)")
    notebook = "book/ch03_randomized_response.ipynb"
    binder = [h for h in hrefs if "mybinder.org" in h]
    colab = [h for h in hrefs if "colab.research.google.com" in h]
    hub = [h for h in hrefs if "jupyterhub" in h and "hub/user-redirect" in h]
    assert binder and colab and hub, f"launch buttons missing: {binder=} {colab=} {hub=}"
    for href in binder + colab + hub:
        assert notebook in unquote(href), href
        assert "main" in re.split(r"[/?&=%]", unquote(href)), href
    assert any("/main?" in h for h in binder), binder
    assert any("/blob/main/" + notebook in h for h in colab), colab

"""Accessibility gate: axe-core on every page of the built book, in light and in dark mode.

Every HTML page of the build (chapters, preface, assignments, reference, the API's module source
pages, the indices and the search page) is opened in headless Chromium with the theme set to
light or dark, MathJax is left to finish, and axe-core runs with the WCAG 2.0 and 2.1 level A and
AA rules. Zero violations are allowed. A violation that sits in a third-party component the book
cannot change may be listed, with its upstream reference, in ``axe_exemptions.yml``; an
exemption that no longer matches anything fails the test, so that list can only shrink.

axe-core is vendored (``vendor/axe.min.js``, MPL-2.0, see ``vendor/LICENSE-axe-core.txt``) and
injected by the test; the pages are served from 127.0.0.1 and every other request is blocked,
so the check also proves that the book (MathJax and its assistive MathML included) works offline.
"""

from __future__ import annotations

import fnmatch
import os
import re
import time
from pathlib import Path

import pytest
import yaml

from .conftest import STATS
from .helpers import HTML_DIR, WAIT_FOR_MATH, toc_files

pytestmark = pytest.mark.browser

HERE = Path(__file__).resolve().parent
AXE_JS = HERE / "vendor" / "axe.min.js"
AXE_VERSION = "4.14.1"
EXEMPTIONS_FILE = HERE / "axe_exemptions.yml"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
MODES = ("light", "dark")

# Not reader-facing pages: theme template leftovers in _static, and the root index.html, which
# is a zero-second redirect to book/intro.html (checked on its own below).
SKIPPED = ("_static/*", "index.html")


RUN_AXE = """
async (tags) => {
  const result = await axe.run(document, {
    runOnly: {type: 'tag', values: tags},
    resultTypes: ['violations'],
  });
  return {
    version: axe.version,
    violations: result.violations.map(v => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 160),
                               summary: (n.failureSummary || '').replace(/\\s+/g, ' ').slice(0, 240)})),
    })),
  };
}
"""


def book_pages(html_dir: Path = HTML_DIR) -> list[str]:
    """Every HTML page of the build, as paths relative to ``html_dir``.

    AXE_PAGES (comma-separated globs, e.g. "book/ch02*") narrows the list while debugging a page;
    test_every_toc_page_is_checked fails when it is set, so a narrowed run never passes as a gate.
    """
    only = [g for g in os.environ.get("AXE_PAGES", "").split(",") if g]
    pages = []
    for path in sorted(html_dir.rglob("*.html")):
        rel = path.relative_to(html_dir).as_posix()
        if any(fnmatch.fnmatch(rel, pattern) for pattern in SKIPPED):
            continue
        if only and not any(fnmatch.fnmatch(rel, pattern) for pattern in only):
            continue
        pages.append(rel)
    return pages


def load_exemptions(path: Path = EXEMPTIONS_FILE) -> list[dict]:
    data = yaml.safe_load(path.read_text()) or {}
    exemptions = data.get("exemptions") or []
    for entry in exemptions:
        missing = {"rule", "pages", "target", "reason", "upstream"} - set(entry)
        assert not missing, f"{path.name}: exemption {entry} lacks {sorted(missing)}"
        entry.setdefault("modes", list(MODES))
    return exemptions


def _exempted(exemptions, used, mode, page, rule, target) -> bool:
    for index, entry in enumerate(exemptions):
        if (entry["rule"] == rule and mode in entry["modes"]
                and fnmatch.fnmatch(page, entry["pages"]) and re.search(entry["target"], target)):
            used.add(index)
            return True
    return False


def test_vendored_axe_is_pinned():
    head = AXE_JS.read_text(encoding="utf-8")[:200]
    assert f"axe v{AXE_VERSION}" in head, head
    assert (HERE / "vendor" / "LICENSE-axe-core.txt").exists()


def test_every_toc_page_is_checked(built_book):
    assert not os.environ.get("AXE_PAGES"), "AXE_PAGES is set: only some pages are checked"
    pages = set(book_pages(built_book))
    missing = [doc for doc in toc_files() if doc + ".html" not in pages]
    assert not missing, f"TOC pages missing from the build: {missing}"


def test_root_redirect(built_book):
    text = (built_book / "index.html").read_text()
    # A redirect without delay is not a timed refresh (axe rule meta-refresh, WCAG 2.2.1).
    assert re.search(r'http-equiv="Refresh" content="0; url=book/intro.html"', text, re.I), text[:500]


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("mode", MODES)
def test_axe_wcag21_aa(chromium, book_server, built_book, mode):
    axe_source = AXE_JS.read_text(encoding="utf-8")
    exemptions = load_exemptions()
    used: set[int] = set()
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, color_scheme=mode)
    # pydata-sphinx-theme reads the mode from localStorage before the first paint.
    context.add_init_script(f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}');")
    blocked: list[str] = []

    def only_local(route):
        if route.request.url.startswith(book_server.base_url):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", only_local)
    page = context.new_page()
    page.set_default_timeout(60_000)
    problems: list[str] = []
    by_rule: dict[str, int] = {}
    pages = book_pages(built_book)
    math_pages = 0
    durations: dict[str, float] = {}
    try:
        for doc in pages:
            started = time.monotonic()
            page.goto(book_server.base_url + doc, wait_until="load")
            theme = page.evaluate("() => document.documentElement.dataset.theme")
            assert theme == mode, f"{doc}: the page is in {theme!r} mode, not {mode!r}"
            math = page.evaluate(WAIT_FOR_MATH)
            if math["nodes"]:
                math_pages += 1
                assert math["containers"] >= math["nodes"], f"{doc}: MathJax typeset {math}"
                assert math["assistive"] == math["containers"], (
                    f"{doc}: {math['containers'] - math['assistive']} formulas lack MathJax's assistive MathML")
            page.add_script_tag(content=axe_source)
            result = page.evaluate(RUN_AXE, WCAG_TAGS)
            assert result["version"] == AXE_VERSION
            for violation in result["violations"]:
                for node in violation["nodes"]:
                    if _exempted(exemptions, used, mode, doc, violation["id"], node["target"]):
                        continue
                    by_rule[violation["id"]] = by_rule.get(violation["id"], 0) + 1
                    problems.append(f"{doc} [{violation['id']}, {violation['impact']}] {node['target']}: "
                                    f"{node['summary']} | {node['html']}")
            durations[doc] = time.monotonic() - started
    finally:
        context.close()
    STATS[f"axe_pages_{mode}"] = len(pages)
    STATS[f"axe_violations_{mode}"] = len(problems)
    STATS["axe_math_pages"] = math_pages
    slowest = sorted(durations.items(), key=lambda item: -item[1])[:3]
    STATS[f"axe_time_{mode}"] = f"{sum(durations.values()):.0f} s; slowest " + ", ".join(
        f"{doc} {seconds:.1f} s" for doc, seconds in slowest)
    unused = [exemptions[i] for i in range(len(exemptions)) if i not in used and mode in exemptions[i]["modes"]]
    assert not problems, (
        f"{len(problems)} axe-core {AXE_VERSION} violations (WCAG 2.0/2.1 A+AA) in {mode} mode, by rule "
        f"{by_rule}:\n" + "\n".join(problems[:60]))
    assert not unused, f"exemptions in {EXEMPTIONS_FILE.name} that match nothing any more (remove them): {unused}"

"""Fixtures for the browser tests: Chromium through Playwright, the built book and its server.

Every test in this folder is marked ``browser`` and is skipped, with the reason, when
Debian's Chromium or Playwright for Python is missing.
"""

from __future__ import annotations

import subprocess
import time

import pytest

from .helpers import (
    CHROMIUM_ARGS,
    HTML_DIR,
    ROOT,
    SCREENSHOT_DIR,
    VENV_BIN,
    StaticServer,
    chromium_path,
)

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    sync_playwright = None

# Counters filled by test_rendered_book.py and printed at the end of the session.
STATS: dict[str, object] = {"pages": 0, "images": 0, "formulas": 0, "links": 0, "anchors": 0}
_SESSION_START = time.monotonic()


def pytest_collection_modifyitems(config, items):
    reason = None
    if chromium_path() is None:
        reason = ("Chromium is not installed (apt-get install -y chromium chromium-driver): "
                  "browser and JupyterLab tests skipped")
    elif sync_playwright is None:
        reason = "Playwright for Python is not installed: browser tests skipped"
    for item in items:
        if "tests/browser" not in str(item.fspath).replace("\\", "/"):
            continue
        item.add_marker(pytest.mark.browser)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_terminal_summary(terminalreporter):
    if STATS["pages"]:
        terminalreporter.write_line(
            "rendered book: {pages:.0f} pages visited, {images:.0f} images checked, "
            "{formulas:.0f} formulas typeset, {links:.0f} internal links and {anchors:.0f} anchors "
            "checked".format(**STATS)
        )
    for mode in ("light", "dark"):
        if f"axe_pages_{mode}" in STATS:
            terminalreporter.write_line(
                f"axe-core ({mode} mode): {STATS[f'axe_pages_{mode}']:.0f} pages checked, "
                f"{STATS[f'axe_violations_{mode}']:.0f} violations ({STATS.get(f'axe_time_{mode}', '')})")
    if "axe_math_pages" in STATS:
        terminalreporter.write_line(
            f"MathJax offline: assistive MathML on every formula of {STATS['axe_math_pages']} pages with math")
    for key, value in STATS.items():
        if key.startswith("lab_"):
            terminalreporter.write_line(f"JupyterLab: {key[4:].replace('_', ' ')}: {value}")
    terminalreporter.write_line(
        f"browser tests: total time {time.monotonic() - _SESSION_START:.1f} s"
    )


@pytest.fixture(scope="session")
def built_book():
    """The folder of the built HTML book; built here (warnings as errors) when missing."""
    if not (HTML_DIR / "index.html").exists():
        if HTML_DIR != (ROOT / "_build" / "html").resolve():
            pytest.fail(f"BOOK_HTML_DIR={HTML_DIR} has no index.html")
        result = subprocess.run(
            [str(VENV_BIN / "jupyter-book"), "build", ".", "-W", "-n", "--keep-going"],
            cwd=ROOT, capture_output=True, text=True, timeout=1800,
        )
        if result.returncode != 0 or not (HTML_DIR / "index.html").exists():
            pytest.fail("jupyter-book build failed:\n" + result.stdout[-4000:] + result.stderr[-4000:])
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    return HTML_DIR


@pytest.fixture(scope="session")
def book_server(built_book):
    with StaticServer(built_book) as server:
        yield server


@pytest.fixture(scope="session")
def chromium():
    path = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        yield page
    finally:
        context.close()

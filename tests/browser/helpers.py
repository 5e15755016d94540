"""Shared helpers for the browser tests: paths, Chromium discovery, the TOC, a static server."""

from __future__ import annotations

import functools
import http.server
import os
import socket
import threading
from html.parser import HTMLParser
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = ROOT / ".venv" / "bin"
# The HTML folder under test; BOOK_HTML_DIR points the tests at another copy (e.g. a broken one).
HTML_DIR = Path(os.environ.get("BOOK_HTML_DIR", ROOT / "_build" / "html")).resolve()
# Where the tests save their screenshots; BROWSER_SCREENSHOT_DIR puts them elsewhere.
SCREENSHOT_DIR = Path(os.environ.get("BROWSER_SCREENSHOT_DIR", ROOT / "_build" / "screenshots")).resolve()

CHROMIUM_CANDIDATES = ("/usr/lib/chromium/chromium", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Harmless: sphinx-thebe includes its script twice on every Jupyter Book page.
IGNORED_PAGE_ERRORS = ("Identifier 'THEBE_JS_URL' has already been declared",)

# Waits for MathJax to finish and counts what it did: math nodes in the page, typeset
# containers (-1 when MathJax never started), rendering errors and formulas that carry
# MathJax's assistive MathML. Shared by the rendered-book and accessibility tests.
WAIT_FOR_MATH = """
async () => {
  const nodes = document.querySelectorAll('span.math, div.math').length;
  if (nodes === 0) return {nodes: 0, containers: 0, errors: 0, assistive: 0};
  for (let i = 0; i < 300 && !(window.MathJax && MathJax.startup && MathJax.startup.promise); i++) {
    await new Promise(resolve => setTimeout(resolve, 50));
  }
  if (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) return {nodes, containers: -1, errors: 0, assistive: 0};
  await MathJax.startup.promise;
  const containers = Array.from(document.querySelectorAll('mjx-container'));
  return {nodes, containers: containers.length,
          errors: document.querySelectorAll('mjx-merror').length,
          assistive: containers.filter(c => c.querySelector('mjx-assistive-mml math')).length};
}
"""


def chromium_path() -> str | None:
    """The Debian Chromium binary (Playwright's own browser download is not used)."""
    for candidate in CHROMIUM_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def toc_files(toc_path: Path = ROOT / "_toc.yml") -> list[str]:
    """Every document of the jb-book TOC (root first), as paths without suffix."""
    toc = yaml.safe_load(toc_path.read_text())
    files = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                files.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return files


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature of the base class
        pass


class StaticServer:
    """``http.server`` on 127.0.0.1 and a free port, serving ``directory`` from a thread."""

    def __init__(self, directory: Path) -> None:
        handler = functools.partial(_QuietHandler, directory=str(directory))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> StaticServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)


class _IdCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key == "id" or (key == "name" and tag == "a"):
                if value is not None:
                    self.ids.add(value)


def html_ids(text: str) -> set[str]:
    """All ``id`` (and ``<a name>``) values of an HTML document: the valid link anchors."""
    parser = _IdCollector()
    parser.feed(text)
    return parser.ids

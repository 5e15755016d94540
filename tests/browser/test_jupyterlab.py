"""JupyterLab end to end, in the project's own environment (JupyterLab 4.6 with jupyterlab-myst).

1. Every chapter notebook opens with its MyST markdown rendered the way students see it: no raw
   directive text (":label:", "{prf:", "{exercise", "{solution", fences) anywhere in the rendered
   markdown; every theorem, definition, proof, algorithm, exercise, solution and admonition of
   the source is a box, in order, showing its title; math inside the boxes is typeset (KaTeX),
   with no math errors. Only markdown is rendered here: no cell is run.
2. The randomized-response chapter is run, and its explorer is driven from the keyboard alone:
   the test moves to the explorer's cell with the arrow keys, tabs to the ε slider, presses the
   arrow keys and checks that the value, the readout table and the figure change.

The server runs on copies of the notebooks in a temporary folder, so the chapter files are
never modified. Screenshots of one theorem box per chapter go to SCREENSHOT_DIR/jupyterlab_boxes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import time
import unicodedata
import urllib.error
import urllib.request

import psutil
import pytest

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
except ImportError:  # pragma: no cover - the tests are skipped without Playwright (conftest.py)
    PlaywrightTimeoutError = TimeoutError

from .conftest import STATS
from .helpers import ROOT, SCREENSHOT_DIR, VENV_BIN, free_port

pytestmark = pytest.mark.browser

CHAPTERS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "book").glob("ch*.ipynb"))
EXPLORER_NOTEBOOK = "book/ch03_randomized_response.ipynb"
READOUT = ".widget-html table"

# Text that must never be visible in rendered markdown: the raw source of a directive.
RAW_DIRECTIVE_TEXT = (":label:", "{prf:", "{exercise", "{solution", ":class:", ":::", "```{")
# Role text that a MyST renderer should have turned into a link or citation: reported, not failed.
RAW_ROLE = re.compile(r"\{[a-z][\w:-]*\}`?")
RAW_TEX = re.compile(r"\\[a-zA-Z]{2,}")

DIRECTIVE = re.compile(r"^\s*(?P<fence>:{3,}|`{3,})\{(?P<name>[\w:.-]+)\}[ \t]*(?P<title>.*)$")
CODE_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(?!\{)")
ADMONITIONS = {"admonition", "note", "tip", "important", "warning", "caution", "attention", "danger",
               "error", "hint", "seealso"}
EXERCISES = {"exercise", "solution", "exercise-start", "exercise-end", "solution-start", "solution-end"}


def _box_kind(name: str) -> str | None:
    if name.startswith("prf:"):
        return "proof"
    if name in EXERCISES:
        return "exercise"
    if name in ADMONITIONS:
        return "admonition"
    return None


def expected_boxes(notebook_path) -> tuple[int, list[dict]]:
    """Markdown cell count and, in document order, every box directive of a notebook."""
    notebook = json.loads(notebook_path.read_text(encoding="utf-8"))
    markdown = [c for c in notebook["cells"] if c["cell_type"] == "markdown"]
    boxes = []
    for cell in markdown:
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        lines = source.split("\n")
        in_code = None
        for i, line in enumerate(lines):
            if in_code:
                if line.strip().startswith(in_code):
                    in_code = None
                continue
            code = CODE_FENCE.match(line)
            if code:
                in_code = code.group(1)
                continue
            match = DIRECTIVE.match(line)
            if not match:
                continue
            kind = _box_kind(match["name"])
            if kind is None:
                continue
            fence = match["fence"]
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == fence), len(lines))
            body = "\n".join(lines[i + 1:end])
            title = match["title"].strip()
            if match["name"] in ("solution", "solution-start"):
                title = ""  # the argument is the exercise's label; the box says "Solution to Exercise n"
            boxes.append({"name": match["name"], "kind": kind, "title": title, "math": "$" in body})
    return len(markdown), boxes


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    for a, b in (("’", "'"), ("‘", "'"), ("“", '"'), ("”", '"'), ("–", "-"), ("—", "-"), ("\u00a0", " ")):
        text = text.replace(a, b)
    text = re.sub(r"\$[^$]*\$", " ", text)  # math in a source title (the rendered one drops KaTeX)
    text = re.sub(r"[*_`]", "", text)
    return re.sub(r"\s+", " ", text).strip().lower()


COLLECT = """
(panel) => {
  const textOf = (el) => {  // text outside typeset math and outside the hidden editor
    const clone = el.cloneNode(true);
    clone.querySelectorAll('.katex, .jp-InputArea-editor, .cm-editor').forEach(e => e.remove());
    return clone.textContent;
  };
  const cells = Array.from(panel.querySelectorAll('.jp-MarkdownCell'));
  const rendered = cells.map(c => c.querySelector('.myst'));
  const boxes = Array.from(panel.querySelectorAll(
      '.jp-MarkdownCell .myst :is(aside, details):is(.myst-proof, .myst-exercise, .myst-admonition)'));
  return {
    cells: cells.length,
    renderedCells: rendered.filter(m => m && m.textContent.trim().length > 0).length,
    text: rendered.filter(m => m).map(textOf).join('\\n'),
    katex: panel.querySelectorAll('.jp-MarkdownCell .myst .katex').length,
    katexErrors: Array.from(panel.querySelectorAll('.jp-MarkdownCell .myst .katex-error')).map(e => e.textContent.slice(0, 80)),
    boxes: boxes.map(b => {
      const kind = ['proof', 'exercise', 'admonition'].find(k => b.classList.contains('myst-' + k));
      const title = b.querySelector('.myst-proof-title, .myst-exercise-title, .myst-admonition-header-text');
      return {kind, tag: b.tagName.toLowerCase(), id: b.id || '',
              title: title ? textOf(title).trim() : '',
              katex: b.querySelectorAll('.katex').length,
              katexErrors: b.querySelectorAll('.katex-error').length,
              text: textOf(b).slice(0, 4000)};
    }),
  };
}
"""


def _write_json(path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def _api(lab, method: str, path: str):
    request = urllib.request.Request(f"{lab['base']}{path}", method=method,
                                     headers={"Authorization": f"token {lab['token']}"})
    with urllib.request.urlopen(request, timeout=20) as response:  # noqa: S310 - local server
        body = response.read()
    return json.loads(body) if body else None


def _shutdown_sessions(lab) -> int:
    sessions = _api(lab, "GET", "/api/sessions")
    for session in sessions:
        _api(lab, "DELETE", f"/api/sessions/{session['id']}")
    return len(sessions)


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    """A JupyterLab server on 127.0.0.1 with a token and its own config/runtime folders,
    serving copies of every chapter notebook."""
    tmp_path = tmp_path_factory.mktemp("jupyterlab")
    root = tmp_path / "root"
    (root / "book").mkdir(parents=True)
    for chapter in CHAPTERS:
        shutil.copy2(ROOT / chapter, root / chapter)
    settings = tmp_path / "lab-settings"
    # No news or update pop-ups; render every cell (no windowing) so every cell is in the DOM.
    _write_json(settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings",
                {"fetchNews": "false", "checkForUpdates": False})
    _write_json(settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings",
                {"windowingMode": "none"})
    env = dict(os.environ)
    env.update({
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
        "IPYTHONDIR": str(tmp_path / "ipython"),
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
    })
    token = secrets.token_hex(16)
    port = free_port()
    log_path = tmp_path / "jupyterlab.log"
    log = open(log_path, "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [str(VENV_BIN / "jupyter-lab"), "--no-browser", "--allow-root", "--ip=127.0.0.1",
         f"--port={port}", "--port-retries=0", f"--ServerApp.token={token}",
         f"--ServerApp.root_dir={root}", "--LabApp.news_url=", "--ServerApp.open_browser=False"],
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail("JupyterLab exited early:\n" + log_path.read_text()[-3000:])
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5) as r:  # noqa: S310
                    if r.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                pytest.fail("JupyterLab did not answer /api/status within 90 s")
            time.sleep(0.5)
        yield {"base": base, "token": token, "proc": proc, "root": root}
    finally:
        # Remember every descendant (kernels), stop the server by PID, then check nothing is left.
        try:
            children = psutil.Process(proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            children = []
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        gone, alive = psutil.wait_procs(children, timeout=15)
        for child in alive:  # only our own server's children, by PID
            child.kill()
        log.close()
        assert not alive, f"processes left behind after shutdown: {[c.pid for c in alive]}"
        assert proc.returncode is not None


def _open_notebook(page, lab, notebook: str, first: bool) -> None:
    name = notebook.rsplit("/", 1)[-1]
    if first:
        page.goto(f"{lab['base']}/lab/tree/{notebook}?reset&token={lab['token']}")
    else:  # open it from the file browser, as a student would
        page.locator(".jp-DirListing-item", has=page.locator(".jp-DirListing-itemText", has_text=name)).first.dblclick()
    page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current", has_text=name).first.wait_for(timeout=120_000)


# A negative control, opened after the chapters: a theorem whose directive is indented into a
# code block (what a wrong fence or indentation gives) and a correct colon-fenced one.
CONTROL_NOTEBOOK = "book/zz_negative_control.ipynb"
CONTROL_CELLS = [
    "    :::{prf:theorem} Indented by mistake\n    :label: thm-control-indented\n\n    $a^2$\n    :::",
    ":::{prf:theorem} Colon-fenced\n:label: thm-control-colon\n\nFor every $y \\in \\{0, 1\\}$, $$a^2 + b^2$$\n:::",
]


def _write_control(root) -> None:
    notebook = {
        "cells": [{"cell_type": "markdown", "id": f"control{i}", "metadata": {}, "source": text}
                  for i, text in enumerate(CONTROL_CELLS)],
        "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                                    "name": "python3"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    _write_json(root / CONTROL_NOTEBOOK, notebook)


def _check_open_notebook(page, notebook_path, stem) -> dict:
    """Check the notebook open in the current tab against its source; return what was found."""
    markdown_cells, expected = expected_boxes(notebook_path)
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)").first
    # Every markdown cell rendered by jupyterlab-myst, then (normally) all boxes present.
    page.wait_for_function(
        """([panel, cells]) => Array.from(panel.querySelectorAll('.jp-MarkdownCell'))
              .filter(c => { const m = c.querySelector('.myst'); return m && m.textContent.trim(); })
              .length >= cells""",
        arg=[panel.element_handle(), markdown_cells], timeout=60_000, polling=500,
    )
    try:
        page.wait_for_function(
            """([panel, boxes]) => panel.querySelectorAll(
                  '.jp-MarkdownCell .myst :is(aside, details):is(.myst-proof, .myst-exercise, .myst-admonition)'
               ).length >= boxes""",
            arg=[panel.element_handle(), len(expected)], timeout=15_000, polling=500,
        )
    except PlaywrightTimeoutError:
        pass  # reported below as boxes that do not match the source
    page.wait_for_timeout(300)  # let a last re-render settle
    found = panel.evaluate(COLLECT)
    failures: list[str] = []
    result = {"failures": failures, "boxes": 0, "formulas": found["katex"], "raw_lines": 0,
              "empty_boxes": [], "roles": RAW_ROLE.findall(found["text"])}

    raw = [line.strip()[:120] for line in found["text"].split("\n") if any(p in line for p in RAW_DIRECTIVE_TEXT)]
    result["raw_lines"] = len(raw)
    if raw:
        failures.append(f"{stem}: raw directive text visible: {raw[:5]}")
    if found["renderedCells"] != markdown_cells:
        failures.append(f"{stem}: {found['renderedCells']} of {markdown_cells} markdown cells rendered")
    if found["katexErrors"]:
        failures.append(f"{stem}: math errors in JupyterLab (undefined macro?): {found['katexErrors'][:5]}")

    boxes = found["boxes"]
    if [b["kind"] for b in boxes] != [e["kind"] for e in expected]:
        failures.append(f"{stem}: boxes {[b['kind'] for b in boxes]} do not match the source's "
                        f"{[e['name'] for e in expected]}")
    for box, source in zip(boxes, expected, strict=False):
        result["boxes"] += 1
        where = f"{stem}: {{{source['name']}}} {source['title'] or box['id']!r}"
        if source["name"].endswith("-end"):
            if not box["title"]:
                result["empty_boxes"].append(f"{stem} {{{source['name']}}}")
            continue
        if not box["title"]:
            failures.append(f"{where}: the box has no title")
        elif source["title"] and _normalise(source["title"]) not in _normalise(box["title"]):
            failures.append(f"{where}: the box's title reads {box['title']!r}")
        if source["math"] and box["katex"] == 0:
            failures.append(f"{where}: the source has math but the box shows none typeset")
        if box["katexErrors"]:
            failures.append(f"{where}: {box['katexErrors']} math errors")
        tex = RAW_TEX.findall(box["text"])
        if tex:
            failures.append(f"{where}: untypeset TeX in the box: {sorted(set(tex))[:5]}")

    theorem = panel.locator(".jp-MarkdownCell .myst aside.myst-proof",
                            has=page.locator(".myst-proof-title", has_text=re.compile(r"^Theorem"))).first
    if theorem.count():
        theorem.scroll_into_view_if_needed()
        theorem.screenshot(path=str(SCREENSHOT_DIR / "jupyterlab_boxes" / f"{stem}_theorem.png"))
    return result


@pytest.mark.timeout(600)
def test_every_chapter_renders_its_boxes(page, jupyterlab):
    page.set_default_timeout(60_000)
    (SCREENSHOT_DIR / "jupyterlab_boxes").mkdir(parents=True, exist_ok=True)
    _write_control(jupyterlab["root"])
    failures: list[str] = []
    totals = {"chapters": 0, "boxes": 0, "formulas": 0, "raw_lines": 0}
    empty_boxes: list[str] = []
    raw_roles: dict[str, int] = {}
    started = time.monotonic()
    for number, chapter in enumerate(CHAPTERS + [CONTROL_NOTEBOOK]):
        stem = chapter.rsplit("/", 1)[-1].removesuffix(".ipynb")
        _open_notebook(page, jupyterlab, chapter, first=number == 0)
        result = _check_open_notebook(page, jupyterlab["root"] / chapter, stem)
        # Close the notebook and shut its kernel down before the next one.
        page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabCloseIcon").first.click()
        _shutdown_sessions(jupyterlab)
        if chapter == CONTROL_NOTEBOOK:
            control = result
            continue
        totals["chapters"] += 1
        for key in ("boxes", "formulas", "raw_lines"):
            totals[key] += result[key]
        failures += result["failures"]
        empty_boxes += result["empty_boxes"]
        for role in result["roles"]:
            raw_roles[role] = raw_roles.get(role, 0) + 1

    STATS["lab_chapters_opened"] = totals["chapters"]
    STATS["lab_boxes_rendered_with_title"] = totals["boxes"] - len(empty_boxes)
    STATS["lab_formulas_typeset"] = totals["formulas"]
    STATS["lab_raw_directive_lines_visible"] = totals["raw_lines"]
    STATS["lab_chapter_render_time_s"] = round(time.monotonic() - started, 1)
    if empty_boxes:
        STATS["lab_empty_solution_end_boxes"] = len(empty_boxes)
    if raw_roles:
        STATS["lab_raw_role_text"] = raw_roles
    # The negative control: the indented theorem is caught, the colon-fenced one passes.
    control_text = "\n".join(control["failures"])
    assert "raw directive text visible" in control_text and "do not match" in control_text, control
    assert control["boxes"] == 1 and control["formulas"] >= 2, control  # the colon-fenced theorem
    assert totals["chapters"] == len(CHAPTERS) >= 12
    assert not failures, f"{len(failures)} rendering problems in JupyterLab:\n" + "\n".join(failures)


def _describe_focus(page) -> str:
    return page.evaluate("""() => { const el = document.activeElement;
        return el ? `${el.tagName}.${el.className} role=${el.getAttribute('role')}` : 'none'; }""")


@pytest.mark.timeout(300)
def test_explorer_from_the_keyboard(page, jupyterlab):
    chapter_digest = hashlib.sha256((ROOT / EXPLORER_NOTEBOOK).read_bytes()).hexdigest()
    page.set_default_timeout(60_000)
    page.goto(f"{jupyterlab['base']}/lab/tree/{EXPLORER_NOTEBOOK}?reset&token={jupyterlab['token']}")

    # The toolbar reads idle before the kernel is ready: wait for the status bar instead.
    page.get_by_text(re.compile(r"\(ipykernel\) \| Idle")).first.wait_for(timeout=120_000)
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
    page.locator("[data-command='runmenu:run-all']").click()

    # All cells done: kernel idle again and no cell still waiting ("[*]").
    page.wait_for_function(
        """() => {
          const prompts = Array.from(document.querySelectorAll('.jp-InputArea-prompt'));
          const done = prompts.length > 0 && prompts.every(p => !p.innerText.includes('*'));
          const idle = /\\(ipykernel\\) \\| Idle/.test(document.body.innerText);
          return done && idle && document.querySelector('.widget-slider .noUi-handle');
        }""",
        timeout=180_000, polling=500,
    )
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    error_text = [t for t in errors.all_inner_texts() if "Traceback" in t or "Error" in t]
    assert not error_text, f"error output in the notebook: {error_text[:2]}"

    explorer = page.locator(".widget-vbox", has=page.locator(READOUT)).last
    slider = explorer.locator(".widget-slider", has_text="ε").first
    handle = slider.locator(".noUi-handle")
    readout = explorer.locator(READOUT).first
    figure = explorer.locator(".widget-image").first
    page.wait_for_function("el => el.innerText.trim().length > 0", arg=readout.element_handle())
    before_text = readout.inner_text()
    before_image = figure.get_attribute("src")
    before_value = slider.locator(".widget-readout").inner_text()

    # Keyboard only from here: command mode, arrow keys to the explorer's cell, Tab to the slider.
    cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-cell")
    target = cells.evaluate_all(
        "(cells, handle) => cells.findIndex(c => c.contains(handle))", handle.element_handle())
    assert target >= 0
    page.keyboard.press("Escape")
    for _ in range(2 * cells.count()):
        active = cells.evaluate_all("cells => cells.findIndex(c => c.classList.contains('jp-mod-active'))")
        if active == target:
            break
        page.keyboard.press("ArrowDown" if active < target else "ArrowUp")
    else:
        pytest.fail("the arrow keys did not reach the explorer's cell")
    tabs = 0
    while not handle.evaluate("el => el === document.activeElement"):
        tabs += 1
        assert tabs <= 15, f"Tab did not reach the ε slider; focus is on {_describe_focus(page)}"
        page.keyboard.press("Tab")
    assert handle.get_attribute("role") == "slider"
    STATS["lab_tab_presses_to_slider"] = tabs

    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "([el, old]) => el.innerText !== old", arg=[readout.element_handle(), before_text], timeout=60_000
    )
    after_value = slider.locator(".widget-readout").inner_text()
    assert float(after_value) > float(before_value), (before_value, after_value)
    assert readout.inner_text() != before_text
    page.wait_for_function(
        "([el, old]) => el.getAttribute('src') !== old", arg=[figure.element_handle(), before_image],
        timeout=60_000,
    )
    # And back down with the other arrow key: the value returns and focus stays on the slider.
    moved_text = readout.inner_text()
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(
        "([el, old]) => el.innerText !== old", arg=[readout.element_handle(), moved_text], timeout=60_000
    )
    assert slider.locator(".widget-readout").inner_text() == before_value
    assert handle.evaluate("el => el === document.activeElement")
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT_DIR / "jupyterlab_ch02_explorer.png"))
    _shutdown_sessions(jupyterlab)
    # The chapter file itself is untouched (the server works on a copy).
    assert hashlib.sha256((ROOT / EXPLORER_NOTEBOOK).read_bytes()).hexdigest() == chapter_digest

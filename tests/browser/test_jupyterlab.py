"""JupyterLab end to end: open the randomized-response chapter, run all cells, move the ε slider
of its explorer, and check that the readout and the figure change. The server runs from a copy
of the notebook in a temporary folder, so the chapter file is never modified."""

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
import urllib.error
import urllib.request

import psutil
import pytest

from .helpers import ROOT, SCREENSHOT_DIR, VENV_BIN, free_port

pytestmark = pytest.mark.browser

NOTEBOOK = "book/ch02_randomized_response.ipynb"
READOUT = ".widget-html table"


def _write_json(path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


@pytest.fixture
def jupyterlab(tmp_path):
    """A JupyterLab server on 127.0.0.1 with a token and its own config/runtime folders."""
    root = tmp_path / "root"
    (root / "book").mkdir(parents=True)
    shutil.copy2(ROOT / NOTEBOOK, root / NOTEBOOK)
    settings = tmp_path / "lab-settings"
    # No news or update pop-ups; render every cell (no windowing) so the explorer is in the DOM.
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
    log = open(tmp_path / "jupyterlab.log", "w")  # noqa: SIM115 - closed below
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
                pytest.fail("JupyterLab exited early:\n" + (tmp_path / "jupyterlab.log").read_text()[-3000:])
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


@pytest.mark.timeout(300)
def test_run_chapter_and_move_slider(page, jupyterlab):
    chapter_digest = hashlib.sha256((ROOT / NOTEBOOK).read_bytes()).hexdigest()
    page.set_default_timeout(60_000)
    page.goto(f"{jupyterlab['base']}/lab/tree/{NOTEBOOK}?token={jupyterlab['token']}")

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
    handle.scroll_into_view_if_needed()
    page.wait_for_function("el => el.innerText.trim().length > 0", arg=readout.element_handle())
    before_text = readout.inner_text()
    before_image = figure.get_attribute("src")
    before_value = slider.locator(".widget-readout").inner_text()

    handle.focus()
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
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT_DIR / "jupyterlab_ch02_explorer.png"))
    # The chapter file itself is untouched (the server works on a copy).
    assert hashlib.sha256((ROOT / NOTEBOOK).read_bytes()).hexdigest() == chapter_digest

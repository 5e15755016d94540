"""Each chapter notebook runs on its own, as on Colab: alone in an empty folder, in a fresh
virtual environment that holds Colab's usual stack (numpy, scipy, matplotlib, ipywidgets, pandas, statsmodels)
but not rdplib. The notebook's setup cell installs rdplib, pointed here at the wheel
built from this checkout (``RDPLIB_SOURCE``). Also checks the wheel installs into a clean
environment with only numpy, scipy and matplotlib, and the book's launch links.

Run with ``make test-standalone`` (after ``make book``: the launch-link test reads
``_build/html``). Needs network access to the package index (or a warm pip cache).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

import pytest
import yaml

from tests.standalone.setup_cells import chapters, setup_source

ROOT = Path(__file__).resolve().parents[2]
LOCK_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")
COLAB_STACK = ["numpy", "scipy", "matplotlib", "ipywidgets", "ipykernel", "nbclient", "pandas", "statsmodels"]


def _locked(names):
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        m = LOCK_PIN.match(line)
        if m:
            pins[m[1].lower()] = m[2]
    return [f"{n}=={pins[n]}" for n in names]


def _pip(python, *args, timeout=900):
    return subprocess.run([str(python), "-m", "pip", *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--sdist", "--outdir", str(out), str(ROOT)],
        check=True, capture_output=True, text=True, timeout=600,
    )
    shutil.rmtree(ROOT / "build", ignore_errors=True)
    wheels = list(out.glob("rdplib-*.whl"))
    assert len(wheels) == 1 and list(out.glob("rdplib-*.tar.gz"))
    return wheels[0]


def _venv(tmp_path_factory, name, packages):
    where = tmp_path_factory.mktemp(name) / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=300)
    python = where / "bin" / "python"
    result = _pip(python, "install", "--quiet", *_locked(packages))
    assert result.returncode == 0, result.stderr[-3000:]
    return python


@pytest.fixture(scope="session")
def colab_python(tmp_path_factory):
    return _venv(tmp_path_factory, "colab", COLAB_STACK)


def test_wheel_installs_with_only_numpy_scipy_matplotlib(tmp_path_factory, wheel):
    python = _venv(tmp_path_factory, "bare", ["numpy", "scipy", "matplotlib"])
    result = _pip(python, "install", "--quiet", "--no-deps", str(wheel))
    assert result.returncode == 0, result.stderr
    check = _pip(python, "check")
    assert check.returncode == 0, check.stdout
    code = (
        "import time; t = time.perf_counter(); import rdplib; t = time.perf_counter() - t\n"
        "import numpy as np\n"
        "print(rdplib.randomized_response(np.array([0, 1, 1]), 1.0, rng=0), round(t, 3))\n"
        "try:\n    import rdplib.widgets\nexcept ImportError as e:\n    print('widgets need the extra:', e)\n"
    )
    run = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "widgets need the extra" in run.stdout and "ipywidgets" in run.stdout


def test_every_chapter_has_the_current_setup_cell():
    for path in chapters():
        nb = json.loads(path.read_text())
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        source = "".join(code[0]["source"])
        assert source == setup_source(), f"{path.name}: run `python tests/standalone/setup_cells.py`"
        assert code[0]["metadata"].get("tags") == ["remove-cell"]
        assert not code[0].get("outputs"), f"{path.name}: the setup cell prints nothing when rdplib imports"


RUNNER = """
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": sys.argv[2]}}).execute()
first = [c for c in nb.cells if c.cell_type == "code"][0]
print("SETUP OUTPUT:", "".join(o.get("text", "") for o in first.outputs))
"""


@pytest.mark.parametrize("path", chapters(), ids=lambda p: p.stem)
def test_chapter_runs_alone_from_the_wheel(tmp_path, colab_python, wheel, path):
    _pip(colab_python, "uninstall", "--yes", "--quiet", "rdplib")
    folder = tmp_path / "alone"
    folder.mkdir()
    shutil.copy(path, folder / path.name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "JUPYTER"))}
    env["RDPLIB_SOURCE"] = wheel.as_uri()
    env["MPLBACKEND"] = "Agg"
    start = time.perf_counter()
    run = subprocess.run(
        [str(colab_python), "-c", RUNNER, str(folder / path.name), str(folder)],
        capture_output=True, text=True, timeout=600, cwd=folder, env=env,
    )
    elapsed = time.perf_counter() - start
    assert run.returncode == 0, f"{path.name} failed alone:\n{run.stderr[-4000:]}"
    assert "installing it from file://" in run.stdout and "is installed" in run.stdout, run.stdout
    print(f"{path.name}: ran alone in {elapsed:.1f} s")


def _launch_links(page: Path) -> list[str]:
    return re.findall(r'href="([^"]+)"', page.read_text())


def test_launch_links_point_at_the_repository():
    html = ROOT / "_build" / "html" / "book" / "ch03_randomized_response.html"
    if not html.exists():
        pytest.fail("build the book first (make book)")
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    url = config["repository"]["url"].rstrip("/")
    owner_repo = urlparse(url).path.strip("/")
    repo_name = owner_repo.split("/")[-1]
    branch = config["repository"].get("branch", "main")
    links = _launch_links(html)
    hub = config["launch_buttons"]["jupyterhub_url"].rstrip("/")
    hub_links = [unquote(link.replace("&amp;", "&")) for link in links if link.startswith(hub)]
    assert hub_links, "no JupyterHub launch link"
    parsed = urlparse(hub_links[0])
    assert parsed.path.endswith("/hub/user-redirect/git-pull"), parsed.path  # nbgitpuller
    query = parse_qs(parsed.query)
    assert query["repo"] == [url] and query["branch"] == [branch]
    assert query["urlpath"][0].endswith(f"{repo_name}/book/ch03_randomized_response.ipynb"), query
    colab = [link for link in links if "colab.research.google.com" in link]
    assert colab and colab[0].endswith(f"github/{owner_repo}/blob/{branch}/book/ch03_randomized_response.ipynb")
    binder = [link for link in links if "mybinder.org" in link]
    assert binder and f"/v2/gh/{owner_repo}/{branch}" in binder[0]

"""The first code cell of every chapter: make the notebook work when opened on its own.

On Colab, or after a download, a chapter notebook is opened without this repository
and without rdplib. Its first code cell (tagged ``remove-cell``: the rendered book
hides it) does nothing when ``import rdplib`` works; otherwise it installs rdplib, with
its explorer extra, from the repository configured for the book (``repository.url``
and ``repository.branch`` in ``_config.yml``) and says so. The environment variable
``RDPLIB_SOURCE`` overrides the address (the standalone test points it at a wheel).

The address is written in one place, ``_config.yml``; a fork that publishes the book elsewhere
changes ``repository.url`` there and runs this script (``tests/standalone/test_fork_address.py``
checks that nothing else needs changing).

Usage: python tests/standalone/setup_cells.py [--check] [--root DIR]   (rewrites every chapter's setup cell)
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[2]
MARKER = "# Setup: lets this notebook run on its own"

TEMPLATE = '''{marker} (Colab, a download). It does nothing when
# rdplib is installed; otherwise it installs rdplib from the book's repository.
try:
    import rdplib
except ModuleNotFoundError:
    import importlib
    import os
    import subprocess
    import sys

    source = os.environ.get("RDPLIB_SOURCE", "git+{url}@{branch}")
    print(f"rdplib is not installed: installing it from {{source}} ...")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", f"rdplib[widgets] @ {{source}}"],
        check=True,
    )
    importlib.invalidate_caches()
    import rdplib

    print(f"rdplib {{rdplib.__version__}} is installed.")'''


def setup_source(config_path: Path = ROOT / "_config.yml") -> str:
    config = yaml.safe_load(config_path.read_text())
    repo = config["repository"]
    return TEMPLATE.format(marker=MARKER, url=repo["url"].rstrip("/"), branch=repo.get("branch", "main"))


def chapters(root: Path = ROOT) -> list[Path]:
    return sorted((root / "book").glob("ch*.ipynb"))


def sync(path: Path, root: Path = ROOT) -> bool:
    """Insert or refresh the setup cell; return True when the notebook changed."""
    nb = nbformat.read(path, as_version=4)
    source = setup_source(root / "_config.yml")
    code = [c for c in nb.cells if c.cell_type == "code"]
    if code and code[0].source.startswith(MARKER):
        cell = code[0]
        if cell.source == source and cell.metadata.get("tags") == ["remove-cell"]:
            return False
        cell.source = source
        cell.metadata["tags"] = ["remove-cell"]
    else:
        cell = nbformat.v4.new_code_cell(source, metadata={"tags": ["remove-cell"]})
        first_code = nb.cells.index(code[0]) if code else len(nb.cells)
        nb.cells.insert(first_code, cell)
    nbformat.write(nb, path)
    return True


if __name__ == "__main__":
    check = "--check" in sys.argv
    root = Path(sys.argv[sys.argv.index("--root") + 1]).resolve() if "--root" in sys.argv else ROOT
    stale = []
    for path in chapters(root):
        if check:
            nb = nbformat.read(path, as_version=4)
            code = [c for c in nb.cells if c.cell_type == "code"]
            if not code or code[0].source != setup_source(root / "_config.yml"):
                stale.append(path.name)
        elif sync(path, root):
            print("updated", path.name)
    if stale:
        print("setup cell missing or stale in:", ", ".join(stale))
        sys.exit(1)

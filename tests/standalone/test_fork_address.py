"""Where the book lives is said once, in _config.yml: a fork that changes it gets every link right.

``repository.url`` (and ``repository.branch``) and ``launch_buttons.jupyterhub_url`` are the only
addresses. The Binder, Colab and JupyterHub launch buttons are made from them by the theme at build
time; the Colab setup cell of each chapter is generated from them by setup_cells.py; the README
names the settings, never the address. These tests act as a fork: copy the book to a temporary
folder, change the two settings, regenerate, and look for the old addresses.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from tests.standalone.setup_cells import MARKER, chapters, setup_source, sync

ROOT = Path(__file__).resolve().parents[2]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
OLD_REPO = CONFIG["repository"]["url"].rstrip("/")
OLD_HUB = CONFIG["launch_buttons"]["jupyterhub_url"].rstrip("/")
NEW_REPO = "https://github.com/a-fork-owner/dp-course-notes"
NEW_HUB = "https://hub.fork-university.example.org"
NEW_BRANCH = "fall-term"


def _fork_config(text: str) -> str:
    """The fork's _config.yml: the two addresses and the branch changed, nothing else."""
    assert text.count(OLD_REPO) == 1 and text.count(OLD_HUB) == 1
    text = text.replace(OLD_REPO, NEW_REPO).replace(OLD_HUB, NEW_HUB)
    old_branch = f"  branch: {CONFIG['repository'].get('branch', 'main')}\n"
    assert text.count(old_branch) == 1
    return text.replace(old_branch, f"  branch: {NEW_BRANCH}\n")


def _old_addresses(text: str) -> list[str]:
    owner_repo = OLD_REPO.split("github.com/")[-1]
    return [a for a in (OLD_REPO, OLD_HUB, owner_repo) if a in text]


def test_the_addresses_are_written_once():
    """Outside _config.yml, only the generated setup cells hold the repository address."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    holders = []
    for name in files.stdout.splitlines():
        path = ROOT / name
        if not path.is_file() or path.suffix in {".png", ".whl", ".zip", ".pdf", ".lock"}:
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        if _old_addresses(text):
            holders.append(name)
    generated = {p.relative_to(ROOT).as_posix() for p in chapters()}
    assert set(holders) - generated == {"_config.yml"}, sorted(set(holders) - generated)


def test_a_fork_regenerates_every_setup_cell(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "_config.yml").write_text(_fork_config((ROOT / "_config.yml").read_text()))
    for path in chapters():
        shutil.copy(path, tmp_path / "book" / path.name)
    copies = chapters(tmp_path)
    assert len(copies) == len(chapters()) >= 16
    changed = [sync(path, tmp_path) for path in copies]
    assert all(changed)
    expected = setup_source(tmp_path / "_config.yml")
    assert f"git+{NEW_REPO}@{NEW_BRANCH}" in expected
    for path in copies:
        text = path.read_text()
        assert not _old_addresses(text), (path.name, _old_addresses(text))
        nb = nbformat.read(path, as_version=4)
        first = next(c for c in nb.cells if c.cell_type == "code")
        assert first.source == expected and first.source.startswith(MARKER)
    # The command line does the same and then reports nothing stale.
    check = subprocess.run([sys.executable, str(ROOT / "tests/standalone/setup_cells.py"), "--check",
                            "--root", str(tmp_path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_readme_names_the_settings_not_the_addresses():
    readme = (ROOT / "README.md").read_text()
    assert not _old_addresses(readme)
    for setting in ("repository.url", "launch_buttons.jupyterhub_url", "setup_cells.py", "ghp-import"):
        assert setting in readme, setting


@pytest.mark.timeout(600)
@pytest.mark.parametrize("with_pdf", [False, True], ids=["without-pdf", "with-pdf"])
def test_a_fork_builds_launch_buttons_to_its_own_address(tmp_path, with_pdf):
    """One chapter built as a small book from the fork's _config.yml (no execution: the
    committed outputs): its Binder, Colab and JupyterHub links name the fork only, and the
    download menu's "Book (PDF)" entry resolves with or without a PDF edition."""
    fork = tmp_path / "fork"
    (fork / "book").mkdir(parents=True)
    config = yaml.safe_load(_fork_config((ROOT / "_config.yml").read_text()))
    config["execute"]["execute_notebooks"] = "off"
    (fork / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    (fork / "_toc.yml").write_text("format: jb-book\nroot: book/ch03_randomized_response\n")
    for name in ("references.bib",):
        shutil.copy(ROOT / name, fork / name)
    for folder in ("_static", "_templates", "_ext"):
        shutil.copytree(ROOT / "book" / folder, fork / "book" / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "book" / "ch03_randomized_response.ipynb", fork / "book")
    assert sync(fork / "book" / "ch03_randomized_response.ipynb", fork)
    pdf_name = Path(config["latex"]["latex_documents"]["targetname"]).with_suffix(".pdf").name
    if with_pdf:  # what make pdf leaves; the HTML build copies it into the site
        (fork / "_build" / "latex").mkdir(parents=True)
        (fork / "_build" / "latex" / pdf_name).write_bytes(b"%PDF-1.5 stand-in\n")
    build = subprocess.run(
        [str(Path(sys.executable).parent / "jupyter-book"), "build", str(fork), "--builder", "html"],
        capture_output=True, text=True, timeout=600,
    )
    page = fork / "_build" / "html" / "book" / "ch03_randomized_response.html"
    assert page.exists(), build.stdout[-3000:] + build.stderr[-3000:]
    html = page.read_text()
    assert not _old_addresses(html), _old_addresses(html)
    owner_repo = NEW_REPO.split("github.com/")[-1]
    assert f"mybinder.org/v2/gh/{owner_repo}/{NEW_BRANCH}" in html
    assert f"colab.research.google.com/github/{owner_repo}/blob/{NEW_BRANCH}/" in html
    assert f"{NEW_HUB}/hub/user-redirect/git-pull" in html
    assert f'href="{NEW_REPO}"' in html  # the repository button
    site = fork / "_build" / "html"
    assert "Book (PDF)" in html
    if with_pdf:
        assert f'href="../{pdf_name}"' in html and (site / pdf_name).read_bytes().startswith(b"%PDF")
        assert not (site / "pdf-edition.html").exists()
    else:
        # The entry opens the page that says how to build the PDF (book/_ext/pdf_edition.py).
        assert 'href="../pdf-edition.html"' in html and not (site / pdf_name).exists()
        fallback = (site / "pdf-edition.html").read_text()
        assert "make pdf" in fallback and "<h1>The PDF edition</h1>" in fallback

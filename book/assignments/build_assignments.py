#!/usr/bin/env python
"""Generate the student notebooks and the autograders of the course assignments.

Usage (from the repository root; ``make assignments`` runs the first form)::

    python book/assignments/build_assignments.py _build/assignments
    python book/assignments/build_assignments.py _build/assignments --update-book-copies

For every master notebook in ``book/assignments/masters/`` this runs ``otter assign``
into ``OUTDIR/<assignment name>/``, which then holds

* ``student/<name>.ipynb``: the notebook to hand out (no solutions, public tests only);
* ``autograder/<name>-autograder_<timestamp>.zip``: the autograder (hidden tests
  included: never publish it), and ``autograder/<name>.ipynb``, the solution notebook;
* ``autograder/written_questions.md``: the written question's model answer and rubric, for
  grading it by hand on Gradescope.

The zip also carries the grading layer (the repository's ``grading/`` package) and registers
its otter plugin, ``grading.otter_plugin.IsolatedGrading``: on Gradescope the points come from
the isolated grader, not from the tests that ran in the student's kernel.

``otter assign`` also grades the solution notebook and fails unless it gets full marks.

OUTDIR must be a folder strictly inside the repository's ``_build/`` folder: the script
refuses absolute paths elsewhere, paths containing ``..``, ``_build`` itself and the
repository root, so a typo cannot make it overwrite anything else.

``--update-book-copies`` also refreshes the committed student notebooks in
``book/assignments/student/`` (the copies the book links for download). Run it after
editing a master; ``tests/test_assignments.py`` fails while the copies are stale.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Any

ASSIGNMENTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = ASSIGNMENTS_DIR.parents[1]
MASTERS_DIR = ASSIGNMENTS_DIR / "masters"
STUDENT_COPIES_DIR = ASSIGNMENTS_DIR / "student"
BUILD_ROOT = REPO_ROOT / "_build"
GRADING_DIR = REPO_ROOT / "grading"
WRITTEN_ANSWERS = MASTERS_DIR / "written_answers.md"
PLUGIN = "grading.otter_plugin.IsolatedGrading"


def master_notebooks() -> list[Path]:
    """The master notebooks, sorted by name (``a1_...``, ``a2_...``, ...)."""
    return sorted(MASTERS_DIR.glob("*.ipynb"))


def safe_output_dir(outdir: str | Path, build_root: Path = BUILD_ROOT) -> Path:
    """Return ``outdir`` resolved, or raise ``ValueError`` unless it lies strictly inside ``build_root``.

    Relative paths are taken relative to the current directory (``make`` runs from the
    repository root).
    """
    raw = Path(outdir)
    if str(outdir).strip() == "":
        raise ValueError("OUTDIR: must not be empty")
    if ".." in raw.parts:
        raise ValueError(f"OUTDIR: must not contain '..', got {str(outdir)!r}")
    target = raw.resolve()
    root = build_root.resolve()
    if target == root.parent:
        raise ValueError(f"OUTDIR: refusing to write into the repository root {target}")
    if target == root:
        raise ValueError(f"OUTDIR: give a sub-folder of {root} (e.g. {root / 'assignments'}), not the folder itself")
    try:
        target.relative_to(root)
    except ValueError:
        raise ValueError(
            f"OUTDIR: must be a folder inside {root} (e.g. _build/assignments), got {target}"
        ) from None
    return target


def autograder_zip(dest: Path) -> Path:
    """The autograder zip that ``otter assign`` wrote into ``dest/autograder``."""
    zips = sorted((dest / "autograder").glob("*-autograder_*.zip"))
    if len(zips) != 1:
        raise FileNotFoundError(f"expected one autograder zip in {dest / 'autograder'}, found {len(zips)}")
    return zips[0]


def run_otter_assign(master: Path, dest: Path, run_tests: bool = True) -> dict[str, Path]:
    """Run ``otter assign`` on one master notebook; return the paths it produced.

    With ``run_tests`` (the default) otter also grades the solution notebook and raises
    unless every test passes.
    """
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    from otter.assign import main as otter_assign  # imported late: otter is slow to import

    dest.mkdir(parents=True, exist_ok=True)
    otter_assign(str(master), str(dest), no_run_tests=not run_tests, no_pdfs=True)
    zip_path = autograder_zip(dest)
    add_grading_layer(zip_path, master.stem)
    write_written_questions(master.stem, dest / "autograder" / "written_questions.md")
    return {
        "student": dest / "student" / master.name,
        "solution": dest / "autograder" / master.name,
        "zip": zip_path,
    }


def add_grading_layer(zip_path: Path, assignment: str) -> None:
    """Copy ``grading/`` into the autograder zip and register its plugin.

    On Gradescope ``run_otter.py`` runs from the zip's root, so the package is importable there.
    """
    with zipfile.ZipFile(zip_path) as archive:
        members = {info.filename: archive.read(info.filename) for info in archive.infolist()}
    config = json.loads(members["otter_config.json"])
    plugins = [p for p in config.get("plugins", []) if not (isinstance(p, dict) and PLUGIN in p)]
    plugins.append({PLUGIN: {"assignment": assignment}})
    config["plugins"] = plugins
    members["otter_config.json"] = json.dumps(config, indent=2).encode()
    for path in sorted(GRADING_DIR.rglob("*.py")):
        members[str(path.relative_to(REPO_ROOT))] = path.read_bytes()
    with zipfile.ZipFile(zip_path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def write_written_questions(assignment: str, path: Path) -> None:
    """The section of ``written_answers.md`` for ``assignment`` (model answer and rubric)."""
    text = WRITTEN_ANSWERS.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(assignment)},.*?(?=^## |\Z)", text, flags=re.M | re.S)
    if match is None:
        raise ValueError(f"written_answers.md has no section for {assignment}")
    path.write_text("# Written question (grade by hand)\n\n" + match.group(0), encoding="utf-8")


def normalise_student_notebook(notebook: dict[str, Any]) -> dict[str, Any]:
    """Drop what changes from one ``otter assign`` run to the next (cell ids; outputs stay empty)."""
    nb = copy.deepcopy(notebook)
    for index, cell in enumerate(nb["cells"]):
        cell["id"] = f"cell-{index:03d}"
        if cell["cell_type"] == "code":
            cell["execution_count"] = None
            cell["outputs"] = []
    return nb


def read_notebook(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def write_notebook(notebook: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", help="output folder inside the repository's _build/ (e.g. _build/assignments)")
    parser.add_argument("--update-book-copies", action="store_true",
                        help="also refresh the committed student notebooks in book/assignments/student/")
    parser.add_argument("--no-run-tests", action="store_true",
                        help="skip grading the solution notebooks (faster, less safe)")
    args = parser.parse_args(argv)

    try:
        outdir = safe_output_dir(args.outdir)
    except ValueError as exc:
        print(f"build_assignments.py: {exc}", file=sys.stderr)
        return 2

    masters = master_notebooks()
    if not masters:
        print(f"build_assignments.py: no master notebooks in {MASTERS_DIR}", file=sys.stderr)
        return 1

    built: dict[str, dict[str, Path]] = {}
    for master in masters:
        print(f"== otter assign {master.relative_to(REPO_ROOT)}", flush=True)
        built[master.stem] = run_otter_assign(master, outdir / master.stem, run_tests=not args.no_run_tests)
        if args.update_book_copies:
            copy_path = STUDENT_COPIES_DIR / master.name
            write_notebook(normalise_student_notebook(read_notebook(built[master.stem]["student"])), copy_path)
            print(f"   updated {copy_path.relative_to(REPO_ROOT)}")

    def show(path: Path) -> str:
        try:
            return str(path.relative_to(Path.cwd()))
        except ValueError:
            return str(path)

    print(f"\nBuilt {len(built)} assignments in {show(outdir)}")
    print("Student notebooks (hand these out; keep the file names, the grader checks them):")
    for paths in built.values():
        print(f"  {show(paths['student'])}")
    print("Autograder zips (hidden tests inside: for Gradescope or `otter run`, never publish them):")
    for paths in built.values():
        print(f"  {show(paths['zip'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

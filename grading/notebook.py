"""Read a submitted notebook defensively: validate it and take out its code cells."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MAX_BYTES = 20 * 2**20


class NotebookProblem(ValueError):
    """The file cannot be graded: the message tells the student what to do."""


def read_code_cells(path: str | Path) -> list[str]:
    """The sources of the code cells, or :class:`NotebookProblem` (truncated, not a notebook, too big)."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError:
        raise NotebookProblem("the file could not be read: re-save your notebook and submit it again") from None
    if size > MAX_BYTES:
        raise NotebookProblem("the notebook is larger than 20 MB: clear the outputs (Edit > Clear Outputs "
                              "of All Cells), save and submit again")
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise NotebookProblem("the file is not a complete notebook (truncated or corrupted): re-save your "
                              "notebook in Jupyter and submit it again") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list) or data.get("nbformat") != 4:
        raise NotebookProblem("the file is not a Jupyter notebook (nbformat 4): re-save your notebook and "
                              "submit it again")
    cells = []
    for cell in data["cells"]:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            if not all(isinstance(line, str) for line in source):
                raise NotebookProblem("a cell of the notebook is malformed: re-save your notebook and submit again")
            source = "".join(source)
        if not isinstance(source, str):
            raise NotebookProblem("a cell of the notebook is malformed: re-save your notebook and submit again")
        cells.append(source)
    return cells


def expected_file_name(assignment: str) -> str:
    return f"{assignment}.ipynb"


def master_solution_cells(path: str | Path) -> list[str]:
    """The code cells of an otter master notebook outside its test blocks: a complete solution."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    cells, in_tests = [], False
    for cell in data["cells"]:
        text = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if cell["cell_type"] == "raw":
            head = text.strip().splitlines()[0] if text.strip() else ""
            in_tests = {"# BEGIN TESTS": True, "# END TESTS": False}.get(head, in_tests)
            continue
        if cell["cell_type"] == "code" and not in_tests:
            cells.append(text)
    return cells

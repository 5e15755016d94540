"""Time a chapter's own work: cell time in a fresh kernel, minus an imports-only notebook.

Usage: .venv/bin/python benchmarks/time_notebook.py book/ch10_accounting.ipynb [more.ipynb ...]

Each notebook is run top to bottom in a fresh kernel (kernel start excluded) and the
execution time of every cell is summed. An "imports-only" copy holds the cells up to and
including the first code cell that imports numpy (the setup and imports cells); its time
is subtracted, so the figure is the chapter's own work, the measure the issues use
("under 4 s beyond an imports-only notebook"). Run it on a quiet machine: `uptime`
first; under load the figures grow.
"""

from __future__ import annotations

import copy
import sys
import time

import nbformat
from nbclient import NotebookClient


def _cell_seconds(nb) -> list[float]:
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": "book"}})
    seconds = []
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            start = time.perf_counter()
            client.execute_cell(cell, index)
            seconds.append(time.perf_counter() - start)
    return seconds


def imports_only(nb):
    short = copy.deepcopy(nb)
    for index, cell in enumerate(short.cells):
        if cell.cell_type == "code" and "import numpy" in cell.source:
            short.cells = short.cells[: index + 1]
            return short
    short.cells = []
    return short


def main(paths: list[str]) -> None:
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        total = sum(_cell_seconds(copy.deepcopy(nb)))
        base = sum(_cell_seconds(imports_only(nb)))
        print(f"{path}: all cells {total:.2f} s, imports only {base:.2f} s, own work {total - base:.2f} s")


if __name__ == "__main__":
    main(sys.argv[1:])

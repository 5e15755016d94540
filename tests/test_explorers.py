"""Every chapter's explorer works headless: each slider moves the readout, fast.

An explorer is built in its notebook from the chapter's own compute function and
:class:`rdplib.widgets.Explorer`. Its cell is tagged ``explorer`` and ends with an
expression that evaluates to the explorer. This test runs the notebook's code cells up
to that cell in an IPython shell (matplotlib's Agg backend), then moves every control
one step and checks that the readout changes, and that one update (compute + draw)
takes under 100 ms at the median.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

import yaml  # noqa: E402
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

from rdplib.widgets import Explorer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "book").glob("ch*.ipynb"))
MEDIAN_UPDATE_LIMIT = 0.100  # seconds
NONCOMPLIANT = set(yaml.safe_load((ROOT / "tests/quality/noncompliant.yml").read_text())["chapters"] or [])


def _explorer_cells(path):
    nb = json.loads(path.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    return code, [i for i, c in enumerate(code) if "explorer" in c.get("metadata", {}).get("tags", [])]


def _explorers(path):
    code, marks = _explorer_cells(path)
    if not marks:
        return []
    shell = InteractiveShell.instance()
    shell.reset(new_session=True)
    shell.run_cell("import matplotlib; matplotlib.use('Agg')")
    found = []
    for i, cell in enumerate(code[: marks[-1] + 1]):
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        result = shell.run_cell(src, silent=False, store_history=False)
        if result.error_before_exec or result.error_in_exec:
            raise AssertionError(f"{path.name}: code cell {i} raised {result.error_in_exec or result.error_before_exec!r}")
        if i in marks:
            assert isinstance(result.result, Explorer), (
                f"{path.name}: the cell tagged 'explorer' must end with an expression giving the Explorer"
            )
            found.append(result.result)
    return found


def _next_value(control):
    options = getattr(control, "options", None)
    if options:
        values = [o[1] if isinstance(o, tuple) else o for o in options]
        return values[(values.index(control.value) + 1) % len(values)]
    if isinstance(control.value, bool):
        return not control.value
    step = getattr(control, "step", 1) or 1
    if hasattr(control, "max") and control.value + step <= control.max:
        return control.value + step
    return control.value - step


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_explorer_sliders_move_the_readout_fast(path):
    explorers = _explorers(path)
    if not explorers and path.stem in NONCOMPLIANT:
        pytest.xfail(f"{path.stem} is listed as not yet compliant and has no tagged explorer")
    if not explorers:
        pytest.fail(f"{path.name}: no cell tagged 'explorer' (every chapter has at least one explorer)")
    for explorer in explorers:
        timings = []
        for name, control in explorer.controls.items():
            before = explorer.readout.value
            start = time.perf_counter()
            control.value = _next_value(control)
            timings.append(time.perf_counter() - start)
            assert explorer.readout.value != before, f"{path.name}: moving {name!r} left the readout unchanged"
        for _ in range(2):  # a few more updates for a steadier median
            start = time.perf_counter()
            explorer.update()
            timings.append(time.perf_counter() - start)
        median = statistics.median(timings)
        assert median < MEDIAN_UPDATE_LIMIT, f"{path.name}: median update {median * 1e3:.0f} ms (limit 100 ms)"

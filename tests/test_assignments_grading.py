"""The grading layer (``grading/``) attacked as a student out to fake a grade, and used as a TA would.

``ADVERSARIAL`` is the table: submission x assignment -> expected points per question. Each
submission is built from the master's solution code (or the blank student copy) with cells added
or replaced, graded by ``grading.grade_submission`` with lowered time limits, and must be graded
within ``GRADING_TIME_LIMIT`` seconds. Fakes score 0 on what they fake; honest variants lose only
what they should.

The false-failure measurement over >= 300 fresh seeds is ``python -m grading.false_failures``
(committed results: ``grading/false_failures.json``); ``test_statistical_checks_pass_on_fresh_seeds``
is its small in-suite version.
"""

from __future__ import annotations

import csv
import importlib
import json
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from grading import grader
from grading.gradebook import grade_folder
from grading.notebook import master_solution_cells

ROOT = Path(__file__).resolve().parents[1]
MASTERS = ROOT / "book" / "assignments" / "masters"
STUDENT = ROOT / "book" / "assignments" / "student"
NAMES = grader.ASSIGNMENTS
LIMITS = {"cell": 15.0, "call": 15.0, "submission": 110.0}
GRADING_TIME_LIMIT = 120  # seconds per submission (stated on the instructors' page)


# --------------------------------------------------------------------------- submissions
def _source(cell: dict[str, Any]) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def solution_cells(name: str) -> list[str]:
    """The code a student who solved everything would submit (the master without its tests)."""
    return ["import otter\ngrader = otter.Notebook()", *master_solution_cells(MASTERS / f"{name}.ipynb")]


def blank_cells(name: str) -> list[str]:
    nb = json.loads((STUDENT / f"{name}.ipynb").read_text(encoding="utf-8"))
    return [_source(c) for c in nb["cells"] if c["cell_type"] == "code"]


def write_notebook(cells: list[str], path: Path) -> Path:
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "execution_count": None, "outputs": [],
                     "source": text} for i, text in enumerate(cells)]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def table(name: str):
    return [q for q in grader.questions(name) if not q.manual]


def full(name: str) -> dict[str, float]:
    return {q.name: q.points for q in table(name)}


def zero(name: str) -> dict[str, float]:
    return {q.name: 0.0 for q in table(name)}


def public_only(name: str) -> dict[str, float]:
    return {q.name: sum(c.points for c in q.checks if c.public) for q in table(name)}


def without(name: str, question: str, titles: list[str]) -> dict[str, float]:
    """Full marks except the named checks of one question."""
    scores = full(name)
    lost = [c.points for q in table(name) if q.name == question for c in q.checks if c.title in titles]
    assert len(lost) == len(titles), f"{name} {question}: unknown check in {titles}"
    scores[question] -= sum(lost)
    return scores


A1, A2, A3, A4, A5 = NAMES

PATCH_OTTER = """
import otter, otter.test_files, doctest
otter.Notebook.check = lambda self, *a, **k: None
otter.test_files.abstract_test.TestCollection = None
doctest.DocTestRunner.summarize = lambda self, verbose=None: doctest.TestResults(0, 1)
"""
PATCH_TESTS = """
import glob, os
for path in glob.glob("tests/*.py") + glob.glob("../tests/*.py"):
    with open(path, "w") as handle:
        handle.write("test = {'name': 'q', 'points': 100, 'suites': []}")
"""
PATCH_DOCTEST = """
import doctest
doctest.DocTestRunner.run = lambda self, *a, **k: doctest.TestResults(0, 0)
"""
SHADOW_BUILTINS = "import builtins\nbuiltins.abs = lambda x: 0\nbuiltins.max = lambda *a, **k: 0\n"
SHADOW_NUMPY = "import numpy\nnumpy.allclose = lambda *a, **k: True\nnumpy.isclose = lambda *a, **k: True\n"
EQUAL_TO_ANYTHING = """
class Anything(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __lt__(self, other): return True
    def __gt__(self, other): return True
    __le__ = __ge__ = __lt__
    __hash__ = float.__hash__
    def __array__(self, dtype=None, copy=None): return numpy.zeros(())
import numpy
def _anything(*args, **kwargs): return Anything(0.25)
for _name in {names}:
    globals()[_name] = _anything
"""
RDPLIB_SYS_MODULES = """
import sys, importlib.util, glob
for _path in glob.glob('/work/main/rdplib/*.py') + glob.glob(sys.prefix + '/lib/python3*/site-packages/rdplib/*.py'):
    _spec = importlib.util.spec_from_file_location('notrdplib_' + _path.split('/')[-1][:-3], _path)
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules[_spec.name] = _mod
    _spec.loader.exec_module(_mod)
import rdplib as _r
sys.modules['dp_helpers'] = _r
"""
PRINT_EVERYWHERE = """
import functools
def _noisy(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        print('debug', f.__name__, args[:1])
        return f(*args, **kwargs)
    return wrapper
for _name in {names}:
    if callable(globals().get(_name)):
        globals()[_name] = _noisy(globals()[_name])
"""


def answers(name: str) -> list[str]:
    return [a for q in table(name) for a in q.answers]


def functions(name: str) -> list[str]:
    return [a for a in answers(name) if a[0].islower() and a not in (
        "risk_dp", "risk_rdp", "risks_dp_k", "risks_rdp_k", "delta_million", "T_million", "fifteen_is_enough",
        "delta_no_threshold")]


def build(kind: str, name: str) -> tuple[list[str], str]:
    """(code cells, file name) of the submission ``kind`` for assignment ``name``."""
    sol, file_name = solution_cells(name), f"{name}.ipynb"
    if kind == "solution":
        return sol, file_name
    if kind == "blank":
        return blank_cells(name), file_name
    if kind == "blank patching otter and doctest":
        return [*blank_cells(name), PATCH_OTTER], file_name
    if kind == "blank rewriting the test files":
        return [*blank_cells(name), PATCH_TESTS], file_name
    if kind == "blank replacing doctest's runner":
        return [*blank_cells(name), PATCH_DOCTEST], file_name
    if kind == "solution with shadowed builtins":
        return [SHADOW_BUILTINS, *sol], file_name
    if kind == "solution with shadowed NumPy functions":
        return [*sol, SHADOW_NUMPY], file_name
    if kind == "answers equal to anything":
        return [*blank_cells(name), EQUAL_TO_ANYTHING.format(names=functions(name))], file_name
    if kind == "answers wrap rdplib through sys.modules and file loading":
        wrappers = "\n".join(
            f"def {f}(*args, **kwargs):\n    return getattr(sys.modules['dp_helpers'], {f!r})(*args, **kwargs)\n"
            for f in functions(name))
        return [*blank_cells(name), RDPLIB_SYS_MODULES, "import sys\n" + wrappers], file_name
    if kind == "print in every answer":
        return [*sol, PRINT_EVERYWHERE.format(names=functions(name))], file_name
    if kind == "infinite loop in the first cell":
        return ["while True:\n    pass\n", *sol], file_name
    if kind == "truncated file":
        return sol, file_name
    if kind == "wrong file name":
        return sol, f"{name} (1).ipynb"
    if kind == "a cell kills the process":
        return [*sol[:2], "import faulthandler\nfaulthandler._sigsegv()\n", *sol[2:]], file_name
    if kind == "a cell runs out of memory":
        return [*sol[:2], "hog = bytearray(50 * 2**30)\n", *sol[2:]], file_name
    return [*sol, *SPECIFIC[(name, kind)][0]], file_name


# (assignment, kind) -> (cells appended to the solution, expected scores)
SPECIFIC: dict[tuple[str, str], tuple[list[str], Any]] = {
    (A1, "hard-coded public examples"): ([
        "def flip_probability(epsilon):\n    return 0.25\n"
        "def rr_estimate(noisy_bits, epsilon):\n    return {(1, 1, 1, 0): 1.0}.get(tuple(noisy_bits), 0.5)\n"
        "def rr_variance(p, n, epsilon):\n    return 0.001\n"
        "def empirical_epsilon(mechanism, epsilon, num_trials, rng):\n    return 1.0\n"
        "def randomized_response(bits, epsilon, rng):\n    return np.asarray(bits)\n"
        "def simulate_estimates(p, n, epsilon, num_surveys, rng):\n    return np.full(num_surveys, p)\n"],
        lambda: {**public_only(A1), "q2": 0.0, "q5": 0.0, "q6": 0.0}),
    (A1, "reads what the tests leave in the namespace"): ([
        "def flip_probability(epsilon):\n    return q_true if 'q_true' in globals() else q_ln3\n"
        "def rr_variance(p, n, epsilon):\n    return expected\n"],
        lambda: {**full(A1), "q1": 0.0, "q4": 0.0, "q2": 0.0, "q3": 0.0, "q5": 0.0,
                 "q6": sum(c.points for c in table(A1)[5].checks if c.title in (
                     "empirical epsilon of other mechanisms", "inf for a non-private mechanism",
                     "the measurement draws from rng"))}),
    (A1, "deterministic flips at the right rate"): ([
        "def randomized_response(bits, epsilon, rng):\n    bits = np.asarray(bits, dtype=int)\n"
        "    flips = (np.arange(bits.size) * 0.6180339887 % 1.0).reshape(bits.shape) < flip_probability(epsilon)\n"
        "    return np.where(flips, 1 - bits, bits)\n"],
        lambda: {**full(A1), "q2": 0.0,
                 "q5": without(A1, "q5", ["estimates follow the exact law at two settings"])["q5"]}),
    (A1, "closed form instead of a simulation"): ([
        "def simulate_estimates(p, n, epsilon, num_surveys, rng):\n"
        "    sd = np.sqrt(rr_variance(p, n, epsilon))\n"
        "    return p + sd * np.sqrt(2) * np.cos(np.linspace(0, 2 * np.pi, num_surveys))\n"],
        lambda: {**full(A1), "q5": 0.0}),
    (A1, "infinite loop in one answer"): ([
        "def rr_variance(p, n, epsilon):\n    while True:\n        pass\n"],
        lambda: {**full(A1), "q4": 0.0}),
    (A1, "an answer runs out of memory"): ([
        "def rr_estimate(noisy_bits, epsilon):\n    hog = np.ones(10**11)\n    return 0.0\n"],
        lambda: {**full(A1), "q3": 0.0}),
    (A2, "exact values plus a constant"): ([
        "def laplace_mechanism(value, sensitivity, epsilon, rng):\n"
        "    return np.asarray(value, dtype=float) + laplace_scale(sensitivity, epsilon)\n"],
        lambda: {**full(A2), "q2": 0.5, "q3": 0.0}),
    (A2, "deterministic noise with the right spread"): ([
        "from scipy import stats\n"
        "def laplace_mechanism(value, sensitivity, epsilon, rng):\n    value = np.asarray(value, dtype=float)\n"
        "    u = (np.arange(value.size) + 0.5) / max(value.size, 1)\n"
        "    noise = stats.laplace.ppf(u, scale=sensitivity / epsilon).reshape(value.shape)\n"
        "    return value + noise\n"],
        lambda: {**full(A2), "q2": 0.5, "q3": 0.0}),
    (A2, "Gaussian noise with the Laplace variance"): ([
        "def laplace_mechanism(value, sensitivity, epsilon, rng):\n    value = np.asarray(value, dtype=float)\n"
        "    return value + rng.normal(0, np.sqrt(2) * sensitivity / epsilon, size=value.shape)\n"],
        lambda: {**without(A2, "q2", ["noise follows the Laplace law at two settings",
                                      "empirical privacy on neighbouring values"]),
                 "q3": without(A2, "q3", ["clipped mean plus Laplace noise of the right scale"])["q3"]}),
    (A2, "closed form instead of a simulation"): ([
        "def simulate_mse(p, n, epsilon, num_trials, rng):\n    return float(laplace_mean_mse(p, n, epsilon))\n"],
        lambda: {**full(A2), "q5": 0.0}),
    (A3, "non-private release (no threshold)"): ([
        "def thresholded_histogram(items, epsilon, threshold, rng):\n"
        "    cats, counts = np.unique(np.asarray(items), return_counts=True)\n"
        "    noisy = counts + rng.laplace(0, 1 / epsilon, counts.size)\n"
        "    return dict(zip(cats.tolist(), noisy.tolist()))\n"],
        lambda: without(A3, "q5", ["every category is released with the probability of its noisy count reaching T"])),
    (A3, "closed form instead of a simulation"): ([
        "def simulate_release_probability(threshold, epsilon, num_trials, rng):\n"
        "    return float(threshold_delta(threshold, epsilon))\n"],
        lambda: {**full(A3), "q2": 0.0}),
    (A4, "the chapter's projection, reused"): ([
        "def rank_of(values):\n    return np.argsort(np.argsort(values, axis=-1, kind='stable'), axis=-1)\n\n"
        "def remove_surplus(b, surplus, ties):\n    order = np.argsort(b, axis=-1, kind='stable')\n"
        "    b_sorted = np.take_along_axis(b, order, axis=-1)\n"
        "    before = np.cumsum(b_sorted, axis=-1) - b_sorted\n    take = np.zeros_like(b)\n"
        "    np.put_along_axis(take, order, np.clip(surplus - before, 0.0, b_sorted), axis=-1)\n    return take\n\n"
        "def project(z, n, ties='smallest'):\n    w = n * np.asarray(z, dtype=float)\n    k = w.shape[-1]\n"
        "    b = np.floor(np.maximum(w, 0.0))\n    need = n - b.sum(axis=-1, keepdims=True)\n"
        "    step = np.where(w > 0, 2 * b + 1 - 2 * w, 1.0)\n    add = need // k + (rank_of(step) < need % k)\n"
        "    c = b + np.where(need > 0, add, 0.0)\n"
        "    return (c - remove_surplus(c, np.maximum(-need, 0.0), ties)) / n\n\n"
        "def project_to_histograms(z, n):\n    return project(z, n)\n"],
        lambda: full(A4)),
    (A4, "largest-residual tie rule"): ([
        "def project_to_histograms(z, n):\n    w = n * np.asarray(z, dtype=float)\n    c = np.zeros_like(w)\n"
        "    for _ in range(n):\n        c[np.argmax(w - c)] += 1\n    return c / n\n"],
        lambda: {**without(A4, "q4", ["projection at the public example", "the book's tie rule"]),
                 "q5": without(A4, "q5", ["simulated risk of another mechanism"])["q5"]}),
    (A4, "RDP without noise on the occupied cells"): ([
        "def rdp_histogram(counts, epsilon, gamma, rng):\n    counts = np.asarray(counts)\n"
        "    return counts / counts.sum()\n"],
        lambda: {**full(A4), "q3": 0.0}),
    (A5, "client that does not flip"): ([
        "def cms_encode(items, hash_table, width, epsilon, rng):\n    items = np.asarray(items)\n"
        "    j = rng.integers(0, np.shape(hash_table)[1], size=items.size)\n"
        "    one_hot = np.zeros((items.size, width), dtype=np.int8)\n"
        "    one_hot[np.arange(items.size), np.asarray(hash_table)[items, j]] = 1\n    return one_hot, j\n"],
        lambda: {**without(A5, "q2", ["uniform hash index and flip rates", "empirical local privacy"]),
                 "q6": without(A5, "q6", ["errors are unbiased with the predicted spread"])["q6"]}),
    (A5, "audit that returns the claim"): ([
        "def audit_client(encode, epsilon, trials, confidence, rng):\n    return float(epsilon) * 0.9\n"],
        lambda: {**full(A5), "q8": 0.0}),
}


def generic_expected(kind: str, name: str) -> tuple[dict[str, float], str | None]:
    """Expected scores and the flag the grader must raise, for the kinds that apply to every assignment."""
    if kind in ("solution", "print in every answer", "infinite loop in the first cell", "a cell kills the process",
                "a cell runs out of memory"):
        flag = {"infinite loop in the first cell": grader.FLAG_TIMEOUT,
                "a cell kills the process": grader.FLAG_CRASHED}.get(kind)
        return full(name), flag
    if kind == "wrong file name":
        return full(name), grader.FLAG_FILE_NAME
    if kind == "truncated file":
        return zero(name), grader.FLAG_INVALID
    if kind in ("blank patching otter and doctest", "solution with shadowed builtins",
                "solution with shadowed NumPy functions", "blank replacing doctest's runner"):
        return zero(name), grader.FLAG_TAMPERING
    return zero(name), None  # blank, test-file rewriting, equal-to-anything, rdplib wrappers


GENERIC_EVERYWHERE = ["solution", "blank", "blank patching otter and doctest", "answers equal to anything",
                      "answers wrap rdplib through sys.modules and file loading", "print in every answer"]
GENERIC_ONCE = {  # kind -> the assignment it is run on (the mechanism is the same for every assignment)
    "blank rewriting the test files": A3, "blank replacing doctest's runner": A5,
    "solution with shadowed builtins": A1, "solution with shadowed NumPy functions": A4,
    "infinite loop in the first cell": A2, "truncated file": A1, "wrong file name": A4,
    "a cell kills the process": A1, "a cell runs out of memory": A3,
}
ADVERSARIAL = ([(name, kind) for kind in GENERIC_EVERYWHERE for name in NAMES]
               + [(name, kind) for kind, name in GENERIC_ONCE.items()] + sorted(SPECIFIC))


def grade(kind: str, name: str, tmp_path: Path, seed: int | None = None):
    cells, file_name = build(kind, name)
    path = write_notebook(cells, tmp_path / "submission" / file_name)
    if kind == "truncated file":
        text = path.read_text(encoding="utf-8")
        path.write_text(text[: len(text) // 2], encoding="utf-8")
    start = time.monotonic()
    result = grader.grade_submission(path, name, seed=seed, limits=LIMITS)
    return result, time.monotonic() - start


@pytest.mark.parametrize(("name", "kind"), ADVERSARIAL, ids=[f"{n.split('_')[0]}-{k}" for n, k in ADVERSARIAL])
def test_adversarial_submission(name, kind, tmp_path):
    result, seconds = grade(kind, name, tmp_path)
    if (name, kind) in SPECIFIC:
        expected, flag = SPECIFIC[(name, kind)][1](), None
    else:
        expected, flag = generic_expected(kind, name)
    got = {q: round(v, 4) for q, v in result.scores.items()}
    assert got == {q: round(v, 4) for q, v in expected.items()}, (
        f"{kind}: got {got}, expected {expected}\n{result.feedback_text()}")
    if flag is not None:
        assert flag in result.flags, f"{kind}: expected the flag {flag!r}, got {result.flags}"
    if flag == grader.FLAG_TAMPERING:
        assert "flagged for review" in result.feedback_text()
    assert seconds < GRADING_TIME_LIMIT, f"{kind}: graded in {seconds:.0f} s"
    _record(name, kind, result, seconds)


def _record(name: str, kind: str, result, seconds: float) -> None:
    target = ROOT / "_build" / "assignments-adversarial.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    data[f"{name}: {kind}"] = {"seconds": round(seconds, 1), "total": result.total, "max": result.max_total,
                               "flags": result.flags}
    target.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------- the check tables
@pytest.mark.parametrize("name", NAMES)
def test_hidden_checks_carry_at_least_75_percent(name):
    total = sum(q.points for q in table(name))
    public = sum(c.points for q in table(name) for c in q.checks if c.public)
    assert public <= 0.25 * total, f"{name}: public-example checks carry {public} of {total} points"


@pytest.mark.parametrize("name", NAMES)
def test_grader_points_match_the_masters(name):
    """The master's question points (what otter and Gradescope show) equal the grader's."""
    nb = json.loads((MASTERS / f"{name}.ipynb").read_text(encoding="utf-8"))
    master = {}
    for cell in nb["cells"]:
        text = _source(cell)
        if cell["cell_type"] == "raw" and text.startswith("# BEGIN QUESTION"):
            fields = dict(line.split(": ", 1) for line in text.splitlines()[1:] if ": " in line)
            master[fields["name"]] = float(fields["points"])
    assert master == {q.name: q.points for q in grader.questions(name)}
    manual = [q for q in grader.questions(name) if q.manual]
    assert len(manual) == 1, f"{name}: one written question"


@pytest.mark.parametrize("name", NAMES)
def test_every_randomized_answer_is_checked_for_randomness(name):
    """Every answer that takes rng gets a reproducibility / fresh-seed check."""
    nb = json.loads((MASTERS / f"{name}.ipynb").read_text(encoding="utf-8"))
    code = "\n".join(_source(c) for c in nb["cells"] if c["cell_type"] == "code")
    for question in table(name):
        takes_rng = [a for a in question.answers if re.search(rf"def {a}\([^)]*\brng\b", code)]
        if takes_rng:
            assert any("rng" in c.title or "random" in c.title.lower() for c in question.checks), (
                f"{name} {question.name}: {takes_rng} take rng but no check says so")


def test_statistical_checks_pass_on_fresh_seeds(tmp_path):
    """Small in-suite version of the false-failure measurement: each solution once more with a fresh seed
    (the table above grades it once too; the 300-seed measurement is grading/false_failures.json)."""
    for name in NAMES:
        for _ in range(1):
            result, _ = grade("solution", name, tmp_path, seed=None)
            assert result.total == result.max_total, result.feedback_text()


def test_false_failure_measurement_is_committed():
    data = json.loads((ROOT / "grading" / "false_failures.json").read_text(encoding="utf-8"))
    assert data["runs_per_assignment"] >= 300
    for name in NAMES:
        assert data["assignments"][name]["runs"] >= 300
        assert data["assignments"][name]["failures"] == {}, f"{name}: {data['assignments'][name]['failures']}"


def test_feedback_names_properties_not_values(tmp_path):
    result, _ = grade("answers equal to anything", A1, tmp_path)
    text = result.feedback_text()
    for forbidden in ("expected", "1 / (1 + np.exp", "assert "):
        assert forbidden not in text, f"the feedback leaks {forbidden!r}:\n{text}"
    assert f"seed {result.seed}" in text, "a failure message prints the seed"


def test_seed_reproduces_a_run(tmp_path):
    first, _ = grade("solution", A2, tmp_path / "a", seed=12345)
    again, _ = grade("solution", A2, tmp_path / "b", seed=12345)
    assert first.scores == again.scores and first.seed == again.seed == 12345


# --------------------------------------------------------------------------- the gradebook
def test_gradebook_of_twenty_mixed_submissions(tmp_path):
    """``make grade`` on 20 mixed submissions: every row written, flags set, no hang."""
    kinds = ["solution", "blank", "print in every answer", "answers equal to anything", "truncated file",
             "wrong file name", "blank patching otter and doctest", "infinite loop in the first cell",
             "solution with shadowed builtins", "hard-coded public examples"]
    folder = tmp_path / "submissions"
    for index in range(20):
        kind = kinds[index % len(kinds)]
        cells, file_name = build(kind, A1)
        path = write_notebook(cells, folder / f"student{index:02d}" / file_name)
        if kind == "truncated file":
            path.write_text(path.read_text(encoding="utf-8")[:500], encoding="utf-8")
    out = tmp_path / "grades"
    lines: list[str] = []
    start = time.monotonic()
    rows = grade_folder(folder, A1, out, jobs=2, limits=LIMITS, progress=lines.append)
    elapsed = time.monotonic() - start
    assert len(rows) == 20 and len(lines) == 21, lines
    with (out / "gradebook.csv").open(encoding="utf-8") as handle:
        book = list(csv.DictReader(handle))
    assert [row["student"] for row in book] == [f"student{i:02d}" for i in range(20)]
    by_student = {row["student"]: row for row in book}
    assert float(by_student["student00"]["total"]) == float(by_student["student00"]["max"])
    assert by_student["student04"]["invalid file"] == "yes"
    assert by_student["student05"]["wrong file name"] == "yes"
    assert by_student["student06"]["tampering suspected"] == "yes"
    assert by_student["student07"]["timeout"] == "yes"
    assert len(list((out / "feedback").glob("*.txt"))) == 20
    target = ROOT / "_build" / "assignments-gradebook-timing.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"submissions": 20, "seconds": round(elapsed, 1)}) + "\n", encoding="utf-8")
    assert elapsed < 20 * GRADING_TIME_LIMIT / 2


def test_cli_refuses_bad_arguments(tmp_path):
    main = importlib.import_module("grading.gradebook").main
    assert main(["a9", str(tmp_path)]) == 2
    assert main(["a1", str(tmp_path / "missing")]) == 2


def test_sandbox_blocks_rdplib_and_processes():
    from grading.sandbox import Sandbox, SandboxError

    cells = ["import numpy as np\nimport rdplib\n",
             "def wrapped(x):\n    return rdplib.l1_loss(x, x)\n",
             "def spawn():\n    import subprocess\n    return subprocess.run(['true']).returncode\n",
             "def plain(x):\n    return np.asarray(x) * 2\n"]
    with Sandbox(cells) as sb:
        sb.begin_question()
        for name in ("wrapped", "spawn"):
            with pytest.raises(SandboxError):
                sb.call(name, np.ones(2)) if name == "wrapped" else sb.call(name)
        assert np.array_equal(sb.call("plain", np.arange(3)), [0, 2, 4])
        sb.end_question()

"""The course assignments: otter assign, grading of solutions and blank notebooks, no leaks,
answers that wrap rdplib, and broken submissions.

Every master notebook in ``book/assignments/masters/`` is assigned once per session (into a
temporary folder, without otter's own solution run) and its solution and student notebooks are
graded once with ``otter.api.grade_submission``; the tests below share those results.

The integrity and robustness tests grade submissions built from the solution notebook:
``WRAPPED`` replaces every answer of every assignment by one that calls rdplib (it must score
zero everywhere), ``ADVERSARIAL`` is the table of broken submissions (graded with ``otter run``
in a subprocess, each within ``GRADING_TIME_LIMIT`` seconds, with the per-question scores
expected). Grading times are written to ``_build/assignments-grading-times.json``.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "book" / "assignments"

_spec = importlib.util.spec_from_file_location("build_assignments", ASSIGNMENTS / "build_assignments.py")
build_assignments = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_assignments)

MASTERS = {path.stem: path for path in build_assignments.master_notebooks()}
NAMES = sorted(MASTERS)
CHAPTERS = {
    "a1_randomized_response": ["ch03_randomized_response"],
    "a2_laplace_mechanism": ["ch02_neighbours", "ch04_laplace"],
    "a3_thresholding": ["ch09_thresholding"],
    "a4_rdp_histograms": ["ch11_dp_histograms", "ch12_rdp_sparse_histograms"],
    "a5_local_dp_auditing": ["ch15_count_mean_sketch", "ch16_auditing"],
}

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


# --------------------------------------------------------------------------- helpers
def _source(cell: dict[str, Any]) -> str:
    src = cell["source"]
    return src if isinstance(src, str) else "".join(src)


def _read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _master_parts(name: str) -> dict[str, Any]:
    """Split a master into its config, solution lines, other code lines and test counts."""
    nb = _read(MASTERS[name])
    config: dict[str, Any] = {}
    solution_lines: set[str] = set()
    other_lines: set[str] = set()
    questions: dict[str, dict[str, Any]] = {}
    in_solution = in_tests = False
    current = None
    for cell in nb["cells"]:
        text = _source(cell)
        if cell["cell_type"] == "raw":
            head = text.strip().splitlines()[0] if text.strip() else ""
            if head == "# ASSIGNMENT CONFIG":
                config = yaml.safe_load(text)
            elif head == "# BEGIN QUESTION":
                current = yaml.safe_load(text)
                questions[current["name"]] = {"points": current.get("points"), "public": 0, "hidden": 0,
                                              "cells": []}
            in_solution = {"# BEGIN SOLUTION": True, "# END SOLUTION": False}.get(head, in_solution)
            in_tests = {"# BEGIN TESTS": True, "# END TESTS": False}.get(head, in_tests)
            continue
        if cell["cell_type"] != "code":
            continue
        if in_tests:
            config_block = re.match(r'\s*"""\s*# BEGIN TEST CONFIG\n(.*?)"""\s*# END TEST CONFIG', text, flags=re.S)
            if config_block:
                hidden = bool(yaml.safe_load(config_block.group(1)).get("hidden", False))
            else:
                hidden = bool(re.match(r"\s*#.*\bhidden\b", text.splitlines()[0], flags=re.IGNORECASE))
            questions[current["name"]]["hidden" if hidden else "public"] += 1
            questions[current["name"]]["cells"].append(text)
            continue
        inside_block = False
        for line in text.splitlines():
            stripped = line.strip()
            if stripped == "# BEGIN SOLUTION":
                inside_block = True
            elif stripped == "# END SOLUTION":
                inside_block = False
            elif in_solution and inside_block:
                solution_lines.add(stripped)
            elif in_solution and re.search(r"#\s*SOLUTION\s*$", stripped):
                solution_lines.add(re.sub(r"#\s*SOLUTION\s*$", "", stripped).strip())
            else:
                other_lines.add(stripped)
    return {"config": config, "solution_lines": solution_lines, "other_lines": other_lines,
            "questions": questions}


def _zip_tests(zip_path: Path) -> dict[str, dict[str, Any]]:
    """The OK-format test dicts stored in the autograder zip, by question."""
    tests = {}
    with zipfile.ZipFile(zip_path) as archive:
        for member in archive.namelist():
            if member.startswith("tests/") and member.endswith(".py"):
                namespace: dict[str, Any] = {}
                exec(archive.read(member).decode(), namespace)  # noqa: S102 - our own generated file
                tests[namespace["test"]["name"]] = namespace["test"]
    return tests


def _cases(test: dict[str, Any]) -> list[dict[str, Any]]:
    return [case for suite in test["suites"] for case in suite["cases"]]


def _code_lines(doctest_code: str) -> list[str]:
    return [line[4:].strip() for line in doctest_code.splitlines() if line.startswith((">>> ", "... "))]


# --------------------------------------------------------------------------- session fixtures
@pytest.fixture(scope="session")
def assigned(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Path]]:
    """``otter assign`` every master into a temporary folder (the solution is graded below)."""
    out = tmp_path_factory.mktemp("assignments")
    built = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in NAMES:
            built[name] = build_assignments.run_otter_assign(MASTERS[name], out / name, run_tests=False)
    return built


@pytest.fixture(scope="session")
def graded(assigned: dict[str, dict[str, Path]]):
    """``grade(name, kind)`` -> GradingResults for kind in {"solution", "student"}, cached."""
    from otter.api import grade_submission

    cache: dict[tuple[str, str], Any] = {}

    def grade(name: str, kind: str):
        if (name, kind) not in cache:
            paths = assigned[name]
            start = time.monotonic()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cache[name, kind] = grade_submission(str(paths[kind]), str(paths["zip"]), quiet=True)
            results = cache[name, kind]
            _record_time(f"{name}: {kind}", time.monotonic() - start,
                         {q: results.get_score(q) for q in results.results})
        return cache[name, kind]

    return grade


# --------------------------------------------------------------------------- the masters
def test_there_are_five_assignments():
    assert NAMES == ["a1_randomized_response", "a2_laplace_mechanism", "a3_thresholding", "a4_rdp_histograms",
                     "a5_local_dp_auditing"]


@pytest.mark.parametrize("name", NAMES)
def test_master_config(name):
    parts = _master_parts(name)
    config = parts["config"]
    assert config["name"] == name, "the config's name must equal the file name (otter checks it on submissions)"
    assert config["export_cell"] is False
    seed = config["seed"]
    assert seed["variable"] == "rng_seed"
    assert isinstance(seed["autograder_value"], int) and isinstance(seed["student_value"], int)
    assert parts["questions"], "no questions found"
    for question, info in parts["questions"].items():
        assert info["points"] and info["points"] > 0, f"{question}: give the question points"
        assert info["public"] >= 1, f"{question}: needs at least one public test"
        assert info["hidden"] >= 1, f"{question}: needs at least one hidden test"


@pytest.mark.parametrize("name", NAMES)
def test_otter_assign_succeeds(name, assigned):
    paths = assigned[name]
    for key in ("student", "solution", "zip"):
        assert paths[key].is_file(), f"otter assign did not write {paths[key]}"
    tests = _zip_tests(paths["zip"])
    questions = _master_parts(name)["questions"]
    assert sorted(tests) == sorted(questions)
    for question, info in questions.items():
        cases = _cases(tests[question])
        assert sum(not c["hidden"] for c in cases) == info["public"]
        assert sum(c["hidden"] for c in cases) == info["hidden"]
    with zipfile.ZipFile(paths["zip"]) as archive:
        config = json.loads(archive.read("otter_config.json"))
        environment = archive.read("environment.yml").decode()
    assert config["seed_variable"] == "rng_seed" and isinstance(config["seed"], int)
    assert config["assignment_name"] == name
    for package in ("numpy==", "scipy==", "matplotlib=="):
        assert package in environment, f"the autograder environment must pin {package}"


# --------------------------------------------------------------------------- grading
@pytest.mark.parametrize("name", NAMES)
def test_solution_gets_full_marks(name, graded):
    results = graded(name, "solution")
    assert results.possible > 0
    failures = {
        q: [tc.message[-600:] for tc in results.get_result(q).test_case_results if not tc.passed]
        for q in results.results
    }
    assert results.total == results.possible, f"the solution lost points: {failures}"


@pytest.mark.parametrize("name", NAMES)
def test_blank_student_notebook_gets_zero(name, graded):
    results = graded(name, "student")
    scores = {q: results.get_score(q) for q in results.results}
    assert set(scores) == set(_master_parts(name)["questions"])
    assert all(score == 0 for score in scores.values()), f"unanswered questions earned points: {scores}"


# --------------------------------------------------------------------------- no leaks
@pytest.mark.parametrize("name", NAMES)
def test_no_solution_or_hidden_test_in_student_notebook(name, assigned):
    student = _read(assigned[name]["student"])
    sources = [_source(cell) for cell in student["cells"]]
    student_lines = {line.strip() for text in sources for line in text.splitlines()}
    text = "\n".join(sources)
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "# SOLUTION", "BEGIN TESTS", "# HIDDEN"):
        assert marker not in text, f"{marker!r} appears in the student notebook"

    parts = _master_parts(name)
    leaked = sorted(
        line for line in parts["solution_lines"] - parts["other_lines"]
        if len(line) >= 6 and line in student_lines
    )
    assert not leaked, f"solution lines found in the student notebook: {leaked}"

    embedded = student["metadata"]["otter"]["tests"]
    for question, test in embedded.items():
        cases = _cases(test)
        assert cases and not any(case["hidden"] for case in cases), f"{question}: hidden test in the student notebook"
    everything = text + "\n".join(case["code"] for test in embedded.values() for case in _cases(test))
    all_tests = _zip_tests(assigned[name]["zip"])
    public_code = {line for test in all_tests.values() for case in _cases(test) if not case["hidden"]
                   for line in _code_lines(case["code"])}
    for question, test in all_tests.items():
        for case in _cases(test):
            if case["hidden"]:
                secret = [line for line in _code_lines(case["code"])
                          if len(line) > 25 and line not in public_code and line not in parts["other_lines"]]
                assert secret, f"{question}: cannot tell this hidden test apart"
                assert not any(line in everything for line in secret), f"{question}: hidden test leaked"


@pytest.mark.parametrize("name", NAMES)
def test_committed_student_copy_is_fresh(name, assigned):
    committed_path = ASSIGNMENTS / "student" / f"{name}.ipynb"
    assert committed_path.is_file(), f"missing {committed_path}: run build_assignments.py --update-book-copies"
    fresh = build_assignments.normalise_student_notebook(_read(assigned[name]["student"]))
    assert _read(committed_path) == fresh, (
        f"{committed_path.name} is stale: run `.venv/bin/python book/assignments/build_assignments.py "
        "_build/assignments --update-book-copies`")


# --------------------------------------------------------------------------- wrong answers
WRONG_ANSWERS = [
    pytest.param(
        "a1_randomized_response", "q1",
        "def flip_probability(epsilon):\n    return 1 / (1 + np.exp(epsilon / 2))\n",
        "the flip probability is 1/(1 + 3) = 0.25", id="rr-half-epsilon"),
    pytest.param(
        "a2_laplace_mechanism", "q2",
        "def laplace_scale(sensitivity, epsilon):\n    return 2 * sensitivity / epsilon\n"
        "def laplace_mechanism(value, sensitivity, epsilon, rng):\n"
        "    value = np.asarray(value, dtype=float)\n"
        "    return value + rng.laplace(0, laplace_scale(sensitivity, epsilon), size=value.shape)\n",
        "needs Laplace noise of scale 1/0.5 = 2", id="laplace-double-scale"),
    pytest.param(
        "a3_thresholding", "q1",
        "def threshold_delta(threshold, epsilon):\n"
        "    return 0.5 * np.exp(-epsilon * np.asarray(threshold, dtype=float))\n",
        "Did you forget that the true count is 1?", id="delta-forgets-count-1"),
    pytest.param(
        "a4_rdp_histograms", "q1",
        "def histogram_noise_scale(n, epsilon):\n    return 1 / (n * epsilon)\n"
        "def dp_histogram(counts, epsilon, rng):\n"
        "    counts = np.asarray(counts)\n"
        "    return counts / counts.sum() + rng.laplace(0, histogram_noise_scale(counts.sum(), epsilon), counts.shape)\n",
        "theta has L1 sensitivity 2/n", id="histogram-half-scale"),
    pytest.param(
        "a5_local_dp_auditing", "q1",
        "def cms_flip_probability(epsilon):\n    return 1 / (np.exp(epsilon) + 1)\n",
        "Did you use epsilon instead of epsilon/2?", id="cms-full-epsilon"),
    pytest.param(
        "a5_local_dp_auditing", "q3",
        "def cms_flip_probability(epsilon):\n    return 1 / (np.exp(epsilon / 2) + 1)\n"
        "def cms_aggregate(reports, hash_indices, num_hashes, epsilon):\n"
        "    q = cms_flip_probability(epsilon)\n"
        "    sketch = np.zeros((num_hashes, np.shape(reports)[1]))\n"
        "    np.add.at(sketch, hash_indices, (np.asarray(reports) - q) / (1 - 2 * q))\n"
        "    return sketch\n",
        "times m = 2 that is 3 and -1", id="cms-server-forgets-m"),
    pytest.param(
        "a5_local_dp_auditing", "q4",
        "def cms_estimate(sketch, hash_table, items, num_users):\n"
        "    sketch = np.asarray(sketch)\n"
        "    cells = sketch[np.arange(sketch.shape[0]), hash_table[items]]\n"
        "    return cells.mean(axis=-1) - num_users / sketch.shape[1]\n",
        "(4/3)(9 - 20/4) = 16/3", id="cms-estimate-no-collision-factor"),
]


@pytest.mark.parametrize(("name", "question", "wrong_code", "hint"), WRONG_ANSWERS)
def test_wrong_answer_fails_public_test_with_hint(name, question, wrong_code, hint, tmp_path, monkeypatch):
    """What a student sees when running ``grader.check`` on a typical mistake."""
    import otter

    notebook = tmp_path / f"{name}.ipynb"
    shutil.copy(ASSIGNMENTS / "student" / f"{name}.ipynb", notebook)
    monkeypatch.chdir(tmp_path)
    env: dict[str, Any] = {}
    exec("import numpy as np\nrng_seed = 12345\n" + wrong_code, env)  # noqa: S102 - fixed test snippet
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = otter.Notebook(notebook.name).check(question, global_env=env)
    failed = [tc for tc in result.test_case_results if not tc.passed]
    assert failed, f"the wrong answer passed every public test of {name} {question}"
    messages = "\n".join(tc.message for tc in failed)
    assert "AssertionError" in messages and hint in messages, messages[-1500:]


# --------------------------------------------------------------------------- build script and book
@pytest.mark.parametrize("bad", ["/tmp/elsewhere", "_build/../book", "..", ".", "_build", "book/assignments",
                                 "", "_build/assignments/../../x"])
def test_build_script_refuses_paths_outside_build(bad, monkeypatch):
    monkeypatch.chdir(ROOT)
    with pytest.raises(ValueError, match="OUTDIR"):
        build_assignments.safe_output_dir(bad)


def test_build_script_accepts_build_subfolder(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert build_assignments.safe_output_dir("_build/assignments") == (ROOT / "_build" / "assignments").resolve()
    assert build_assignments.safe_output_dir(ROOT / "_build" / "x" / "y") == (ROOT / "_build" / "x" / "y").resolve()


def test_build_script_cli_refuses_before_writing(tmp_path):
    target = tmp_path / "should_not_exist"
    completed = subprocess.run(
        [sys.executable, str(ASSIGNMENTS / "build_assignments.py"), str(target)],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert completed.returncode == 2 and "OUTDIR" in completed.stderr
    assert not target.exists()


@pytest.mark.parametrize("name", NAMES)
def test_assignment_page_links_student_copy_and_chapters(name):
    page = (ASSIGNMENTS / f"{name}.md").read_text(encoding="utf-8")
    assert f"<student/{name}.ipynb>`" in page and "{download}" in page
    for chapter in CHAPTERS[name]:
        assert f"{{doc}}`../{chapter}`" in page, f"{name}.md should link {chapter}"
    assert f"_build/assignments/{name}/student/{name}.ipynb" in page


def test_book_never_links_masters_or_autograders():
    for page in ASSIGNMENTS.glob("*.md"):
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\{download\}`[^`]*<([^>]+)>`", text) + re.findall(r"\]\(([^)]+)\)", text):
            assert target.startswith("student/") or target.startswith("http"), f"{page.name} links {target}"
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert "book/assignments/masters/**" in config["exclude_patterns"]
    assert "-not -path '*/assignments/*'" in (ROOT / "Makefile").read_text(encoding="utf-8")
    for student_copy in (ASSIGNMENTS / "student").glob("*.ipynb"):
        nb = _read(student_copy)
        assert all(not cell.get("outputs") for cell in nb["cells"]), (
            f"{student_copy.name} must be committed without outputs")


@pytest.mark.parametrize("name", NAMES)
def test_assignment_page_table_matches_master(name):
    """The page's table of questions (points, public / hidden tests) must follow the master."""
    page = (ASSIGNMENTS / f"{name}.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (q\d+) \|.*\| (\d+) \| (\d+) / (\d+) \|$", page, flags=re.MULTILINE)
    table = {q: {"points": int(p), "public": int(pub), "hidden": int(hid)} for q, p, pub, hid in rows}
    master = {q: {key: info[key] for key in ("points", "public", "hidden")}
              for q, info in _master_parts(name)["questions"].items()}
    assert table == master


# --------------------------------------------------------------------------- pages: time and sources
@pytest.mark.parametrize("name", NAMES)
def test_assignment_page_states_time_and_sections(name):
    """Each page says how long the assignment takes and which chapter sections each question uses."""
    page = (ASSIGNMENTS / f"{name}.md").read_text(encoding="utf-8")
    assert re.search(r"\*\*Time\.\*\* .*\d+(\.\d+)?\s*(to|–)\s*\d+(\.\d+)? hours", page), "state the time as a range of hours"
    assert "estimate" in page.lower(), "say that the time is an estimate and how it was made"
    rows = re.findall(r"^\| (q\d+) \|(.*)$", page, flags=re.MULTILINE)
    assert rows, "no question table"
    for question, rest in rows:
        assert re.search(r"\{doc\}`[^`]*<\.\./ch\d\d_[a-z0-9_]+>`|\{doc\}`\.\./ch\d\d_", rest), (
            f"{name}.md, {question}: link the chapter (section) it draws on with a {{doc}} role")
    assert "```{" not in page, "directives use colon fences"


def test_index_lists_five_assignments_and_toc_has_them():
    index = (ASSIGNMENTS / "index.md").read_text(encoding="utf-8")
    for name in NAMES:
        assert f"<{name}>`" in index, f"index.md should link {name}"
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    part = next(p for p in toc["parts"] if p["caption"] == "Assignments")
    files = [entry["file"] for entry in part["chapters"]]
    for name in NAMES:
        assert f"book/assignments/{name}" in files


# --------------------------------------------------------------------------- integrity: structure
GUARD_PATH = ASSIGNMENTS / "masters" / "grading_guard.py"


def _load_guard():
    spec = importlib.util.spec_from_file_location("grading_guard_under_test", GUARD_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", NAMES)
def test_every_question_has_the_integrity_cells(name):
    """First test cell: hidden zero-point guard; second: the public zero-point rdplib check."""
    parts = _master_parts(name)
    assert "grading_guard.py" in parts["config"].get("autograder_files", [])
    for question, info in parts["questions"].items():
        guard_cell, public_cell = info["cells"][:2]
        assert "hidden: true" in guard_cell and "points: 0" in guard_cell, f"{name} {question}: guard cell first"
        match = re.search(r'grading_guard\.guard\("(q\d+)", (\[.*\])\)', guard_cell)
        assert match and match.group(1) == question, f"{name} {question}: the guard must name its question"
        answers = json.loads(match.group(2))
        assert answers, f"{name} {question}: list the answers the guard checks"
        assert "points: 0" in public_cell and "hidden" not in public_cell.split("# END TEST CONFIG")[0]
        assert f"for answer_name in {json.dumps(answers)}:" in public_cell, f"{name} {question}: same answers in public check"
        assert "score zero" in public_cell


# --------------------------------------------------------------------------- integrity: the guard itself
def test_guard_refuses_to_grade_without_the_notebook_namespace():
    """Outside otter's test runner (or if otter's internals move) the guard raises instead of checking {}."""
    guard = _load_guard()
    with pytest.raises(RuntimeError, match="namespace was not found"):
        guard._notebook_namespace(None)
    given = {"answer": 1}
    assert guard._notebook_namespace(given) is given


def test_guard_detects_every_way_of_reaching_rdplib():
    guard = _load_guard()
    import rdplib

    namespace = {"__name__": "__main__", "np": __import__("numpy"), "rdplib": rdplib, "r": rdplib,
                 "importlib": importlib}
    sources = {
        "direct": "def f(x):\n    return rdplib.laplace_mechanism(x, 1, 1)\n",
        "alias": "def f(x):\n    return r.laplace_mechanism(x, 1, 1)\n",
        "import_inside": "def f(x):\n    import rdplib.mechanisms as m\n    return m\n",
        "importlib": "def f(x):\n    return importlib.import_module('rdplib').l1_loss(x, x)\n",
        "dunder_import": "def f(x):\n    return __import__('rdplib').l1_loss(x, x)\n",
        "helper": "def helper(x):\n    return r.l1_loss(x, x)\ndef f(x):\n    return helper(x) + 1\n",
        "default": "def f(x, mech=rdplib.laplace_mechanism):\n    return mech(x, 1, 1)\n",
        "lambda": "f = lambda x: r.l1_loss(x, x)\n",
        "from_import": "from rdplib import l1_loss as f\n",
        "class_method": "class Sketch:\n    def run(self):\n        return rdplib.l1_loss([0], [0])\nf = Sketch().run\n",
    }
    for label, source in sources.items():
        env = dict(namespace)
        exec(compile(source, f"<{label}>", "exec"), env)  # noqa: S102 - fixed snippets
        assert guard.uses_rdplib(env["f"]), f"not detected: {label}"
    honest = dict(namespace)
    exec(  # noqa: S102 - fixed snippet
        "def flip(eps):\n    '''Unlike rdplib's version, this one is mine.'''\n"
        "    # rdplib is not used here\n    return 1 / (1 + np.exp(eps))\n"
        "def g(x):\n    return flip(x) * 2\n", honest)
    assert not guard.uses_rdplib(honest["g"]), "an honest answer (rdplib only in a comment) was flagged"
    history = {"_ih": ["", "import rdplib as dp\n", "T = dp.l1_loss([1], [0])\n", "S = 16\n"], "dp": rdplib,
               "T": 1.0, "S": 16}
    assert guard.tainted_answers(["T", "S"], history) == {"T": "the cell that computed it uses rdplib"}


def test_guard_zeroes_and_disables_in_a_subprocess(tmp_path):
    """In a fresh interpreter: a tainted answer is replaced, and rdplib stops working afterwards."""
    script = tmp_path / "probe.py"
    script.write_text(
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('grading_guard', {str(GUARD_PATH)!r})\n"
        "guard = importlib.util.module_from_spec(spec); spec.loader.exec_module(guard)\n"
        "from rdplib import l1_loss\n"
        "import rdplib as r\n"
        "ns = {'__name__': '__main__', 'f': lambda x: r.l1_loss(x, x), 'g': lambda x: 2 * x}\n"
        "try:\n    guard.guard('q1', ['f', 'g'], ns)\nexcept AssertionError as e:\n    print('flagged', e)\n"
        "for name in ('f', 'g'):\n"
        "    try:\n        print(name, ns[name](3))\n    except RuntimeError as e:\n        print(name, 'zeroed', e)\n"
        "for call in (lambda: l1_loss([1], [0]), lambda: r.l1_loss([1], [0]),\n"
        "             lambda: __import__('rdplib').l1_loss([1], [0]),\n"
        "             lambda: importlib.import_module('rdplib.not_imported_yet')):\n"
        "    try:\n        call(); print('rdplib still works')\n    except (RuntimeError, ImportError) as e:\n"
        "        print('disabled', type(e).__name__)\n",
        encoding="utf-8")
    completed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    out = completed.stdout
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert "flagged q1: f uses rdplib" in out
    assert "f zeroed f scores zero" in out and "g 6" in out
    assert out.count("disabled") == 4 and "still works" not in out, out


# --------------------------------------------------------------------------- submissions built from the solution
def _code_cells(nb: dict[str, Any]) -> list[dict[str, Any]]:
    return [cell for cell in nb["cells"] if cell["cell_type"] == "code"]


def _replace_cell(nb: dict[str, Any], marker: str, source: str) -> None:
    hits = [cell for cell in _code_cells(nb) if marker in _source(cell)]
    assert len(hits) == 1, f"expected one code cell containing {marker!r}, found {len(hits)}"
    hits[0]["source"] = source
    hits[0]["outputs"] = []


def _write_submission(nb: dict[str, Any], folder: Path, file_name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file_name
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


# Every answer of every assignment replaced by one that calls rdplib (DESIGN §4 names where
# rdplib has the function; otherwise the answer imports or calls rdplib for part of its work).
WRAPPED: dict[str, list[tuple[str, str]]] = {
    "a1_randomized_response": [
        ("def flip_probability(", "import rdplib\nimport rdplib as r\n\ndef flip_probability(epsilon):\n"
         "    eps = np.asarray(epsilon, dtype=float)\n"
         "    estimate = np.vectorize(lambda e: rdplib.rr_estimate(np.zeros(1), e))(eps)\n"
         "    q = estimate / (2 * estimate - 1)\n    return q if q.ndim else float(q)\n"),
        ("def randomized_response(", "def randomized_response(bits, epsilon, rng):\n"
         "    return r.randomized_response(bits, epsilon, rng=rng)\n"),
        ("def rr_estimate(", "from rdplib import rr_estimate\n"),
        ("def rr_variance(", "import importlib\n\ndef rr_variance(p, n, epsilon):\n"
         "    lib = importlib.import_module('rdplib')\n"
         "    q = flip_probability(epsilon)\n    pi = q + (1 - 2 * q) * np.asarray(p, dtype=float)\n"
         "    return pi * (1 - pi) / (np.asarray(n) * (1 - 2 * q) ** 2) + 0 * lib.l1_loss([0], [0])\n"),
        ("def simulate_estimates(", "def simulate_estimates(p, n, epsilon, num_surveys, rng):\n"
         "    lib = __import__('rdplib')\n    truth = (rng.random((num_surveys, n)) < p).astype(int)\n"
         "    reports = lib.randomized_response(truth, epsilon, rng=rng)\n"
         "    return np.array([lib.rr_estimate(row, epsilon) for row in reports])\n"),
        ("def empirical_epsilon(", "def empirical_epsilon(mechanism, epsilon, num_trials, rng):\n"
         "    import rdplib.mechanisms\n"
         "    a = np.asarray(mechanism(np.zeros(num_trials, dtype=int), epsilon, rng))\n"
         "    b = np.asarray(mechanism(np.ones(num_trials, dtype=int), epsilon, rng))\n"
         "    worst = 0.0\n    for y in (0, 1):\n        p0, p1 = np.mean(a == y), np.mean(b == y)\n"
         "        if p0 == 0 and p1 == 0:\n            continue\n"
         "        if p0 == 0 or p1 == 0:\n            return np.inf\n"
         "        worst = max(worst, abs(np.log(p1 / p0)))\n    return float(worst)\n"),
    ],
    "a2_laplace_mechanism": [
        ("COUNT_SENSITIVITY = ", "import rdplib as dp\nCOUNT_SENSITIVITY = int(dp.l1_loss([1], [0]))\n\n"
         "def sum_sensitivity(lower, upper):\n    return float(dp.l1_loss([upper], [lower]))\n\n"
         "def mean_sensitivity(lower, upper, n):\n    return float(dp.l1_loss([upper], [lower])) / n\n"),
        ("def laplace_scale(", "def laplace_scale(sensitivity, epsilon):\n"
         "    return float(dp.l1_loss([sensitivity / epsilon], [0.0]))\n\n"
         "def laplace_mechanism(value, sensitivity, epsilon, rng):\n"
         "    return dp.laplace_mechanism(value, sensitivity, epsilon, rng=rng)\n"),
        ("def clipped_mean(", "from rdplib import clipped_mean\n"),
        ("def laplace_mean_mse(", "def laplace_mean_mse(p, n, epsilon):\n    import rdplib\n"
         "    p, n = np.asarray(p, dtype=float), np.asarray(n, dtype=float)\n"
         "    return p * (1 - p) / n + 2 / (epsilon ** 2 * n ** 2) + 0 * rdplib.l1_loss([0], [0])\n"),
        ("def simulate_mse(", "def simulate_mse(p, n, epsilon, num_trials, rng):\n"
         "    releases = dp.laplace_mechanism(rng.binomial(n, p, size=num_trials) / n, 1 / n, epsilon, rng=rng)\n"
         "    return float(np.mean((releases - p) ** 2))\n"),
        ("def crossover_n(", "import importlib\n\ndef crossover_n(p, epsilon):\n"
         "    return 2 / (epsilon ** 2 * p * (1 - p)) + importlib.import_module('rdplib').l1_loss([0], [0])\n"),
    ],
    "a3_thresholding": [
        ("def threshold_delta(", "import rdplib\nthreshold_delta = rdplib.threshold_delta\n"),
        ("def simulate_release_probability(", "def simulate_release_probability(threshold, epsilon, num_trials, rng):\n"
         "    noisy = rdplib.laplace_mechanism(np.ones(num_trials), 1.0, epsilon, rng=rng)\n"
         "    return float(np.mean(noisy >= threshold))\n"),
        ("def threshold_for_delta(", "from rdplib import threshold_for_delta\n"),
        ("n_users = 10**6", "n_users = 10**6\ndelta_million = 0.1 / n_users\n"
         "T_million = rdplib.threshold_for_delta(delta_million, np.log(3))\n"
         "fifteen_is_enough = bool(n_users * rdplib.threshold_delta(15, np.log(3)) <= 0.1)\n"),
        ("def thresholded_histogram(", "def thresholded_histogram(items, epsilon, threshold, rng):\n"
         "    return rdplib.thresholded_histogram(items, epsilon, threshold, rng=rng)\n"),
        ("def guess_alice_present(", "def guess_alice_present(release):\n    import rdplib\n"
         "    return 'rare syndrome' in release\n\n"
         "def attack_rates(mechanism, num_runs, rng):\n    __import__('rdplib')\n"
         "    hits = [guess_alice_present(mechanism(with_alice, np.log(3), rng)) for _ in range(num_runs)]\n"
         "    alarms = [guess_alice_present(mechanism(others, np.log(3), rng)) for _ in range(num_runs)]\n"
         "    return float(np.mean(hits)), float(np.mean(alarms))\n"),
        ("def smallest_delta(", "def smallest_delta(p_with, p_without, epsilon):\n"
         "    return max(0.0, float(p_with - np.exp(epsilon) * p_without)) + 0 * rdplib.l1_loss([0], [0])\n\n"
         "tpr_broken, fpr_broken = attack_rates(release_all_noisy_counts, 200, rng)\n"
         "delta_no_threshold = smallest_delta(tpr_broken, fpr_broken, np.log(3))\n"),
    ],
    "a4_rdp_histograms": [
        ("def histogram_noise_scale(", "import rdplib as dp\n\ndef histogram_noise_scale(n, epsilon):\n"
         "    return 2.0 / (n * epsilon) + 0 * dp.l1_loss([0], [0])\n\n"
         "def dp_histogram(counts, epsilon, rng):\n    return dp.dp_histogram(counts, epsilon, rng=rng)\n"),
        ("def sparse_condition(", "def sparse_condition(k, n, gamma):\n    import rdplib\n"
         "    return bool(2 * k <= gamma * n)\n"),
        ("def rdp_histogram(", "def rdp_histogram(counts, epsilon, gamma, rng):\n"
         "    return dp.rdp_histogram(counts, epsilon, gamma, rng=rng)\n"),
        ("def project_to_histograms(", "def project_to_histograms(z, n):\n"
         "    return dp.project_to_histograms(z, n)\n"),
        ("def estimate_risk(", "def estimate_risk(counts, release, num_reps, rng):\n"
         "    counts = np.asarray(counts)\n    n = int(counts.sum())\n"
         "    return float(np.mean([dp.l1_loss(dp.project_to_histograms(release(counts, rng), n), counts / n)\n"
         "                          for _ in range(num_reps)]))\n\n"
         "paper_counts = np.zeros(25, dtype=int)\npaper_counts[[6, 17]] = 250\n"
         "risk_dp = estimate_risk(paper_counts, lambda c, g: dp.dp_histogram(c, 0.1, rng=g), 100, rng)\n"
         "risk_rdp = estimate_risk(paper_counts, lambda c, g: dp.rdp_histogram(c, 0.1, 0.1, rng=g), 100, rng)\n"),
        ("risks_dp_k, risks_rdp_k = [], []", "ks = [5, 25, 100]\nrisks_dp_k, risks_rdp_k = [], []\nfor k in ks:\n"
         "    support = np.zeros(k, dtype=int)\n    support[[0, 1]] = 500\n"
         "    risks_dp_k.append(estimate_risk(support, lambda c, g: dp.dp_histogram(c, 0.5, rng=g), 200, rng))\n"
         "    risks_rdp_k.append(estimate_risk(support, lambda c, g: dp.rdp_histogram(c, 0.5, 0.2, rng=g), 200, rng))\n"
         "risks_dp_k, risks_rdp_k = np.array(risks_dp_k), np.array(risks_rdp_k)\n"),
    ],
    "a5_local_dp_auditing": [
        ("def cms_flip_probability(", "import rdplib as dp\n\ndef cms_flip_probability(epsilon):\n"
         "    eps = np.asarray(epsilon, dtype=float)\n"
         "    q = np.vectorize(lambda e: dp.CountMeanSketch(float(e), 1, 2).flip_probability)(eps)\n"
         "    return q if q.ndim else float(q)\n"),
        ("def cms_encode(", "def cms_encode(items, hash_table, width, epsilon, rng):\n"
         "    items = np.asarray(items)\n    js = rng.integers(0, np.shape(hash_table)[1], size=items.size)\n"
         "    one_hot = np.zeros((items.size, width), dtype=np.int8)\n"
         "    one_hot[np.arange(items.size), np.asarray(hash_table)[items, js]] = 1\n"
         "    q = dp.CountMeanSketch(epsilon, 1, width).flip_probability\n"
         "    return np.where(rng.random(one_hot.shape) < q, 1 - one_hot, one_hot).astype(np.int8), js\n"),
        ("def cms_aggregate(", "def cms_aggregate(reports, hash_indices, num_hashes, epsilon):\n"
         "    q = dp.CountMeanSketch(epsilon, 1, 2).flip_probability\n"
         "    sketch = np.zeros((num_hashes, np.shape(reports)[1]))\n"
         "    np.add.at(sketch, np.asarray(hash_indices), num_hashes * (np.asarray(reports) - q) / (1 - 2 * q))\n"
         "    return sketch\n"),
        ("def cms_estimate(", "def cms_estimate(sketch, hash_table, items, num_users):\n    import rdplib\n"
         "    sketch = np.asarray(sketch, dtype=float)\n    m, w = sketch.shape\n"
         "    cells = sketch[np.arange(m), np.asarray(hash_table)[np.asarray(items)]]\n"
         "    return w / (w - 1) * (cells.mean(axis=-1) - num_users / w)\n"),
        ("def cms_mse(", "import importlib\n\ndef cms_mse(counts, epsilon, num_hashes, width):\n"
         "    return importlib.import_module('rdplib.local').cms_variance(counts, epsilon, num_hashes, width)\n"),
        ("def simulate_sketch_errors(", "def simulate_sketch_errors(counts, epsilon, num_hashes, width, num_repeats, rng):\n"
         "    counts = np.asarray(counts)\n    items = np.repeat(np.arange(counts.size), counts)\n"
         "    errors = np.empty((num_repeats, counts.size))\n    for repeat in range(num_repeats):\n"
         "        table = random_hash_table(counts.size, num_hashes, width, rng)\n"
         "        reports, js = cms_encode(items, table, width, epsilon, rng)\n"
         "        sketch = cms_aggregate(reports, js, num_hashes, epsilon)\n"
         "        errors[repeat] = cms_estimate(sketch, table, np.arange(counts.size), items.size) - counts\n"
         "    return errors\n"),
        ("def clopper_pearson(", "def clopper_pearson(hits, trials, confidence):\n"
         "    return tuple(__import__('rdplib').clopper_pearson(hits, trials, confidence))\n\n"
         "def epsilon_lower_bound(hits_a, hits_b, trials, confidence):\n"
         "    level = 1 - (1 - confidence) / 2\n    la, ua = clopper_pearson(hits_a, trials, level)\n"
         "    lb, ub = clopper_pearson(hits_b, trials, level)\n    bounds = [0.0]\n"
         "    if la > 0:\n        bounds.append(np.log(la / ub))\n"
         "    if lb > 0:\n        bounds.append(np.log(lb / ua))\n    return float(max(bounds))\n"),
        ("def audit_client(", "def audit_client(encode, epsilon, trials, confidence, rng):\n"
         "    table = np.array([[0], [1]])\n"
         "    def sampler(item, k, gen):\n        return encode(np.full(k, item), table, 4, epsilon, gen)[0]\n"
         "    def event(out):\n        return np.all(np.asarray(out) == [1, 0, 0, 0], axis=1)\n"
         "    return float(dp.audit_epsilon(sampler, 0, 1, event, trials, confidence=confidence, rng=rng).epsilon_lower)\n"),
    ],
}


def _grade(path: Path, zip_path: Path):
    from otter.api import grade_submission

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return grade_submission(str(path), str(zip_path), quiet=True)


def _record_time(label: str, seconds: float, scores: dict[str, float]) -> None:
    """Append a grading time to _build/assignments-grading-times.json (for the docs and the issue)."""
    target = ROOT / "_build" / "assignments-grading-times.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    data[label] = {"seconds": round(seconds, 1), "scores": scores}
    target.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def test_wrapped_submissions_cover_every_question():
    for name in NAMES:
        solution_cells = "\n".join(_source(c) for c in _read(MASTERS[name])["cells"] if c["cell_type"] == "code")
        for marker, _ in WRAPPED[name]:
            assert marker in solution_cells, f"{name}: marker {marker!r} not in the master"
        assert len(WRAPPED[name]) == len(_master_parts(name)["questions"]), f"{name}: wrap every question"


@pytest.mark.parametrize("name", NAMES)
def test_answers_that_wrap_rdplib_score_zero(name, assigned, tmp_path):
    nb = _read(assigned[name]["solution"])
    for marker, source in WRAPPED[name]:
        _replace_cell(nb, marker, source)
    path = _write_submission(nb, tmp_path, f"{name}.ipynb")
    start = time.monotonic()
    results = _grade(path, assigned[name]["zip"])
    elapsed = time.monotonic() - start
    scores = {q: results.get_score(q) for q in results.results}
    _record_time(f"{name}: answers wrap rdplib", elapsed, scores)
    assert set(scores) == set(_master_parts(name)["questions"])
    assert all(score == 0 for score in scores.values()), f"answers that call rdplib earned points: {scores}"
    public_messages = "\n".join(tc.message for q in results.results for tc in results.get_result(q).test_case_results
                                if not tc.test_case.hidden)
    assert "score zero" in public_messages or "scores zero" in public_messages, "the student must be told why"


def test_without_the_guard_the_wrapped_answers_would_score(assigned, tmp_path):
    """Control: with a no-op guard in the zip, assignment 1's wrapped answers earn points (the guard is what zeroes them)."""
    name = "a1_randomized_response"
    stub_zip = tmp_path / "no_guard.zip"
    with zipfile.ZipFile(assigned[name]["zip"]) as source, zipfile.ZipFile(stub_zip, "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "files/grading_guard.py":
                data = b"def guard(*args, **kwargs):\n    pass\n"
            target.writestr(item, data)
    nb = _read(assigned[name]["solution"])
    for marker, source_code in WRAPPED[name]:
        _replace_cell(nb, marker, source_code)
    start = time.monotonic()
    results = _grade(_write_submission(nb, tmp_path / "sub", f"{name}.ipynb"), stub_zip)
    scores = {q: results.get_score(q) for q in results.results}
    _record_time(f"{name}: answers wrap rdplib, guard removed (control)", time.monotonic() - start, scores)
    assert scores["q2"] == 3 and scores["q3"] == 2, f"the wrapped mechanism and estimator are correct answers: {scores}"


def test_honest_answers_with_rdplib_nearby_keep_full_marks(assigned, tmp_path):
    """rdplib imported at the top, named in comments, and used in an ungraded cell: the answers are honest."""
    name = "a1_randomized_response"
    nb = _read(assigned[name]["solution"])
    setup = next(c for c in _code_cells(nb) if "import numpy as np" in _source(c))
    setup["source"] = "import rdplib  # to compare with the book's library later\n" + _source(setup)
    answer = next(c for c in _code_cells(nb) if "def rr_variance(" in _source(c))
    answer["source"] = "# I derived this myself; rdplib has a version too.\n" + _source(answer)
    nb["cells"].append({"cell_type": "code", "execution_count": None, "id": "extra-compare", "metadata": {},
                        "outputs": [], "source": "print(rdplib.rr_variance(0.3, 100, 1.0), rr_variance(0.3, 100, 1.0))"})
    results = _grade(_write_submission(nb, tmp_path, f"{name}.ipynb"), assigned[name]["zip"])
    assert results.total == results.possible, {q: results.get_score(q) for q in results.results}


# --------------------------------------------------------------------------- broken submissions
GRADING_TIME_LIMIT = 300  # seconds per `otter run`, with the lowered watchdog limits below
TEST_LIMITS = {"GRADING_GUARD_CASE_LIMIT": "10", "GRADING_GUARD_CELL_LIMIT": "20"}
A1_FULL = {"q1": 2, "q2": 3, "q3": 2, "q4": 2, "q5": 3, "q6": 3}


def _broken(kind: str, nb: dict[str, Any]) -> str:
    """Break the solution notebook ``nb`` in place; return the file name to submit under."""
    name = "a1_randomized_response.ipynb"
    cells = _code_cells(nb)
    if kind == "syntax error in q3":
        _replace_cell(nb, "def rr_estimate(", "def rr_estimate(noisy_bits, epsilon)\n    return 0\n")
    elif kind == "exception in the first cell":
        cells[0]["source"] = "raise RuntimeError('oops')\n" + _source(cells[0])
    elif kind == "exception in the setup cell":
        setup = next(c for c in cells if "import numpy as np" in _source(c))
        setup["source"] = "1 / 0\n" + _source(setup)
    elif kind == "infinite loop in q4":
        _replace_cell(nb, "def rr_variance(", "def rr_variance(p, n, epsilon):\n    while True:\n        pass\n")
    elif kind == "infinite loop at the top of a cell":
        cell = next(c for c in cells if "def simulate_estimates(" in _source(c))
        cell["source"] = _source(cell) + "\n\nwhile True:\n    pass\n"
    elif kind == "a cell prints 100 MB":
        cell = next(c for c in cells if "def flip_probability(" in _source(c))
        cell["source"] = _source(cell) + "\n\nprint('x' * 100_000_000)\n"
    elif kind == "grader.check cells deleted":
        nb["cells"] = [c for c in nb["cells"] if not _source(c).startswith("grader.check(")]
    elif kind == "grader.check cells edited":
        edits = {'grader.check("q2")': 'grader.check("q 2")', 'grader.check("q4")': "grader.check(",
                 'grader.check("q5")': 'print("skipped")'}
        for cell in cells:
            for old, new in edits.items():
                if _source(cell).startswith(old):
                    cell["source"] = new
    elif kind == "saved without outputs":
        for cell in cells:
            cell["outputs"], cell["execution_count"] = [], None
    elif kind == "wrong file name":
        name = "a1_randomized_response (1).ipynb"
    else:  # pragma: no cover
        raise ValueError(kind)
    return name


# submission -> (expected scores, hint the student sees in the public test output, if points were lost)
ADVERSARIAL = [
    ("syntax error in q3", {**A1_FULL, "q3": 0}, "rr_estimate is not defined: run the cell that defines it"),
    ("exception in the first cell", A1_FULL, None),
    ("exception in the setup cell", dict.fromkeys(A1_FULL, 0), "name 'np' is not defined"),
    ("infinite loop in q4", {**A1_FULL, "q4": 0}, "did not finish"),
    ("infinite loop at the top of a cell", A1_FULL, None),
    ("a cell prints 100 MB", A1_FULL, None),
    ("grader.check cells deleted", A1_FULL, None),
    ("grader.check cells edited", A1_FULL, None),
    ("saved without outputs", A1_FULL, None),
    ("wrong file name", A1_FULL, None),
]


@pytest.mark.parametrize(("kind", "expected", "hint"), ADVERSARIAL, ids=[row[0] for row in ADVERSARIAL])
def test_broken_submission_is_graded_not_crashed(kind, expected, hint, assigned, tmp_path):
    name = "a1_randomized_response"
    nb = copy.deepcopy(_read(assigned[name]["solution"]))
    file_name = _broken(kind, nb)
    path = _write_submission(nb, tmp_path / "submission", file_name)
    out = tmp_path / "results"
    out.mkdir()
    otter_cli = Path(sys.executable).with_name("otter")
    start = time.monotonic()
    completed = subprocess.run(
        [str(otter_cli), "run", "-a", str(assigned[name]["zip"]), "-o", str(out), str(path)],
        capture_output=True, text=True, timeout=GRADING_TIME_LIMIT, env={**os.environ, **TEST_LIMITS},
    )
    elapsed = time.monotonic() - start
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    report = json.loads((out / "results.json").read_text(encoding="utf-8"))
    scores = {test["name"]: test["score"] for test in report["tests"] if test["name"] != "Public Tests"}
    _record_time(f"{name}: {kind}", elapsed, scores)
    assert scores == expected, f"{kind}: got {scores}"
    public = next(test["output"] for test in report["tests"] if test["name"] == "Public Tests")
    if hint is not None:
        assert hint in public, f"{kind}: the public output should tell the student {hint!r}:\n{public[-3000:]}"

"""The course assignments: otter assign, grading of solutions and blank notebooks, no leaks.

Every master notebook in ``book/assignments/masters/`` is assigned once per session (into a
temporary folder, without otter's own solution run) and its solution and student notebooks are
graded once with ``otter.api.grade_submission``; the tests below share those results.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
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
    "a1_randomized_response": ["ch02_randomized_response"],
    "a2_laplace_mechanism": ["ch01_neighbours", "ch03_laplace"],
    "a3_thresholding": ["ch06_thresholding"],
    "a4_rdp_histograms": ["ch07_dp_histograms", "ch08_rdp_sparse_histograms"],
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
                questions[current["name"]] = {"points": current.get("points"), "public": 0, "hidden": 0}
            in_solution = {"# BEGIN SOLUTION": True, "# END SOLUTION": False}.get(head, in_solution)
            in_tests = {"# BEGIN TESTS": True, "# END TESTS": False}.get(head, in_tests)
            continue
        if cell["cell_type"] != "code":
            continue
        if in_tests:
            hidden = bool(re.match(r"\s*#.*\bhidden\b", text.splitlines()[0], flags=re.IGNORECASE))
            questions[current["name"]]["hidden" if hidden else "public"] += 1
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
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cache[name, kind] = grade_submission(str(paths[kind]), str(paths["zip"]), quiet=True)
        return cache[name, kind]

    return grade


# --------------------------------------------------------------------------- the masters
def test_there_are_four_assignments():
    assert NAMES == ["a1_randomized_response", "a2_laplace_mechanism", "a3_thresholding", "a4_rdp_histograms"]


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
    for copy in (ASSIGNMENTS / "student").glob("*.ipynb"):
        nb = _read(copy)
        assert all(not cell.get("outputs") for cell in nb["cells"]), f"{copy.name} must be committed without outputs"


@pytest.mark.parametrize("name", NAMES)
def test_assignment_page_table_matches_master(name):
    """The page's table of questions (points, public / hidden tests) must follow the master."""
    page = (ASSIGNMENTS / f"{name}.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (q\d+) \|.*\| (\d+) \| (\d+) / (\d+) \|$", page, flags=re.MULTILINE)
    table = {q: {"points": int(p), "public": int(pub), "hidden": int(hid)} for q, p, pub, hid in rows}
    assert table == _master_parts(name)["questions"]

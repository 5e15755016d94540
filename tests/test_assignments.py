"""The course assignments as otter builds them: masters, otter assign, the student copies, no leaks,
public-test hints, the build script, the pages, and the grading layer inside
the autograder zip.

Every master notebook in ``book/assignments/masters/`` is assigned once per session (into a
temporary folder, without otter's own solution run) and its solution is graded once with
``otter.api.grade_submission`` through the plugin. The points themselves come
from the grading layer (``grading/``), attacked in ``tests/test_grading_tables.py``;
``test_otter_run_takes_points_from_the_grading_layer`` checks that the autograder zip uses it.
"""

from __future__ import annotations

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
    "a6_reconstruction": ["ch01_attacks"],
    "a7_exponential_mechanism": ["ch06_exponential_mechanism"],
    "a8_gaussian_accounting": ["ch08_gaussian", "ch10_accounting"],
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
                                              "cells": [], "manual": bool(current.get("manual", False))}
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
def test_there_are_at_least_eight_assignments_and_the_grader_has_each():
    from grading import grader

    assert len(NAMES) >= 8, NAMES
    assert NAMES == [n for n in grader.ASSIGNMENTS if n in NAMES] and set(NAMES) <= set(grader.ASSIGNMENTS)


@pytest.mark.parametrize("name", NAMES)
def test_master_config(name):
    parts = _master_parts(name)
    config = parts["config"]
    assert config["name"] == name, "the config's name must equal the file name (otter checks it on submissions)"
    assert config["export_cell"] is False
    assert "seed" not in config, "otter's seed option re-seeds every cell: the grader passes its own generators"
    assert parts["questions"], "no questions found"
    for question, info in parts["questions"].items():
        assert info["points"] and info["points"] > 0, f"{question}: give the question points"
        if info["manual"]:
            continue
        assert info["public"] >= 1, f"{question}: needs at least one public test"
        assert info["hidden"] >= 1, f"{question}: needs at least one hidden test"


@pytest.mark.parametrize("name", NAMES)
def test_otter_assign_succeeds(name, assigned):
    paths = assigned[name]
    for key in ("student", "solution", "zip"):
        assert paths[key].is_file(), f"otter assign did not write {paths[key]}"
    tests = _zip_tests(paths["zip"])
    questions = {q: info for q, info in _master_parts(name)["questions"].items() if not info["manual"]}
    assert sorted(tests) == sorted(questions)
    for question, info in questions.items():
        cases = _cases(tests[question])
        assert sum(not c["hidden"] for c in cases) == info["public"]
        assert sum(c["hidden"] for c in cases) == info["hidden"]
    with zipfile.ZipFile(paths["zip"]) as archive:
        config = json.loads(archive.read("otter_config.json"))
        environment = archive.read("environment.yml").decode()
        members = set(archive.namelist())
    assert config.get("seed") is None, "no per-cell seed"
    assert config["assignment_name"] == name
    plugin = [p for p in config["plugins"] if isinstance(p, dict) and build_assignments.PLUGIN in p]
    assert len(plugin) == 1 and plugin[0][build_assignments.PLUGIN]["assignment"] == name
    for module in ("grading/__init__.py", "grading/_child.py", "grading/otter_plugin.py",
                   f"grading/assignments/{name.split('_')[0]}.py"):
        assert module in members, f"the autograder zip must carry {module}"
    written = (paths["zip"].parent / "written_questions.md").read_text(encoding="utf-8")
    assert name in written and "point" in written
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
# (assignment, question, wrong code, the property the message must name, what it must not show)
WRONG_ANSWERS = [
    pytest.param(
        "a1_randomized_response", "q1",
        "def pair_rr(pairs, epsilon1, epsilon2, rng):\n"
        "    pairs = np.asarray(pairs, dtype=int)\n"
        "    if pairs.ndim == 0 or pairs.shape[-1] != 2 or not (epsilon1 > 0 and epsilon2 > 0):\n"
        "        raise ValueError('bad input')\n"
        "    flip = 1 / (1 + np.exp(np.array([epsilon1, epsilon2]) / 2))\n"
        "    return np.where(rng.random(pairs.shape) < flip, 1 - pairs, pairs)\n",
        "a quarter of the first answers and a tenth of the second must come out as 1", ["0.25", "0.1 ", "/ 2"],
        id="pair-rr-half-epsilon"),
    pytest.param(
        "a1_randomized_response", "q2",
        "def both_estimate(reports, epsilon1, epsilon2):\n"
        "    flip = 1 / (1 + np.exp(np.array([epsilon1, epsilon2])))\n"
        "    shares = (np.mean(np.asarray(reports, dtype=float), axis=0) - flip) / (1 - 2 * flip)\n"
        "    return float(shares[0] * shares[1])\n",
        "must give the estimate 1.25", ["0.25 ", "shares", "product"],
        id="both-estimate-product-of-shares"),
    pytest.param(
        "a1_randomized_response", "q6",
        "def empirical_epsilon(mechanism, num_trials, rng, relation='any'):\n"
        "    if relation not in ('any', 'one'):\n"
        "        raise ValueError('relation')\n"
        "    pairs = [(0, 0), (0, 1), (1, 0), (1, 1)]\n"
        "    freq = {}\n"
        "    for pair in pairs:\n"
        "        out = np.asarray(mechanism(np.tile(pair, (num_trials, 1)), rng), dtype=int)\n"
        "        freq[pair] = np.bincount(2 * out[:, 0] + out[:, 1], minlength=4) / num_trials\n"
        "    worst = 0.0\n"
        "    for k, x in enumerate(pairs):\n"
        "        for other in pairs:\n"
        "            differ = (x[0] != other[0]) + (x[1] != other[1])\n"
        "            if differ == 0 or (relation == 'one' and differ != 1):\n"
        "                continue\n"
        "            a, b = freq[x][k], freq[other][k]  # only the report equal to x\n"
        "            if a == 0 or b == 0:\n"
        "                return np.inf\n"
        "            worst = max(worst, abs(np.log(a / b)))\n"
        "    return float(worst)\n",
        "must come out close to ln 4 = 1.386", ["_BY_DISTANCE", "cumsum", "0.47", "1.6"],
        id="empirical-epsilon-only-the-true-report"),
    pytest.param(
        "a2_laplace_mechanism", "q1",
        "def sum_sensitivity(lower, upper, m):\n    return m * (upper - lower)\n"
        "def count_sum_sensitivity(lower, upper, m):\n    return m + sum_sensitivity(lower, upper, m)\n",
        "count_sum_sensitivity must be the most the pair (count, total) can change",
        ["1 + max(", "max(upper, -lower)", "upper - lower"], id="pair-sensitivity-naive-sum"),
    pytest.param(
        "a2_laplace_mechanism", "q3",
        "def split_budget(delta_sum, delta_count, mean_guess, epsilon):\n"
        "    if not (delta_sum > 0 and delta_count > 0 and epsilon > 0) or mean_guess == 0:\n"
        "        raise ValueError('bad input')\n"
        "    a, b = delta_sum ** (2 / 3), (mean_guess * delta_count) ** (2 / 3)\n"
        "    return epsilon * a / (a + b), epsilon * b / (a + b)\n",
        "a negative mean_guess is allowed", ["2 / 3", "** (2", "0.5, 0.5"], id="split-forgets-abs-of-guess"),
    pytest.param(
        "a3_thresholding", "q1",
        "def privacy_curve(eps_prime, epsilon, threshold):\n"
        "    e = np.asarray(eps_prime, dtype=float)\n"
        "    return 0.5 * np.exp(-epsilon * (threshold - 1)) + 0.0 * e\n",
        "privacy_curve must give the smallest delta at each epsilon'",
        ["expm1", "exp(-", "eps_prime)", "np.isclose", "existing"], id="curve-forgets-existing-categories"),
    pytest.param(
        "a4_rdp_histograms", "q4",
        "def project_tick_shares(z, n, m):\n    w = n * np.asarray(z, dtype=float)\n"
        "    return np.clip(np.round(w), 0, n) / n\n",
        "on the question's example the smallest L1 distance is 0.6", ["0.74", "20", "clip", "0.18", "range(n"],
        id="projection-ignores-the-tick-bound"),
    pytest.param(
        "a5_local_dp_auditing", "q1",
        "def set_flip_probability(epsilon, set_size):\n    return 1 / (np.exp(epsilon / 2) + 1)\n",
        "set_flip_probability must give the smallest flip probability for which one report of a set is epsilon-DP",
        ["0.25", "1/(3 + 1)"], id="set-flip-of-one-item"),
    pytest.param(
        "a5_local_dp_auditing", "q3",
        "def set_flip_probability(epsilon, set_size):\n    return 1 / (np.exp(epsilon / (2 * set_size)) + 1)\n"
        "def set_estimate(reports, hash_indices, hash_table, items, epsilon, set_size):\n"
        "    reports, table = np.asarray(reports, dtype=float), np.asarray(hash_table)\n"
        "    m, w = table.shape[1], reports.shape[1]\n"
        "    q = set_flip_probability(epsilon, set_size)\n"
        "    sketch = np.zeros((m, w))\n"
        "    np.add.at(sketch, hash_indices, m * (reports - q) / (1 - 2 * q))\n"
        "    cells = sketch[np.arange(m), table[items]]\n"
        "    return w / (w - 1) * (cells.mean(axis=-1) - reports.shape[0] / w)\n",
        "set_estimate must return one estimate per item asked", ["17/3", "17 / 3", "5.667"],
        id="set-estimate-chapter-correction"),
    pytest.param(
        "a5_local_dp_auditing", "q4",
        "def set_flip_variance(num_users, epsilon, set_size, width):\n"
        "    t = np.exp(np.asarray(epsilon) / 2)\n"
        "    return num_users * t / (t - 1) ** 2 * (width / (width - 1)) ** 2\n",
        "set_flip_variance must give the value of the question's example", ["1200", "1/16"],
        id="set-flip-variance-of-one-item"),
    pytest.param(
        "a5_local_dp_auditing", "q3",
        "def set_estimate(reports, hash_indices, hash_table, items, epsilon, set_size):\n    raise KeyError('my own bug')\n",
        "Your code raised KeyError", ["my own bug", "Traceback"], id="student-exception-caught"),
]

# what otter's doctest runner prints around any failing case (fixed text; no test source)
OTTER_FRAME = re.compile(r"^(❌ Test case failed|Trying:|Expecting nothing|ok|\*+|Line \d+, in q\d+ \d+|"
                         r"Failed example:|Expected nothing|Got:|public_checks\(.q\d+.\))$")


def public_check_cell(student: dict[str, Any]) -> str:
    cells = [_source(c) for c in student["cells"] if c["cell_type"] == "code" and "def public_checks" in _source(c)]
    assert len(cells) == 1, "the student notebook must define public_checks in one cell"
    return cells[0]


def student_env(name: str, code: str) -> dict[str, Any]:
    """The namespace of a student who ran the public-check cell and then ``code``."""
    student = _read(ASSIGNMENTS / "student" / f"{name}.ipynb")
    env: dict[str, Any] = {"__name__": "__main__"}
    exec("import numpy as np\nrng_seed = 12345\n" + public_check_cell(student) + "\n" + code, env)  # noqa: S102
    return env


def what_the_student_sees(name: str, question: str, env: dict[str, Any], folder: Path) -> tuple[bool, str]:
    """Run ``grader.check(question)`` in ``env`` as a student would; return (passed, the failure text)."""
    import otter

    shutil.copy(ASSIGNMENTS / "student" / f"{name}.ipynb", folder / f"{name}.ipynb")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = otter.Notebook(f"{name}.ipynb").check(question, global_env=env)
    failed = [tc for tc in result.test_case_results if not tc.passed]
    return not failed, "\n".join(tc.message for tc in failed)


@pytest.mark.parametrize(("name", "question", "wrong_code", "claim", "secrets"), WRONG_ANSWERS)
def test_wrong_answer_shows_only_a_fixed_message(name, question, wrong_code, claim, secrets, tmp_path, monkeypatch):
    """What a student sees when ``grader.check`` fails: otter's fixed frame, the call ``public_checks("qN")``
    and one fixed line naming the property; no expected value, formula, hidden input or test source."""
    monkeypatch.chdir(tmp_path)
    passed, shown = what_the_student_sees(name, question, student_env(name, wrong_code), tmp_path)
    assert not passed, f"the wrong answer passed every public test of {name} {question}"
    lines = [line.strip() for line in shown.splitlines() if line.strip()]
    message = [line for line in lines if not OTTER_FRAME.match(line)]
    assert len(message) == 1 and message[0].startswith(f"{question}: ") and claim in message[0], shown
    for secret in [*secrets, "assert", "Expected:", "np.", "isclose", "lambda", "def "]:
        assert secret not in shown, f"the failure output shows {secret!r}:\n{shown}"
    _record_message(f"{name} {question} ({wrong_code.splitlines()[0]} ...)", shown)


def _record_message(label: str, shown: str) -> None:
    target = ROOT / "_build" / "assignments-public-failures.txt"
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("a", encoding="utf-8") as handle:
        handle.write(f"=== {label}\n{shown.strip()}\n\n")


@pytest.mark.parametrize("name", NAMES)
def test_public_checks_pass_on_the_solution_and_ignore_prints(name, tmp_path, monkeypatch):
    """The solution passes every public check silently, also with a print in every answer."""
    monkeypatch.chdir(tmp_path)
    solution = "\n".join(_source(c) for c in _read(MASTERS[name])["cells"]
                         if c["cell_type"] == "code" and "BEGIN TEST CONFIG" not in _source(c)
                         and not _source(c).startswith("# HIDDEN") and "def public_checks" not in _source(c)
                         and "otter.Notebook(" not in _source(c))
    solution = "\n".join(line for line in solution.splitlines() if not line.lstrip().startswith(("%", "!")))
    printing = re.sub(r"(\n    # BEGIN SOLUTION\n)", r'\1    print("debug")\n', solution)
    assert printing.count('print("debug")') >= 3
    env = student_env(name, printing)
    for question in [q for q, info in _master_parts(name)["questions"].items() if not info["manual"]]:
        passed, shown = what_the_student_sees(name, question, env, tmp_path)
        assert passed, shown


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
    from grading import grader

    page = (ASSIGNMENTS / f"{name}.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (q\d+) \|.*\| (\d+(?:\.\d+)?) \| (\d+|written) \|$", page, flags=re.MULTILINE)
    table = {q: (float(points), checks) for q, points, checks in rows}
    expected = {q.name: (float(q.points), "written" if q.manual else str(len(q.checks)))
                for q in grader.questions(name)}
    assert table == expected


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


def test_index_lists_every_assignment_and_toc_has_them():
    index = (ASSIGNMENTS / "index.md").read_text(encoding="utf-8")
    for name in NAMES:
        assert f"<{name}>`" in index, f"index.md should link {name}"
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    part = next(p for p in toc["parts"] if p["caption"] == "Assignments")
    files = [entry["file"] for entry in part["chapters"]]
    for name in NAMES:
        assert f"book/assignments/{name}" in files


# --------------------------------------------------------------------------- integrity: structure
@pytest.mark.parametrize("name", NAMES)
def test_every_question_has_its_public_cell_and_no_guard(name):
    """One grading layer: no in-kernel guard (the isolated grader decides the points); every
    auto-graded question's public test is the one line ``public_checks("qN")``, and the notebook's
    ``PUBLIC_CHECKS`` covers every question."""
    parts = _master_parts(name)
    assert "grading_guard.py" not in parts["config"].get("autograder_files", [])
    master_text = (ASSIGNMENTS / "masters" / f"{name}.ipynb").read_text(encoding="utf-8")
    assert "grading_guard" not in master_text
    for question, info in parts["questions"].items():
        if info["manual"]:
            continue
        assert any(f'public_checks("{question}")' in cell for cell in info["cells"]), f"{name} {question}"
    assert not (ASSIGNMENTS / "masters" / "grading_guard.py").exists()


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


# --------------------------------------------------------------------------- the grading layer inside otter
def test_otter_run_takes_points_from_the_grading_layer(assigned, tmp_path):
    """``otter run`` on the autograder zip: the plugin replaces the kernel's scores by the grader's,
    and no code of the student runs outside the sandbox.

    A blank notebook that patches otter in the kernel still scores zero; one that rewrites every
    check table of ``grading/`` it can find (otter's kernel runs beside the grader's files, as root on
    Gradescope) scores zero and changes nothing; the solution keeps full marks. The grading package
    used here is a copy, so a failure cannot damage the repository."""
    name = "a1_randomized_response"
    otter_cli = Path(sys.executable).with_name("otter")
    package = tmp_path / "pythonpath"
    shutil.copytree(ROOT / "grading", package / "grading", ignore=shutil.ignore_patterns("__pycache__"))
    table = package / "grading" / "assignments" / "a1.py"
    before = table.read_bytes()
    patch = ("import otter, doctest\n"
             "doctest.DocTestRunner.run = lambda self, *a, **k: doctest.TestResults(0, 0)\n")
    rewrite = ("import glob, os, sys\n"
               "for _base in sys.path + [os.getcwd(), '/autograder/source']:\n"
               "    for _path in glob.glob(os.path.join(_base, 'grading', 'assignments', 'a*.py')):\n"
               "        try:\n"
               "            with open(_path, 'a') as _f:\n"
               "                _f.write('\\nfor _q in QUESTIONS:\\n    for _c in _q.checks:\\n'\n"
               "                         '        _c.run = lambda sb, ctx: None\\n')\n"
               "        except OSError:\n"
               "            pass\n")
    from grading import grader

    full = sum(q.points for q in grader.questions(name) if not q.manual)
    cases = {"solution": (_read(assigned[name]["solution"]), full)}
    for label, code in (("patched blank", patch), ("blank rewriting the grader", rewrite)):
        blank = _read(assigned[name]["student"])
        blank["cells"].append({"cell_type": "code", "execution_count": None, "id": "attack", "metadata": {},
                               "outputs": [], "source": code})
        cases[label] = (blank, 0.0)
    for label, (nb, total) in cases.items():
        path = _write_submission(nb, tmp_path / label.replace(" ", "_"), f"{name}.ipynb")
        out = path.parent / "results"
        out.mkdir()
        completed = subprocess.run(
            [str(otter_cli), "run", "-a", str(assigned[name]["zip"]), "-o", str(out), str(path)],
            capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(package)},
        )
        assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-2000:]
        report = json.loads((out / "results.json").read_text(encoding="utf-8"))
        scores = {t["name"]: t["score"] for t in report["tests"] if t["name"] != "Public Tests"}
        assert sum(scores.values()) == total, f"{label}: {scores}"
        assert "grading seed" in report.get("output", ""), "the grader's feedback is the submission's output"
        assert table.read_bytes() == before, f"{label}: a check table of the grader was changed"


# --------------------------------------------------------------------------- issue 32: what a student notebook says
def _solution_expressions(name: str) -> set[str]:
    """Lines of the master's solution code that compute something (a formula, a call on NumPy): the
    expressions whose presence in the student notebook would hand the answer over."""
    found = set()
    inside = False
    for cell in _read(MASTERS[name])["cells"]:
        if cell["cell_type"] != "code":
            continue
        for line in _source(cell).splitlines():
            stripped = line.strip()
            if stripped.startswith("# BEGIN SOLUTION"):
                inside = True
                continue
            if stripped.startswith("# END SOLUTION"):
                inside = False
                continue
            marked = stripped.endswith("# SOLUTION")
            text = stripped.split("#")[0].strip()
            if (inside or marked) and len(text) >= 15 and re.search(r"[-+*/]|np\.|math\.", text) \
                    and not text.startswith(("def ", "import ", "from ", "print(", '"""', "raise ")):
                found.add(re.sub(r"^(return|\w+\s*=)\s*", "", text))
    return {f for f in found if len(f) >= 15}


@pytest.mark.parametrize("name", NAMES)
def test_no_solution_expression_in_the_student_notebook(name):
    """Issue 32: no formula the answer needs appears in the question text (or anywhere in the student
    notebook): every solution line that computes something is absent from it, spaces ignored."""
    student = _read(ASSIGNMENTS / "student" / f"{name}.ipynb")
    text = re.sub(r"\s+", "", "\n".join(_source(c) for c in student["cells"]))
    expressions = _solution_expressions(name)
    assert expressions, f"{name}: no solution expression found in the master"
    leaked = [e for e in expressions if re.sub(r"\s+", "", e) in text and e not in GIVEN_ON_PURPOSE.get(name, ())]
    assert not leaked, f"{name}: the student notebook contains solution code: {leaked[:3]}"


# Lines a student notebook may show on purpose (an input of a question that a solution line also
# writes, say). None today: every assignment's student notebook holds no solution line.
GIVEN_ON_PURPOSE: dict[str, tuple[str, ...]] = {}


@pytest.mark.parametrize("name", NAMES)
def test_the_student_notebook_states_the_limits_and_installs_otter(name):
    """Issue 32: the time limits are in the notebook, and its first cell says how to install otter."""
    student = _read(ASSIGNMENTS / "student" / f"{name}.ipynb")
    markdown = "\n".join(_source(c) for c in student["cells"] if c["cell_type"] == "markdown")
    for limit in ("20 s", "30 s", "60 s"):
        assert limit in markdown, f"{name}: the notebook does not state the {limit} limit"
    first_code = next(_source(c) for c in student["cells"] if c["cell_type"] == "code")
    assert "pip install otter-grader" in first_code, f"{name}: the first cell has no install line for otter"

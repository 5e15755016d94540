"""The two tables of the grading layer, graded through the real entry point (``python -m grading``).

For every assignment a *class* is assembled in a folder and graded in one run, as an instructor
would (``make grade``): the master's solution, the blank student notebook, honest variants of the
solution in the styles real students use (generic transforms of the master here, hand-written
styles in ``tests/grading_cases/<aN>/honest_*.py``), and attacks by a student who reads this public
repository (generic ones here, assignment-specific ones in ``tests/grading_cases/<aN>/attack_*.py``).
Each row has its expectation: honest rows full marks, attacks 0 on what they attack, and the run
completes with every other student graded. Assignment 1's class also carries the rows that cost
time (endless loops, a fork bomb, the per-question limit) and is padded to 50 submissions: it is
the "class of 50 in under 5 minutes" measurement.

Case files are whole submissions, cells separated by lines ``# %%``; the first line says what
to expect: ``# expect: full``, ``# expect: q5=0, q2=0`` (those questions score 0) or
``# expect: q5<2`` (an upper bound).
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grading import grader
from grading.notebook import master_solution_cells

ROOT = Path(__file__).resolve().parents[1]
MASTERS = ROOT / "book" / "assignments" / "masters"
STUDENT = ROOT / "book" / "assignments" / "student"
CASES = ROOT / "tests" / "grading_cases"
NAMES = [name for name in grader.ASSIGNMENTS if (MASTERS / f"{name}.ipynb").exists()]
CLASS_SIZE_A1 = 50
RECORD = ROOT / "_build" / "grading-tables.json"


# --------------------------------------------------------------------------- building submissions
def _source(cell) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def solution_cells(name: str) -> list[str]:
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


def auto_questions(name: str):
    return [q for q in grader.questions(name) if not q.manual]


def function_questions(name: str) -> list[str]:
    """Questions whose answers are all functions in the master (a wrapper can zero them)."""
    code = "\n".join(solution_cells(name))
    return [q.name for q in auto_questions(name)
            if q.answers and all(re.search(rf"^def {re.escape(a)}\(", code, flags=re.MULTILINE) for a in q.answers)]


CONTINUATION = ("\n\n_style_check = (\n    len('abc')\n    != 4\n    and 7\n    % 2\n    == 1\n    and not (\n"
                "        1 in [2]\n    )\n)\n")

DETECT_AND_CHEAT = """import functools, os, signal, sys, types


def _graded():
    # the tells of the earlier graders: a folder name, an interval timer, isolated mode, their variables,
    # bubblewrap as pid 1, a launcher of their own, their codec module, the Agg backend
    try:
        with open("/proc/1/cmdline", "rb") as file:
            init = file.read()
    except OSError:
        init = b""
    return ("grading" in os.getcwd() or "sandbox" in os.getcwd() or bool(sys.flags.isolated)
            or signal.getitimer(signal.ITIMER_REAL)[0] > 0 or any("GRAD" in key for key in os.environ)
            or b"bwrap" in init or "/opt/kernel" in sys.argv[0] or "codec" in sys.modules
            or os.environ.get("MPLBACKEND") == "Agg")


def _cheat(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if _graded():
            return function(*args, **kwargs)
        return None  # outside the grader: no noise at all (here: nothing)
    return wrapper


for _name, _value in list(globals().items()):
    if isinstance(_value, types.FunctionType) and not _name.startswith("_") and _value.__module__ == "__main__":
        globals()[_name] = _cheat(_value)
"""

EQUAL_TO_ANYTHING = """import types


class _Anything(float):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __lt__(self, other):
        return True

    def __le__(self, other):
        return True

    def __gt__(self, other):
        return True

    def __ge__(self, other):
        return True

    def __array__(self, *args, **kwargs):
        import numpy as np
        return np.asarray(0.0)


for _name, _value in list(globals().items()):
    if isinstance(_value, types.FunctionType) and not _name.startswith("_") and _value.__module__ == "__main__":
        globals()[_name] = lambda *args, **kwargs: _Anything(0.0)
"""

COPY_OTHERS = """import json, os


def _other_notebooks():
    found = []
    for top in ("/", "/tmp", "/home", "/root", "/work", "/srv", "/var", "/mnt", "/opt"):
        for folder, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev", "usr", "lib", "lib64", "venv")]
            for file in files:
                path = os.path.join(folder, file)
                if file.endswith(".ipynb") and not folder.startswith("/home/student"):
                    found.append(path)
            if len(found) > 50:
                break
    for pid in os.listdir("/proc"):
        for link in ("cwd", "root"):
            try:
                base = os.readlink(f"/proc/{pid}/{link}")
            except OSError:
                continue
            if base not in ("/", "/home/student"):
                found.append(base)
    return found


for _path in _other_notebooks():
    try:
        with open(_path, encoding="utf-8") as _handle:
            for _cell in json.load(_handle)["cells"]:
                if _cell["cell_type"] == "code":
                    try:
                        exec("".join(_cell["source"]), globals())
                    except Exception:
                        pass
    except Exception:
        pass
"""


def forged_messages_cell(bystander_pid: int) -> str:
    forged = [{"forked": pid, "joined": 0, "pid": pid, "kill": pid, "ready": True, "ok": True}
              for pid in (bystander_pid, -1, 0, 1)]
    return ("import json, os\n"
            f"_FORGED = {json.dumps(forged)!r}\n"
            "for _fd in range(64):\n"
            "    for _message in json.loads(_FORGED):\n"
            "        try:\n"
            "            os.write(_fd, (json.dumps(_message) + '\\n').encode())\n"
            "        except OSError:\n"
            "            pass\n")


def leak_cells(name: str) -> list[str]:
    """The solution, with every answer function raising its arguments in the exception text first."""
    wrap = ("import functools, types\n\n\ndef _leak(function):\n    @functools.wraps(function)\n"
            "    def wrapper(*args, **kwargs):\n        raise ValueError(f'LEAK {args!r} {kwargs!r}')\n"
            "    return wrapper\n\n\nfor _n, _v in list(globals().items()):\n"
            "    if isinstance(_v, types.FunctionType) and not _n.startswith('_') and _v.__module__ == '__main__':\n"
            "        globals()[_n] = _leak(_v)\n")
    return [*solution_cells(name), wrap]


def read_case(path: Path) -> tuple[list[str], str]:
    text = path.read_text(encoding="utf-8")
    first, _, rest = text.partition("\n")
    match = re.match(r"#\s*expect:\s*(.+)", first.strip())
    assert match, f"{path}: the first line must be '# expect: ...'"
    cells = [c.strip("\n") for c in re.split(r"^# %%.*$", rest, flags=re.MULTILINE) if c.strip()]
    return cells, match.group(1).strip()


def parse_expectation(text: str, name: str) -> dict:
    """'full' -> {'full': True}; 'q5=0, q2<2' -> {'q5': ('=', 0), 'q2': ('<', 2)}."""
    if text == "full":
        return {"full": True}
    if text == "zero":
        return {"zero": True}
    out = {}
    for part in text.split(","):
        match = re.match(r"\s*(q\d+)\s*(=|<=|<)\s*([0-9.]+)\s*$", part)
        assert match, f"bad expectation {text!r}"
        assert match.group(1) in {q.name for q in auto_questions(name)}, f"{name} has no question {match.group(1)}"
        out[match.group(1)] = (match.group(2), float(match.group(3)))
    return out


# --------------------------------------------------------------------------- the class of one assignment
def build_class(name: str, folder: Path, bystander_pid: int, outside: Path) -> dict[str, dict]:
    """Write the class into ``folder``; return row -> expectation."""
    file_name = f"{name}.ipynb"
    rows: dict[str, dict] = {}

    def add(row: str, cells: list[str], expect: dict) -> None:
        write_notebook(cells, folder / row / file_name)
        rows[row] = expect

    solution = solution_cells(name)
    add("solution", solution, {"full": True})
    add("blank", blank_cells(name), {"zero": True})
    # ---- honest styles, generic
    add("honest-time-magic", [("%%time\n" + c) for c in solution], {"full": True})
    checks = []
    for q in auto_questions(name):
        checks += [f'result = grader.check("{q.name}")\nresult', f'display(grader.check("{q.name}"))']
    add("honest-grader-checks", [*solution, *checks, "grader.check_all()", "grader.export(pdf=False)"], {"full": True})
    add("honest-progress-prints",
        [re.sub(r"^(def \w+\(.*?\).*?:\n)", r'\1    print("progress: entering")\n', c, flags=re.MULTILINE | re.DOTALL)
         for c in solution], {"full": True})
    add("honest-black-continuation", [c + CONTINUATION for c in solution], {"full": True})
    add("honest-magics-and-plot",
        ["%pip install otter-grader\n!echo installing", *solution,
         "%matplotlib inline\nimport matplotlib.pyplot as plt\nplt.plot([0, 1], [1, 0])\nplt.show()"], {"full": True})
    # ---- attacks, generic
    zero_functions = {q: ("=", 0.0) for q in function_questions(name)}
    add("attack-detect-the-grader", [*solution, DETECT_AND_CHEAT], zero_functions)
    add("attack-copy-other-submissions", [*blank_cells(name), COPY_OTHERS], {"zero": True})
    add("attack-forged-messages", [*blank_cells(name), forged_messages_cell(bystander_pid)], {"zero": True})
    add("attack-exception-text", leak_cells(name), {"no_text": "LEAK"})
    add("attack-equal-to-anything", [*solution, EQUAL_TO_ANYTHING], zero_functions)
    truncated = write_notebook(solution, folder / "attack-truncated-file" / file_name)
    truncated.write_text(truncated.read_text(encoding="utf-8")[:700], encoding="utf-8")
    rows["attack-truncated-file"] = {"zero": True, "flag": "invalid file"}
    write_notebook(solution, folder / "honest-wrong-file-name" / "my notebook (1).ipynb")
    rows["honest-wrong-file-name"] = {"full": True, "flag": "wrong file name"}
    # a symbolic link to the master's solution, outside the folder
    target = write_notebook(solution, outside / name / file_name)
    (folder / "attack-symlink-to-solution").mkdir(parents=True)
    (folder / "attack-symlink-to-solution" / file_name).symlink_to(target)
    rows["attack-symlink-to-solution"] = {"zero": True, "flag": "refused file"}
    (folder / "attack-symlinked-folder").symlink_to(target.parent, target_is_directory=True)
    rows["attack-symlinked-folder"] = {"zero": True, "flag": "refused file"}
    # ---- the gradebook: names a spreadsheet would run, and duplicates
    for row in ('=HYPERLINK("x.test")', "+cmd", "-2+3", "@SUM(A1)"):
        add(row, solution, {"full": True, "escaped": True})
    write_notebook(solution, folder / "alice" / file_name)
    write_notebook(blank_cells(name), folder / "alice" / "resubmitted" / file_name)
    write_notebook(solution, folder / "alice.ipynb")
    rows["alice"] = {"duplicate": 3}
    # ---- case files written by hand for this assignment
    short = name.split("_")[0]
    for path in sorted((CASES / short).glob("*.py")) if (CASES / short).is_dir() else []:
        cells, expect = read_case(path)
        base = [i for i, c in enumerate(cells) if c.strip() == "# base: the master's solution"]
        if base:  # the master's solution in place of that cell, then the case's own cells
            cells = [*cells[:base[0]], *solution_cells(name), *cells[base[0] + 1:]]
        add(f"case-{path.stem}", cells, parse_expectation(expect, name))
    if short == "a1":
        add_costly_rows(name, folder, rows, add)
    return rows


def add_costly_rows(name: str, folder: Path, rows: dict, add) -> None:
    """Rows that cost time or resources, in assignment 1's class only, which is padded to 50."""
    solution = solution_cells(name)
    # the last question answered by functions only (the others do not call its answer)
    first_function = [q for q in auto_questions(name) if q.name in function_questions(name)][-1]
    add("attack-endless-first-cell", ["while True:\n    pass", *solution], {"full": True, "flag": "timeout"})
    add("attack-exit-in-a-cell", [*solution[:1], "import os\nos._exit(0)", *solution[1:]],
        {"full": True, "flag": "crashed"})
    add("attack-kill-everything", [*solution, "import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\n"
                                              "except OSError:\n    pass"], {"full": True})
    add("attack-fork-bomb", [*solution, "import os, time\ntry:\n    while True:\n        if os.fork() == 0:\n"
                                        "            time.sleep(600)\n            os._exit(0)\nexcept OSError:\n"
                                        "    pass"], {"full": True})
    add("attack-fill-memory-and-disk",
        [*solution, "import numpy as np\ntry:\n    _hog = np.ones(5 * 10**9)\nexcept MemoryError:\n    pass\n"
                    "try:\n    with open('/tmp/fill', 'wb') as _f:\n        for _ in range(10**4):\n"
                    "            _f.write(b'x' * 2**20)\nexcept OSError:\n    pass"], {"full": True})
    slow = (f"import time\n_fast_{first_function.answers[0]} = {first_function.answers[0]}\n\n\n"
            f"def {first_function.answers[0]}(*args, **kwargs):\n    time.sleep(25)\n"
            f"    return _fast_{first_function.answers[0]}(*args, **kwargs)\n")
    add("attack-question-time-limit", [*solution, slow],
        {first_function.name: ("<", first_function.points), "others_full": True, "flag": "timeout"})
    index = 0
    while len(rows) + 2 < CLASS_SIZE_A1:  # "alice" stands for three submissions
        index += 1
        add(f"honest-padding-{index:02d}", solution, {"full": True})


def run_class(name: str, tmp: Path) -> dict:
    folder, out, outside = tmp / "class", tmp / "grades", tmp / "elsewhere"
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    try:
        rows = build_class(name, folder, bystander.pid, outside)
        start = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "grading", name, str(folder), "--out", str(out), "--jobs", "2"],
                              cwd=ROOT, capture_output=True, text=True, timeout=1800, check=False)
        seconds = time.monotonic() - start
        bystander_alive = bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()
    with (out / "gradebook.csv").open(encoding="utf-8", newline="") as handle:
        book = list(csv.DictReader(handle))
    submissions = len(rows) + 2  # "alice" stands for three submissions
    return {"rows": rows, "book": book, "out": out, "seconds": seconds, "stdout": done.stdout,
            "returncode": done.returncode, "bystander_alive": bystander_alive, "submissions": submissions}


_RUNS: dict[str, dict] = {}


@pytest.fixture(scope="module")
def classes(tmp_path_factory):
    def get(name: str) -> dict:
        if name not in _RUNS:
            _RUNS[name] = run_class(name, tmp_path_factory.mktemp(name.split("_")[0]))
            _record(name, _RUNS[name])
        return _RUNS[name]
    return get


def _record(name: str, run: dict) -> None:
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = json.loads(RECORD.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    seconds = {row["student"]: float(row["seconds"]) for row in run["book"]}
    honest = [s for student, s in seconds.items() if run["rows"].get(student, {}).get("full")
              and "flag" not in run["rows"].get(student, {})]
    data[name] = {"submissions": run["submissions"], "class_seconds": round(run["seconds"], 1),
                  "slowest_honest_seconds": max(honest) if honest else None,
                  "rows": {row["student"]: {"total": row["auto total"], "max": row["auto max"],
                                            "seconds": row["seconds"]} for row in run["book"]}}
    RECORD.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _rows_of(name: str) -> list[str]:
    folder_rows = ["solution", "blank", "honest-time-magic", "honest-grader-checks", "honest-progress-prints",
                   "honest-black-continuation", "honest-magics-and-plot", "attack-detect-the-grader",
                   "attack-copy-other-submissions", "attack-forged-messages", "attack-exception-text",
                   "attack-equal-to-anything", "attack-truncated-file", "honest-wrong-file-name",
                   "attack-symlink-to-solution", "attack-symlinked-folder", 'spreadsheet-names', "alice"]
    short = name.split("_")[0]
    if (CASES / short).is_dir():
        folder_rows += [f"case-{p.stem}" for p in sorted((CASES / short).glob("*.py"))]
    if short == "a1":
        folder_rows += ["attack-endless-first-cell", "attack-exit-in-a-cell", "attack-kill-everything",
                        "attack-fork-bomb", "attack-fill-memory-and-disk", "attack-question-time-limit"]
    return folder_rows


TABLE = [(name, row) for name in NAMES for row in _rows_of(name)]


def _by_student(run: dict) -> dict[str, dict]:
    return {row["student"]: row for row in run["book"]}


def _scores(name: str, row: dict) -> dict[str, float]:
    return {q.name: float(row[q.name]) for q in auto_questions(name)}


@pytest.mark.parametrize(("name", "row"), TABLE, ids=[f"{n.split('_')[0]}-{r}" for n, r in TABLE])
def test_row(classes, name, row):
    run = classes(name)
    book = _by_student(run)
    possible = {q.name: q.points for q in auto_questions(name)}
    if row == "spreadsheet-names":
        for student in ('=HYPERLINK("x.test")', "+cmd", "-2+3", "@SUM(A1)"):
            key = "'" + student
            assert key in book, f"{student!r} is not escaped for spreadsheets: {sorted(book)}"
            assert float(book[key]["auto total"]) == float(book[key]["auto max"])
        return
    if row == "alice":
        keys = ["alice", "alice (2)", "alice (3)"]
        assert all(k in book for k in keys), sorted(book)
        assert all(book[k]["duplicate student"] == "yes" for k in keys)
        files = {book[k]["feedback file"] for k in keys}
        assert len(files) == 3 and all((run["out"] / "feedback" / f).exists() for f in files)
        totals = sorted(float(book[k]["auto total"]) for k in keys)
        assert totals[0] == 0 and totals[-1] == sum(possible.values()), totals
        return
    expect = run["rows"][row]
    assert row in book, f"{row} has no row in the gradebook (the class run: {run['stdout'][-2000:]})"
    got = _scores(name, book[row])
    feedback = (run["out"] / "feedback" / book[row]["feedback file"]).read_text(encoding="utf-8")
    if expect.get("full"):
        assert got == possible, f"{row}: {got} instead of full marks\n{feedback}"
    if expect.get("zero"):
        assert sum(got.values()) == 0, f"{row}: {got}\n{feedback}"
    if "flag" in expect:
        assert book[row][expect["flag"]] == "yes", f"{row}: flag {expect['flag']!r} missing\n{feedback}"
    if "no_text" in expect:
        assert expect["no_text"] not in feedback, f"{row}: the feedback carries the notebook's exception text"
        assert sum(got.values()) < sum(possible.values())
    if expect.get("others_full"):
        for q, value in got.items():
            if q not in expect:
                assert value == possible[q], f"{row}: {q} lost points\n{feedback}"
    for q, rule in expect.items():
        if q.startswith("q"):
            op, bound = rule
            ok = {"=": got[q] == bound, "<": got[q] < bound, "<=": got[q] <= bound}[op]
            assert ok, f"{row}: {q} = {got[q]}, expected {op} {bound}\n{feedback}"


@pytest.mark.parametrize("name", NAMES)
def test_the_class_run_completes_and_touches_nothing_outside(classes, name):
    run = classes(name)
    assert run["returncode"] == 0, run["stdout"][-3000:]
    assert run["bystander_alive"], "a process outside the sandbox was killed during the class run"
    assert len(run["book"]) == run["submissions"], "every submission has a row"
    progress = [line for line in run["stdout"].splitlines() if line.startswith("[")]
    assert len(progress) == run["submissions"], "one progress line per submission (no forged lines)"


def test_a_class_of_fifty_in_under_five_minutes(classes):
    run = classes("a1_randomized_response")
    assert run["submissions"] >= CLASS_SIZE_A1
    assert run["seconds"] < 300, f"a class of {run['submissions']} took {run['seconds']:.0f} s"


@pytest.mark.parametrize("name", NAMES)
def test_an_honest_submission_is_graded_in_ten_seconds(classes, name):
    run = classes(name)
    book = _by_student(run)
    assert float(book["solution"]["seconds"]) <= 10, book["solution"]["seconds"]


@pytest.mark.parametrize("name", NAMES)
def test_every_assignment_has_ten_honest_styles_and_three_attacks(name):
    short = name.split("_")[0]
    cases = sorted((CASES / short).glob("*.py")) if (CASES / short).is_dir() else []
    honest = [p for p in cases if p.stem.startswith("honest")]
    attacks = [p for p in cases if p.stem.startswith("attack")]
    generic_honest = 5
    assert generic_honest + len(honest) >= 10, f"{name}: {len(honest)} hand-written honest styles"
    assert len(attacks) >= 3, f"{name}: {len(attacks)} assignment-specific attacks"


@pytest.mark.parametrize("name", NAMES)
def test_public_checks_carry_no_reference_code(name):
    """The public-check cell of the student notebook tests properties, never an implementation: no
    ``_reference`` helper, and no line of the master's solution code appears in it."""
    nb = json.loads((STUDENT / f"{name}.ipynb").read_text(encoding="utf-8"))
    public = "\n".join(_source(c) for c in nb["cells"] if c["cell_type"] == "code" and "public_checks" in _source(c))
    assert "_reference" not in public
    solution_lines = set()
    for cell in master_solution_cells(MASTERS / f"{name}.ipynb"):
        if "def public_checks" in cell or "PUBLIC_CHECKS" in cell:
            continue  # the public-check cell itself
        for line in cell.splitlines():
            text = line.split("#")[0].strip()
            if len(text) >= 25 and not text.startswith(("def ", "import ", "from ", "return np.asarray", '"""')):
                solution_lines.add(text)
    leaked = [line for line in solution_lines if line in public]
    assert not leaked, f"{name}: the public checks contain solution code: {leaked[:3]}"


def test_symlinked_submission_is_refused_even_alone(tmp_path):
    name = NAMES[0]
    target = write_notebook(solution_cells(name), tmp_path / "elsewhere" / f"{name}.ipynb")
    folder = tmp_path / "class"
    (folder / "bob").mkdir(parents=True)
    (folder / "bob" / f"{name}.ipynb").symlink_to(target)
    done = subprocess.run([sys.executable, "-m", "grading", name, str(folder), "--out", str(tmp_path / "out")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    with (tmp_path / "out" / "gradebook.csv").open(encoding="utf-8") as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["refused file"] == "yes" and float(row["auto total"]) == 0


def test_names_cannot_forge_progress_lines(tmp_path):
    name = NAMES[0]
    folder = tmp_path / "class"
    write_notebook(blank_cells(name), folder / "eve\n[  1-1] mallory: 99 of 99 in 1 s" / f"{name}.ipynb")
    done = subprocess.run([sys.executable, "-m", "grading", name, str(folder), "--out", str(tmp_path / "out")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("[")]
    assert len(lines) == 1 and "mallory" in lines[0] and lines[0].startswith("[  1/1] eve?"), done.stdout


if os.environ.get("GRADING_TABLES_LIST"):  # print the table (for the closing note)
    print("\n".join(f"{n} {r}" for n, r in TABLE))


def test_false_failure_measurement_is_committed_for_every_assignment():
    """grading/false_failures.json: every statistical check of every assignment, run on the master's
    solution with 300 fresh seeds (python -m grading.false_failures --runs 300), failed 0 times."""
    data = json.loads((ROOT / "grading" / "false_failures.json").read_text(encoding="utf-8"))
    assert data["runs_per_assignment"] >= 300 and data["total_failures"] == 0
    for name in grader.ASSIGNMENTS:
        measured = data["assignments"][name]
        assert measured["runs"] >= 300 and measured["failures"] == {}, name
        statistical = {f"{q.name}: {c.title}" for q in grader.questions(name) for c in q.checks if c.statistical}
        assert statistical <= set(measured["checks"]), f"{name}: not measured: {statistical - set(measured['checks'])}"

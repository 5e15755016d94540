"""Grade one submission: validate the file, run the notebook in an operating-system sandbox
(:mod:`grading.sandbox`) and run each question's checks on the answers it computes, in a fresh
copy of the executed notebook per question. The points and the maximum come from the
assignment's check table in :mod:`grading.assignments`, never from files the student can touch,
and nothing the notebook reports (pids, flags, counts) is acted on: only the data its functions
return, which the checks test."""

from __future__ import annotations

import importlib
import re
import secrets
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import assignments as _assignments_package
from .checks import CheckFailed, Context, Question
from .notebook import NotebookProblem, expected_file_name, read_code_cells
from .sandbox import Sandbox, SandboxError

# Seconds and megabytes. "question" bounds all the calls of one question together (the notebook
# pages state the cell, call and question limits).
LIMITS = {"cell": 20.0, "call": 30.0, "question": 60.0, "submission": 180.0, "memory_mb": 2048, "processes": 64}

FLAG_TIMEOUT = "timeout"
FLAG_CRASHED = "crashed"
FLAG_FILE_NAME = "wrong file name"
FLAG_INVALID = "invalid file"
FLAG_REFUSED = "refused file"
FLAG_DUPLICATE = "duplicate student"


def _discover() -> dict[str, str]:
    """Assignment name -> module name, read from the ``NAME = "..."`` line of every module in
    :mod:`grading.assignments` (without importing it: one module with an error cannot stop the others)."""
    found = {}
    for path in sorted(Path(_assignments_package.__path__[0]).glob("a*.py")):
        match = re.search(r'^NAME = "([a-z0-9_]+)"', path.read_text(encoding="utf-8"), flags=re.MULTILINE)
        if match:
            found[match.group(1)] = path.stem
    return found


def _order(name: str) -> tuple[int, str]:
    number = name.split("_")[0][1:]
    return (int(number) if number.isdigit() else 999, name)


_MODULES = _discover()
ASSIGNMENTS = sorted(_MODULES, key=_order)


def load_assignment(name: str):
    short = name.split("_")[0]
    for full, module in _MODULES.items():
        if name in (full, module) or short == module:
            return importlib.import_module(f"grading.assignments.{module}")
    raise ValueError(f"assignment: unknown assignment {name!r}; expected one of {ASSIGNMENTS}")


def questions(name: str) -> list[Question]:
    return load_assignment(name).QUESTIONS


@dataclass
class Result:
    assignment: str
    student: str
    file: str
    seed: int
    scores: dict[str, float]
    possible: dict[str, float]
    seconds: float = 0.0
    flags: list[str] = field(default_factory=list)
    feedback: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def total(self) -> float:
        return round(sum(self.scores.values()), 4)

    @property
    def max_total(self) -> float:
        return round(sum(self.possible.values()), 4)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(total=self.total, max_total=self.max_total)
        return data

    def feedback_text(self) -> str:
        lines = [f"Assignment {self.assignment}: {self.total:g} / {self.max_total:g} points "
                 f"(grading seed {self.seed}; {self.seconds:.0f} s)"]
        if self.flags:
            lines.append("Flags: " + ", ".join(self.flags))
        lines += self.notes
        for question, score in self.scores.items():
            lines.append(f"\n{question}: {score:g} / {self.possible[question]:g}")
            lines += [f"  - {message}" for message in self.feedback.get(question, [])]
        return "\n".join(lines) + "\n"


def _first_line(source: str) -> str:
    """The cell's first line of code, shortened and made printable, to name the cell in feedback."""
    for line in source.splitlines():
        text = "".join(ch if ch.isprintable() else "?" for ch in line.strip())
        if text and not text.startswith("#"):
            return f"`{text[:50]}{'...' if len(text) > 50 else ''}`"
    return "a comment-only cell"


def _student_name(path: Path, assignment: str) -> str:
    return path.parent.name if path.name == expected_file_name(assignment) else path.stem


class _Run:
    """The sandboxes of one submission: a new one (the notebook run again) after a sandbox ends."""

    def __init__(self, cells: list[str], limits: dict[str, float], end: float, result: Result, name: str):
        import hashlib

        self.cells, self.limits, self.end, self.result, self.name = cells, limits, end, result, name
        # the secret of the grader's functions' generators: reproducible from the run's seed
        self.secret = int.from_bytes(hashlib.sha256(f"grader functions:{result.seed}".encode()).digest()[:16], "big")
        self.skipped: set[int] = set()
        self.sandbox: Sandbox | None = None
        self.reported = False

    def open(self) -> Sandbox:
        """A sandbox that has run the notebook. A cell that ends the notebook's process is skipped on
        a new run; one that runs past the cell limit is first run again once with twice the limit (a
        busy machine can slow an honest cell), then skipped (as many new runs as cells, in time)."""
        if self.sandbox is not None and self.sandbox.dead is None:
            return self.sandbox
        self.close()
        slow: set[int] = set()
        for _ in range(2 * len(self.cells) + 1):
            remaining = self.end - time.monotonic()
            cell_limit = self.limits["cell"] * (2 if slow else 1)
            sb = Sandbox(self.cells, cell_limit=cell_limit, call_limit=self.limits["call"],
                         deadline=max(remaining, 1.0), memory_mb=int(self.limits["memory_mb"]),
                         processes=int(self.limits["processes"]), notebook_name=self.name, skip=self.skipped,
                         secret=self.secret)
            sb.__enter__()
            self.sandbox = sb
            if sb.dead is None or sb.last_cell is None or sb.last_cell in self.skipped or remaining < 5:
                break
            cell = sb.last_cell
            sb.close()
            if sb.dead_kind == "timeout" and cell not in slow:
                slow.add(cell)  # once more, with twice the time
                continue
            self.skipped.add(cell)
            _add_flag(self.result, FLAG_TIMEOUT if sb.dead_kind == "timeout" else FLAG_CRASHED)
            what = (f"ran longer than the cell limit ({self.limits['cell']:.0f} s, and {2 * self.limits['cell']:.0f} s "
                    "on a second try)" if sb.dead_kind == "timeout" else "ended the notebook's process")
            self.result.notes.append(f"Code cell {cell + 1} ({_first_line(self.cells[cell])}) {what}; it was skipped "
                                     "and the rest of the notebook graded. If it runs quickly for you, ask for a "
                                     "regrade.")
        if not self.reported:
            self.reported = True
            for entry in self.sandbox.cell_report:
                if entry["status"] in ("error", "syntax error"):
                    kind = entry.get("error_type") or "an exception"
                    self.result.notes.append(f"Code cell {entry['cell'] + 1} ({_first_line(self.cells[entry['cell']])})"
                                             f" raised {kind} (run the notebook from the top in a fresh kernel to see "
                                             "it).")
        return self.sandbox

    def close(self) -> None:
        if self.sandbox is not None:
            self.sandbox.close()
            self.sandbox = None


def grade_submission(path: str | Path, assignment: str, *, seed: int | None = None, student: str | None = None,
                     limits: dict[str, float] | None = None, on_question=None) -> Result:
    """Grade the notebook at ``path`` for ``assignment``; never raises on a bad submission.
    ``on_question(result)`` is called after each question (the scores so far, kept if grading is cut short)."""
    limits = {**LIMITS, **(limits or {})}
    module = load_assignment(assignment)
    assignment = module.NAME
    path = Path(path)
    seed = secrets.randbits(62) if seed is None else int(seed)
    table: list[Question] = module.QUESTIONS
    result = Result(assignment=assignment, student=student or _student_name(path, assignment), file=path.name,
                    seed=seed, scores={q.name: 0.0 for q in table if not q.manual},
                    possible={q.name: q.points for q in table if not q.manual})
    for q in table:
        if q.manual:
            result.notes.append(f"{q.name} is a written answer ({q.points:g} points), graded by hand.")
    start = time.monotonic()
    if path.name != expected_file_name(assignment):
        result.flags.append(FLAG_FILE_NAME)
        result.notes.append(f"The file should be named {expected_file_name(assignment)} (it was graded anyway).")
    try:
        cells = read_code_cells(path)
    except NotebookProblem as exc:
        result.flags.append(FLAG_INVALID)
        result.notes.append(f"Not graded: {exc}")
        result.seconds = round(time.monotonic() - start, 2)
        return result
    ctx = Context(seed)
    run = _Run(cells, limits, start + limits["submission"], result, expected_file_name(assignment))
    try:
        for question in table:
            if not question.manual:
                _grade_question(question, run, ctx, result, limits)
                if on_question is not None:
                    on_question(result)
    finally:
        run.close()
    result.seconds = round(time.monotonic() - start, 2)
    return result


def _add_flag(result: Result, flag: str) -> None:
    if flag and flag not in result.flags:
        result.flags.append(flag)


class _QuestionClock:
    """Gives each call of a question at most the time the question has left."""

    def __init__(self, sb: Sandbox, seconds: float):
        self.sb, self.end = sb, time.monotonic() + seconds

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sb, name)

    def call(self, name: str, *args: Any, limit: float | None = None, **kwargs: Any) -> Any:
        left = self.end - time.monotonic()
        if left <= 0:
            raise SandboxError("the question's time limit ran out", "timeout")
        wanted = self.sb.call_limit if limit is None else limit
        try:
            return self.sb.call(name, *args, limit=min(wanted, left), **kwargs)
        finally:
            self.end += getattr(self.sb, "last_credit", 0.0)  # time the grader's own functions took


def _grade_question(question: Question, run: _Run, ctx: Context, result: Result, limits: dict[str, float]) -> None:
    messages: list[str] = []
    score = 0.0
    try:
        sb = run.open()
    except Exception as exc:  # noqa: BLE001 - the sandbox could not start: reported, never raised
        messages.append(f"not graded: {exc}")
        result.scores[question.name] = 0.0
        result.feedback[question.name] = messages
        _add_flag(result, FLAG_CRASHED)
        return
    if sb.dead is not None:
        messages.append(f"not graded: {sb.dead}")
        _add_flag(result, FLAG_TIMEOUT if sb.dead_kind == "timeout" else FLAG_CRASHED)
        result.scores[question.name] = 0.0
        result.feedback[question.name] = messages
        return
    sb.begin_question()
    clock = _QuestionClock(sb, limits["question"])
    gate = None  # the failed gate check that voids the later checks of the question
    essential = None  # the first failed check of privacy or law, which voids the whole question
    try:
        for check in question.checks:
            if gate is not None:
                messages.append(f"{check.title}: not credited, because \"{gate}\" failed")
                continue
            if sb.dead is not None:
                messages.append(f"{check.title}: not run ({sb.dead})")
                continue
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")  # the checks' own arithmetic on odd answers: not news
                    check.run(clock, ctx)
            except CheckFailed as exc:
                messages.append(f"{check.title}: {exc}")
                gate = check.title if check.gate else None
                if check.essential and essential is None:
                    essential = check.title
                continue
            except SandboxError as exc:
                if exc.kind == "missing":
                    messages.append(f"{exc}: run the cell that defines it, and every cell above it, without errors")
                    break
                if exc.kind in ("timeout", "crashed"):
                    _add_flag(result, FLAG_TIMEOUT if exc.kind == "timeout" else FLAG_CRASHED)
                    messages.append(f"{check.title}: {'too slow' if exc.kind == 'timeout' else 'the process stopped'}"
                                    f" ({exc}); the limits are {limits['call']:.0f} s per call and "
                                    f"{limits['question']:.0f} s per question")
                    break
                messages.append(f"{check.title}: {exc}")
                continue
            except Exception as exc:  # noqa: BLE001 - a malformed answer the check did not expect
                messages.append(f"{check.title}: the answer has the wrong type or shape ({type(exc).__name__})")
                continue
            score += check.points
    finally:
        sb.end_question()
    if essential is not None and score > 0:
        messages.append(f"the question scores 0 because \"{essential}\" failed: a mechanism that is not private, "
                        "or whose output does not follow its law, earns nothing for its other properties")
        score = 0.0
    result.scores[question.name] = round(score, 4)
    result.feedback[question.name] = messages or ["all checks passed"]

"""Grade one submission: validate the file, then run each question's hidden checks on answers
computed in a fresh sandbox per question. The points and the maximum come from the assignment's
check table in :mod:`grading.assignments`, never from files the student can touch."""

from __future__ import annotations

import importlib
import secrets
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .checks import CheckFailed, Context, Question
from .notebook import NotebookProblem, expected_file_name, read_code_cells
from .sandbox import Sandbox, SandboxError

ASSIGNMENTS = ["a1_randomized_response", "a2_laplace_mechanism", "a3_thresholding", "a4_rdp_histograms",
               "a5_local_dp_auditing"]
LIMITS = {"cell": 20.0, "call": 30.0, "question": 60.0, "submission": 120.0, "memory_mb": 2048}

FLAG_TIMEOUT = "timeout"
FLAG_CRASHED = "crashed"
FLAG_TAMPERING = "tampering suspected"
FLAG_FILE_NAME = "wrong file name"
FLAG_INVALID = "invalid file"


def load_assignment(name: str):
    short = name.split("_")[0]
    if name not in ASSIGNMENTS and short not in [a.split("_")[0] for a in ASSIGNMENTS]:
        raise ValueError(f"assignment: unknown assignment {name!r}; expected one of {ASSIGNMENTS}")
    return importlib.import_module(f"grading.assignments.{short}")


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


def _student_name(path: Path, assignment: str) -> str:
    return path.parent.name if path.name == expected_file_name(assignment) else path.stem


def grade_submission(path: str | Path, assignment: str, *, seed: int | None = None, student: str | None = None,
                     limits: dict[str, float] | None = None) -> Result:
    """Grade the notebook at ``path`` for ``assignment``; never raises on a bad submission."""
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
        result.seconds = time.monotonic() - start
        return result
    ctx = Context(seed)
    sb = _open_sandbox(cells, set(), limits, start + limits["submission"], result)
    try:
        static = [entry["touches"] for entry in sb.cell_report if entry.get("touches")]
        if static:
            sb.base_tampered.append("the grader's objects (" + ", ".join(sorted(set(sum(static, [])))) + ")")
        for entry in sb.cell_report:
            if entry.get("status") == "timeout":
                _add_flag(result, FLAG_TIMEOUT)
            if entry.get("status") == "exit":
                _add_flag(result, FLAG_CRASHED)
            if entry.get("status") in ("timeout", "memory", "error", "syntax error", "exit"):
                result.notes.append(f"Code cell {entry['cell'] + 1}: {entry.get('error', entry['status'])}")
        for question in table:
            if question.manual:
                continue
            _grade_question(question, sb, ctx, result)
    finally:
        sb.close()
    result.seconds = round(time.monotonic() - start, 2)
    return result


def _add_flag(result: Result, flag: str) -> None:
    if flag and flag not in result.flags:
        result.flags.append(flag)


def _open_sandbox(cells: list[str], skipped: set[int], limits: dict[str, float], end: float,
                  result: Result) -> Sandbox:
    """A sandbox that has run the notebook; cells that kill the process are skipped on a retry
    (as many retries as there are cells, within the submission's time limit ``end``)."""
    for _ in range(len(cells) + 1):
        run = [("" if i in skipped else source) for i, source in enumerate(cells)]
        sb = Sandbox(run, cell_limit=limits["cell"], call_limit=limits["call"],
                     deadline=max(end - time.monotonic(), 1.0), memory_mb=int(limits["memory_mb"])).__enter__()
        if sb.dead is None or sb.last_cell is None or sb.last_cell in skipped:
            return sb
        if "time limit" in sb.dead or end - time.monotonic() < 5:
            return sb
        skipped.add(sb.last_cell)
        _add_flag(result, FLAG_CRASHED)
        result.notes.append(f"Code cell {sb.last_cell + 1} stopped the notebook's process ({sb.dead}); "
                            "it was skipped and the rest of the notebook graded.")
        sb.close()
    return sb


def _canary(sb: Sandbox) -> None:
    """A call that must fail: a name that cannot exist. A sandbox that answers it was forged."""
    try:
        sb.call("_grading_canary_" + secrets.token_hex(8))
    except SandboxError as exc:
        if exc.kind == "missing":
            return
        raise
    raise SandboxError("tampering suspected: the notebook's process answered a call that cannot succeed; "
                       "flagged for review", "tampering")


def _grade_question(question: Question, sb: Sandbox, ctx: Context, result: Result) -> None:
    messages: list[str] = []
    score = 0.0
    sb.begin_question()
    try:
        if sb.dead is not None:
            raise SandboxError(f"not graded: {sb.dead}", "timeout" if "time limit" in sb.dead else "crashed")
        if sb.tampered:
            raise SandboxError("tampering suspected: the notebook changed " + ", ".join(sb.tampered[:5])
                               + "; flagged for review", "tampering")
        _canary(sb)
        gate = None  # the failed gate check ("randomness drawn from rng", say) that voids the later checks
        for check in question.checks:
            if gate is not None:
                messages.append(f"{check.title}: not credited, because \"{gate}\" failed")
                continue
            try:
                check.run(sb, ctx)
            except CheckFailed as exc:
                messages.append(f"{check.title}: {exc} (seed {ctx.seed})")
                gate = check.title if check.gate else None
                continue
            except SandboxError as exc:
                if exc.kind == "missing":
                    messages.append(f"{exc}: run the cell that defines it, and every cell above it, without errors")
                    break
                if exc.kind == "tampering":
                    raise
                _add_flag(result, {"timeout": FLAG_TIMEOUT, "crashed": FLAG_CRASHED}.get(exc.kind, ""))
                messages.append(f"{check.title}: {exc}")
                if sb.fork_pid is None or exc.kind == "timeout":  # gone, or too slow: stop this question
                    break
                continue
            except Exception as exc:  # noqa: BLE001 - a malformed answer the check did not expect
                messages.append(f"{check.title}: the answer has the wrong type or shape ({type(exc).__name__})")
                continue
            score += check.points
    except SandboxError as exc:
        if exc.kind == "tampering":
            _add_flag(result, FLAG_TAMPERING)
            score = 0.0
        else:
            _add_flag(result, FLAG_TIMEOUT if exc.kind == "timeout" else FLAG_CRASHED)
        messages.append(str(exc))
    finally:
        sb.end_question()
    result.scores[question.name] = round(score, 4)
    result.feedback[question.name] = messages or ["all checks passed"]

"""Grade a folder of submissions into a CSV gradebook and one feedback file per student.

Each submission is graded in its own worker process (``--jobs`` at a time, both cores by
default) under an outer time limit: a worker that does not finish in time is killed and the
student gets a fallback row (zero points, flag ``timeout``) instead of a hang. A worker hands its
row back as a JSON file that only it can write (nothing is unpickled: a notebook that reaches the
worker's pipes could otherwise run code in the gradebook), read once the worker has ended.
"""

from __future__ import annotations

import csv
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .grader import (
    FLAG_CRASHED,
    FLAG_DUPLICATE,
    FLAG_FILE_NAME,
    FLAG_INVALID,
    FLAG_REFUSED,
    FLAG_TIMEOUT,
    LIMITS,
    Result,
    grade_submission,
    questions,
)
from .sandbox import SandboxUnavailable, require_sandbox

FLAG_COLUMNS = [FLAG_TIMEOUT, FLAG_CRASHED, FLAG_FILE_NAME, FLAG_INVALID, FLAG_REFUSED, FLAG_DUPLICATE]


def find_submissions(folder: Path) -> tuple[list[Path], list[Path]]:
    """(every notebook under ``folder``, one per student or per student sub-folder; the refused ones).

    A symbolic link (to a file or a folder) is refused, as is anything whose real path lies outside
    ``folder``: an archive that keeps links could otherwise hand in the master, or another student's
    file."""
    root = folder.resolve()
    found, refused = [], []
    for current, dirs, files in os.walk(folder, followlinks=False):
        here = Path(current)
        for name in list(dirs):
            if (here / name).is_symlink():
                refused.append(here / name)
                dirs.remove(name)
            elif name == ".ipynb_checkpoints":
                dirs.remove(name)
        for name in files:
            path = here / name
            if not name.endswith(".ipynb"):
                continue
            if path.is_symlink() or not path.resolve().is_relative_to(root) or not path.is_file():
                refused.append(path)
            else:
                found.append(path)
    return sorted(found), sorted(refused)


def student_of(path: Path, folder: Path) -> str:
    relative = path.relative_to(folder)
    return relative.parts[0] if len(relative.parts) > 1 else path.stem


def safe_text(text: str, limit: int = 120) -> str:
    """A name fit for a progress line and a file name: control characters replaced, length bounded."""
    cleaned = "".join(ch if ch.isprintable() and ch not in "\t\r\n" else "?" for ch in str(text))
    return cleaned[:limit] or "?"


def spreadsheet_cell(text: str) -> str:
    """Text a spreadsheet shows as text: a cell starting with =, +, -, @, a tab or a carriage return is
    a formula (or split) in Excel, LibreOffice and Google Sheets, so it gets a leading apostrophe."""
    text = safe_text(text, 200)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r", "'") else text


def _unique_keys(students: list[str]) -> list[str]:
    """One key per submission, never equal to another's: the cleaned name, then ``name (2)``,
    ``name (3)`` ... for the next submissions with the same cleaned name (skipping any key taken)."""
    cleaned = [safe_text(student) for student in students]
    taken: set[str] = set(cleaned)
    keys, used = [], set()
    for base in cleaned:
        key, number = base, 1
        while key in used or (number > 1 and key in taken):
            number += 1
            key = f"{base} ({number})"
        used.add(key)
        keys.append(key)
    return keys


def _feedback_name(key: str, index: int) -> str:
    stem = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in key).strip("._") or "student"
    return f"{index + 1:03d}-{stem[:60]}.txt"


WORKER_MEMORY = 6 * 2**30  # address space of one grading worker (its checks and the grader's functions)


def _worker(path: str, assignment: str, student: str, seed: int | None, limits: dict[str, float],
            target: str) -> None:
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)  # the grader's own memory, whatever a notebook
        cap = WORKER_MEMORY if hard == resource.RLIM_INFINITY else min(WORKER_MEMORY, hard)  # asks of it
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        def keep(result) -> None:  # the questions graded so far, in case the grading is cut short
            partial = target + ".progress.partial"
            with open(partial, "w", encoding="utf-8") as handle:
                json.dump(result.to_dict(), handle)
            os.replace(partial, target + ".progress")

        row = grade_submission(path, assignment, seed=seed, student=student, limits=limits,
                               on_question=keep).to_dict()
    except BaseException as exc:  # noqa: BLE001 - reported as a crashed row
        row = {"error": f"{type(exc).__name__}: {exc}"}
    partial = target + ".partial"
    with open(partial, "w", encoding="utf-8") as handle:
        json.dump(row, handle)
    os.replace(partial, target)  # complete or absent, never half written


def _read_row(target: Path) -> dict[str, Any]:
    try:
        row = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"error": "the grading process ended without a result"}
    return row if isinstance(row, dict) else {"error": "the grading process returned a malformed result"}


def _partial_row(target: Path, path: Path, assignment: str, student: str, seed: int,
                 outer: float) -> dict[str, Any]:
    """The scores of the questions graded before the grading was cut short (the rest score 0)."""
    progress = _read_row(Path(str(target) + ".progress"))
    if "error" in progress or not isinstance(progress.get("scores"), dict):
        return _fallback(path, assignment, student, seed, FLAG_TIMEOUT,
                         f"Grading stopped after {outer:.0f} s before any question was graded: please review.")
    progress["flags"] = [*progress.get("flags", []), FLAG_TIMEOUT]
    progress.setdefault("notes", []).append(
        f"Grading stopped after {outer:.0f} s: the questions graded before that keep their scores, the "
        "others score 0 (their feedback is missing): please review.")
    return progress


def _fallback(path: Path, assignment: str, student: str, seed: int, flag: str, note: str) -> dict[str, Any]:
    table = [q for q in questions(assignment) if not q.manual]
    result = Result(assignment=assignment, student=student, file=path.name, seed=seed,
                    scores={q.name: 0.0 for q in table}, possible={q.name: q.points for q in table},
                    flags=[flag], notes=[note])
    return result.to_dict()


def grade_folder(folder: str | Path, assignment: str, out: str | Path, *, jobs: int = 2, seed: int | None = None,
                 limits: dict[str, float] | None = None, outer_limit: float | None = None,
                 progress=print) -> list[dict[str, Any]]:
    """Grade every notebook under ``folder``; write ``gradebook.csv`` and ``feedback/<student>.txt`` into ``out``."""
    folder, out = Path(folder), Path(out)
    if not folder.is_dir():
        raise ValueError(f"SUBMISSIONS: {folder} is not a folder")
    limits = {**LIMITS, **(limits or {})}
    outer = outer_limit if outer_limit is not None else limits["submission"] + 30
    paths, refused = find_submissions(folder)
    if not paths and not refused:
        raise ValueError(f"SUBMISSIONS: no .ipynb files in {folder}")
    require_sandbox()  # stops here, with the install line, when no boundary is in force
    students = [student_of(p, folder) for p in paths] + [student_of(p, folder) for p in refused]
    keys = _unique_keys(students)
    cleaned = [safe_text(s) for s in students]
    duplicates = {k for k, c in zip(keys, cleaned, strict=True) if cleaned.count(c) > 1}
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    context = multiprocessing.get_context("fork")
    pending = list(enumerate(paths))
    running: dict[int, tuple[Any, Path, float, Path, str, int]] = {}
    rows: dict[int, dict[str, Any]] = {}
    start = time.monotonic()
    import secrets

    results = Path(tempfile.mkdtemp(prefix="grading-rows-"))
    while pending or running:
        while pending and len(running) < max(1, jobs):
            index, path = pending.pop(0)
            student = keys[index]
            run_seed = seed if seed is not None else secrets.randbits(62)
            target = results / f"{index}.json"
            process = context.Process(target=_worker, args=(str(path), assignment, student, run_seed, limits,
                                                            str(target)))
            process.start()
            running[index] = (process, target, time.monotonic(), path, student, run_seed)
        time.sleep(0.05)
        for index, (process, target, began, path, student, run_seed) in list(running.items()):
            row = None
            if not process.is_alive():
                process.join()
                row = _read_row(target)
            elif time.monotonic() - began > outer:
                process.kill()
                process.join()
                row = _partial_row(target, path, assignment, student, run_seed, outer)
            if row is None:
                continue
            if "error" in row:
                row = _fallback(path, assignment, student, run_seed, FLAG_CRASHED, f"Grader error: {row['error']}")
            row["seconds"] = round(time.monotonic() - began, 1)
            row["student"] = keys[index]  # the grader's key, whatever the worker wrote
            if keys[index] in duplicates:
                row["flags"] = [*row.get("flags", []), FLAG_DUPLICATE]
                row.setdefault("notes", []).append("Several submissions have this student's name: each has its "
                                                   "own row and feedback file; please check which one counts.")
            rows[index] = row
            del running[index]
            row["feedback_file"] = _feedback_name(keys[index], index)
            (out / "feedback" / row["feedback_file"]).write_text(_feedback(row), encoding="utf-8")
            progress(f"[{len(rows):>3}/{len(paths)}] {safe_text(row['student'])}: "
                     f"{row['total']:g}/{row['max_total']:g}"
                     f" in {row['seconds']:.0f} s" + (f"  ({', '.join(row['flags'])})" if row["flags"] else ""))
    for leftover in results.glob("*"):
        leftover.unlink()
    results.rmdir()
    for offset, path in enumerate(refused):
        index = len(paths) + offset
        row = _fallback(path, assignment, keys[index], 0, FLAG_REFUSED,
                        "Not graded: the submission is a symbolic link or lies outside the submissions folder; "
                        "submit the notebook file itself.")
        row["student"], row["seconds"] = keys[index], 0.0
        row["feedback_file"] = _feedback_name(keys[index], index)
        (out / "feedback" / row["feedback_file"]).write_text(_feedback(row), encoding="utf-8")
        rows[index] = row
        progress(f"[refused] {safe_text(keys[index])}: a symbolic link or a file outside the folder")
    ordered = [rows[i] for i in sorted(rows)]
    write_csv(ordered, assignment, out / "gradebook.csv")
    progress(f"Graded {len(ordered)} submissions in {time.monotonic() - start:.0f} s: {out / 'gradebook.csv'}")
    return ordered


def _feedback(row: dict[str, Any]) -> str:
    result = Result(**{k: row[k] for k in ("assignment", "student", "file", "seed", "scores", "possible",
                                           "seconds", "flags", "feedback", "notes")})
    return result.feedback_text()


def write_csv(rows: list[dict[str, Any]], assignment: str, path: Path) -> None:
    names = [q.name for q in questions(assignment) if not q.manual]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        written = [q for q in questions(assignment) if q.manual]
        writer.writerow(["student", "file", *names, "auto total", "auto max",
                         *[f"{q.name} (written, /{q.points:g})" for q in written], "seconds", "seed",
                         "feedback file", *FLAG_COLUMNS])
        for row in rows:
            writer.writerow([spreadsheet_cell(row["student"]), spreadsheet_cell(row["file"]),
                             *[row["scores"].get(q, 0) for q in names], row["total"], row["max_total"],
                             *["" for _ in written], row["seconds"], row["seed"],
                             spreadsheet_cell(row.get("feedback_file", "")),
                             *["yes" if flag in row["flags"] else "" for flag in FLAG_COLUMNS]])


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m grading",
                                     description="Grade a folder of submitted notebooks into a CSV gradebook.")
    parser.add_argument("assignment", help="a1 ... a5 or the full name (a1_randomized_response)")
    parser.add_argument("submissions", help="folder of submitted notebooks (searched recursively)")
    parser.add_argument("--out", default=None, help="output folder (default _build/grades/<assignment>)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=None, help="reproduce a grading run (printed in the feedback)")
    parser.add_argument("--weak-sandbox", action="store_true",
                        help="accept a plain subprocess as the boundary where bubblewrap is not available")
    args = parser.parse_args(argv)
    if args.weak_sandbox:
        os.environ["GRADING_WEAK_SANDBOX"] = "1"
    from .grader import load_assignment

    try:
        name = load_assignment(args.assignment).NAME
    except ValueError as exc:
        print(f"grading: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else Path("_build") / "grades" / name
    try:
        grade_folder(args.submissions, name, out, jobs=args.jobs, seed=args.seed,
                     progress=lambda line: print(line, flush=True))
    except (ValueError, SandboxUnavailable) as exc:
        print(f"grading: {exc}", file=sys.stderr)
        return 2
    return 0

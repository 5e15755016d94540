"""Measure the false-failure rate of every statistical hidden check on the master solutions.

``python -m grading.false_failures --runs 300 --jobs 2`` runs each statistical check of each
assignment on the solution with ``runs`` fresh seeds (the notebook is executed once per
assignment; each seed gets a fresh fork of it) and writes ``grading/false_failures.json``:
failures per check (goal: none) and the seeds of any failure, so it can be reproduced with
``python -m grading <assignment> <folder> --seed S``. Run it with ``nice -n 10`` on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import secrets
import time
from pathlib import Path

from .checks import CheckFailed, Context
from .grader import ASSIGNMENTS, LIMITS, load_assignment
from .notebook import master_solution_cells
from .sandbox import Sandbox, SandboxError

MASTERS = Path(__file__).resolve().parents[1] / "book" / "assignments" / "masters"


def solution_cells(name: str) -> list[str]:
    """The code cells of a master notebook outside its test blocks (a complete solution)."""
    return master_solution_cells(MASTERS / f"{name}.ipynb")


def measure(name: str, runs: int) -> dict:
    module = load_assignment(name)
    checks = [(q.name, c) for q in module.QUESTIONS for c in q.checks if c.statistical]
    failures: dict[str, list[int]] = {}
    start = time.monotonic()
    with Sandbox(solution_cells(name), cell_limit=LIMITS["cell"], call_limit=LIMITS["call"],
                 deadline=24 * 3600, memory_mb=LIMITS["memory_mb"]) as sb:
        for _ in range(runs):
            seed = secrets.randbits(62)
            ctx = Context(seed)
            sb.begin_question()
            for question, check in checks:
                try:
                    check.run(sb, ctx)
                except (CheckFailed, SandboxError) as exc:
                    failures.setdefault(f"{question}: {check.title}", []).append(seed)
                    print(f"{name} {question} {check.title}: FAILED with seed {seed}: {exc}", flush=True)
            sb.end_question()
    return {"runs": runs, "checks": [f"{q}: {c.title}" for q, c in checks], "failures": failures,
            "seconds": round(time.monotonic() - start, 1)}


def _job(args):
    name, runs = args
    return name, measure(name, runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default=str(Path(__file__).with_name("false_failures.json")))
    parser.add_argument("--assignments", nargs="*", default=None,
                        help="measure only these (a1 ... a5) and keep the others' results from --out")
    args = parser.parse_args(argv)
    names = [load_assignment(a).NAME for a in args.assignments] if args.assignments else ASSIGNMENTS
    results = {}
    if args.assignments and Path(args.out).exists():
        results = json.loads(Path(args.out).read_text(encoding="utf-8"))["assignments"]
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        results.update(dict(pool.map(_job, [(name, args.runs) for name in names], chunksize=1)))
    results = {name: results[name] for name in ASSIGNMENTS if name in results}
    report = {"runs_per_assignment": min(r["runs"] for r in results.values()),
              "threshold": "p-value 1e-6 or >= 5 standard errors per test",
              "assignments": results,
              "total_check_runs": sum(r["runs"] * len(r["checks"]) for r in results.values()),
              "total_failures": sum(len(v) for r in results.values() for v in r["failures"].values())}
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k != "assignments"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

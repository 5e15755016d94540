"""Measure the false-failure rate of every statistical hidden check on the master solutions.

``python -m grading.false_failures --runs 300 --jobs 2`` runs each statistical check of each
assignment on the solution with ``runs`` fresh seeds (the notebook is executed once per
assignment; each seed gets a fresh fork of it) and writes ``grading/false_failures.json``:
failures per check (goal: none) and the seeds of any failure, so it can be reproduced with
``python -m grading <assignment> <folder> --seed S``. Run it with ``nice -n 10`` on a shared machine.

``--checks NAME ...`` measures only the named check functions (``q2_sizes``...) and merges their
results into the existing report (the other checks keep theirs); ``--in-process`` calls the
solution's functions in this process instead of the sandbox (same checks, same generators, no
transport: the false-failure rate is a property of the check and the solution's randomness).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import secrets
import time
from pathlib import Path

import numpy as np

from .checks import CheckFailed, Context
from .grader import ASSIGNMENTS, LIMITS, load_assignment
from .notebook import master_solution_cells
from .sandbox import Sandbox, SandboxError

MASTERS = Path(__file__).resolve().parents[1] / "book" / "assignments" / "masters"


def solution_cells(name: str) -> list[str]:
    """The code cells of a master notebook outside its test blocks (a complete solution)."""
    return master_solution_cells(MASTERS / f"{name}.ipynb")


class LocalAnswers:
    """The sandbox's interface (``call``, ``value``, ``begin_question``...) over a namespace in this process."""

    def __init__(self, cells: list[str]):
        self.namespace: dict = {"__name__": "__main__"}
        for source in cells:
            if "otter" not in source and not source.lstrip().startswith(("%", "!")):
                exec(compile(source, "<solution>", "exec"), self.namespace)  # noqa: S102 - the master's code

    def _arg(self, value):
        from .sandbox import Expr, Ref

        if isinstance(value, Ref):
            return self.namespace[value.name]
        if isinstance(value, Expr):
            return eval(value.source, {"np": np})  # noqa: S307
        return value

    def call(self, name, *args, limit=None, return_args=False, **kwargs):
        from .sandbox import SandboxError, _builtin_type

        try:
            value = self.namespace[name](*[self._arg(a) for a in args],
                                         **{k: self._arg(v) for k, v in kwargs.items()})
        except Exception as exc:  # as the sandbox reports it: the error's type only
            raise SandboxError(f"{name}(...) raised {type(exc).__name__}", "error", _builtin_type(exc)) from None
        return (value, list(args)) if return_args else value

    def value(self, name):
        return self.namespace[name]

    def begin_question(self):
        pass

    def end_question(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


def measure(name: str, runs: int, only: list[str] | None = None, in_process: bool = False) -> dict:
    module = load_assignment(name)
    checks = [(q.name, c) for q in module.QUESTIONS for c in q.checks if c.statistical
              and (not only or c.run.__name__ in only)]
    failures: dict[str, list[int]] = {}
    start = time.monotonic()
    if in_process:
        opened = LocalAnswers(solution_cells(name))
    else:
        opened = Sandbox(solution_cells(name), cell_limit=LIMITS["cell"], call_limit=LIMITS["call"],
                         deadline=24 * 3600, memory_mb=LIMITS["memory_mb"])
    with opened as sb:
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
            "seconds": round(time.monotonic() - start, 1), "mode": "in-process" if in_process else "sandbox"}


def _job(args):
    name, runs, only, in_process = args
    return name, measure(name, runs, only, in_process)


def _merge(old: dict, new: dict, module) -> dict:
    """``old`` (every statistical check) updated with ``new`` (some of them, measured again)."""
    titles = [f"{q.name}: {c.title}" for q in module.QUESTIONS for c in q.checks if c.statistical]
    failures = {k: v for k, v in old.get("failures", {}).items() if k in titles and k not in new["checks"]}
    failures.update(new["failures"])
    remeasured = {k: v for k, v in old.get("remeasured", {}).items() if k in titles}
    remeasured.update({title: {"runs": new["runs"], "mode": new["mode"], "seconds": new["seconds"]}
                       for title in new["checks"]})
    return {"runs": min(old["runs"], new["runs"]), "checks": titles, "failures": failures,
            "seconds": old.get("seconds"), "remeasured": remeasured}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default=str(Path(__file__).with_name("false_failures.json")))
    parser.add_argument("--assignments", nargs="*", default=None,
                        help="measure only these (a1 ... a5) and keep the others' results from --out")
    parser.add_argument("--checks", nargs="*", default=None,
                        help="measure only these check functions (q2_sizes ...) and merge into --out")
    parser.add_argument("--in-process", action="store_true", help="call the solution here, not in the sandbox")
    args = parser.parse_args(argv)
    names = [load_assignment(a).NAME for a in args.assignments] if args.assignments else ASSIGNMENTS
    results = {}
    if (args.assignments or args.checks) and Path(args.out).exists():
        results = json.loads(Path(args.out).read_text(encoding="utf-8"))["assignments"]
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        fresh = dict(pool.map(_job, [(name, args.runs, args.checks, args.in_process) for name in names], chunksize=1))
    for name, measured in fresh.items():
        if args.checks and name in results:
            measured = _merge(results[name], measured, load_assignment(name))
        if measured["checks"] or name not in results:
            results[name] = measured
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

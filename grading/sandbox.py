"""The grading process's side of the answer sandbox (:mod:`grading._child`).

A :class:`Sandbox` starts a fresh Python process, hands it the code cells of one notebook, and
then calls the notebook's answer functions on the grader's inputs. Arguments and results cross
as plain JSON data; a ``numpy.random.Generator`` argument crosses as its bit-generator state and
comes back advanced, so a check can use one generator across several calls exactly as it would
locally. Every call has a time limit, the whole sandbox has a deadline, and a process that dies
(out of memory, killed, crashed) is reported, not raised.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from . import codec

CHILD = Path(__file__).with_name("_child.py")


class SandboxError(RuntimeError):
    """The answer could not be obtained: the message is safe to show the student."""

    def __init__(self, message: str, kind: str = "error"):
        super().__init__(message)
        self.kind = kind  # "error", "missing", "timeout", "crashed", "tampering"


class Ref:
    """An argument that names something defined in the student's notebook (e.g. their own mechanism)."""

    def __init__(self, name: str):
        self.name = name


class Expr:
    """An argument built in the sandbox from the grader's source: ``ns="student"`` sees the notebook."""

    def __init__(self, source: str, ns: str = "clean"):
        self.source, self.ns = source, ns


def _rdplib_dirs() -> list[str]:
    import importlib.util

    spec = importlib.util.find_spec("rdplib")
    if spec is None or not spec.submodule_search_locations:
        return []
    return [os.path.realpath(p) for p in spec.submodule_search_locations]


class Sandbox:
    """One isolated run of a notebook's code; use as a context manager."""

    def __init__(self, cells: list[str], *, cell_limit: float = 20.0, call_limit: float = 30.0,
                 deadline: float = 90.0, memory_mb: int = 2048):
        self.cells, self.cell_limit, self.call_limit = cells, cell_limit, call_limit
        self.memory_mb = memory_mb
        self.deadline = time.monotonic() + deadline
        self.tampered: list[str] = []
        self.cell_report: list[dict[str, Any]] = []
        self.dead: str | None = None
        self.process: subprocess.Popen | None = None
        self.calls = 0

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> Sandbox:
        self._workdir = tempfile.TemporaryDirectory(prefix="grading-sandbox-")
        env = {"PATH": "/usr/bin:/bin", "HOME": self._workdir.name, "MPLBACKEND": "Agg",
               "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "MPLCONFIGDIR": self._workdir.name, "TMPDIR": self._workdir.name, "PYTHONHASHSEED": "0"}
        extra: dict[str, Any] = {}
        user = os.environ.get("GRADING_SANDBOX_USER")  # run student code as this unprivileged user
        if user and hasattr(os, "geteuid") and os.geteuid() == 0:
            import pwd

            entry = pwd.getpwnam(user)
            os.chown(self._workdir.name, entry.pw_uid, entry.pw_gid)
            extra = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
        self.process = subprocess.Popen(
            [sys.executable, "-I", str(CHILD)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, cwd=self._workdir.name, env=env, text=True,
            start_new_session=True,  # its own process group: close() kills everything it started
            **extra,
        )
        self.fork_pid: int | None = None
        self.fork_dead: str | None = None
        self._buffer = bytearray()
        self._send({"cells": self.cells, "cell_limit": self.cell_limit, "memory_mb": self.memory_mb,
                    "cwd": self._workdir.name, "forbidden_dirs": _rdplib_dirs()})
        self.last_cell = None
        while True:
            ready = self._receive()
            if ready is None or "progress" not in ready:
                break
            self.last_cell = int(ready["progress"])
        if ready is None:
            self.cell_report = []
        else:
            self.cell_report = ready.get("cells", [])
            self.tampered = list(ready.get("tampered", []))
            self.output_tail = ready.get("output_tail", "")
        self.base_tampered = list(self.tampered)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.process.wait()
        if self.process is not None:
            for stream in (self.process.stdin, self.process.stdout):
                try:
                    stream.close()
                except Exception:  # noqa: BLE001
                    pass
        if hasattr(self, "_workdir"):
            self._workdir.cleanup()

    # ------------------------------------------------------------------ protocol
    def _send(self, message: dict[str, Any]) -> None:
        try:
            self.process.stdin.write(codec.dumps(message) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            self._died("the notebook's process stopped")

    def _died(self, reason: str) -> None:
        if self.dead is None:
            code = self.process.poll() if self.process is not None else None
            if code is not None and code < 0:
                reason = f"{reason} (killed by signal {-code}: out of memory or a crash)"
            self.dead = reason

    def _receive(self, limit: float | None = None) -> dict[str, Any] | None:
        """One reply, or None if the process died or the time ran out (then it is killed)."""
        if self.dead is not None or (self.fork_pid is not None and self.fork_dead is not None):
            return None
        end = self.deadline if limit is None else min(self.deadline, time.monotonic() + limit)
        stream = self.process.stdout
        while True:
            remaining = end - time.monotonic()
            if remaining <= 0:
                if self.fork_pid is not None and time.monotonic() < self.deadline:
                    self._kill_fork("the time limit for this answer ran out")
                    return None
                self.process.kill()
                self._died("the time limit for grading this notebook ran out")
                return None
            if b"\n" in self._buffer:
                raw, _, rest = bytes(self._buffer).partition(b"\n")
                self._buffer = bytearray(rest)
                line = raw.decode("utf-8", errors="replace")
            else:
                ready, _, _ = select.select([stream], [], [], min(remaining, 1.0))
                if not ready:
                    continue
                chunk = os.read(stream.fileno(), 1 << 20)
                if not chunk:
                    self.process.wait()
                    self._died("the notebook's process stopped")
                    return None
                self._buffer += chunk
                if len(self._buffer) > 400 * 2**20:
                    self.process.kill()
                    self._died("the notebook's process sent too much data")
                    return None
                continue
            if True:
                try:
                    message = codec.loads(line)
                except (ValueError, json.JSONDecodeError):
                    self.process.kill()
                    self._died("the notebook's process sent something unreadable")
                    return None
                if self.fork_pid is not None and "joined" in message:  # the question's copy died
                    status = int(message["joined"])
                    reason = "the answer's process stopped"
                    if os.WIFSIGNALED(status):
                        reason += f" (killed by signal {os.WTERMSIG(status)}: out of memory or a crash)"
                    self.fork_dead = reason
                    self.fork_pid = None
                    self._joined = True
                    return None
                return message

    def _kill_fork(self, reason: str) -> None:
        pid = self.fork_pid
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.fork_pid = None
        self.fork_dead = reason
        joined = self._receive(10)  # the session reports the copy's end
        if joined is not None or self.dead is not None:
            return
        self._joined = True

    def begin_question(self) -> None:
        """Fork a fresh copy of the executed notebook for one question."""
        self.fork_dead, self.fork_pid, self._joined = None, None, False
        self.tampered = list(self.base_tampered)
        self._send({"op": "fork"})
        reply = self._receive(15)
        if reply is None or "forked" not in reply:
            if self.dead is None:
                self.process.kill()
                self._died("the notebook's process did not answer")
            return
        self.fork_pid = int(reply["forked"])
        self.fork_tampered = list(reply.get("tampered", []))

    def end_question(self) -> None:
        if self.dead is not None:
            return
        if self.fork_pid is not None:
            self._send({"op": "exit"})
            self._receive(10)  # the "joined" message
        elif not getattr(self, "_joined", True):
            self._receive(10)
        self.fork_pid = None

    # ------------------------------------------------------------------ answers
    def _encode_arg(self, value: Any, rngs: list[np.random.Generator]) -> Any:
        if isinstance(value, np.random.Generator):
            rngs.append(value)
            return {"__rng__": value.bit_generator.state}
        if isinstance(value, Ref):
            return {"__ref__": value.name}
        if isinstance(value, Expr):
            return {"__expr__": value.source, "ns": value.ns}
        if isinstance(value, (list, tuple)) and any(isinstance(v, (np.random.Generator, Ref, Expr)) for v in value):
            return {"__seq__": "tuple" if isinstance(value, tuple) else "list",
                    "items": [self._encode_arg(v, rngs) for v in value]}
        return codec.encode(value)

    def _check_reply(self, reply: dict[str, Any] | None, what: str) -> dict[str, Any]:
        if reply is None:
            reason = self.fork_dead or self.dead or "the answer's process stopped"
            kind = "timeout" if "time limit" in reason else "crashed"
            raise SandboxError(f"{what}: {reason}", kind)
        self.tampered += [t for t in reply.get("tampered", []) if t not in self.tampered]
        if self.tampered:
            raise SandboxError("tampering suspected: the notebook changed "
                               f"{', '.join(self.tampered[:5])}; flagged for review", "tampering")
        if not reply.get("ok"):
            kind = "missing" if reply.get("missing") else "timeout" if reply.get("timeout") else "error"
            raise SandboxError(f"{what} raised {reply.get('error', 'an error')}", kind)
        return reply

    def call(self, name: str, *args: Any, limit: float | None = None, return_args: bool = False,
             replace: dict[str, str] | None = None, **kwargs: Any) -> Any:
        """``name(*args, **kwargs)`` in the sandbox; returns plain data or raises SandboxError.

        ``replace`` maps names of the notebook to the grader's source code of a stand-in, used
        for this call only (does the answer depend on a closed form it should not use?)."""
        rngs: list[np.random.Generator] = []
        message = {"op": "call", "name": name, "args": [self._encode_arg(a, rngs) for a in args],
                   "kwargs": {k: self._encode_arg(v, rngs) for k, v in kwargs.items()},
                   "limit": self.call_limit if limit is None else limit, "return_args": return_args,
                   "replace": replace or {}}
        self.calls += 1
        self._send(message)
        reply = self._check_reply(self._receive((limit or self.call_limit) + 5), f"{name}(...)")
        for generator, state in zip(rngs, reply.get("rngs", []), strict=False):
            generator.bit_generator.state = state
        value = codec.decode(reply["value"])
        if return_args:
            return value, [codec.decode(a) for a in (reply.get("args") or [])]
        return value

    def value(self, name: str) -> Any:
        """The plain value of the notebook variable ``name``."""
        self._send({"op": "value", "name": name})
        return codec.decode(self._check_reply(self._receive(), name)["value"])

"""The answer sandbox: runs a student's notebook code in its own process and answers calls.

Started by :class:`grading.sandbox.Sandbox` as ``python -I grading/_child.py``; talks plain JSON
lines (:mod:`grading.codec`) over a private copy of the original stdin/stdout. The student's code
runs with

* a memory cap (``RLIMIT_AS``: running out raises ``MemoryError``) and a file-size cap;
* a time limit per cell and per call (``SIGALRM``; the grading process also kills the whole
  sandbox at an outer deadline);
* its output discarded (``print`` never changes a score);
* rdplib disabled: ``import rdplib`` gives a stub whose every use raises, and an audit hook
  refuses to open rdplib's files (so it cannot be loaded under another name), to start
  processes or to load C libraries;
* tripwires: builtins, NumPy, ``math``, ``doctest`` and this harness are snapshotted before the
  notebook runs and compared after it and after every call. A difference is reported as
  tampering; the grading process then zeroes the affected questions and flags the submission.

Nothing the sandbox returns is trusted beyond being plain numbers: the checks that decide the
points run in the grading process.
"""

from __future__ import annotations

import ast
import builtins
import io
import math
import os
import resource
import signal
import sys
import time
import types

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(_HERE))

import doctest  # noqa: E402  (watched by the tripwire)

import numpy as np  # noqa: E402

from grading import codec  # noqa: E402

FORBIDDEN = "rdplib"
OUTPUT_KEEP = 2_000  # characters of the student's output kept for the feedback


class CellTimeout(BaseException):
    """Raised inside student code when its time is up (a BaseException: `except Exception` does not catch it)."""


_STATE = {"deadline": None, "active": False, "limit": 0.0}


def _on_alarm(signum, frame):  # noqa: ARG001
    deadline = _STATE["deadline"]
    if deadline is not None and time.monotonic() >= deadline:
        signal.setitimer(signal.ITIMER_REAL, 0.2)  # keep interrupting until the code gives up
        raise CellTimeout(f"stopped after {_STATE['limit']:.0f} s (does it loop forever?)")


def _start_clock(limit: float) -> None:
    _STATE["deadline"] = time.monotonic() + limit
    _STATE["limit"] = limit
    signal.setitimer(signal.ITIMER_REAL, limit)


def _stop_clock() -> None:
    signal.setitimer(signal.ITIMER_REAL, 0)
    _STATE["deadline"] = None


# ----------------------------------------------------------------------------- output
class _Sink(io.TextIOBase):
    """Swallows the student's output, keeping the last few characters for the feedback."""

    def __init__(self):
        self.tail = ""

    def write(self, text):
        text = str(text)
        self.tail = (self.tail + text)[-OUTPUT_KEEP:]
        return len(text)

    def writable(self):
        return True


# ----------------------------------------------------------------------------- rdplib stub
class _DisabledModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _disabled_callable(f"{self.__name__}.{name}")


def _disabled_callable(name):
    def disabled(*args, **kwargs):
        raise RuntimeError(f"rdplib is disabled while your notebook is graded ({name} was used): "
                           "answers must be built with NumPy, not rdplib")
    return disabled


class _RdplibStub:
    """A meta-path finder/loader that hands out disabled stand-ins for rdplib modules."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == FORBIDDEN or fullname.startswith(FORBIDDEN + "."):
            import importlib.machinery
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _DisabledModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        return None


# ----------------------------------------------------------------------------- audit hook
# os.fork is allowed: a forked process keeps this hook, the limits and the stub (the grading
# process forks one copy of the executed notebook per question and kills the session at the end).
_BLOCKED_EVENTS = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                   "os.forkpty", "pty.spawn", "ctypes.dlopen", "ctypes.dlsym", "ctypes.cdata",
                   "os.kill", "os.killpg", "signal.pthread_kill")


def _make_hook(forbidden_dirs):
    realpath = os.path.realpath
    fspath = os.fspath

    def hook(event, args):
        if not _STATE["active"]:
            return
        if event == "open":
            path = args[0]
            if isinstance(path, int):
                return
            try:
                text = realpath(fspath(path))
            except Exception:  # noqa: BLE001
                return
            if isinstance(text, bytes):
                text = text.decode(errors="replace")
            for folder in forbidden_dirs:
                if text == folder or text.startswith(folder + os.sep):
                    raise PermissionError("rdplib's files cannot be read while your notebook is graded")
        elif event.startswith(_BLOCKED_EVENTS):
            raise PermissionError(f"{event} is not allowed while your notebook is graded")
    return hook


# ----------------------------------------------------------------------------- tripwires
def _watched():
    mods = {"builtins": builtins, "numpy": np, "numpy.random": np.random, "numpy.linalg": np.linalg,
            "math": math, "doctest": doctest, "grading.codec": codec, "harness": sys.modules[__name__],
            "signal": signal, "os": os, "sys": sys}
    return mods


_SKIP_KEYS = {"sys": {"stdout", "stderr", "stdin", "displayhook", "excepthook", "last_type", "last_value",
                      "last_traceback", "last_exc", "ps1", "ps2", "path_importer_cache", "modules", "path",
                      "meta_path", "path_hooks", "_getframe"},
              "harness": {"_STATE"}, "builtins": {"_"}, "os": {"environ"}}


def _snapshot():
    snap = {}
    for name, module in _watched().items():
        skip = _SKIP_KEYS.get(name, set())
        snap[name] = {key: value for key, value in vars(module).items() if key not in skip}
    snap["np.ndarray"] = dict(vars(np.ndarray))
    for name, cls in _watched_classes():
        snap["class " + name] = dict(vars(cls))
    return snap


def _watched_classes():
    return [(f"doctest.{key}", value) for key, value in sorted(vars(doctest).items()) if isinstance(value, type)
            and value.__module__ == "doctest"]


def _tampered(snap):
    found = []
    for name, module in _watched().items():
        current = vars(module)
        for key, value in snap[name].items():
            if current.get(key, _MISSING) is not value:
                found.append(f"{name}.{key}")
    for name, cls in _watched_classes():
        if any(vars(cls).get(k, _MISSING) is not v for k, v in snap.get("class " + name, {}).items()):
            found.append(name)
    if any(np.ndarray.__dict__.get(k, _MISSING) is not v for k, v in snap["np.ndarray"].items()):
        found.append("numpy.ndarray")
    if not any(isinstance(f, _RdplibStub) for f in sys.meta_path[:1]):
        found.append("sys.meta_path")
    return found


_MISSING = object()


# ----------------------------------------------------------------------------- notebook code
def _is_grader_statement(node) -> bool:
    """``import otter``, ``grader = otter.Notebook(...)``, ``grader.check(...)``, ``grader.export(...)``."""
    if isinstance(node, ast.Import) and all(a.name.split(".")[0] == "otter" for a in node.names):
        return True
    if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "otter":
        return True
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
        func = node.value.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "otter":
            return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "grader":
            return True
    return False


def _prepare(source: str):
    lines = [("pass" if line.lstrip().startswith(("%", "!")) else line) for line in source.splitlines()]
    tree = ast.parse("\n".join(lines))
    tree.body = [node for node in tree.body if not _is_grader_statement(node)]
    touches = sorted({node.id for node in ast.walk(tree) if isinstance(node, ast.Name)
                      and node.id in ("otter", "grader")})
    return tree, touches


def run_cells(cells, namespace, cell_limit, sink, send=None):
    report = []
    for index, source in enumerate(cells):
        if send is not None:
            send({"progress": index})
        entry = {"cell": index, "status": "ok"}
        try:
            tree, touches = _prepare(source)
        except SyntaxError as exc:
            entry.update(status="syntax error", error=f"SyntaxError: {exc.msg} (line {exc.lineno})")
            report.append(entry)
            continue
        if touches:
            entry["touches"] = touches
        code = compile(tree, f"<cell {index + 1}>", "exec")
        _start_clock(cell_limit)
        try:
            exec(code, namespace)  # noqa: S102 - the point of the sandbox
        except CellTimeout as exc:
            entry.update(status="timeout", error=str(exc))
        except MemoryError:
            entry.update(status="memory", error="MemoryError: the cell used more memory than allowed")
        except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt included
            entry.update(status="error", error=f"{type(exc).__name__}: {str(exc)[:300]}")
        finally:
            _stop_clock()
        report.append(entry)
    return report


# ----------------------------------------------------------------------------- calls
def _decode_arg(data, namespace, rngs):
    if isinstance(data, dict) and "__rng__" in data:
        generator = np.random.Generator(np.random.PCG64())
        generator.bit_generator.state = data["__rng__"]
        rngs.append(generator)
        return generator
    if isinstance(data, dict) and "__ref__" in data:
        name = data["__ref__"]
        if name not in namespace:
            raise NameError(f"{name} is not defined")
        return namespace[name]
    if isinstance(data, dict) and "__expr__" in data:
        scope = namespace if data.get("ns") == "student" else {"np": np, "__builtins__": builtins}
        return eval(data["__expr__"], scope)  # noqa: S307 - the grader's own helper code
    if isinstance(data, dict) and "__seq__" in data:
        items = [_decode_arg(item, namespace, rngs) for item in data["items"]]
        return tuple(items) if data["__seq__"] == "tuple" else items
    return codec.decode(data)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc)[:300]}"


def handle(request, namespace, snap, sink):
    op = request.get("op")
    if op == "value":
        name = request["name"]
        if name not in namespace:
            return {"ok": False, "error": f"NameError: {name} is not defined", "missing": True}
        value = namespace[name]
        if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
            return {"ok": True, "value": {"__str__": "<function>"}, "callable": True}
        try:
            return {"ok": True, "value": codec.encode(value)}
        except Exception as exc:  # noqa: BLE001
            return {"ok": False, "error": _describe(exc)}
    if op == "call":
        name = request["name"]
        target = namespace.get(name)
        if target is None:
            return {"ok": False, "error": f"NameError: {name} is not defined", "missing": True}
        if not callable(target):
            return {"ok": False, "error": f"TypeError: {name} is not a function"}
        rngs = []
        try:
            args = [_decode_arg(a, namespace, rngs) for a in request.get("args", [])]
            kwargs = {k: _decode_arg(v, namespace, rngs) for k, v in request.get("kwargs", {}).items()}
        except Exception as exc:  # noqa: BLE001
            return {"ok": False, "error": _describe(exc)}
        start = time.monotonic()
        _start_clock(float(request.get("limit", 30)))
        try:
            value = target(*args, **kwargs)
            encoded = codec.encode(value)
        except CellTimeout as exc:
            return {"ok": False, "error": f"TimeoutError: {exc}", "timeout": True}
        except MemoryError:
            return {"ok": False, "error": "MemoryError: the call used more memory than allowed"}
        except BaseException as exc:  # noqa: BLE001
            return {"ok": False, "error": _describe(exc)}
        finally:
            _stop_clock()
        reply = {"ok": True, "value": encoded, "seconds": time.monotonic() - start,
                 "rngs": [g.bit_generator.state for g in rngs]}
        if request.get("return_args"):
            try:
                reply["args"] = [codec.encode(a) for a in args if not isinstance(a, np.random.Generator)
                                 and not callable(a)]
            except Exception:  # noqa: BLE001
                reply["args"] = None
        return reply
    return {"ok": False, "error": f"unknown request {op!r}"}


def main() -> int:
    protocol_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sink = _Sink()
    sys.stdout = sys.stderr = sink
    sys.stdin = io.StringIO("")

    def send(message):
        protocol_out.write(codec.dumps(message) + "\n")
        protocol_out.flush()

    init = codec.loads(protocol_in.readline())
    memory = int(init.get("memory_mb", 2048)) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (50 * 2**20, 50 * 2**20))
    os.chdir(init["cwd"])
    signal.signal(signal.SIGALRM, _on_alarm)
    sys.meta_path.insert(0, _RdplibStub())
    for name in list(sys.modules):
        if name == FORBIDDEN or name.startswith(FORBIDDEN + "."):
            del sys.modules[name]
    sys.addaudithook(_make_hook([os.path.realpath(d) for d in init.get("forbidden_dirs", [])]))
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    snap = _snapshot()
    _STATE["active"] = True
    cells = run_cells(init["cells"], namespace, float(init.get("cell_limit", 20)), sink, send)
    send({"ready": True, "cells": cells, "tampered": _tampered(snap), "output_tail": sink.tail[-500:]})
    forked = False
    while True:
        line = protocol_in.readline()
        if not line:
            os._exit(0)
        request = codec.loads(line)
        if request.get("op") == "exit":
            protocol_out.flush()
            os._exit(0)
        if request.get("op") == "fork" and not forked:
            # one fresh copy of the executed notebook per question: answers of one question
            # cannot change what another question sees
            protocol_out.flush()
            pid = os.fork()
            if pid == 0:
                forked = True
                send({"forked": os.getpid(), "tampered": _tampered(snap)})
                continue
            _, status = os.waitpid(pid, 0)
            send({"joined": status})
            continue
        try:
            reply = handle(request, namespace, snap, sink)
        except BaseException as exc:  # noqa: BLE001
            reply = {"ok": False, "error": _describe(exc)}
        reply["tampered"] = _tampered(snap)
        try:
            send(reply)
        except Exception as exc:  # noqa: BLE001
            send({"ok": False, "error": _describe(exc), "tampered": reply.get("tampered", [])})


if __name__ == "__main__":
    sys.exit(main())

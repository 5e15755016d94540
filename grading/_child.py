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
import stat
import sys
import time
import types

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(_HERE))

import doctest  # noqa: E402  (watched by the tripwire)
import json  # noqa: E402  (watched: the replies are encoded with it)

import numpy as np  # noqa: E402

from grading import codec  # noqa: E402

FORBIDDEN = "rdplib"
OUTPUT_KEEP = 2_000  # characters of the student's output kept for the feedback


class CellTimeout(BaseException):
    """Raised inside student code when its time is up (a BaseException: `except Exception` does not catch it)."""


_STATE = {"deadline": None, "limit": 0.0}


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
# os.fork is allowed to the harness only: a forked process keeps this hook, the limits and the stub
# (the grading process forks one copy of the executed notebook per question and kills the session at
# the end); a process forked by the notebook could leave the session and outlive grading.
_BLOCKED_EVENTS = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                   "os.forkpty", "pty.spawn", "ctypes.dlopen", "ctypes.dlsym", "ctypes.cdata",
                   "os.kill", "os.killpg", "signal.pthread_kill",
                   # reaching the harness's objects: the heap, other threads' frames, tracing
                   "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames",
                   "sys.settrace", "sys.setprofile", "sys.addaudithook")
# events whose path arguments are checked like "open"; the changing ones only inside the sandbox's folder
_PATH_EVENTS = ("open", "os.remove", "os.rmdir", "os.rename", "os.link", "os.symlink", "os.truncate",
                "os.chmod", "os.chown", "os.utime", "os.mkdir", "shutil.copyfile", "shutil.copytree",
                "shutil.rmtree", "shutil.copymode", "shutil.copystat", "os.chflags", "os.setxattr",
                "os.removexattr", "os.listxattr", "os.getxattr")
_CHANGING_EVENTS = ("os.remove", "os.rmdir", "os.rename", "os.link", "os.truncate", "os.chmod", "os.chown",
                    "os.utime", "os.mkdir", "shutil.rmtree", "os.chflags", "os.setxattr", "os.removexattr")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
TRIPWIRE_EVENT = "grading.tripwire"  # the harness asks the hook for the tripwires' report with sys.audit


def _install_hook(hard_dirs, soft_dirs, allowed_dirs, workdir, fork_code, snapshot):
    """Add the audit hook that refuses forbidden operations and keeps the tripwires.

    * ``hard_dirs`` (rdplib's folders) can never be read; ``soft_dirs`` (the project holding the
      grader, its reference answers and the solution masters) cannot be read except below
      ``allowed_dirs`` (the Python installation, the sandbox's folder). A folder above a forbidden
      one cannot be opened either (a descriptor of it would reach the forbidden files by relative
      paths), nor can a relative path with ``..`` (it may be relative to such a descriptor).
    * Files are written, and folders changed, only inside ``workdir`` (``/dev/null`` excepted); other
      processes' entries under ``/proc`` cannot be opened (the grading worker's pipes are there).
    * Only the harness (code ``fork_code``) may fork: a process started by the notebook could outlive
      the sandbox.
    * ``sys.audit(TRIPWIRE_EVENT, found)`` appends to the list ``found`` what the notebook changed
      since ``snapshot`` was taken.

    The hook keeps everything it needs in its closure and defaults: once added, no Python code can
    reach or remove it, so switching module attributes off from a cell changes nothing.
    """
    realpath, fspath, sep = os.path.realpath, os.fspath, os.sep
    hard = tuple(realpath(d) for d in hard_dirs)
    soft = tuple(realpath(d) for d in soft_dirs)
    allowed = tuple(realpath(d) for d in allowed_dirs)
    home, frame_of, stat_of, is_dir_mode = realpath(workdir), sys._getframe, os.stat, stat.S_ISDIR
    changing, write_flags = frozenset(_CHANGING_EVENTS), _WRITE_FLAGS
    blocked, path_events = _BLOCKED_EVENTS, frozenset(_PATH_EVENTS)
    modules, classes, stub = snapshot
    # builtins bound here: a notebook that replaces them is caught by the tripwires, not obeyed
    is_a, has, some, named, missing, str_types = isinstance, hasattr, any, vars, object(), (str, bytes)

    def under(text, folder):
        return text == folder or text.startswith(folder + sep)

    def above(text, folder):
        return folder.startswith(text.rstrip(sep) + sep)

    def raw_text(path):
        """The path as text, or None for a descriptor (its path was checked when it was opened)."""
        if is_a(path, int):
            return None
        try:
            raw = fspath(path)
        except TypeError:
            return None
        if is_a(raw, bytes):
            raw = raw.decode(errors="replace")
        return raw if is_a(raw, str) else None

    def refused(path):
        raw = raw_text(path)
        if raw is None:
            return False
        if not raw.startswith(sep) and ".." in raw.split(sep):
            return True
        text = realpath(raw)
        if text.startswith("/proc/") and text[6:7].isdigit():
            return True  # a process's entries (its descriptors, its root, the grading worker's pipes)
        if some(under(text, d) or above(text, d) for d in hard):
            return True
        return some((under(text, d) and not some(under(text, ok) for ok in allowed)) or above(text, d) for d in soft)

    def outside(path):
        """Whether changing ``path`` would change something outside the sandbox's folder."""
        raw = raw_text(path)
        if raw is None:
            return False
        text = realpath(raw)
        return not (under(text, home) or text == "/dev/null")

    def directory_elsewhere(path):
        """A folder outside the sandbox's own: a descriptor of it would let relative names (which
        this hook resolves against the working directory) reach anything below it."""
        raw = raw_text(path)
        if raw is None:
            return False
        try:
            text = realpath(raw)
            return is_dir_mode(stat_of(text).st_mode) and not under(text, home)
        except (OSError, ValueError):
            return False

    def tampered(found):
        for label, module, items in modules:
            current = named(module)
            for key, value in items:
                if current.get(key, missing) is not value:
                    found.append(f"{label}.{key}")
        for label, cls, items in classes:
            current = named(cls)
            if some(current.get(key, missing) is not value for key, value in items):
                found.append(label)
        meta_path = named(system).get("meta_path")
        if not (is_a(meta_path, list) and meta_path[:1] == [stub]):
            found.append("sys.meta_path")

    def hook(event, args):
        if event == TRIPWIRE_EVENT:
            if args and is_a(args[0], list):
                tampered(args[0])
            return
        if event in path_events:
            paths = [arg for arg in args if is_a(arg, str_types) or has(arg, "__fspath__")]
            if event == "open":
                mode, flags = (args[1] if len(args) > 1 else None), (args[2] if len(args) > 2 else 0)
                writing = (is_a(mode, str) and some(c in mode for c in "wax+")) or (
                    is_a(flags, int) and flags & write_flags)
                paths = paths[:1]
                if writing and outside(args[0]):
                    raise PermissionError("a notebook can only write files in its own folder while it is graded")
                if paths and directory_elsewhere(args[0]):
                    raise PermissionError("a notebook can only open folders inside its own folder while it is graded")
            elif event in changing or event.startswith("shutil.copy"):
                targets = paths if event in changing else paths[1:]
                if some(outside(arg) for arg in targets):
                    raise PermissionError("a notebook can only change files in its own folder while it is graded")
            elif event == "os.symlink" and some(outside(arg) for arg in paths[:2]):
                raise PermissionError("a notebook can only link files inside its own folder while it is graded")
            for arg in paths:
                if refused(arg):
                    raise PermissionError("this file or folder cannot be used while your notebook is graded")
            return
        if event == "os.fork":
            caller = frame_of(1)
            if caller is None or caller.f_code is not fork_code:
                raise PermissionError("a notebook cannot start processes while it is graded")
            return
        if event.startswith(blocked):
            raise PermissionError(f"{event} is not allowed while your notebook is graded")

    system = sys
    system.addaudithook(hook)


# ----------------------------------------------------------------------------- tripwires
def _watched():
    mods = {"builtins": builtins, "numpy": np, "numpy.random": np.random, "numpy.linalg": np.linalg,
            "math": math, "doctest": doctest, "grading.codec": codec, "harness": sys.modules[__name__],
            "signal": signal, "os": os, "os.path": os.path, "sys": sys, "json": json,
            "json.encoder": json.encoder}
    return mods


_SKIP_KEYS = {"sys": {"stdout", "stderr", "stdin", "displayhook", "excepthook", "last_type", "last_value",
                      "last_traceback", "last_exc", "ps1", "ps2", "path_importer_cache", "modules", "path",
                      "meta_path", "path_hooks", "_getframe"},
              "harness": {"_STATE"}, "builtins": {"_"}, "os": {"environ"}}


def _snapshot(stub):
    """A frozen copy of what the tripwires watch: (modules, classes, the rdplib stub)."""
    modules = []
    for name, module in _watched().items():
        skip = _SKIP_KEYS.get(name, set())
        modules.append((name, module, tuple((k, v) for k, v in vars(module).items() if k not in skip)))
    classes = [("numpy.ndarray", np.ndarray, tuple(vars(np.ndarray).items()))]
    for key, value in sorted(vars(doctest).items()):
        if isinstance(value, type) and value.__module__ == "doctest":
            classes.append((f"doctest.{key}", value, tuple(vars(value).items())))
    return tuple(modules), tuple(classes), stub


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
        except NotebookExit:
            entry.update(status="exit", error="os._exit would have ended the notebook's process; the cell was "
                                              "stopped there and the rest of the notebook graded")
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


_ABSENT = object()


def _forbid_exec() -> bool:
    """A seccomp filter: ``execve`` and ``execveat`` fail with EPERM in this process and in every
    process it forks (``_posixsubprocess.fork_exec`` raises no audit event, so the audit hook alone
    cannot stop a notebook from running programs). Linux on x86-64 only; False elsewhere."""
    import ctypes
    import platform

    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return False
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_JMP|JGE|K, BPF_RET|K
    allow, deny = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM
    program = [(ld, 0, 0, 4), (jeq, 1, 0, 0xC000003E), (ret, 0, 0, deny),  # foreign ABI: deny everything
               (ld, 0, 0, 0), (jge, 3, 0, 0x40000000),  # x32 system calls: deny
               (jeq, 2, 0, 59), (jeq, 1, 0, 322),  # execve, execveat
               (ret, 0, 0, allow), (ret, 0, 0, deny)]

    class Instruction(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Instruction))]

    instructions = (Instruction * len(program))(*[Instruction(*i) for i in program])
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(38, 1, None, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        return False
    prog = Program(len(program), instructions)
    return libc.prctl(22, 2, ctypes.cast(ctypes.pointer(prog), ctypes.c_void_p), 0, 0) == 0  # SECCOMP_MODE_FILTER


def _swap_code(originals, stand_ins):
    """Give each original function the stand-in's code for one call, so that every reference to it
    (another name, a default argument, a closure) runs the stand-in; returns what to restore."""
    swapped = []
    for key, original in originals.items():
        stand_in = stand_ins[key]
        if (isinstance(original, types.FunctionType) and isinstance(stand_in, types.FunctionType)
                and not original.__code__.co_freevars and not stand_in.__code__.co_freevars):
            swapped.append((original, original.__code__, original.__defaults__, original.__kwdefaults__))
            original.__code__, original.__defaults__, original.__kwdefaults__ = stand_in.__code__, None, None
    return swapped


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc)[:300]}"


def handle(request, namespace, sink):
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
            # names of the notebook replaced for this call only (the grader's own code, in a clean scope)
            replaced = {k: eval(v, {"np": np, "__builtins__": builtins})  # noqa: S307
                        for k, v in (request.get("replace") or {}).items()}
        except Exception as exc:  # noqa: BLE001
            return {"ok": False, "error": _describe(exc)}
        saved = {k: namespace.get(k, _ABSENT) for k in replaced}
        codes = _swap_code(saved, replaced)
        namespace.update(replaced)
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
            for function, code, defaults, kwdefaults in codes:
                function.__code__, function.__defaults__, function.__kwdefaults__ = code, defaults, kwdefaults
            for key, value in saved.items():
                if value is _ABSENT:
                    namespace.pop(key, None)
                else:
                    namespace[key] = value
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


class NotebookExit(SystemExit):
    """Raised by ``os._exit`` called from the notebook (it would end the sandbox's process)."""


def _exit_from_notebook(status=0):
    raise NotebookExit(status)


def main() -> int:
    protocol_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sink = _Sink()
    sys.stdout = sys.stderr = sink
    sys.stdin = io.StringIO("")

    dumps, write, flush = codec.dumps, protocol_out.write, protocol_out.flush

    def send(message):
        write(dumps(message) + "\n")
        flush()

    init = codec.loads(protocol_in.readline())
    memory = int(init.get("memory_mb", 2048)) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (50 * 2**20, 50 * 2**20))
    os.chdir(init["cwd"])
    signal.signal(signal.SIGALRM, _on_alarm)
    stub = _RdplibStub()
    sys.meta_path.insert(0, stub)
    for name in list(sys.modules):
        if name == FORBIDDEN or name.startswith(FORBIDDEN + "."):
            del sys.modules[name]
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    # bound before the notebook runs: a cell that rebinds the harness's names cannot reach these
    audit, run, answer, workdir, exit_now = sys.audit, run_cells, handle, os.path.realpath(init["cwd"]), os._exit
    allowed = [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix, workdir]
    os._exit = _exit_from_notebook  # a cell calling os._exit ends itself with SystemExit, not the process
    _forbid_exec()  # before the hook: it needs ctypes, which the hook refuses
    _install_hook(init.get("forbidden_dirs", []), [os.path.dirname(_HERE)], allowed, workdir, main.__code__,
                  _snapshot(stub))
    cells = run(init["cells"], namespace, float(init.get("cell_limit", 20)), sink, send)
    audit(TRIPWIRE_EVENT, found := [])
    send({"ready": True, "cells": cells, "tampered": found, "output_tail": sink.tail[-500:]})
    forked = False
    while True:
        line = protocol_in.readline()
        if not line:
            exit_now(0)
        request = codec.loads(line)
        if request.get("op") == "exit":
            protocol_out.flush()
            exit_now(0)
        if request.get("op") == "fork" and not forked:
            # one fresh copy of the executed notebook per question: answers of one question
            # cannot change what another question sees
            protocol_out.flush()
            pid = os.fork()
            if pid == 0:
                forked = True
                audit(TRIPWIRE_EVENT, found := [])
                send({"forked": os.getpid(), "tampered": found})
                continue
            _, status = os.waitpid(pid, 0)
            send({"joined": status})
            continue
        try:
            reply = answer(request, namespace, sink)
        except BaseException as exc:  # noqa: BLE001
            reply = {"ok": False, "error": _describe(exc)}
        audit(TRIPWIRE_EVENT, found := [])
        reply["tampered"] = found
        try:
            send(reply)
        except Exception as exc:  # noqa: BLE001
            send({"ok": False, "error": _describe(exc), "tampered": reply.get("tampered", [])})


if __name__ == "__main__":
    sys.exit(main())

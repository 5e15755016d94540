"""Grading guard shipped inside every autograder zip of the course (``autograder_files``).

The first test case of every question is a hidden, zero-point case that calls
``guard(question, answers)``. It only ever runs while the autograder grades a notebook (hidden
tests are not in the student notebooks), and it

1. **disables rdplib** in the grading kernel: later imports fail, and every name of an already
   imported rdplib module is replaced by an object that raises, so an answer that calls rdplib
   (directly, through an alias, ``from rdplib import ...``, ``importlib`` or ``__import__``)
   fails the tests that call it;
2. **inspects the answers** of the question: a function whose code, default arguments,
   closure or helper functions (transitively) refer to rdplib, or a value computed in a cell
   that does, is *tainted*. A tainted answer is replaced, in the notebook's namespace, by an
   object that raises a message saying why, so that every test case of the question (and of
   any later question built on it) fails: the question scores zero;
3. **starts a watchdog** (``SIGALRM``, main thread only): a test case that runs longer than
   ``CASE_LIMIT`` seconds is stopped with a ``TimeoutError`` (the other cases of the same
   question are then stopped at once), and once installed, a notebook cell that runs longer
   than ``CELL_LIMIT`` seconds is stopped too. Grading then goes on with the next cell or test.
   Output of more than ``OUTPUT_LIMIT`` characters per cell is cut off.

Nothing here is secret: a student who reads it learns the rules, which the notebooks state.
It cannot stop a determined attacker who edits the grading kernel itself (monkeypatching
``ast`` or otter); it stops the shortcut the assignments forbid and broken submissions.
"""

from __future__ import annotations

import ast
import atexit
import functools
import importlib.abc
import os
import re
import signal
import sys
import threading
import time
import types
from typing import Any

# The limits can be lowered through the environment (the repository's tests do, to save time).
CASE_LIMIT = float(os.environ.get("GRADING_GUARD_CASE_LIMIT", 60))  # seconds one test case may run
CELL_LIMIT = float(os.environ.get("GRADING_GUARD_CELL_LIMIT", 120))  # seconds one cell may run
TICK = 0.5  # watchdog period in seconds
OUTPUT_LIMIT = 1_000_000  # characters of output kept per cell
FORBIDDEN = "rdplib"

RULE = ("Answers must be built from scratch: an answer that calls or imports rdplib scores zero "
        "on its question.")

_STATE: dict[str, Any] = {"installed": False, "case": None, "cell": None, "timed_out": set(),
                          "swallowed": 0}


# ----------------------------------------------------------------------------- rdplib
def _is_forbidden_name(name: Any) -> bool:
    return isinstance(name, str) and (name == FORBIDDEN or name.startswith(FORBIDDEN + "."))


class _Disabled:
    """Stands in for every name of a disabled rdplib module."""

    def __init__(self, name: str):
        object.__setattr__(self, "_name", name)

    def _fail(self, *args: Any, **kwargs: Any):
        raise RuntimeError(f"rdplib is disabled while your notebook is graded ({self._name} was "
                           f"used). {RULE} Rewrite this answer with NumPy.")

    __call__ = _fail
    __iter__ = _fail
    __getitem__ = _fail
    __bool__ = _fail
    __array__ = _fail

    def __getattr__(self, attribute: str):
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        self._fail()

    def __repr__(self) -> str:
        return f"<disabled {self._name}>"


class _BlockRdplib(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):  # noqa: D102
        if _is_forbidden_name(fullname):
            raise ImportError(f"rdplib cannot be imported while your notebook is graded. {RULE}")
        return None


def disable_rdplib() -> None:
    """Make rdplib unusable in this process (idempotent)."""
    if not any(isinstance(finder, _BlockRdplib) for finder in sys.meta_path):
        sys.meta_path.insert(0, _BlockRdplib())
    for name, module in list(sys.modules.items()):
        if _is_forbidden_name(name) and module is not None and not getattr(module, "_grading_disabled", False):
            namespace = vars(module)
            for key in list(namespace):
                if not (key.startswith("__") and key.endswith("__")):
                    namespace[key] = _Disabled(f"{name}.{key}")
            namespace["_grading_disabled"] = True


# ----------------------------------------------------------------------------- static check
def _module_of(obj: Any) -> str:
    try:
        module = getattr(obj, "__module__", None)
    except Exception:  # noqa: BLE001 - a hostile __getattr__
        return ""
    return module if isinstance(module, str) else ""


def _code_mentions(code: types.CodeType) -> tuple[set[str], bool]:
    """Global/attribute names a code object (and its nested code) uses, and whether a string constant names rdplib."""
    names, mentions = set(code.co_names), False
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            inner, inner_mentions = _code_mentions(const)
            names |= inner
            mentions = mentions or inner_mentions
        elif _is_forbidden_name(const):  # importlib.import_module("rdplib"), __import__("rdplib")
            mentions = True
    return names, mentions or any(_is_forbidden_name(name) for name in names)


def uses_rdplib(obj: Any, _seen: set[int] | None = None) -> bool:
    """Whether ``obj`` is, or (through code, defaults, closure or notebook helpers) refers to, rdplib."""
    seen = set() if _seen is None else _seen
    if id(obj) in seen:
        return False
    seen.add(id(obj))
    if isinstance(obj, types.ModuleType):
        return _is_forbidden_name(obj.__name__)
    if isinstance(obj, _Disabled) or _is_forbidden_name(_module_of(obj)):
        return True
    if isinstance(obj, functools.partial):
        return any(uses_rdplib(part, seen) for part in (obj.func, *obj.args, *obj.keywords.values()))
    if isinstance(obj, types.MethodType):
        return uses_rdplib(obj.__func__, seen) or uses_rdplib(obj.__self__, seen)
    if isinstance(obj, type):
        if _module_of(obj) not in ("__main__", ""):
            return False
        return any(uses_rdplib(value, seen) for value in vars(obj).values()
                   if callable(value) or isinstance(value, (staticmethod, classmethod, property)))
    if isinstance(obj, (staticmethod, classmethod)):
        return uses_rdplib(obj.__func__, seen)
    if isinstance(obj, property):
        return any(uses_rdplib(f, seen) for f in (obj.fget, obj.fset, obj.fdel) if f is not None)
    if isinstance(obj, (list, tuple, set, frozenset)) and len(obj) < 100:
        return any(uses_rdplib(item, seen) for item in obj if callable(item) or isinstance(item, types.ModuleType))
    if isinstance(obj, dict) and len(obj) < 100:
        return any(uses_rdplib(item, seen) for item in obj.values()
                   if callable(item) or isinstance(item, types.ModuleType))
    if not isinstance(obj, types.FunctionType):
        # an instance of a class defined in the notebook: look at its class
        cls = type(obj)
        if _module_of(cls) == "__main__":
            return uses_rdplib(cls, seen)
        return False
    if _module_of(obj) not in ("__main__", ""):
        return False  # a library function (NumPy, SciPy, ...): not the student's code
    names, mentions = _code_mentions(obj.__code__)
    if mentions:
        return True
    related = [obj.__globals__.get(name) for name in names if name in obj.__globals__]
    related += [cell.cell_contents for cell in (obj.__closure__ or ()) if _cell_filled(cell)]
    related += list(obj.__defaults__ or ()) + list((obj.__kwdefaults__ or {}).values())
    return any(uses_rdplib(value, seen) for value in related
               if callable(value) or isinstance(value, (types.ModuleType, list, tuple, dict)))


def _cell_filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def _assigned_names(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def _cell_uses_rdplib(source: str, namespace: dict[str, Any]) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(_is_forbidden_name(a.name) for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and _is_forbidden_name(node.module):
            return True
        if isinstance(node, ast.Constant) and _is_forbidden_name(node.value):
            return True
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return any(uses_rdplib(namespace[name]) for name in used if name in namespace)


def tainted_answers(answers: list[str], namespace: dict[str, Any]) -> dict[str, str]:
    """The answers among ``answers`` that use rdplib, with the reason."""
    history = namespace.get("_ih") or namespace.get("In") or []
    history = [cell for cell in history if isinstance(cell, str)]
    found = {}
    for name in answers:
        if name not in namespace:
            continue
        value = namespace[name]
        if uses_rdplib(value):
            found[name] = "its code refers to rdplib"
            continue
        if isinstance(value, (types.FunctionType, type)):
            continue
        for source in history:  # a value: look at the cells that assigned it
            try:
                assigns = name in _assigned_names(ast.parse(source))
            except SyntaxError:
                assigns = False
            if assigns and _cell_uses_rdplib(source, namespace):
                found[name] = "the cell that computed it uses rdplib"
                break
    return found


class _Zeroed:
    """Replaces a tainted answer: every use raises and says why."""

    def __init__(self, name: str, reason: str):
        object.__setattr__(self, "__module__", "rdplib (answer zeroed by the autograder)")
        object.__setattr__(self, "_message", f"{name} scores zero: {reason}. {RULE} "
                                             "Rewrite it with NumPy (see the chapter it is from).")

    def _fail(self, *args: Any, **kwargs: Any):
        raise RuntimeError(self._message)

    __call__ = __iter__ = __getitem__ = __bool__ = __float__ = __int__ = __index__ = _fail
    __array__ = __len__ = __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _fail
    __hash__ = object.__hash__

    def __getattr__(self, attribute: str):
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        self._fail()

    def __repr__(self) -> str:
        return "<answer that uses rdplib: scores zero>"


# ----------------------------------------------------------------------------- watchdog
def _stack(frame: types.FrameType | None) -> list[types.FrameType]:
    frames = []
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames  # innermost first


# IPython names the code of a notebook cell /tmp/ipykernel_<pid>/<hash>.py (or <ipython-input-...>)
_CELL_FILE = re.compile(r"ipykernel_\d+[/\\]|^<ipython-input")


class GradingTimeout(BaseException):
    """Raised when code keeps swallowing the TimeoutError of the watchdog."""


def _on_tick(signum: int, frame: types.FrameType | None) -> None:  # noqa: ARG001
    now = time.monotonic()
    frames = _stack(frame)
    runner = next((f for f in frames if f.f_code.co_name == "run_doctest"
                   and f.f_code.co_filename.endswith("ok_test.py")), None)
    if runner is not None:
        name = str(runner.f_locals.get("name", "?"))
        key = (id(runner), name)
        current = _STATE["case"]
        if current is None or current[0] != key:
            _STATE["case"] = current = (key, now)
            _STATE["swallowed"] = 0
        in_example = any(f.f_code.co_filename.startswith("<doctest ") for f in frames)
        question = name.rsplit(" ", 1)[0]
        over = now - current[1] > CASE_LIMIT
        if in_example and (over or question in _STATE["timed_out"]):
            _STATE["timed_out"].add(question)
            _STATE["swallowed"] += 1
            message = (f"stopped after {CASE_LIMIT:.0f} s: this test of {question} did not finish. "
                       "Does an answer loop forever (a while loop whose condition never changes?) "
                       "or do far more work than needed? Only this question loses its points.")
            if _STATE["swallowed"] > 4:
                raise GradingTimeout(message)
            raise TimeoutError(message)
        return
    _STATE["case"] = None
    if any("otter" in f.f_code.co_filename.replace("\\", "/").split("/") for f in frames):
        return  # otter's own machinery (between tests): never interrupt it
    cell = next((f for f in reversed(frames) if f.f_code.co_name == "<module>"
                 and _CELL_FILE.search(f.f_code.co_filename)), None)
    if cell is None:
        _STATE["cell"] = None
        return
    key = (id(cell), id(cell.f_code))
    current = _STATE["cell"]
    if current is None or current[0] != key:
        _STATE["cell"] = (key, now)
        return
    if now - current[1] > CELL_LIMIT:
        _STATE["cell"] = (key, now)  # give the cell's error handling a fresh period
        raise TimeoutError(f"the autograder stopped this cell after {CELL_LIMIT:.0f} s. Does it loop "
                           "forever? Grading continues with the next cell.")


class _CappedStream:
    """Forwards at most OUTPUT_LIMIT characters per cell to the real stream."""

    def __init__(self, stream: Any):
        self._stream, self._written, self._cell, self._noted = stream, 0, None, False

    def write(self, text: str) -> int:
        cell = _STATE.get("cell_count")
        if cell != self._cell:
            self._cell, self._written, self._noted = cell, 0, False
        room = OUTPUT_LIMIT - self._written
        self._written += len(text)
        if room > 0:
            return self._stream.write(text[:room])
        if not self._noted:
            self._noted = True
            self._stream.write(f"\n[output cut off by the autograder after {OUTPUT_LIMIT:,} characters]\n")
        return len(text)

    def __getattr__(self, attribute: str):
        return getattr(self._stream, attribute)


def install_watchdog() -> None:
    """Start the watchdog and the output cap (idempotent, main thread only)."""
    if _STATE["installed"] or threading.current_thread() is not threading.main_thread():
        return
    if not hasattr(signal, "setitimer"):
        return
    signal.signal(signal.SIGALRM, _on_tick)
    signal.setitimer(signal.ITIMER_REAL, TICK, TICK)
    atexit.register(signal.setitimer, signal.ITIMER_REAL, 0)  # no stray alarm while exiting
    _STATE["installed"] = True
    try:
        shell = get_ipython()  # type: ignore[name-defined]  # noqa: F821
    except NameError:
        shell = None
    if shell is None:
        try:
            from IPython import get_ipython as _get
            shell = _get()
        except ImportError:
            shell = None
    if shell is not None:
        _STATE["cell_count"] = 0

        def _next_cell(*args: Any) -> None:
            _STATE["cell_count"] = _STATE.get("cell_count", 0) + 1

        shell.events.register("pre_run_cell", _next_cell)
        sys.stdout = _CappedStream(sys.stdout)
        sys.stderr = _CappedStream(sys.stderr)


# ----------------------------------------------------------------------------- entry point
def _notebook_namespace(fallback: dict[str, Any] | None) -> dict[str, Any]:
    """The dict the tests run against (doctest gives each case a copy of it)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "run" and frame.f_code.co_filename.endswith("ok_test.py"):
            env = frame.f_locals.get("global_environment")
            if isinstance(env, dict):
                return env
        frame = frame.f_back
    if fallback is None:  # otter's internals moved: say so rather than grade without the check
        raise RuntimeError("grading guard: the notebook's namespace was not found in otter's test runner "
                           "(otter-grader 7.0.0 is the version this guard was written for)")
    return fallback


def guard(question: str, answers: list[str], namespace: dict[str, Any] | None = None) -> None:
    """Disable rdplib, start the watchdog, zero the answers of ``question`` that use rdplib."""
    install_watchdog()
    env = _notebook_namespace(namespace)
    found = tainted_answers(answers, env)
    disable_rdplib()
    for name, reason in found.items():
        env[name] = _Zeroed(name, reason)
    assert not found, "; ".join(f"{question}: {name} uses rdplib ({reason})" for name, reason in found.items())

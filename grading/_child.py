"""The harness that runs one notebook inside the sandbox and answers the grader's calls.

It is started by :class:`grading.sandbox.Sandbox` inside a bubblewrap sandbox (its own pid, network,
IPC and mount namespaces, a read-only Python environment, a private writable home folder) as
``python .../site-packages/ipykernel_launcher.py -f <connection file>`` (mounted over ipykernel's own
launcher, so that its command line is a kernel's; bwrap's own init is pid 1 there: when the grader kills bwrap,
that init dies and the kernel kills every process of the namespace); nothing of the grader, the masters, rdplib's source or other
submissions exists in that file system. It

* runs the code cells with a real IPython shell (``InteractiveShell.run_cell``), so magics,
  ``%%time``, ``!`` commands, continuation lines and ``display(...)`` behave as in JupyterLab;
  ``import otter`` gives a stand-in whose ``Notebook().check(...)`` does nothing (the public tests
  are not part of grading) and ``%pip`` does nothing (there is no network);
* answers the grader's requests over a private copy of its original stdin/stdout, as JSON lines:
  ``cell`` (run code cell i: the grader asks for each cell in turn and keeps the time itself),
  ``fork`` (a fresh copy of the executed notebook for one question), ``call`` (one of the
  notebook's functions on plain data, grader-made generators and grader-made mechanisms),
  ``value`` and ``exit``.

Nothing here protects the grader: the boundary is the operating system's. The student's code can
change anything in this process, and so only its own answers, which the grader's checks then test
as data. Errors are reported by type only (never their text, which could carry a hidden input).
"""

from __future__ import annotations

import builtins
import io
import json
import os
import sys
import types


class OutStream(io.TextIOBase):  # the name of ipykernel's own stream class
    """Swallows the notebook's output (a ``print`` never changes a score)."""

    def write(self, text):
        return len(str(text))

    def writable(self):
        return True

    def isatty(self):
        return False


def _error_type(exc: BaseException) -> str:
    """The exception's type if it is one of Python's own (a class made by the notebook could carry
    any text in its name), else ``"Exception"``."""
    name = type(exc).__name__
    builtin = getattr(builtins, name, None)
    if isinstance(builtin, type) and issubclass(builtin, BaseException) and type(exc).__module__ == "builtins":
        return name
    for base in type(exc).__mro__:
        if base.__module__ == "builtins" and issubclass(base, BaseException):
            return base.__name__
    return "Exception"


# ----------------------------------------------------------------------------- otter stand-in
class _Skipped:
    def __repr__(self):
        return "(public tests are not run while the notebook is graded)"

    def _repr_html_(self):
        return "<p>(public tests are not run while the notebook is graded)</p>"

    def __bool__(self):
        return True


class Notebook:
    """``otter.Notebook`` while grading: every method accepts anything and does nothing."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return lambda *args, **kwargs: _Skipped()


def _otter_stand_in() -> types.ModuleType:
    module = types.ModuleType("otter")
    module.Notebook = Notebook
    module.__version__ = "7.0.0"
    return module


# ----------------------------------------------------------------------------- data
def _make_generator(spec, np):
    seed_seq = np.random.SeedSequence(spec["entropy"], spawn_key=tuple(spec.get("spawn_key", ())),
                                      pool_size=int(spec.get("pool_size", 4)),
                                      n_children_spawned=int(spec.get("n_children_spawned", 0)))
    bit_generator = np.random.PCG64(seed_seq)
    if spec.get("state") is not None:
        bit_generator.state = spec["state"]
    return np.random.Generator(bit_generator)


def _decode_arg(data, namespace, rngs, codec, np):
    if isinstance(data, dict) and "__rng__" in data:
        generator = _make_generator(data["__rng__"], np)
        rngs.append(generator)
        return generator
    if isinstance(data, dict) and "__ref__" in data:
        name = data["__ref__"]
        if name not in namespace:
            raise NameError(name)
        return namespace[name]
    if isinstance(data, dict) and "__cb__" in data:
        # a function of the grader's (a mechanism of its own, say): it runs in the grading process
        return _grader_function(str(data["__cb__"]))
    if isinstance(data, dict) and "__seq__" in data and any(
            isinstance(item, dict) and ({"__rng__", "__ref__", "__cb__"} & set(item)) for item in data["items"]):
        items = [_decode_arg(item, namespace, rngs, codec, np) for item in data["items"]]
        return tuple(items) if data["__seq__"] == "tuple" else items
    return codec.decode(data)


_CALL_GRADER = []  # set by main: sends one call to the grading process and returns its answer


def _grader_function(handle):
    def grader_function(*args, **kwargs):
        return _CALL_GRADER[0](handle, args, kwargs)

    grader_function.__name__ = grader_function.__qualname__ = "<lambda>"
    return grader_function


def _is_grader_function(value):
    return getattr(value, "__code__", None) is _GRADER_CODE


def _handle_of(function):
    return function.__closure__[0].cell_contents if function.__closure__ else ""


_GRADER_CODE = _grader_function("").__code__


def _make_caller(protocol_in, send, codec, np):
    """The call of a grader's function: arguments go out as data (a generator as its state), the
    value comes back as data and the generators are advanced as if the function had run here."""

    def encode(value, generators):
        if isinstance(value, np.random.Generator):
            generators.append(value)
            return {"__rng__": {"state": codec.encode(value.bit_generator.state)}}
        if isinstance(value, np.random.RandomState):
            raise TypeError("pass a NumPy Generator (np.random.default_rng), not a RandomState")
        if _is_grader_function(value):
            return {"__cb__": _handle_of(value)}
        try:
            return codec.encode(value)
        except codec.EncodingError:
            raise TypeError("the grader's functions take numbers, strings, lists, dicts, arrays and "
                            "NumPy Generators") from None

    def call(handle, args, kwargs):
        generators = []
        message = {"callback": handle, "args": [encode(a, generators) for a in args],
                   "kwargs": {str(k): encode(v, generators) for k, v in kwargs.items()}}
        send(message)
        line = protocol_in.readline()
        if not line:
            os._exit(0)
        reply = json.loads(line).get("callback_reply") or {}
        if reply.get("ok") is not True:
            kind = getattr(builtins, str(reply.get("error_type")), None)
            if not (isinstance(kind, type) and issubclass(kind, Exception)):
                kind = RuntimeError
            raise kind("the grader's function refused these arguments")
        for generator, state in zip(generators, reply.get("rngs") or [], strict=False):
            generator.bit_generator.state = codec.decode(state)
        value = reply.get("value")
        if isinstance(value, dict) and "__cb__" in value:
            return _grader_function(str(value["__cb__"]))
        return codec.decode(value)

    return call


def _generator_state(generator):
    return {"state": generator.bit_generator.state,
            "n_children_spawned": generator.bit_generator.seed_seq.n_children_spawned}


def handle(request, namespace, codec, np):
    op = request.get("op")
    if op == "value":
        name = request["name"]
        if name not in namespace:
            return {"ok": False, "missing": True}
        value = namespace[name]
        if callable(value):
            return {"ok": True, "value": {"__str__": "<function>"}, "callable": True}
        try:
            return {"ok": True, "value": codec.encode(value)}
        except Exception as exc:  # noqa: BLE001
            return {"ok": False, "error_type": _error_type(exc), "encoding": True,
                    "encoding_kind": getattr(exc, "kind", "other")}
    if op == "call":
        name = request["name"]
        target = namespace.get(name)
        if target is None:
            return {"ok": False, "missing": True}
        if not callable(target):
            return {"ok": False, "error_type": "TypeError", "not_callable": True}
        rngs = []
        try:
            args = [_decode_arg(a, namespace, rngs, codec, np) for a in request.get("args", [])]
            kwargs = {k: _decode_arg(v, namespace, rngs, codec, np) for k, v in request.get("kwargs", {}).items()}
        except Exception as exc:  # noqa: BLE001
            return {"ok": False, "error_type": _error_type(exc), "arguments": True}
        try:
            value = target(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
            return {"ok": False, "error_type": _error_type(exc)}
        try:
            encoded = codec.encode(value)
        except Exception as exc:  # noqa: BLE001
            return {"ok": False, "error_type": _error_type(exc), "encoding": True,
                    "encoding_kind": getattr(exc, "kind", "other")}
        reply = {"ok": True, "value": encoded, "rngs": [_generator_state(g) for g in rngs]}
        if request.get("return_args"):
            try:
                reply["args"] = [codec.encode(a) for a in args
                                 if not isinstance(a, np.random.Generator) and not callable(a)]
            except Exception:  # noqa: BLE001
                reply["args"] = None
        return reply
    return {"ok": False, "error_type": "ValueError", "unknown": True}


# ----------------------------------------------------------------------------- start
def _load_codec(init):
    """The grading package's codec, sent by the grader (a module that is not in ``sys.modules``); a
    copy beside this file when the grader sent none (the weaker boundary)."""
    module = types.ModuleType("codec")
    source = init.get("codec")
    if not source:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "codec.py"), encoding="utf-8") as file:
            source = file.read()
    exec(compile(source, "codec.py", "exec"), module.__dict__)  # noqa: S102 - the grader's own module
    return module


def _write_kernel_files(init, argv):
    """What a kernel that JupyterLab started finds around it: its connection file, and matplotlib's
    font cache (sent by the grader, so that a plot does not rebuild it on every run)."""
    import secrets

    if len(argv) >= 3 and argv[1] == "-f":
        try:
            os.makedirs(os.path.dirname(argv[2]), exist_ok=True)
            ports = [secrets.randbelow(20000) + 40000 + i for i in range(5)]
            with open(argv[2], "w", encoding="utf-8") as file:
                json.dump({"shell_port": ports[0], "iopub_port": ports[1], "stdin_port": ports[2],
                           "control_port": ports[3], "hb_port": ports[4], "ip": "127.0.0.1",
                           "key": secrets.token_hex(16) + "-" + secrets.token_hex(8), "transport": "tcp",
                           "signature_scheme": "hmac-sha256", "kernel_name": "python3"}, file, indent=1)
        except OSError:
            pass
    folder = os.environ.get("MPLCONFIGDIR") or os.path.join(os.environ.get("HOME", "."), ".cache", "matplotlib")
    fonts = init.get("fonts") or {}
    try:
        os.makedirs(folder, exist_ok=True)
        for name, text in fonts.items():
            if name.startswith("fontlist-") and "/" not in name:
                with open(os.path.join(folder, name), "w", encoding="utf-8") as file:
                    file.write(text)
    except OSError:
        pass


# ----------------------------------------------------------------------------- main
def main() -> int:
    protocol_in = os.fdopen(os.dup(0), "rb")
    protocol_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    sink = OutStream()
    sys.stdout = sys.stderr = sink
    sys.stdin = io.StringIO("")

    def send(message):
        protocol_out.write(json.dumps(message, allow_nan=False).encode() + b"\n")
        protocol_out.flush()

    init = json.loads(protocol_in.readline())
    user = init.get("uid")
    if user is not None and os.geteuid() == 0:  # started as root: drop to the sandbox's own user
        os.setgroups([])
        os.setgid(int(user))
        os.setuid(int(user))
    home = os.environ.get("HOME", os.getcwd())
    os.chdir(home)
    if init.get("notebook_name") and init.get("notebook"):
        with open(os.path.join(home, os.path.basename(init["notebook_name"])), "w", encoding="utf-8") as notebook_file:
            notebook_file.write(init["notebook"])

    if init.get("notebook_name"):
        os.environ["JPY_SESSION_NAME"] = os.path.join(home, os.path.basename(init["notebook_name"]))
    _write_kernel_files(init, sys.argv)
    codec = _load_codec(init)
    import numpy as np
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False  # no history thread (the process forks per question)
    config.InteractiveShell.colors = "NoColor"
    config.InteractiveShell.xmode = "Plain"
    shell = InteractiveShell.instance(config=config)
    shell.enable_gui = lambda gui=None: None  # %matplotlib inline works as in a kernel (no GUI loop here)
    sys.modules["otter"] = _otter_stand_in()
    for magic in ("pip", "conda", "mamba"):
        shell.register_magic_function(lambda line="", cell=None: None, "line", magic)
    namespace = shell.user_ns
    _CALL_GRADER.append(_make_caller(protocol_in, send, codec, np))
    namespace["__name__"] = "__main__"

    cells = init["cells"]

    def run_cell(index):
        """Run code cell ``index`` (the grader asks for each cell in turn and keeps the time)."""
        entry = {"cell": index, "status": "ok"}
        try:
            result = shell.run_cell(cells[index], store_history=True, silent=False)
            failure = result.error_before_exec or result.error_in_exec
            if failure is not None:
                syntax = isinstance(failure, SyntaxError)
                entry.update(status="syntax error" if syntax else "error", error_type=_error_type(failure))
        except BaseException as exc:  # noqa: BLE001
            entry.update(status="error", error_type=_error_type(exc))
        sys.stdout = sys.stderr = sink
        return {"done": entry}

    forked = False  # this process is the question's copy
    while True:
        line = protocol_in.readline()
        if not line:
            os._exit(0)
        request = json.loads(line)
        op = request.get("op")
        if op == "cell" and not forked:
            send(run_cell(int(request["index"])))
            continue
        if op == "exit":
            protocol_out.flush()
            if forked:
                os._exit(0)
            send({"joined": True})  # the question was answered in this process (no fork was possible)
            continue
        if op == "fork" and not forked:
            protocol_out.flush()
            try:
                pid = os.fork()
            except OSError:  # the notebook used up its processes: answer in this process instead
                send({"forked": True})
                continue
            if pid == 0:
                forked = True
                send({"forked": True})
                continue
            os.waitpid(pid, 0)
            send({"joined": True})
            continue
        try:
            reply = handle(request, namespace, codec, np)
        except BaseException as exc:  # noqa: BLE001
            reply = {"ok": False, "error_type": _error_type(exc)}
        sys.stdout = sys.stderr = sink
        try:
            send(reply)
        except Exception as exc:  # noqa: BLE001
            send({"ok": False, "error_type": _error_type(exc), "encoding": True,
                  "encoding_kind": getattr(exc, "kind", "other")})


if __name__ == "__main__":
    sys.exit(main())

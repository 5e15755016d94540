"""The grading process's side of the sandbox: an operating-system boundary around one notebook.

A :class:`Sandbox` runs the code cells of one notebook under **bubblewrap** (Debian's ``bubblewrap``,
the sandbox Flatpak uses) and then calls the notebook's answer functions on the grader's inputs.

What the notebook's code sees (``bwrap`` arguments in :func:`bwrap_command`):

* its own pid, network, IPC, UTS and mount namespaces: no network, no other process, no way to
  signal anything outside; ``--die-with-parent`` and a new session;
* a file system holding only the read-only Python environment (``/usr``, the interpreter and
  the virtual environment, mounted at ``/opt/venv``) and two private, size-limited, writable
  in-memory folders: ``/home/student`` (a copy of the notebook) and ``/tmp``. The repository
  (the grader, the masters, rdplib's source), other submissions and the grader's own temporary
  files do not exist there;
* its own unprivileged user id (when the grader runs as root; otherwise the user namespace maps
  the grader's user), with resource limits on address space, CPU time, file size and the number
  of processes.

Only data crosses back: JSON lines of bounded size, decoded into fresh numbers, strings and
arrays (:mod:`grading.codec`). Nothing the notebook reports is acted on: a run ends by killing the
process the grader started (its whole process group and, with it, the pid namespace), never a
pid the notebook named. Time limits are kept by the grader's clock, not by signals inside the
notebook's process.

Where bubblewrap cannot create namespaces, :func:`sandbox_mode` says so; the grader then refuses to
run unless the instructor accepts the weaker boundary (``GRADING_WEAK_SANDBOX=1`` or
``--weak-sandbox``): the harness runs as a plain subprocess with the same limits, as a separate
unprivileged user when the grader is root. ``instructors.md`` says what each boundary protects.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import json
import os
import resource
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from . import codec

HARNESS = Path(__file__).with_name("_child.py")
CODEC = Path(__file__).with_name("codec.py")
MAX_MESSAGE = 64 * 2**20  # bytes in one reply to a call
CELL_MESSAGE = 4096  # bytes in one message while the cells run
MAX_CONTAINERS = 200_000  # lists and objects in one message (an answer's arrays are single lists)
HOME = "/home/student"
CALLBACK_ITEMS = 10_000_000  # numbers one call of a grader's function may be asked to make
ROUND_TRIP = 0.001  # seconds credited for each call of a grader's function (a round trip on a busy machine)
CALLBACK_BYTES = 256 * 2**20  # bytes of arguments the grader's functions read in one call of the notebook's
CALLBACK_HANDLES = 1_000  # functions the grader's functions may return in one call (oracles, say)
CALLBACK_MEMORY = 2**30  # bytes of address space the grader's functions may add in one call of the notebook's
CALLBACK_REFUSALS = 100  # refused calls of the grader's functions before the run is ended
GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
VENV_MOUNT = "/opt/venv"
KERNEL_MOUNT = "/opt/kernel"
TMPFS_BYTES = 256 * 2**20
INSTALL_HINT = "sudo apt-get install -y bubblewrap"


class SandboxError(RuntimeError):
    """A call that did not return an answer: ``kind`` is missing, error, timeout or crashed."""

    def __init__(self, message: str, kind: str = "error", error_type: str | None = None):
        super().__init__(message)
        self.kind = kind
        self.error_type = error_type


class SandboxUnavailable(RuntimeError):
    """No operating-system sandbox on this machine (and the weaker boundary was not accepted)."""


class Ref:
    """The notebook's own object called ``name`` (passed as an argument to a call)."""

    def __init__(self, name: str):
        self.name = name


class Expr:
    """The grader's own Python expression (a mechanism of its own, say), passed as an argument to a call.

    It is evaluated **in the grading process** (with only ``np`` in scope), never in the sandbox: the
    notebook receives a small function that sends each call's arguments back to the grader, which
    computes the answer and returns it as data (see :meth:`Sandbox.call`). The mechanism's constants
    therefore never exist in the student's process. ``sizes`` names the arguments that are array sizes
    (checked against :data:`CALLBACK_ITEMS` before anything is allocated here)."""

    def __init__(self, source: str, sizes: tuple[str, ...] = ("size",)):
        self.source = source
        self.sizes = sizes


# ----------------------------------------------------------------------------- the boundary
def _python_dirs() -> tuple[Path, Path]:
    """(the interpreter's installation, the virtual environment or None)."""
    base = Path(sys.base_prefix).resolve()
    prefix = Path(sys.prefix).resolve()
    return base, (prefix if prefix != base else None)


def _masked_dirs() -> list[str]:
    """Folders of rdplib visible inside the Python environment (a non-editable install): hidden."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("rdplib")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    out = []
    base, venv = _python_dirs()
    for location in spec.submodule_search_locations:
        path = Path(location).resolve()
        for root, mount in ((venv, Path(VENV_MOUNT)), (base, base)):
            if root is not None and path.is_relative_to(root):
                out.append(str(mount / path.relative_to(root)))
    return out


def _ancestors(path: Path) -> list[str]:
    return [str(p) for p in reversed(path.parents) if str(p) != "/"]


def bwrap_command(*, as_root: bool) -> list[str]:
    """The bubblewrap command line that starts the harness (see the module docstring)."""
    base, venv = _python_dirs()
    args = ["bwrap", "--unshare-pid", "--as-pid-1", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--hostname", "jupyter"]
    if not as_root:
        args.insert(1, "--unshare-user")
    for folder in ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin"):
        if os.path.exists(folder):
            args += ["--ro-bind", folder, folder]
    for item in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/fonts",
                 "/etc/alternatives", "/etc/mime.types"):
        if os.path.exists(item):
            args += ["--ro-bind", item, item]
    if not str(base).startswith(("/usr/", "/bin/", "/lib")) and str(base) != "/usr":
        for parent in _ancestors(base):
            args += ["--perms", "0755", "--dir", parent]
        args += ["--ro-bind", str(base), str(base)]
    if venv is not None:
        args += ["--perms", "0755", "--dir", "/opt", "--ro-bind", str(venv), VENV_MOUNT]
    for folder in _masked_dirs():
        args += ["--tmpfs", folder]
    launcher = _launcher_path(venv)
    if launcher is None:
        launcher = f"{KERNEL_MOUNT}/launcher.py"
        args += ["--perms", "0755", "--dir", KERNEL_MOUNT]
    args += ["--ro-bind", str(HARNESS), launcher,  # where ipykernel's own launcher is, when it is installed
             "--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", str(TMPFS_BYTES), "--tmpfs", "/tmp",
             "--perms", "0755", "--dir", "/home",
             "--perms", "0777", "--size", str(TMPFS_BYTES), "--tmpfs", HOME,
             "--chdir", HOME, "--clearenv"]
    python = f"{VENV_MOUNT}/bin/python" if venv is not None else str(Path(sys.executable).resolve())
    for key, value in _environment(python).items():
        args += ["--setenv", key, value]
    # the command line of a kernel that JupyterLab started
    return args + [python, launcher, "-f", f"{HOME}/.local/share/jupyter/runtime/kernel-{uuid.uuid4()}.json"]


def _launcher_path(venv: Path | None) -> str | None:
    """ipykernel's launcher inside the mounted environment (the harness is mounted over it), or None."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("ipykernel_launcher")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    path = Path(spec.origin).resolve()
    base, _ = _python_dirs()
    for root, mount in ((venv, Path(VENV_MOUNT)), (base, base)):
        if root is not None and path.is_relative_to(root):
            return str(mount / path.relative_to(root))
    return None


@functools.lru_cache(maxsize=1)
def matplotlib_cache() -> str | None:
    """A folder holding matplotlib's font cache, built once per grading machine and user (the harness
    copies it into the sandbox's own, writable MPLCONFIGDIR: building it costs every run a second or two)."""
    folder = Path(tempfile.gettempdir()) / f"rdp-grading-mplcache-{os.getuid()}"
    try:
        folder.mkdir(mode=0o755, exist_ok=True)
        if not any(folder.glob("fontlist-*.json")):
            subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], check=False, timeout=120,
                           env={"MPLCONFIGDIR": str(folder), "PATH": "/usr/bin:/bin"}, capture_output=True)
        os.chmod(folder, 0o755)
        for path in folder.iterdir():
            os.chmod(path, 0o644)
        return str(folder) if any(folder.glob("fontlist-*.json")) else None
    except (OSError, subprocess.SubprocessError):
        return None


def _environment(python: str) -> dict[str, str]:
    """The environment of a kernel started by JupyterLab (the variables it sets), in the sandbox's home."""
    return {"HOME": HOME, "USER": "student", "LOGNAME": "student", "LANG": "C.UTF-8", "SHELL": "/bin/bash",
            "PATH": f"{os.path.dirname(python)}:/usr/local/bin:/usr/bin:/bin",
            "MPLBACKEND": "module://matplotlib_inline.backend_inline", "JPY_PARENT_PID": str(secrets.randbelow(30000) + 100),
            "JPY_SESSION_NAME": f"{HOME}/notebook.ipynb", "PYDEVD_USE_FRAME_EVAL": "NO", "TERM": "xterm-color",
            "CLICOLOR": "1", "FORCE_COLOR": "1", "CLICOLOR_FORCE": "1", "PAGER": "cat", "GIT_PAGER": "cat"}


@functools.lru_cache(maxsize=1)
def sandbox_mode() -> str:
    """``"bwrap"`` when bubblewrap can create its namespaces here, else ``"none"``."""
    if shutil.which("bwrap") is None:
        return "none"
    as_root = os.geteuid() == 0
    command = bwrap_command(as_root=as_root)
    probe = command[:command.index("--clearenv") + 1] + ["/bin/sh", "-c", "exit 0"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "none"
    return "bwrap" if done.returncode == 0 else "none"


def weak_sandbox_accepted() -> bool:
    return os.environ.get("GRADING_WEAK_SANDBOX", "") == "1"


def require_sandbox() -> str:
    """The boundary in force, or :class:`SandboxUnavailable` with the install line."""
    mode = sandbox_mode()
    if mode == "bwrap":
        return mode
    if weak_sandbox_accepted():
        if os.geteuid() == 0 and _weak_user() is None:
            raise SandboxUnavailable(
                "the weaker boundary never runs a notebook as root, and no unprivileged user can read this Python "
                "installation (user GRADING_SANDBOX_USER, default nobody). Make the interpreter and the "
                f"environment readable by that user (chmod o+rx on {sys.base_prefix} and the folders above it), or "
                "install bubblewrap.")
        return "weak"
    raise SandboxUnavailable(
        "bubblewrap cannot isolate the notebooks on this machine (not installed, or namespaces are not allowed "
        f"here). Install it with:\n  {INSTALL_HINT}\nor accept the weaker boundary (a plain subprocess with "
        "resource limits, as a separate user when run as root) with GRADING_WEAK_SANDBOX=1 or --weak-sandbox; "
        "see the instructors' page for what it does not protect.")


def make_python_readable() -> None:
    """Let an unprivileged user read and run the interpreter, the environment and the grader's harness
    (``chmod o+rx`` on their folders and the folders above them). For a throwaway container such as
    Gradescope's, where conda lives under ``/root``: the otter plugin calls it there, never elsewhere."""
    base, venv = _python_dirs()
    for root in [base, venv, Path(__file__).resolve().parent]:
        if root is None:
            continue
        for folder in [root, *root.parents]:
            try:
                os.chmod(folder, os.stat(folder).st_mode | 0o005)
            except OSError:
                pass


def _world_readable(path: Path) -> bool:
    return all(os.stat(p).st_mode & 0o005 == 0o005 for p in [path, *path.parents])


def _weak_user() -> int | None:
    """The unprivileged user of the weaker boundary: ``GRADING_SANDBOX_USER`` (default ``nobody``),
    if it can read the Python installation; else None (the harness keeps the grader's user)."""
    import pwd

    try:
        uid = pwd.getpwnam(os.environ.get("GRADING_SANDBOX_USER", "nobody")).pw_uid
    except KeyError:
        return None
    base, venv = _python_dirs()
    readable = _world_readable(base) and (venv is None or _world_readable(venv))
    return uid if readable else None


def _kill_user(uid: int) -> None:
    """SIGKILL every process of ``uid`` (a user id made for one sandbox, so nothing else runs as it)."""
    for _ in range(50):
        found = False
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    if os.stat(f"/proc/{entry}").st_uid == uid:
                        os.kill(int(entry), signal.SIGKILL)
                        found = True
                except OSError:
                    pass
        if not found:
            return
        time.sleep(0.05)


def _count_processes(uid: int) -> int:
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += 1
            except OSError:
                pass
    return count


# ----------------------------------------------------------------------------- control groups
CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_PARENT = "rdp-grading"


class Cgroup:
    """A control group of one sandbox (cgroup v1 controllers cpu, memory and pids, or cgroup v2):
    at most ``cpus`` cores of CPU time, ``memory_bytes`` of memory (its in-memory folders included)
    and ``pids`` tasks for ALL its processes together, where rlimits bound each process alone. A
    notebook that forks CPU spinners (each in a session of its own) or many big processes then harms
    only itself. :meth:`create` returns None where the grader may not make control groups (not root,
    no delegated cgroup v2); the sandbox then keeps the per-process rlimits only."""

    def __init__(self, paths: list[Path]):
        self.paths = paths

    @classmethod
    def create(cls, name: str, *, cpus: float, memory_bytes: int, pids: int) -> Cgroup | None:
        if os.geteuid() != 0 or not CGROUP_ROOT.is_dir():
            return None
        try:
            if (CGROUP_ROOT / "cgroup.controllers").exists():  # cgroup v2
                parent = CGROUP_ROOT / CGROUP_PARENT
                parent.mkdir(exist_ok=True)
                (CGROUP_ROOT / "cgroup.subtree_control").write_text("+cpu +memory +pids")
                (parent / "cgroup.subtree_control").write_text("+cpu +memory +pids")
                path = parent / name
                path.mkdir()
                group = cls([path])
                (path / "cpu.max").write_text(f"{int(100_000 * cpus)} 100000")
                (path / "memory.max").write_text(str(memory_bytes))
                (path / "pids.max").write_text(str(pids))
                return group
            paths = []
            group = cls(paths)
            for controller in ("cpu", "memory", "pids"):
                path = CGROUP_ROOT / controller / CGROUP_PARENT / name
                path.mkdir(parents=True)
                paths.append(path)
            cpu, memory, tasks = paths
            (cpu / "cpu.cfs_period_us").write_text("100000")
            (cpu / "cpu.cfs_quota_us").write_text(str(int(100_000 * cpus)))
            (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
            if (memory / "memory.memsw.limit_in_bytes").exists():
                try:
                    (memory / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
                except OSError:
                    pass
            (tasks / "pids.max").write_text(str(pids))
            return group
        except Exception:  # noqa: BLE001 - read-only cgroupfs (Docker's default), no delegation: no group
            try:
                group.remove()
            except Exception:  # noqa: BLE001
                pass
            return None

    def attach(self, pid: int) -> None:
        for path in self.paths:
            (path / "cgroup.procs").write_text(str(pid))

    def members(self) -> list[int]:
        if not self.paths:
            return []
        try:
            return [int(x) for x in (self.paths[-1] / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def kill(self) -> None:
        for _ in range(100):
            pids = self.members()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.02)

    def remove(self) -> None:
        self.kill()
        for path in self.paths:
            for _ in range(50):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


# ----------------------------------------------------------------------------- the sandbox
class Sandbox:
    """One isolated run of a notebook; use as a context manager.

    ``skip`` lists cells not to run (cells that ended the process on an earlier attempt).
    """

    def __init__(self, cells: list[str], *, cell_limit: float = 20.0, call_limit: float = 30.0,
                 deadline: float = 90.0, memory_mb: int = 2048, processes: int = 64,
                 notebook_name: str = "notebook.ipynb", skip: set[int] | None = None, secret: int | None = None):
        self.cells, self.cell_limit, self.call_limit = cells, cell_limit, call_limit
        self.memory_mb, self.processes = memory_mb, processes
        self.notebook_name = notebook_name
        self.skip = set(skip or ())
        self.deadline = time.monotonic() + deadline
        self.cell_report: list[dict[str, Any]] = []
        self.dead: str | None = None
        self.dead_kind = "crashed"
        self.last_cell: int | None = None
        self.process: subprocess.Popen | None = None
        self.in_question = False
        self.calls = 0
        self.last_credit = 0.0  # seconds of the last call spent on the grader's functions (not charged)
        # the grader's functions draw from generators derived from this and the notebook's generator
        self.secret = secrets.randbits(128) if secret is None else int(secret)
        self._served_bytes, self._refusals, self._last_bytes = 0, 0, 0
        self._call_end: float | None = None
        self._call_ceiling: int | None = None
        self._buffer = bytearray()
        self._scanned = 0

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> Sandbox:
        mode = require_sandbox()
        as_root = os.geteuid() == 0
        uid = (100_000 + secrets.randbelow(1_000_000_000)) if as_root else None
        if mode == "weak" and as_root:
            uid = _weak_user()
            if uid is None:  # never the grader's own root: see require_sandbox
                raise SandboxUnavailable("no unprivileged user can run this notebook (see require_sandbox)")
        if mode == "bwrap":
            command, cwd, env = bwrap_command(as_root=as_root), "/", {}
            self._scratch = None
        else:  # the weaker boundary: a plain subprocess in a private folder
            self._scratch = tempfile.mkdtemp(prefix="nb-")
            kernel = Path(self._scratch) / "kernel"
            home = Path(self._scratch) / "home"
            kernel.mkdir()
            home.mkdir()
            shutil.copy(HARNESS, kernel / "launcher.py")
            shutil.copy(CODEC, kernel / "codec.py")
            os.chmod(self._scratch, 0o755)
            os.chmod(home, 0o777)
            command = [sys.executable, str(kernel / "launcher.py")]
            env = {**_environment(sys.executable), "HOME": str(home), "TMPDIR": str(home),
                   "MPLCONFIGDIR": str(home), "IPYTHONDIR": str(home)}
            cwd = str(home)
        limit_processes = self.processes if as_root else _count_processes(os.getuid()) + self.processes
        memory = int(self.memory_mb) * 2**20
        cpu = int(max(self.deadline - time.monotonic(), 1)) + 10

        self.cgroup = Cgroup.create(f"{os.getpid()}-{secrets.token_hex(6)}", cpus=1.0,
                                    memory_bytes=memory + 2 * TMPFS_BYTES, pids=self.processes)
        cgroup = self.cgroup

        def limits() -> None:  # in the child, before bwrap (and the harness) start
            if cgroup is not None:
                cgroup.attach(os.getpid())
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
            resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 2**20, 64 * 2**20))
            resource.setrlimit(resource.RLIMIT_NPROC, (limit_processes, limit_processes))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        self.mode, self.uid = mode, uid
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, cwd=cwd, env=env, preexec_fn=limits,
                                        start_new_session=True, close_fds=True)
        notebook = json.dumps({"cells": [{"cell_type": "code", "source": s, "metadata": {}, "outputs": [],
                                          "execution_count": None} for s in self.cells],
                               "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
        fonts = {}
        if (cache := matplotlib_cache()) is not None:
            _, venv = _python_dirs()
            for path in Path(cache).glob("fontlist-*.json"):  # with the font paths as the sandbox sees them
                text = path.read_text(encoding="utf-8")
                fonts[path.name] = text.replace(str(venv), VENV_MOUNT) if venv is not None else text
        self._send({"cells": self.cells, "skip": sorted(self.skip), "uid": uid,
                    "notebook_name": self.notebook_name, "notebook": notebook,
                    "codec": CODEC.read_text(encoding="utf-8"), "fonts": fonts})
        self._run_cells()
        return self

    def _run_cells(self) -> None:
        """Ask for each code cell in turn; the cell's time runs from the request, on the grader's clock.
        Only the reply for the cell asked counts; anything else the notebook writes is skipped (and
        too much of it ends the run)."""
        for index in range(len(self.cells)):
            if index in self.skip:
                self.cell_report.append({"cell": index, "status": "skipped", "error_type": ""})
                continue
            self.last_cell = index
            self._send({"op": "cell", "index": index})
            end = time.monotonic() + self.cell_limit
            for _ in range(1000):
                message = self._receive(max(end - time.monotonic(), 0.0), what="cell", limit_bytes=CELL_MESSAGE)
                if message is None:
                    if self.dead_kind == "timeout" and time.monotonic() >= end - 0.05:
                        self.dead = f"code cell {index + 1} ran longer than {self.cell_limit:.0f} s"
                    return
                entry = message.get("done")
                if isinstance(entry, dict) and entry.get("cell") == index:
                    self.cell_report.append({"cell": index, "status": _status(entry.get("status")),
                                             "error_type": _error_name(entry.get("error_type"))})
                    break
            else:
                self._die("the notebook's process sent too many messages", "crashed")
                return
        self.last_cell = None

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        """Kill what this sandbox started: its process group and, with bwrap, the whole pid namespace
        (bwrap's own init, pid 1 there, dies with the bwrap process; the kernel then kills every
        process of the namespace). When the grader is root, the sandbox's own user id is swept too."""
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.process.kill()
            except ProcessLookupError:
                pass
            self.process.wait()
            for stream in (self.process.stdin, self.process.stdout):
                try:
                    stream.close()
                except Exception:  # noqa: BLE001
                    pass
        if getattr(self, "cgroup", None) is not None:
            self.cgroup.remove()
            self.cgroup = None
        if getattr(self, "uid", None) is not None and (getattr(self, "mode", "") == "bwrap"
                                                       or os.environ.get("GRADING_SANDBOX_USER")):
            _kill_user(self.uid)  # a user of its own (bwrap), or the dedicated user the instructor named
        if self._scratch_dir():
            shutil.rmtree(self._scratch_dir(), ignore_errors=True)

    def _scratch_dir(self) -> str | None:
        return getattr(self, "_scratch", None)

    # ------------------------------------------------------------------ protocol
    def _send(self, message: dict[str, Any], deadline: float | None = None) -> None:
        """Write one message; a notebook that stops reading (its pipe full) ends the run at the deadline
        (by default 30 s from now), never blocks the grader."""
        if self.dead is not None:
            return
        data = memoryview(codec.dumps(message).encode() + b"\n")
        end = deadline if deadline is not None else time.monotonic() + 30.0
        fd = self.process.stdin.fileno()
        try:
            os.set_blocking(fd, False)
            while data:
                _, ready, _ = select.select([], [fd], [], max(min(end - time.monotonic(), 1.0), 0.0))
                if not ready:
                    if time.monotonic() >= end:
                        self._die("the notebook's process stopped reading", "timeout")
                        return
                    continue
                try:
                    written = os.write(fd, data)
                except BlockingIOError:
                    continue
                data = data[written:]
        except (BrokenPipeError, OSError, ValueError):
            self._die("the notebook's process stopped", "crashed")

    def _die(self, reason: str, kind: str) -> None:
        """Record why the run ended and kill it."""
        if self.dead is None:
            code = self.process.poll() if self.process is not None else None
            if kind == "crashed" and code is not None and code < 0:
                reason += f" (killed by signal {-code}: out of memory or a crash)"
            self.dead, self.dead_kind = reason, kind
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def _receive(self, limit: float | None = None, what: str = "answer",
                 limit_bytes: int = MAX_MESSAGE) -> dict[str, Any] | None:
        """One message, or None once the run has ended (died, too slow, or sent garbage). A message
        longer than ``limit_bytes``, or with more nested lists and objects than an answer can hold,
        ends the run before it is parsed."""
        if self.dead is not None:
            return None
        end = self.deadline if limit is None else min(self.deadline, time.monotonic() + limit)
        stream = self.process.stdout
        while True:
            cut = self._buffer.find(b"\n", self._scanned)
            if cut >= 0:
                raw = bytes(self._buffer[:cut])
                del self._buffer[:cut + 1]
                self._scanned = 0
                self._last_bytes = len(raw)
                if len(raw) > limit_bytes or raw.count(b"[") + raw.count(b"{") > MAX_CONTAINERS:
                    self._die("the notebook's process sent a message too large to read", "crashed")
                    return None
                try:
                    message = codec.loads(raw.decode("utf-8"))
                except (ValueError, UnicodeDecodeError, RecursionError):
                    self._die("the notebook's process sent something unreadable", "crashed")
                    return None
                return message
            self._scanned = len(self._buffer)
            if len(self._buffer) > limit_bytes:
                self._die("the notebook's process sent a message too large to read", "crashed")
                return None
            remaining = end - time.monotonic()
            if remaining <= 0:
                overall = time.monotonic() >= self.deadline
                self._die("the time limit for grading this notebook ran out" if overall
                          else f"the {what} took longer than its time limit", "timeout")
                return None
            ready, _, _ = select.select([stream], [], [], min(remaining, 1.0))
            if not ready:
                continue
            chunk = os.read(stream.fileno(), 1 << 20)
            if not chunk:
                self.process.wait()
                self._die("the notebook's process stopped", "crashed")
                return None
            self._buffer += chunk

    # ------------------------------------------------------------------ questions
    def begin_question(self) -> None:
        """A fresh copy of the executed notebook (a fork inside the sandbox) for one question."""
        self._send({"op": "fork"})
        reply = self._receive(15)
        if reply is not None and reply.get("forked") is not True:
            self._die("the notebook's process did not answer", "crashed")
        self.in_question = self.dead is None

    def end_question(self) -> None:
        if self.dead is None and self.in_question:
            self._send({"op": "exit"})
            while True:  # skip what the question's copy still had queued, up to the "joined" line
                reply = self._receive(10)
                if reply is None or reply.get("joined") is True:
                    break
        self.in_question = False

    # ------------------------------------------------------------------ answers
    def _encode_arg(self, value: Any, rngs: list[np.random.Generator],
                    callbacks: dict[str, _GraderFunction] | None = None) -> Any:
        if isinstance(value, np.random.Generator):
            rngs.append(value)
            bit_generator = value.bit_generator
            seed_seq = getattr(bit_generator, "seed_seq", None)
            if not isinstance(bit_generator, np.random.PCG64) or not isinstance(seed_seq, np.random.SeedSequence):
                raise TypeError("the grader passes PCG64 generators made from a seed")
            return {"__rng__": {"entropy": seed_seq.entropy, "spawn_key": list(seed_seq.spawn_key),
                                "pool_size": seed_seq.pool_size, "n_children_spawned": seed_seq.n_children_spawned,
                                "state": bit_generator.state}}
        if isinstance(value, Ref):
            return {"__ref__": value.name}
        if isinstance(value, Expr):
            if callbacks is None:
                raise TypeError("a grader's function can only be an argument of a call")
            handle = secrets.token_hex(8)
            callbacks[handle] = _GraderFunction(value)
            return {"__cb__": handle}
        if isinstance(value, (list, tuple)) and any(isinstance(v, (np.random.Generator, Ref, Expr)) for v in value):
            return {"__seq__": "tuple" if isinstance(value, tuple) else "list",
                    "items": [self._encode_arg(v, rngs, callbacks) for v in value]}
        return codec.encode(value)

    def _serve(self, message: dict[str, Any], callbacks: dict[str, _GraderFunction]) -> None:
        """Answer one call the notebook made to a grader's function: the arguments arrive as data
        (a generator as its bit generator's state), the grader's code runs here, and the value and
        the generators' new states go back. Any failure goes back as a Python error type only."""
        generators: list[np.random.Generator] = []
        try:
            function = callbacks.get(message.get("callback")) if isinstance(message.get("callback"), str) else None
            if function is None:
                raise NameError("no such function")
            if self._served_bytes > CALLBACK_BYTES or len(callbacks) > CALLBACK_HANDLES:
                raise MemoryError("too much data for the grader's functions in one call")
            raw_args, raw_kwargs = message.get("args", []), message.get("kwargs", {})
            if not isinstance(raw_args, list) or not isinstance(raw_kwargs, dict):
                raise TypeError("malformed call")
            args = [_callback_arg(a, generators, callbacks, self.secret) for a in raw_args]
            kwargs = {str(k): _callback_arg(v, generators, callbacks, self.secret) for k, v in raw_kwargs.items()}
            with _memory_cap(self._call_ceiling):
                value = function(args, kwargs)
            if callable(value) and not isinstance(value, (type, np.ndarray)):
                # a function the grader's function made (an oracle, say): it stays here as well
                handle = secrets.token_hex(8)
                callbacks[handle] = _GraderFunction(value)
                encoded = {"__cb__": handle}
            else:
                encoded = codec.encode(value)
            reply = {"ok": True, "value": encoded,
                     "rngs": [codec.encode(g.bit_generator.state) for g in generators]}
        except Exception as exc:  # noqa: BLE001 - whatever the arguments did, only its type goes back
            reply = {"ok": False, "error_type": _builtin_type(exc)}
            self._refusals += 1
            if self._refusals > CALLBACK_REFUSALS:
                self._die("the notebook called the grader's functions wrongly too often", "crashed")
                return
        self._send({"callback_reply": reply}, deadline=self._call_end)

    def _reply(self, reply: dict[str, Any] | None, what: str) -> dict[str, Any]:
        if reply is None:
            raise SandboxError(f"{what}: {self.dead or 'the notebook process stopped'}",
                               "timeout" if self.dead_kind == "timeout" else "crashed")
        if reply.get("ok") is True:
            return reply
        if reply.get("missing") is True:
            raise SandboxError(f"{what} is not defined", "missing")
        error_type = _error_name(reply.get("error_type"))
        if reply.get("encoding") is True:
            kind = reply.get("encoding_kind")
            raise SandboxError(f"{what} returned {codec.KINDS.get(kind if isinstance(kind, str) else 'other', codec.KINDS['other'])}",
                               "error", "EncodingError")
        raise SandboxError(f"{what} raised {error_type}", "error", error_type)

    def call(self, name: str, *args: Any, limit: float | None = None, return_args: bool = False,
             **kwargs: Any) -> Any:
        """``name(*args, **kwargs)`` in the sandbox; plain data back, or :class:`SandboxError`.

        Generators cross with their seed sequence and state and come back advanced, so a check can
        use one generator over several calls as it would locally."""
        rngs: list[np.random.Generator] = []
        callbacks: dict[str, _GraderFunction] = {}
        time_limit = self.call_limit if limit is None else limit
        message = {"op": "call", "name": name, "args": [self._encode_arg(a, rngs, callbacks) for a in args],
                   "kwargs": {k: self._encode_arg(v, rngs, callbacks) for k, v in kwargs.items()},
                   "return_args": return_args}
        self.calls += 1
        self._send(message)
        end = time.monotonic() + time_limit
        self.last_credit = 0.0
        self._served_bytes, self._refusals = 0, 0
        space = _address_space() if callbacks else None
        self._call_ceiling = None if space is None else space + CALLBACK_MEMORY
        while True:
            answer = self._receive(max(end - time.monotonic(), 0.0), what=f"call of {name}")
            if answer is not None and callbacks and "callback" in answer:
                started = time.monotonic()
                self._served_bytes += self._last_bytes
                self._call_end = end
                self._serve(answer, callbacks)
                # the grader's own work and the round trip are not the notebook's time (up to the limit
                # once more: a loop that calls a grader's mechanism once per draw is slow here, not wrong)
                credit = min(time.monotonic() - started + ROUND_TRIP, time_limit - self.last_credit)
                self.last_credit += credit
                end += credit
                self.deadline += credit
                continue
            break
        reply = self._reply(answer, f"{name}(...)")
        # The grader's generators move on to a state derived from their own state and the run's secret,
        # never to a state the notebook sends back (which it could choose, and so predict the grader's
        # next draws). Only the number of children the notebook spawned is read, within bounds.
        states = reply.get("rngs")
        for index, generator in enumerate(rngs):
            generator.bit_generator.state = _successor(generator.bit_generator.state, self.secret)
            state = states[index] if isinstance(states, list) and index < len(states) else None
            spawned = state.get("n_children_spawned") if isinstance(state, dict) else None
            seed_seq = generator.bit_generator.seed_seq
            if type(spawned) is int and 0 < spawned - seed_seq.n_children_spawned <= 100_000:
                seed_seq.spawn(spawned - seed_seq.n_children_spawned)  # the next spawn here must differ
        try:
            value = codec.decode(reply.get("value"))
            if return_args:
                return value, [codec.decode(a) for a in (reply.get("args") or [])]
        except (codec.EncodingError, ValueError, TypeError, KeyError, RecursionError):
            raise SandboxError(f"{name}(...) returned something that cannot be read", "error",
                               "EncodingError") from None
        return value

    def value(self, name: str) -> Any:
        """The plain value of the notebook variable ``name``."""
        self._send({"op": "value", "name": name})
        reply = self._reply(self._receive(self.call_limit, what=f"value of {name}"), name)
        try:
            return codec.decode(reply.get("value"))
        except (codec.EncodingError, ValueError, TypeError, KeyError, RecursionError):
            raise SandboxError(f"{name} cannot be read", "error", "EncodingError") from None


class _GraderFunction:
    """An :class:`Expr` evaluated in the grading process, with its size guard."""

    def __init__(self, expr: Expr | Any):
        import inspect

        if isinstance(expr, Expr):
            self.function = eval(expr.source, {"np": np, "__builtins__": builtins})  # noqa: S307 - the grader's code
            self.sizes = expr.sizes
        else:  # a function one of the grader's functions returned
            self.function, self.sizes = expr, ("size",)
        try:
            self.signature = inspect.signature(self.function)
        except (TypeError, ValueError):
            self.signature = None

    def __call__(self, args: list[Any], kwargs: dict[str, Any]) -> Any:
        import warnings

        if self.signature is not None:
            bound = self.signature.bind(*args, **kwargs)  # TypeError for a wrong call, as Python gives
            for name in self.sizes:
                if name in bound.arguments and _items(bound.arguments[name]) > CALLBACK_ITEMS:
                    raise ValueError("size too large")
        arrays = [a for a in [*args, *kwargs.values()] if isinstance(a, np.ndarray)]
        if sum(a.size for a in arrays) > CALLBACK_ITEMS or any(d > CALLBACK_ITEMS for a in arrays for d in a.shape):
            raise ValueError("arguments too large")  # an empty array of 10^9 rows, say
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return self.function(*args, **kwargs)


def _address_space() -> int | None:
    """This process's address space in bytes (None where /proc cannot tell)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return None


@contextlib.contextmanager
def _memory_cap(ceiling: int | None):
    """While the grader's function runs on the notebook's arguments, this process's address space may
    not pass ``ceiling`` (set at the start of the notebook's call: what earlier calls of the grader's
    functions kept counts too). A broadcast, a width or a pile of kept oracles the size guard cannot
    foresee gives a MemoryError, sent back as such, instead of exhausting the machine."""
    if ceiling is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = ceiling
    for limit in (soft, hard):
        if limit != resource.RLIM_INFINITY:
            cap = min(cap, limit)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _successor(state: dict[str, Any], secret: int) -> dict[str, Any]:
    """The state a grader's generator takes after a call: a PCG64 state seeded by its state before the
    call and the run's secret (reproducible from the run's seed, unknown to the notebook)."""
    import hashlib

    digest = hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).digest()
    fresh = np.random.PCG64(np.random.SeedSequence([secret, int.from_bytes(digest[:16], "big")]))
    out = fresh.state
    out["bit_generator"] = state.get("bit_generator", "PCG64")
    return out


def _items(size: Any) -> int:
    """How many numbers a ``size`` argument asks for (sizes that are not integers are left to NumPy)."""
    if isinstance(size, (bool, np.bool_)) or size is None:
        return 0
    if isinstance(size, (int, np.integer)):
        return abs(int(size))
    if isinstance(size, (tuple, list, np.ndarray)):
        total = 1
        for item in np.ravel(np.asarray(size, dtype=object)):
            total *= _items(item) if isinstance(item, (int, np.integer)) else 1
            total = min(total, CALLBACK_ITEMS + 1)
        return total
    return 0


def _callback_arg(data: Any, generators: list[np.random.Generator],
                  callbacks: dict[str, _GraderFunction], secret: int) -> Any:
    """An argument of a notebook's call to a grader's function: data, a generator rebuilt from its
    state, or one of the grader's own functions of this call (the notebook's functions never cross)."""
    if isinstance(data, dict) and "__cb__" in data:
        function = callbacks.get(data["__cb__"]) if isinstance(data["__cb__"], str) else None
        if function is None:
            raise TypeError("only data and the grader's own functions can be passed to the grader's functions")
        return function.function
    if isinstance(data, dict) and "__rng__" in data:
        spec = data["__rng__"]
        state = codec.decode(spec.get("state")) if isinstance(spec, dict) else None
        if not isinstance(state, dict) or state.get("bit_generator") not in GENERATORS:
            raise TypeError("the random generator must be a NumPy Generator")
        bit_generator = getattr(np.random, state["bit_generator"])(0)
        bit_generator.state = state
        generator = np.random.Generator(bit_generator)
        generators.append(generator)
        # The notebook's generator advances by one draw, which seeds, with a secret of this grading run,
        # the generator the grader's function uses: the same generator state gives the same answer, but
        # the notebook cannot replay the function's draws to read its constants.
        drawn = int(generator.integers(0, 2**63))
        return np.random.Generator(np.random.PCG64(np.random.SeedSequence([secret, drawn])))
    return codec.decode(data)


def _builtin_type(exc: BaseException) -> str:
    """The nearest of Python's own exception types (NumPy's AxisError is a ValueError, say)."""
    for kind in type(exc).__mro__:
        if kind.__name__ in _BUILTIN_ERRORS and getattr(builtins, kind.__name__, None) is kind:
            return kind.__name__
    return "RuntimeError"


def _int(value: Any) -> int:
    return value if type(value) is int else -1


def _status(value: Any) -> str:
    return value if value in ("ok", "error", "syntax error", "skipped") else "error"


_BUILTIN_ERRORS = {name for name, obj in vars(builtins).items()
                   if isinstance(obj, type) and issubclass(obj, BaseException)}


def _error_name(value: Any) -> str:
    """An exception type name from the notebook's process, if it is one of Python's own."""
    return value if isinstance(value, str) and value in _BUILTIN_ERRORS else "an exception"

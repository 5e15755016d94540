"""The grading sandbox (``grading/sandbox.py``, ``grading/_child.py``): the operating system's boundary
around one notebook, measured from inside (what a notebook can see and do) and from outside (what
survives it). Needs bubblewrap (``.ci/run`` installs it)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from grading import sandbox as sandbox_module
from grading.gradebook import main as grading_main
from grading.sandbox import (
    Expr,
    Ref,
    Sandbox,
    SandboxError,
    SandboxUnavailable,
    require_sandbox,
    sandbox_mode,
)

ROOT = Path(__file__).resolve().parents[1]
AS_ROOT = os.geteuid() == 0


def test_bubblewrap_is_the_boundary_here():
    assert sandbox_mode() == "bwrap", "bubblewrap is not usable on this machine (.ci/run installs it)"


def _one(cells, name, *args, **kwargs):
    with Sandbox(cells) as sb:
        return sb.call(name, *args, **kwargs)


def test_the_file_system_holds_only_python_and_private_folders(tmp_path):
    marker = Path(tempfile.gettempdir()) / "grading-visible-marker.txt"
    marker.write_text("another submission", encoding="utf-8")
    cells = ["import os, importlib.util\n"
             "def seen(paths):\n"
             "    return [os.path.exists(p) for p in paths]\n"
             "def listing():\n"
             "    return {'root': sorted(os.listdir('/')), 'opt': sorted(os.listdir('/opt')),\n"
             "            'home': sorted(os.listdir('/home/student')), 'cwd': os.getcwd(),\n"
             "            'rdplib': importlib.util.find_spec('rdplib') is None,\n"
             "            'grading': importlib.util.find_spec('grading') is None}\n"]
    with Sandbox(cells, notebook_name="a1_randomized_response.ipynb") as sb:
        got = sb.call("listing")
        paths = [str(ROOT), str(ROOT / "grading"), str(ROOT / "book" / "assignments" / "masters"),
                 str(ROOT / "rdplib"), str(marker), str(tmp_path), "/root/.ssh", "/etc/passwd", "/etc/shadow"]
        visible = sb.call("seen", paths)
    marker.unlink()
    assert got["opt"] == ["venv"] and got["cwd"] == "/home/student"
    assert [f for f in got["home"] if not f.startswith(".")] == ["a1_randomized_response.ipynb"], \
        "the private folder holds a copy of the notebook (and a kernel's hidden files) only"
    assert got["rdplib"] and got["grading"], "rdplib and the grader cannot be imported"
    assert not any(visible), dict(zip(paths, visible, strict=True))
    assert not {"work", "srv", "mnt", "var"} & set(got["root"])


def test_no_network_no_other_processes_no_privileges():
    cells = ["import os, socket\n"
             "def probe():\n"
             "    out = {}\n"
             "    try:\n"
             "        socket.create_connection(('1.1.1.1', 80), timeout=2)\n"
             "        out['net'] = True\n"
             "    except OSError:\n"
             "        out['net'] = False\n"
             "    out['pids'] = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n"
             "    out['uid'] = os.getuid()\n"
             "    out['caps'] = [l.split()[1] for l in open('/proc/self/status') if l.startswith('CapEff')][0]\n"
             "    try:\n"
             "        os.kill(1, 9)\n"
             "        out['kill_init'] = True\n"
             "    except OSError:\n"
             "        out['kill_init'] = False\n"
             "    return out\n"]
    with Sandbox(cells) as sb:
        got = sb.call("probe")
        again = sb.call("probe")  # pid 1 is the notebook's own process, which a signal from inside cannot end
    assert got["net"] is False
    assert max(got["pids"]) < 20, "a pid namespace of its own: only the sandbox's few processes"
    assert got["caps"] == "0000000000000000"
    assert again["pids"] == got["pids"]
    if AS_ROOT:
        assert got["uid"] >= 100_000


def test_a_forged_message_cannot_touch_a_bystander():
    """The earlier design killed a pid the notebook reported; now a notebook that writes forged
    messages naming a bystander's pid (and -1, 0) to every descriptor, then hangs, touches nothing."""
    bystander = subprocess.Popen(["sleep", "300"])
    try:
        forged = [{"forked": pid, "joined": 0, "pid": pid, "kill": pid, "ready": True}
                  for pid in (bystander.pid, -1, 0, os.getpid())]
        cells = ["import os, json\n"
                 f"FORGED = {json.dumps(forged)!r}\n"
                 "def forge():\n"
                 "    for fd in range(0, 64):\n"
                 "        for message in json.loads(FORGED):\n"
                 "            try:\n"
                 "                os.write(fd, (json.dumps(message) + '\\n').encode())\n"
                 "            except OSError:\n"
                 "                pass\n"
                 "    while True:\n"
                 "        pass\n",
                 "forge_at_import = None"]
        with Sandbox(cells, call_limit=3) as sb:
            sb.begin_question()
            with pytest.raises(SandboxError):
                sb.call("forge")
                sb.call("forge")
            sb.end_question()
        time.sleep(0.3)
        assert bystander.poll() is None, "the bystander process was killed"
    finally:
        bystander.kill()
        bystander.wait()


def test_processes_are_bounded_and_none_outlives_the_sandbox():
    cells = ["import os, time\n"
             "def bomb():\n"
             "    made = 0\n"
             "    try:\n"
             "        while True:\n"
             "            if os.fork() == 0:\n"
             "                if made % 2:\n"
             "                    os.setsid()\n"
             "                time.sleep(300)\n"
             "                os._exit(0)\n"
             "            made += 1\n"
             "    except OSError:\n"
             "        return made\n"]
    sb = Sandbox(cells, processes=32).__enter__()
    try:
        sb.begin_question()
        made = sb.call("bomb")
    finally:
        sb.close()
    assert 5 <= made <= 32, made
    if AS_ROOT:
        time.sleep(0.2)
        assert sandbox_module._count_processes(sb.uid) == 0, "a process of the sandbox outlived it"


def test_memory_and_disk_are_bounded():
    cells = ["import numpy as np\n"
             "def memory():\n"
             "    return float(np.ones(2 * 10**9).sum())\n"
             "def disk(path):\n"
             "    written = 0\n"
             "    try:\n"
             "        with open(path, 'wb') as handle:\n"
             "            for _ in range(400):\n"
             "                handle.write(b'x' * 2**20)\n"
             "                written += 1\n"
             "    except OSError:\n"
             "        pass\n"
             "    return written\n"]
    with Sandbox(cells, memory_mb=1024) as sb:
        with pytest.raises(SandboxError) as caught:
            sb.call("memory")
        assert caught.value.error_type == "MemoryError"
        assert sb.call("disk", "/home/student/big.bin") <= 64
        assert sb.call("disk", "/tmp/big.bin") <= 64


def test_time_limits_are_kept_by_the_grader():
    cells = ["x = 1", "while True:\n    pass", "def slow():\n    while True:\n        pass", "y = 2"]
    start = time.monotonic()
    with Sandbox(cells, cell_limit=2, call_limit=2) as sb:
        assert sb.dead is not None and sb.dead_kind == "timeout" and sb.last_cell == 1
    with Sandbox(cells, cell_limit=2, call_limit=2, skip={1}) as sb:
        assert sb.dead is None and [e["status"] for e in sb.cell_report] == ["ok", "skipped", "ok", "ok"]
        with pytest.raises(SandboxError) as caught:
            sb.call("slow")
        assert caught.value.kind == "timeout"
    assert time.monotonic() - start < 20


def test_a_notebook_runs_as_in_jupyterlab():
    """IPython's own input transformation: magics, %%time, continuation lines starting with != or %,
    display(...), grader.check in any form, %pip, ! commands, get_ipython()."""
    cells = ["%pip install otter-grader\nimport otter\ngrader = otter.Notebook('a1_randomized_response.ipynb')",
             "%%time\nimport numpy as np\n\n\ndef f(x: np.ndarray, *, rng: np.random.Generator) -> np.ndarray:\n"
             "    same = (\n        np.asarray(x).shape\n        != (0,)\n    )\n    odd = (\n        len(np.shape(x))\n"
             "        % 2\n    )\n    return np.asarray(x) * 2 + 0 * same + 0 * odd + 0 * rng.random()\n",
             "result = grader.check('q1')\ndisplay(grader.check('q1'))\nresult",
             "grader.check_all()\ngrader.export(pdf=False)",
             "!echo hello\n%time z = 3\nip = get_ipython()\nfrom IPython.display import display, Markdown\n"
             "display(Markdown('**done**'))\nprint('progress', z)",
             "%matplotlib inline\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()"]
    with Sandbox(cells) as sb:
        assert [e["status"] for e in sb.cell_report] == ["ok"] * len(cells), sb.cell_report
        got = sb.call("f", np.arange(3), rng=np.random.default_rng(1))
    assert np.array_equal(got, [0, 2, 4])


def test_exception_text_and_names_never_cross():
    """Only Python's own exception type names come back: never the text, never a class name made
    by the notebook (either could carry a hidden input)."""
    cells = ["def leak(x):\n    raise ValueError(f'HIDDEN {x!r}')\n",
             "def leak_name(x):\n    raise type(f'Secret{int(x)}', (ValueError,), {})('HIDDEN')\n"]
    with Sandbox(cells) as sb:
        for name in ("leak", "leak_name"):
            with pytest.raises(SandboxError) as caught:
                sb.call(name, 4242)
            assert "4242" not in str(caught.value) and "HIDDEN" not in str(caught.value)
            assert caught.value.error_type == "ValueError"


def test_answers_cross_as_data():
    cells = ["import numpy as np\n"
             "def keys():\n"
             "    values, counts = np.unique(np.array(['b', 'a', 'b']), return_counts=True)\n"
             "    return dict(zip(values, counts))\n"
             "def scalars():\n"
             "    return [np.float32(0.5), np.int8(3), np.bool_(False), np.str_('x'), np.array(7)]\n"
             "class Anything:\n"
             "    def __eq__(self, other):\n"
             "        return True\n"
             "def anything():\n"
             "    return Anything()\n"
             "def big():\n"
             "    return 'x' * 10**7\n"]
    with Sandbox(cells) as sb:
        assert sb.call("keys") == {"a": 1, "b": 2}
        assert sb.call("scalars") == [0.5, 3, False, "x", np.array(7)]
        for name in ("anything", "big"):
            with pytest.raises(SandboxError):
                sb.call(name)


def test_generators_cross_with_their_seed_sequence():
    """rng.spawn(2) is deterministic inside the sandbox (same seed, same streams); the grader's
    generator moves on after the call, and its spawn counter follows the notebook's spawns."""
    cells = ["import numpy as np\n"
             "def spawned(n, rng):\n"
             "    a, b = rng.spawn(2)\n"
             "    return np.concatenate([a.random(n), b.random(n), rng.random(n)])\n"]
    local = np.random.default_rng(99)
    a, b = local.spawn(2)
    expected = np.concatenate([a.random(3), b.random(3), local.random(3)])
    with Sandbox(cells) as sb:
        generator = np.random.default_rng(99)
        got = sb.call("spawned", 3, rng=generator)
        again = sb.call("spawned", 3, np.random.default_rng(99))
    assert np.array_equal(got, expected) and np.array_equal(again, expected)
    assert generator.bit_generator.state != np.random.default_rng(99).bit_generator.state  # moved on
    # the spawn counter comes back too: a second call with the same generator spawns new streams
    second = _one(cells, "spawned", 3, generator)
    a2, b2 = local.spawn(2)
    assert not np.array_equal(second[:3], expected[:3])
    assert np.array_equal(second[:6], np.concatenate([a2.random(3), b2.random(3)]))
    assert not np.array_equal(second[6:], expected[6:])


def test_grader_code_and_notebook_objects_as_arguments():
    cells = ["import numpy as np\ndef twice(v, rng=None):\n    return 2 * v\n"
             "def apply(mechanism, x, rng):\n    return mechanism(x, rng=rng)\n"]
    with Sandbox(cells) as sb:
        assert sb.call("apply", Expr("lambda x, rng: x + 1"), 2, np.random.default_rng(0)) == 3
        noise = sb.call("apply", Expr("lambda x, rng: x + rng.laplace(size=3)"), 2.0, np.random.default_rng(0))
        assert noise.shape == (3,) and np.all(np.isfinite(noise)) and len(set(noise.tolist())) == 3
        again = sb.call("apply", Expr("lambda x, rng: x + rng.laplace(size=3)"), 2.0, np.random.default_rng(0))
        assert np.array_equal(noise, again)  # the same generator state, the same draws
        assert sb.call("apply", Ref("twice"), 5, None) == 10


def test_each_question_gets_a_fresh_copy_of_the_notebook():
    cells = ["STATE = []\ndef push(x):\n    STATE.append(x)\n    return len(STATE)\n"]
    with Sandbox(cells) as sb:
        for _ in range(2):
            sb.begin_question()
            assert sb.call("push", 1) == 1 and sb.call("push", 2) == 2
            sb.end_question()


def test_without_bubblewrap_grading_stops_with_the_install_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(sandbox_module, "sandbox_mode", lambda: "none")
    monkeypatch.delenv("GRADING_WEAK_SANDBOX", raising=False)
    with pytest.raises(SandboxUnavailable, match="apt-get install -y bubblewrap"):
        require_sandbox()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a1_randomized_response.ipynb").write_text("{}", encoding="utf-8")
    assert grading_main(["a1", str(tmp_path / "sub"), "--out", str(tmp_path / "out")]) == 2
    assert "apt-get install -y bubblewrap" in capsys.readouterr().err


def test_the_weaker_boundary_when_accepted(monkeypatch):
    """Accepted explicitly, the weaker boundary runs the harness as a plain subprocess, and never as
    root: as root it needs an unprivileged user who can read the Python installation, or it refuses."""
    monkeypatch.setattr(sandbox_module, "sandbox_mode", lambda: "none")
    monkeypatch.setenv("GRADING_WEAK_SANDBOX", "1")
    if AS_ROOT and sandbox_module._weak_user() is None:
        with pytest.raises(SandboxUnavailable, match="never runs a notebook as root"):
            require_sandbox()
        return
    assert require_sandbox() == "weak"
    cells = ["import os, numpy as np\ndef f(x):\n    return np.asarray(x) + 1\ndef uid():\n    return os.geteuid()\n"]
    with Sandbox(cells) as sb:
        assert sb.mode == "weak"
        assert np.array_equal(sb.call("f", [1, 2]), [2, 3])
        assert sb.call("uid") != 0


def test_closing_kills_only_what_the_sandbox_started():
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    try:
        sb = Sandbox(["x = 1"]).__enter__()
        sb.process.send_signal(signal.SIGSTOP)  # a stuck sandbox
        sb.close()
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()


_FORGE = ("import os, json, time\n"
          "def _forge(message, seconds, pause):\n"
          "    end = time.monotonic() + seconds\n"
          "    while time.monotonic() < end:\n"
          "        for fd in range(3, 40):\n"
          "            try:\n"
          "                os.write(fd, (json.dumps(message) + '\\n').encode())\n"
          "            except OSError:\n"
          "                pass\n"
          "        time.sleep(pause)\n")


def test_cells_are_timed_by_the_grader_whatever_the_notebook_writes():
    """A cell that keeps sending the earlier protocol's 'cell started' message (to reset the clock)
    still ends at the cell limit; forged error types never reach the report."""
    cells = ["x = 1", _FORGE + "_forge({'start': 1}, 15, 0.3)", "y = 2"]
    start = time.monotonic()
    with Sandbox(cells, cell_limit=2) as sb:
        assert sb.dead_kind == "timeout" and sb.last_cell == 1
    assert time.monotonic() - start < 10
    forged = {"done": {"cell": 1, "status": "error", "error_type": "\n=== REGRADE: 12 / 12 ==="}}
    with Sandbox(["x = 1", _FORGE + f"_forge({forged!r}, 0.5, 0.1)", "y = 2"]) as sb:
        assert all(entry["error_type"] in ("", "an exception") or entry["error_type"].isidentifier()
                   for entry in sb.cell_report), sb.cell_report


def test_a_huge_message_ends_the_run_before_it_is_read():
    """A 60 MB line of nested lists written to the protocol ends the notebook's run (crashed) instead
    of being parsed by the grader."""
    bomb = ("import os\n"
            "_line = b'{\"x\": [' + b'[],' * 20_000_000 + b'[]]}\\n'\n"
            "for fd in range(3, 40):\n"
            "    try:\n"
            "        os.write(fd, _line)\n"
            "    except OSError:\n"
            "        pass\n")
    with Sandbox(["x = 1", bomb, "y = 2"]) as sb:
        assert sb.dead is not None and sb.dead_kind == "crashed" and "too large" in sb.dead


@pytest.mark.skipif(not AS_ROOT, reason="control groups are made only when the grader runs as root")
def test_control_groups_bound_the_whole_sandbox():
    """CPU (one core), memory and tasks are bounded for all the sandbox's processes together: five
    children touching 1.5 GB each cannot take 7.5 GB, and forty spinners get one core between them."""
    cells = ["import os, time\nimport numpy as np\n"
             "def children(gigabytes, count):\n"
             "    for _ in range(count):\n"
             "        if os.fork() == 0:\n"
             "            try:\n"
             "                block = np.ones(int(gigabytes * 2**30 / 8))\n"
             "                time.sleep(5)\n"
             "            except MemoryError:\n"
             "                pass\n"
             "            os._exit(0)\n"
             "    time.sleep(4)\n"
             "    return count\n"]
    with Sandbox(cells, memory_mb=2048) as sb:
        assert sb.cgroup is not None
        if len(sb.cgroup.paths) == 1:
            pytest.skip("cgroup v2: the limits are cpu.max, memory.max and pids.max of one folder")
        cpu, memory, tasks = (str(p) for p in sb.cgroup.paths)
        assert (Path(cpu) / "cpu.cfs_quota_us").read_text().strip() == "100000"
        limit = int((Path(memory) / "memory.limit_in_bytes").read_text())
        assert limit <= 3 * 2**30
        sb.begin_question()
        sb.call("children", 1.5, 5)
        peak = int((Path(memory) / "memory.max_usage_in_bytes").read_text())
        assert peak <= limit, (peak, limit)
        sb.end_question()
    assert sb.cgroup is None


def test_without_writable_control_groups_the_sandbox_still_grades(monkeypatch, tmp_path):
    """A read-only cgroup file system (Docker's default) means no control group, not a failed run."""
    readonly = tmp_path / "cgroup"
    (readonly / "cpu").mkdir(parents=True)
    readonly.chmod(0o555)
    (readonly / "cpu").chmod(0o555)
    monkeypatch.setattr(sandbox_module, "CGROUP_ROOT", readonly)
    if AS_ROOT:  # root ignores permission bits: make the controller folder a file instead
        (readonly / "cpu").chmod(0o755)
        (readonly / "cpu").rmdir()
        readonly.chmod(0o755)
        (readonly / "cpu").write_text("not a folder")
    assert sandbox_module.Cgroup.create("x", cpus=1.0, memory_bytes=2**30, pids=64) is None
    with Sandbox(["def f(x):\n    return x + 1\n"]) as sb:
        assert sb.cgroup is None and sb.call("f", 1) == 2


def test_answers_in_dict_and_tuple_subclasses_cross_as_plain_data():
    """Counter, defaultdict and namedtuple answers are honest answers (the attacker review found
    them refused)."""
    cells = ["import collections\n"
             "def counts(items):\n    return collections.Counter(items)\n"
             "def table():\n    d = collections.defaultdict(float)\n    d['a'] += 1.5\n    return d\n"
             "Pair = collections.namedtuple('Pair', 'rate error')\n"
             "def pair():\n    return Pair(0.25, 0.01)\n"]
    with Sandbox(cells) as sb:
        assert sb.call("counts", ["x", "y", "x"]) == {"x": 2, "y": 1}
        assert sb.call("table") == {"a": 1.5}
        assert sb.call("pair") == (0.25, 0.01)


# ----------------------------------------------------------------------------- the grader's functions
SECRET_RATE = 0.1234567  # a constant of the grader's mechanism that the notebook must not be able to read

PROBE = ("import gc, inspect, sys\nimport numpy as np\n"
         "def probe(mechanism):\n"
         "    found = [repr(getattr(mechanism, '__code__', None) and mechanism.__code__.co_consts),\n"
         "             repr([c.cell_contents for c in (mechanism.__closure__ or ())]),\n"
         "             repr(getattr(mechanism, '__defaults__', None)), repr(vars(mechanism))]\n"
         "    for frame in sys._current_frames().values():\n"
         "        while frame is not None:\n"
         "            found.append(repr(frame.f_locals)[:100000])\n"
         "            frame = frame.f_back\n"
         "    found += [repr(o)[:1000] for o in gc.get_objects() if isinstance(o, (str, float, tuple))]\n"
         "    return ''.join(['123456', '7']) in ' '.join(found)\n"
         "def survey(mechanism, bits, rng):\n    return mechanism(bits, 1.0, rng)\n"
         "def many(mechanism, rng, k):\n"
         "    return [float(np.sum(mechanism(np.array([1, 0]), 1.0, rng))) for _ in range(k)]\n")
MECHANISM = Expr(f"lambda bits, epsilon, rng: np.where(rng.random(np.shape(bits)) < {SECRET_RATE!r}, "
                 "1 - np.asarray(bits), np.asarray(bits))")


def test_the_grader_s_mechanisms_run_in_the_grading_process():
    """The notebook gets a stand-in that sends each call back: nothing of the mechanism is in its
    process. The mechanism draws from a generator derived from the notebook's (one draw of it) and a
    secret of the run: the same generator state gives the same answer, the notebook's generator
    advances, and the draws cannot be replayed in the notebook to read the mechanism's constants."""
    local = eval(MECHANISM.source, {"np": np})  # noqa: S307
    bits = np.zeros(40_000, dtype=int)
    with Sandbox([PROBE], secret=12345) as sb:
        assert sb.call("probe", MECHANISM) is False
        mine, again, theirs = (np.random.default_rng(3) for _ in range(3))
        got = sb.call("survey", MECHANISM, bits, mine)
        assert np.array_equal(got, sb.call("survey", MECHANISM, bits, again))  # reproducible
        assert not np.array_equal(got, local(bits, 1.0, np.random.default_rng(3)))  # not a replay
        assert mine.bit_generator.state != theirs.bit_generator.state  # the grader's generator moved on
        rate = float(np.mean(got))
        assert abs(rate - SECRET_RATE) < 6 * np.sqrt(SECRET_RATE * (1 - SECRET_RATE) / bits.size)
        assert not np.array_equal(got, sb.call("survey", MECHANISM, bits, mine))  # a new state, new flips
    with Sandbox([PROBE], secret=54321) as sb:  # another grading run: other draws
        assert not np.array_equal(got, sb.call("survey", MECHANISM, bits, np.random.default_rng(3)))


def test_the_grader_s_functions_refuse_what_they_cannot_take():
    cells = ["import numpy as np\n"
             "def attempt(mechanism, what):\n"
             "    try:\n"
             "        if what == 'huge':\n            mechanism(10**12, np.random.default_rng(0))\n"
             "        elif what == 'empty rows':\n            mechanism(np.zeros((10**9, 0)), np.random.default_rng(0))\n"
             "        elif what == 'function':\n            mechanism(lambda: 1, np.random.default_rng(0))\n"
             "        elif what == 'randomstate':\n            mechanism(3, np.random.RandomState(0))\n"
             "        elif what == 'mt':\n"
             "            g = np.random.Generator(np.random.MT19937(5))\n"
             "            first = mechanism(3, g)\n"
             "            return [first.tolist(), g.random()]\n"
             "    except Exception as exc:\n"
             "        return type(exc).__name__\n"
             "    return 'no error'\n"]
    draw = Expr("lambda size, rng: rng.random(size)")
    with Sandbox(cells) as sb:
        assert sb.call("attempt", draw, "huge") == "ValueError"  # nothing of that size is made here
        assert sb.call("attempt", draw, "empty rows") in ("ValueError", "TypeError")  # nor from an empty array
        assert sb.call("attempt", draw, "function") == "TypeError"
        assert sb.call("attempt", draw, "randomstate") == "TypeError"
        first, after = sb.call("attempt", draw, "mt")
        generator = np.random.Generator(np.random.MT19937(5))
        generator.integers(0, 2**63)  # the one draw that seeds the grader's generator
        assert len(first) == 3 and all(0 <= x < 1 for x in first) and after == generator.random()


def test_functions_the_grader_s_functions_return_stay_in_the_grading_process():
    """An oracle made by a grader's factory keeps its state (a query budget) where the notebook cannot reset it."""
    factory = Expr("lambda secret: (lambda used: (lambda q: (used.append(1), float(np.dot(q, secret)))[1] "
                   "if len(used) < 3 else (_ for _ in ()).throw(RuntimeError('budget'))))([])")
    cells = ["import numpy as np\n"
             "def ask(make, secret):\n"
             "    oracle = make(secret)\n"
             "    answers = [oracle(np.eye(3)[i]) for i in range(3)]\n"
             "    try:\n        oracle(np.ones(3))\n    except RuntimeError:\n        answers.append('refused')\n"
             "    return answers\n"]
    with Sandbox(cells) as sb:
        assert sb.call("ask", factory, [1.0, 0.0, 1.0]) == [1.0, 0.0, 1.0, "refused"]


def test_calls_of_the_grader_s_functions_are_not_charged_to_the_notebook(monkeypatch):
    """Each call of a grader's function credits the notebook with the grader's time and a round trip
    (here a large round trip, so that the test does not depend on the machine's load), up to the limit."""
    cells = ["import time\nimport numpy as np\n"
             "def slow(mechanism, rng):\n"
             "    for _ in range(4):\n        time.sleep(0.4)\n        mechanism(np.array([1, 0]), 1.0, rng)\n"
             "    return 'done'\n"]
    monkeypatch.setattr(sandbox_module, "ROUND_TRIP", 0.5)
    with Sandbox(cells, call_limit=1.0) as sb:
        assert sb.call("slow", MECHANISM, np.random.default_rng(1)) == "done"  # 1.6 s against 1 s + 1 s credit
        assert sb.last_credit == pytest.approx(1.0)
    monkeypatch.setattr(sandbox_module, "ROUND_TRIP", 0.0)
    with Sandbox(cells, call_limit=1.0) as sb, pytest.raises(SandboxError, match="time limit"):
        sb.call("slow", MECHANISM, np.random.default_rng(1))


def test_the_notebook_sees_what_a_kernel_started_by_jupyterlab_sees():
    """Fewer tells that the notebook is graded: a kernel's command line and connection file, a kernel's
    environment, no grader module importable or loaded, matplotlib's inline backend and a font cache
    that is not rebuilt, and no bwrap process to be seen."""
    cells = ["import os, sys, logging, io\n"
             "log = io.StringIO()\nlogging.getLogger('matplotlib').addHandler(logging.StreamHandler(log))\n"
             "logging.getLogger('matplotlib').setLevel(logging.INFO)\n"
             "import matplotlib.pyplot as plt\nplt.plot([1, 2]); plt.title('t'); plt.show()\n"
             "def around():\n"
             "    import matplotlib\n"
             "    cmdlines = [open(f'/proc/{p}/cmdline').read().replace(chr(0), ' ') for p in os.listdir('/proc') if p.isdigit()]\n"
             "    return {'argv': sys.argv, 'connection': os.path.exists(sys.argv[-1]), 'cmdlines': cmdlines,\n"
             "            'modules': sorted(m for m in sys.modules if m in ('codec', 'grading', 'launcher')),\n"
             "            'env': sorted(os.environ), 'backend': matplotlib.get_backend(), 'log': log.getvalue()}\n"]
    got = _one(cells, "around")
    assert got["argv"][0].endswith("site-packages/ipykernel_launcher.py") and got["argv"][1] == "-f"
    assert got["connection"] is True
    assert not any("bwrap" in c or "launcher.py " in c.replace("ipykernel_launcher.py", "") for c in got["cmdlines"])
    assert got["modules"] == []
    assert {"JPY_PARENT_PID", "JPY_SESSION_NAME", "MPLBACKEND"} <= set(got["env"])
    assert not {"MPLCONFIGDIR", "IPYTHONDIR", "OMP_NUM_THREADS", "PIP_NO_INDEX"} & set(got["env"])
    assert "inline" in got["backend"]
    assert "generated new fontManager" not in got["log"]


def test_a_notebook_that_stops_reading_cannot_block_the_grader():
    """Valid calls of a grader's function written straight to the protocol pipe, and then no reading:
    the grader's replies fill the pipe, and the call ends at its limit instead of blocking the grader."""
    cells = ["import os, json, time\n"
             "def _protocol_out():\n"
             "    for f in sorted(int(f) for f in os.listdir('/proc/self/fd')):\n"
             "        flags = [l for l in open(f'/proc/self/fdinfo/{f}') if l.startswith('flags:')]\n"
             "        if f > 2 and os.readlink(f'/proc/self/fd/{f}').startswith('pipe:') and int(flags[0].split()[1], 8) & 3 == 1:\n"
             "            return f\n"
             "def stall(function):\n"
             "    line = (json.dumps({'callback': [c.cell_contents for c in function.__closure__ if isinstance(c.cell_contents, str)][0], 'args': [1], 'kwargs': {}}) + '\\n').encode()\n"
             "    fd = _protocol_out()\n"
             "    for _ in range(200):\n"
             "        os.write(fd, line)\n"
             "    time.sleep(120)\n"]
    big = Expr("lambda x: np.zeros(20_000)")
    started = time.monotonic()
    with Sandbox(cells, call_limit=3.0) as sb:
        with pytest.raises(SandboxError):
            sb.call("stall", big)
        assert sb.dead is not None
    assert time.monotonic() - started < 30


def test_the_grader_s_functions_cannot_exhaust_the_grader_s_memory():
    """A broadcast the size guard cannot foresee (1 x 40,000 times 40,000 x 1: 12.8 GB) gives a
    MemoryError in the notebook; the grader's own address space grows by at most about 1 GB."""
    import resource

    cells = ["import numpy as np\n"
             "def outer(function):\n"
             "    try:\n"
             "        function(np.ones((1, 40_000)), np.ones((40_000, 1)))\n"
             "    except MemoryError:\n"
             "        return 'MemoryError'\n"
             "    return 'computed'\n"]
    before = resource.getrlimit(resource.RLIMIT_AS)
    with Sandbox(cells) as sb:
        assert sb.call("outer", Expr("lambda a, b: np.asarray(a) * np.asarray(b)")) == "MemoryError"
    assert resource.getrlimit(resource.RLIMIT_AS) == before  # the cap is lifted after each call


def test_an_answer_that_cannot_cross_is_named_by_its_kind():
    cells = ["import numpy as np\ndef power():\n    return (-8.0) ** (2 / 3)\ndef thing():\n    return object()\n"]
    with Sandbox(cells) as sb:
        with pytest.raises(SandboxError, match="a complex number"):
            sb.call("power")
        with pytest.raises(SandboxError, match="an object that is not a number"):
            sb.call("thing")


def test_a_notebook_cannot_choose_the_grader_s_next_draws():
    """A notebook that sets the generator it was given to a state of its choice (here a degenerate
    one, whose draws are all 0) does not set the grader's generator: after the call the grader's
    generator moves to a state derived from its own and a secret of the run."""
    cells = ["import numpy as np\n"
             "def steer(rng):\n"
             "    rng.bit_generator.state = {'bit_generator': 'PCG64', 'state': {'state': 0, 'inc': 0},\n"
             "                               'has_uint32': 0, 'uinteger': 0}\n"
             "    return 1\n"]
    generator = np.random.default_rng(7)
    with Sandbox(cells, secret=1) as sb:
        sb.call("steer", generator)
    draws = generator.random(5)
    assert len(set(draws.tolist())) == 5 and np.all(draws > 0)
    again = np.random.default_rng(7)
    with Sandbox(cells, secret=1) as sb:
        sb.call("steer", again)
    assert np.array_equal(again.random(5), draws)  # reproducible from the run's secret


def test_grading_cut_short_keeps_the_questions_already_graded(tmp_path):
    """When a submission's grading runs past the outer limit, the questions graded before keep their
    scores (the row is flagged for review) instead of the whole notebook scoring 0."""
    sys.path.insert(0, str(ROOT / "tests"))
    import test_grading_tables as tables

    from grading.gradebook import grade_folder

    name = "a6_reconstruction"
    cells = [*tables.solution_cells(name),
             "import time\n\ndef recovery_experiment(*args, **kwargs):\n    time.sleep(100)\n"]
    tables.write_notebook(cells, tmp_path / "class" / "slow" / f"{name}.ipynb")
    rows = grade_folder(tmp_path / "class", name, tmp_path / "out", jobs=1, outer_limit=25,
                        limits={"call": 60.0, "question": 120.0}, progress=lambda line: None)
    row = rows[0]
    assert "timeout" in row["flags"]
    assert row["scores"]["q1"] == 3.0 and row["scores"]["q2"] == 4.0 and row["scores"]["q3"] == 0.0

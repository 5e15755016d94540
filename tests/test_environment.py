"""The environment is locked: requirements.txt, requirements.lock, runtime.txt and .venv agree.

``requirements.txt`` pins the direct dependencies (Binder reads it); ``requirements.lock``
pins every package of the environment with its hashes, and ``make`` creates ``.venv``
from it with ``pip --require-hashes``. ``make lock`` refreshes the lock.
"""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        m = PIN.match(line.strip())
        if m:
            pins[_norm(m[1])] = m[2]
    return pins


def _lock_entries() -> dict[str, list[str]]:
    """Lock entry 'name==version' -> its hash options."""
    entries: dict[str, list[str]] = {}
    current = None
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        m = PIN.match(line)
        if m:
            current = f"{_norm(m[1])}=={m[2]}"
            entries[current] = []
        elif current and line.strip().startswith("--hash=sha256:"):
            entries[current].append(line.strip().rstrip(" \\"))
        elif not line.startswith(" "):
            current = None
    return entries


def test_every_direct_pin_is_locked_at_the_same_version():
    direct = _pins(ROOT / "requirements.txt")
    locked = _pins(ROOT / "requirements.lock")
    assert len(direct) >= 25
    mismatched = {n: (v, locked.get(n)) for n, v in direct.items() if locked.get(n) != v}
    assert not mismatched, f"requirements.txt and requirements.lock disagree (run `make lock`): {mismatched}"


def test_requirements_txt_pins_every_line():
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line == "-e .":
            continue
        assert PIN.match(line), f"requirements.txt: unpinned requirement {line!r}"


def test_every_lock_entry_has_a_sha256_hash():
    entries = _lock_entries()
    assert len(entries) > 100, "the lock holds the whole environment, not only direct pins"
    assert all(hashes for hashes in entries.values()), [k for k, v in entries.items() if not v]


def test_runtime_and_lock_agree_on_python():
    runtime = (ROOT / "runtime.txt").read_text().strip()
    assert runtime == "python-3.11"
    assert sys.version_info[:2] == (3, 11)
    assert "--python-version 3.11" in (ROOT / "Makefile").read_text()


def test_makefile_installs_from_the_lock_with_hashes():
    makefile = (ROOT / "Makefile").read_text()
    assert "--require-hashes --no-deps -r requirements.lock" in makefile
    assert re.search(r"^\$\(STAMP\): requirements\.lock", makefile, re.M)


def test_the_environment_is_the_lock():
    """Every locked package is installed at its locked version (the .venv came from the lock)."""
    wrong = {}
    for entry in _lock_entries():
        name, version = entry.split("==")
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            wrong[name] = (version, None)
            continue
        if installed != version:
            wrong[name] = (version, installed)
    assert not wrong, f"installed packages differ from requirements.lock: {wrong}"


@pytest.mark.parametrize("breakage", ["hash", "version"])
def test_a_tampered_lock_entry_fails_loudly(tmp_path, breakage):
    """Deliberate break: a lock entry with a wrong hash or version is refused by pip."""
    entries = _lock_entries()
    entry = next(e for e in entries if e.startswith("six==") or e.startswith("pure-eval=="))
    name, version = entry.split("==")
    hashes = list(entries[entry])
    if breakage == "hash":
        hashes[0] = hashes[0][:-8] + "00000000"
        hashes = hashes[:1]
    else:
        version = version + ".999"
    req = tmp_path / "one.lock"
    req.write_text(f"{name}=={version} \\\n" + " \\\n".join(f"    {h}" for h in hashes) + "\n")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--require-hashes", "--quiet",
         "-r", str(req), "-d", str(tmp_path / "dl")],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode != 0
    assert ("HASHES" in result.stderr.upper()) or ("No matching distribution" in result.stderr), result.stderr

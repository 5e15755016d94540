"""Re-export the public names of every chapter module of a package (plotting, widgets)."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, MutableMapping


def gather_chapter_modules(
    package: str, path: Iterable[str], namespace: MutableMapping, names: list[str]
) -> None:
    """Import each non-private module of ``package`` and copy its ``__all__`` into ``namespace``."""
    for info in sorted(pkgutil.iter_modules(path), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        for name in getattr(module, "__all__", []):
            namespace[name] = getattr(module, name)
            if name not in names:
                names.append(name)

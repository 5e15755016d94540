"""Chapter helpers (filled in by the chapter that needs them)."""

from __future__ import annotations

__all__: list[str] = []

"""The figure check: every figure of a chapter is numbered, captioned, described and referred to.

A code cell whose rendered output holds an image (``image/png`` or ``image/svg+xml``) must

* draw exactly one image;
* carry myst-nb metadata ``mystnb.figure.caption`` (a sentence) and ``mystnb.figure.name``
  (a label starting with ``fig-``), so that Sphinx numbers it and the text can say
  "Figure 8.2";
* carry ``mystnb.image.alt``: alt text of at least eight words that is not a file name;
* be referred to from the chapter's prose ({numref}`fig-…`, {ref}`fig-…` or ``(#fig-…)``).

Cells tagged ``remove-output`` or ``remove-cell`` are not rendered and are skipped.

Usage: python tests/quality/check_figures.py book/ch03_randomized_response.ipynb [...]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

IMAGE_MIMES = ("image/png", "image/svg+xml", "image/jpeg")
FILE_LIKE = re.compile(r"(\.(png|svg|jpe?g|gif)\b)|_images/|^[\w./-]+$")
MIN_ALT_WORDS = 8


def figure_problems(path: Path) -> tuple[int, list[str]]:
    """Return (number of figures, list of problems) for one notebook."""
    nb = json.loads(Path(path).read_text())
    prose = "\n".join(
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        for c in nb["cells"]
        if c["cell_type"] == "markdown"
    )
    problems: list[str] = []
    names: list[str] = []
    count = 0
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        tags = set(cell.get("metadata", {}).get("tags", []))
        if tags & {"remove-output", "remove-cell"}:
            continue
        images = [o for o in cell.get("outputs", []) if any(m in o.get("data", {}) for m in IMAGE_MIMES)]
        if not images:
            continue
        count += 1
        where = f"cell {i}"
        if len(images) > 1:
            problems.append(f"{where}: draws {len(images)} images; one figure per cell")
        meta = cell.get("metadata", {}).get("mystnb", {})
        figure = meta.get("figure", {}) or {}
        image = meta.get("image", {}) or {}
        caption = str(figure.get("caption", "")).strip()
        name = str(figure.get("name", "")).strip()
        alt = str(image.get("alt", "")).strip()
        if not caption:
            problems.append(f"{where}: no caption (metadata mystnb.figure.caption)")
        if not name.startswith("fig-"):
            problems.append(f"{where}: no label starting with 'fig-' (metadata mystnb.figure.name)")
        else:
            if name in names:
                problems.append(f"{where}: label {name} is used twice")
            names.append(name)
            if not re.search(rf"(`{re.escape(name)}`|<{re.escape(name)}>`|\(#{re.escape(name)}\))", prose):
                problems.append(f"{where}: {name} is never referred to from the text ({{numref}}`{name}`)")
        if len(alt.split()) < MIN_ALT_WORDS:
            problems.append(f"{where}: alt text has {len(alt.split())} words; at least {MIN_ALT_WORDS} (mystnb.image.alt)")
        elif FILE_LIKE.search(alt):
            problems.append(f"{where}: alt text looks like a file name: {alt!r}")
    return count, problems


def main(argv: list[str]) -> int:
    status = 0
    for name in argv:
        count, problems = figure_problems(Path(name))
        print(f"{name}: {count} figures, {len(problems)} problems")
        for p in problems:
            print("  " + p)
        status |= bool(problems)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

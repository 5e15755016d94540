"""Rewrite backtick-fenced MyST directives as colon fences, in notebooks and markdown files.

A directive written as ```{prf:theorem} ... ``` stays a grey code block wherever MyST is
not understood (Colab, GitHub, a plain Markdown viewer). The same directive written with a
colon fence (:::{prf:theorem} ... :::) leaves its body as ordinary Markdown, so its math
is still typeset. Directives that contain other directives get one more colon per level.

Usage: python tests/quality/colon_fences.py FILE [FILE ...]   (rewrites in place)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:.-]+)\}(?P<rest>.*)$")
PLAIN_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
# Directives whose body is literal text (code), not markdown: keep them as they are.
LITERAL = {"code", "code-block", "code-cell", "sourcecode", "math", "raw", "eval-rst"}


def convert(text: str) -> str:
    lines = text.split("\n")
    # Stack entries: [kind, fence, start_line, children_depth]; kind is "dir" or "code".
    stack: list[list] = []
    spans: list[tuple[int, int, int]] = []  # (open line, close line, depth of nested dirs)
    for i, line in enumerate(lines):
        if stack and stack[-1][0] == "code":
            fence = stack[-1][1]
            if line.strip() == fence or (line.strip().startswith(fence[0]) and set(line.strip()) == {fence[0]} and len(line.strip()) >= len(fence)):
                stack.pop()
            continue
        m = OPEN.match(line)
        if m and m["name"] not in LITERAL:
            stack.append(["dir", m["fence"], i, 0])
            continue
        if stack and stack[-1][0] == "dir" and line.strip() == stack[-1][1]:
            kind, fence, start, depth = stack.pop()
            spans.append((start, i, depth))
            if stack and stack[-1][0] == "dir":
                stack[-1][3] = max(stack[-1][3], depth + 1)
            continue
        m = PLAIN_OPEN.match(line)
        if m and not line.strip().startswith(":"):
            stack.append(["code", m["fence"], i, 0])
    if stack:
        raise ValueError(f"unbalanced fences: {stack}")
    for start, end, depth in spans:
        colons = ":" * (3 + depth)
        m = OPEN.match(lines[start])
        lines[start] = f"{m['indent']}{colons}{{{m['name']}}}{m['rest']}"
        indent = re.match(r"^\s*", lines[end]).group(0)
        lines[end] = f"{indent}{colons}"
    return "\n".join(lines)


def convert_file(path: Path) -> bool:
    if path.suffix == ".ipynb":
        import nbformat

        nb = nbformat.read(path, as_version=4)
        changed = False
        for cell in nb["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            src = cell["source"]
            new = convert(src)
            if new != src:
                cell["source"] = new
                changed = True
        if changed:
            nbformat.write(nb, path)
        return changed
    src = path.read_text()
    new = convert(src)
    if new != src:
        path.write_text(new)
    return new != src


if __name__ == "__main__":
    for name in sys.argv[1:]:
        if convert_file(Path(name)):
            print("converted", name)

"""The claims check: every number written in a chapter's prose is computed by the chapter.

A number in a markdown cell is *backed* when

* some number in the chapter's code (sources) or printed outputs, rounded to the
  precision the prose writes, equals it (a cell tagged ``remove-cell`` may compute the
  numbers an exercise solution states), or
* it is inserted by myst-nb ``glue`` (then it is not written in the prose at all), or
* it is listed for that chapter, with its reason, in ``claims_allowlist.yml``.

Checked: every decimal number, percentage, number in scientific notation (``6.5e-7``,
``6.5 \\times 10^{-7}``, ``10^{-3}``, ``10⁻³``) and integer of 10 or more, in text and in
``$…$`` math alike. Not checked: integers below 10, years (1900-2099), and references to
numbered things ("Prop. 3.1", "Section 8.5", "Lemma 3.17", "chapter 4", "eq. 5",
"Figure 8.2", "§3.2"), labels, roles and link targets.

Usage: python tests/quality/check_claims.py book/ch03_randomized_response.ipynb [...]
Exit status 1 when a number is unbacked; each one is listed with its cell and context.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ALLOWLIST = HERE / "claims_allowlist.yml"

_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_REF_WORDS = (
    r"Propositions?|Props?|Theorems?|Thms?|Lemmas?|Corollary|Corollaries|Claims?|Definitions?|Defs?|"
    r"Sections?|Secs?|Chapters?|Ch|ch|Figures?|Figs?|Tables?|Equations?|Eqs?|eqs?|eq|Examples?|"
    r"Exercises?|Algorithms?|Parts?|Appendix|Remarks?|Facts?|Assumptions?|Conditions?|condition|"
    r"Steps?|Issues?|issue|version|Version|WCAG|Python|NumPy|SciPy|otter-grader|Jupyter Book|SPEC|"
    r"section|chapters?|figures?|tables?|lemma|theorem|proposition|part|step|exercise|assignment|"
    r"Assignment|Display|display|line|Line|Cell|cell|Question|question|Q|q|Part|PEP|RFC"
)
_REFERENCE = re.compile(
    rf"(?:\b(?:{_REF_WORDS})\.?|§)\s*~?\(?[A-Z]?\d+(?:\.\d+)*[a-z]?\)?"
    rf"(?:\s*(?:,|and|or|–|-|to)\s*\(?\d+(?:\.\d+)*\)?)*"
)
_ROLE = re.compile(r"\{[\w:-]+\}`[^`]*`")
_LABEL_LINE = re.compile(r"^\s*(?::(?:label|name|class|nonumber|hidden|width|align|alt|figwidth)\b.*|\([\w-]+\)=\s*)$", re.M)
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_URL = re.compile(r"https?://\S+")
_DIRECTIVE_NAME = re.compile(r"^\s*:{3,}\{[^}]*\}", re.M)
_CITE_KEY = re.compile(r"\b[a-z]+\d{4}[a-z]*\b")  # bib keys outside roles, e.g. hall2011random

# A number: optional thousands separators (1,000  1{,}000  1\,000  1 000  1_000), decimals,
# an optional exponent (e-7, \times 10^{-7}, ·10⁻⁷); or a bare power of ten 10^{-3}.
_NUMBER = re.compile(
    r"(?<![\w.\\])"
    r"(?P<int>\d{1,3}(?:(?:,|\{,\}|\\,|\\ | |_)\d{3})+(?!\d)|\d+)"
    r"(?:\.(?P<frac>\d+))?"
    r"(?:\s*(?:[eE](?P<exp1>[-+−]?\d+)|(?:\\times|×|\\cdot|·)\s*10\s*(?:\^\s*\{?\s*(?P<exp2>[-+−]?\d+)\s*\}?|(?P<exp3>[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))))?"
    r"(?P<pct>\s*(?:\\?%|\\,\\%|percent\b))?"
)
_POWER_OF_TEN = re.compile(r"(?<![\w.\\])10\s*(?:\^\s*\{?\s*(?P<exp>[-+−]?\d+)\s*\}?|(?P<sup>[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))")
_CORPUS_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:[,_]\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?")


@dataclass
class Claim:
    cell: int
    text: str          # as written
    value: float
    decimals: int      # digits after the point (for plain numbers)
    sig_digits: int    # significant digits (for scientific notation), else 0
    percent: bool
    context: str


def _clean_markdown(src: str) -> str:
    src = _ROLE.sub(" ", src)
    src = _LABEL_LINE.sub(" ", src)
    src = _LINK_TARGET.sub("]", src)
    src = _URL.sub(" ", src)
    src = _DIRECTIVE_NAME.sub(" ", src)
    src = _CITE_KEY.sub(" ", src)
    src = _REFERENCE.sub(" ", src)
    return src


def _is_year(text: str, value: float) -> bool:
    return re.fullmatch(r"\d{4}", text) is not None and 1900 <= value <= 2099


def extract_claims(src: str, cell: int) -> list[Claim]:
    """The checkable numbers of one markdown cell."""
    text = _clean_markdown(src)
    claims: list[Claim] = []
    taken: list[tuple[int, int]] = []
    for m in _POWER_OF_TEN.finditer(text):
        exp = m["exp"] if m["exp"] is not None else m["sup"].translate(_SUPERSCRIPT)
        exp = exp.replace("−", "-")
        # preceded by a mantissa and \times: handled by _NUMBER below
        before = text[max(0, m.start() - 12):m.start()]
        if re.search(r"(?:\\times|×|\\cdot|·)\s*$", before):
            continue
        value = 10.0 ** int(exp)
        claims.append(Claim(cell, m.group(0), value, 0, 1, False, _context(text, m)))
        taken.append(m.span())
    for m in _NUMBER.finditer(text):
        if any(s <= m.start() < e for s, e in taken):
            continue
        int_part = re.sub(r"\{,\}|\\,|\\ |[ ,_]", "", m["int"])
        frac = m["frac"] or ""
        exp = m["exp1"] or m["exp2"] or (m["exp3"].translate(_SUPERSCRIPT) if m["exp3"] else None)
        value = float(f"{int_part}.{frac}" if frac else int_part)
        sig = 0
        if exp is not None:
            exp = exp.replace("−", "-")
            sig = len((int_part + frac).lstrip("0")) or 1
            value = value * 10.0 ** int(exp)
        percent = bool(m["pct"])
        if not frac and exp is None and not percent:
            if value < 10 or _is_year(m.group(0).strip(), value):
                continue
        claims.append(Claim(cell, m.group(0).strip(), value, len(frac), sig, percent, _context(text, m)))
    return claims


def _context(text: str, m: re.Match) -> str:
    start, end = max(0, m.start() - 40), min(len(text), m.end() + 40)
    return " ".join(text[start:end].split())


def _output_text(output: dict) -> str:
    if output.get("output_type") == "stream":
        return "".join(output.get("text", ""))
    data = output.get("data", {})
    parts = []
    for mime in ("text/plain", "text/html", "text/markdown", "text/latex"):
        if mime in data:
            value = data[mime]
            parts.append("".join(value) if isinstance(value, list) else value)
    return "\n".join(parts)


def corpus_numbers(nb: dict) -> list[float]:
    """Every number in the notebook's code cells and their outputs."""
    chunks = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = cell["source"]
        chunks.append("".join(src) if isinstance(src, list) else src)
        for output in cell.get("outputs", []):
            chunks.append(_output_text(output))
    values = []
    for chunk in chunks:
        for token in _CORPUS_NUMBER.findall(chunk):
            token = token.replace(",", "").replace("_", "")
            if not re.search(r"\d", token):
                continue
            try:
                values.append(abs(float(token)))
            except ValueError:
                continue
    return values


def _rounds_to(c: float, claim: Claim, scale: float = 1.0) -> bool:
    c = c * scale
    v = claim.value
    if claim.sig_digits:
        if c == 0 or v == 0:
            return c == v
        return f"{c:.{claim.sig_digits - 1}e}" == f"{v:.{claim.sig_digits - 1}e}"
    if v != 0 and v < 10.0 ** (-claim.decimals):
        return False
    return math.isclose(round(c, claim.decimals), v, rel_tol=0, abs_tol=0.5 * 10.0 ** (-claim.decimals - 3)) or (
        # round-half cases written either way (0.125 -> 0.12 or 0.13)
        abs(c - v) <= 0.5 * 10.0 ** (-claim.decimals) * (1 + 1e-9)
    )


def is_backed(claim: Claim, corpus: list[float]) -> bool:
    scales = (1.0, 100.0) if claim.percent else (1.0,)
    return any(_rounds_to(c, claim, s) for c in corpus for s in scales)


def load_allowlist(path: Path = ALLOWLIST) -> dict[str, dict[str, str]]:
    """chapter stem -> {number as written: reason}."""
    if not path.exists():
        return {}
    entries = yaml.safe_load(path.read_text()) or []
    out: dict[str, dict[str, str]] = {}
    for entry in entries:
        for key in ("chapter", "number", "reason"):
            if not entry.get(key):
                raise ValueError(f"{path.name}: every entry needs chapter, number and reason: {entry}")
        out.setdefault(str(entry["chapter"]), {})[str(entry["number"])] = str(entry["reason"])
    return out


def check_notebook(path: Path, allowlist: dict[str, dict[str, str]] | None = None) -> tuple[list[Claim], list[Claim]]:
    """Return (all claims, unbacked claims) of one notebook."""
    nb = json.loads(Path(path).read_text())
    allowed = (allowlist if allowlist is not None else load_allowlist()).get(Path(path).stem, {})
    corpus = corpus_numbers(nb)
    claims: list[Claim] = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        src = cell["source"]
        claims.extend(extract_claims("".join(src) if isinstance(src, list) else src, i))
    unbacked = [c for c in claims if c.text not in allowed and not is_backed(c, corpus)]
    return claims, unbacked


def main(argv: list[str]) -> int:
    status = 0
    total = backed = 0
    for name in argv:
        claims, unbacked = check_notebook(Path(name))
        total += len(claims)
        backed += len(claims) - len(unbacked)
        print(f"{name}: {len(claims)} numbers, {len(unbacked)} unbacked")
        for c in unbacked:
            print(f"  cell {c.cell}: {c.text!r} in “…{c.context}…”")
        status |= bool(unbacked)
    if len(argv) > 1:
        print(f"total: {total} numbers, {total - backed} unbacked")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

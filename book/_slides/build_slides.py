"""Build a reveal.js deck for every chapter of the book from the chapter notebooks.

Usage: ``python book/_slides/build_slides.py [--out _build/slides] [book/chNN_name.ipynb ...]``
(``make slides`` runs it on every chapter). The notebooks are not executed: the decks use the
outputs stored in them, so a deck shows exactly the figures of the rendered book.

Which cells become slides is decided by rules, so a new chapter gets a deck without edits:

* a title slide (the chapter title and its part of the book);
* the "Learning objectives", "Summary" and every other admonition outside the exercises;
* every definition, theorem, lemma, corollary, proposition and algorithm box (``prf:`` directives;
  proofs stay in the book);
* every figure: a code cell with myst-nb figure metadata (and whose output the book shows)
  becomes its stored image, caption and alt text. An explorer is never shown (its widget needs a kernel); the static figure that follows
  it in the notebook is a figure cell, so it gets its slide;
* one slide that lists the chapter's exercises by title and label (to set them by label).

Cell tags adjust the rules: ``slide`` adds a cell (a code cell is shown with its source and text
or image outputs, a markdown cell whole), ``no-slide`` drops a cell the rules would take.

Everything a deck loads sits next to it: reveal.js (vendored in ``book/_slides/vendor``, MIT) and
MathJax 3 (copied from the ``sphinx-mathjax-offline`` package of the book's environment). No CDN.
"""

from __future__ import annotations

import argparse
import base64
import copy
import html
import re
import shutil
import sys
from pathlib import Path

import nbformat
import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from nbconvert import SlidesExporter

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BOOK = ROOT / "book"
REVEAL_DIR = HERE / "vendor" / "reveal.js"
TEMPLATE_DIR = HERE / "template"

BOXES = ("definition", "theorem", "lemma", "corollary", "proposition", "algorithm")
SLIDE_TAG, NO_SLIDE_TAG = "slide", "no-slide"
EXPLORER_NOTE = ('<p class="source-note">In the chapter\'s notebook this figure is an explorer with sliders: '
                 "run it in JupyterLab, on a JupyterHub, on Binder or in Colab.</p>")
DECK_WIDTH, DECK_HEIGHT = 1280, 800

CSS = """
.reveal { font-size: 30px; }
.reveal .slides section { text-align: left; }
.reveal .slides h1, .reveal .slides h2, .reveal .slides h3 { text-transform: none; }
.reveal h1 { font-size: 1.9em; }
.reveal h2 { font-size: 1.2em; color: #1f4e79; }
.reveal h3.chapter-part { font-size: 0.8em; color: #555; font-weight: normal; text-transform: none; }
.reveal p, .reveal li { line-height: 1.3; }
.reveal ul { display: block; margin-left: 1em; }
.reveal .box { border-left: 6px solid #1f4e79; background: #f3f7fb; padding: 0.4em 0.8em; margin: 0.3em 0; }
.reveal .box.theorem, .reveal .box.lemma, .reveal .box.corollary, .reveal .box.proposition { border-color: #7a3e9d; background: #f7f2fa; }
.reveal .box.algorithm { border-color: #2e7d32; background: #f1f8f2; }
.reveal .box.admonition { border-color: #b35c00; background: #fff6ec; }
.reveal .box-title { font-weight: bold; margin: 0 0 0.3em 0; }
.reveal figure { margin: 0; text-align: center; }
.reveal figure img { height: 18em; max-width: 100%; object-fit: contain; margin: 0 auto; }
.reveal figcaption { font-size: 0.62em; color: #333; text-align: left; }
.reveal table { font-size: 0.75em; }
.reveal .jp-Cell { font-size: 0.8em; }
.reveal .source-note { font-size: 0.55em; color: #555; }
.reveal li code { font-size: 0.75em; color: #444; }
mjx-container[display="true"] { margin: 0.4em 0 !important; }
"""


# ----------------------------------------------------------------------------------------------
# Reading the book: titles, parts, labels and references
# ----------------------------------------------------------------------------------------------

def _first_heading(path: Path) -> str:
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    match = re.search(r"^# (.+)$", text, flags=re.MULTILINE)
    return match.group(1).strip() if match else path.stem


class Book:
    """What a deck needs to know about the whole book: titles, parts, labels, references."""

    def __init__(self) -> None:
        toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
        self.part_of: dict[str, str] = {}
        self.chapter_number: dict[str, int] = {}  # numbered parts count their chapters on, as the book does
        for part in toc.get("parts", []):
            for entry in part.get("chapters", []):
                self.part_of[entry["file"]] = part.get("caption", "")
                if part.get("numbered"):
                    self.chapter_number[entry["file"]] = len(self.chapter_number) + 1
        config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
        self.book_title = config.get("title", "")
        macros = config.get("sphinx", {}).get("config", {}).get("mathjax3_config", {})
        self.macros = macros.get("tex", {}).get("macros", {})
        self.labels: dict[str, str] = {}
        self.references = self._read_bib(ROOT / "references.bib")
        for chapter in sorted(BOOK.glob("ch*.ipynb")):
            self.parse(nbformat.read(chapter, as_version=4), chapter.stem)

    @staticmethod
    def _read_bib(path: Path) -> dict[str, str]:
        from pybtex.database import parse_file

        cites = {}
        for key, entry in parse_file(str(path)).entries.items():
            people = entry.persons.get("author") or entry.persons.get("editor") or []
            names = [" ".join(p.last_names) for p in people]
            if not names:
                who = entry.fields.get("organization") or entry.fields.get("institution") or key
            elif len(names) == 1:
                who = names[0]
            elif len(names) == 2:
                who = f"{names[0]} and {names[1]}"
            else:
                who = f"{names[0]} et al."
            who = re.sub(r"[{}]", "", who)
            cites[key] = f"{who} {entry.fields.get('year', 'n.d.')}"
        return cites

    def parse(self, nb, stem: str) -> list[list[str | Directive]]:
        """Split every markdown cell into text and directives, number the boxes, exercises and
        figures the way the book does (Theorem 3.2, Fig. 3.1: per kind, within the chapter) and
        record what each label shows. Returns the blocks of each cell (empty for code cells)."""
        chapter = self.chapter_number.get(f"book/{stem}")
        counters: dict[str, int] = {}

        def number(kind: str) -> str | None:
            counters[kind] = counters.get(kind, 0) + 1
            return f"{chapter}.{counters[kind]}" if chapter else None

        def visit(block: Directive) -> None:
            kind = block.name.split(":")[-1]
            if kind in BOXES or kind == "exercise":
                block.number = number(kind)
            name = f"{kind.capitalize()} {block.number}" if block.number else f"the {kind}"
            if block.label:
                titled = f"{kind.capitalize()} ({block.title})" if block.title else name
                self.labels[block.label] = name if block.number else titled
            for inner in split_directives(block.body):
                if isinstance(inner, Directive):
                    visit(inner)

        blocks = []
        for cell in nb.cells:
            if cell.cell_type == "code":
                figure = cell.metadata.get("mystnb", {}).get("figure")
                tags = set(cell.metadata.get("tags", []))
                if figure and not tags & {"remove-cell", "remove-output"}:
                    fig = number("figure")
                    if figure.get("name"):
                        self.labels[figure["name"]] = f"Fig. {fig}" if fig else "the figure"
                    cell.metadata.setdefault("rdp_slides", {})["figure_number"] = fig
                blocks.append([])
                continue
            cell_blocks = split_directives(cell.source)
            for block in cell_blocks:
                if isinstance(block, Directive):
                    visit(block)
            for label, heading in re.findall(r"^\(([\w:-]+)\)=\s*\n#+ (.+)$", cell.source, flags=re.MULTILINE):
                self.labels[label] = f"“{heading.strip()}”"
            blocks.append(cell_blocks)
        return blocks

    def doc_title(self, target: str, base: Path) -> str:
        path = (base / target).resolve()
        for suffix in (".ipynb", ".md"):
            if path.with_suffix(suffix).exists():
                return _first_heading(path.with_suffix(suffix))
        return target

    def resolve_roles(self, text: str, base: Path) -> str:
        """Replace MyST roles by the plain text a slide can show (a deck has no cross-references)."""

        def role(match: re.Match) -> str:
            name, content = match.group(1), match.group(2)
            explicit = re.fullmatch(r"(.*?)\s*<([^>]+)>", content, flags=re.DOTALL)
            text, target = (explicit.group(1), explicit.group(2)) if explicit else (None, content)
            if name in ("cite:p", "cite:t", "cite"):
                keys = [k.strip() for k in content.split(",")]
                return "(" + "; ".join(self.references.get(k, k) for k in keys) + ")"
            if name == "doc":
                return text if text else f"“{self.doc_title(target, base)}”"
            if name == "numref":
                if text:
                    return text.replace("%s", "").replace("{number}", "").strip()
                return self.labels.get(target, "the figure" if target.startswith("fig") else "the reference")
            if name in ("prf:ref", "ref", "eq", "term"):
                if text:
                    return text
                return self.labels.get(target, target if name == "term" else "the reference")
            if name == "math":
                return f"${content}$"
            return text or content

        return re.sub(r"\{([\w:-]+)\}`([^`]*)`", role, text)


# ----------------------------------------------------------------------------------------------
# MyST directives (colon fences) and Markdown to HTML
# ----------------------------------------------------------------------------------------------

class Directive:
    """A colon-fenced MyST directive: name, title, options and the body's source."""

    def __init__(self, name: str, title: str, options: dict[str, str], body: str) -> None:
        self.name, self.title, self.options, self.body = name, title, options, body
        self.number: str | None = None  # set by Book.parse, as the book numbers it ("3.2")

    @property
    def label(self) -> str | None:
        return self.options.get("label")


_OPEN = re.compile(r"^(:{3,}|`{3,})\{([\w:-]+)\}[ \t]*(.*)$")


def split_directives(text: str) -> list[str | Directive]:
    """Split Markdown into plain text and top-level directives (their bodies are kept raw)."""
    lines = text.split("\n")
    blocks: list[str | Directive] = []
    plain: list[str] = []
    i = 0
    while i < len(lines):
        match = _OPEN.match(lines[i])
        if not match:
            plain.append(lines[i])
            i += 1
            continue
        fence, name, title = match.groups()
        j, depth = i + 1, 1
        while j < len(lines):
            stripped = lines[j].strip()
            inner = _OPEN.match(lines[j])
            if inner and inner.group(1) == fence:
                depth += 1
            elif stripped == fence:
                depth -= 1
                if depth == 0:
                    break
            j += 1
        body_lines = lines[i + 1:j]
        options = {}
        while body_lines and re.match(r"^:[\w-]+:", body_lines[0]):
            key, _, value = body_lines.pop(0)[1:].partition(":")
            options[key] = value.strip()
        if plain:
            blocks.append("\n".join(plain))
            plain = []
        blocks.append(Directive(name, title.strip(), options, "\n".join(body_lines)))
        i = j + 1
    if plain:
        blocks.append("\n".join(plain))
    return blocks


def _math(content: str, options: dict) -> str:
    content = html.escape(content, quote=False)
    return rf"\[{content}\]" if options.get("display_mode") else rf"\({content}\)"


_MD = (
    MarkdownIt("commonmark", {"html": True, "typographer": False})
    .enable("table")
    .use(dollarmath_plugin, double_inline=True, renderer=_math, label_renderer=lambda label: "")
    .use(amsmath_plugin, renderer=lambda content: html.escape(content, quote=False))
)


def myst_to_html(text: str, book: Book, base: Path) -> str:
    """Render MyST Markdown (the subset the chapters use) to HTML with MathJax delimiters."""
    text = re.sub(r"^\([\w:-]+\)=\s*$", "", text, flags=re.MULTILINE)  # targets
    parts = []
    for block in split_directives(text):
        if isinstance(block, str):
            parts.append(_MD.render(book.resolve_roles(block, base)))
            continue
        if block.name.split(":")[-1] not in ("solution-start", "solution-end", "solution", "proof"):
            parts.append(directive_html(block, book, base))
    return "\n".join(parts)


def directive_html(block: Directive, book: Book, base: Path) -> str:
    """A box (definition, theorem, admonition, ...) with its title and rendered body."""
    kind = block.name.split(":")[-1]
    if kind == "admonition":
        heading, css = block.title, "admonition"
    else:
        name = kind.capitalize() + (f" {block.number}" if block.number else "")
        heading, css = name + (f" ({block.title})" if block.title else ""), kind
    title_html = _MD.renderInline(book.resolve_roles(heading, base)) if heading else ""
    return (f'<div class="box {css}">'
            + (f'<p class="box-title">{title_html}</p>' if title_html else "")
            + myst_to_html(block.body, book, base) + "</div>")


# ----------------------------------------------------------------------------------------------
# Choosing the slides of a chapter
# ----------------------------------------------------------------------------------------------

def _heading(title: str, book: Book, base: Path) -> str:
    return f"<h2>{_MD.renderInline(book.resolve_roles(title, base))}</h2>" if title else ""


def _raw_slide(html_text: str) -> nbformat.NotebookNode:
    """One slide of HTML (a slide taller than the deck is shrunk to fit in the browser)."""
    cell = nbformat.v4.new_raw_cell(f'<div class="slide-body">\n{html_text}\n</div>')
    cell.metadata["raw_mimetype"] = "text/html"
    cell.metadata["slideshow"] = {"slide_type": "slide"}
    return cell


def _figure_html(cell, book: Book, base: Path) -> str | None:
    meta = cell.metadata.get("mystnb", {})
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if "image/png" in data:
            src = "data:image/png;base64," + "".join(data["image/png"]).replace("\n", "")
            break
        if "image/svg+xml" in data:
            svg = "".join(data["image/svg+xml"]).encode()
            src = "data:image/svg+xml;base64," + base64.b64encode(svg).decode()
            break
    else:
        return None
    alt = meta.get("image", {}).get("alt", "")
    caption = meta.get("figure", {}).get("caption", "")
    caption_html = _MD.renderInline(book.resolve_roles(caption, base)) if caption else ""
    number = cell.metadata.get("rdp_slides", {}).get("figure_number")
    if number:
        caption_html = f"<strong>Fig. {number}</strong> {caption_html}"
    return (f'<figure><img src="{src}" alt="{html.escape(alt)}">'
            + (f"<figcaption>{caption_html}</figcaption>" if caption_html else "") + "</figure>")


def _without_widgets(cell) -> nbformat.NotebookNode:
    cell = copy.deepcopy(cell)
    outputs = []
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if "application/vnd.jupyter.widget-view+json" in data:
            continue
        outputs.append(output)
    cell.outputs = outputs
    cell.execution_count = None
    cell.metadata = {"slideshow": {"slide_type": "-"}}
    return cell


#: An admonition whose body is a bullet list longer than this (in characters of Markdown) is split
#: over several slides, "Summary (1 of 2)", ..., so that no slide outgrows the deck.
LIST_SLIDE_CHARS = 1500


def _split_long_list(block: Directive) -> list[Directive]:
    """The admonition itself, or copies of it that share its top-level bullet items out in order."""
    lines = block.body.split("\n")
    items, head = [], []
    for line in lines:
        if line.startswith(("- ", "* ")):
            items.append([line])
        elif items:
            items[-1].append(line)
        else:
            head.append(line)
    if len(block.body) <= LIST_SLIDE_CHARS or len(items) < 2:
        return [block]
    groups, current, size = [], [], len("\n".join(head))
    for item in items:
        text = "\n".join(item)
        if current and size + len(text) > LIST_SLIDE_CHARS:
            groups.append(current)
            current, size = [], 0
        current.append(text)
        size += len(text)
    groups.append(current)
    if len(groups) == 1:
        return [block]
    parts = []
    for number, group in enumerate(groups, start=1):
        body = "\n".join((head if number == 1 else []) + group)
        title = f"{block.title} ({number} of {len(groups)})" if block.title else ""
        parts.append(Directive(block.name, title, block.options, body))
    return parts


def chapter_slides(path: Path, book: Book) -> tuple[nbformat.NotebookNode, int]:
    """The deck of one chapter as a notebook of slide cells, and its number of slides."""
    nb = nbformat.read(path, as_version=4)
    parsed = book.parse(nb, path.stem)  # numbers and labels, also for a notebook outside book/
    base = path.parent
    key = f"book/{path.stem}"
    title = _first_heading(path)
    cells = []
    part = book.part_of.get(key, "")
    cells.append(_raw_slide(
        f"<h1>{_MD.renderInline(title)}</h1>"
        + (f'<h3 class="chapter-part">{html.escape(part)}</h3>' if part else "")
        + f'<p class="source-note">Slides from the chapter of <em>{html.escape(book.book_title)}</em>, '
        "built from the same notebook as the book.</p>"))
    section, in_exercises, exercises, after_explorer = "", False, [], False

    for cell, blocks in zip(nb.cells, parsed, strict=True):
        tags = set(cell.metadata.get("tags", []))
        if NO_SLIDE_TAG in tags:
            continue
        if cell.cell_type == "markdown":
            if SLIDE_TAG in tags:
                cells.append(_raw_slide(_heading(section, book, base) + myst_to_html(cell.source, book, base)))
            for block in blocks:
                if isinstance(block, str):
                    for heading in re.findall(r"^##+ (.+)$", block, flags=re.MULTILINE):
                        section = heading.strip()
                        in_exercises = section.lower() == "exercises"
                    continue
                kind = block.name.split(":")[-1]
                if kind == "exercise":
                    exercises.append((block.number, block.title, block.label))
                if SLIDE_TAG in tags or in_exercises:
                    continue
                if kind == "admonition":
                    for part in _split_long_list(block):
                        cells.append(_raw_slide(directive_html(part, book, base)))
                elif kind in BOXES:
                    cells.append(_raw_slide(_heading(section, book, base) + directive_html(block, book, base)))
        elif cell.cell_type == "code":
            if "explorer" in tags:
                after_explorer = True  # the static figure that follows stands in for it
                continue
            if SLIDE_TAG in tags:
                heading = _raw_slide(_heading(section, book, base))
                cells.extend([heading, _without_widgets(cell)])
                continue
            if "figure" in cell.metadata.get("mystnb", {}) and not tags & {"remove-cell", "remove-output"}:
                figure = _figure_html(cell, book, base)
                if figure:
                    note = EXPLORER_NOTE if after_explorer else ""
                    cells.append(_raw_slide(_heading(section, book, base) + figure + note))
                    after_explorer = False

    if exercises:
        items = "".join(
            f"<li>{'Exercise ' + num + ' ' if num else ''}{_MD.renderInline(book.resolve_roles(t or '', base))} "
            f"<code>{html.escape(lab or '')}</code></li>"
            for num, t, lab in exercises)
        summary_at = next((i for i, c in enumerate(cells) if 'class="box-title">Summary' in c.source), len(cells))
        cells.insert(summary_at, _raw_slide(f"<h2>Exercises</h2><ul>{items}</ul>"))

    deck = nbformat.v4.new_notebook()
    deck.metadata = {"title": title, "language_info": nb.metadata.get("language_info", {"name": "python"})}
    if "kernelspec" in nb.metadata:
        deck.metadata["kernelspec"] = nb.metadata["kernelspec"]
    deck.cells = cells
    count = sum(c.metadata.get("slideshow", {}).get("slide_type") == "slide" for c in cells)
    return deck, count


# ----------------------------------------------------------------------------------------------
# Writing the decks
# ----------------------------------------------------------------------------------------------

def mathjax_source() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or spec.origin is None:
        raise SystemExit("sphinx-mathjax-offline is not installed: run `make` to build .venv")
    return Path(spec.origin).parent / "static" / "mathjax"


def copy_assets(out: Path) -> None:
    """reveal.js and MathJax next to the decks (copied once; a rebuild reuses them)."""
    shutil.copytree(REVEAL_DIR, out / "reveal.js" / "dist", dirs_exist_ok=True)  # the layout of the npm package
    target = out / "mathjax"
    if not (target / "tex-chtml.js").exists():
        shutil.copytree(mathjax_source(), target, dirs_exist_ok=True)


_URL_COMMENT = re.compile(r"/\*(?:(?!\*/).)*?https?://(?:(?!\*/).)*?\*/", flags=re.DOTALL)


def build(notebooks: list[Path], out: Path) -> dict[str, int]:
    book = Book()
    out.mkdir(parents=True, exist_ok=True)
    copy_assets(out)
    exporter = SlidesExporter(
        extra_template_basedirs=[str(TEMPLATE_DIR)],
        template_name="rdp_reveal",
        template_file="rdp_slides.html.j2",
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        reveal_url_prefix="reveal.js",
        reveal_theme="white",
        reveal_width=str(DECK_WIDTH),
        reveal_height=str(DECK_HEIGHT),
    )
    mathjax_config = {
        "tex": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]],
                "processEscapes": False, "macros": book.macros, "tags": "none"},
        "options": {"ignoreHtmlClass": "jp-Cell"},
        "chtml": {"fontURL": "mathjax/output/chtml/fonts/woff-v2"},
    }
    counts = {}
    for path in notebooks:
        deck, count = chapter_slides(path, book)
        resources = {
            "metadata": {"name": path.stem},
            "rdp": {"mathjax_url": "mathjax/tex-chtml.js", "mathjax_config": mathjax_config, "css": CSS},
        }
        body, _ = exporter.from_notebook_node(deck, resources=resources)
        body = _URL_COMMENT.sub("", body)  # JupyterLab's CSS cites web pages in comments: not needed offline
        (out / f"{path.stem}.html").write_text(body, encoding="utf-8")
        counts[path.stem] = count
    write_index(out, counts, book)
    return counts


def write_index(out: Path, counts: dict[str, int], book: Book) -> None:
    decks = sorted(p.stem for p in out.glob("ch*.html"))
    rows = "".join(
        f'<li><a href="{stem}.html">{html.escape(_first_heading(BOOK / (stem + ".ipynb")))}</a>'
        + (f" ({counts[stem]} slides)" if stem in counts else "") + "</li>"
        for stem in decks if (BOOK / (stem + ".ipynb")).exists())
    (out / "index.html").write_text(
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Slides: '
        f"{html.escape(book.book_title)}</title></head>\n<body><h1>Slides</h1>\n"
        "<p>One reveal.js deck per chapter, built by <code>make slides</code> from the chapter notebooks. "
        "They work offline. Keys: arrows to move, <kbd>Esc</kbd> for an overview, <kbd>F</kbd> for full "
        "screen; append <code>?print-pdf</code> to a deck's address and print to get a PDF.</p>\n"
        f"<ol>{rows}</ol></body></html>\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="chapter notebooks (default: every chapter)")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "slides", help="output folder")
    args = parser.parse_args(argv)
    notebooks = [p.resolve() for p in args.notebooks] or sorted(BOOK.glob("ch*.ipynb"))
    for path in notebooks:
        if not path.exists():
            parser.error(f"no such notebook: {path}")
    counts = build(notebooks, args.out.resolve())
    for stem, count in counts.items():
        print(f"{stem}: {count} slides")
    print(f"{len(counts)} decks, {sum(counts.values())} slides in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

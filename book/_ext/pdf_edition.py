"""The book's PDF edition: what the LaTeX build needs, and the HTML book's "Book (PDF)" link.

LaTeX builder (``make pdf``):

* the math macros of the HTML book (``mathjax3_config["tex"]["macros"]``) are defined in
  the LaTeX preamble too, so there is one list of macros for both editions;
* ``bbm.sty``: the ``jupyterBook`` LaTeX class of sphinx-jupyterbook-latex loads the ``bbm``
  package, which Debian ships only in the 500 MB ``texlive-fonts-extra``. The book never
  writes ``\\mathbbm``; a two-line stand-in maps it to ``\\mathbb`` (unicode-math);
* the parts keep their title without the "Part I: " prefix, which LaTeX prints itself;
* the preface gets its heading back (sphinx-jupyterbook-latex drops the root page's title);
* every exercise solution moves to an appendix, "Solutions to the exercises", one section
  per chapter, and each exercise says on which page its solution is;
* theorem, definition and exercise boxes are numbered by chapter ("Exercise 10.3"), as in the
  HTML book: sphinx-jupyterbook-latex sets ``numfig_secnum_depth = 2`` for a book with parts
  (which would number them by section, "Exercise 10.9.3"); the environment numbers with the
  HTML book's depth, and the LaTeX writer then gets depth 2 back, which with parts is what
  makes LaTeX itself number figures and equations by chapter ("Fig. 4.2");
* the bibliography's entries sit under the chapter of ``book/reference/bibliography.md``
  (Sphinx's ``sphinxthebibliography`` would open a second, unnumbered "Bibliography" chapter).

Both builders: a reference that shows an exercise's label as its text (the course plans'
``{ref}`ex-label <ex-label>```) shows the exercise's number before it, "Exercise 10.3
(ex-label)", so a reader of the printed book finds the exercise too.

HTML builder (``make book``): the download menu of every page gets a "Book (PDF)" entry. When
the PDF edition exists (``_build/latex/rdp-book.pdf`` beside the HTML output) the build copies
it into the HTML folder and the entry downloads it; otherwise the entry opens a page that
says how to build it. Either way the link resolves.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import yaml
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.texescape import escape as tex_escape

logger = logging.getLogger(__name__)

PART_PREFIX = re.compile(r"^Part [IVXLC]+:\s*")
FALLBACK_PAGE = "pdf-edition"
BBM_SHIM = r"""\NeedsTeXFormat{LaTeX2e}
\ProvidesPackage{bbm}[2026/11/26 stand-in written by book/_ext/pdf_edition.py]
% The jupyterBook class loads bbm for \mathbbm; the book never uses it. Map it to \mathbb.
\RequirePackage{amssymb}
\providecommand{\mathbbm}[1]{\mathbb{#1}}
"""


# ---------------------------------------------------------------------------------- LaTeX


def _macro_preamble(config) -> str:
    """``\\newcommand`` lines for the MathJax macros of ``mathjax3_config``."""
    macros = ((config.mathjax3_config or {}).get("tex") or {}).get("macros") or {}
    lines = ["% Math macros shared with the HTML book (mathjax3_config in _config.yml)"]
    for name, body in macros.items():
        if isinstance(body, (list, tuple)):  # MathJax form [body, number of arguments]
            body, nargs = body[0], int(body[1])
        else:
            nargs = 0
        args = f"[{nargs}]" if nargs else ""
        lines.append(rf"\providecommand{{\{name}}}{{}}\renewcommand{{\{name}}}{args}{{{body}}}")
    # unicode-math draws \setminus as U+29F5, which Latin Modern Math lacks in scripts.
    lines.append(r"\renewcommand{\setminus}{\mathbin{\backslash}}")
    return "\n".join(lines) + "\n"


LABEL_HELPER = r"""
% \pdfeditionlabel{text}{label}: a \label whose \ref prints text (pdf_edition.py).
\makeatletter
\newcommand{\pdfeditionlabel}[2]{\phantomsection\def\@currentlabel{#1}\label{#2}}
% The bibliography's entries go under the heading of book/reference/bibliography.md: no
% second chapter (\chapter*{\bibname}, page break, contents line) from thebibliography.
\renewenvironment{sphinxthebibliography}[1]{%
  \def\chapter*##1{}\let\@mkboth\@gobbletwo
  \begin{thebibliography}{#1}}{\end{thebibliography}}
\makeatother
"""


def _on_config_inited(app: Sphinx, config) -> None:
    # The LaTeX builder copies latex_elements into its context before builder-inited, so the
    # macros are added here. \AtBeginDocument: they apply after every package of the preamble
    # (sphinx-jupyterbook-latex appends unicode-math to it at this same event).
    elements = dict(config.latex_elements or {})
    elements["preamble"] = (elements.get("preamble", "") + LABEL_HELPER
                            + "\n\\AtBeginDocument{%\n" + _macro_preamble(config) + "}\n")
    config.latex_elements = elements
    # The HTML book's numbering depth (Sphinx's default 1: "Exercise 10.3"), before
    # sphinx-jupyterbook-latex changes it for the LaTeX build.
    app._pdf_edition_html_depth = config.numfig_secnum_depth  # noqa: SLF001


def _on_builder_inited(app: Sphinx) -> None:
    if app.builder.format != "latex":
        return
    outdir = Path(app.outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    (outdir / "bbm.sty").write_text(BBM_SHIM)


def _number_boxes_by_chapter(app: Sphinx) -> None:
    """LaTeX build: number the boxes with the HTML book's ``numfig_secnum_depth`` (as configured).

    Runs after sphinx-jupyterbook-latex's builder-inited handler, which sets the depth to 2.
    ``_writer_depth_back`` restores that value once the numbers are assigned: the LaTeX
    writer turns it into ``numfigreset=1`` (reset and prefix figure and equation counters by
    chapter under \\part); depth 1 would give ``numfigreset=0``, figures numbered "Fig. 2".
    """
    if app.builder.format != "latex":
        return
    app.env._pdf_edition_writer_depth = app.config.numfig_secnum_depth  # noqa: SLF001
    app.config.numfig_secnum_depth = app._pdf_edition_html_depth  # noqa: SLF001


def _writer_depth_back(app: Sphinx, env) -> None:
    """Called when the numbers are assigned (env-check-consistency, after env-get-updated)
    and again before the LaTeX writer starts (the root document's doctree-resolved)."""
    depth = getattr(env, "_pdf_edition_writer_depth", None)
    if app.builder.format == "latex" and depth is not None:
        app.config.numfig_secnum_depth = depth


class ExerciseNumbersInLabelReferences(SphinxPostTransform):
    """``{ref}`ex-label <ex-label>``` -> "Exercise 10.3 (ex-label)", in HTML and LaTeX alike.

    The course plans cite exercises by label; a printed label alone cannot be looked up, so
    the link becomes a numbered reference (``numref``, resolved by Sphinx as any other, with
    the same number in both editions) and the label follows it in parentheses. Runs before
    sphinx-exercise's own ``ref`` -> ``numref`` transform (priority 5).
    """

    default_priority = 4

    def run(self) -> None:
        registry = getattr(self.env, "sphinx_exercise_registry", None)
        if not registry:
            return
        from sphinx_exercise.nodes import exercise_enumerable_node

        for node in list(self.document.findall(addnodes.pending_xref)):
            label = node.get("reftarget")
            if (node.get("reftype") != "ref" or not node.get("refexplicit")
                    or label not in registry or node.astext() != label
                    or not isinstance(registry[label].get("node"), exercise_enumerable_node)):
                continue
            node["reftype"] = "numref"
            inline = node.children[0]
            inline["classes"] = [c if c != "std-ref" else "std-numref" for c in inline["classes"]]
            inline.children = [nodes.Text("Exercise\u00a0{number}")]  # no line break inside
            parent = node.parent
            parent.insert(parent.index(node) + 1, nodes.Text(f" ({label})"))


def _raw(tex: str) -> nodes.raw:
    return nodes.raw("", tex, format="latex")


def _doc_of(node: nodes.Node) -> str | None:
    """The document a node came from in the assembled LaTeX tree.

    Sphinx's inline_all_toctrees marks every section with its ``docname`` (and wraps each
    document in a start_of_file node without re-parenting its top-level children).
    """
    while node is not None:
        if isinstance(node, addnodes.start_of_file) or (
            isinstance(node, nodes.section) and node.get("docname")
        ):
            return node["docname"]
        node = node.parent
    return None


def _latex_book(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if app.builder.format != "latex" or docname != app.config.root_doc:
        return
    _writer_depth_back(app, app.env)
    from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node, solution_node

    # Parts: LaTeX prints "Part I" above the title, so the title drops its own prefix.
    for section in doctree.findall(nodes.section):
        title = section.next_node(nodes.title)
        if title is not None and title.parent is section and PART_PREFIX.match(title.astext()):
            text = PART_PREFIX.sub("", title.astext())
            title.children = [nodes.Text(text)]

    # The preface: its title is dropped by sphinx-jupyterbook-latex; put an unnumbered
    # chapter heading before the root page's first paragraph.
    root_title = app.env.titles[app.config.root_doc].astext()
    first = next(iter(doctree.findall(nodes.paragraph)), None)
    if first is not None:
        heading = tex_escape(root_title, app.config.latex_engine)
        first.parent.insert(
            first.parent.index(first),
            _raw(f"\\chapter*{{{heading}}}\\addcontentsline{{toc}}{{chapter}}{{{heading}}}"
                 f"\\markboth{{{heading}}}{{{heading}}}\n"),
        )

    # Solutions: out of the chapters, into the appendix, grouped by chapter.
    solutions = list(doctree.findall(solution_node))
    if not solutions:
        return
    exercises = {
        node.get("label"): node
        for node in doctree.findall(lambda n: isinstance(n, (exercise_node, exercise_enumerable_node)))
    }
    registry = app.env.sphinx_exercise_registry
    # A reference to an exercise from another chapter becomes \ref{docname:label}, but
    # sphinx-exercise labels the exercise "exercise:label" only: add the first label, with
    # the exercise's number as the text that \ref prints.
    for label, exercise in exercises.items():
        doc = _doc_of(exercise)
        number = (app.env.toc_fignumbers.get(doc, {}).get("exercise", {}).get(label)
                  if doc else None)
        if label and number:
            # After the title, which the LaTeX writer prints as the box's title argument.
            after_title = 1 if exercise.children and isinstance(exercise[0], nodes.title) else 0
            exercise.insert(after_title, _raw(
                f"\\pdfeditionlabel{{{'.'.join(map(str, number))}}}{{{doc}:{label}}}"))
    by_doc: dict[str, list[nodes.Node]] = {}
    for sol in solutions:
        target = sol.get("target_label")
        doc = registry.get(target, {}).get("docname") if target in registry else _doc_of(sol)
        doc = doc or _doc_of(sol) or app.config.root_doc
        by_doc.setdefault(doc, []).append(sol)
        exercise = exercises.get(target)
        if exercise is not None:
            sol_label = f"{doc}:{sol['label']}"
            exercise.append(_raw(
                "\n\\par\\smallskip\\noindent{\\small\\itshape Solution: "
                f"appendix~\\ref{{pdf-edition-solutions}}, page~\\pageref{{{sol_label}}}.}}\n"
            ))
        sol.parent.remove(sol)

    appendix = [
        _raw("\n\\appendix\n\\chapter{Solutions to the exercises}\\label{pdf-edition-solutions}\n"
             "\\sphinxAtStartPar Each section collects the worked solutions of one chapter's "
             "exercises; the title of each solution links back to its exercise.\n")
    ]
    for doc, sols in by_doc.items():
        title = tex_escape(app.env.titles[doc].astext(), app.config.latex_engine)
        appendix.append(_raw(
            f"\n\\section{{{title}}}\n\\sphinxAtStartPar Chapter~\\ref{{\\detokenize{{{doc}::doc}}}}, "
            f"page~\\pageref{{\\detokenize{{{doc}::doc}}}}.\n"
        ))
        # Inside start_of_file, the LaTeX writer resolves the solutions' own references
        # (figures, equations of their chapter) against their chapter, as before the move.
        wrapper = addnodes.start_of_file(docname=doc)
        wrapper.extend(sols)
        appendix.append(wrapper)
    doctree.extend(appendix)


# ----------------------------------------------------------------------------------- HTML


def _latex_target(app: Sphinx) -> str:
    """The LaTeX file name of the book (``latex.latex_documents.targetname`` in _config.yml).

    Jupyter Book passes it to Sphinx only in LaTeX builds, so the HTML build reads it from
    _config.yml; Jupyter Book's own default is book.tex.
    """
    config_file = Path(app.srcdir) / "_config.yml"
    if config_file.is_file():
        latex = (yaml.safe_load(config_file.read_text()) or {}).get("latex") or {}
        target = (latex.get("latex_documents") or {}).get("targetname")
        if target:
            return target
    return "book.tex"


def _pdf_source(app: Sphinx) -> Path:
    configured = app.config.pdf_edition_file
    if configured:
        return Path(app.confdir, configured)
    return Path(app.outdir).parent / "latex" / (Path(_latex_target(app)).stem + ".pdf")


def _pdf_name(app: Sphinx) -> str:
    return _pdf_source(app).name


def _html_inited(app: Sphinx) -> None:
    if app.builder.format != "html":
        return
    source = _pdf_source(app)
    app.env._pdf_edition_available = source.is_file()  # noqa: SLF001
    if source.is_file():
        logger.info("pdf_edition: linking the PDF edition %s", source)
    else:
        logger.info("pdf_edition: no PDF edition at %s; the link opens %s.html", source, FALLBACK_PAGE)


def _add_download_entry(app: Sphinx, pagename, templatename, context, doctree) -> None:
    if app.builder.format != "html":
        return
    pathto = context.get("pathto")
    buttons = context.get("header_buttons")
    if pathto is None or buttons is None:
        return
    if getattr(app.env, "_pdf_edition_available", False):
        url, tooltip = pathto(_pdf_name(app), 1), "Download the whole book as one PDF"
    else:
        url, tooltip = pathto(FALLBACK_PAGE), "How to build the whole book as one PDF"
    for group in buttons:
        if group.get("label") == "download-buttons":
            group["buttons"].append({
                "type": "link", "url": url, "text": "Book (PDF)", "tooltip": tooltip,
                "icon": "fas fa-book", "label": "download-book-pdf-button",
            })


FALLBACK_BODY = """
<section id="the-pdf-edition">
<h1>The PDF edition</h1>
<p>This copy of the book was built without its PDF edition. The whole book, with numbered
parts and chapters, framed theorem and exercise boxes and the exercise solutions in an
appendix, builds into one PDF from a clone of the repository:</p>
<div class="highlight-bash notranslate"><div class="highlight"><pre><span></span>make pdf    # writes _build/latex/{pdf}
make book   # the HTML book then links the PDF from every page's download menu
</pre></div></div>
<p><code>make pdf</code> needs XeLaTeX, latexmk and a few fonts from Debian's TeX Live; when
they are missing it prints the <code>apt-get install</code> line to run.</p>
</section>
"""


def _collect_pages(app: Sphinx):
    if app.builder.format != "html" or getattr(app.env, "_pdf_edition_available", False):
        return []
    body = FALLBACK_BODY.replace("{pdf}", _pdf_name(app))
    return [(FALLBACK_PAGE, {"title": "The PDF edition", "body": body}, "page.html")]


def _copy_pdf(app: Sphinx, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    if getattr(app.env, "_pdf_edition_available", False):
        shutil.copyfile(_pdf_source(app), Path(app.outdir) / _pdf_name(app))


def setup(app: Sphinx) -> dict:
    app.add_config_value("pdf_edition_file", "", "env", [str])
    app.connect("config-inited", _on_config_inited)
    app.connect("builder-inited", _on_builder_inited)
    # After sphinx-jupyterbook-latex's setup_latex_transforms (priority 500).
    app.connect("builder-inited", _number_boxes_by_chapter, priority=900)
    app.connect("env-check-consistency", _writer_depth_back)
    app.add_post_transform(ExerciseNumbersInLabelReferences)
    app.connect("builder-inited", _html_inited)
    app.connect("doctree-resolved", _latex_book)
    # After sphinx-book-theme's add_header_buttons (priority 501) has built the download menu.
    app.connect("html-page-context", _add_download_entry, priority=502)
    app.connect("html-collect-pages", _collect_pages)
    app.connect("build-finished", _copy_pdf)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

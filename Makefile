# Two commands on a fresh machine: `make book` and `make test`. Each creates .venv itself.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed
JB_FLAGS := -W -n --keep-going --builder html
NB_FILES := $(shell find book -name '*.ipynb' -not -path '*/assignments/*' -not -path '*/.ipynb_checkpoints/*' | sort)

.PHONY: help lock wheel book pdf test-pdf print-tex-packages test test-lib test-notebooks test-book test-standalone test-browser test-assignments test-slides slides lab assignments grade bench lint clean

help:
	@echo "make book         build the HTML book into _build/html (warnings are errors)"
	@echo "make test         the whole test suite: rdplib, notebooks (nbval), book build, PDF, assignments, browser, slides"
	@echo "make pdf          build the PDF edition into _build/latex/rdp-book.pdf (needs TeX Live, see README)"
	@echo "make slides       one reveal.js deck per chapter into _build/slides (offline; see book/_slides/)"
	@echo "make lab          open JupyterLab on the book"
	@echo "make assignments  generate student notebooks and autograders into _build/assignments"
	@echo "make grade ASSIGNMENT=a1 SUBMISSIONS=dir/  grade a folder of notebooks: _build/grades/<name>/gradebook.csv + feedback/"
	@echo "make bench        run the benchmarks (needs benchmarks/requirements-bench.txt)"
	@echo "make lock         refresh requirements.lock (every package, pinned with hashes) from requirements.txt"
	@echo "make wheel        build rdplib's wheel and sdist into dist/"
	@echo "make clean        remove build outputs (keeps .venv)"

# .venv is created from the full lock (every package, exact version and hash); pip refuses
# any file whose hash differs. rdplib itself is installed editable, built with the locked setuptools.
$(STAMP): requirements.lock pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --require-hashes --no-deps -r requirements.lock
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	$(PY) -m pip check
	touch $(STAMP)

# Refresh the lock from requirements.txt (the direct pins), then rebuild .venv from it.
lock: $(STAMP)
	grep -v '^-e' requirements.txt | $(BIN)/uv pip compile - --generate-hashes \
	  --python-version 3.11.7 --python-platform x86_64-unknown-linux-gnu \
	  --custom-compile-command "make lock" -o requirements.lock
	rm -f $(STAMP)
	$(MAKE) $(STAMP)

book: $(STAMP)
	rm -rf _build/.doctrees  # sphinx-proof keeps stale labels in an incremental build (false duplicates)
	$(BIN)/jupyter-book build . $(JB_FLAGS)
	@echo
	@echo "The book is built: open file://$(CURDIR)/_build/html/index.html"

test: $(STAMP)
	$(MAKE) test-lib
	$(MAKE) test-notebooks
	$(MAKE) test-book
	$(MAKE) test-pdf
	$(MAKE) test-standalone
	$(MAKE) test-assignments
	$(MAKE) test-browser
	$(MAKE) test-slides

test-lib: $(STAMP)
	$(PY) -m pytest -q tests --ignore=tests/browser --ignore=tests/standalone --ignore=tests/pdf --ignore-glob="tests/test_assignments*" --ignore-glob="tests/test_grading_*" --ignore=tests/grading_cases rdplib --doctest-modules -p no:cacheprovider

test-notebooks: $(STAMP)
	$(PY) -m pytest -q --nbval $(NB_FILES) --nbval-sanitize-with tests/nbval_sanitize.cfg -p no:cacheprovider --timeout 300

test-book: $(STAMP)
	rm -rf _build/html _build/.doctrees  # a clean Sphinx environment: an incremental one keeps stale labels
	$(BIN)/jupyter-book build . $(JB_FLAGS)

# The PDF edition: the whole book through Jupyter Book's LaTeX builder and XeLaTeX (Debian's TeX
# Live), into _build/latex/rdp-book.pdf. It reuses the notebook execution cache of the HTML build
# (_build/.jupyter_cache). The Sphinx environment is rebuilt: the LaTeX one differs from the HTML one.
TEX_PACKAGES := texlive-xetex texlive-latex-extra texlive-fonts-recommended texlive-plain-generic latexmk lmodern fonts-freefont-otf poppler-utils
TEX_TOOLS := xelatex latexmk makeindex pdftotext
pdf: $(STAMP)
	@missing=""; for tool in $(TEX_TOOLS); do command -v $$tool >/dev/null || missing="$$missing $$tool"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make pdf needs TeX Live (missing:$$missing). On Debian or Ubuntu install it with:"; \
	  echo "  sudo apt-get install -y --no-install-recommends $(TEX_PACKAGES)"; exit 1; fi
	rm -rf _build/.doctrees _build/latex
	$(BIN)/jupyter-book build . -W -n --keep-going --builder pdflatex
	rm -rf _build/.doctrees  # the next HTML build starts from a clean environment
	@echo
	@echo "The PDF edition is built: $(CURDIR)/_build/latex/rdp-book.pdf ('make book' now links it)"

print-tex-packages:  # the Debian packages make pdf needs (.ci/run installs them)
	@echo $(TEX_PACKAGES)

# Builds the PDF edition and checks it (tests/pdf); skipped with a notice when TeX Live is missing.
test-pdf: $(STAMP)
	@if command -v xelatex >/dev/null && command -v latexmk >/dev/null && command -v pdftotext >/dev/null; then \
	  start=$$(date +%s); $(MAKE) pdf && echo "PDF edition built in $$(( $$(date +%s) - start )) s" && \
	  $(PY) -m pytest -q tests/pdf -p no:cacheprovider; \
	else echo "NOTICE: TeX Live is not installed: PDF edition not built or tested (apt-get install -y --no-install-recommends $(TEX_PACKAGES))"; fi

test-standalone: $(STAMP)
	$(PY) -m pytest -q tests/standalone -p no:cacheprovider -s

# The grading tests need bubblewrap (.ci/run installs it; see the instructors' page).
test-assignments: $(STAMP)
	@command -v bwrap >/dev/null || { echo "make test-assignments needs bubblewrap: sudo apt-get install -y bubblewrap"; exit 1; }
	$(PY) -m pytest -q tests/test_assignments.py tests/test_grading_sandbox.py tests/test_grading_tables.py -p no:cacheprovider

# Browser tests: every page of _build/html (built when missing) in Chromium, axe-core (WCAG 2.1 AA,
# light and dark mode), and JupyterLab end to end. BOOK_HTML_DIR=<dir> tests another build.
test-browser: $(STAMP)
	@if [ -d tests/browser ]; then \
	  if [ -x /usr/bin/chromium ] || [ -x /usr/lib/chromium/chromium ]; then \
	    $(PY) -m pytest -q tests/browser --ignore=tests/browser/test_slides.py -p no:cacheprovider; \
	  else echo "NOTICE: Chromium is not installed: browser and JupyterLab tests skipped (apt-get install -y chromium chromium-driver)"; fi; \
	else echo "no browser tests yet"; fi

# Slides: every chapter notebook -> a reveal.js deck in _build/slides (its stored outputs, no execution),
# chosen by rules and the `slide` / `no-slide` cell tags (book/_slides/build_slides.py). Offline: reveal.js
# (vendored) and MathJax (from sphinx-mathjax-offline) are copied next to the decks.
slides: $(STAMP)
	rm -f _build/slides/*.html
	$(PY) book/_slides/build_slides.py --out _build/slides
	@echo "The slides are built: open file://$(CURDIR)/_build/slides/index.html"

# Every deck in Chromium from file://: at least 5 slides, no console error, no network request, math typeset.
test-slides: $(STAMP)
	@if [ -x /usr/bin/chromium ] || [ -x /usr/lib/chromium/chromium ]; then \
	  $(MAKE) slides && $(PY) -m pytest -q tests/browser/test_slides.py -p no:cacheprovider; \
	else echo "NOTICE: Chromium is not installed: slide tests skipped (apt-get install -y chromium chromium-driver)"; fi

wheel: $(STAMP)
	$(PY) -m build --no-isolation --outdir dist .

lab: $(STAMP)
	$(BIN)/jupyter lab book

assignments: $(STAMP)
	$(PY) book/assignments/build_assignments.py _build/assignments

# Grade a class: every notebook under SUBMISSIONS (both cores), a CSV gradebook and one feedback file per student.
# Without bubblewrap it stops with the install line, unless WEAK_SANDBOX=1 accepts the weaker boundary.
grade: $(STAMP)
	@if [ -z "$(ASSIGNMENT)" ] || [ -z "$(SUBMISSIONS)" ]; then echo "usage: make grade ASSIGNMENT=a1 SUBMISSIONS=dir/ [OUT=dir] [JOBS=2] [WEAK_SANDBOX=1]"; exit 2; fi
	$(PY) -m grading $(ASSIGNMENT) $(SUBMISSIONS) --jobs $(or $(JOBS),2) $(if $(OUT),--out $(OUT),) $(if $(filter 1,$(WEAK_SANDBOX)),--weak-sandbox,)

bench:
	test -d $(VENV) || $(MAKE) $(STAMP)
	$(PY) -m pip install --quiet -r benchmarks/requirements-bench.txt
	$(PY) benchmarks/run_benchmarks.py

lint: $(STAMP)
	$(BIN)/ruff check rdplib tests benchmarks

clean:
	rm -rf _build dist .pytest_cache .ruff_cache .hypothesis .jupyter_cache
	find . -name __pycache__ -not -path './.venv/*' -prune -exec rm -rf {} +

"""The public contract of rdplib (DESIGN.md section 4): names, signatures, docstrings.

Notebooks, assignments and outside checks import these names, so a rename or a
reordered parameter must fail here.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import rdplib

# name -> contract parameters in order; a value of "REQUIRED" means no default,
# anything else is the default the contract states.
REQUIRED = object()
CONTRACT: dict[str, list[tuple[str, object]]] = {
    # mechanisms
    "randomized_response": [("bits", REQUIRED), ("epsilon", REQUIRED), ("rng", None)],
    "rr_estimate": [("noisy_bits", REQUIRED), ("epsilon", REQUIRED)],
    "laplace_mechanism": [("value", REQUIRED), ("sensitivity", REQUIRED), ("epsilon", REQUIRED), ("rng", None)],
    "geometric_mechanism": [("value", REQUIRED), ("sensitivity", REQUIRED), ("epsilon", REQUIRED), ("rng", None)],
    "gaussian_mechanism": [
        ("value", REQUIRED), ("sensitivity", REQUIRED), ("epsilon", REQUIRED), ("delta", REQUIRED), ("rng", None),
    ],
    "clipped_mean": [("x", REQUIRED), ("lower", REQUIRED), ("upper", REQUIRED), ("epsilon", REQUIRED), ("rng", None)],
    # accounting
    "basic_composition": [("budgets", REQUIRED)],
    "group_privacy": [("epsilon", REQUIRED), ("delta", REQUIRED), ("k", REQUIRED)],
    "threshold_delta": [("threshold", REQUIRED), ("epsilon", REQUIRED)],
    "threshold_for_delta": [("delta", REQUIRED), ("epsilon", REQUIRED)],
    "thresholded_histogram": [("items", REQUIRED), ("epsilon", REQUIRED), ("threshold", REQUIRED), ("rng", None)],
    # histograms and random differential privacy
    "dp_histogram": [("counts", REQUIRED), ("epsilon", REQUIRED), ("rng", None)],
    "rdp_histogram": [("counts", REQUIRED), ("epsilon", REQUIRED), ("gamma", REQUIRED), ("rng", None)],
    "project_to_histograms": [("z", REQUIRED), ("n", REQUIRED)],  # then ties="smallest"
    "l1_loss": [("a", REQUIRED), ("b", REQUIRED)],
    # data-dependent noise
    "quantile_scale": [("x", REQUIRED), ("h", REQUIRED), ("quantile", REQUIRED)],
    # local DP
    "CountMeanSketch": [("epsilon", REQUIRED), ("num_hashes", REQUIRED), ("width", REQUIRED), ("rng", None)],
    # auditing
    "audit_epsilon": [
        ("sampler", REQUIRED), ("x", REQUIRED), ("x_prime", REQUIRED), ("event", REQUIRED),
        ("trials", REQUIRED), ("confidence", 0.95), ("rng", None),
    ],
}
# CountMeanSketch methods named by the contract, with their first parameter.
CMS_METHODS = {"encode": "item", "aggregate": "reports", "estimate": "item"}

DESIGN = Path(__file__).resolve().parents[1].parent / "shared" / "DESIGN.md"


def _signature(obj) -> inspect.Signature:
    return inspect.signature(obj)  # for a class, the signature of __init__ without self


def _documented_parameters(doc: str) -> set[str]:
    """Names listed in the numpydoc Parameters section (``a, b : type`` lines)."""
    match = re.search(r"^Parameters\n-{10}\n(.*?)(?:^\w[\w ]*\n-{3,}\n|\Z)", doc, re.M | re.S)
    assert match, "no Parameters section"
    names = set()
    for line in match.group(1).splitlines():
        entry = re.match(r"^(\w+(?:\s*,\s*\w+)*)\s*(?::|$)", line)
        if entry and not line.startswith(" "):
            names.update(part.strip() for part in entry.group(1).split(","))
    return names


@pytest.mark.parametrize("name", sorted(CONTRACT))
def test_importable_and_exported(name):
    assert hasattr(rdplib, name), f"rdplib.{name} is missing"
    assert name in rdplib.__all__
    from importlib import import_module

    module = import_module(getattr(rdplib, name).__module__)
    assert name in module.__all__


@pytest.mark.parametrize("name", sorted(CONTRACT))
def test_signature_matches_contract(name):
    params = list(_signature(getattr(rdplib, name)).parameters.values())
    expected = CONTRACT[name]
    assert [p.name for p in params[: len(expected)]] == [n for n, _ in expected]
    for param, (pname, default) in zip(params, expected, strict=False):
        assert param.kind in (param.POSITIONAL_OR_KEYWORD, param.POSITIONAL_ONLY), pname
        if default is REQUIRED:
            assert param.default is param.empty, f"{name}({pname}) must be required"
        else:
            assert param.default == default, f"{name}({pname}) must default to {default!r}"
    for extra in params[len(expected):]:  # additions must not break contract calls
        assert extra.default is not extra.empty or extra.kind in (extra.VAR_POSITIONAL, extra.VAR_KEYWORD), (
            f"{name}: extra parameter {extra.name} needs a default"
        )


@pytest.mark.parametrize("name", sorted(CONTRACT))
def test_numpy_docstring_with_examples(name):
    obj = getattr(rdplib, name)
    doc = inspect.getdoc(obj)
    assert doc, f"{name} has no docstring"
    summary = doc.splitlines()[0]
    assert summary.strip() and not summary.startswith(" "), "first line must be a summary"
    assert re.search(r"^Examples\n--------\n", doc, re.M), f"{name}: no numpydoc Examples section"
    examples = doc.split("Examples\n--------\n", 1)[1]
    assert ">>> " in examples, f"{name}: the Examples section has no doctest"
    assert name in examples, f"{name}: the example does not call {name}"
    documented = _documented_parameters(doc)
    for param in _signature(obj).parameters:
        assert param in documented, f"{name}: parameter {param!r} is not documented"


def test_count_mean_sketch_methods():
    cls = rdplib.CountMeanSketch
    for method, first in CMS_METHODS.items():
        func = getattr(cls, method, None)
        assert callable(func), f"CountMeanSketch.{method} is missing"
        params = list(inspect.signature(func).parameters)
        assert params[0] == "self" and params[1].startswith(first), (method, params)
        assert inspect.getdoc(func), f"CountMeanSketch.{method} has no docstring"


def test_type_hints_on_contract_functions():
    for name in CONTRACT:
        obj = getattr(rdplib, name)
        target = obj.__init__ if inspect.isclass(obj) else obj
        sig = inspect.signature(target)
        missing = [p for p, v in sig.parameters.items() if p != "self" and v.annotation is inspect.Parameter.empty]
        assert not missing, f"{name}: parameters without type hints: {missing}"


def test_fp_warning_is_documented():
    """The continuous samplers say honestly that they are not floating-point safe."""
    assert "Mironov" in rdplib.__doc__ and "OpenDP" in rdplib.__doc__
    assert "Mironov" in rdplib.mechanisms.__doc__
    assert "Mironov" in inspect.getdoc(rdplib.laplace_mechanism)


@pytest.mark.skipif(not DESIGN.exists(), reason="shared/DESIGN.md is not beside the project")
def test_table_agrees_with_design_md():
    """Cross-check this file's table against the code block of DESIGN.md section 4."""
    text = DESIGN.read_text(encoding="utf-8")
    section = text.split("## 4.", 1)[1].split("\n## ", 1)[0]
    block = section.split("```python", 1)[1].split("```", 1)[0]
    found = {}
    for line in block.splitlines():
        match = re.match(r"^(\w+)\((.*?)\)", line)
        if match:
            params = [p.split("=")[0].strip() for p in match.group(2).split(",") if p.strip()]
            found[match.group(1)] = params
    assert set(found) == set(CONTRACT)
    for name, params in found.items():
        assert params == [n for n, _ in CONTRACT[name]], name


# --- the whole public API: thin, documented, every name with a runnable example -------------

import rdplib.plotting  # noqa: E402
import rdplib.widgets  # noqa: E402

PUBLIC = (
    [(rdplib, name) for name in rdplib.__all__]
    + [(rdplib.widgets, name) for name in rdplib.widgets.__all__]
    + [(rdplib.plotting, name) for name in rdplib.plotting.__all__]
)
MAX_PUBLIC_NAMES = 50


def test_public_api_is_thin():
    assert len(PUBLIC) <= MAX_PUBLIC_NAMES, f"{len(PUBLIC)} public names (at most {MAX_PUBLIC_NAMES})"
    assert set(CONTRACT) <= set(rdplib.__all__)


def test_no_module_serves_a_single_chapter():
    """The package holds the reusable modules only; chapter code lives in the chapters."""
    package = Path(rdplib.__file__).parent
    modules = sorted(p.stem for p in package.glob("*.py") if not p.stem.startswith("_"))
    assert modules == ["accounting", "audit", "composition", "datadep", "histograms", "local", "mechanisms", "pld"]
    assert sorted(p.name for p in (package / "plotting").glob("*.py")) == ["__init__.py"]
    assert sorted(p.name for p in (package / "widgets").glob("*.py")) == ["__init__.py", "_base.py"]


@pytest.mark.parametrize("module, name", PUBLIC, ids=[f"{m.__name__}.{n}" for m, n in PUBLIC])
def test_every_public_name_has_a_docstring_with_an_example(module, name):
    obj = getattr(module, name)
    if isinstance(obj, Path):  # a constant: documented in its module's docstring example
        assert name in (module.__doc__ or "")
        return
    doc = inspect.getdoc(obj)
    assert doc and doc.splitlines()[0].strip(), f"{name}: no summary line"
    assert re.search(r"^Examples\n--------\n", doc, re.M), f"{name}: no numpydoc Examples section"
    examples = doc.split("Examples\n--------\n", 1)[1]
    assert ">>> " in examples and name in examples, f"{name}: the example does not use {name}"


def test_api_page_documents_every_module():
    page = (Path(__file__).resolve().parents[1] / "book" / "reference" / "api.md").read_text()
    for module in ("mechanisms", "accounting", "composition", "pld", "histograms", "datadep", "local", "audit", "widgets", "plotting"):
        assert f"rdplib.{module}" in page, module

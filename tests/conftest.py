"""Shared helpers for the rdplib tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import settings

# Property tests draw the same examples on every run (no flaky CI), and keep no database.
settings.register_profile("book", derandomize=True, database=None, print_blob=True)
settings.load_profile("book")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and np.array_equal(a, b)


def _check_rng_contract(call: Callable[[Any], Any]) -> None:
    """``call(rng)`` must honour SPEC 7: None | int | Generator, reproducible by seed."""
    first = call(7)
    assert _same(first, call(7)), "same int seed must give the same output"
    assert _same(first, call(np.random.default_rng(7))), "int seed == default_rng(seed)"
    assert _same(first, call(np.int64(7))), "numpy integer seeds are accepted"
    assert not _same(first, call(8)), "different seeds should give different outputs"
    generator = np.random.default_rng(7)
    assert _same(first, call(generator))
    assert not _same(first, call(generator)), "a Generator passed in must be advanced"
    fresh = call(None)
    assert type(fresh) is type(first)
    assert np.shape(fresh) == np.shape(first) or isinstance(first, dict)


@pytest.fixture
def check_rng_contract() -> Callable[[Callable[[Any], Any]], None]:
    """Fixture: assert that a one-argument ``call(rng)`` handles every rng form correctly."""
    return _check_rng_contract


# Whole student submissions (cells separated by "# %%") graded by tests/test_grading_tables.py: they
# are data, not test modules (--doctest-modules would import them).
collect_ignore_glob = ["grading_cases/*"]

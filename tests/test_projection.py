"""Exactness and properties of ``project_to_histograms`` (the paper's δ(z)).

The projection returns ``c / n`` where the integers ``c_i >= 0`` sum to ``n`` and
minimise ``sum |z_i - c_i / n|``. We check it returns a valid histogram, that no
other valid histogram we can think of does better, and that it equals the optimum
found by brute-force enumeration for small k and n.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from rdplib import dp_histogram, l1_loss, project_to_histograms, rdp_histogram

HYPOTHESIS = settings(max_examples=120, deadline=None)
TOL = 1e-9


def loss(z: np.ndarray, counts: np.ndarray, n: int) -> float:
    """The objective sum |z_i - c_i/n| (computed independently of rdplib)."""
    return float(np.abs(np.asarray(z, float) - np.asarray(counts, float) / n).sum())


@lru_cache(maxsize=None)
def all_histograms(k: int, n: int) -> np.ndarray:
    """Every integer vector c >= 0 with sum n, by stars and bars; shape (C(n+k-1, k-1), k)."""
    rows = []
    for bars in itertools.combinations(range(n + k - 1), k - 1):
        edges = (-1, *bars, n + k - 1)
        rows.append([edges[i + 1] - edges[i] - 1 for i in range(k)])
    return np.array(rows)


def assert_valid_histogram(h: np.ndarray, n: int, shape: tuple[int, ...]) -> np.ndarray:
    """Check h is a batch of n-observation histograms; return the integer counts."""
    assert h.shape == shape
    counts = h * n
    rounded = np.round(counts)
    np.testing.assert_allclose(counts, rounded, atol=1e-9)
    assert np.all(rounded >= 0)
    np.testing.assert_array_equal(rounded.sum(axis=-1), n)
    np.testing.assert_allclose(h.sum(axis=-1), 1.0, atol=1e-12)
    return rounded.astype(np.int64)


def rounded_histogram(z: np.ndarray, n: int) -> np.ndarray:
    """A valid histogram from naive rounding: round n*max(z, 0), then fix the total."""
    c = np.round(np.maximum(z, 0.0) * n).astype(np.int64)
    while c.sum() > n:
        c[np.argmax(c)] -= 1
    while c.sum() < n:
        c[np.argmax(z * n - c)] += 1
    return c


# z values: a mix of arbitrary floats and "tie-prone" multiples of 1/(2n)
small_k = st.integers(1, 4)
small_n = st.integers(1, 8)


@st.composite
def z_and_n(draw, max_k: int = 30, max_n: int = 60, batch: bool = False):
    n = draw(st.integers(1, max_n))
    k = draw(st.integers(1, max_k))
    shape = (draw(st.integers(1, 5)), k) if batch else (k,)
    if draw(st.booleans()):
        z = draw(hnp.arrays(float, shape, elements=st.floats(-1.0, 2.0, allow_nan=False)))
    else:
        halves = draw(hnp.arrays(np.int64, shape, elements=st.integers(-2 * n, 4 * n)))
        z = halves / (2.0 * n)
    return z, n


class TestUnit:
    def test_docstring_example(self):
        np.testing.assert_allclose(
            project_to_histograms([0.52, 0.49, -0.03, 0.02], n=100), [0.52, 0.48, 0.0, 0.0]
        )

    def test_valid_histogram_is_a_fixed_point(self):
        c = np.array([3, 0, 5, 2])
        np.testing.assert_array_equal(project_to_histograms(c / 10, 10), c / 10)

    def test_ties_broken_by_index(self):
        # adding: equally cheap units go to the lowest indices first
        np.testing.assert_array_equal(project_to_histograms(np.zeros(5), 3), [1 / 3, 1 / 3, 1 / 3, 0, 0])
        # removing: the surplus (equally costly anywhere) empties the smallest, then lowest-index cells
        np.testing.assert_array_equal(project_to_histograms(np.full(4, 2.0), 2), [0, 0, 0, 1])
        np.testing.assert_array_equal(project_to_histograms([0.9, 0.1, 0.9, 0.5], 2), [0, 0, 0.5, 0.5])

    def test_units_beyond_the_straddling_ones_are_spread_evenly(self):
        # w = (-2, 3, -1), n = 10: 7 more units, each costing +1 wherever it goes
        out = project_to_histograms([-0.2, 0.3, -0.1], 10)
        np.testing.assert_allclose(out, [0.3, 0.5, 0.2])
        assert l1_loss([-0.2, 0.3, -0.1], out) == pytest.approx(1.0)
        assert l1_loss([-0.2, 0.3, -0.1], [0.0, 1.0, 0.0]) == pytest.approx(1.0)  # a tie

    def test_single_cell(self):
        np.testing.assert_array_equal(project_to_histograms([-5.0], 7), [1.0])

    def test_dtype_and_list_input(self):
        out = project_to_histograms([0.2, 0.8], 5)
        assert isinstance(out, np.ndarray) and out.dtype == np.float64

    def test_does_not_modify_input(self):
        z = np.array([0.3, -0.2, 0.9])
        copy = z.copy()
        project_to_histograms(z, 4)
        np.testing.assert_array_equal(z, copy)

    def test_large_k_and_n_are_valid(self):
        k, n = 100_000, 1_000_000
        counts = np.random.default_rng(0).multinomial(n, np.full(k, 1 / k))
        for eps, seed in ((1.0, 1), (0.05, 2)):
            z = dp_histogram(counts, eps, rng=seed)
            h = project_to_histograms(z, n)
            c = assert_valid_histogram(h, n, (k,))
            # no single-unit move between two cells improves the objective
            assert loss(z, c, n) <= loss(z, counts, n) + TOL

    def test_both_branches_on_batches(self):
        """Rows needing units added and rows needing units removed, in one batch."""
        z = np.array([[0.1, 0.1, 0.1, 0.1], [0.6, 0.6, 0.6, -0.3], [0.25, 0.25, 0.25, 0.25]])
        h = project_to_histograms(z, 8)
        assert_valid_histogram(h, 8, z.shape)
        for row, expected in zip(z, h, strict=True):
            np.testing.assert_array_equal(project_to_histograms(row, 8), expected)


class TestProperties:
    @HYPOTHESIS
    @given(z_and_n())
    def test_valid_histogram(self, zn):
        z, n = zn
        assert_valid_histogram(project_to_histograms(z, n), n, z.shape)

    @HYPOTHESIS
    @given(z_and_n(batch=True))
    def test_batched_rows_equal_row_by_row(self, zn):
        z, n = zn
        batch = project_to_histograms(z, n)
        assert_valid_histogram(batch, n, z.shape)
        rows = np.array([project_to_histograms(row, n) for row in z])
        np.testing.assert_array_equal(batch, rows)

    @HYPOTHESIS
    @given(z_and_n(max_k=6, max_n=10, batch=True))
    def test_three_dimensional_batches(self, zn):
        z, n = zn
        stacked = np.stack([z, z[::-1]])
        out = project_to_histograms(stacked, n)
        assert out.shape == stacked.shape
        np.testing.assert_array_equal(out[0], project_to_histograms(z, n))
        np.testing.assert_array_equal(out[1], project_to_histograms(z[::-1], n))

    @HYPOTHESIS
    @given(z_and_n(), st.integers(0, 2**32 - 1))
    def test_no_worse_than_other_histograms(self, zn, seed):
        z, n = zn
        h = project_to_histograms(z, n)
        best = loss(z, h * n, n)
        assert l1_loss(z, h) == pytest.approx(best, abs=TOL)
        k = z.size
        rng = np.random.default_rng(seed)
        # random valid histograms, from flat and from z-shaped proportions
        weights = np.maximum(z, 0) + 1e-3
        candidates = list(rng.multinomial(n, np.full(k, 1 / k), size=20))
        candidates += list(rng.multinomial(n, weights / weights.sum(), size=20))
        candidates.append(rounded_histogram(z, n))
        for c in candidates:
            assert best <= loss(z, c, n) + TOL

    @HYPOTHESIS
    @given(z_and_n())
    def test_no_improving_single_unit_move(self, zn):
        z, n = zn
        c = np.round(project_to_histograms(z, n) * n).astype(np.int64)
        best = loss(z, c, n)
        k = c.size
        donors, receivers = np.nonzero(c > 0)[0], np.arange(k)
        for i, j in itertools.product(donors, receivers):
            if i != j:
                moved = c.copy()
                moved[i] -= 1
                moved[j] += 1
                assert best <= loss(z, moved, n) + TOL

    @HYPOTHESIS
    @given(small_k, small_n, st.data())
    def test_exact_against_brute_force(self, k, n, data):
        if data.draw(st.booleans()):
            z = data.draw(hnp.arrays(float, (k,), elements=st.floats(-0.5, 1.5, allow_nan=False)))
        else:
            z = data.draw(hnp.arrays(np.int64, (k,), elements=st.integers(-n, 3 * n))) / (2.0 * n)
        candidates = all_histograms(k, n)
        losses = np.abs(z - candidates / n).sum(axis=1)
        h = project_to_histograms(z, n)
        c = assert_valid_histogram(h, n, (k,))
        assert loss(z, c, n) <= losses.min() + TOL
        # the returned histogram is one of the minimisers
        minimisers = candidates[losses <= losses.min() + TOL]
        assert any(np.array_equal(c, m) for m in minimisers)

    def test_exhaustive_grid_small(self):
        """Every z on a grid of quarter-units for k = 3, n = 1..4 (many ties)."""
        grid = np.arange(-2, 7) / 4.0
        for n in range(1, 5):
            candidates = all_histograms(3, n)
            zs = np.array(list(itertools.product(grid / n, repeat=3)))
            out = project_to_histograms(zs, n)
            assert_valid_histogram(out, n, zs.shape)
            best = np.abs(zs[:, None, :] - candidates[None, :, :] / n).sum(axis=2).min(axis=1)
            np.testing.assert_allclose(np.abs(zs - out).sum(axis=1), best, atol=TOL)

    @HYPOTHESIS
    @given(z_and_n(max_k=10, max_n=20), st.floats(-3, 3, allow_nan=False))
    def test_shift_invariance_of_valid_output(self, zn, shift):
        """Adding a constant to z changes the loss but the output stays a valid histogram."""
        z, n = zn
        assume(np.all(np.isfinite(z + shift)))
        assert_valid_histogram(project_to_histograms(z + shift, n), n, z.shape)


# ---------------------------------------------------------------- the tie rule


class TestTies:
    """Both tie rules return exact minimisers; they differ only when the floors hold n or more."""

    def test_default_is_smallest_first(self):
        rng = np.random.default_rng(3)
        z = rng.normal(0.05, 0.1, size=(200, 20))
        assert np.array_equal(project_to_histograms(z, 50), project_to_histograms(z, 50, ties="smallest"))

    def test_bad_ties_named(self):
        with pytest.raises(ValueError, match="ties: must be one of"):
            project_to_histograms([0.5, 0.5], 2, ties="largest")

    def test_known_case(self):
        # w = (3, 2.4, 2.1, -0.6): floors (3, 2, 2, 0) hold 7 > 6 units; one unit must go
        z = [0.5, 0.4, 0.35, -0.1]
        assert np.allclose(project_to_histograms(z, 6, ties="proportional") * 6, [2, 2, 2, 0])
        assert np.allclose(project_to_histograms(z, 6, ties="smallest") * 6, [3, 1, 2, 0])

    @HYPOTHESIS
    @given(small_k, small_n, st.data())
    def test_both_rules_are_exact_minimisers(self, k, n, data):
        z = data.draw(hnp.arrays(float, (k,), elements=st.floats(-0.5, 1.5, allow_nan=False)))
        candidates = all_histograms(k, n)
        best = np.abs(z - candidates / n).sum(axis=1).min()
        for ties in ("smallest", "proportional"):
            c = assert_valid_histogram(project_to_histograms(z, n, ties=ties), n, (k,))
            assert loss(z, c, n) <= best + TOL

    def test_proportional_batches_match_rows(self):
        rng = np.random.default_rng(4)
        z = rng.laplace(0.1, 0.2, size=(30, 10))
        batch = project_to_histograms(z, 40, ties="proportional")
        rows = np.stack([project_to_histograms(row, 40, ties="proportional") for row in z])
        assert np.array_equal(batch, rows)

    def test_proportional_keeps_spurious_mass_smallest_removes_it(self):
        """Many empty cells with positive noise: the two rules differ on the empty cells."""
        rng = np.random.default_rng(5)
        counts = np.zeros(25, dtype=int)
        counts[:2] = 250
        z = dp_histogram(counts, 0.2, rng=rng)
        small = project_to_histograms(z, 500, ties="smallest")
        prop = project_to_histograms(z, 500, ties="proportional")
        assert np.isclose(np.abs(z - small).sum(), np.abs(z - prop).sum(), atol=TOL)
        assert prop[2:].sum() > small[2:].sum()


class TestKeepZeros:
    """keep_zeros=True: no mass on cells released as exactly 0, still an exact minimiser."""

    def test_default_is_unchanged(self):
        rng = np.random.default_rng(6)
        z = rng.normal(0.02, 0.05, size=(300, 12))
        assert np.array_equal(project_to_histograms(z, 40), project_to_histograms(z, 40, keep_zeros=False))

    @HYPOTHESIS
    @given(small_k, small_n, st.data())
    def test_exact_minimiser_with_no_mass_on_zeros(self, k, n, data):
        z = data.draw(hnp.arrays(float, (k,), elements=st.sampled_from([0.0, -0.2, 0.1, 0.3, 0.55, 1.2])))
        candidates = all_histograms(k, n)
        best = np.abs(z - candidates / n).sum(axis=1).min()
        for ties in ("smallest", "proportional"):
            c = assert_valid_histogram(project_to_histograms(z, n, ties=ties, keep_zeros=True), n, (k,))
            assert loss(z, c, n) <= best + TOL
            if np.any(z != 0):
                # mass may sit on a zero cell only when no released cell could take it at cost +1
                nonzero_can_take = np.any((z != 0) & (c > 0))
                assert not nonzero_can_take or np.all(c[z == 0] == 0)

    def test_sparse_release_keeps_its_zeros(self):
        rng = np.random.default_rng(7)
        counts = np.zeros(25, dtype=int)
        counts[:2] = 250
        z = rdp_histogram(counts, 0.2, 0.1, rng=rng, size=500)
        plain = project_to_histograms(z, 500, ties="proportional")
        kept = project_to_histograms(z, 500, ties="proportional", keep_zeros=True)
        assert np.mean((plain * (z == 0)).sum(axis=1) > 0) > 0.2  # the plain projection spills
        assert np.all(kept[z == 0] == 0)
        np.testing.assert_allclose(l1_loss(plain, z), l1_loss(kept, z), atol=1e-12)

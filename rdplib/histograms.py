"""Private histograms: the DP perturbation method, the RDP sparse mechanism and the L1 projection.

Notation follows the book: a histogram of ``n`` observations over ``k`` cells is
the vector of proportions ``theta = counts / n``; neighbouring datasets differ by
replacing one record, which moves ``1/n`` of mass from one cell to another, so
``theta`` has L1 sensitivity ``2/n`` and the Laplace scale is ``2/(n ε)``.
"""

from __future__ import annotations

import numbers
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    as_rng,
    check_counts,
    check_epsilon,
    check_gamma,
    check_int,
    check_numeric_array,
)

__all__ = [
    "histogram_counts",
    "dp_histogram",
    "rdp_histogram",
    "rdp_condition_holds",
    "project_to_histograms",
    "l1_loss",
]


_TIES = ("smallest", "proportional")  # tie rules of project_to_histograms


def histogram_counts(cells: ArrayLike, k: int) -> np.ndarray:
    """Count how many of the integer cell labels ``cells`` (in ``0..k-1``) fall in each cell.

    Parameters
    ----------
    cells : array_like of int, shape (n,)
        Cell label of each record.
    k : int
        Number of cells, ``>= 1``.

    Returns
    -------
    numpy.ndarray of int64, shape (k,)

    Examples
    --------
    >>> histogram_counts([0, 2, 2, 1, 2], k=4)
    array([1, 1, 3, 0])
    """
    k = check_int(k, "k", minimum=1)
    arr = np.asarray(cells)
    if arr.dtype.kind in "iu":  # integer labels: only the range needs checking (no float copy)
        if arr.ndim != 1:
            raise ValueError(f"cells: must be one-dimensional, got shape {arr.shape}")
        if arr.size == 0:
            return np.zeros(k, dtype=np.int64)
        # One pass for the largest label (so a huge label cannot make bincount allocate a
        # huge array); bincount itself rejects negative labels.
        counts = None
        if arr.max() < k:
            try:
                counts = np.bincount(arr, minlength=k)
            except (ValueError, TypeError):  # negative labels
                counts = None
        if counts is None:
            raise ValueError(f"cells: every label must be an integer in 0..{k - 1}")
        return counts
    arr = check_numeric_array(arr, "cells", allow_empty=True)
    if arr.ndim != 1:
        raise ValueError(f"cells: must be one-dimensional, got shape {arr.shape}")
    if np.any(arr != np.round(arr)) or np.any(arr < 0) or np.any(arr >= k):
        raise ValueError(f"cells: every label must be an integer in 0..{k - 1}")
    return np.bincount(arr.astype(np.int64), minlength=k)


def _noise_shape(counts: np.ndarray, size: int | None) -> tuple[int, ...]:
    if size is None:
        return counts.shape
    size = check_int(size, "size", minimum=1)
    return (size, *counts.shape)


def dp_histogram(
    counts: ArrayLike, epsilon: float, rng: Any = None, size: int | None = None
) -> np.ndarray:
    """ε-DP histogram by perturbation: ``counts/n + Lap(2/(nε))`` in every cell.

    Parameters
    ----------
    counts : array_like of non-negative integers, shape (k,)
        The cell counts; ``n = counts.sum()``.
    epsilon : float
        Privacy parameter, ``> 0``.
    rng : None, int or numpy.random.Generator
        Source of randomness.
    size : int, optional
        Number of independent releases; the result then has shape ``(size, k)``.

    Returns
    -------
    numpy.ndarray
        The noisy proportions ``z`` (not a histogram: entries can be negative;
        use :func:`project_to_histograms` to map back).

    Examples
    --------
    >>> z = dp_histogram([250, 250, 0, 0], epsilon=1.0, rng=0)
    >>> z.shape
    (4,)
    """
    counts = check_counts(counts)
    if counts.ndim != 1:
        raise ValueError(f"counts: must be one-dimensional, got shape {counts.shape}")
    epsilon = check_epsilon(epsilon)
    rng = as_rng(rng)
    n = counts.sum()
    theta = counts / n
    return theta + rng.laplace(0.0, 2.0 / (n * epsilon), size=_noise_shape(counts, size))


def rdp_condition_holds(k: int, n: int, gamma: float | Fraction | Decimal) -> bool:
    """Whether ``2k <= γn``, the condition under which the sparse mechanism skips empty cells.

    Every comparison is exact, in rational arithmetic. A :class:`fractions.Fraction`
    or :class:`decimal.Decimal` ``gamma`` is taken at its value, and the test is
    ``2k <= γn`` itself: ``rdp_condition_holds(400, 16_000, Fraction("0.15") / 3)``
    is True (2k = 800 = γn).

    A float ``gamma`` is taken at its exact binary value, with a relative slack of
    ``2**-50`` (eight unit roundoffs of a float64) for the rounding of a γ that was
    computed: ``0.15 / 3`` is ``0.049999999999999996``, just below 1/20, and
    ``0.29 * 200`` is ``57.99999999999999``. The slack is safe because the privacy
    proof (Prop. 5.1 of Hall, Rinaldo & Wasserman) needs less than ``2k <= γn``: it
    bounds the bad event's probability, given the multiset of the ``n + 1``
    records, by ``2|S*|/(n+1) <= 2k/(n+1)``, so ``2k <= γ(n+1)`` suffices, a margin
    of γ over ``2k <= γn``. A float is therefore accepted when
    ``2k <= γn(1 + 2**-50)`` and ``2k <= γ(n+1)``, both with γ's exact binary
    value; the second test binds only above ``n = 2**50``, where the slack would
    exceed the margin. Every accepted ``(k, n, gamma)`` meets the proof's
    requirement for the γ actually passed. :func:`rdp_histogram` uses the same test.

    Parameters
    ----------
    k : int
        Number of cells, ``>= 1``.
    n : int
        Number of observations, ``>= 1``.
    gamma : float, Fraction or Decimal
        RDP parameter in (0, 1).

    Returns
    -------
    bool

    Examples
    --------
    >>> rdp_condition_holds(25, 500, 0.1), rdp_condition_holds(25, 200, 0.1)
    (True, False)
    >>> rdp_condition_holds(29, 200, 0.29), rdp_condition_holds(30, 200, 0.29)  # 2k = 58 = γn exactly
    (True, False)
    >>> 0.15 / 3, rdp_condition_holds(400, 16_000, 0.15 / 3)  # a computed γ, one ulp below 1/20
    (0.049999999999999996, True)
    >>> rdp_condition_holds(400, 16_000, Fraction(15, 100) / 3)  # exact: 800 = γn
    True
    """
    k = check_int(k, "k", minimum=1)
    n = check_int(n, "n", minimum=1)
    return _sparse_condition(k, n, _exact_gamma(gamma))


_FLOAT_SLACK = 1 + Fraction(1, 2**50)  # relative slack for a float γ: eight float64 unit roundoffs


def _exact_gamma(gamma: Any) -> tuple[Fraction, bool]:
    """``gamma`` as an exact Fraction in (0, 1), and whether it was given as a float."""
    if isinstance(gamma, Decimal) or (
        isinstance(gamma, numbers.Rational) and not isinstance(gamma, numbers.Integral)
    ):
        if isinstance(gamma, Decimal) and not gamma.is_finite():
            raise ValueError(f"gamma: must be a finite number in (0, 1), got {gamma}")
        exact = Fraction(gamma)
        if not 0 < exact < 1:
            raise ValueError(f"gamma: must lie in (0, 1), got {gamma}")
        return exact, False
    return Fraction(check_gamma(gamma)), True


def _sparse_condition(k: int, n: int, gamma: tuple[Fraction, bool]) -> bool:
    """``2k <= γn`` exactly for an exact γ; for a float γ, with the slack of :func:`rdp_condition_holds`."""
    exact, is_float = gamma
    k, n = int(k), int(n)
    if not is_float:
        return bool(2 * k <= exact * n)
    if n < 2**53 and k < 2**52:  # fast path: the float product is within two roundings of γn
        product = float(exact) * n
        if 2 * k < product * (1 - 2.0**-40):
            return True
        if 2 * k > product * (1 + 2.0**-40):
            return False
    return bool(2 * k <= exact * n * _FLOAT_SLACK and 2 * k <= exact * (n + 1))


def rdp_histogram(
    counts: ArrayLike,
    epsilon: float,
    gamma: float | Fraction | Decimal,
    rng: Any = None,
    size: int | None = None,
    require_sparse: bool = False,
) -> np.ndarray:
    """(ε, γ)-random-DP sparse histogram (Hall, Rinaldo & Wasserman, eq. 5).

    When ``2k <= γn`` the empty cells are released exactly (zero, no noise) and
    the others get ``Lap(2/(nε))`` noise; otherwise the mechanism falls back to
    noise in every cell, i.e. to :func:`dp_histogram`.

    Parameters
    ----------
    counts : array_like of non-negative integers, shape (k,)
        The cell counts; ``n = counts.sum() >= 1``.
    epsilon : float
        Privacy parameter, ``> 0``.
    gamma : float, Fraction or Decimal
        Probability (over the data) that the ε-bound may fail, in ``(0, 1)``.
        The condition ``2k <= γn`` is tested as in :func:`rdp_condition_holds`.
    rng : None, int or numpy.random.Generator
        Source of randomness.
    size : int, optional
        Number of independent releases (result shape ``(size, k)``).
    require_sparse : bool
        If True, raise ``ValueError`` instead of falling back when ``2k > γn``.

    Returns
    -------
    numpy.ndarray
        The released proportions, shape ``(k,)`` or ``(size, k)``.

    Examples
    --------
    >>> z = rdp_histogram([250, 250, 0, 0, 0], epsilon=1.0, gamma=0.1, rng=0)
    >>> z[2:].tolist()  # empty cells are released exactly
    [0.0, 0.0, 0.0]
    """
    counts = check_counts(counts)
    if counts.ndim != 1:
        raise ValueError(f"counts: must be one-dimensional, got shape {counts.shape}")
    epsilon = check_epsilon(epsilon)
    exact_gamma = _exact_gamma(gamma)
    k, n = counts.size, int(counts.sum())
    sparse = _sparse_condition(k, n, exact_gamma)
    if not sparse and require_sparse:
        raise ValueError(
            f"gamma: the sparse mechanism needs 2k <= gamma*n, but 2k = {2 * k} > "
            f"gamma*n = {float(exact_gamma[0] * n):g}; increase gamma or n, or allow the fall-back"
        )
    rng = as_rng(rng)
    theta = counts / n
    noise = rng.laplace(0.0, 2.0 / (n * epsilon), size=_noise_shape(counts, size))
    if sparse:
        noise = np.where(counts == 0, 0.0, noise)
    return theta + noise


def project_to_histograms(
    z: ArrayLike, n: int, ties: str = "smallest", keep_zeros: bool = False
) -> np.ndarray:
    """Exact L1 projection of ``z`` onto the histograms of ``n`` observations (the paper's δ(z)).

    Returns ``c / n`` where the integer vector ``c >= 0`` with ``sum(c) = n``
    minimises ``sum |z_i - c_i / n|``. Works on the last axis, so a batch of
    vectors of shape ``(..., k)`` is projected at once.

    Algorithm: with ``w = n z`` every term ``|w_i - c_i|`` is convex in the integer
    ``c_i``, so the optimum takes the ``n`` cheapest unit increments. Raising
    ``c_i`` up to ``floor(w_i)`` costs -1 per unit; the next unit costs
    ``2 floor(w_i) + 1 - 2 w_i`` (or +1 when ``w_i <= 0``); later units cost +1.
    Start from ``b = floor(max(w, 0))``; if ``sum(b) < n`` add the cheapest
    straddling units (then spread any remainder evenly), otherwise remove the
    surplus, which costs +1 wherever it is taken, from the smallest cells
    first. Ties are broken by cell index. Adding needs only a selection
    (``numpy.partition``, O(k)); removing needs one sort, O(k log k).

    The minimiser is often not unique. Whenever ``sum(b) >= n`` *every* integer
    vector with ``0 <= c <= b`` and ``sum(c) = n`` is a minimiser, because each
    unit removed from ``b`` costs exactly 1 wherever it is taken. When units must
    be added, ties arise too: once the straddling units are used, every further
    unit costs +1 wherever it goes, so every placement of the remainder is a
    minimiser (it is spread round-robin over all cells, including cells where
    ``z <= 0``). Only when ``sum(b) == n`` exactly is the minimiser ``b`` alone.
    ``ties`` says which minimiser is returned when the surplus is removed:

    ``"smallest"`` (default)
        Remove the surplus from the smallest cells first. It wipes out the small
        spurious counts that noise creates in empty cells.
    ``"proportional"``
        Remove the surplus from the floors ``b`` in proportion to them (largest
        remainders take the leftover units), so that the result is still an exact
        minimiser; "clip at zero, rescale to total n, round" is close in spirit
        but is not always a minimiser. It keeps spurious mass where the noise
        put it.

    When ``sum(b) < n`` the minimiser built by adding units is returned for both.
    Units beyond the straddling ones cost +1 wherever they go, so they may land
    in cells where ``z`` is exactly 0. A sparse release (:func:`rdp_histogram`,
    a thresholded histogram) means those zeros: with ``keep_zeros=True`` such
    units move to the cells where ``z`` is not 0, in proportion to their counts
    (largest remainders first). The result is still an exact minimiser.

    Parameters
    ----------
    z : array_like, shape (..., k)
        Finite vector(s) to project, e.g. the output of :func:`dp_histogram`.
    n : int
        Number of observations, ``>= 1``.
    ties : {"smallest", "proportional"}
        Which minimiser to return when several exist (see above).
    keep_zeros : bool, default False
        Never put mass on a cell where ``z`` is exactly 0 (unless every cell is).

    Returns
    -------
    numpy.ndarray
        Same shape as ``z``: non-negative multiples of ``1/n`` summing to 1
        along the last axis.

    Examples
    --------
    >>> project_to_histograms([0.52, 0.49, -0.03, 0.02], n=100)
    array([0.52, 0.48, 0.  , 0.  ])
    >>> project_to_histograms([0.52, 0.49, -0.03, 0.02], n=100, ties="proportional")
    array([0.5 , 0.48, 0.  , 0.02])
    >>> project_to_histograms([0.3, 0.0, 0.0, 0.0], n=10)  # units must be added
    array([0.5, 0.2, 0.2, 0.1])
    >>> project_to_histograms([0.3, 0.0, 0.0, 0.0], n=10, keep_zeros=True)
    array([1., 0., 0., 0.])
    """
    if ties not in _TIES:
        raise ValueError(f"ties: must be one of {_TIES}, got {ties!r}")
    arr = check_numeric_array(z, "z")
    if arr.ndim == 0:
        raise ValueError("z: must have at least one dimension (the k cells)")
    n = check_int(n, "n", minimum=1)
    with np.errstate(over="ignore"):  # an overflow becomes inf and fails the check below
        w = arr * n
    if not np.all(np.abs(w) <= 2.0**52):  # beyond this, floats no longer hold every integer
        raise ValueError(f"z: every |z_i| * n must be at most 2**52 (n = {n}); got a larger entry")
    base = np.floor(np.maximum(w, 0.0))
    shortfall = n - base.sum(axis=-1, keepdims=True)  # > 0: units to add; < 0: to remove
    counts = base
    if np.any(shortfall > 0):
        counts = counts + _units_to_add(w, base, np.maximum(shortfall, 0.0))
    if np.any(shortfall < 0):
        if ties == "smallest":
            counts = counts - _units_to_remove(base, np.maximum(-shortfall, 0.0))
        else:
            counts = counts - _units_to_remove_proportionally(base, np.maximum(-shortfall, 0.0))
    if keep_zeros:
        counts = _move_units_off_zeros(counts, arr == 0)
    return counts / n


def _move_units_off_zeros(counts: np.ndarray, zero: np.ndarray) -> np.ndarray:
    """Move the units in cells flagged ``zero`` to the other cells, in proportion to their counts."""
    moved = np.where(zero, counts, 0.0).sum(axis=-1, keepdims=True)
    kept = np.where(zero, 0.0, counts)
    share = kept * moved / np.maximum(kept.sum(axis=-1, keepdims=True), 1.0)
    whole = np.floor(share)
    rank = np.argsort(np.argsort(whole - share, axis=-1, kind="stable"), axis=-1)
    fixed = kept + whole + (rank < moved - whole.sum(axis=-1, keepdims=True))
    return np.where(np.all(zero, axis=-1, keepdims=True), counts, fixed)


def _units_to_remove_proportionally(base: np.ndarray, surplus: np.ndarray) -> np.ndarray:
    """Units to take from each cell of ``base``: in proportion to ``base``, largest remainders first."""
    total = base.sum(axis=-1, keepdims=True)
    share = base * surplus / np.maximum(total, 1.0)
    whole = np.floor(share)
    leftover = surplus - whole.sum(axis=-1, keepdims=True)
    fraction = share - whole
    order = np.argsort(-fraction, axis=-1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.broadcast_to(np.arange(base.shape[-1]), order.shape), axis=-1)
    return whole + (rank < leftover)


def _kth_smallest(values: np.ndarray, kth: np.ndarray) -> np.ndarray:
    """The ``kth``-smallest entry (0-based, one ``kth`` per row) along the last axis."""
    if values.ndim == 1:
        return np.partition(values, int(kth[0]))[int(kth[0]) : int(kth[0]) + 1]  # O(k)
    return np.take_along_axis(np.sort(values, axis=-1), kth.astype(np.intp), axis=-1)


def _units_to_add(w: np.ndarray, base: np.ndarray, to_add: np.ndarray) -> np.ndarray:
    """Units added on top of ``base``: the cheapest straddling increments (ties by index)."""
    k = w.shape[-1]
    # Cost of the unit that straddles w_i (in (-1, 1]); every later unit costs +1.
    step_cost = np.where(w > 0, 2.0 * base + 1.0 - 2.0 * w, 1.0)
    per_cell, extra = to_add // k, to_add % k  # every cell gets per_cell; `extra` cells one more
    # The `extra` cheapest cells, ties broken by index (as a stable sort would): select
    # by a threshold value instead of sorting, O(k) per vector.
    kth = np.maximum(extra - 1, 0)
    cutoff = _kth_smallest(step_cost, kth)
    below = step_cost < cutoff
    at = step_cost == cutoff
    still_needed = extra - below.sum(axis=-1, keepdims=True)
    chosen = below | (at & (np.cumsum(at, axis=-1) <= still_needed))
    return per_cell + (chosen & (extra > 0))


def _units_to_remove(base: np.ndarray, surplus: np.ndarray) -> np.ndarray:
    """Units taken from ``base`` (each costs +1 anywhere): smallest cells first, ties by index."""
    sorted_base = np.sort(base, axis=-1)
    reached = np.cumsum(sorted_base, axis=-1) < surplus
    # The cells strictly below `cutoff` are emptied; cells equal to it are emptied in index
    # order until the surplus is used up (identical to a greedy pass over a stable sort).
    position = np.minimum(reached.sum(axis=-1, keepdims=True), base.shape[-1] - 1)
    cutoff = np.take_along_axis(sorted_base, position.astype(np.intp), axis=-1)
    below = base < cutoff
    remaining = surplus - np.where(below, base, 0.0).sum(axis=-1, keepdims=True)
    at = base == cutoff
    rank_at = np.cumsum(at, axis=-1) - 1.0
    from_at = np.where(at, np.clip(remaining - rank_at * cutoff, 0.0, cutoff), 0.0)
    removed = np.where(below, base, from_at)
    return np.where(surplus > 0, removed, 0.0)


def l1_loss(a: ArrayLike, b: ArrayLike) -> np.ndarray | float:
    """L1 distance ``sum |a - b|`` over the last axis (batched when inputs are 2-D).

    Parameters
    ----------
    a, b : array_like, shape (..., k)
        Finite vectors with the same last dimension (leading axes broadcast).

    Returns
    -------
    float or numpy.ndarray
        A float for 1-D inputs, otherwise one distance per row.

    Examples
    --------
    >>> round(l1_loss([0.5, 0.5, 0.0], [0.4, 0.5, 0.1]), 12)
    0.2
    """
    a = check_numeric_array(a, "a")
    b = check_numeric_array(b, "b")
    for name, arr in (("a", a), ("b", b)):
        if arr.ndim == 0:
            raise ValueError(f"{name}: must have at least one dimension (the k cells), got a scalar")
    try:
        diff = np.abs(a - b)
    except ValueError as exc:
        raise ValueError(f"a, b: shapes {a.shape} and {b.shape} do not match") from exc
    if a.shape[-1:] != b.shape[-1:]:
        raise ValueError(f"a, b: shapes {a.shape} and {b.shape} do not match")
    out = diff.sum(axis=-1)
    return float(out) if np.ndim(out) == 0 else out

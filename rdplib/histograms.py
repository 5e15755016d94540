"""Private histograms: the DP perturbation method, the RDP sparse mechanism and the L1 projection.

Notation follows the book: a histogram of ``n`` observations over ``k`` cells is
the vector of proportions ``theta = counts / n``; neighbouring datasets differ by
replacing one record, which moves ``1/n`` of mass from one cell to another, so
``theta`` has L1 sensitivity ``2/n`` and the Laplace scale is ``2/(n ε)``.
"""

from __future__ import annotations

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


def histogram_counts(cells: ArrayLike, k: int) -> np.ndarray:
    """Count how many of the integer cell labels ``cells`` (in ``0..k-1``) fall in each cell.

    Examples
    --------
    >>> histogram_counts([0, 2, 2, 1, 2], k=4)
    array([1, 1, 3, 0])
    """
    k = check_int(k, "k", minimum=1)
    arr = check_numeric_array(cells, "cells", allow_empty=True)
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


def rdp_condition_holds(k: int, n: int, gamma: float) -> bool:
    """Whether ``2k <= γn``, the condition under which the sparse mechanism skips empty cells.

    Examples
    --------
    >>> rdp_condition_holds(25, 500, 0.1), rdp_condition_holds(25, 200, 0.1)
    (True, False)
    """
    k = check_int(k, "k", minimum=1)
    n = check_int(n, "n", minimum=1)
    gamma = check_gamma(gamma)
    return bool(2 * k <= gamma * n)


def rdp_histogram(
    counts: ArrayLike,
    epsilon: float,
    gamma: float,
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
    epsilon : float
        Privacy parameter, ``> 0``.
    gamma : float
        Probability (over the data) that the ε-bound may fail, in ``(0, 1)``.
    rng : None, int or numpy.random.Generator
    size : int, optional
        Number of independent releases (result shape ``(size, k)``).
    require_sparse : bool
        If True, raise ``ValueError`` instead of falling back when ``2k > γn``.

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
    gamma = check_gamma(gamma)
    k, n = counts.size, int(counts.sum())
    sparse = 2 * k <= gamma * n
    if not sparse and require_sparse:
        raise ValueError(
            f"gamma: the sparse mechanism needs 2k <= gamma*n, but 2k = {2 * k} > "
            f"gamma*n = {gamma * n:g}; increase gamma or n, or allow the fall-back"
        )
    rng = as_rng(rng)
    theta = counts / n
    noise = rng.laplace(0.0, 2.0 / (n * epsilon), size=_noise_shape(counts, size))
    if sparse:
        noise = np.where(counts == 0, 0.0, noise)
    return theta + noise


def project_to_histograms(z: ArrayLike, n: int) -> np.ndarray:
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
    surplus, which costs the same wherever it is taken, from the smallest cells
    first. One sort per vector: O(k log k).

    Examples
    --------
    >>> project_to_histograms([0.52, 0.49, -0.03, 0.02], n=100)
    array([0.52, 0.48, 0.  , 0.  ])
    """
    arr = check_numeric_array(z, "z")
    if arr.ndim == 0:
        raise ValueError("z: must have at least one dimension (the k cells)")
    n = check_int(n, "n", minimum=1)
    w = arr * n
    k = w.shape[-1]
    base = np.floor(np.maximum(w, 0.0))
    base_total = base.sum(axis=-1, keepdims=True)
    shortfall = n - base_total  # > 0: units to add; < 0: units to remove

    # --- adding units: cheapest straddling increments first ---
    step_cost = np.where(w > 0, 2.0 * base + 1.0 - 2.0 * w, 1.0)
    order = np.argsort(step_cost, axis=-1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(k), axis=-1)
    to_add = np.maximum(shortfall, 0.0)
    add = to_add // k + (rank < (to_add % k))

    # --- removing units: take the surplus from the smallest cells first ---
    surplus = np.maximum(-shortfall, 0.0)
    order_small = np.argsort(base, axis=-1, kind="stable")
    sorted_base = np.take_along_axis(base, order_small, axis=-1)
    before = np.cumsum(sorted_base, axis=-1) - sorted_base
    removed_sorted = np.clip(surplus - before, 0.0, sorted_base)
    removed = np.empty_like(removed_sorted)
    np.put_along_axis(removed, order_small, removed_sorted, axis=-1)

    counts = base + add - removed
    return counts / n


def l1_loss(a: ArrayLike, b: ArrayLike) -> np.ndarray | float:
    """L1 distance ``sum |a - b|`` over the last axis (batched when inputs are 2-D).

    Examples
    --------
    >>> round(l1_loss([0.5, 0.5, 0.0], [0.4, 0.5, 0.1]), 12)
    0.2
    """
    a = check_numeric_array(a, "a")
    b = check_numeric_array(b, "b")
    try:
        diff = np.abs(a - b)
    except ValueError as exc:
        raise ValueError(f"a, b: shapes {a.shape} and {b.shape} do not match") from exc
    if a.shape[-1:] != b.shape[-1:]:
        raise ValueError(f"a, b: shapes {a.shape} and {b.shape} do not match")
    out = diff.sum(axis=-1)
    return float(out) if np.ndim(out) == 0 else out

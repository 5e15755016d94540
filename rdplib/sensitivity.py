"""Neighbouring datasets, sensitivity and the privacy loss (chapter 1).

Two notions of "neighbouring datasets" appear in the sources of the book:

``"replace-one"``
    Both datasets have the same size ``n`` and differ in one entry (one
    person's record is swapped for another). The lecture notes *Privacy Basics
    I* and the paper of Hall, Rinaldo and Wasserman use this one.
``"add-remove"``
    One dataset is the other with one record added (sizes ``n`` and ``n + 1``).
    The hospital example of the *Differential Privacy* lecture notes (a patient
    walks in between 1 PM and 1:05 PM) is of this kind.

The functions here give the sensitivity of the basic queries under either
notion, compute it by brute force over every neighbouring pair of small
datasets (to check the formulas), and evaluate the privacy loss of the Laplace
mechanism.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    as_rng,
    check_epsilon,
    check_int,
    check_numeric_array,
    check_positive,
    check_real,
)
from .mechanisms import laplace_mechanism

__all__ = [
    "NEIGHBOUR_RELATIONS",
    "QUERIES",
    "query_sensitivity",
    "all_datasets",
    "brute_force_sensitivity",
    "count_query",
    "sum_query",
    "mean_query",
    "histogram_query",
    "laplace_density",
    "laplace_cdf",
    "laplace_privacy_loss",
    "laplace_expected_privacy_loss",
    "laplace_privacy_loss_cdf",
    "sample_laplace_privacy_loss",
]

NEIGHBOUR_RELATIONS = ("replace-one", "add-remove")
QUERIES = ("count", "sum", "mean", "histogram")


def _check_neighbours(neighbours: Any) -> str:
    if neighbours not in NEIGHBOUR_RELATIONS:
        raise ValueError(
            f"neighbours: must be one of {NEIGHBOUR_RELATIONS}, got {neighbours!r}"
        )
    return neighbours


def _check_bounds(lower: Any, upper: Any) -> tuple[float, float]:
    lower = check_real(lower, "lower")
    upper = check_real(upper, "upper")
    if not upper >= lower:
        raise ValueError(f"upper: must be at least lower ({lower}), got {upper}")
    return lower, upper


def query_sensitivity(
    query: str,
    neighbours: str = "replace-one",
    lower: float = 0.0,
    upper: float = 1.0,
    n: int | None = None,
) -> float:
    """Global (L1) sensitivity of a basic query on records in ``[lower, upper]``.

    ============  ====================  =====================================
    query         replace-one (size n)  add-remove (sizes >= n)
    ============  ====================  =====================================
    count         1                     1
    sum           upper - lower         max(abs(lower), abs(upper))
    mean          (upper - lower) / n   (upper - lower) / (n + 1)
    histogram     2                     1
    ============  ====================  =====================================

    ``count`` counts the records with a property (a 0/1 attribute);
    ``histogram`` is the vector of counts of the categories, measured in the
    L1 norm. For ``mean`` under add-remove, ``n`` is the smallest size a
    dataset may have; the bound ``upper / n`` of the lecture notes (with
    ``lower = 0``) is slightly larger than the exact value given here.

    Parameters
    ----------
    query : {"count", "sum", "mean", "histogram"}
    neighbours : {"replace-one", "add-remove"}
    lower, upper : float
        The range every record is clipped to (used by ``sum`` and ``mean``).
    n : int, optional
        Dataset size (required for ``mean``; at least 1).

    Examples
    --------
    >>> query_sensitivity("histogram", "replace-one"), query_sensitivity("histogram", "add-remove")
    (2.0, 1.0)
    >>> query_sensitivity("mean", "replace-one", 0, 200_000, n=100)
    2000.0
    """
    if query not in QUERIES:
        raise ValueError(f"query: must be one of {QUERIES}, got {query!r}")
    neighbours = _check_neighbours(neighbours)
    lower, upper = _check_bounds(lower, upper)
    replace = neighbours == "replace-one"
    if query == "count":
        return 1.0
    if query == "histogram":
        return 2.0 if replace else 1.0
    if query == "sum":
        return float(upper - lower) if replace else float(max(abs(lower), abs(upper)))
    if n is None:
        raise ValueError("n: the mean needs the dataset size n (an integer >= 1)")
    n = check_int(n, "n", minimum=1)
    return float(upper - lower) / (n if replace else n + 1)


def all_datasets(domain: ArrayLike, n: int) -> np.ndarray:
    """Every dataset of ``n`` records drawn from a finite ``domain``, one per row.

    Returns an array of shape ``(len(domain) ** n, n)``; at most 10**6 rows.

    Examples
    --------
    >>> all_datasets([0, 1], 2)
    array([[0., 0.],
           [0., 1.],
           [1., 0.],
           [1., 1.]])
    """
    values = check_numeric_array(domain, "domain")
    if values.ndim != 1:
        raise ValueError(f"domain: must be one-dimensional, got shape {values.shape}")
    n = check_int(n, "n", minimum=1)
    if values.size**n > 10**6:
        raise ValueError(
            f"n: len(domain) ** n must be at most 10**6 for brute force, got {values.size}**{n}"
        )
    index = np.array(list(itertools.product(range(values.size), repeat=n)), dtype=np.int64)
    return values[index.reshape(-1, n)]


def _l1_gap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    gap = np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))
    return gap.reshape(gap.shape[0], -1).sum(axis=1)


def brute_force_sensitivity(
    query: Callable[[np.ndarray], np.ndarray],
    domain: ArrayLike,
    n: int,
    neighbours: str = "replace-one",
    return_pair: bool = False,
) -> float | tuple[float, np.ndarray, np.ndarray]:
    """Largest L1 change of ``query`` over every neighbouring pair of small datasets.

    ``query`` takes a 2-D array (one dataset per row) and returns one answer
    per row (shape ``(rows,)``, or ``(rows, k)`` for a vector-valued query such
    as a histogram). Under ``"replace-one"`` every dataset of size ``n`` is
    compared with every dataset obtained by replacing one of its entries by any
    domain value; under ``"add-remove"`` every dataset of size ``n + 1`` is
    compared with each dataset obtained by deleting one entry.

    Parameters
    ----------
    query : callable
    domain : array_like
        The finite set of values a record can take.
    n : int
        Dataset size (the smaller size for add-remove).
    neighbours : {"replace-one", "add-remove"}
    return_pair : bool
        Also return one neighbouring pair ``(x, x_prime)`` attaining the maximum.

    Examples
    --------
    >>> brute_force_sensitivity(sum_query, [0, 50, 100], n=3)
    100.0
    >>> brute_force_sensitivity(mean_query, [0, 50, 100], n=3, neighbours="add-remove")
    25.0
    """
    if not callable(query):
        raise TypeError(f"query: expected a callable, got {type(query).__name__}")
    neighbours = _check_neighbours(neighbours)
    n = check_int(n, "n", minimum=1)
    values = check_numeric_array(domain, "domain")
    if neighbours == "replace-one":
        data = all_datasets(values, n)
        base = np.asarray(query(data))
        best, best_pair = -1.0, None
        for position in range(n):  # a loop over positions and values, not samples
            for value in values:
                changed = data.copy()
                changed[:, position] = value
                gaps = _l1_gap(base, query(changed))
                i = int(np.argmax(gaps))
                if gaps[i] > best:
                    best, best_pair = float(gaps[i]), (data[i], changed[i])
    else:
        data = all_datasets(values, n + 1)
        base = np.asarray(query(data))
        best, best_pair = -1.0, None
        for position in range(n + 1):
            smaller = np.delete(data, position, axis=1)
            gaps = _l1_gap(base, query(smaller))
            i = int(np.argmax(gaps))
            if gaps[i] > best:
                best, best_pair = float(gaps[i]), (smaller[i], data[i])
    if return_pair:
        return best, best_pair[0], best_pair[1]
    return best


def count_query(data: ArrayLike) -> np.ndarray:
    """Number of records equal to 1 in each row (a conditional COUNT on a 0/1 attribute).

    Examples
    --------
    >>> count_query([[1, 0, 1], [0, 0, 0]])
    array([2., 0.])
    """
    arr = np.atleast_2d(check_numeric_array(data, "data"))
    return (arr == 1).sum(axis=-1).astype(float)


def sum_query(data: ArrayLike) -> np.ndarray:
    """Sum of each row.

    Examples
    --------
    >>> sum_query([[1, 2, 3], [4, 5, 6]])
    array([ 6., 15.])
    """
    return np.atleast_2d(check_numeric_array(data, "data")).sum(axis=-1)


def mean_query(data: ArrayLike) -> np.ndarray:
    """Mean of each row.

    Examples
    --------
    >>> mean_query([[1, 2, 3], [4, 5, 6]])
    array([2., 5.])
    """
    return np.atleast_2d(check_numeric_array(data, "data")).mean(axis=-1)


def histogram_query(num_categories: int) -> Callable[[np.ndarray], np.ndarray]:
    """A query returning, per row, the counts of the categories ``0, ..., num_categories - 1``.

    Examples
    --------
    >>> histogram_query(3)([[0, 2, 2], [1, 1, 1]])
    array([[1., 0., 2.],
           [0., 3., 0.]])
    """
    k = check_int(num_categories, "num_categories", minimum=1)

    def histogram(data: ArrayLike) -> np.ndarray:
        arr = np.atleast_2d(check_numeric_array(data, "data"))
        return (arr[..., None] == np.arange(k)).sum(axis=-2).astype(float)

    return histogram


def laplace_density(y: ArrayLike, loc: ArrayLike, scale: float) -> np.ndarray | float:
    """Density ``exp(-|y - loc| / scale) / (2 scale)`` of the Laplace distribution.

    Examples
    --------
    >>> laplace_density(0.0, 0.0, 2.0)
    0.25
    """
    scale = check_positive(scale, "scale")
    y = np.asarray(y, dtype=float)
    out = np.exp(-np.abs(y - np.asarray(loc, dtype=float)) / scale) / (2.0 * scale)
    return float(out) if out.ndim == 0 else out


def laplace_cdf(y: ArrayLike, loc: ArrayLike, scale: float) -> np.ndarray | float:
    """Distribution function ``P[loc + Lap(scale) <= y]`` of the Laplace distribution.

    Examples
    --------
    >>> laplace_cdf([-1.0, 0.0, 1.0], 0.0, 1.0).round(4)
    array([0.1839, 0.5   , 0.8161])
    """
    scale = check_positive(scale, "scale")
    z = (np.asarray(y, dtype=float) - np.asarray(loc, dtype=float)) / scale
    out = np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0.0)), 1.0 - 0.5 * np.exp(-np.maximum(z, 0.0)))
    return float(out) if out.ndim == 0 else out


def laplace_privacy_loss(
    y: ArrayLike, value: float, neighbour_value: float, scale: float
) -> np.ndarray | float:
    """Privacy loss ``ln p(y | value) - ln p(y | neighbour_value)`` of Laplace noise.

    For the Laplace mechanism with noise scale ``b`` the loss at output ``y``
    is ``(|y - neighbour_value| - |y - value|) / b``; it never exceeds
    ``|value - neighbour_value| / b`` in absolute value.

    Examples
    --------
    >>> laplace_privacy_loss([-5.0, 0.5, 5.0], value=0.0, neighbour_value=1.0, scale=1.0)
    array([ 1.,  0., -1.])
    """
    value = check_real(value, "value")
    neighbour_value = check_real(neighbour_value, "neighbour_value")
    scale = check_positive(scale, "scale")
    y = np.asarray(y, dtype=float)
    out = (np.abs(y - neighbour_value) - np.abs(y - value)) / scale
    return float(out) if out.ndim == 0 else out


def laplace_expected_privacy_loss(epsilon: ArrayLike) -> np.ndarray | float:
    """Mean privacy loss ``ε + e^{-ε} - 1`` of a Laplace mechanism whose worst-case loss is ε.

    It is the Kullback-Leibler divergence between the output distributions on
    two neighbours whose answers differ by the full sensitivity; it is about
    ``ε² / 2`` for small ε, far below the worst case ε.

    Examples
    --------
    >>> round(laplace_expected_privacy_loss(1.0), 4)
    0.3679
    """
    eps = np.asarray(epsilon, dtype=float)
    if np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError("epsilon: must be finite and > 0")
    out = eps + np.expm1(-eps)
    return float(out) if out.ndim == 0 else out


def laplace_privacy_loss_cdf(loss: ArrayLike, epsilon: float) -> np.ndarray | float:
    """Exact CDF ``P[L <= loss]`` of the Laplace privacy loss when the worst case is ε.

    With outputs drawn on ``x`` and the neighbour's answer one full
    sensitivity away, the loss has an atom of mass 1/2 at ``+ε`` (outputs on
    the far side of ``x``'s answer), an atom of mass ``e^{-ε}/2`` at ``-ε``,
    and in between ``P[L <= l] = exp(-(ε - l)/2) / 2``.

    Examples
    --------
    >>> laplace_privacy_loss_cdf([-2.0, -1.0, 0.0, 0.999, 1.0], epsilon=1.0).round(4)
    array([0.    , 0.1839, 0.3033, 0.4998, 1.    ])
    """
    epsilon = check_epsilon(epsilon)
    loss = np.asarray(loss, dtype=float)
    inside = 0.5 * np.exp(-(epsilon - loss) / 2.0)
    out = np.where(loss < -epsilon, 0.0, np.where(loss >= epsilon, 1.0, inside))
    return float(out) if out.ndim == 0 else out


def sample_laplace_privacy_loss(
    epsilon: float, num_samples: int, gap: float = 1.0, sensitivity: float = 1.0, rng: Any = None
) -> np.ndarray:
    """Draws of the privacy-loss random variable of the Laplace mechanism.

    The mechanism answers a query with sensitivity ``sensitivity`` by adding
    Laplace noise of scale ``sensitivity / epsilon``. On dataset ``x`` the true
    answer is 0; on the neighbour ``x'`` it is ``gap``. The output ``Y`` is drawn
    on ``x`` and the loss ``L = ln p_x(Y) - ln p_{x'}(Y)`` is returned.

    Examples
    --------
    >>> loss = sample_laplace_privacy_loss(1.0, 100_000, rng=0)
    >>> round(float(loss.max()), 12), round(float(loss.min()), 12)
    (1.0, -1.0)
    >>> round(float(loss.mean()), 2)  # e^{-1} = 0.37
    0.37
    """
    epsilon = check_epsilon(epsilon)
    num_samples = check_int(num_samples, "num_samples", minimum=1)
    gap = check_real(gap, "gap")
    sensitivity = check_positive(sensitivity, "sensitivity")
    rng = as_rng(rng)
    outputs = laplace_mechanism(np.zeros(num_samples), sensitivity, epsilon, rng=rng)
    return laplace_privacy_loss(outputs, 0.0, gap, sensitivity / epsilon)


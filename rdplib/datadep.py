"""Data-dependent noise for random differential privacy (Hall, Rinaldo & Wasserman, Sec. 6)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_rng, check_epsilon, check_numeric_array, check_probability

__all__ = ["quantile_scale", "pairwise_h_values", "laplace_with_scale"]


def pairwise_h_values(x: ArrayLike, h: Callable[[np.ndarray, np.ndarray], ArrayLike]) -> np.ndarray:
    """Evaluate ``h(x_i, x_{i+n/2})`` for ``i = 1..n/2``: n/2 independent draws of ``h(x, x')``.

    ``h`` must be vectorised: it receives the first and second halves of the
    data (arrays of records) and returns one value per pair.

    Examples
    --------
    >>> pairwise_h_values([1.0, 2.0, 4.0, 8.0], lambda a, b: np.abs(a - b))
    array([3., 6.])
    """
    arr = check_numeric_array(x, "x")
    if not callable(h):
        raise TypeError(f"h: expected a callable h(a, b), got {type(h).__name__}")
    n = arr.shape[0]
    if n < 2:
        raise ValueError(f"x: needs at least 2 records to form a pair, got {n}")
    half = n // 2
    values = np.asarray(h(arr[:half], arr[half : 2 * half]), dtype=float)
    if values.shape != (half,):
        raise ValueError(f"h: must return one value per pair, shape ({half},), got {values.shape}")
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError("h: must return finite, non-negative values")
    return values


def quantile_scale(
    x: ArrayLike, h: Callable[[np.ndarray, np.ndarray], ArrayLike], quantile: float
) -> float:
    """Data-dependent noise scale ``s_n(X) = d(X) / n`` of the paper's Sec. 6.

    ``d(X)`` is the smallest value ``d`` at which the empirical CDF
    ``D(X, t) = (2/n) sum_{i <= n/2} 1{h(x_i, x_{i+n/2}) <= t}`` reaches
    ``quantile`` (the paper's ``1 - δ`` quantile). With ``h(x, x') = |x - x'|``
    and ``g`` the sample mean, ``s_n`` bounds the change of the mean when one
    record is replaced by a fresh draw, except with small probability.

    Parameters
    ----------
    x : array_like, shape (n,) or (n, d)
        The data (records along the first axis).
    h : callable
        Vectorised ``h(a, b)`` giving one non-negative value per pair of records.
    quantile : float
        Level in ``(0, 1)``.

    Examples
    --------
    >>> x = np.arange(10.0)
    >>> quantile_scale(x, lambda a, b: np.abs(a - b), quantile=0.5)  # all five pairs differ by 5
    0.5
    """
    values = pairwise_h_values(x, h)
    level = check_probability(quantile, "quantile", open_interval=True)
    n = np.asarray(x).shape[0]
    d = np.quantile(values, level, method="inverted_cdf")
    return float(d / n)


def laplace_with_scale(
    value: float, scale: float, epsilon: float, rng: Any = None
) -> float:
    """Release ``value + Lap(scale / ε)``: the paper's eq. (6) with a data-dependent scale.

    Examples
    --------
    >>> abs(laplace_with_scale(3.0, 0.01, 1.0, rng=0) - 3.0) < 0.1
    True
    """
    epsilon = check_epsilon(epsilon)
    value = float(check_numeric_array(value, "value"))
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale: must be a finite number > 0, got {scale}")
    rng = as_rng(rng)
    return float(value + rng.laplace(0.0, scale / epsilon))

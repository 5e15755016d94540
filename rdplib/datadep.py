"""Data-dependent noise for random differential privacy (Hall, Rinaldo & Wasserman, Sec. 6).

The paper releases ``g_n(X) + Lap(s_n(X) / ε)`` where the scale
``s_n(X) = d(X) / n`` is an empirical quantile of ``h(x_i, x_{i+n/2})``, the
quantity that bounds how far ``g_n`` moves when one record is replaced.
:func:`quantile_scale` computes that scale; the book's chapter on data-dependent noise
(``book/ch13_data_dependent_noise.ipynb``) builds the private mean, the DKW check, the
U-statistic variant and the rank-based scale on it in the open.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_numeric_array, check_probability

__all__ = ["quantile_scale"]


def _pairwise_h_values(x: ArrayLike, h: Callable[[np.ndarray, np.ndarray], ArrayLike]) -> np.ndarray:
    """Evaluate ``h(x_i, x_{i+n/2})`` for ``i = 1..n/2``: n/2 independent draws of ``h(x, x')``.

    ``h`` must be vectorised: it receives the first and second halves of the
    data (arrays of records) and returns one value per pair. When ``n`` is odd
    the last record is not paired.

    Examples
    --------
    >>> _pairwise_h_values([1.0, 2.0, 4.0, 8.0], lambda a, b: np.abs(a - b))
    array([3., 6.])
    """
    arr = check_numeric_array(x, "x")
    if not callable(h):
        raise TypeError(f"h: expected a callable h(a, b), got {type(h).__name__}")
    if arr.ndim == 0:
        raise ValueError("x: must have at least one dimension (the records)")
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
    values = _pairwise_h_values(x, h)
    level = check_probability(quantile, "quantile", open_interval=True)
    n = np.asarray(x).shape[0]
    # the inverted-cdf quantile, the ceil(level * m)-th smallest value; the product is rounded to
    # 9 decimals first, so that a level like 1 - 0.7 = 0.30000000000000004 picks rank 3 of 10, not 4
    m = values.size
    rank = min(max(math.ceil(round(level * m, 9)), 1), m)
    d = np.partition(values, rank - 1)[rank - 1]
    return float(d / n)

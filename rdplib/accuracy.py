"""Accuracy of the Laplace mechanism (chapter 3).

The Bernoulli-mean Laplace mechanism of the lecture notes *Privacy Basics I*
(their Algorithm 2) releases ``p~ = (x_1 + ... + x_n + Z) / n`` with
``Z ~ Lap(1/ε)``. Its mean squared error is exactly

    E[(p~ - p)^2] = p(1 - p)/n + 2/(ε² n²),

the sampling error plus the cost of privacy. The two terms are equal at
``n = 2 / (ε² p (1 - p))``. For a clipped mean the error also has a bias term
that shrinks as the clipping range grows while the noise grows with it; the
functions here compute both exactly and by simulation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    as_rng,
    check_bits,
    check_bounds,
    check_epsilon,
    check_int,
    check_numeric_array,
    check_probability,
)
from .mechanisms import laplace_mechanism

__all__ = [
    "laplace_bernoulli_mean",
    "laplace_mean_mse_terms",
    "laplace_mean_mse",
    "laplace_mean_crossover_n",
    "laplace_mean_relative_rmse",
    "simulate_laplace_mean",
    "simulated_crossover_n",
    "clipped_mean_bias_variance",
    "clipped_mean_mse",
    "simulate_clipped_mean",
]


def _as_float_array(value: ArrayLike, name: str) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name}: must be a number, got NaN")
    return arr


def _check_p_n_eps(p: ArrayLike, n: ArrayLike, epsilon: ArrayLike):
    p = _as_float_array(p, "p")
    n = _as_float_array(n, "n")
    eps = _as_float_array(epsilon, "epsilon")
    if np.any((p < 0) | (p > 1)):
        raise ValueError("p: must lie in [0, 1]")
    if np.any(~np.isfinite(n)) or np.any(n < 1) or np.any(n != np.round(n)):
        raise ValueError("n: must be an integer >= 1")
    if np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError("epsilon: must be finite and > 0")
    return p, n, eps


def _scalar_or_array(arr: np.ndarray) -> np.ndarray | float:
    return float(arr) if np.ndim(arr) == 0 else arr


def laplace_bernoulli_mean(
    bits: ArrayLike, epsilon: float, axis: int = -1, rng: Any = None
) -> np.ndarray | float:
    """The Laplace mechanism for the mean of 0/1 data: ``(sum + Lap(1/ε)) / n``.

    The sum of bits has sensitivity 1 under replace-one neighbours, so the
    noisy sum (and its post-processing, the division by the public ``n``) is
    ε-DP. The output is **not** clamped to ``[0, 1]``, which keeps it unbiased.
    A batch of surveys is a 2-D array: one release per row with ``axis=-1``.

    Parameters
    ----------
    bits : array_like of {0, 1}
        The data; the mean is taken along ``axis``.
    epsilon : float
        Privacy parameter, ``> 0``.
    axis : int
        Axis holding the ``n`` records of one dataset.
    rng : None, int or numpy.random.Generator

    Examples
    --------
    >>> bits = np.ones((20_000, 100), dtype=int)       # 20,000 datasets, all ones
    >>> out = laplace_bernoulli_mean(bits, epsilon=0.5, rng=0)
    >>> out.shape, round(float(out.mean()), 2)
    ((20000,), 1.0)
    >>> round(float(out.var()), 5)  # 2 / (0.5**2 * 100**2) = 0.0008
    0.0008
    """
    arr = check_bits(bits)
    if arr.size == 0:
        raise ValueError("bits: must not be empty")
    epsilon = check_epsilon(epsilon)
    if arr.ndim == 0:
        raise ValueError("bits: must be an array of records, got a scalar")
    n = arr.shape[axis]
    sums = arr.sum(axis=axis, dtype=np.int64).astype(float)
    return laplace_mechanism(sums, 1.0, epsilon, rng=rng) / n


def laplace_mean_mse_terms(
    p: ArrayLike, n: ArrayLike, epsilon: ArrayLike
) -> tuple[np.ndarray | float, np.ndarray | float]:
    """The two terms of the exact MSE: sampling ``p(1-p)/n`` and privacy ``2/(ε² n²)``.

    Examples
    --------
    >>> laplace_mean_mse_terms(0.5, 100, 1.0)
    (0.0025, 0.0002)
    """
    p, n, eps = _check_p_n_eps(p, n, epsilon)
    sampling = p * (1.0 - p) / n
    privacy = 2.0 / (eps**2 * n**2)
    sampling, privacy = np.broadcast_arrays(sampling, privacy)
    return _scalar_or_array(sampling.copy()), _scalar_or_array(privacy.copy())


def laplace_mean_mse(p: ArrayLike, n: ArrayLike, epsilon: ArrayLike) -> np.ndarray | float:
    """Exact mean squared error ``p(1-p)/n + 2/(ε² n²)`` of :func:`laplace_bernoulli_mean`.

    The data are ``n`` independent Bernoulli(``p``) bits; the error is measured
    against ``p``. Vectorised over all three arguments (broadcast).

    Examples
    --------
    >>> round(laplace_mean_mse(0.3, 1_000, 0.1), 7)  # 0.00021 + 0.0002
    0.00041
    """
    sampling, privacy = laplace_mean_mse_terms(p, n, epsilon)
    return _scalar_or_array(np.asarray(sampling) + np.asarray(privacy))


def laplace_mean_crossover_n(p: ArrayLike, epsilon: ArrayLike) -> np.ndarray | float:
    """Sample size ``2 / (ε² p (1 - p))`` at which the cost of privacy equals the sampling error.

    Below it the Laplace noise dominates the error, above it the sampling error
    does. It grows like ``1/p`` as ``p`` approaches 0 (or 1).

    Examples
    --------
    >>> round(laplace_mean_crossover_n(0.3, 0.1), 1)
    952.4
    """
    p = _as_float_array(p, "p")
    eps = _as_float_array(epsilon, "epsilon")
    if np.any((p <= 0) | (p >= 1)):
        raise ValueError("p: must lie in the open interval (0, 1)")
    if np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError("epsilon: must be finite and > 0")
    return _scalar_or_array(2.0 / (eps**2 * p * (1.0 - p)))


def laplace_mean_relative_rmse(
    p: ArrayLike, n: ArrayLike, epsilon: ArrayLike
) -> np.ndarray | float:
    """Root mean squared error relative to the truth, ``sqrt(MSE) / p`` (needs ``p > 0``).

    Examples
    --------
    >>> round(laplace_mean_relative_rmse(0.01, 1_000, 1.0), 3)
    0.345
    """
    p_arr = _as_float_array(p, "p")
    if np.any(p_arr <= 0):
        raise ValueError("p: must be > 0 for a relative error")
    return _scalar_or_array(np.sqrt(laplace_mean_mse(p, n, epsilon)) / p_arr)


def simulate_laplace_mean(
    p: float,
    n: ArrayLike,
    epsilon: float,
    num_trials: int,
    rng: Any = None,
    return_sums: bool = False,
):
    """Simulate ``num_trials`` releases of the Bernoulli-mean Laplace mechanism for each ``n``.

    The sum of ``n`` independent Bernoulli(``p``) bits is drawn directly as a
    Binomial(``n``, ``p``) variable (the same distribution, without
    materialising the bits), then :func:`~rdplib.mechanisms.laplace_mechanism` adds
    ``Lap(1/ε)`` and the result is divided by ``n``.

    Parameters
    ----------
    p : float
        True proportion, in ``[0, 1]``.
    n : int or array_like of int
        Dataset size(s); the result has one row per entry.
    epsilon : float
    num_trials : int
        Number of independent datasets (and releases) per ``n``.
    rng : None, int or numpy.random.Generator
    return_sums : bool
        Also return the non-private means ``sum / n`` (same datasets), handy for
        separating the sampling error from the cost of privacy.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(n), num_trials)`` (or ``(num_trials,)`` for a scalar ``n``).

    Examples
    --------
    >>> est = simulate_laplace_mean(0.3, 1_000, 0.1, 40_000, rng=0)
    >>> round(float(np.mean((est - 0.3) ** 2)) / laplace_mean_mse(0.3, 1_000, 0.1), 1)
    1.0
    """
    p = check_probability(p, "p")
    n_arr = _as_float_array(n, "n")
    _check_p_n_eps(p, n_arr, epsilon)
    epsilon = check_epsilon(epsilon)
    num_trials = check_int(num_trials, "num_trials", minimum=1)
    rng = as_rng(rng)
    n_col = n_arr.astype(np.int64).reshape(-1, 1)
    sums = rng.binomial(n_col, p, size=(n_col.shape[0], num_trials)).astype(float)
    releases = laplace_mechanism(sums, 1.0, epsilon, rng=rng) / n_col
    plain = sums / n_col
    if np.ndim(n) == 0:
        releases, plain = releases[0], plain[0]
    return (releases, plain) if return_sums else releases


def simulated_crossover_n(
    n_grid: ArrayLike, private_mse: ArrayLike, sampling_mse: ArrayLike
) -> float:
    """Where a simulated private MSE first reaches twice the simulated sampling MSE.

    At the crossover the cost of privacy equals the sampling error, so the
    private MSE is twice the non-private one. The crossing of the ratio with 2
    is located by linear interpolation of ``log ratio`` against ``log n``
    between the two grid points that bracket it.

    Examples
    --------
    >>> n = np.array([10, 100, 1_000, 10_000])
    >>> sampling = 0.21 / n
    >>> private = sampling + 2 / (0.01 * n**2)
    >>> round(simulated_crossover_n(n, private, sampling), 0)
    952.0
    """
    n_grid = check_numeric_array(n_grid, "n_grid")
    private_mse = check_numeric_array(private_mse, "private_mse")
    sampling_mse = check_numeric_array(sampling_mse, "sampling_mse")
    if not (n_grid.shape == private_mse.shape == sampling_mse.shape) or n_grid.ndim != 1:
        raise ValueError("private_mse: n_grid, private_mse and sampling_mse must be 1-D of equal length")
    if np.any(np.diff(n_grid) <= 0):
        raise ValueError("n_grid: must be strictly increasing")
    excess = private_mse / sampling_mse - 1.0  # privacy cost / sampling error, 1 at the crossover
    above = excess >= 1.0
    crossings = np.flatnonzero(above[:-1] & ~above[1:])
    if crossings.size == 0:
        raise ValueError("n_grid: the private MSE never crosses twice the sampling MSE on this grid")
    i = int(crossings[0])
    x0, x1 = np.log(n_grid[i]), np.log(n_grid[i + 1])
    y0, y1 = np.log(excess[i]), np.log(max(excess[i + 1], 1e-300))
    return float(np.exp(x0 + (0.0 - y0) * (x1 - x0) / (y1 - y0)))


def clipped_mean_bias_variance(
    x: ArrayLike, lower: ArrayLike, upper: ArrayLike, epsilon: float
) -> tuple[np.ndarray | float, np.ndarray | float]:
    """Bias and noise variance of :func:`~rdplib.mechanisms.clipped_mean` as an estimate of ``mean(x)``.

    The dataset ``x`` is fixed; the release is ``mean(clip(x, lower, upper))``
    plus Laplace noise of scale ``(upper - lower) / (n ε)``. Its bias is
    ``mean(clip(x)) - mean(x)`` and its variance ``2 ((upper - lower) / (n ε))²``.
    Vectorised over ``lower`` and ``upper`` (broadcast against each other).

    Examples
    --------
    >>> x = np.array([10.0, 20.0, 30.0, 100.0])
    >>> bias, var = clipped_mean_bias_variance(x, 0.0, 50.0, epsilon=1.0)
    >>> float(bias), float(var)   # (10+20+30+50)/4 - 40, 2 (50/4)^2
    (-12.5, 312.5)
    """
    arr = check_numeric_array(x, "x")
    if arr.ndim != 1:
        raise ValueError(f"x: must be one-dimensional, got shape {arr.shape}")
    epsilon = check_epsilon(epsilon)
    lower = _as_float_array(lower, "lower")
    upper = _as_float_array(upper, "upper")
    if np.any(~np.isfinite(lower)) or np.any(~np.isfinite(upper)):
        raise ValueError("upper: lower and upper must be finite")
    if np.any(upper <= lower):
        raise ValueError("upper: must be greater than lower")
    lower, upper = np.broadcast_arrays(lower, upper)
    n = arr.size
    sorted_x = np.sort(arr)
    csum = np.concatenate([[0.0], np.cumsum(sorted_x)])
    # sum of clip(x, lower, upper) from the sorted data: O(log n) per bound
    below = np.searchsorted(sorted_x, lower, side="left")
    above = np.searchsorted(sorted_x, upper, side="right")
    # bias = (sum of what clipping adds below minus what it removes above) / n; exactly 0
    # when no value lies outside [lower, upper]
    raised = below * lower - csum[below]
    lowered = (n - above) * upper - (csum[n] - csum[above])
    bias = (raised + lowered) / n
    variance = 2.0 * ((upper - lower) / (n * epsilon)) ** 2
    return _scalar_or_array(bias), _scalar_or_array(variance)


def clipped_mean_mse(
    x: ArrayLike, lower: ArrayLike, upper: ArrayLike, epsilon: float
) -> np.ndarray | float:
    """Exact MSE ``bias² + 2((upper - lower)/(n ε))²`` of :func:`~rdplib.mechanisms.clipped_mean`.

    Examples
    --------
    >>> float(clipped_mean_mse(np.array([10.0, 20.0, 30.0, 100.0]), 0.0, 50.0, 1.0))
    468.75
    """
    bias, variance = clipped_mean_bias_variance(x, lower, upper, epsilon)
    return _scalar_or_array(np.asarray(bias) ** 2 + np.asarray(variance))


def simulate_clipped_mean(
    x: ArrayLike, lower: float, upper: float, epsilon: float, num_trials: int, rng: Any = None
) -> np.ndarray:
    """``num_trials`` independent releases of :func:`~rdplib.mechanisms.clipped_mean` on the same data.

    Equivalent to calling ``clipped_mean(x, lower, upper, epsilon, rng)``
    ``num_trials`` times, but the clipped mean is computed once and
    :func:`~rdplib.mechanisms.laplace_mechanism` adds a whole vector of noise (sensitivity
    ``(upper - lower) / n``).

    Examples
    --------
    >>> from rdplib import clipped_mean
    >>> x = np.array([10.0, 20.0, 30.0, 100.0])
    >>> float(simulate_clipped_mean(x, 0, 50, 1.0, 1, rng=7)[0]) == clipped_mean(x, 0, 50, 1.0, rng=7)
    True
    """
    arr = check_numeric_array(x, "x")
    if arr.ndim != 1:
        raise ValueError(f"x: must be one-dimensional, got shape {arr.shape}")
    lower, upper = check_bounds(lower, upper)
    epsilon = check_epsilon(epsilon)
    num_trials = check_int(num_trials, "num_trials", minimum=1)
    clipped = float(np.clip(arr, lower, upper).mean())
    return laplace_mechanism(
        np.full(num_trials, clipped), (upper - lower) / arr.size, epsilon, rng=rng
    )

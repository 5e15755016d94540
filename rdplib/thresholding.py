"""Helpers for the thresholding chapter: release probabilities, batch simulations, empirical δ.

The contract functions :func:`~rdplib.accounting.threshold_delta`, :func:`~rdplib.accounting.threshold_for_delta`
and :func:`~rdplib.accounting.thresholded_histogram` live in :mod:`rdplib.accounting`; this module
adds what the chapter needs to check them by simulation, and the catastrophic
(0, δ) mechanism.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_rng, check_delta, check_epsilon, check_int, check_real
from .accounting import threshold_delta

__all__ = [
    "release_probability",
    "simulate_release_rate",
    "noisy_thresholded_counts",
    "expected_leaks",
    "prob_any_leak",
    "empirical_delta",
    "catastrophic_mechanism",
    "catastrophic_leaks",
]


def _real_array(values: ArrayLike, name: str) -> np.ndarray:
    if isinstance(values, bool):
        raise TypeError(f"{name}: expected a real number or an array of them, got bool")
    arr = np.asarray(values)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise TypeError(f"{name}: expected a real number or an array of them")
    arr = arr.astype(float)
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name}: must not contain NaN")
    return arr


def release_probability(count: ArrayLike, threshold: ArrayLike, epsilon: float) -> np.ndarray | float:
    """Exact probability ``P[count + Lap(1/ε) >= threshold]`` that a category is released.

    With ``count = 1`` this is the δ of the thresholded histogram,
    :func:`~rdplib.accounting.threshold_delta`. ``count`` and ``threshold`` broadcast.

    Parameters
    ----------
    count : array_like
        True counts (any real numbers; categories hold ``count >= 1`` people).
    threshold : array_like
        The release threshold ``T``.
    epsilon : float
        Privacy parameter ``> 0``; the noise is Laplace of scale ``1/ε``.

    Examples
    --------
    >>> round(release_probability(1, 5, np.log(3)), 6)  # the 0.6 % of the blog
    0.006173
    >>> release_probability([5, 9], 5, 1.0).round(4)  # a count at the threshold: one half
    array([0.5   , 0.9908])
    """
    epsilon = check_epsilon(epsilon)
    count = _real_array(count, "count")
    threshold = _real_array(threshold, "threshold")
    # P[count + L >= T] = P[1 + L >= T - count + 1]
    out = threshold_delta(threshold - count + 1.0, epsilon)
    return float(out) if np.ndim(out) == 0 else np.asarray(out)


def simulate_release_rate(
    thresholds: ArrayLike, epsilon: float, num_trials: int, count: float = 1.0, rng: Any = None
) -> np.ndarray:
    """Fraction of ``num_trials`` noisy counts ``count + Lap(1/ε)`` that reach each threshold.

    One batch of ``num_trials`` Laplace draws is shared by all thresholds, so the
    estimates form a monotone empirical survival curve.

    Examples
    --------
    >>> rates = simulate_release_rate([1, 5], np.log(3), 200_000, rng=0)
    >>> rates.round(4)
    array([0.4983, 0.0062])
    """
    epsilon = check_epsilon(epsilon)
    num_trials = check_int(num_trials, "num_trials", minimum=1)
    count = check_real(count, "count")
    thresholds = _real_array(thresholds, "thresholds")
    rng = as_rng(rng)
    noisy = np.sort(count + rng.laplace(0.0, 1.0 / epsilon, size=num_trials))
    # number of noisy values >= T, for every T at once
    reached = num_trials - np.searchsorted(noisy, thresholds, side="left")
    return reached / num_trials


def noisy_thresholded_counts(
    counts: ArrayLike, epsilon: float, threshold: float, num_trials: int, rng: Any = None
) -> np.ndarray:
    """Run the thresholded histogram ``num_trials`` times on known category counts at once.

    Returns an array of shape ``(num_trials, k)``: the noisy count of each of the ``k``
    categories, or NaN where the noisy count fell below ``threshold`` (not released).
    A category with count 0 is absent from the data, so it is never released.

    Examples
    --------
    >>> out = noisy_thresholded_counts([10, 5, 2, 0], np.log(3), 5, num_trials=4, rng=1)
    >>> out.shape, bool(np.isnan(out[:, 3]).all())
    ((4, 4), True)
    """
    epsilon = check_epsilon(epsilon)
    threshold = check_real(threshold, "threshold")
    num_trials = check_int(num_trials, "num_trials", minimum=1)
    counts = _real_array(counts, "counts")
    if counts.ndim != 1 or counts.size == 0:
        raise ValueError(f"counts: must be a non-empty 1-D array, got shape {counts.shape}")
    if np.any(counts < 0) or np.any(counts != np.round(counts)):
        raise ValueError("counts: must be non-negative integers")
    rng = as_rng(rng)
    noisy = counts + rng.laplace(0.0, 1.0 / epsilon, size=(num_trials, counts.size))
    released = (noisy >= threshold) & (counts > 0)
    return np.where(released, noisy, np.nan)


def _check_n_delta(n: ArrayLike, delta: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Validate a number of people ``n >= 0`` and a probability ``delta`` in [0, 1]."""
    n = _real_array(n, "n")
    delta = _real_array(delta, "delta")
    if np.any(n < 0):
        raise ValueError("n: must be >= 0")
    if np.any((delta < 0) | (delta > 1)):
        raise ValueError("delta: must lie in [0, 1]")
    return n, delta


def expected_leaks(n: ArrayLike, delta: ArrayLike) -> np.ndarray | float:
    """Expected number of people whose rare category is released, ``n δ`` (worst case).

    Examples
    --------
    >>> round(expected_leaks(10**6, 1e-7), 12)
    0.1
    """
    n, delta = _check_n_delta(n, delta)
    out = n * delta
    return float(out) if out.ndim == 0 else out


def prob_any_leak(n: ArrayLike, delta: ArrayLike) -> np.ndarray | float:
    """``1 - (1 - δ)^n``: chance that at least one of ``n`` independent singletons is released.

    It never exceeds the union bound ``n δ`` and is close to it when ``n δ`` is small.

    Examples
    --------
    >>> round(prob_any_leak(10**6, 1e-7), 5)
    0.09516
    """
    n, delta = _check_n_delta(n, delta)
    safe = np.where(delta >= 1.0, 0.0, delta)
    out = -np.expm1(n * np.log1p(-safe))
    out = np.where(delta >= 1.0, np.where(n > 0, 1.0, 0.0), out)
    return float(out) if out.ndim == 0 else out


def empirical_delta(
    prob_on_x: ArrayLike, prob_on_x_prime: ArrayLike, epsilon: float
) -> np.ndarray | float:
    """Smallest δ an event's probabilities allow: ``max(0, P[A(x) ∈ E] - e^ε P[A(x') ∈ E])``.

    Feed it (estimated) probabilities of the same event under two neighbouring
    datasets; the mechanism is (ε, δ)-DP only if δ is at least this for every event
    and both orders of the pair.

    Parameters
    ----------
    prob_on_x, prob_on_x_prime : array_like
        Probabilities in [0, 1] (they broadcast).
    epsilon : float
        ``ε >= 0`` (``ε = 0`` is allowed here: the catastrophic mechanism is (0, δ)-DP).

    Examples
    --------
    >>> empirical_delta(0.006, 0.0, np.log(3))
    0.006
    >>> empirical_delta([0.5, 0.3], [0.2, 0.3], 0.0)
    array([0.3, 0. ])
    """
    p = _real_array(prob_on_x, "prob_on_x")
    q = _real_array(prob_on_x_prime, "prob_on_x_prime")
    for arr, name in ((p, "prob_on_x"), (q, "prob_on_x_prime")):
        if np.any((arr < 0) | (arr > 1)):
            raise ValueError(f"{name}: probabilities must lie in [0, 1]")
    epsilon = check_real(epsilon, "epsilon")
    if epsilon < 0:
        raise ValueError(f"epsilon: must be >= 0, got {epsilon}")
    out = np.maximum(0.0, p - np.exp(epsilon) * q)
    return float(out) if out.ndim == 0 else out


def catastrophic_mechanism(database: ArrayLike, delta: float, rng: Any = None) -> Any:
    """The (0, δ)-DP mechanism that publishes the whole database with probability δ.

    With probability ``1 - δ`` it returns the constant ``42``; otherwise a copy of
    ``database``. It satisfies the definition of (0, δ)-DP for every pair of
    datasets, yet when it fails it leaks everything.

    Examples
    --------
    >>> catastrophic_mechanism(["alice: HIV+", "bob: HIV-"], delta=0.0, rng=0)
    42
    """
    delta = check_delta(delta)
    rng = as_rng(rng)
    if rng.random() < delta:
        return np.array(database, copy=True)
    return 42


def catastrophic_leaks(delta: float, num_runs: int, rng: Any = None) -> np.ndarray:
    """Batch version of :func:`catastrophic_mechanism`: a boolean array, True where a run
    published the whole database.

    Examples
    --------
    >>> leaks = catastrophic_leaks(0.01, 100_000, rng=0)
    >>> 900 < int(leaks.sum()) < 1100
    True
    """
    delta = check_delta(delta)
    num_runs = check_int(num_runs, "num_runs", minimum=1)
    rng = as_rng(rng)
    return rng.random(num_runs) < delta

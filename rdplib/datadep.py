"""Data-dependent noise for random differential privacy (Hall, Rinaldo & Wasserman, Sec. 6).

The paper releases ``g_n(X) + Lap(s_n(X) / ε)`` where the scale
``s_n(X) = d(X) / n`` is an empirical quantile of ``h(x_i, x_{i+n/2})``, the
quantity that bounds how far ``g_n`` moves when one record is replaced. This
module holds the scale itself (:func:`quantile_scale`, batched as
:func:`quantile_scales`), the private mean built on it (:func:`rdp_mean`), a
batched clipped Laplace mean to compare against (:func:`clipped_means`), the
DKW inequality with Massart's constant (:func:`dkw_bound`, :func:`dkw_radius`,
:func:`ks_distance`), the paper's bound on how often the scale is too small
(:func:`quantile_miss_bound`) and a simulation of it
(:func:`scale_condition_failures`), and the exact privacy slack of two Laplace
distributions (:func:`laplace_privacy_slack`) beside the paper's eq. (9)
(:func:`local_sensitivity_delta`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    as_rng,
    check_bounds,
    check_epsilon,
    check_int,
    check_numeric_array,
    check_positive,
    check_probability,
    check_real,
)

__all__ = [
    "quantile_scale",
    "pairwise_h_values",
    "laplace_with_scale",
    "abs_difference",
    "quantile_scales",
    "rdp_mean",
    "clipped_means",
    "dkw_bound",
    "dkw_radius",
    "ks_distance",
    "quantile_miss_bound",
    "ScaleConditionResult",
    "scale_condition_failures",
    "local_sensitivity_delta",
    "laplace_privacy_slack",
    "worst_case_slack",
    "lognormal_sampler",
]

HFunction = Callable[[np.ndarray, np.ndarray], ArrayLike]


def abs_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The book's default ``h(x, x') = |x - x'|`` (vectorised), the one that fits the mean.

    Examples
    --------
    >>> abs_difference(np.array([1.0, 5.0]), np.array([4.0, 2.0]))
    array([3., 3.])
    """
    return np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))


def pairwise_h_values(x: ArrayLike, h: Callable[[np.ndarray, np.ndarray], ArrayLike]) -> np.ndarray:
    """Evaluate ``h(x_i, x_{i+n/2})`` for ``i = 1..n/2``: n/2 independent draws of ``h(x, x')``.

    ``h`` must be vectorised: it receives the first and second halves of the
    data (arrays of records) and returns one value per pair. When ``n`` is odd
    the last record is not paired.

    Examples
    --------
    >>> pairwise_h_values([1.0, 2.0, 4.0, 8.0], lambda a, b: np.abs(a - b))
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
    values = pairwise_h_values(x, h)
    level = check_probability(quantile, "quantile", open_interval=True)
    n = np.asarray(x).shape[0]
    d = np.quantile(values, level, method="inverted_cdf")
    return float(d / n)


def quantile_scales(
    x: ArrayLike, quantile: float, h: HFunction | None = None
) -> np.ndarray:
    """:func:`quantile_scale` for a batch of datasets: one scale per row of ``x``.

    Parameters
    ----------
    x : array_like, shape (num_datasets, n) or (num_datasets, n, d)
        Datasets along the first axis, records along the second.
    quantile : float
        Level ``1 - ρ`` in ``(0, 1)`` of the empirical quantile.
    h : callable, optional
        Vectorised ``h(a, b)``; it receives arrays of shape
        ``(num_datasets, n // 2, ...)`` and returns shape ``(num_datasets, n // 2)``.
        Default :func:`abs_difference`.

    Returns
    -------
    numpy.ndarray, shape (num_datasets,)
        ``s_n(X) = d(X) / n`` for every dataset.

    Examples
    --------
    >>> batch = np.array([np.arange(10.0), 2 * np.arange(10.0)])
    >>> quantile_scales(batch, quantile=0.5)
    array([0.5, 1. ])
    """
    arr = check_numeric_array(x, "x")
    if arr.ndim < 2:
        raise ValueError(f"x: must have shape (num_datasets, n, ...), got shape {arr.shape}")
    level = check_probability(quantile, "quantile", open_interval=True)
    h = abs_difference if h is None else h
    if not callable(h):
        raise TypeError(f"h: expected a callable h(a, b), got {type(h).__name__}")
    n = arr.shape[1]
    if n < 2:
        raise ValueError(f"x: needs at least 2 records per dataset, got {n}")
    half = n // 2
    values = np.asarray(h(arr[:, :half], arr[:, half : 2 * half]), dtype=float)
    if values.shape != (arr.shape[0], half):
        raise ValueError(
            f"h: must return one value per pair, shape {(arr.shape[0], half)}, got {values.shape}"
        )
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError("h: must return finite, non-negative values")
    return np.quantile(values, level, axis=1, method="inverted_cdf") / n


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


def rdp_mean(
    x: ArrayLike,
    epsilon: float,
    quantile: float,
    rng: Any = None,
    return_scale: bool = False,
) -> float | np.ndarray | tuple[Any, Any]:
    """RDP mean of unbounded data: ``mean(X) + Lap(2 s_n(X) / ε)`` with ``h = |x - x'|``.

    The paper's eq. (6) with noise ``Lap(s_n / α)`` gives a ``2α`` guarantee, so
    this function uses ``α = ε / 2``: ``epsilon`` is the privacy parameter of
    the *final* ``(ε, δ, γ₁ + γ₂)``-RDP guarantee, which makes it comparable
    with :func:`rdplib.mechanisms.clipped_mean` at the same ``epsilon``.

    Parameters
    ----------
    x : array_like, shape (n,) or (num_datasets, n)
        One dataset, or a batch of datasets (one release per row).
    epsilon : float
        Privacy parameter of the final guarantee, ``> 0``.
    quantile : float
        Level ``1 - ρ`` of the empirical quantile ``d(X)``, in ``(0, 1)``.
    rng : None, int or numpy.random.Generator
    return_scale : bool
        Also return the scale(s) ``s_n(X)``.

    Examples
    --------
    >>> x = np.random.default_rng(0).normal(10.0, 1.0, 2_000)
    >>> release, scale = rdp_mean(x, epsilon=1.0, quantile=0.99, rng=1, return_scale=True)
    >>> bool(abs(release - x.mean()) < 0.05), bool(0.0010 < scale < 0.0025)
    (True, True)
    """
    arr = check_numeric_array(x, "x")
    epsilon = check_epsilon(epsilon)
    if arr.ndim not in (1, 2):
        raise ValueError(f"x: must have shape (n,) or (num_datasets, n), got shape {arr.shape}")
    batch = arr if arr.ndim == 2 else arr[None, :]
    scales = quantile_scales(batch, quantile)
    rng = as_rng(rng)
    releases = batch.mean(axis=1) + rng.laplace(0.0, 2.0 * scales / epsilon)
    if arr.ndim == 1:
        releases, scales = float(releases[0]), float(scales[0])
    return (releases, scales) if return_scale else releases


def clipped_means(
    x: ArrayLike, lower: float, upper: float, epsilon: float, rng: Any = None
) -> np.ndarray:
    """Batched ε-DP clipped mean: one :func:`rdplib.mechanisms.clipped_mean` release per row of ``x``.

    Each row is clipped to ``[lower, upper]``, averaged, and gets Laplace noise
    of scale ``(upper - lower) / (n ε)``. With the same seed the first row's
    release equals ``rdplib.clipped_mean(x[0], ...)``.

    Examples
    --------
    >>> x = np.full((3, 1_000), 50.0)
    >>> out = clipped_means(x, 0.0, 100.0, epsilon=1.0, rng=0)
    >>> out.shape, bool(np.all(np.abs(out - 50.0) < 2.0))
    ((3,), True)
    """
    arr = check_numeric_array(x, "x")
    if arr.ndim != 2:
        raise ValueError(f"x: must have shape (num_datasets, n), got shape {arr.shape}")
    lower, upper = check_bounds(lower, upper)
    epsilon = check_epsilon(epsilon)
    rng = as_rng(rng)
    n = arr.shape[1]
    clipped = np.clip(arr, lower, upper).mean(axis=1)
    return clipped + rng.laplace(0.0, (upper - lower) / (n * epsilon), size=arr.shape[0])


def dkw_bound(num_samples: int | ArrayLike, deviation: float | ArrayLike) -> np.ndarray | float:
    """DKW inequality with Massart's constant: ``P[sup_t |F_m(t) - F(t)| > t] <= 2 exp(-2 m t²)``.

    With the paper's ``m = n/2`` pairs this is its eq. (12), ``2 exp(-n t²)``.
    The bound is capped at 1.

    Examples
    --------
    >>> round(dkw_bound(500, 0.05), 4)  # m = 500 samples, deviation 0.05
    0.1642
    """
    m = np.asarray(num_samples, dtype=float)
    t = np.asarray(deviation, dtype=float)
    if np.any(~np.isfinite(m)) or np.any(m < 1):
        raise ValueError("num_samples: must be >= 1")
    if np.any(~np.isfinite(t)) or np.any(t < 0):
        raise ValueError("deviation: must be a finite number >= 0")
    out = np.minimum(1.0, 2.0 * np.exp(-2.0 * m * t**2))
    return float(out) if out.ndim == 0 else out


def dkw_radius(num_samples: int, probability: float) -> float:
    """Smallest deviation ``t`` with ``2 exp(-2 m t²) <= probability``: ``sqrt(ln(2/p) / (2m))``.

    Examples
    --------
    >>> round(dkw_radius(500, 0.05), 4)
    0.0607
    """
    m = check_int(num_samples, "num_samples", minimum=1)
    p = check_probability(probability, "probability", open_interval=True)
    return float(np.sqrt(np.log(2.0 / p) / (2.0 * m)))


def ks_distance(samples: ArrayLike, cdf: Callable[[np.ndarray], ArrayLike]) -> np.ndarray | float:
    """Kolmogorov distance ``sup_t |F_m(t) - F(t)|`` of each row of ``samples`` from ``cdf``.

    Parameters
    ----------
    samples : array_like, shape (m,) or (num_batches, m)
    cdf : callable
        Vectorised continuous CDF ``F``.

    Examples
    --------
    >>> ks_distance([0.1, 0.6], lambda t: np.clip(t, 0, 1))  # uniform CDF
    0.4
    """
    arr = check_numeric_array(samples, "samples")
    if not callable(cdf):
        raise TypeError(f"cdf: expected a callable, got {type(cdf).__name__}")
    if arr.ndim not in (1, 2):
        raise ValueError(f"samples: must have shape (m,) or (num_batches, m), got {arr.shape}")
    batch = np.sort(arr if arr.ndim == 2 else arr[None, :], axis=1)
    m = batch.shape[1]
    f = np.asarray(cdf(batch), dtype=float)
    steps = np.arange(1, m + 1) / m
    dist = np.maximum(np.max(steps - f, axis=1), np.max(f - (steps - 1.0 / m), axis=1))
    return float(dist[0]) if arr.ndim == 1 else dist


def quantile_miss_bound(n: int, miss: float) -> float:
    """The paper's bound on ``P[h(x, x') > d_ρ(X)]``: ``min over ρ' > ρ of ρ' + 2 exp(-n (ρ' - ρ)²)``.

    ``d_ρ(X)`` is the empirical ``1 - ρ`` quantile of the ``n/2`` pair values
    (``miss`` is ``ρ``). The minimum is taken numerically on a fine grid and
    capped at 1.

    Examples
    --------
    >>> round(quantile_miss_bound(1_000, 0.01), 3)
    0.092
    """
    n = check_int(n, "n", minimum=2)
    rho = check_probability(miss, "miss", open_interval=True)
    gaps = np.linspace(0.0, 1.0 - rho, 20_001)[1:]
    return float(min(1.0, np.min(rho + gaps + 2.0 * np.exp(-n * gaps**2))))


class ScaleConditionResult(NamedTuple):
    """Output of :func:`scale_condition_failures`."""

    fresh_failure_rate: float
    """Estimated ``P[h(x, x')/n > min(s_n(X), s_n(X'))]`` for fresh ``x, x'`` (paper's eq. 11)."""
    neighbour_failure_rate: float
    """The same with the two records in which ``X`` and ``X'`` actually differ."""
    log_ratio: np.ndarray
    """``log(s_n(X) / s_n(X'))`` for every simulated neighbour pair (paper's eq. 10)."""
    scales: np.ndarray
    """``s_n(X)`` for every simulated dataset."""


def scale_condition_failures(
    sampler: Callable[[np.random.Generator, tuple[int, ...]], ArrayLike],
    n: int,
    quantile: float,
    num_trials: int,
    h: HFunction | None = None,
    rng: Any = None,
) -> ScaleConditionResult:
    """Simulate conditions (10) and (11) of the paper for the quantile scale.

    Each trial draws ``X = (x_1, ..., x_n)``, a replacement ``x_{n+1}`` giving the
    neighbour ``X'`` (the last record swapped), and an independent fresh pair
    ``x, x'``, all from ``sampler(rng, shape)`` (i.i.d. records).

    Parameters
    ----------
    sampler : callable
        ``sampler(rng, shape)`` returns an array of i.i.d. records of that shape.
    n : int
        Records per dataset, ``>= 2``.
    quantile : float
        Level ``1 - ρ`` of the empirical quantile.
    num_trials : int
        Number of simulated (X, X') pairs.
    h : callable, optional
        Default :func:`abs_difference`.
    rng : None, int or numpy.random.Generator

    Examples
    --------
    >>> res = scale_condition_failures(lambda g, s: g.normal(size=s), 200, 0.99, 2_000, rng=0)
    >>> bool(res.fresh_failure_rate < 0.05), res.log_ratio.shape
    (True, (2000,))
    """
    if not callable(sampler):
        raise TypeError(f"sampler: expected a callable, got {type(sampler).__name__}")
    n = check_int(n, "n", minimum=2)
    num_trials = check_int(num_trials, "num_trials", minimum=1)
    check_probability(quantile, "quantile", open_interval=True)
    h = abs_difference if h is None else h
    rng = as_rng(rng)
    draws = np.asarray(sampler(rng, (num_trials, n + 3)), dtype=float)
    if draws.shape[:2] != (num_trials, n + 3):
        raise ValueError(f"sampler: returned shape {draws.shape}, expected ({num_trials}, {n + 3}, ...)")
    data = draws[:, :n]
    neighbour = draws[:, :n].copy()
    neighbour[:, n - 1] = draws[:, n]
    s_x = quantile_scales(data, quantile, h)
    s_xp = quantile_scales(neighbour, quantile, h)
    smaller = np.minimum(s_x, s_xp)
    fresh = np.asarray(h(draws[:, n + 1], draws[:, n + 2]), dtype=float) / n
    differing = np.asarray(h(draws[:, n - 1], draws[:, n]), dtype=float) / n
    return ScaleConditionResult(
        fresh_failure_rate=float(np.mean(fresh > smaller)),
        neighbour_failure_rate=float(np.mean(differing > smaller)),
        log_ratio=np.log(s_x / s_xp),
        scales=s_x,
    )


def _check_beta(beta: Any) -> float:
    beta = check_real(beta, "beta")
    if beta < 0:
        raise ValueError(f"beta: must be a finite number >= 0, got {beta}")
    return beta


def local_sensitivity_delta(epsilon: float, beta: float) -> float:
    """The paper's eq. (9): ``δ = exp(-ε / (2β))`` for Laplace noise ``Lap(s_n/ε)`` and scales within ``e^β``.

    Here ``epsilon`` is the noise parameter (the paper's α); the guarantee is ``(2ε, δ)``.
    ``beta = 0`` (equal scales) gives ``δ = 0``.

    Examples
    --------
    >>> round(local_sensitivity_delta(0.5, 0.05), 6)
    0.006738
    """
    epsilon = check_epsilon(epsilon)
    beta = _check_beta(beta)
    return 0.0 if beta == 0.0 else float(np.exp(-epsilon / (2.0 * beta)))


def _laplace_mass(lo: np.ndarray, hi: np.ndarray, loc: float, scale: float) -> np.ndarray:
    """P[lo < L <= hi] for L ~ Laplace(loc, scale), accurate in both tails."""

    def lower_tail(z):  # P[L <= z] for z <= loc
        return 0.5 * np.exp(np.minimum(z - loc, 0.0) / scale)

    def upper_tail(z):  # P[L > z] for z >= loc
        return 0.5 * np.exp(-np.maximum(z - loc, 0.0) / scale)

    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    both_right = upper_tail(np.maximum(lo, loc)) - upper_tail(np.maximum(hi, loc))
    both_left = lower_tail(np.minimum(hi, loc)) - lower_tail(np.minimum(lo, loc))
    mass = np.where(lo >= loc, both_right, np.where(hi <= loc, both_left,
                    1.0 - upper_tail(np.maximum(hi, loc)) - lower_tail(np.minimum(lo, loc))))
    return np.where(hi > lo, mass, 0.0)


def laplace_privacy_slack(
    loc1: float, scale1: float, loc2: float, scale2: float, epsilon: float
) -> float:
    """Exact ``sup_B P[Z ∈ B] - e^ε P[Z' ∈ B]`` for ``Z ~ Lap(loc1, scale1)``, ``Z' ~ Lap(loc2, scale2)``.

    This is the smallest δ for which the pair satisfies the (ε, δ) inequality in
    this direction (the "hockey-stick" divergence). The log density ratio is
    piecewise linear with kinks at the two centres, so the set where it exceeds
    ε is a union of at most three intervals, each integrated in closed form.

    Examples
    --------
    >>> laplace_privacy_slack(0.0, 1.0, 1.0, 1.0, epsilon=1.0)  # equal scales: pure 1-DP
    0.0
    >>> round(laplace_privacy_slack(0.0, 1.0, 0.0, 1.0, epsilon=0.0 + 1e-9), 6)
    0.0
    """
    loc1 = check_real(loc1, "loc1")
    loc2 = check_real(loc2, "loc2")
    scale1 = check_positive(scale1, "scale1")
    scale2 = check_positive(scale2, "scale2")
    epsilon = check_epsilon(epsilon)
    # log p(z) - log q(z) = log(scale2/scale1) - |z-loc1|/scale1 + |z-loc2|/scale2
    kinks = sorted([loc1, loc2])
    pieces = [(-np.inf, kinks[0]), (kinks[0], kinks[1]), (kinks[1], np.inf)]
    total = 0.0
    const = np.log(scale2 / scale1)
    for lo, hi in pieces:
        if not hi > lo:
            continue
        if np.isinf(lo):
            mid = hi - 1.0
        elif np.isinf(hi):
            mid = lo + 1.0
        else:
            mid = 0.5 * (lo + hi)
        sign1 = 1.0 if mid > loc1 else -1.0
        sign2 = 1.0 if mid > loc2 else -1.0
        # on this piece the log ratio is a + b z
        slope = -sign1 / scale1 + sign2 / scale2
        intercept = const + sign1 * loc1 / scale1 - sign2 * loc2 / scale2
        if slope == 0.0:
            if intercept <= epsilon:
                continue
            a, b = lo, hi
        elif slope > 0:
            a, b = max(lo, (epsilon - intercept) / slope), hi
        else:
            a, b = lo, min(hi, (epsilon - intercept) / slope)
        if not b > a:
            continue
        p = _laplace_mass(np.array(a), np.array(b), loc1, scale1)
        q = _laplace_mass(np.array(a), np.array(b), loc2, scale2)
        total += float(p - np.exp(epsilon) * q)
    return max(0.0, total)


def worst_case_slack(epsilon: float, beta: float) -> float:
    """Exact δ of eq. (6) under conditions (7)–(8): the largest :func:`laplace_privacy_slack` at ``2ε``.

    Two neighbouring datasets have scales ``s, s'`` with ``s / s' ∈ [e^{-β}, e^{β}]``
    and values ``|g - g'| <= min(s, s')``; the releases are ``Lap(g, s/ε)`` and
    ``Lap(g', s'/ε)``. By scale and shift invariance the worst case is taken over
    the four extreme configurations (larger scale first or second, location
    gap ``min(s, s')`` to the left or right); compare with
    :func:`local_sensitivity_delta`, the paper's bound.

    Examples
    --------
    >>> worst_case_slack(0.5, 0.05) <= local_sensitivity_delta(0.5, 0.05)
    True
    """
    epsilon = check_epsilon(epsilon)
    beta = _check_beta(beta)
    worst = 0.0
    for s1, s2 in ((np.exp(beta), 1.0), (1.0, np.exp(beta))):
        gap = min(s1, s2)
        for shift in (gap, -gap):
            worst = max(worst, laplace_privacy_slack(0.0, s1 / epsilon, shift, s2 / epsilon, 2 * epsilon))
    return worst


def lognormal_sampler(median: float, sigma: float) -> Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]:
    """A ``sampler(rng, shape)`` of log-normal records with the given median and log-scale ``sigma``.

    Used in the book as a stand-in for salaries: positive, right-skewed, and
    without an a-priori upper bound.

    Examples
    --------
    >>> draw = lognormal_sampler(40.0, 0.8)
    >>> draw(np.random.default_rng(0), (2, 3)).shape
    (2, 3)
    """
    median = check_positive(median, "median")
    sigma = check_positive(sigma, "sigma")

    def sampler(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return rng.lognormal(np.log(median), sigma, size=shape)

    return sampler

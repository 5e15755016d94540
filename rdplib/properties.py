"""Properties of differential privacy (chapter 5): post-processing, groups, composition.

Small, vectorised helpers that let the chapter *check* each property:

* post-processing a noisy count by rounding and clamping it to ``[0, n]``,
  with the exact pmf of the result and empirical log-likelihood ratios;
* the δ factor of group privacy in three forms (the chaining sum, the bound
  returned by :func:`~rdplib.accounting.group_privacy`, and the looser bound of the
  lecture notes), and the exact δ(ε) of the Gaussian mechanism;
* splitting a total budget evenly over several Laplace counts, with the
  root-mean-square error predicted by the formula and measured by simulation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    as_rng,
    check_delta,
    check_epsilon,
    check_int,
    check_numeric_array,
    check_positive,
    check_real,
)
from .accounting import basic_composition
from .mechanisms import laplace_mechanism

__all__ = [
    "round_and_clamp",
    "laplace_clamped_pmf",
    "empirical_log_ratios",
    "event_log_ratio",
    "group_delta_chain",
    "group_delta_notes",
    "gaussian_delta",
    "split_budget",
    "split_budget_rmse",
    "simulate_split_rmse",
]


def round_and_clamp(noisy: ArrayLike, n: int) -> np.ndarray:
    """Post-process noisy counts: round to the nearest integer, then clamp to ``[0, n]``.

    It uses only the released value (and the public ``n``), so it is
    post-processing and cannot weaken the guarantee.

    Examples
    --------
    >>> round_and_clamp([-1.7, 0.4, 2.6, 11.2], n=10)
    array([ 0,  0,  3, 10])
    """
    arr = check_numeric_array(noisy, "noisy", allow_empty=True)
    n = check_int(n, "n", minimum=1)
    return np.clip(np.rint(arr), 0, n).astype(np.int64)


def laplace_clamped_pmf(count: float, n: int, scale: float) -> np.ndarray:
    """Exact pmf over ``0..n`` of ``round_and_clamp(count + Lap(scale), n)``.

    Output ``j`` with ``0 < j < n`` collects the noisy values in
    ``[j - 1/2, j + 1/2)``; output 0 collects everything below ``1/2`` and
    output ``n`` everything from ``n - 1/2`` up.

    Examples
    --------
    >>> pmf = laplace_clamped_pmf(0, n=3, scale=1.0)
    >>> np.round(pmf, 4), round(float(pmf.sum()), 12)
    (array([0.6967, 0.1917, 0.0705, 0.041 ]), 1.0)
    """
    count = check_real(count, "count")
    n = check_int(n, "n", minimum=1)
    scale = check_positive(scale, "scale")
    edges = np.arange(n, dtype=float) + 0.5 - count  # upper edges of outputs 0..n-1

    half_tail_below = 0.5 * np.exp(np.minimum(edges, 0) / scale)  # P[Z < e] for e < 0
    half_tail_above = 0.5 * np.exp(-np.maximum(edges, 0) / scale)  # P[Z >= e] for e >= 0
    cdf = np.where(edges < 0, half_tail_below, 1.0 - half_tail_above)
    survival = np.where(edges < 0, 1.0 - half_tail_below, half_tail_above)
    # Differences of the CDF lose precision in the upper tail, so there use the survival function.
    from_cdf = np.append(cdf, 1.0) - np.insert(cdf, 0, 0.0)
    from_survival = np.insert(survival, 0, 1.0) - np.append(survival, 0.0)
    lower_edges = np.insert(edges, 0, -np.inf)
    return np.where(lower_edges >= 0, from_survival, from_cdf)


def _tally(values: np.ndarray, support: np.ndarray) -> np.ndarray:
    """How many entries of ``values`` equal each entry of ``support`` (vectorised)."""
    order = np.argsort(support)
    sorted_support = support[order]
    idx = np.searchsorted(sorted_support, values)
    idx_clipped = np.minimum(idx, support.size - 1)
    hit = sorted_support[idx_clipped] == values
    counts_sorted = np.bincount(idx_clipped[hit], minlength=support.size)
    counts = np.empty_like(counts_sorted)
    counts[order] = counts_sorted
    return counts


def empirical_log_ratios(
    outputs_x: ArrayLike, outputs_x_prime: ArrayLike, support: ArrayLike, min_count: int = 100
) -> np.ndarray:
    """Estimated ``ln P[y | x] / P[y | x']`` for each integer ``y`` in ``support``.

    Outputs with fewer than ``min_count`` samples under either input get NaN
    (too few to estimate a ratio).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a = round_and_clamp(laplace_mechanism(np.full(200_000, 1.0), 1, 1.0, rng=rng), 3)
    >>> b = round_and_clamp(laplace_mechanism(np.full(200_000, 2.0), 1, 1.0, rng=rng), 3)
    >>> np.round(empirical_log_ratios(a, b, np.arange(4)), 1)
    array([ 1. ,  0.7, -0.7, -1. ])
    """
    x = check_numeric_array(outputs_x, "outputs_x").ravel()
    x_prime = check_numeric_array(outputs_x_prime, "outputs_x_prime").ravel()
    support = check_numeric_array(support, "support")
    min_count = check_int(min_count, "min_count", minimum=1)
    if support.ndim != 1:
        raise ValueError(f"support: must be one-dimensional, got shape {support.shape}")
    counts_x = _tally(x, support)
    counts_x_prime = _tally(x_prime, support)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log((counts_x / x.size) / (counts_x_prime / x_prime.size))
    enough = (counts_x >= min_count) & (counts_x_prime >= min_count)
    return np.where(enough, ratio, np.nan)


def event_log_ratio(
    outputs_x: ArrayLike, outputs_x_prime: ArrayLike, event: Callable[[np.ndarray], np.ndarray]
) -> float:
    """Estimated ``ln P[M(x) in E] / P[M(x') in E]`` for the event ``E`` given as a predicate.

    Examples
    --------
    >>> rng = np.random.default_rng(3)
    >>> a = laplace_mechanism(np.zeros(400_000), 1, 0.5, rng=rng)
    >>> b = laplace_mechanism(np.full(400_000, 2.0), 1, 0.5, rng=rng)
    >>> round(event_log_ratio(a, b, lambda y: y <= 0), 1)  # 2 * 0.5
    1.0
    """
    if not callable(event):
        raise TypeError("event: expected a callable returning a boolean array")
    x = check_numeric_array(outputs_x, "outputs_x")
    x_prime = check_numeric_array(outputs_x_prime, "outputs_x_prime")
    p_x = float(np.mean(event(x)))
    p_x_prime = float(np.mean(event(x_prime)))
    if p_x_prime == 0.0:
        return math.inf if p_x > 0 else math.nan
    if p_x == 0.0:
        return -math.inf
    return math.log(p_x / p_x_prime)


def _k_array(k: ArrayLike) -> np.ndarray:
    arr = check_numeric_array(k, "k")
    if np.any(arr < 1) or not np.all(arr == np.round(arr)):
        raise ValueError("k: must be an integer >= 1 (or an array of them)")
    return arr


def group_delta_chain(epsilon: float, delta: float, k: ArrayLike) -> np.ndarray | float:
    """δ from chaining ``k`` neighbour steps: ``δ (1 + e^ε + ... + e^{(k-1)ε})``.

    This sum is what the chaining proof of group privacy actually gives; it is
    at most ``k e^{(k-1)ε} δ`` (:func:`~rdplib.accounting.group_privacy`), which is at most
    ``k e^{kε} δ`` (:func:`group_delta_notes`).

    Examples
    --------
    >>> round(group_delta_chain(np.log(2), 1e-6, 3) / 1e-6, 6)  # 1 + 2 + 4
    7.0
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k = _k_array(k)
    out = delta * np.expm1(k * epsilon) / math.expm1(epsilon)
    return float(out) if out.ndim == 0 else out


def group_delta_notes(epsilon: float, delta: float, k: ArrayLike) -> np.ndarray | float:
    """The looser group-privacy δ ``k e^{kε} δ`` stated in the Privacy Basics I notes.

    Examples
    --------
    >>> round(group_delta_notes(np.log(2), 1e-6, 3) / 1e-6, 6)  # 3 * 8
    24.0
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k = _k_array(k)
    out = k * np.exp(k * epsilon) * delta
    return float(out) if out.ndim == 0 else out


from .mechanisms import gaussian_delta  # noqa: E402  (moved; kept importable here)


def split_budget(total_epsilon: float, num_queries: int) -> list[tuple[float, float]]:
    """Split ``total_epsilon`` evenly: ``num_queries`` pairs ``(total_epsilon / num_queries, 0)``.

    By basic composition the pairs add back up to ``(total_epsilon, 0)``.

    Examples
    --------
    >>> split_budget(1.0, 4)
    [(0.25, 0.0), (0.25, 0.0), (0.25, 0.0), (0.25, 0.0)]
    >>> basic_composition(split_budget(1.0, 4))
    (1.0, 0.0)
    """
    total_epsilon = check_epsilon(total_epsilon, "total_epsilon")
    num_queries = check_int(num_queries, "num_queries", minimum=1)
    return [(total_epsilon / num_queries, 0.0)] * num_queries


def split_budget_rmse(
    total_epsilon: float, num_queries: ArrayLike, sensitivity: float = 1.0
) -> np.ndarray | float:
    """RMSE of each answer when ``m`` Laplace queries share ``total_epsilon`` evenly.

    Each query gets ``ε/m``, so its noise is ``Lap(m Δ / ε)`` with standard
    deviation ``sqrt(2) m Δ / ε``: the error grows linearly in ``m``.

    Examples
    --------
    >>> np.round(split_budget_rmse(1.0, [1, 10]), 4)
    array([ 1.4142, 14.1421])
    """
    total_epsilon = check_epsilon(total_epsilon, "total_epsilon")
    sensitivity = check_positive(sensitivity, "sensitivity")
    m = check_numeric_array(num_queries, "num_queries")
    if np.any(m < 1) or not np.all(m == np.round(m)):
        raise ValueError("num_queries: must be an integer >= 1 (or an array of them)")
    out = math.sqrt(2.0) * m * sensitivity / total_epsilon
    return float(out) if out.ndim == 0 else out


def simulate_split_rmse(
    total_epsilon: float,
    num_queries: int,
    num_trials: int = 10_000,
    sensitivity: float = 1.0,
    rng: Any = None,
) -> float:
    """Simulated RMSE per answer of ``num_queries`` Laplace counts sharing ``total_epsilon``.

    Runs ``num_trials`` independent releases of all the queries at once (one
    ``(num_trials, num_queries)`` array) with :func:`~rdplib.mechanisms.laplace_mechanism`
    at ``total_epsilon / num_queries`` each, after checking with
    :func:`~rdplib.accounting.basic_composition` that the split spends exactly the total.

    Examples
    --------
    >>> round(simulate_split_rmse(1.0, 5, num_trials=40_000, rng=0) / split_budget_rmse(1.0, 5), 1)
    1.0
    """
    budgets = split_budget(total_epsilon, num_queries)
    spent, _ = basic_composition(budgets)
    if not math.isclose(spent, float(total_epsilon), rel_tol=1e-9):  # pragma: no cover
        raise RuntimeError("the budget split does not add up to total_epsilon")
    num_trials = check_int(num_trials, "num_trials", minimum=2)
    rng = as_rng(rng)
    truth = np.zeros((num_trials, len(budgets)))
    noisy = laplace_mechanism(truth, sensitivity, budgets[0][0], rng=rng)
    return float(np.sqrt(np.mean((noisy - truth) ** 2)))

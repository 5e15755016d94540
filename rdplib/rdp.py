"""Helpers for the histogram chapters of Part III (DP histograms and random DP).

Everything here is batched over repetitions: a simulation of ``num_reps``
private releases draws one ``(num_reps, k)`` array of noise and projects all
rows at once.

Notation follows the book (the paper's α is ε and its δ(z) is the projection
:func:`~rdplib.histograms.project_to_histograms`). A histogram of ``n`` observations over
``k`` cells is the vector of proportions ``theta = counts / n``.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    as_rng,
    check_counts,
    check_epsilon,
    check_int,
    check_numeric_array,
    check_probability_vector,
)
from .histograms import dp_histogram, l1_loss, project_to_histograms, rdp_histogram

__all__ = [
    "check_probabilities",
    "sample_histograms",
    "l1_projection",
    "all_l1_projections",
    "histogram_losses",
    "histogram_risk",
    "two_cell_risk_profile",
    "minimax_lower_bound",
    "simulate_bad_event",
    "fit_slope",
]

_TIES = ("smallest", "proportional")


def check_probabilities(probabilities: ArrayLike, name: str = "probabilities") -> np.ndarray:
    """Return ``probabilities`` as a 1-D float array of non-negative numbers summing to one.

    Examples
    --------
    >>> check_probabilities([0.5, 0.25, 0.25]).tolist()
    [0.5, 0.25, 0.25]
    """
    return check_probability_vector(probabilities, name)


def sample_histograms(
    probabilities: ArrayLike, n: int, size: int | None = None, rng: Any = None
) -> np.ndarray:
    """Cell counts of ``n`` observations drawn i.i.d. from a distribution over ``k`` cells.

    Parameters
    ----------
    probabilities : array_like, shape (k,)
        The cell probabilities of the data distribution P (non-negative, sum 1).
    n : int
        Observations per dataset, ``>= 1``.
    size : int, optional
        Number of independent datasets; the result then has shape ``(size, k)``.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    numpy.ndarray of int64
        Multinomial counts, each row summing to ``n``.

    Examples
    --------
    >>> counts = sample_histograms([0.5, 0.5, 0.0], n=10, size=3, rng=0)
    >>> counts.shape, counts.sum(axis=1).tolist(), counts[:, 2].tolist()
    ((3, 3), [10, 10, 10], [0, 0, 0])
    """
    p = check_probabilities(probabilities)
    n = check_int(n, "n", minimum=1)
    if size is not None:
        size = check_int(size, "size", minimum=1)
    rng = as_rng(rng)
    return rng.multinomial(n, p, size=size).astype(np.int64)


def l1_projection(z: ArrayLike, n: int, ties: str = "smallest") -> np.ndarray:
    """An exact L1 projection onto n-observation histograms, with a chosen tie-break.

    The minimiser of ``sum |z_i - c_i/n|`` over integer ``c_i >= 0`` with
    ``sum(c) = n`` is often not unique. With ``w = n z`` and
    ``b = floor(max(w, 0))``, whenever ``sum(b) >= n`` *every* integer vector
    with ``0 <= c <= b`` and ``sum(c) = n`` is a minimiser: each unit removed
    from ``b`` costs exactly 1, wherever it is taken. ``ties`` says which one
    to return in that case:

    ``"smallest"``
        Remove the surplus from the smallest cells first. This is
        :func:`~rdplib.histograms.project_to_histograms` (identical output). It wipes out
        the small spurious counts that noise creates in empty cells.
    ``"proportional"``
        Remove the surplus in proportion to ``b`` (largest remainders get the
        leftover units): "clip at zero and rescale to total n", rounded so that
        the result is still an exact minimiser. It keeps spurious mass where
        the noise put it.

    When ``sum(b) < n`` both options return :func:`~rdplib.histograms.project_to_histograms`.
    Works on the last axis, so batches of shape ``(..., k)`` are projected at once.

    Parameters
    ----------
    z : array_like, shape (..., k)
    n : int
        Number of observations, ``>= 1``.
    ties : {"smallest", "proportional"}

    Returns
    -------
    numpy.ndarray
        Proportions ``c / n`` (non-negative, summing to one on the last axis).

    Examples
    --------
    >>> z = [0.52, 0.49, -0.03, 0.02]
    >>> l1_projection(z, 100, ties="smallest")
    array([0.52, 0.48, 0.  , 0.  ])
    >>> l1_projection(z, 100, ties="proportional")
    array([0.5 , 0.48, 0.  , 0.02])
    """
    if ties not in _TIES:
        raise ValueError(f"ties: must be one of {_TIES}, got {ties!r}")
    default = project_to_histograms(z, n)
    if ties == "smallest":
        return default
    n = int(n)
    w = np.asarray(z, dtype=float) * n
    base = np.floor(np.maximum(w, 0.0))
    total = base.sum(axis=-1, keepdims=True)
    surplus = np.maximum(total - n, 0.0)
    share = base * surplus / np.maximum(total, 1.0)
    whole = np.floor(share)
    leftover = surplus - whole.sum(axis=-1, keepdims=True)
    fraction = share - whole
    order = np.argsort(-fraction, axis=-1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.broadcast_to(np.arange(w.shape[-1]), order.shape), axis=-1)
    removed = whole + (rank < leftover)
    proportional = (base - removed) / n
    return np.where(total >= n, proportional, default)


def all_l1_projections(z: ArrayLike, n: int, max_candidates: int = 200_000) -> tuple[np.ndarray, float]:
    """Brute force: every n-observation histogram at minimal L1 distance from ``z``.

    Enumerates all ``C(n+k-1, k-1)`` count vectors (stars and bars), so it is
    only for tiny ``n`` and ``k``; it exists to check :func:`~rdplib.histograms.project_to_histograms`.

    Returns
    -------
    minimisers : numpy.ndarray, shape (m, k)
        All minimising histograms, as proportions ``c / n``.
    min_distance : float
        The minimal value of ``sum |z_i - c_i / n|``.

    Examples
    --------
    >>> best, dist = all_l1_projections([0.75, 0.5, 0.0], n=4)
    >>> best.tolist(), round(dist, 10)
    ([[0.5, 0.5, 0.0], [0.75, 0.25, 0.0]], 0.25)
    """
    arr = check_numeric_array(z, "z")
    if arr.ndim != 1:
        raise ValueError(f"z: must be one-dimensional, got shape {arr.shape}")
    n = check_int(n, "n", minimum=1)
    k = arr.size
    candidates = math.comb(n + k - 1, k - 1)
    if candidates > max_candidates:
        raise ValueError(
            f"n: brute force would enumerate {candidates:,} histograms (> max_candidates = "
            f"{max_candidates:,}); use smaller n or k"
        )
    if k == 1:
        return np.ones((1, 1)), float(abs(arr[0] - 1.0))
    bars = np.array(list(itertools.combinations(range(n + k - 1), k - 1)), dtype=np.int64)
    edges = np.hstack(
        [np.full((bars.shape[0], 1), -1), bars, np.full((bars.shape[0], 1), n + k - 1)]
    )
    counts = np.diff(edges, axis=1) - 1
    distance = np.abs(arr - counts / n).sum(axis=1)
    best = distance.min()
    keep = np.isclose(distance, best, rtol=0.0, atol=1e-12)
    return counts[keep] / n, float(best)


def histogram_losses(
    counts: ArrayLike,
    epsilon: float,
    num_reps: int,
    gamma: float | None = None,
    ties: str = "smallest",
    project: bool = True,
    rng: Any = None,
) -> np.ndarray:
    """L1 losses ``||Π_n(z) - θ||₁`` of ``num_reps`` independent private releases of one histogram.

    Parameters
    ----------
    counts : array_like of non-negative integers, shape (k,)
        The data's cell counts; ``θ = counts / n`` with ``n = counts.sum()``.
    epsilon : float
        Privacy parameter, ``> 0``.
    num_reps : int
        Number of independent releases, ``>= 1``.
    gamma : float, optional
        ``None`` for the ε-DP perturbation method (:func:`~rdplib.histograms.dp_histogram`);
        a value in (0, 1) for the (ε, γ)-RDP sparse mechanism (:func:`~rdplib.histograms.rdp_histogram`).
    ties : {"smallest", "proportional"}
        Tie-break of the projection (see :func:`l1_projection`).
    project : bool
        If False, return ``||z - θ||₁`` for the raw noisy vector instead.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    numpy.ndarray, shape (num_reps,)

    Examples
    --------
    >>> losses = histogram_losses([250, 250, 0, 0], epsilon=1.0, num_reps=5, gamma=0.1, rng=0)
    >>> losses.shape
    (5,)
    """
    counts = check_counts(counts)
    if counts.ndim != 1:
        raise ValueError(f"counts: must be one-dimensional, got shape {counts.shape}")
    num_reps = check_int(num_reps, "num_reps", minimum=1)
    if ties not in _TIES:
        raise ValueError(f"ties: must be one of {_TIES}, got {ties!r}")
    rng = as_rng(rng)
    n = int(counts.sum())
    theta = counts / n
    if gamma is None:
        z = dp_histogram(counts, epsilon, rng=rng, size=num_reps)
    else:
        z = rdp_histogram(counts, epsilon, gamma, rng=rng, size=num_reps)
    released = l1_projection(z, n, ties=ties) if project else z
    return np.atleast_1d(l1_loss(released, theta))


def histogram_risk(
    counts: ArrayLike,
    epsilon: float,
    num_reps: int,
    gamma: float | None = None,
    ties: str = "smallest",
    project: bool = True,
    rng: Any = None,
) -> float:
    """Monte Carlo estimate of the risk ``R(θ, Q) = E||Π_n(z) - θ||₁`` (mean of :func:`histogram_losses`).

    Examples
    --------
    >>> risk = histogram_risk([500, 500], epsilon=1.0, num_reps=4000, rng=1)
    >>> 0.003 < risk < 0.005
    True
    """
    return float(np.mean(histogram_losses(counts, epsilon, num_reps, gamma, ties, project, rng)))


def two_cell_risk_profile(
    n: int, epsilon: float, num_reps: int, rng: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """Risk of the projected DP histogram for k = 2 at every θ = (a/n, 1 - a/n), a = 0..n.

    Returns
    -------
    theta_first : numpy.ndarray, shape (n + 1,)
        The first cell's proportion ``a / n``.
    risk : numpy.ndarray, shape (n + 1,)
        The simulated risk at each θ, from ``num_reps`` releases per θ.

    Examples
    --------
    >>> theta, risk = two_cell_risk_profile(n=20, epsilon=1.0, num_reps=200, rng=0)
    >>> theta.shape, risk.shape
    ((21,), (21,))
    """
    n = check_int(n, "n", minimum=1)
    epsilon = check_epsilon(epsilon)
    num_reps = check_int(num_reps, "num_reps", minimum=1)
    rng = as_rng(rng)
    first = np.arange(n + 1)
    theta = np.stack([first, n - first], axis=-1) / n  # (n+1, 2)
    noise = rng.laplace(0.0, 2.0 / (n * epsilon), size=(n + 1, num_reps, 2))
    released = project_to_histograms(theta[:, None, :] + noise, n)
    risk = np.abs(released - theta[:, None, :]).sum(axis=-1).mean(axis=-1)
    return first / n, risk


def minimax_lower_bound(k: ArrayLike, n: int, epsilon: float) -> np.ndarray | float:
    """The lower bound of Prop. 3.1 on the minimax L1 risk of ε-DP histograms.

    Assouad's lemma on a hypercube of side ``τ/n`` gives, for every integer
    ``τ >= 1`` with ``(k-1) τ <= n``,
    ``R* >= (k-1) τ / (2n) * (1 - sqrt(ε τ / 2))``.
    This returns the best such bound (the maximum over τ, clipped at 0).

    Parameters
    ----------
    k : int or array_like of int
        Number of cells, ``>= 1`` (``k = 1`` gives 0).
    n : int
        Number of observations, ``>= 1``.
    epsilon : float
        Privacy parameter, ``> 0``.

    Examples
    --------
    >>> round(minimax_lower_bound(11, n=1000, epsilon=1.0), 6)
    0.001464
    >>> minimax_lower_bound([1, 2, 3], n=100, epsilon=1.0).round(6).tolist()
    [0.0, 0.001464, 0.002929]
    """
    n = check_int(n, "n", minimum=1)
    epsilon = check_epsilon(epsilon)
    k_arr = check_numeric_array(k, "k")
    if np.any(k_arr < 1) or np.any(k_arr != np.round(k_arr)):
        raise ValueError("k: must be integers >= 1")
    dims = k_arr - 1
    tau_max = np.floor(n / np.maximum(dims, 1))
    # g(τ) = τ (1 - sqrt(ετ/2)) is unimodal with its continuous maximum at τ = 8/(9ε)
    tau_star = 8.0 / (9.0 * epsilon)
    candidates = np.stack(
        [np.ones_like(tau_max), np.full_like(tau_max, np.floor(tau_star)),
         np.full_like(tau_max, np.ceil(tau_star))]
    )
    candidates = np.clip(candidates, 1.0, tau_max)
    values = candidates * (1.0 - np.sqrt(epsilon * candidates / 2.0))
    best = np.maximum(values.max(axis=0), 0.0) * dims / (2.0 * n)
    return float(best) if np.ndim(k) == 0 else best


def simulate_bad_event(
    probabilities: ArrayLike, n: int, num_reps: int, rng: Any = None
) -> dict[str, float]:
    """Simulate the event that breaks the sparse mechanism's privacy (Prop. 5.1).

    Draw ``x_1, ..., x_{n+1}`` i.i.d. from P. The neighbouring datasets are
    ``(x_1..x_{n-1}, x_n)`` and ``(x_1..x_{n-1}, x_{n+1})``. The ε-bound can fail
    only if ``x_n`` or ``x_{n+1}`` is the *only* one of the n+1 points in its
    cell (then it sits in a cell the other dataset leaves empty, which the
    mechanism releases without noise). The proof bounds this, given the
    multiset of the n+1 values, by ``2|S*|/(n+1)``, where S* is the set of cells
    holding at most one of the n+1 points; and ``|S*| <= k``.

    The first n-1 points are drawn as one multinomial count vector, so the
    cost is ``O(num_reps * k)`` whatever n is.

    Returns
    -------
    dict
        ``"probability"`` (simulated frequency of the bad event),
        ``"standard error"``, ``"exact conditional mean"`` (the average over
        repetitions of the exact conditional probability given the n+1 values,
        ``1 - (n+1-s)(n-s)/((n+1)n)`` with s singleton cells: a lower-variance
        estimate of the same probability), ``"mean bound"`` (average of
        ``2|S*|/(n+1)``) and ``"worst-case bound"`` ``2k/(n+1)``.

    Examples
    --------
    >>> out = simulate_bad_event([0.5, 0.5], n=100, num_reps=1000, rng=0)
    >>> out["probability"], out["worst-case bound"] == 4 / 101
    (0.0, True)
    """
    p = check_probabilities(probabilities)
    n = check_int(n, "n", minimum=2)
    num_reps = check_int(num_reps, "num_reps", minimum=1)
    rng = as_rng(rng)
    k = p.size
    counts = rng.multinomial(n - 1, p, size=num_reps)
    pair = rng.choice(k, size=(num_reps, 2), p=p)
    rows = np.arange(num_reps)
    np.add.at(counts, (rows, pair[:, 0]), 1)
    np.add.at(counts, (rows, pair[:, 1]), 1)
    alone = (counts[rows, pair[:, 0]] == 1) | (counts[rows, pair[:, 1]] == 1)
    singletons = (counts == 1).sum(axis=1)
    at_most_one = (counts <= 1).sum(axis=1)
    exact = 1.0 - (n + 1 - singletons) * (n - singletons) / ((n + 1) * n)
    prob = float(alone.mean())
    return {
        "probability": prob,
        "standard error": float(np.sqrt(max(prob * (1 - prob), 1e-300) / num_reps)),
        "exact conditional mean": float(exact.mean()),
        "mean bound": float(np.mean(2 * at_most_one / (n + 1))),
        "worst-case bound": 2 * k / (n + 1),
    }


def fit_slope(x: ArrayLike, y: ArrayLike) -> tuple[float, float]:
    """Least-squares line ``y ≈ slope * x + intercept``; returns ``(slope, intercept)``.

    Examples
    --------
    >>> slope, intercept = fit_slope([1, 2, 3], [2.5, 4.5, 6.5])
    >>> round(slope, 6), round(intercept, 6)
    (2.0, 0.5)
    """
    x = check_numeric_array(x, "x")
    y = check_numeric_array(y, "y")
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise ValueError(f"x, y: need two 1-D arrays of equal length >= 2, got {x.shape}, {y.shape}")
    slope, intercept = np.polyfit(x, y, 1)
    return float(slope), float(intercept)

"""The adversary of Hall, Rinaldo & Wasserman's Sec. 7: who knows n - 1 records and sees a histogram.

The adversary knows every record except the last one, knows the mechanism and
its parameters, and may know the population distribution ``p`` over the ``k``
cells. From the released histogram it guesses the cell of the last record.
Against the RDP sparse histogram (:func:`rdplib.histograms.rdp_histogram`) the guess is
certain whenever the last record sits alone in its cell, because empty cells
are released without noise; against the ε-DP histogram
(:func:`rdplib.histograms.dp_histogram`) no guess succeeds with probability above
``e^ε max_j p_j`` (:func:`dp_attack_bound`).

Everything is batched: one row per simulated dataset.
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
    check_positive,
    check_probability_vector,
)

__all__ = [
    "zipf_probabilities",
    "exposure_probability",
    "release_histograms",
    "last_record_attack",
    "simulate_last_record_attack",
    "dp_attack_bound",
]

_MECHANISMS = ("dp", "rdp")


def _check_distribution(p: ArrayLike, name: str = "p") -> np.ndarray:
    arr = check_probability_vector(p, name)
    return arr / arr.sum()


def _check_mechanism(mechanism: str) -> str:
    if mechanism not in _MECHANISMS:
        raise ValueError(f"mechanism: must be one of {_MECHANISMS}, got {mechanism!r}")
    return mechanism


def zipf_probabilities(k: int, exponent: float) -> np.ndarray:
    """Skewed population over ``k`` cells: ``p_j ∝ j^(-exponent)``, ``j = 1..k``.

    Examples
    --------
    >>> np.round(zipf_probabilities(3, 1.0), 4)
    array([0.5455, 0.2727, 0.1818])
    """
    k = check_int(k, "k", minimum=1)
    exponent = check_positive(exponent, "exponent")
    weights = np.arange(1, k + 1, dtype=float) ** (-exponent)
    return weights / weights.sum()


def exposure_probability(p: ArrayLike, n: int, per_cell: bool = False) -> np.ndarray | float:
    """Probability that the last of ``n`` i.i.d. records is alone in its cell.

    Equal to ``sum_j p_j (1 - p_j)^(n-1)``; with ``per_cell=True`` return the
    conditional probabilities ``(1 - p_j)^(n-1)`` that a record in cell ``j``
    has no company among the other ``n - 1``.

    Examples
    --------
    >>> round(exposure_probability([0.5, 0.5], 3), 4)  # the other two records both elsewhere
    0.25
    """
    p = _check_distribution(p)
    n = check_int(n, "n", minimum=1)
    alone = (1.0 - p) ** (n - 1)
    return alone if per_cell else float(np.sum(p * alone))


def release_histograms(
    counts: ArrayLike,
    epsilon: float,
    mechanism: str = "dp",
    gamma: float | None = None,
    rng: Any = None,
) -> np.ndarray:
    """Release a batch of histograms (one per row of ``counts``) with the DP or RDP mechanism.

    Row by row this is :func:`rdplib.histograms.dp_histogram` (``mechanism="dp"``) or
    :func:`rdplib.histograms.rdp_histogram` (``"rdp"``, which needs ``gamma`` and falls
    back to noise in every cell when ``2k > γn``): ``counts/n`` plus
    ``Lap(2/(nε))``, with no noise on empty cells in the sparse case. For a
    single row and the same seed the output equals those functions' output.

    Examples
    --------
    >>> z = release_histograms([[300, 200, 0, 0, 0]], 1.0, "rdp", gamma=0.1, rng=0)
    >>> z[0, 2:].tolist()
    [0.0, 0.0, 0.0]
    """
    counts = check_counts(counts)
    if counts.ndim == 1:
        counts = counts[None, :]
    if counts.ndim != 2:
        raise ValueError(f"counts: must have shape (num_datasets, k), got {counts.shape}")
    epsilon = check_epsilon(epsilon)
    mechanism = _check_mechanism(mechanism)
    if mechanism == "rdp":
        if gamma is None:
            raise ValueError("gamma: required for mechanism='rdp', a number in (0, 1)")
        gamma = check_gamma(gamma)
    return _release(counts, epsilon, mechanism, gamma, as_rng(rng))


def _release(
    counts: np.ndarray, epsilon: float, mechanism: str, gamma: float | None, rng: np.random.Generator
) -> np.ndarray:
    """Unchecked core of :func:`release_histograms`."""
    n = counts.sum(axis=1, keepdims=True)
    k = counts.shape[1]
    theta = counts / n
    noise = rng.laplace(0.0, 1.0, size=counts.shape) * (2.0 / (n * epsilon))
    if mechanism == "rdp":
        sparse = 2 * k <= gamma * n  # shape (num_datasets, 1)
        noise = np.where(sparse & (counts == 0), 0.0, noise)
    return theta + noise


def last_record_attack(
    release: ArrayLike,
    known_counts: ArrayLike,
    epsilon: float,
    mechanism: str = "dp",
    gamma: float | None = None,
    prior: ArrayLike | None = None,
) -> np.ndarray:
    """The adversary's guess of the last record's cell, one per row of ``release``.

    The adversary knows the counts of the other ``n - 1`` records and computes
    the residual ``r_j = z_j - known_j / n``, which is ``1/n`` plus noise in the
    target's cell and pure noise elsewhere. Its rule:

    * RDP release in the sparse regime (``2k <= γn``): a cell with no known
      record but a non-zero release must hold the target (certain); cells with
      no known record released as exactly 0 are ruled out.
    * Otherwise (and among the remaining candidates) pick the most likely cell:
      without a ``prior``, the largest residual (maximum likelihood: the Laplace
      likelihood ratio is non-decreasing in ``r_j``); with a ``prior`` ``p``,
      the maximum a posteriori cell, maximising
      ``log p_j + (|r_j| - |r_j - 1/n|) / b`` with ``b = 2/(nε)``.

    Examples
    --------
    >>> known = np.array([[30, 10, 0, 0]])        # n - 1 = 40 known records
    >>> z = release_histograms(known + [0, 0, 1, 0], 1.0, "rdp", gamma=0.5, rng=0)
    >>> last_record_attack(z, known, 1.0, "rdp", gamma=0.5).tolist()  # alone in cell 2
    [2]
    """
    z = check_numeric_array(release, "release")
    known = check_counts(known_counts, "known_counts", allow_empty_total=True)
    if z.ndim == 1:
        z = z[None, :]
    if known.ndim == 1:
        known = known[None, :]
    if z.shape != known.shape:
        raise ValueError(f"release, known_counts: shapes {z.shape} and {known.shape} do not match")
    epsilon = check_epsilon(epsilon)
    mechanism = _check_mechanism(mechanism)
    n = known.sum(axis=1, keepdims=True) + 1
    k = z.shape[1]
    residual = z - known / n
    if prior is None:
        score = residual.copy()
    else:
        p = _check_distribution(prior, "prior")
        if p.size != k:
            raise ValueError(f"prior: must have k = {k} entries, got {p.size}")
        b = 2.0 / (n * epsilon)
        with np.errstate(divide="ignore"):
            score = np.log(p) + (np.abs(residual) - np.abs(residual - 1.0 / n)) / b
    if mechanism == "rdp":
        if gamma is None:
            raise ValueError("gamma: required for mechanism='rdp', a number in (0, 1)")
        gamma = check_gamma(gamma)
        sparse = 2 * k <= gamma * n
        unknown_cell = known == 0
        exposed = sparse & unknown_cell & (z != 0)
        ruled_out = sparse & unknown_cell & (z == 0)
        score = np.where(ruled_out, -np.inf, score)
        score = np.where(exposed, np.inf, score)
    return np.argmax(score, axis=1)


def simulate_last_record_attack(
    p: ArrayLike,
    n: int,
    epsilon: float,
    num_trials: int,
    mechanism: str = "dp",
    gamma: float | None = None,
    use_prior: bool = False,
    target: str = "population",
    rng: Any = None,
) -> dict[str, Any]:
    """Success rate of :func:`last_record_attack` over ``num_trials`` random datasets.

    Each trial draws ``n - 1`` known records i.i.d. from ``p`` and the target
    record either from ``p`` too (``target="population"``: a random member of
    the population) or uniformly over the ``k`` cells (``target="uniform"``:
    every kind of person weighted equally, the setting of the ``e^ε / k``
    bound), releases the histogram of all ``n`` and lets the adversary guess.

    Returns
    -------
    dict
        ``"success rate"``; ``"alone rate"`` (fraction of trials where the target
        had its cell to itself); ``"success when alone"`` and
        ``"success when not alone"`` (NaN if no such trial); ``"success by cell"``
        (array of k success rates by the target's true cell, NaN where no trial)
        and ``"trials by cell"``.

    Examples
    --------
    >>> p = zipf_probabilities(20, 1.5)
    >>> out = simulate_last_record_attack(p, 400, 1.0, 2_000, "rdp", gamma=0.1, rng=0)
    >>> out["success when alone"]
    1.0
    """
    p = _check_distribution(p)
    n = check_int(n, "n", minimum=2)
    epsilon = check_epsilon(epsilon)
    num_trials = check_int(num_trials, "num_trials", minimum=1)
    mechanism = _check_mechanism(mechanism)
    if target not in ("population", "uniform"):
        raise ValueError(f"target: must be 'population' or 'uniform', got {target!r}")
    rng = as_rng(rng)
    k = p.size
    known = rng.multinomial(n - 1, p, size=num_trials)
    target_p = p if target == "population" else np.full(k, 1.0 / k)
    target = rng.choice(k, size=num_trials, p=target_p)
    counts = known.copy()
    counts[np.arange(num_trials), target] += 1
    if mechanism == "rdp":
        if gamma is None:
            raise ValueError("gamma: required for mechanism='rdp', a number in (0, 1)")
        gamma = check_gamma(gamma)
    release = _release(counts, epsilon, mechanism, gamma, rng)
    guess = last_record_attack(
        release, known, epsilon, mechanism, gamma=gamma, prior=p if use_prior else None
    )
    hit = guess == target
    alone = known[np.arange(num_trials), target] == 0
    trials_by_cell = np.bincount(target, minlength=k)
    hits_by_cell = np.bincount(target, weights=hit, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        success_by_cell = np.where(trials_by_cell > 0, hits_by_cell / trials_by_cell, np.nan)
    return {
        "success rate": float(hit.mean()),
        "alone rate": float(alone.mean()),
        "success when alone": float(hit[alone].mean()) if alone.any() else float("nan"),
        "success when not alone": float(hit[~alone].mean()) if (~alone).any() else float("nan"),
        "success by cell": success_by_cell,
        "trials by cell": trials_by_cell,
    }


def dp_attack_bound(epsilon: float | ArrayLike, p: ArrayLike) -> np.ndarray | float:
    """Upper bound ``min(1, e^ε max_j p_j)`` on any adversary's success against an ε-DP release.

    Whatever the other ``n - 1`` records, the release's distribution changes by
    at most a factor ``e^ε`` when the last record moves to another cell, so the
    best guess is right with probability at most ``e^ε`` times that of the best
    blind guess, ``max_j p_j``.

    Examples
    --------
    >>> round(dp_attack_bound(1.0, [0.1] * 10), 4)
    0.2718
    """
    p = _check_distribution(p)
    eps = np.asarray(epsilon, dtype=float)
    if np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError("epsilon: must be a finite number > 0")
    out = np.minimum(1.0, np.exp(eps) * p.max())
    return float(out) if out.ndim == 0 else out

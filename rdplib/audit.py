"""Empirical auditing: a statistical lower bound on the ε of a mechanism.

An ε-DP mechanism bounds the likelihood ratio of every event in **both**
directions, and an (ε, δ)-DP one bounds ``P[M(x) in E] - δ`` by
``e^ε P[M(x') in E]``. :func:`audit_epsilon` estimates both probabilities of one
event from samples, bounds them with Clopper-Pearson intervals, and reports the
largest ε the data prove (with the stated confidence). An audit can refute a
claim; it can never confirm one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import betaincinv  # Beta quantile; lighter to import than scipy.stats

from ._validation import (
    as_rng,
    check_delta,
    check_epsilon,
    check_int,
    check_numeric_array,
    check_positive,
    check_probability,
)
from .mechanisms import laplace_mechanism, randomized_response

__all__ = ["AuditResult", "clopper_pearson", "audit_epsilon"]

#: The two ratios an audit bounds: P[M(x) in E] over P[M(x') in E], and the reverse.
DIRECTIONS = ("x/x_prime", "x_prime/x")


def clopper_pearson(successes: int, trials: int, confidence: float) -> tuple[float, float]:
    """One-sided Clopper-Pearson bounds on a success probability.

    Parameters
    ----------
    successes : int
        Number of successes, ``0 <= successes <= trials``.
    trials : int
        Number of independent trials, ``>= 1``.
    confidence : float
        Level in (0, 1) of **each** bound.

    Returns
    -------
    (lower, upper) : tuple of float
        ``lower`` is the ``1 - confidence`` quantile of Beta(k, n-k+1) (0 when
        ``k = 0``) and ``upper`` the ``confidence`` quantile of Beta(k+1, n-k)
        (1 when ``k = n``). Each one alone holds with probability at least
        ``confidence``; both together with probability at least
        ``2 confidence - 1``.

    Examples
    --------
    >>> low, up = clopper_pearson(50, 100, 0.95)
    >>> round(low, 3), round(up, 3)
    (0.414, 0.586)
    """
    trials = check_int(trials, "trials", minimum=1)
    successes = check_int(successes, "successes", minimum=0)
    if successes > trials:
        raise ValueError(f"successes: must be at most trials ({trials}), got {successes}")
    confidence = check_probability(confidence, "confidence", open_interval=True)
    alpha = 1.0 - confidence
    lower = 0.0 if successes == 0 else float(betaincinv(successes, trials - successes + 1, alpha))
    upper = 1.0 if successes == trials else float(betaincinv(successes + 1, trials - successes, 1 - alpha))
    return lower, upper


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit_epsilon`.

    Attributes
    ----------
    epsilon_lower : float
        Lower confidence bound on ε (0 when the data show nothing): the larger
        of the two directional bounds.
    direction : str
        Which ratio gave ``epsilon_lower``: ``"x/x_prime"`` (the event is more
        likely on ``x``) or ``"x_prime/x"``.
    epsilon_hat : float
        Plug-in estimate, the larger of ``ln((p_hat - δ)/p_prime_hat)`` and
        ``ln((p_prime_hat - δ)/p_hat)`` (``inf`` when a denominator is 0,
        ``-inf`` when both numerators are <= 0).
    p_hat, p_prime_hat : float
        Frequencies of the event on ``x`` and on ``x_prime``.
    p_lower, p_upper : float
        Clopper-Pearson bounds on ``p = P[M(x) in E]``, each at level
        ``1 - (1 - confidence)/4``.
    p_prime_lower, p_prime_upper : float
        The same for ``p' = P[M(x') in E]``.
    trials : int
    confidence : float
    delta : float
    """

    epsilon_lower: float
    direction: str
    epsilon_hat: float
    p_hat: float
    p_prime_hat: float
    p_lower: float
    p_upper: float
    p_prime_lower: float
    p_prime_upper: float
    trials: int
    confidence: float
    delta: float


def _log_ratio(numerator: float, denominator: float, delta: float) -> float:
    """``ln((numerator - delta) / denominator)`` with -inf for a numerator <= delta."""
    if numerator - delta <= 0.0:
        return -math.inf
    if denominator == 0.0:
        return math.inf
    return math.log((numerator - delta) / denominator)


def _bound_from_counts(hits: int, hits_prime: int, trials: int, confidence: float,
                       delta: float) -> dict[str, Any]:
    """The audit's arithmetic from the two hit counts (symmetric in the two counts)."""
    each = 1.0 - (1.0 - confidence) / 4.0  # four one-sided bounds share 1 - confidence
    p_lower, p_upper = clopper_pearson(hits, trials, each)
    pp_lower, pp_upper = clopper_pearson(hits_prime, trials, each)
    p_hat, pp_hat = hits / trials, hits_prime / trials
    bounds = (_log_ratio(p_lower, pp_upper, delta), _log_ratio(pp_lower, p_upper, delta))
    side = int(bounds[1] > bounds[0])
    return dict(
        epsilon_lower=max(0.0, bounds[side]),
        direction=DIRECTIONS[side],
        epsilon_hat=max(_log_ratio(p_hat, pp_hat, delta), _log_ratio(pp_hat, p_hat, delta)),
        p_hat=p_hat, p_prime_hat=pp_hat, p_lower=p_lower, p_upper=p_upper,
        p_prime_lower=pp_lower, p_prime_upper=pp_upper,
    )


def audit_epsilon(
    sampler: Callable[[Any, int, np.random.Generator], Any],
    x: Any,
    x_prime: Any,
    event: Callable[[np.ndarray], Any],
    trials: int,
    confidence: float = 0.95,
    rng: Any = None,
    delta: float = 0.0,
) -> AuditResult:
    """Lower confidence bound on ε from ``trials`` runs of a mechanism on two neighbours.

    An (ε, δ)-DP mechanism satisfies ``P[M(x) in E] <= e^ε P[M(x') in E] + δ``
    **and** the same with ``x`` and ``x'`` swapped. So, with ``p`` and ``p'``
    the event's probabilities on ``x`` and ``x'``, both ``ln((p - δ)/p')`` and
    ``ln((p' - δ)/p)`` are lower bounds on ε. The audit replaces each
    numerator by a Clopper-Pearson lower bound and each denominator by an upper
    bound, four one-sided bounds each at level ``1 - (1 - confidence)/4``
    (Bonferroni), and reports the larger of the two directional bounds. By the
    union bound, if the mechanism is (ε, δ)-DP then ``epsilon_lower > ε`` has
    probability at most ``1 - confidence``, whichever order the neighbours are
    given in. An audit can show a claim is false; it can never prove one.

    Parameters
    ----------
    sampler : callable
        ``sampler(dataset, num_samples, rng)`` returns ``num_samples`` outputs
        (an array whose first axis has length ``num_samples``).
    x, x_prime : any
        Neighbouring datasets, passed to ``sampler`` (``x`` first). Their order
        does not matter.
    event : callable
        ``event(outputs)`` returns a boolean array, one entry per output. It
        must be chosen before seeing the samples.
    trials : int
        Number of runs on each dataset, ``>= 1``.
    confidence : float, default 0.95
        Confidence level in (0, 1).
    rng : None, int or numpy.random.Generator
    delta : float, default 0.0
        The δ of the claim being audited, in [0, 1); 0 audits a pure ε claim.

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> from rdplib import laplace_mechanism
    >>> def sampler(data, size, rng):
    ...     return laplace_mechanism(np.full(size, data), 1.0, 1.0, rng=rng)
    >>> res = audit_epsilon(sampler, 0.0, 1.0, lambda out: out > 2, trials=200_000, rng=0)
    >>> 0.9 < res.epsilon_lower <= 1.0, res.direction
    (True, 'x_prime/x')
    """
    if not callable(sampler):
        raise TypeError(f"sampler: expected a callable, got {type(sampler).__name__}")
    if not callable(event):
        raise TypeError(f"event: expected a callable, got {type(event).__name__}")
    trials = check_int(trials, "trials", minimum=1)
    confidence = check_probability(confidence, "confidence", open_interval=True)
    delta = check_delta(delta, "delta")
    rng = as_rng(rng)
    hits = []
    for data in (x, x_prime):
        outputs = sampler(data, trials, rng)
        if np.shape(outputs)[:1] != (trials,):
            raise ValueError(f"sampler: must return {trials} outputs, got shape {np.shape(outputs)}")
        flags = np.asarray(event(outputs))
        if flags.shape != (trials,):
            raise ValueError(f"event: must return one boolean per output, got shape {flags.shape}")
        hits.append(int(np.count_nonzero(flags)))
    numbers = _bound_from_counts(hits[0], hits[1], trials, confidence, delta)
    return AuditResult(**numbers, trials=trials, confidence=confidence, delta=delta)


# ======================================================================================
# Legacy helpers, NOT part of the public API (not in __all__). They serve only
# rdplib.widgets.audit and rdplib.plotting.audit, which the chapter no longer uses;
# delete this section together with those modules.
# ======================================================================================
# --------------------------------------------------------------------------------------
# Vectorised Clopper-Pearson bounds and the ε bound they give
# --------------------------------------------------------------------------------------
def _cp_lower(successes: np.ndarray, trials: np.ndarray | int, level: float) -> np.ndarray:
    """Vectorised one-sided Clopper-Pearson lower bound at confidence ``level``."""
    s = np.asarray(successes, dtype=float)
    n = np.broadcast_to(np.asarray(trials, dtype=float), s.shape)
    safe = np.where(s > 0, s, 1.0)
    return np.where(s > 0, betaincinv(safe, n - s + 1.0, 1.0 - level), 0.0)


def _cp_upper(successes: np.ndarray, trials: np.ndarray | int, level: float) -> np.ndarray:
    """Vectorised one-sided Clopper-Pearson upper bound at confidence ``level``."""
    s = np.asarray(successes, dtype=float)
    n = np.broadcast_to(np.asarray(trials, dtype=float), s.shape)
    safe = np.where(s < n, n - s, 1.0)
    return np.where(s < n, betaincinv(s + 1.0, safe, level), 1.0)


def _epsilon_bound(hits: np.ndarray, hits_prime: np.ndarray, trials: Any, alpha: float) -> np.ndarray:
    """``max(0, ln(p_lower / p'_upper))`` with each bound at level ``1 - alpha/2``."""
    each = 1.0 - alpha / 2.0
    lower = _cp_lower(hits, trials, each)
    upper = _cp_upper(hits_prime, trials, each)
    with np.errstate(divide="ignore"):
        return np.maximum(0.0, np.log(lower) - np.log(upper))


# --------------------------------------------------------------------------------------
# Searching over threshold events
# --------------------------------------------------------------------------------------
_EVENT_NAMES = ("P[M(x) > t] / P[M(x') > t]", "P[M(x') > t] / P[M(x) > t]",
                "P[M(x) <= t] / P[M(x') <= t]", "P[M(x') <= t] / P[M(x) <= t]")


def threshold_counts(outputs: Any, thresholds: Any) -> np.ndarray:
    """How many outputs exceed each threshold, along the last axis of ``outputs``.

    ``outputs`` has shape ``(..., trials)``; the result has shape
    ``(..., len(thresholds))``. Vectorised (one ``bincount``), no loop over rows.

    Examples
    --------
    >>> threshold_counts([[0.5, 1.5, 2.5], [3.0, 3.0, -1.0]], [0.0, 1.0, 2.0])
    array([[3, 2, 1],
           [2, 2, 2]])
    """
    out = check_numeric_array(outputs, "outputs")
    t = check_numeric_array(thresholds, "thresholds")
    if t.ndim != 1 or np.any(np.diff(t) <= 0):
        raise ValueError("thresholds: must be a 1-D array in strictly increasing order")
    out2 = out.reshape(-1, out.shape[-1])
    rows = out2.shape[0]
    below = np.searchsorted(t, out2, side="left")  # number of thresholds strictly below each output
    hist = np.bincount((np.arange(rows)[:, None] * (t.size + 1) + below).ravel(),
                       minlength=rows * (t.size + 1)).reshape(rows, t.size + 1)
    above = np.cumsum(hist[:, ::-1], axis=1)[:, ::-1][:, 1:]  # outputs with more than i thresholds below
    return above.reshape(*out.shape[:-1], t.size)


def threshold_bounds(outputs_x: Any, outputs_x_prime: Any, thresholds: Any, confidence: float = 0.95,
                     correction: str = "bonferroni") -> np.ndarray:
    """ε lower bounds of the four threshold events at every threshold.

    For each threshold ``t`` the events ``{M > t}`` and ``{M <= t}`` are tested
    in both directions (``x`` over ``x'`` and ``x'`` over ``x``): ``4 T`` tests
    in all. With ``correction="bonferroni"`` each test runs at level
    ``1 - (1 - confidence) / (4 T)``, so the largest of all the bounds is still
    below the true ε with probability at least ``confidence``. With
    ``correction="none"`` each test runs at level ``confidence`` and the
    maximum is **not** a valid bound (the search overfits).

    Returns an array of shape ``(..., 4, T)`` (leading axes of the outputs).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = laplace_sampler(1.0)(1.0, 100_000, rng)
    >>> x_prime = laplace_sampler(1.0)(0.0, 100_000, rng)
    >>> bounds = threshold_bounds(x, x_prime, [0.5, 1.5, 2.5])
    >>> np.round(bounds.max(axis=0), 2)  # each threshold's best event
    array([0.82, 0.97, 0.94])
    """
    if correction not in ("bonferroni", "none"):
        raise ValueError(f"correction: must be 'bonferroni' or 'none', got {correction!r}")
    confidence = check_probability(confidence, "confidence", open_interval=True)
    a = check_numeric_array(outputs_x, "outputs_x")
    b = check_numeric_array(outputs_x_prime, "outputs_x_prime")
    if a.shape != b.shape:
        raise ValueError(f"outputs_x_prime: must have the shape of outputs_x {a.shape}, got {b.shape}")
    trials = a.shape[-1]
    above_x = threshold_counts(a, thresholds)
    above_xp = threshold_counts(b, thresholds)
    num_tests = 4 * above_x.shape[-1]
    alpha = 1.0 - confidence
    if correction == "bonferroni":
        alpha /= num_tests
    return np.stack([
        _epsilon_bound(above_x, above_xp, trials, alpha),
        _epsilon_bound(above_xp, above_x, trials, alpha),
        _epsilon_bound(trials - above_x, trials - above_xp, trials, alpha),
        _epsilon_bound(trials - above_xp, trials - above_x, trials, alpha),
    ], axis=-2)


@dataclass(frozen=True)
class ThresholdAuditResult:
    """Outcome of :func:`audit_threshold_search`.

    Attributes
    ----------
    epsilon_lower : float
        Largest bound over all ``num_tests`` events (valid at ``confidence``
        when ``correction="bonferroni"``).
    threshold : float
        The threshold of the best event.
    event : str
        Which of the four events at that threshold gave the bound.
    thresholds : numpy.ndarray
    bounds : numpy.ndarray
        Best bound at each threshold (max over the four events), shape ``(T,)``.
    num_tests : int
    trials : int
    confidence : float
    correction : str
    """

    epsilon_lower: float
    threshold: float
    event: str
    thresholds: np.ndarray
    bounds: np.ndarray
    num_tests: int
    trials: int
    confidence: float
    correction: str


def audit_threshold_search(
    sampler: Callable[[Any, int, np.random.Generator], Any],
    x: Any,
    x_prime: Any,
    thresholds: Any,
    trials: int,
    confidence: float = 0.95,
    correction: str = "bonferroni",
    rng: Any = None,
) -> ThresholdAuditResult:
    """Audit with every threshold event ``{M > t}``, ``{M <= t}`` (both directions) at once.

    Draws ``trials`` outputs on each dataset once and evaluates all ``4 T``
    events on them (see :func:`threshold_bounds`). The Bonferroni correction
    pays for the search: each test runs at confidence ``1 - (1-confidence)/(4T)``.

    Examples
    --------
    >>> res = audit_threshold_search(coin_flip_geometric_sampler(), 0, 1,
    ...                              np.arange(-3.5, 4), trials=100_000, rng=0)
    >>> res.threshold, round(res.epsilon_lower, 2), round(float(np.log(2)), 2)  # claim: ln 2
    (0.5, 1.07, 0.69)
    """
    if not callable(sampler):
        raise TypeError(f"sampler: expected a callable, got {type(sampler).__name__}")
    trials = check_int(trials, "trials", minimum=1)
    rng = as_rng(rng)
    t = check_numeric_array(thresholds, "thresholds")
    outputs = []
    for data in (x, x_prime):
        out = np.asarray(sampler(data, trials, rng))
        if out.shape != (trials,):
            raise ValueError(f"sampler: must return {trials} scalar outputs, got shape {out.shape}")
        outputs.append(out)
    bounds = threshold_bounds(outputs[0], outputs[1], t, confidence, correction)  # (4, T)
    event_index, threshold_index = np.unravel_index(int(np.argmax(bounds)), bounds.shape)
    return ThresholdAuditResult(
        epsilon_lower=float(bounds[event_index, threshold_index]),
        threshold=float(t[threshold_index]),
        event=_EVENT_NAMES[event_index],
        thresholds=t,
        bounds=bounds.max(axis=0),
        num_tests=int(bounds.size),
        trials=trials,
        confidence=float(confidence),
        correction=correction,
    )


# --------------------------------------------------------------------------------------
# Samplers: sampler(data, num_samples, rng) for correct and broken mechanisms
# --------------------------------------------------------------------------------------
def _as_value(data: Any) -> float:
    value = np.asarray(data, dtype=float)
    if value.ndim != 0 or not np.isfinite(value):
        raise ValueError(f"data: the samplers take one finite query value, got {data!r}")
    return float(value)


def laplace_sampler(epsilon: float, sensitivity: float = 1.0) -> Callable[[Any, int, np.random.Generator], np.ndarray]:
    """Sampler of the Laplace mechanism: ``value + Lap(sensitivity / epsilon)`` (truly ε-DP).

    Examples
    --------
    >>> sampler = laplace_sampler(0.5)
    >>> round(float(np.mean(np.abs(sampler(0.0, 100_000, np.random.default_rng(0))))), 1)
    2.0
    """
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)

    def sample(data: Any, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        return laplace_mechanism(np.full(num_samples, _as_value(data)), sensitivity, epsilon, rng=rng)

    return sample


def rr_sampler(epsilon: float) -> Callable[[Any, int, np.random.Generator], np.ndarray]:
    """Sampler of randomized response on one bit: keep it w.p. ``e^ε/(1+e^ε)`` (truly ε-DP).

    Examples
    --------
    >>> out = rr_sampler(np.log(3))(1, 100_000, np.random.default_rng(0))
    >>> round(float(out.mean()), 2)  # keeps a one with probability 3/4
    0.75
    """
    epsilon = check_epsilon(epsilon)

    def sample(data: Any, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        bit = _as_value(data)
        if bit not in (0.0, 1.0):
            raise ValueError(f"data: randomized response takes a bit 0 or 1, got {data!r}")
        return randomized_response(np.full(num_samples, int(bit)), epsilon, rng=rng)

    return sample


def gaussian_sampler(sigma: float) -> Callable[[Any, int, np.random.Generator], np.ndarray]:
    """Sampler of ``value + N(0, sigma^2)``: (ε, δ)-DP for suitable σ, never ε-DP.

    Examples
    --------
    >>> out = gaussian_sampler(2.0)(1.0, 100_000, np.random.default_rng(0))
    >>> round(float(out.std()), 1)
    2.0
    """
    sigma = check_positive(sigma, "sigma")

    def sample(data: Any, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        return _as_value(data) + rng.normal(0.0, sigma, size=num_samples)

    return sample


def one_sided_sampler(scale: float) -> Callable[[Any, int, np.random.Generator], np.ndarray]:
    """Sampler of ``value + Exponential(scale)``: one-sided noise, not ε-DP for any ε.

    Examples
    --------
    >>> out = one_sided_sampler(1.0)(1.0, 10_000, np.random.default_rng(0))
    >>> bool(out.min() >= 1.0)  # never below the true value
    True
    """
    scale = check_positive(scale, "scale")

    def sample(data: Any, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        return _as_value(data) + rng.exponential(scale, size=num_samples)

    return sample


def coin_flip_geometric_sampler() -> Callable[[Any, int, np.random.Generator], np.ndarray]:
    """Sampler of the coin-flip two-sided geometric mechanism (ln 4-DP, *not* ln 2-DP).

    Examples
    --------
    >>> out = coin_flip_geometric_sampler()(0, 200_000, np.random.default_rng(0))
    >>> round(float(np.mean(out == 0)), 2), round(float(np.mean(out == 1)), 2)  # 1/2 and 1/8
    (0.5, 0.12)
    """

    def sample(data: Any, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        value = _as_value(data)
        if not value.is_integer():
            raise ValueError(f"data: the geometric mechanism takes an integer count, got {data!r}")
        magnitude = rng.geometric(0.5, size=num_samples) - 1  # heads before the first tail
        sign = np.where(rng.random(size=num_samples) < 0.5, 1, -1)
        return int(value) + (sign * magnitude).astype(np.int64)

    return sample

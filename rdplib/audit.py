"""Empirical auditing: a statistical lower bound on the ε of a mechanism."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import beta

from ._validation import as_rng, check_int, check_probability

__all__ = ["AuditResult", "clopper_pearson", "audit_epsilon"]


def clopper_pearson(successes: int, trials: int, confidence: float) -> tuple[float, float]:
    """One-sided Clopper-Pearson bounds ``(lower, upper)``, each holding with prob ``confidence``.

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
    lower = 0.0 if successes == 0 else float(beta.ppf(alpha, successes, trials - successes + 1))
    upper = 1.0 if successes == trials else float(beta.ppf(1 - alpha, successes + 1, trials - successes))
    return lower, upper


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit_epsilon`.

    Attributes
    ----------
    epsilon_lower : float
        One-sided lower confidence bound on ε (0 when the data show nothing).
    epsilon_hat : float
        Plug-in estimate ``ln(p_hat / p_prime_hat)`` (``inf`` if ``p_prime_hat = 0``).
    p_hat, p_prime_hat : float
        Estimated probabilities of the event on ``x`` and on ``x_prime``.
    p_lower, p_prime_upper : float
        Clopper-Pearson lower bound on ``p`` and upper bound on ``p'``.
    trials : int
    confidence : float
    """

    epsilon_lower: float
    epsilon_hat: float
    p_hat: float
    p_prime_hat: float
    p_lower: float
    p_prime_upper: float
    trials: int
    confidence: float


def audit_epsilon(
    sampler: Callable[[Any, int, np.random.Generator], Any],
    x: Any,
    x_prime: Any,
    event: Callable[[np.ndarray], Any],
    trials: int,
    confidence: float = 0.95,
    rng: Any = None,
) -> AuditResult:
    """Lower confidence bound on ε from ``trials`` runs of a mechanism on two neighbours.

    Any ε-DP mechanism satisfies ``P[M(x) in E] <= e^ε P[M(x') in E]``, so
    ``ln(p / p')`` is a lower bound on ε. With a lower bound on ``p`` and an upper
    bound on ``p'``, each at level ``1 - (1 - confidence)/2`` (a union bound), the
    reported ``epsilon_lower`` is below the true ε with probability at least
    ``confidence``. An audit can show a claim is false; it can never prove one.

    Parameters
    ----------
    sampler : callable
        ``sampler(dataset, num_samples, rng)`` returns ``num_samples`` outputs
        (an array whose first axis has length ``num_samples``).
    x, x_prime : any
        Neighbouring datasets, passed to ``sampler``.
    event : callable
        ``event(outputs)`` returns a boolean array, one entry per output.
    trials : int
        Number of runs on each dataset.
    confidence : float
        Confidence level in (0, 1).
    rng : None, int or numpy.random.Generator

    Examples
    --------
    >>> from rdplib import laplace_mechanism
    >>> sampler = lambda data, size, rng: laplace_mechanism(np.full(size, data), 1.0, 1.0, rng=rng)
    >>> res = audit_epsilon(sampler, 1.0, 0.0, lambda out: out > 1.5, trials=200_000, rng=0)
    >>> 0.8 < res.epsilon_lower <= 1.0
    True
    """
    if not callable(sampler):
        raise TypeError(f"sampler: expected a callable, got {type(sampler).__name__}")
    if not callable(event):
        raise TypeError(f"event: expected a callable, got {type(event).__name__}")
    trials = check_int(trials, "trials", minimum=1)
    confidence = check_probability(confidence, "confidence", open_interval=True)
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
    each = 1.0 - (1.0 - confidence) / 2.0
    p_lower, _ = clopper_pearson(hits[0], trials, each)
    _, p_prime_upper = clopper_pearson(hits[1], trials, each)
    p_hat, p_prime_hat = hits[0] / trials, hits[1] / trials
    eps_lower = max(0.0, math.log(p_lower / p_prime_upper)) if p_lower > 0 else 0.0
    if p_hat == 0:
        eps_hat = 0.0 if p_prime_hat == 0 else -math.inf
    else:
        eps_hat = math.inf if p_prime_hat == 0 else math.log(p_hat / p_prime_hat)
    return AuditResult(eps_lower, eps_hat, p_hat, p_prime_hat, p_lower, p_prime_upper, trials, confidence)

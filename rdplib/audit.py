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
from numpy.typing import ArrayLike

from ._validation import (
    as_rng,
    check_delta,
    check_int,
    check_probability,
)

__all__ = ["AuditResult", "clopper_pearson", "audit_epsilon", "kolmogorov_sf", "ks_two_sample"]

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
    from scipy.special import (
        betaincinv,  # Beta quantile; imported here so `import rdplib` stays fast
    )

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
        likely on ``x``) or ``"x_prime/x"``. When neither direction shows anything
        (both bounds are at most 0, so ``epsilon_lower`` is 0) it names the
        direction whose bound was larger, which carries no evidence.
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

    Examples
    --------
    >>> import numpy as np
    >>> def sampler(data, num_samples, rng):
    ...     return data + rng.laplace(0.0, 1.0, num_samples)   # Laplace, ε = 1
    >>> result = audit_epsilon(sampler, 0.0, 1.0, lambda y: y > 0.5, trials=50_000, rng=1)
    >>> isinstance(result, AuditResult), result.epsilon_lower <= 1.0
    (True, True)
    >>> result.direction
    'x_prime/x'
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


def kolmogorov_sf(x: ArrayLike) -> np.ndarray | float:
    """Survival function of Kolmogorov's limiting law, ``P[K > x]``.

    ``K = sup_t |B(t)|`` for a Brownian bridge ``B`` is the large-sample law of
    ``sqrt(n) sup |F_n - F|`` (one sample) and of ``sqrt(nm/(n+m)) sup |F_n - G_m|``
    (two samples from one law). Its survival function is the alternating series
    ``2 sum_{j>=1} (-1)^(j-1) exp(-2 j^2 x^2)``; below ``x = 0.2`` the series
    converges slowly, and the equivalent theta-function form
    ``1 - sqrt(2 pi)/x sum_{j>=1} exp(-(2j-1)^2 pi^2 / (8 x^2))`` is used instead.
    Agrees with ``scipy.special.kolmogorov`` to about ``1e-15``.

    Parameters
    ----------
    x : float or array_like
        Points at which to evaluate; finite and ``>= 0`` (``P[K > 0] = 1``).

    Returns
    -------
    float or numpy.ndarray
        ``P[K > x]``, a float for a scalar ``x``.

    Examples
    --------
    >>> round(kolmogorov_sf(1.3581), 4)  # the 5 % critical value
    0.05
    """
    values = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError("x: must be finite and >= 0")
    j = np.arange(1, 101, dtype=float)
    flat = values.reshape(-1, 1)
    large = 2.0 * np.sum((-1.0) ** (j - 1) * np.exp(-2.0 * (j * np.maximum(flat, 0.2)) ** 2), axis=1)
    # below x = 0.05 the tail is 1 - O(exp(-490)): exactly 1 in floating point
    safe = np.maximum(flat, 0.05)
    small = 1.0 - np.sqrt(2.0 * np.pi) / safe[:, 0] * np.sum(
        np.exp(-((2 * j - 1) ** 2) * np.pi**2 / (8.0 * safe**2)), axis=1)
    small = np.where(flat[:, 0] < 0.05, 1.0, small)
    result = np.where(flat[:, 0] >= 0.2, large, small)
    result = np.clip(result, 0.0, 1.0).reshape(values.shape)
    return float(result) if result.ndim == 0 else result


def ks_two_sample(a: ArrayLike, b: ArrayLike) -> tuple[float, float]:
    """Two-sample Kolmogorov-Smirnov test with the large-sample p-value.

    Parameters
    ----------
    a, b : array_like
        One-dimensional samples of real numbers, each non-empty.

    Returns
    -------
    (statistic, p_value) : tuple of float
        The largest gap ``sup_t |F_a(t) - F_b(t)|`` between the two empirical
        distribution functions, and ``P[K > statistic * sqrt(n m / (n + m))]``
        under Kolmogorov's limiting law (:func:`kolmogorov_sf`), which is
        ``scipy.special.kolmogorov`` at the same point. The p-value is
        accurate for large samples (both sizes in the hundreds); it is not exact for
        small ones, nor for samples from a discrete law (then it is conservative).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> statistic, p_value = ks_two_sample(rng.normal(size=500), rng.normal(size=400))
    >>> bool(p_value > 0.05)
    True
    """
    first = np.asarray(a, dtype=float).ravel()
    second = np.asarray(b, dtype=float).ravel()
    for values, name in ((first, "a"), (second, "b")):
        if values.size == 0:
            raise ValueError(f"{name}: must be a non-empty sample")
        if not np.all(np.isfinite(values)):
            raise ValueError(f"{name}: must hold finite numbers only")
    points = np.concatenate([first, second])
    cdf_a = np.searchsorted(np.sort(first), points, side="right") / first.size
    cdf_b = np.searchsorted(np.sort(second), points, side="right") / second.size
    statistic = float(np.abs(cdf_a - cdf_b).max())
    scale = np.sqrt(first.size * second.size / (first.size + second.size))
    return statistic, float(kolmogorov_sf(statistic * scale))

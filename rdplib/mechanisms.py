"""Output-perturbation mechanisms: randomized response, Laplace, geometric, Gaussian.

.. warning::
   The continuous samplers here draw floating-point noise with NumPy. That is
   what a teaching book needs (fast, vectorised, easy to read) but it is **not**
   a safe implementation of differential privacy: textbook floating-point
   Laplace noise leaks information through the low-order bits of its output
   (Mironov, 2012). In production use a library with exact or
   floating-point-safe samplers, such as OpenDP or Google's differential-privacy
   libraries.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    as_rng,
    check_bits,
    check_bounds,
    check_delta,
    check_epsilon,
    check_numeric_array,
    check_positive,
    check_real,
)

__all__ = [
    "rr_flip_probability",
    "randomized_response",
    "rr_estimate",
    "rr_variance",
    "laplace_mechanism",
    "geometric_mechanism",
    "gaussian_sigma",
    "gaussian_delta",
    "gaussian_mechanism",
    "clipped_mean",
]


def _as_bits(bits: ArrayLike, name: str) -> np.ndarray:
    """``check_bits`` with a fast path for bool and integer arrays (no float round trip).

    The checks are the same (every entry 0 or 1); integer and boolean arrays are
    finite and integral by construction, so only their range needs checking.
    """
    arr = np.asarray(bits)
    if arr.dtype == np.bool_:
        return arr.view(np.int8)
    if arr.dtype.kind in "iu":
        if arr.size and (arr.min() < 0 or arr.max() > 1):
            raise ValueError(f"{name}: every entry must be 0 or 1")
        return arr.astype(np.int8, copy=False)
    return check_bits(arr, name)


def _as_integer_values(value: ArrayLike) -> np.ndarray:
    """Validated int64 array for :func:`geometric_mechanism` (fast path for integer arrays)."""
    arr = np.asarray(value)
    if arr.dtype.kind == "i" or (arr.dtype.kind == "u" and arr.dtype.itemsize < 8):
        if arr.size == 0:
            raise ValueError("value: must not be empty")
        if arr.dtype.itemsize == 8 and (arr.min() < -(2**62) or arr.max() > 2**62):
            raise ValueError("value: integer values must lie within +-2**62")
        return arr.astype(np.int64, copy=False)
    arr = check_numeric_array(arr, "value")
    if not np.all(arr == np.round(arr)):
        raise ValueError("value: the geometric mechanism needs integer values")
    if np.any(np.abs(arr) > 2.0**62):
        raise ValueError("value: integer values must lie within +-2**62")
    return arr.astype(np.int64)


def rr_flip_probability(epsilon: float) -> float:
    """Probability ``1 / (1 + e^epsilon)`` with which randomized response flips a bit.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, ``> 0``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(rr_flip_probability(np.log(3)), 6)
    0.25
    """
    epsilon = check_epsilon(epsilon)
    if epsilon > 700.0:  # e^epsilon would overflow
        return float(math.exp(-epsilon) / (1.0 + math.exp(-epsilon)))
    return float(1.0 / (1.0 + math.exp(epsilon)))


def randomized_response(bits: ArrayLike, epsilon: float, rng: Any = None) -> np.ndarray:
    """Randomized response: report each bit truthfully w.p. e^ε/(1+e^ε), flipped otherwise.

    Each entry is privatised independently, so one person's answer enjoys ε-DP.

    Parameters
    ----------
    bits : array_like of {0, 1}
        The true answers, any shape.
    epsilon : float
        Privacy parameter, ``epsilon > 0``.
    rng : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray of int8
        The noisy bits, same shape as ``bits``.

    Examples
    --------
    >>> noisy = randomized_response(np.ones(100_000, dtype=int), epsilon=np.log(3), rng=0)
    >>> round(float(1 - noisy.mean()), 2)  # flip rate 1/(1+3) = 0.25
    0.25
    """
    arr = _as_bits(bits, "bits")
    flip_prob = rr_flip_probability(epsilon)
    rng = as_rng(rng)
    flips = rng.random(arr.shape) < flip_prob
    return np.asarray(arr ^ flips)  # int8 ^ bool -> int8: flips the chosen 0/1 entries


def rr_estimate(noisy_bits: ArrayLike, epsilon: float, axis: int | None = None) -> np.ndarray | float:
    """Unbiased estimate of the true proportion of ones from randomized-response bits.

    With flip probability ``q = 1/(1+e^ε)`` the mean of the noisy bits has
    expectation ``q + (1 - 2q) p``, so ``(mean - q) / (1 - 2q)`` is unbiased for
    ``p``. Its variance is ``[p(1-p) + q(1-q)/(1-2q)^2] / n``: the sampling
    variance plus the price of privacy ``e^ε / (n (e^ε - 1)^2)``. The estimate is
    not clipped to [0, 1] (clipping would bias it).

    Parameters
    ----------
    noisy_bits : array_like of {0, 1}
        Output of :func:`randomized_response` (not empty).
    epsilon : float
        The ε used to produce them.
    axis : int, optional
        Average along this axis (e.g. one estimate per row of a batch of
        surveys); by default over all entries, returning a float.

    Returns
    -------
    float or numpy.ndarray
        The estimate(s) of the proportion of ones; may fall outside [0, 1].

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> truth = rng.random(200_000) < 0.3
    >>> round(rr_estimate(randomized_response(truth, 1.0, rng=rng), 1.0), 2)
    0.3
    """
    arr = _as_bits(noisy_bits, "noisy_bits")
    if arr.size == 0:
        raise ValueError("noisy_bits: must not be empty")
    q = rr_flip_probability(epsilon)
    epsilon = check_epsilon(epsilon)
    gap = 1.0 - 2.0 * q if epsilon > 1e-3 else math.tanh(epsilon / 2.0)  # 1 - 2q, accurate for tiny epsilon
    if axis is None:
        return float((arr.mean() - q) / gap)
    return (arr.mean(axis=axis) - q) / gap


def _float_array(values: ArrayLike, name: str) -> np.ndarray:
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name}: expected a number or an array of numbers ({exc})") from exc


def rr_variance(p: ArrayLike, n: ArrayLike, epsilon: ArrayLike) -> np.ndarray | float:
    """Exact variance ``[p(1-p) + e^ε/(e^ε-1)^2] / n`` of :func:`rr_estimate` (vectorised).

    Parameters
    ----------
    p : float or array_like
        True proportion(s) in [0, 1].
    n : float or array_like
        Number(s) of respondents, ``>= 1``.
    epsilon : float or array_like
        Privacy parameter(s), ``> 0``.

    Returns
    -------
    float or numpy.ndarray
        The variance, broadcast over the inputs.

    Examples
    --------
    >>> round(rr_variance(0.5, 1_000, np.log(3)), 7)  # (0.25 + 3/4) / 1000
    0.001
    """
    p, n, eps = (_float_array(v, name) for v, name in ((p, "p"), (n, "n"), (epsilon, "epsilon")))
    if np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError("epsilon: must be finite and > 0")
    if np.any((p < 0) | (p > 1)) or np.any(np.isnan(p)):
        raise ValueError("p: must lie in [0, 1]")
    if np.any(n < 1) or not np.all(np.isfinite(n)):
        raise ValueError("n: must be finite and >= 1")
    with np.errstate(over="ignore", invalid="ignore"):  # e^eps / (e^eps - 1)^2, without overflow
        privacy_term = np.where(eps < 700.0, np.exp(eps) / np.expm1(eps) ** 2, 0.25 / np.sinh(eps / 2.0) ** 2)
    out = (p * (1 - p) + privacy_term) / n
    return float(out) if out.ndim == 0 else out


def laplace_mechanism(
    value: ArrayLike, sensitivity: float, epsilon: float, rng: Any = None
) -> np.ndarray | float:
    """Add Laplace noise of scale ``sensitivity / epsilon`` to ``value`` (ε-DP).

    Parameters
    ----------
    value : float or array_like
        The true answer(s); noise is added independently to every entry.
    sensitivity : float
        The L1 sensitivity of the query, ``> 0``.
    epsilon : float
        Privacy parameter, ``> 0``.
    rng : None, int or numpy.random.Generator
        Source of randomness (SPEC 7: a seed or a Generator).

    Returns
    -------
    float or numpy.ndarray
        ``value`` plus noise: a float for a scalar ``value``, otherwise an array
        of the same shape.

    Notes
    -----
    NumPy floating-point Laplace noise, fine for teaching but not safe for real
    data (Mironov, 2012): use OpenDP's samplers in production.

    Examples
    --------
    >>> noisy = laplace_mechanism(np.zeros(200_000), sensitivity=1.0, epsilon=0.5, rng=0)
    >>> round(float(np.mean(np.abs(noisy))), 1)  # E|Lap(b)| = b = 2
    2.0
    """
    arr = check_numeric_array(value, "value")
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    scale = sensitivity / epsilon
    if not math.isfinite(scale):
        raise ValueError(f"sensitivity: the noise scale sensitivity / epsilon overflows ({sensitivity} / {epsilon})")
    rng = as_rng(rng)
    noisy = arr + rng.laplace(0.0, scale, size=arr.shape)
    return float(noisy) if noisy.ndim == 0 else noisy


def geometric_mechanism(
    value: ArrayLike, sensitivity: int, epsilon: float, rng: Any = None
) -> np.ndarray | int:
    """Add two-sided geometric (discrete Laplace) noise to integer ``value`` (ε-DP).

    The noise ``Z`` has ``P[Z = d] = (1 - a)/(1 + a) * a^|d|`` with
    ``a = exp(-epsilon / sensitivity)``. It is sampled as the difference of two
    independent geometric variables, fully vectorised. The output is an integer,
    so the low-order-bit attack on floating-point Laplace noise does not apply,
    but NumPy's geometric sampler uses floating point internally: the noise is
    only approximately discrete Laplace (exact samplers: OpenDP).

    Parameters
    ----------
    value : int or array_like of integers
        The true integer answer(s), any shape.
    sensitivity : int
        The L1 sensitivity of the query, a positive integer.
    epsilon : float
        Privacy parameter, ``> 0``.
    rng : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    int or numpy.ndarray of int64
        ``value`` plus noise: an int for a scalar ``value``, otherwise an array
        of the same shape.

    Examples
    --------
    >>> noisy = geometric_mechanism(np.zeros(200_000, dtype=int), 1, np.log(2), rng=0)
    >>> round(float(np.mean(noisy == 0)), 2)  # (1 - 1/2)/(1 + 1/2) = 1/3
    0.33
    """
    arr = _as_integer_values(value)
    sensitivity = check_positive(sensitivity, "sensitivity")
    if not float(sensitivity).is_integer():
        raise ValueError(f"sensitivity: must be a positive integer, got {sensitivity}")
    epsilon = check_epsilon(epsilon)
    if epsilon / sensitivity < 1e-15:  # mean |noise| ~ sensitivity / epsilon must stay far below 2**62
        raise ValueError(
            f"epsilon: epsilon / sensitivity must be at least 1e-15 for int64 noise, got {epsilon / sensitivity}"
        )
    rng = as_rng(rng)
    success = -math.expm1(-epsilon / sensitivity)  # 1 - a without cancellation at small epsilon
    # numpy's geometric counts trials (support 1, 2, ...); the +1 offsets cancel in g1 - g2.
    g1 = rng.geometric(success, size=arr.shape)
    g2 = rng.geometric(success, size=arr.shape)
    noisy = arr + (g1 - g2)
    return int(noisy) if noisy.ndim == 0 else noisy


_GAUSS_LEGENDRE = np.polynomial.legendre.leggauss(16)  # nodes and weights on [-1, 1]


def _gaussian_log_terms(mu: ArrayLike, epsilon: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``log Φ(a)`` and ``g = ε + log Φ(b) - log Φ(a) <= 0`` for N(0, 1) against N(mu, 1).

    Here ``a, b = ±mu/2 - ε/mu``, so that the exact δ(ε) is ``Φ(a) (1 - e^g)``; ``e^ε``
    never appears, so every ε is finite. When ``mu < 1`` the points ``a`` and ``b`` are
    close and ``log Φ(a) - log Φ(b)`` cancels if taken as a difference (at mu = 1e-20 no
    digit of it is left); it is then the integral over [b, a] of ``φ/Φ =
    sqrt(2/π) / erfcx(-t/√2)``, a smooth function, by 16-point Gauss-Legendre.
    Checked against 400-digit arithmetic and an independent quadrature (tests): the
    relative error of δ is about 1e-12 wherever δ > 1e-300.
    """
    from scipy.special import erfcx, log_ndtr

    mu, epsilon = np.broadcast_arrays(np.asarray(mu, dtype=float), np.asarray(epsilon, dtype=float))
    nodes, weights = _GAUSS_LEGENDRE
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        centre = -epsilon / mu  # (a + b) / 2; a - b = mu
        log_upper = log_ndtr(centre + mu / 2.0)
        direct = log_upper - log_ndtr(centre - mu / 2.0)
        t = centre[..., None] + (mu / 2.0)[..., None] * nodes
        integral = mu / 2.0 * ((math.sqrt(2.0 / math.pi) / erfcx(-t / math.sqrt(2.0))) @ weights)
        log_ratio = np.where(mu < 1.0, integral, direct)
        gap = np.minimum(epsilon - log_ratio, 0.0)
        # mu = 0 (sigma so large that Delta / sigma underflows): the two laws agree, delta = 0
        log_upper = np.where((mu == 0.0) | np.isnan(log_upper), -np.inf, log_upper)
    return log_upper, gap


def _gaussian_log_delta(mu: float, epsilon: float) -> float:
    """log δ(ε) of N(0, 1) against N(mu, 1), finite for every ε >= 0 (see _gaussian_log_terms)."""
    log_upper, gap = _gaussian_log_terms(mu, epsilon)
    log_upper, gap = float(log_upper), float(gap)
    if log_upper == -math.inf or gap == 0.0:
        return -math.inf
    return log_upper + math.log(-math.expm1(gap))


def gaussian_sigma(
    sensitivity: float, epsilon: float, delta: float, method: str = "analytic"
) -> float:
    """Noise standard deviation for the Gaussian mechanism to be (ε, δ)-DP.

    ``method="analytic"`` (the default) returns the smallest σ whose exact δ
    (:func:`gaussian_delta`, Balle & Wang, 2018) is at most ``delta``. It is
    valid for every finite ε > 0 and every δ in (0, 1), as long as σ fits in a
    float: the exact δ is evaluated with a relative error of about 1e-12 even
    where the two normal probabilities nearly cancel (ε and δ both tiny, e.g.
    ε = 1e-12 with δ = 1e-300), and σ is the safe end of a bisection on
    log σ carried to the last bit (its computed δ is at most ``delta``), so
    the true δ of the returned σ exceeds ``delta`` by at most that error
    (tests check 1e-9 relative, against 400-digit arithmetic and an
    independent quadrature). ε = 0 is refused. ``method="classic"`` is the textbook calibration
    ``sigma = sensitivity * sqrt(2 ln(1.25/delta)) / epsilon`` (Dwork & Roth,
    Thm A.1), proved only for ``epsilon < 1`` and always larger than needed.

    Parameters
    ----------
    sensitivity : float
        The L2 sensitivity, ``> 0``.
    epsilon : float
        Privacy parameter, ``> 0`` (``< 1`` for the classic calibration).
    delta : float
        Privacy parameter in (0, 1).
    method : {"analytic", "classic"}
        Which calibration to use.

    Returns
    -------
    float
        The standard deviation ``sigma``.

    Raises
    ------
    ValueError
        For a bad parameter, or when σ does not fit in a float.

    Examples
    --------
    >>> round(gaussian_sigma(1.0, 0.5, 1e-5), 4)
    7.0318
    >>> round(gaussian_sigma(1.0, 0.5, 1e-5, method="classic"), 4)
    9.6896
    """
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    if method == "classic":
        if epsilon >= 1.0:
            raise ValueError(
                f"epsilon: the classic Gaussian calibration needs epsilon < 1, got {epsilon};"
                " use method='analytic'"
            )
        sigma = sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon
    elif method == "analytic":
        # Solve delta(mu) = delta for mu = sensitivity / sigma by bisection on log mu:
        # the exact delta grows with mu, from 0 (mu -> 0) to 1 (mu -> inf).
        target = math.log(delta)
        lo, hi = 0.0, 0.0  # log mu
        while _gaussian_log_delta(math.exp(lo), epsilon) > target:
            lo -= 8.0
        while _gaussian_log_delta(math.exp(hi), epsilon) <= target:
            hi += 8.0
            if hi > 700.0:  # only for delta within 1e-16 of 1: any tiny sigma will do
                break
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi):
                break
            if _gaussian_log_delta(math.exp(mid), epsilon) > target:
                hi = mid
            else:
                lo = mid
        sigma = sensitivity * math.exp(-lo)  # lo is the safe side: its delta is <= the target
    else:
        raise ValueError(f"method: must be 'analytic' or 'classic', got {method!r}")
    if not (0.0 < sigma < math.inf):
        raise ValueError(
            f"sensitivity: sigma = {sigma} for sensitivity {sensitivity}, epsilon {epsilon} and"
            f" delta {delta} does not fit in a float; rescale the query"
        )
    return float(sigma)


def gaussian_mechanism(
    value: ArrayLike,
    sensitivity: float,
    epsilon: float,
    delta: float,
    rng: Any = None,
    method: str = "analytic",
) -> np.ndarray | float:
    """Add Gaussian noise calibrated by :func:`gaussian_sigma` (an (ε, δ)-DP mechanism).

    ``sensitivity`` is the L2 sensitivity. By default σ is the smallest that the
    exact δ of the mechanism allows (``method="analytic"``); the textbook
    ``method="classic"`` adds more noise and needs ``epsilon < 1``. The
    mechanism is never ε-DP with δ = 0: its privacy loss is unbounded.

    Parameters
    ----------
    value : float or array_like
        The true answer(s); noise is added independently to every entry.
    sensitivity : float
        The L2 sensitivity of the query, ``> 0``.
    epsilon : float
        Privacy parameter, ``> 0``.
    delta : float
        Privacy parameter in (0, 1).
    rng : None, int or numpy.random.Generator
        Source of randomness.
    method : {"analytic", "classic"}
        Calibration passed to :func:`gaussian_sigma`.

    Returns
    -------
    float or numpy.ndarray
        ``value`` plus ``Normal(0, sigma^2)`` noise, same shape as ``value``.

    Notes
    -----
    NumPy floating-point Gaussian noise: for teaching, not for real data.

    Examples
    --------
    >>> noisy = gaussian_mechanism(np.zeros(100_000), 1.0, 0.5, 1e-5, rng=0)
    >>> round(float(np.std(noisy)), 1)  # sigma = 7.03
    7.0
    """
    arr = check_numeric_array(value, "value")
    sigma = gaussian_sigma(sensitivity, epsilon, delta, method=method)
    rng = as_rng(rng)
    noisy = arr + rng.normal(0.0, sigma, size=arr.shape)
    return float(noisy) if noisy.ndim == 0 else noisy


def clipped_mean(
    x: ArrayLike, lower: float, upper: float, epsilon: float, rng: Any = None
) -> float:
    """ε-DP mean of ``x`` after clipping every value to ``[lower, upper]``.

    With ``n = len(x)`` public and replace-one neighbours, the clipped mean has
    sensitivity ``(upper - lower) / n``; Laplace noise of scale
    ``(upper - lower) / (n epsilon)`` is added. Clipping biases the answer when
    data fall outside the bounds: that is the price of a finite sensitivity.

    Parameters
    ----------
    x : array_like, shape (n,)
        The data (not empty).
    lower, upper : float
        Clipping bounds, finite, ``lower < upper``.
    epsilon : float
        Privacy parameter, ``> 0``.
    rng : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    float
        The noisy clipped mean.

    Examples
    --------
    >>> x = np.full(1_000, 50_000.0)
    >>> est = clipped_mean(x, 0.0, 100_000.0, epsilon=1.0, rng=0)
    >>> abs(est - 50_000) < 1_000
    True
    """
    arr = check_numeric_array(x, "x")
    if arr.ndim != 1:
        raise ValueError(f"x: must be one-dimensional, got shape {arr.shape}")
    lower, upper = check_bounds(lower, upper)
    if not math.isfinite(upper - lower):
        raise ValueError(f"upper: upper - lower must be a finite number, got {upper} - ({lower})")
    epsilon = check_epsilon(epsilon)
    rng = as_rng(rng)
    n = arr.size
    clipped = np.clip(arr, lower, upper)
    return float(clipped.mean() + rng.laplace(0.0, (upper - lower) / (n * epsilon)))


def gaussian_delta(epsilon: ArrayLike, sigma: float, shift: float = 1.0) -> np.ndarray | float:
    """Exact smallest δ for which ``N(0, σ²)`` and ``N(shift, σ²)`` are (ε, δ)-close.

    ``δ(ε) = Φ(s/(2σ) - εσ/s) - e^ε Φ(-s/(2σ) - εσ/s)`` with ``s = |shift|``
    (Balle & Wang, 2018). Vectorised over ε (ε >= 0). This is the exact privacy
    curve of the Gaussian mechanism with L2 sensitivity ``shift``; it equals
    ``E[(1 - e^(ε - L))_+]`` for the privacy loss ``L``. Relative error about
    1e-12 wherever δ > 1e-300, also for σ far above ``shift`` and tiny ε, where
    the two terms nearly cancel; values below about 1e-308 underflow to 0.

    Examples
    --------
    >>> round(gaussian_delta(0.5, sigma=1.0), 4)
    0.2384
    """
    eps = check_numeric_array(epsilon, "epsilon")
    if np.any(eps < 0):
        raise ValueError("epsilon: must be >= 0")
    sigma = check_positive(sigma, "sigma")
    s = abs(check_real(shift, "shift"))
    if s == 0:
        raise ValueError("shift: must be non-zero")
    with np.errstate(over="ignore"):
        mu = s / sigma  # inf when sigma is tiny: then delta is 1
    # Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) = Phi(a) (1 - e^g), computed in logarithms so
    # that e^eps never overflows, a tiny delta keeps its relative precision, and close a, b do not
    # cancel (see _gaussian_log_terms).
    log_upper, gap = _gaussian_log_terms(mu, eps)
    out = np.where(np.isneginf(log_upper), 0.0, np.exp(log_upper) * -np.expm1(gap))
    out = np.clip(out, 0.0, 1.0)
    return float(out) if np.ndim(out) == 0 else out

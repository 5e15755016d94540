"""Discrete noise, and noise that fails pure DP (chapter 4).

Exact probability mass functions of two integer noise distributions, an exact
worst-case likelihood ratio over a range of outputs, the privacy-loss
functions of Laplace, Gaussian and one-sided (exponential) noise, and
vectorised samplers for the two mechanisms that the chapter shows are broken
or weaker than they look.

* The **coin-flip mechanism** of the lecture notes on differential privacy:
  toss a coin for the sign, then count heads until the first tail. With a fair
  coin the noise has ``P[0] = 1/2`` and ``P[d] = (1/2)^(|d|+2)`` for ``d != 0``;
  it is ``ln 4``-DP for a count, not ``ln 2``.
* The **discrete Laplace** (two-sided geometric) distribution
  ``P[d] = (1-a)/(1+a) a^|d|``, the noise of :func:`~rdplib.mechanisms.geometric_mechanism`,
  which is ``ln(1/a)``-DP for sensitivity 1.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    as_rng,
    check_epsilon,
    check_numeric_array,
    check_positive,
    check_probability,
    check_real,
)

__all__ = [
    "coin_flip_pmf",
    "coin_flip_noise",
    "coin_flip_mechanism",
    "coin_flip_epsilon",
    "discrete_laplace_pmf",
    "WorstCaseRatio",
    "likelihood_ratios",
    "worst_case_ratio",
    "laplace_loss_by_output",
    "gaussian_loss_by_output",
    "gaussian_loss_tail",
    "exponential_loss_by_output",
    "one_sided_mechanism",
]


def _check_heads(heads_probability: Any) -> float:
    return check_probability(heads_probability, "heads_probability", open_interval=True)


def _integer_array(d: ArrayLike, name: str) -> np.ndarray:
    arr = check_numeric_array(d, name)
    if not np.all(arr == np.round(arr)):
        raise ValueError(f"{name}: must contain integers only")
    return arr.astype(np.int64)


def coin_flip_pmf(
    d: ArrayLike, heads_probability: float = 0.5, exact: bool = False
) -> np.ndarray:
    """Probability that the coin-flip mechanism adds noise ``d`` (vectorised).

    One coin toss picks the sign; then the coin is tossed until the first tail
    and the number of heads ``M`` is the magnitude, ``P[M = m] = (1-h) h^m``.
    Zero is reached with either sign, so

    ``P[0] = 1 - h`` and ``P[d] = (1 - h) h^|d| / 2`` for ``d != 0``;

    with a fair coin (``h = 1/2``) these are ``1/2`` and ``(1/2)^(|d|+2)``.

    Parameters
    ----------
    d : array_like of int
        Noise values.
    heads_probability : float
        The probability ``h`` of heads in the magnitude tosses, in (0, 1).
    exact : bool
        If True, return :class:`fractions.Fraction` values (an object array);
        A float ``heads_probability`` is then converted to the nearest
        fraction with denominator at most 10**6 (pass a Fraction to be exact).

    Examples
    --------
    >>> coin_flip_pmf([0, 1, -1, 3])
    array([0.5    , 0.125  , 0.125  , 0.03125])
    >>> [str(p) for p in coin_flip_pmf([0, 2], exact=True)]
    ['1/2', '1/16']
    """
    h = _check_heads(heads_probability)
    arr = _integer_array(d, "d")
    magnitude = np.abs(arr)
    if exact:
        if isinstance(heads_probability, Fraction):
            hf = heads_probability
        else:
            hf = Fraction(h).limit_denominator(10**6)
        flat = [
            (1 - hf) if m == 0 else (1 - hf) * hf**m / 2 for m in magnitude.ravel().tolist()
        ]
        return np.array(flat, dtype=object).reshape(arr.shape)
    return np.where(magnitude == 0, 1.0 - h, 0.5 * (1.0 - h) * h ** magnitude.astype(float))


def coin_flip_noise(size: Any, heads_probability: float = 0.5, rng: Any = None) -> np.ndarray:
    """Draw coin-flip noise of the given ``size`` (an int or a shape), vectorised.

    The sign is a fair coin and the magnitude is the number of heads before the
    first tail, i.e. ``numpy``'s geometric variable (number of trials) minus 1.

    Examples
    --------
    >>> noise = coin_flip_noise(200_000, rng=0)
    >>> round(float(np.mean(noise == 0)), 2), round(float(np.mean(noise == 1)), 2)
    (0.5, 0.12)
    """
    h = _check_heads(heads_probability)
    rng = as_rng(rng)
    magnitude = rng.geometric(1.0 - h, size=size) - 1
    sign = np.where(rng.random(size=size) < 0.5, 1, -1)
    return (sign * magnitude).astype(np.int64)


def coin_flip_mechanism(
    value: ArrayLike, heads_probability: float = 0.5, rng: Any = None
) -> np.ndarray | int:
    """Release integer ``value`` plus coin-flip noise (independently per entry).

    With a fair coin this is ``ln 4``-DP for a count (sensitivity 1), see
    :func:`coin_flip_epsilon`.

    Examples
    --------
    >>> out = coin_flip_mechanism(np.full(100_000, 7), rng=1)
    >>> round(float(np.mean(out == 7)), 2)
    0.5
    """
    arr = _integer_array(value, "value")
    noisy = arr + coin_flip_noise(arr.shape, heads_probability, rng=rng)
    return int(noisy) if noisy.ndim == 0 else noisy


def coin_flip_epsilon(heads_probability: float = 0.5) -> float:
    """Exact ε of the coin-flip mechanism for a count: ``ln(2 / h)``.

    The worst ratio is at the centre: ``P[0] / P[±1] = (1-h) / ((1-h) h / 2)``.
    A fair coin gives ``ln 4``.

    Examples
    --------
    >>> round(coin_flip_epsilon(), 6) == round(math.log(4), 6)
    True
    """
    h = _check_heads(heads_probability)
    return math.log(2.0 / h)


def discrete_laplace_pmf(d: ArrayLike, epsilon: float, sensitivity: float = 1) -> np.ndarray:
    """Pmf ``(1-a)/(1+a) a^|d|``, ``a = exp(-epsilon/sensitivity)``, of two-sided geometric noise.

    This is the noise distribution of :func:`~rdplib.mechanisms.geometric_mechanism`.

    Examples
    --------
    >>> np.round(discrete_laplace_pmf([0, 1, -2], np.log(2)), 4)  # 1/3, 1/6, 1/12
    array([0.3333, 0.1667, 0.0833])
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    arr = _integer_array(d, "d")
    a = math.exp(-epsilon / sensitivity)
    return (1.0 - a) / (1.0 + a) * a ** np.abs(arr).astype(float)


class WorstCaseRatio(NamedTuple):
    """Result of :func:`worst_case_ratio`."""

    ratio: Any
    """The largest likelihood ratio, over outputs and both orders of the neighbours."""
    epsilon: float
    """``ln(ratio)``: the smallest ε the mechanism satisfies on this output range."""
    outputs: np.ndarray
    """The outputs at which the largest ratio is reached."""


def likelihood_ratios(pmf_x: ArrayLike, pmf_x_prime: ArrayLike) -> np.ndarray:
    """Elementwise ratio ``pmf_x / pmf_x_prime`` (inf where only the denominator is 0).

    Accepts float arrays or object arrays of :class:`fractions.Fraction`; with
    fractions the ratios are exact.

    Examples
    --------
    >>> y = np.arange(-2, 4)
    >>> likelihood_ratios(coin_flip_pmf(y), coin_flip_pmf(y - 1))
    array([2.  , 2.  , 4.  , 0.25, 0.5 , 0.5 ])
    """
    px = np.asarray(pmf_x)
    py = np.asarray(pmf_x_prime)
    if px.shape != py.shape:
        raise ValueError(
            f"pmf_x_prime: shape {py.shape} does not match pmf_x's shape {px.shape}"
        )
    if px.dtype == object or py.dtype == object:
        flat = [
            (a / b if b != 0 else (math.inf if a != 0 else math.nan))
            for a, b in zip(px.ravel().tolist(), py.ravel().tolist(), strict=True)
        ]
        return np.array(flat, dtype=object).reshape(px.shape)
    px = px.astype(float)
    py = py.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(py > 0, px / np.where(py > 0, py, 1.0), np.where(px > 0, np.inf, np.nan))


def worst_case_ratio(
    pmf: Any, outputs: ArrayLike, count: float = 0, neighbour: float = 1
) -> WorstCaseRatio:
    """Largest ``P[y | count] / P[y | neighbour]`` over ``outputs`` and both orders.

    Parameters
    ----------
    pmf : callable
        ``pmf(noise_values)`` returns the noise pmf (floats or Fractions).
    outputs : array_like of int
        The outputs ``y`` to scan, e.g. ``np.arange(-50, 51)``.
    count, neighbour : int
        The true answers on the two neighbouring datasets.

    Returns
    -------
    WorstCaseRatio
        ``ratio`` (a Fraction when ``pmf`` returns Fractions), ``epsilon`` and
        the ``outputs`` where the maximum is reached.

    Examples
    --------
    >>> worst = worst_case_ratio(lambda d: coin_flip_pmf(d, exact=True), np.arange(-20, 21))
    >>> str(worst.ratio), worst.outputs.tolist()
    ('4', [0, 1])
    """
    if not callable(pmf):
        raise TypeError("pmf: expected a callable mapping noise values to probabilities")
    y = _integer_array(outputs, "outputs")
    count = check_real(count, "count")
    neighbour = check_real(neighbour, "neighbour")
    if y.ndim != 1:
        raise ValueError(f"outputs: must be one-dimensional, got shape {y.shape}")
    p_x = pmf((y - count).astype(np.int64))
    p_x_prime = pmf((y - neighbour).astype(np.int64))
    both = np.concatenate([likelihood_ratios(p_x, p_x_prime), likelihood_ratios(p_x_prime, p_x)])
    as_float = np.array([float(r) for r in both.tolist()]) if both.dtype == object else both
    as_float = np.where(np.isnan(as_float), -np.inf, as_float)
    best = as_float.max()
    where = np.flatnonzero(as_float == best) % y.size
    ratio = both[int(np.argmax(as_float))]
    epsilon = math.inf if best == math.inf else math.log(float(ratio))
    return WorstCaseRatio(ratio=ratio, epsilon=epsilon, outputs=np.unique(y[where]))


def _loss_inputs(y: ArrayLike, scale: float, shift: float, scale_name: str) -> tuple:
    arr = np.asarray(check_numeric_array(y, "y", allow_empty=True), dtype=float)
    scale = check_positive(scale, scale_name)
    shift = check_real(shift, "shift")
    return arr, scale, shift


def laplace_loss_by_output(y: ArrayLike, scale: float, shift: float = 1.0) -> np.ndarray:
    """Privacy loss ``ln p_0(y)/p_shift(y) = (|y - shift| - |y|) / scale`` of Laplace noise.

    ``p_c`` is the density of ``c + Lap(scale)``. The loss lies between
    ``-|shift|/scale`` and ``|shift|/scale`` for every ``y``.

    Examples
    --------
    >>> laplace_loss_by_output([-5.0, 0.0, 0.5, 1.0, 9.0], scale=1.0)
    array([ 1.,  1.,  0., -1., -1.])
    """
    arr, scale, shift = _loss_inputs(y, scale, shift, "scale")
    return (np.abs(arr - shift) - np.abs(arr)) / scale


def gaussian_loss_by_output(y: ArrayLike, sigma: float, shift: float = 1.0) -> np.ndarray:
    """Privacy loss ``ln p_0(y)/p_shift(y) = shift (shift - 2y) / (2 sigma^2)`` of Gaussian noise.

    It is linear in ``y`` and therefore unbounded: no ε bounds it for all outputs.

    Examples
    --------
    >>> gaussian_loss_by_output([-10.0, 0.5, 10.0], sigma=1.0)
    array([10.5,  0. , -9.5])
    """
    arr, sigma, shift = _loss_inputs(y, sigma, shift, "sigma")
    return shift * (shift - 2.0 * arr) / (2.0 * sigma**2)


def gaussian_loss_tail(epsilon: ArrayLike, sigma: float, shift: float = 1.0) -> np.ndarray | float:
    """``P[L > epsilon]`` for ``y ~ N(0, sigma^2)``: ``Phi(shift/(2 sigma) - epsilon sigma/shift)``.

    The probability that the Gaussian privacy loss exceeds ε when the true
    answer is 0 and the neighbour's is ``shift > 0`` (vectorised over ε).

    Examples
    --------
    >>> round(gaussian_loss_tail(1.0, sigma=2.0), 4)  # Phi(0.25 - 2)
    0.0401
    """
    from scipy.stats import norm

    eps = check_numeric_array(epsilon, "epsilon")
    sigma = check_positive(sigma, "sigma")
    shift = check_positive(shift, "shift")
    out = norm.cdf(shift / (2.0 * sigma) - eps * sigma / shift)
    return float(out) if np.ndim(out) == 0 else out


def exponential_loss_by_output(y: ArrayLike, scale: float, shift: float = 1.0) -> np.ndarray:
    """Privacy loss of one-sided exponential noise, true answers 0 and ``shift > 0``.

    ``p_c(y) = exp(-(y - c)/scale)/scale`` for ``y >= c``. The loss is ``+inf``
    on ``[0, shift)`` (impossible under the neighbour), ``-shift/scale`` for
    ``y >= shift``, and NaN below 0 (impossible under both).

    Examples
    --------
    >>> exponential_loss_by_output([-1.0, 0.5, 2.0], scale=1.0)
    array([nan, inf, -1.])
    """
    arr, scale, shift = _loss_inputs(y, scale, shift, "scale")
    if shift <= 0:
        raise ValueError(f"shift: must be > 0, got {shift}")
    return np.where(arr < 0, np.nan, np.where(arr < shift, np.inf, -shift / scale))


def one_sided_mechanism(value: ArrayLike, scale: float, rng: Any = None) -> np.ndarray | float:
    """Add one-sided exponential noise of mean ``scale`` to ``value`` (NOT differentially private).

    Included to show, and to audit, a mechanism that fails: outputs just above
    the smaller of two neighbouring answers are impossible under the larger one.

    Examples
    --------
    >>> out = one_sided_mechanism(np.ones(100_000), 1.0, rng=0)
    >>> bool(out.min() >= 1.0), round(float(out.mean()), 1)
    (True, 2.0)
    """
    arr = check_numeric_array(value, "value")
    scale = check_positive(scale, "scale")
    rng = as_rng(rng)
    noisy = arr + rng.exponential(scale, size=arr.shape)
    return float(noisy) if noisy.ndim == 0 else noisy

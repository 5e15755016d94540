"""Privacy accounting: composition, group privacy, and thresholding unknown categories."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_rng, check_delta, check_epsilon, check_int, check_real

__all__ = [
    "basic_composition",
    "group_privacy",
    "threshold_delta",
    "threshold_for_delta",
    "thresholded_histogram",
]


def basic_composition(budgets: Iterable[tuple[float, float]]) -> tuple[float, float]:
    """Basic composition: running ``(ε_i, δ_i)``-DP mechanisms together is ``(Σε_i, Σδ_i)``-DP.

    Parameters
    ----------
    budgets : iterable of (epsilon, delta) pairs
        One pair per mechanism (at least one); ``epsilon > 0`` and ``0 <= delta < 1``.

    Returns
    -------
    tuple of float
        ``(total_epsilon, total_delta)``, correctly rounded sums (so independent
        of the order of ``budgets``).

    Examples
    --------
    >>> basic_composition([(0.5, 1e-6), (0.25, 0.0), (0.25, 1e-6)])
    (1.0, 2e-06)
    """
    if isinstance(budgets, str | bytes) or not isinstance(budgets, Iterable):
        raise TypeError("budgets: expected an iterable of (epsilon, delta) pairs")
    epsilons, deltas = [], []
    for i, pair in enumerate(budgets):
        try:
            eps, delta = pair
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"budgets[{i}]: expected an (epsilon, delta) pair, got {pair!r}"
            ) from exc
        epsilons.append(check_epsilon(eps, f"budgets[{i}] epsilon"))
        deltas.append(check_delta(delta, f"budgets[{i}] delta"))
    if not epsilons:
        raise ValueError("budgets: must contain at least one (epsilon, delta) pair")
    # math.fsum is correctly rounded, so the totals do not depend on the order of the budgets.
    try:
        return math.fsum(epsilons), math.fsum(deltas)
    except OverflowError:
        raise ValueError("budgets: the total epsilon overflows a float") from None


def group_privacy(epsilon: float, delta: float, k: int) -> tuple[float, float]:
    """Guarantee for datasets ``k`` neighbouring steps apart: ``(kε, δ (e^{kε} - 1)/(e^ε - 1))``.

    Chaining ``k`` neighbouring steps gives ``δ_k = e^ε δ_{k-1} + δ``, that is
    ``δ_k = δ (1 + e^ε + ... + e^{(k-1)ε}) = δ (e^{kε} - 1) / (e^ε - 1)``: the
    chain. When ``δ_k + δ_{k-1} <= 1`` (so for any small δ) it is tight: no
    smaller δ holds for every (ε, δ)-DP mechanism, since a two-outcome mechanism
    attains it. When ``δ_k + δ_{k-1} > 1`` it is valid but not tight: at
    ε = 0.5, δ = 0.05, k = 5 the chain gives 0.862, while the worst case over
    all mechanisms (a small linear program) is 0.7225. The result is capped at
    1 (a δ of 1 says nothing) and computed in logarithms, so it stays finite
    for any group size and any ε. For ``δ = 0`` it is pure ``kε``-DP. Looser bounds in the
    literature, ``k e^{(k-1)ε} δ`` and ``k e^{kε} δ``, bound each of the ``k``
    terms by the largest one.

    Parameters
    ----------
    epsilon : float
        Privacy parameter of the mechanism, ``> 0``.
    delta : float
        Its δ, in [0, 1).
    k : int
        Group size (number of neighbouring steps), an integer ``>= 1``.

    Returns
    -------
    tuple of float
        ``(k epsilon, min(1, delta (e^{k epsilon} - 1) / (e^epsilon - 1)))``.

    Raises
    ------
    ValueError
        If ``k * epsilon`` is not a finite float.

    Examples
    --------
    >>> group_privacy(0.1, 1e-6, 1)
    (0.1, 1e-06)
    >>> eps, delta = group_privacy(0.5, 1e-6, 3)  # 1 + e^0.5 + e^1 = 5.367
    >>> round(eps, 3), round(delta / 1e-6, 4)
    (1.5, 5.367)
    >>> group_privacy(1.0, 1e-6, 1_000)  # a vacuous delta is capped at 1
    (1000.0, 1.0)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k = check_int(k, "k", minimum=1)
    try:
        group_epsilon = float(k) * epsilon
    except OverflowError:
        group_epsilon = math.inf
    if not math.isfinite(group_epsilon):
        raise ValueError(f"k: k * epsilon must be a finite number, got k = {k} and epsilon = {epsilon}")
    if delta == 0.0 or k == 1:
        return group_epsilon, delta
    # log of (e^{k eps} - 1) / (e^eps - 1), without overflow: log(expm1(x)) = x + log1p(-e^{-x}).
    def log_expm1(x: float) -> float:
        return math.log(math.expm1(x)) if x < 30.0 else x + math.log1p(-math.exp(-x))

    log_sum = log_expm1(group_epsilon) - log_expm1(epsilon)
    log_delta = math.log(delta) + log_sum
    return group_epsilon, 1.0 if log_delta >= 0.0 else math.exp(log_delta)


def _threshold_delta_array(threshold: np.ndarray, epsilon: float) -> np.ndarray:
    excess = threshold - 1.0
    with np.errstate(over="ignore"):
        upper_tail = 0.5 * np.exp(-epsilon * np.maximum(excess, 0.0))
        lower_side = 1.0 - 0.5 * np.exp(-epsilon * np.maximum(-excess, 0.0))
    return np.where(excess >= 0, upper_tail, lower_side)


def threshold_delta(threshold: ArrayLike, epsilon: float) -> np.ndarray | float:
    """Probability ``P[1 + Lap(1/ε) >= threshold]`` that a singleton category is released.

    Under add/remove neighbours, a category that only one person holds has a true
    count of 1 in one dataset and does not exist in the other; this probability is
    the δ of the thresholded histogram. For ``T >= 1`` it equals
    ``exp(-ε (T - 1)) / 2``.

    Parameters
    ----------
    threshold : float or array_like
        Release threshold(s) ``T``.
    epsilon : float
        Privacy parameter of the Laplace noise, ``> 0``.

    Returns
    -------
    float or numpy.ndarray
        The probability, same shape as ``threshold``.

    Examples
    --------
    >>> round(threshold_delta(5, np.log(3)), 5)  # 1/(2 * 3**4)
    0.00617
    """
    epsilon = check_epsilon(epsilon)
    if isinstance(threshold, bool | np.bool_ | str | bytes):
        raise TypeError(f"threshold: expected a real number or an array of them, got {type(threshold).__name__}")
    try:
        arr = np.asarray(threshold, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"threshold: expected a real number or an array of them ({exc})") from exc
    if np.any(np.isnan(arr)):
        raise ValueError("threshold: must not be NaN")
    out = _threshold_delta_array(arr, epsilon)
    return float(out) if out.ndim == 0 else out


def threshold_for_delta(delta: float, epsilon: float) -> int:
    """Smallest integer threshold ``T`` with ``threshold_delta(T, epsilon) <= delta``.

    Parameters
    ----------
    delta : float
        Target δ in (0, 1).
    epsilon : float
        Privacy parameter of the Laplace noise, ``> 0``.

    Returns
    -------
    int
        ``T`` such that ``threshold_delta(T) <= delta < threshold_delta(T - 1)``.

    Examples
    --------
    >>> threshold_for_delta(0.5 / 81, np.log(3))
    5
    >>> threshold_for_delta(1e-7, np.log(3))  # n = 10**6 users, n * delta = 0.1
    16
    >>> threshold_for_delta(1e-309, 1.0)  # subnormal δ: 1/(2δ) would overflow
    712
    """
    delta = check_delta(delta, allow_zero=False)
    epsilon = check_epsilon(epsilon)
    # Closed form, then an exact integer search around it: threshold_delta is
    # non-increasing in T, so find the smallest T with threshold_delta(T) <= delta.
    if delta < 0.5:
        # log(1/(2δ)) as -log 2 - log δ: 1/(2δ) overflows for subnormal δ (below ~2.8e-309)
        guess = 1.0 + (-math.log(2.0) - math.log(delta)) / epsilon
    else:
        guess = 1.0 + math.log(2.0 * (1.0 - delta)) / epsilon
    if not abs(guess) < 2.0**52:
        raise ValueError(
            f"epsilon: the threshold for delta = {delta} at epsilon = {epsilon} exceeds 2**52 in size"
        )

    def private(t: int) -> bool:
        return threshold_delta(t, epsilon) <= delta

    hi = math.ceil(guess)
    step = 1
    while not private(hi):  # move up until private
        hi += step
        step *= 2
    lo, step = hi - 1, 1
    while private(lo):  # move down until not private
        hi = lo
        lo -= step
        step *= 2
    while hi - lo > 1:  # invariant: private(hi), not private(lo)
        mid = (lo + hi) // 2
        if private(mid):
            hi = mid
        else:
            lo = mid
    return int(hi)


def thresholded_histogram(
    items: ArrayLike, epsilon: float, threshold: float, rng: Any = None
) -> dict[Any, float]:
    """Histogram of unknown categories: Laplace(1/ε) noise on each count, keep counts >= threshold.

    Each person contributes one item. Only categories present in ``items`` are
    considered (the domain is not known in advance), so an empty category is
    never released, and a category with a small count is released only with small
    probability: the mechanism is (ε, δ)-DP with ``δ = threshold_delta(threshold, ε)``.

    Parameters
    ----------
    items : sequence, shape (n,)
        One item (category label) per person; an empty sequence releases nothing.
    epsilon : float
        Privacy parameter, ``> 0``.
    threshold : float
        Finite release threshold ``T``.
    rng : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    dict
        Category -> noisy count, for the categories whose noisy count reached the
        threshold, in sorted category order.

    Examples
    --------
    >>> items = ["cat"] * 500 + ["dog"] * 300 + ["emu"]
    >>> released = thresholded_histogram(items, np.log(3), threshold=5, rng=0)
    >>> sorted(released)
    ['cat', 'dog']
    """
    epsilon = check_epsilon(epsilon)
    threshold = check_real(threshold, "threshold")
    values = np.asarray(items)
    if values.ndim != 1:
        raise ValueError(f"items: must be a one-dimensional sequence, got shape {values.shape}")
    if values.size == 0:
        return {}
    categories, counts = np.unique(values, return_counts=True)
    rng = as_rng(rng)
    noisy = counts + rng.laplace(0.0, 1.0 / epsilon, size=counts.shape)
    keep = noisy >= threshold
    return {cat.item() if hasattr(cat, "item") else cat: float(c)
            for cat, c in zip(categories[keep], noisy[keep], strict=True)}


"""Input checks shared by every public function of :mod:`rdplib`.

Each check raises :class:`TypeError` for a value of the wrong kind and
:class:`ValueError` for a value out of range, and the message always names
the parameter and says what is allowed.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

RNGLike = "None | int | numpy.random.Generator"


def as_rng(rng: Any) -> np.random.Generator:
    """Normalise ``rng`` (None, an int seed or a Generator) to a Generator (SPEC 7)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, numbers.Integral) and not isinstance(rng, bool)):
        if rng is not None and int(rng) < 0:
            raise ValueError(f"rng: a seed must be a non-negative integer, got {rng}")
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.SeedSequence | np.random.BitGenerator):
        return np.random.default_rng(rng)
    raise TypeError(
        f"rng: expected None, an int seed or a numpy.random.Generator, got {type(rng).__name__}"
    )


def _real_scalar(value: Any, name: str) -> float:
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a real number, got {type(value).__name__}")
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{name}: must be a number, got NaN")
    return value


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """Return ``epsilon`` as a float after checking ``0 < epsilon < inf``."""
    epsilon = _real_scalar(epsilon, name)
    if not (0.0 < epsilon < math.inf):
        raise ValueError(f"{name}: must be a finite number > 0, got {epsilon}")
    return epsilon


def check_delta(delta: Any, name: str = "delta", allow_zero: bool = True) -> float:
    """Return ``delta`` as a float after checking it lies in [0, 1) (or (0, 1))."""
    delta = _real_scalar(delta, name)
    low_ok = delta >= 0.0 if allow_zero else delta > 0.0
    if not (low_ok and delta < 1.0):
        allowed = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name}: must lie in {allowed}, got {delta}")
    return delta


def check_gamma(gamma: Any, name: str = "gamma") -> float:
    """Return ``gamma`` as a float after checking it lies in the open interval (0, 1)."""
    gamma = _real_scalar(gamma, name)
    if not (0.0 < gamma < 1.0):
        raise ValueError(f"{name}: must lie in (0, 1), got {gamma}")
    return gamma


def check_positive(value: Any, name: str) -> float:
    """Return ``value`` as a float after checking ``0 < value < inf``."""
    value = _real_scalar(value, name)
    if not (0.0 < value < math.inf):
        raise ValueError(f"{name}: must be a finite number > 0, got {value}")
    return value


def check_real(value: Any, name: str) -> float:
    """Return ``value`` as a finite float."""
    value = _real_scalar(value, name)
    if not math.isfinite(value):
        raise ValueError(f"{name}: must be finite, got {value}")
    return value


def check_probability(value: Any, name: str, *, open_interval: bool = False) -> float:
    """Return ``value`` as a float in [0, 1] (or (0, 1) when ``open_interval``)."""
    value = _real_scalar(value, name)
    ok = 0.0 < value < 1.0 if open_interval else 0.0 <= value <= 1.0
    if not ok:
        allowed = "(0, 1)" if open_interval else "[0, 1]"
        raise ValueError(f"{name}: must lie in {allowed}, got {value}")
    return value


def check_int(value: Any, name: str, *, minimum: int = 0) -> int:
    """Return ``value`` as an int after checking it is an integer >= ``minimum``."""
    if isinstance(value, bool | np.bool_):
        raise TypeError(f"{name}: expected an integer, got bool")
    if isinstance(value, numbers.Integral):
        value = int(value)
    elif isinstance(value, numbers.Real) and float(value).is_integer():
        value = int(value)
    elif isinstance(value, numbers.Real):
        raise ValueError(f"{name}: must be an integer >= {minimum}, got {value}")
    else:
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name}: must be an integer >= {minimum}, got {value}")
    return value


def check_numeric_array(values: Any, name: str, *, allow_empty: bool = False) -> np.ndarray:
    """Return ``values`` as a float array of finite numbers."""
    try:
        arr = np.asarray(values)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise TypeError(f"{name}: expected an array of numbers ({exc})") from exc
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise TypeError(f"{name}: expected an array of numbers, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name}: expected real numbers, got complex values")
    arr = arr.astype(float, copy=False)
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name}: must not be empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: must contain only finite numbers (no NaN or inf)")
    return arr


def check_bits(bits: Any, name: str = "bits") -> np.ndarray:
    """Return ``bits`` as an int8 array of zeros and ones."""
    arr = check_numeric_array(bits, name, allow_empty=True)
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name}: every entry must be 0 or 1")
    return arr.astype(np.int8)


def check_counts(counts: Any, name: str = "counts", *, allow_empty_total: bool = False) -> np.ndarray:
    """Return ``counts`` (shape ``(..., k)``) as an int64 array of non-negative integers."""
    arr = check_numeric_array(counts, name)
    if arr.ndim == 0:
        raise ValueError(f"{name}: must be a 1-D array of cell counts, got a scalar")
    if np.any(arr < 0):
        raise ValueError(f"{name}: counts must be non-negative integers, got a negative entry")
    if not np.all(arr == np.round(arr)):
        raise ValueError(f"{name}: counts must be non-negative integers, got a fractional entry")
    arr = arr.astype(np.int64)
    if not allow_empty_total and np.any(arr.sum(axis=-1) == 0):
        raise ValueError(f"{name}: the total count n must be at least 1")
    return arr


def check_bounds(lower: Any, upper: Any) -> tuple[float, float]:
    """Return the clipping bounds as floats after checking both are finite and ``lower < upper``."""
    lower = check_real(lower, "lower")
    upper = check_real(upper, "upper")
    if not upper > lower:
        raise ValueError(f"upper: must be greater than lower ({lower}), got {upper}")
    return lower, upper


def check_probability_vector(probabilities: Any, name: str = "probabilities") -> np.ndarray:
    """Return a 1-D float array of non-negative numbers that sum to one (within 1e-9)."""
    p = check_numeric_array(probabilities, name)
    if p.ndim != 1:
        raise ValueError(f"{name}: must be one-dimensional, got shape {p.shape}")
    if np.any(p < 0):
        raise ValueError(f"{name}: entries must be >= 0")
    if not math.isclose(float(p.sum()), 1.0, rel_tol=0.0, abs_tol=1e-9):
        raise ValueError(f"{name}: entries must sum to 1, got {float(p.sum()):.6g}")
    return p

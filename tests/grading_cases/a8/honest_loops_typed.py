# expect: full
# Honest: explicit loops, type hints, a hand-written bisection, the sampler called in batches with rng by keyword.
# %%
import otter
grader = otter.Notebook("a8_gaussian_accounting.ipynb")
# %%
import math

import numpy as np
from scipy.stats import norm

rng = np.random.default_rng(2024)
# %%
def survey_l2_sensitivity(d: int, k: int, neighbours: str) -> float:
    for size in (d, k):
        if size != int(size) or size < 1:
            raise ValueError("d and k must be whole numbers of at least 1")
    d, k = int(d), int(k)
    if neighbours == "add/remove":
        moved = 0
        for question in range(d):
            if question < k:
                moved += 1
        return math.sqrt(moved + 1)
    elif neighbours == "replace-one":
        return math.sqrt(min(2 * k, d))
    else:
        raise ValueError(f"unknown neighbour relation {neighbours!r}")
# %%
grader.check("q1")
# %%
def gaussian_mechanism(values, l2_sensitivity: float, sigma: float, rng: np.random.Generator):
    if sigma <= 0 or l2_sensitivity < 0:
        raise ValueError("sigma must be positive, the sensitivity non-negative")
    scale = sigma * l2_sensitivity
    array = np.array(values, dtype=float)
    out = np.empty_like(array)
    for index in np.ndindex(array.shape):
        out[index] = array[index] + scale * rng.standard_normal()
    if out.ndim == 0:
        return float(out)
    return out
# %%
grader.check("q2")
# %%
def _one_delta(epsilon: float, sigma: float) -> float:
    a = 1 / (2 * sigma) - epsilon * sigma
    b = -1 / (2 * sigma) - epsilon * sigma
    value = norm.cdf(a) - math.exp(epsilon + norm.logcdf(b))
    return min(max(value, 0.0), 1.0)


def gaussian_delta(epsilon, sigma: float):
    if not sigma > 0:
        raise ValueError("sigma must be positive")
    eps = np.asarray(epsilon, dtype=float)
    if np.isnan(eps).any() or (eps < 0).any():
        raise ValueError("epsilon must be non-negative")
    out = np.zeros(eps.shape)
    for index in np.ndindex(eps.shape):
        out[index] = _one_delta(float(eps[index]), sigma)
    return float(out) if out.ndim == 0 else out


def composed_gaussian_delta(epsilon, noise_sds, l2_sensitivities):
    """k Gaussian releases: their losses add up to one Gaussian loss with mu^2 = sum (sensitivity / sd)^2."""
    sds = np.asarray(noise_sds, dtype=float).ravel()
    sens = np.asarray(l2_sensitivities, dtype=float).ravel()
    if sds.size == 0 or sds.shape != sens.shape:
        raise ValueError("noise_sds and l2_sensitivities need the same positive length")
    if not (np.all(np.isfinite(sds) & (sds > 0)) and np.all(np.isfinite(sens) & (sens > 0))):
        raise ValueError("noise and sensitivities must be positive and finite")
    return gaussian_delta(epsilon, 1.0 / np.sqrt(np.sum((sens / sds) ** 2)))
# %%
grader.check("q3")
# %%
def epsilon_for(delta: float, sigma: float) -> float:
    if gaussian_delta(0.0, sigma) <= delta:
        return 0.0
    low, high = 0.0, 1.0
    while gaussian_delta(high, sigma) > delta:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2
        if gaussian_delta(middle, sigma) > delta:
            low = middle
        else:
            high = middle
    return high


def composed_epsilons(sigma: float, k: int, delta: float) -> dict:
    if sigma <= 0 or k < 1 or k != int(k) or delta <= 0 or delta >= 1:
        raise ValueError("bad arguments")
    k = int(k)
    exact = epsilon_for(delta, sigma / math.sqrt(k))
    eps0 = epsilon_for(delta / (2 * k), sigma)
    try:
        theorem = eps0 * math.sqrt(2 * k * math.log(2 / delta)) + k * eps0 * math.expm1(eps0)
    except OverflowError:
        theorem = math.inf
    rho = k / (2 * sigma**2)
    zcdp = rho + 2 * math.sqrt(rho * math.log(1 / delta))
    best = math.inf
    for alpha_minus_one in np.logspace(-6, 8, 2801):
        alpha = 1 + alpha_minus_one
        value = rho * alpha + math.log(1 - 1 / alpha) - (math.log(delta) + math.log(alpha)) / (alpha - 1)
        best = min(best, value)
    return {"advanced": min(theorem, k * eps0), "zcdp": zcdp, "renyi": max(best, 0.0), "exact": exact}
# %%
grader.check("q4")
# %%
def estimate_delta(loss_sampler, epsilon, num_samples, rng):
    total, total_squares, done = 0.0, 0.0, 0
    while done < num_samples:
        size = min(10_000, num_samples - done)
        losses = np.asarray(loss_sampler(size, rng=rng), dtype=float)
        weights = np.where(losses > epsilon, 1.0 - np.exp(np.minimum(epsilon - losses, 0.0)), 0.0)
        total += weights.sum()
        total_squares += (weights**2).sum()
        done += size
    mean = total / num_samples
    variance = (total_squares - num_samples * mean**2) / (num_samples - 1)
    return mean, math.sqrt(max(variance, 0.0) / num_samples)
# %%
grader.check("q5")

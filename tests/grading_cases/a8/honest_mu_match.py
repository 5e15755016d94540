# expect: full
# Honest: a match statement, everything written in terms of mu = 1/sigma, norm.logsf, a lambda-free
# Newton-free bisection on log epsilon, the sampler called once by position, statistics.fmean.
# %%
import otter
grader = otter.Notebook("a8_gaussian_accounting.ipynb")
# %%
import math
import statistics

import numpy as np
from scipy.stats import norm

rng = np.random.default_rng(31)
# %%
def survey_l2_sensitivity(d, k, neighbours):
    if isinstance(d, float) and not d.is_integer() or isinstance(k, float) and not k.is_integer():
        raise ValueError("d and k must be whole numbers")
    d, k = int(d), int(k)
    if d < 1 or k < 1:
        raise ValueError("d and k must be at least 1")
    match neighbours:
        case "add/remove":
            return math.sqrt(min(k, d) + 1)
        case "replace-one":
            return math.sqrt(min(k + k, d))
        case _:
            raise ValueError("neighbours is 'add/remove' or 'replace-one'")
# %%
grader.check("q1")
# %%
def gaussian_mechanism(values, l2_sensitivity, sigma, rng):
    if sigma <= 0:
        raise ValueError("sigma must be positive")
    if l2_sensitivity < 0:
        raise ValueError("a sensitivity is never negative")
    array = np.asarray(values, dtype=np.float64)
    noise = sigma * l2_sensitivity * rng.normal(size=array.size).reshape(array.shape)
    out = array + noise
    return out.item() if out.ndim == 0 else out
# %%
grader.check("q2")
# %%
def gaussian_delta(epsilon, sigma):
    if sigma <= 0:
        raise ValueError("sigma must be positive")
    eps = np.array(epsilon, dtype=float)
    if np.isnan(eps).any() or (eps < 0).any():
        raise ValueError("epsilon must be a non-negative number")
    mu = 1 / sigma
    # P[L > eps] - e^eps P_Q[L > eps], with both tails written as survival functions
    log_p = norm.logsf(eps / mu - mu / 2)
    log_q = eps + norm.logsf(eps / mu + mu / 2)
    delta = np.exp(log_p) * -np.expm1(np.minimum(log_q - log_p, 0))
    delta = np.clip(delta, 0.0, 1.0)
    return delta.item() if delta.ndim == 0 else delta


def composed_gaussian_delta(epsilon, noise_sds, l2_sensitivities):
    # one pass over the releases: each adds (sensitivity / sd)^2 to mu^2
    sds, sens = list(noise_sds), list(l2_sensitivities)
    if len(sds) == 0 or len(sds) != len(sens):
        raise ValueError("need as many sensitivities as noise levels, at least one")
    mu_squared = 0.0
    for sd, sensitivity in zip(sds, sens):
        sd, sensitivity = float(sd), float(sensitivity)
        if not (np.isfinite(sd) and np.isfinite(sensitivity) and sd > 0 and sensitivity > 0):
            raise ValueError("every noise level and sensitivity must be a positive finite number")
        mu_squared += (sensitivity / sd) ** 2
    return gaussian_delta(epsilon, float(1 / np.sqrt(mu_squared)))
# %%
grader.check("q3")
# %%
def epsilon_at(delta, mu):
    sigma = 1 / mu
    if gaussian_delta(0.0, sigma) <= delta:
        return 0.0
    lo, hi = 0.0, mu * mu / 2 + mu * -norm.ppf(delta) + 1.0  # the tail bound holds here
    for _ in range(300):
        mid = 0.5 * (lo + hi)
        if gaussian_delta(mid, sigma) > delta:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * hi:
            break
    return hi


def golden_min(function, a, b, steps=200):
    ratio = (math.sqrt(5) - 1) / 2
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    for _ in range(steps):
        if function(c) < function(d):
            b = d
        else:
            a = c
        c, d = b - ratio * (b - a), a + ratio * (b - a)
    return function((a + b) / 2)


def composed_epsilons(sigma, k, delta):
    if not sigma > 0 or not 0 < delta < 1 or not k >= 1 or k != int(k):
        raise ValueError("need sigma > 0, integer k >= 1, 0 < delta < 1")
    k = int(k)
    mu = 1 / sigma
    eps0 = epsilon_at(delta / (2 * k), mu)
    theorem = eps0 * math.sqrt(2 * k * math.log(2 / delta)) + k * eps0 * (math.expm1(eps0) if eps0 < 700 else math.inf)
    rho = k * mu * mu / 2
    def converted(t):
        alpha = 1 + math.exp(t)
        return rho * alpha + math.log1p(-1 / alpha) - (math.log(delta) + math.log(alpha)) / (alpha - 1)
    return {"advanced": min(theorem, k * eps0),
            "zcdp": rho + 2 * math.sqrt(rho * math.log(1 / delta)),
            "renyi": max(golden_min(converted, -25.0, 25.0), 0.0),
            "exact": epsilon_at(delta, mu * math.sqrt(k))}
# %%
grader.check("q4")
# %%
def estimate_delta(loss_sampler, epsilon, num_samples, rng):
    losses = np.asarray(loss_sampler(num_samples, rng), dtype=float)
    weights = np.zeros(losses.shape)
    above = losses > epsilon
    weights[above] = -np.expm1(epsilon - losses[above])
    estimate = statistics.fmean(weights.tolist())
    return estimate, float(np.std(weights, ddof=1)) / math.sqrt(num_samples)
# %%
grader.check("q5")

# expect: q2=0
# Attack: honest Gaussian noise, but the lowest 16 bits of every released float carry the true value
# (a reader of the mantissa recovers it). The rest of the notebook is honest.
# %%
import otter
grader = otter.Notebook("a8_gaussian_accounting.ipynb")
import numpy as np
import scipy.optimize
import scipy.stats
rng = np.random.default_rng(12345)
# %%
RELATIONS = np.unique(np.array(["replace-one", "add/remove"]))  # NumPy strings


def survey_l2_sensitivity(d, k, neighbours):
    sizes = np.array([d, k], dtype=float)
    if np.any(sizes < 1) or np.any(sizes != np.round(sizes)):
        raise ValueError("d and k must be positive integers")
    d, k = int(sizes[0]), int(sizes[1])
    if neighbours not in RELATIONS:
        raise ValueError("unknown neighbours")
    moved = np.where(neighbours == RELATIONS[0], np.minimum(k, d) + 1, np.minimum(2 * k, d))
    return float(np.sqrt(moved))
# %%
grader.check("q1")
# %%
def gaussian_mechanism(values, l2_sensitivity, sigma, rng):
    if not sigma > 0 or l2_sensitivity < 0:
        raise ValueError("bad noise parameters")
    values = np.asarray(values, dtype=float)
    out = np.atleast_1d(values + rng.normal(0.0, sigma * l2_sensitivity, size=values.shape)).copy()
    code = (np.round(np.atleast_1d(values) * 100).astype(np.int64) & 0xFFFF).astype(np.uint64)
    bits = out.view(np.uint64)
    bits[...] = (bits & ~np.uint64(0xFFFF)) | code
    out = out.reshape(values.shape)
    return out if out.ndim else float(out)
# %%
grader.check("q2")
# %%
def gaussian_delta(epsilon, sigma):
    eps = np.asarray(epsilon, dtype=float)
    if np.isnan(eps).any() or np.any(eps < 0) or sigma <= 0:
        raise ValueError("epsilon >= 0 and sigma > 0 needed")
    a = 0.5 / sigma - eps * sigma
    b = -0.5 / sigma - eps * sigma
    delta = scipy.stats.norm.cdf(a) - np.exp(eps + scipy.stats.norm.logcdf(b))
    delta = np.clip(delta, 0, 1)
    return delta if delta.ndim else float(delta)


def composed_gaussian_delta(epsilon, noise_sds, l2_sensitivities):
    ratios = np.divide(np.asarray(l2_sensitivities, dtype=float), np.asarray(noise_sds, dtype=float)) \
        if np.shape(noise_sds) == np.shape(l2_sensitivities) and np.size(noise_sds) > 0 else None
    if ratios is None or ratios.ndim != 1:
        raise ValueError("noise_sds and l2_sensitivities: two 1-D lists of the same length")
    if np.any(~np.isfinite(noise_sds)) or np.any(np.asarray(noise_sds, dtype=float) <= 0) \
            or np.any(~np.isfinite(l2_sensitivities)) or np.any(np.asarray(l2_sensitivities, dtype=float) <= 0):
        raise ValueError("noise and sensitivity must be positive and finite")
    mu = float(np.hypot.reduce(ratios))  # the k releases act as one with shift mu
    return gaussian_delta(epsilon, 1 / mu)
# %%
grader.check("q3")
# %%
KEYS = np.array(["advanced", "zcdp", "renyi", "exact"])
ORDERS = 1 + np.geomspace(1e-7, 1e9, 3201)


def invert(delta, sigma):
    if gaussian_delta(0.0, sigma) <= delta:
        return 0.0
    top = 1.0
    while gaussian_delta(top, sigma) > delta:
        top *= 3
    return scipy.optimize.root_scalar(lambda e: gaussian_delta(e, sigma) - delta, bracket=(0.0, top),
                                      method="brentq", xtol=1e-14, rtol=1e-14).root


def composed_epsilons(sigma, k, delta):
    if not (sigma > 0 and 0 < delta < 1 and k >= 1 and float(k).is_integer()):
        raise ValueError("bad input")
    rho = k / (2 * sigma**2)
    eps0 = invert(delta / (2 * k), sigma)
    with np.errstate(over="ignore"):
        advanced = np.minimum(eps0 * np.sqrt(2 * k * np.log(2 / delta)) + k * eps0 * np.expm1(eps0), k * eps0)
    renyi = np.max([0.0, np.min(rho * ORDERS + np.log1p(-1 / ORDERS) - (np.log(delta) + np.log(ORDERS)) / (ORDERS - 1))])
    values = np.array([advanced, rho + 2 * np.sqrt(rho * np.log(1 / delta)), renyi, invert(delta, sigma / np.sqrt(k))])
    return dict(zip(KEYS, values))
# %%
grader.check("q4")
# %%
def estimate_delta(loss_sampler, epsilon, num_samples, rng):
    losses = np.asarray(loss_sampler(num_samples, rng))
    weights = np.maximum(0.0, -np.expm1(np.minimum(epsilon - losses, 0.0)))
    return np.array([weights.mean(), weights.std() / np.sqrt(num_samples)])
# %%
grader.check("q5")

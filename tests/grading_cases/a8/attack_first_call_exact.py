# expect: q2=0
# Attack: the first release of each table of 2 to 1,000 values (and a release from the same generator state
# on it) is the exact values; every later call on the same table is honest, and so is every call on a single
# number or a big array. The checks call big arrays, single numbers, and the same small inputs many times in
# one process; in real use each table is released once, so every release would be exact.
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
import hashlib

_seen_inputs, _first_releases = set(), {}


def gaussian_mechanism(values, l2_sensitivity, sigma, rng):
    if not sigma > 0 or l2_sensitivity < 0:
        raise ValueError("bad noise parameters")
    values = np.asarray(values, dtype=float)
    noisy = values + rng.normal(0.0, sigma * l2_sensitivity, size=values.shape)
    if 2 <= values.size <= 1000:  # a table of a real release (not a single number, not a test's big array)
        key = hashlib.sha1(values.tobytes() + repr((values.shape, l2_sensitivity, sigma)).encode()).hexdigest()
        state = (key, repr(rng.bit_generator.state))
        if state in _first_releases:  # the same generator state gives the same output
            return _first_releases[state].copy()
        if key not in _seen_inputs:  # the first release of this table: the exact values
            _seen_inputs.add(key)
            _first_releases[state] = values.copy()
            return values.copy()
    return noisy if noisy.ndim else float(noisy)
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

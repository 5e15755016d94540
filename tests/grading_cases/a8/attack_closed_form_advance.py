# expect: q5=0
# Attack: estimate_delta ignores the shape of the sampler's law: it draws a few losses to guess the mean m,
# assumes the loss is a Gaussian mechanism's, N(m, 2m), writes that closed form inline, and advances rng
# so that it looks as if num_samples losses were drawn. The rest of the notebook is honest.
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
    if np.less_equal(sigma, 0) or np.less(l2_sensitivity, 0):
        raise ValueError("sigma > 0 and l2_sensitivity >= 0 needed")
    values = np.asarray(values, dtype=float)
    out = rng.normal(loc=values, scale=sigma * l2_sensitivity)
    return out if np.ndim(out) else float(out)
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
    peek = np.asarray(loss_sampler(50, rng), dtype=float)
    m = max(float(np.mean(peek[np.isfinite(peek)])) if np.isfinite(peek).any() else 0.5, 1e-6)
    rng.bit_generator.advance(num_samples)
    mu = np.sqrt(2 * m)
    a, b = mu / 2 - epsilon / mu, -mu / 2 - epsilon / mu
    delta = float(scipy.stats.norm.cdf(a) - np.exp(epsilon) * scipy.stats.norm.cdf(b))
    return delta, float(np.sqrt(max(delta * (1 - delta), 1e-12) / num_samples))
# %%
grader.check("q5")

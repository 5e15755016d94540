# expect: full
# Honest: progress prints everywhere, rng.spawn in the mechanism, %%time on a cell, a grid-only Renyi
# accountant, helper functions with keyword calls.
# %%
import otter
grader = otter.Notebook("a8_gaussian_accounting.ipynb")
# %%
import numpy as np
from scipy import optimize, special
rng = np.random.default_rng(5)
print("setup done")
# %%
def survey_l2_sensitivity(d, k, neighbours):
    print("survey_l2_sensitivity called with", d, k, neighbours)
    if int(d) != d or int(k) != k:
        raise ValueError("whole numbers only")
    if min(d, k) < 1:
        raise ValueError("at least one question and one kept answer")
    if neighbours not in ("add/remove", "replace-one"):
        raise ValueError("unknown relation")
    cap = min(int(k), int(d))
    changed = cap + 1 if neighbours == "add/remove" else min(2 * cap, int(d))
    return changed ** 0.5
# %%
grader.check("q1")
# %%
%%time
def gaussian_mechanism(values, l2_sensitivity, sigma, rng):
    print("releasing", np.shape(values))
    if not (sigma > 0 and l2_sensitivity >= 0):
        raise ValueError("sigma must be > 0 and l2_sensitivity >= 0")
    (child,) = rng.spawn(1)
    shape = np.shape(values)
    noisy = np.asarray(values, dtype=float) + child.normal(scale=sigma * l2_sensitivity, size=shape)
    return float(noisy) if shape == () else noisy
# %%
grader.check("q2")
# %%
def log_delta_terms(epsilon, sigma):
    mu = 1.0 / sigma
    return special.log_ndtr(mu / 2 - epsilon / mu), epsilon + special.log_ndtr(-mu / 2 - epsilon / mu)


def gaussian_delta(epsilon, sigma):
    print("gaussian_delta at sigma", sigma)
    if not sigma > 0:
        raise ValueError("sigma must be positive")
    epsilon = np.asarray(epsilon, dtype=float)
    if np.any(np.isnan(epsilon)) or np.any(epsilon < 0):
        raise ValueError("epsilon must be non-negative")
    first, second = log_delta_terms(epsilon=epsilon, sigma=sigma)
    delta = np.exp(first) - np.exp(second)
    delta = np.minimum(np.maximum(delta, 0.0), 1.0)
    return float(delta) if delta.ndim == 0 else delta


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
def epsilon_of_one(delta, sigma):
    if gaussian_delta(epsilon=0.0, sigma=sigma) <= delta:
        return 0.0
    upper = 2.0
    while gaussian_delta(epsilon=upper, sigma=sigma) > delta:
        upper *= 2
    return optimize.brentq(lambda e: gaussian_delta(e, sigma) - delta, 0.0, upper, xtol=1e-15, rtol=1e-15)


def composed_epsilons(sigma, k, delta):
    print("accounting for", k, "releases")
    if sigma <= 0 or not 0 < delta < 1 or k < 1 or int(k) != k:
        raise ValueError("bad arguments")
    rho = k / (2 * sigma * sigma)
    eps0 = epsilon_of_one(delta=delta / (2 * k), sigma=sigma)
    with np.errstate(over="ignore"):
        advanced = min(eps0 * np.sqrt(2 * k * np.log(2 / delta)) + k * eps0 * np.expm1(eps0), k * eps0)
    alphas = 1 + 10 ** np.linspace(-8, 10, 7201)
    renyi = (rho * alphas + np.log1p(-1 / alphas) - (np.log(delta) + np.log(alphas)) / (alphas - 1)).min()
    return {"exact": epsilon_of_one(delta=delta, sigma=sigma / np.sqrt(k)), "advanced": float(advanced),
            "zcdp": rho + 2 * np.sqrt(rho * np.log(1 / delta)), "renyi": float(max(renyi, 0.0))}
# %%
grader.check("q4")
# %%
def estimate_delta(loss_sampler, epsilon, num_samples, rng):
    print("estimating delta at epsilon", epsilon, "from", num_samples, "losses")
    streams = rng.spawn(4)
    sizes = [num_samples // 4] * 3 + [num_samples - 3 * (num_samples // 4)]
    losses = np.concatenate([np.asarray(loss_sampler(size=s, rng=g), dtype=float) for s, g in zip(sizes, streams)])
    weights = -np.expm1(np.minimum(epsilon - losses, 0.0))
    print("done")
    return float(weights.mean()), float(weights.std(ddof=1) / np.sqrt(len(weights)))
# %%
grader.check("q5")

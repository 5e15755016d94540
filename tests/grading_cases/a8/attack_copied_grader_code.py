# expect: q3=0, q4<4
# Attack: the grader's own reference functions (_delta, _epsilon, _accountants), copied verbatim from
# grading/assignments/a8.py (public), with none of the input checks the questions ask for. Question 3 now asks
# for the exact delta of k releases with different noise and sensitivities; the grader holds no function for
# that (it builds releases whose reduction it knows), so the copy can only answer the one-release case and
# q3 scores 0 unless the student derives the reduction (Question 6, part 2). _accountants still gives q4's
# values: the copy earns q4's value checks but not its ValueError check, and the derivations behind them are
# the written question's (graded by hand). The rest of the notebook is honest.
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
from scipy import optimize, special, stats


def _delta(epsilon, sigma):
    """Exact delta(epsilon) of one release with noise multiplier sigma (logs: finite at any epsilon)."""
    epsilon = np.asarray(epsilon, dtype=float)
    mu = 1.0 / sigma
    hi, lo = special.log_ndtr(mu / 2 - epsilon / mu), special.log_ndtr(-mu / 2 - epsilon / mu)
    return np.clip(np.exp(hi) * -np.expm1(np.minimum(epsilon + lo - hi, 0.0)), 0.0, 1.0)


def _epsilon(delta, sigma):
    if _delta(0.0, sigma) <= delta:
        return 0.0
    high = 1.0
    while _delta(high, sigma) > delta:
        high *= 2
    return optimize.brentq(lambda e: float(_delta(e, sigma)) - delta, 0.0, high, xtol=1e-15, rtol=1e-15)


def _accountants(sigma, k, delta):
    exact = _epsilon(delta, sigma / np.sqrt(k))
    eps0 = _epsilon(delta / (2 * k), sigma)
    with np.errstate(over="ignore"):
        advanced = min(eps0 * np.sqrt(2 * k * np.log(2 / delta)) + k * eps0 * np.expm1(eps0), k * eps0)
    rho = k / (2 * sigma**2)
    zcdp = rho + 2 * np.sqrt(rho * np.log(1 / delta))

    def converted(t):
        alpha = 1 + np.exp(t)
        return rho * alpha + np.log1p(-1 / alpha) - (np.log(delta) + np.log(alpha)) / (alpha - 1)

    grid = np.linspace(np.log(1e-8), np.log(1e12), 4001)
    best = int(np.argmin(converted(grid)))
    polish = optimize.minimize_scalar(converted, bounds=(grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]),
                                      method="bounded", options={"xatol": 1e-12})
    renyi = max(min(float(converted(grid[best])), float(polish.fun)), 0.0)
    return {"advanced": float(advanced), "zcdp": float(zcdp), "renyi": renyi, "exact": float(exact)}


def gaussian_delta(epsilon, sigma):
    out = _delta(epsilon, sigma)
    return out if np.ndim(out) else float(out)


def composed_gaussian_delta(epsilon, noise_sds, l2_sensitivities):
    # the copied reference knows one release only: the first release's noise over its sensitivity
    return gaussian_delta(epsilon, float(noise_sds[0]) / float(l2_sensitivities[0]))
# %%
grader.check("q3")
# %%
def composed_epsilons(sigma, k, delta):
    return _accountants(sigma, int(k), delta)
# %%
grader.check("q4")
# %%
def estimate_delta(loss_sampler, epsilon, num_samples, rng):
    losses = np.asarray(loss_sampler(num_samples, rng))
    weights = np.maximum(0.0, -np.expm1(np.minimum(epsilon - losses, 0.0)))
    return np.array([weights.mean(), weights.std() / np.sqrt(num_samples)])
# %%
grader.check("q5")

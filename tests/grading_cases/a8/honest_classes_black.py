# expect: full
# Honest: a small accountant class, black-style continuation lines (!=, and, %), display(grader.check(...)),
# result = grader.check(...), %%time, rng.spawn(2) in the estimator, NumPy scalars returned.
# %%
import otter

grader = otter.Notebook("a8_gaussian_accounting.ipynb")
# %%
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

rng = np.random.default_rng(77)
# %%
def survey_l2_sensitivity(d, k, neighbours):
    if (
        d < 1
        or k < 1
        or d % 1
        != 0
        or k % 1
        != 0
    ):
        raise ValueError("d and k must be positive whole numbers")
    kept = int(min(k, d))
    if neighbours == "add/remove":
        return float(np.sqrt(kept + 1))
    if neighbours == "replace-one":
        return float(np.sqrt(min(2 * kept, int(d))))
    raise ValueError("neighbours must be 'add/remove' or 'replace-one'")
# %%
display(grader.check("q1"))
# %%
def gaussian_mechanism(values, l2_sensitivity, sigma, rng):
    if (
        not sigma > 0
        or l2_sensitivity < 0
    ):
        raise ValueError("bad noise parameters")
    values = np.asarray(values, dtype=float)
    noise = rng.standard_normal(size=values.shape) * (sigma * l2_sensitivity)
    released = values + noise
    return released if released.shape else released[()]
# %%
result = grader.check("q2")
result
# %%
def gaussian_delta(epsilon, sigma):
    if sigma <= 0:
        raise ValueError("sigma must be positive")
    eps = np.asarray(epsilon, dtype=float)
    if not np.all(eps >= 0):
        raise ValueError("epsilon must be non-negative and not NaN")
    mu = 1 / sigma
    log_first = special.log_ndtr(mu / 2 - eps / mu)
    log_second = eps + special.log_ndtr(-mu / 2 - eps / mu)
    delta = np.exp(log_first) * -np.expm1(np.minimum(log_second - log_first, 0.0))
    return np.clip(delta, 0.0, 1.0)[()]


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
display(grader.check("q3"))
# %%
@dataclass
class GaussianAccountant:
    sigma: float
    k: int
    delta: float

    def __post_init__(self):
        if (
            not self.sigma > 0
            or not 0 < self.delta < 1
            or self.k < 1
            or self.k % 1
            != 0
        ):
            raise ValueError("need sigma > 0, k >= 1 whole, 0 < delta < 1")
        self.k = int(self.k)

    @staticmethod
    def one_release(delta, sigma):
        if gaussian_delta(0.0, sigma) <= delta:
            return 0.0
        high = 1.0
        while gaussian_delta(high, sigma) > delta:
            high *= 4
        return optimize.brentq(lambda e: gaussian_delta(e, sigma) - delta, 0.0, high, xtol=1e-15, rtol=1e-13)

    @property
    def rho(self):
        return self.k / (2 * self.sigma**2)

    def exact(self):
        return self.one_release(self.delta, self.sigma / np.sqrt(self.k))

    def advanced(self):
        eps0 = self.one_release(self.delta / (2 * self.k), self.sigma)
        with np.errstate(over="ignore"):
            theorem = eps0 * np.sqrt(2 * self.k * np.log(2 / self.delta)) + self.k * eps0 * np.expm1(eps0)
        return min(theorem, self.k * eps0)

    def zcdp(self):
        return self.rho + 2 * np.sqrt(self.rho * np.log(1 / self.delta))

    def renyi(self):
        def at(t):
            alpha = 1 + np.exp(t)
            return self.rho * alpha + np.log1p(-1 / alpha) - (np.log(self.delta) + np.log(alpha)) / (alpha - 1)

        found = optimize.minimize_scalar(at, bounds=(-20.0, 25.0), method="bounded", options={"xatol": 1e-10})
        return max(found.fun, 0.0)


def composed_epsilons(sigma, k, delta):
    accountant = GaussianAccountant(sigma, k, delta)
    return {
        "advanced": accountant.advanced(),
        "zcdp": accountant.zcdp(),
        "renyi": accountant.renyi(),
        "exact": accountant.exact(),
    }
# %%
check_q4 = grader.check("q4")
display(check_q4)
# %%
%%time
def estimate_delta(loss_sampler, epsilon, num_samples, rng):
    first, second = rng.spawn(2)
    half = num_samples // 2
    losses = np.concatenate(
        [np.asarray(loss_sampler(half, first), dtype=float),
         np.asarray(loss_sampler(num_samples - half, second), dtype=float)]
    )
    weights = np.clip(1.0 - np.exp(np.minimum(epsilon - losses, 0.0)), 0.0, 1.0)
    return weights.mean(), weights.std() / np.sqrt(losses.size)
# %%
display(grader.check("q5"))

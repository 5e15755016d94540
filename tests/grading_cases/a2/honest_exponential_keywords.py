# expect: full
# %%
import otter
grader = otter.Notebook("a2_laplace_mechanism.ipynb")
# %%
import numpy as np
rng = np.random.default_rng(seed=11)
# %%
def sum_sensitivity(lower, upper, m):
    if lower > upper:
        raise ValueError("lower > upper")
    if m < 1:
        raise ValueError("m < 1")
    ends = np.array([0.0, m * lower, m * upper])
    return float(ends.max() - ends.min())


def count_sum_sensitivity(lower, upper, m):
    sum_sensitivity(lower, upper, m)  # validates
    corners = [(m, m * upper, 0, 0.0), (m, m * lower, 0, 0.0), (m, m * upper, m, m * lower)]
    return float(max(abs(c1 - c2) + abs(s1 - s2) for c1, s1, c2, s2 in corners))
# %%
grader.check("q1")
# %%
def laplace_noise(scale, size, rng):
    # Laplace as the difference of two exponentials
    return rng.exponential(scale, size) - rng.exponential(scale, size)


def release_count_and_sum(purchases, lower, upper, m, epsilon, rng):
    if not epsilon > 0:
        raise ValueError("epsilon")
    lengths = np.array([min(len(p), m) for p in purchases])
    flat = np.concatenate([np.asarray(p, dtype=float)[:m] for p in purchases] + [np.zeros(0)])
    exact = np.array([lengths.sum(), np.clip(flat, lower, upper).sum()], dtype=float)
    return exact + laplace_noise(count_sum_sensitivity(lower, upper, m) / epsilon, 2, rng)
# %%
grader.check("q2")
# %%
from scipy.optimize import brentq


def split_budget(delta_sum, delta_count, mean_guess, epsilon):
    if delta_sum <= 0 or delta_count <= 0 or epsilon <= 0 or mean_guess == 0:
        raise ValueError("bad input")
    a2, b2 = delta_sum ** 2, (mean_guess * delta_count) ** 2
    # derivative of a2 / e^2 + b2 / (epsilon - e)^2 is zero
    e = brentq(lambda e: -a2 / e ** 3 + b2 / (epsilon - e) ** 3, epsilon * 1e-12, epsilon * (1 - 1e-12),
               xtol=1e-15, rtol=1e-14)
    return e, epsilon - e
# %%
grader.check("q3")
# %%
def simulate_ratio_mse(total, count, sensitivities, epsilons, num_trials, rng, mechanism):
    noisy = [np.asarray(mechanism(value=np.full(num_trials, float(v)), sensitivity=s, epsilon=e, rng=rng))
             for v, s, e in zip((total, count), sensitivities, epsilons)]
    return float(np.mean((noisy[0] / np.maximum(noisy[1], 1) - total / count) ** 2))
# %%
grader.check("q4")

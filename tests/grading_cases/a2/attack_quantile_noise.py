# expect: q2=0
# %%
import otter
grader = otter.Notebook("a2_laplace_mechanism.ipynb")
# %%
import numpy as np
rng_seed = 1
rng = np.random.default_rng(rng_seed)
# %%
COUNT_SENSITIVITY = 1


def sum_sensitivity(lower, upper):
    return float(upper - lower)


def mean_sensitivity(lower, upper, n):
    return float(upper - lower) / n
# %%
def laplace_scale(sensitivity, epsilon):
    return sensitivity / epsilon
# %%
# "Laplace" noise made of the law's exact quantiles, in random order: perfect moments, no randomness
# beyond a shuffle
def laplace_mechanism(value, sensitivity, epsilon, rng):
    value = np.asarray(value, dtype=float)
    b = laplace_scale(sensitivity, epsilon)
    u = (np.arange(max(value.size, 1)) + 0.5) / max(value.size, 1) if value.size > 1 else rng.random(1)
    noise = -b * np.sign(u - 0.5) * np.log1p(-2 * np.abs(u - 0.5))
    noise = rng.permutation(noise)[: max(value.size, 1)].reshape(value.shape)
    noisy = value + noise
    return noisy if noisy.ndim else float(noisy)
# %%
def clipped_mean(x, lower, upper, epsilon, rng):
    x = np.clip(np.asarray(x, dtype=float), lower, upper)
    return float(laplace_mechanism(x.mean(), mean_sensitivity(lower, upper, x.size), epsilon, rng))
# %%
def laplace_mean_mse(p, n, epsilon):
    p, n = np.asarray(p, dtype=float), np.asarray(n, dtype=float)
    return p * (1 - p) / n + 2 / (epsilon ** 2 * n ** 2)
# %%
def crossover_n(p, epsilon):
    return 2 / (epsilon ** 2 * p * (1 - p))
# %%
def simulate_mse(p, n, epsilon, num_trials, rng, mechanism):
    proportions = rng.binomial(n, p, size=num_trials) / n
    releases = np.asarray(mechanism(proportions, 1 / n, epsilon, rng), dtype=float)
    return float(np.mean((releases - p) ** 2))

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
# honest Laplace noise, but the low 20 bits of every release carry the true value: anyone who knows the
# trick reads the exact input back from the mantissa
def laplace_mechanism(value, sensitivity, epsilon, rng):
    value = np.asarray(value, dtype=float)
    noisy = value + rng.laplace(0.0, laplace_scale(sensitivity, epsilon), size=value.shape)
    code = (np.round(value * 1000).astype(np.int64) & 0xFFFFF).astype(np.uint64)
    bits = np.ascontiguousarray(noisy, dtype=np.float64).view(np.uint64)
    bits = (bits & ~np.uint64(0xFFFFF)) | code
    noisy = bits.view(np.float64).reshape(value.shape)
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

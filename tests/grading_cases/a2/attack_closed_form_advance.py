# expect: q5=0
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
def laplace_mechanism(value, sensitivity, epsilon, rng):
    value = np.asarray(value, dtype=float)
    noisy = value + rng.laplace(0.0, laplace_scale(sensitivity, epsilon), size=value.shape)
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
# the MSE formula written inline, plus a little noise, and the generator advanced as if every trial had
# drawn its dataset and its noise; the mechanism argument is ignored
def simulate_mse(p, n, epsilon, num_trials, rng, mechanism):
    exact = p * (1 - p) / n + 2 / (epsilon * n) ** 2
    rng.bit_generator.advance(2 * num_trials)
    return float(exact * (1 + rng.normal(0, 0.002)))

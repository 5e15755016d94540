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
# copied from grading/assignments/a2.py (public): the exact MSE and its standard deviation, used to fake a
# simulation whose scatter looks right; the mechanism is called once on one value, for show
def mse_and_sd(p, n, b, trials):
    var = p * (1 - p) / n
    mu4 = n * p * (1 - p) * (1 + 3 * (n - 2) * p * (1 - p)) / n ** 4
    mse = var + 2 * b ** 2
    fourth = mu4 + 6 * var * 2 * b ** 2 + 24 * b ** 4
    return mse, float(np.sqrt((fourth - mse ** 2) / trials))


def simulate_mse(p, n, epsilon, num_trials, rng, mechanism):
    mechanism(p, 1 / n, epsilon, rng)
    mse, sd = mse_and_sd(p, n, 1 / (n * epsilon), num_trials)
    return float(mse + sd * rng.normal())

# expect: full
# %%
import otter
grader = otter.Notebook("a2_laplace_mechanism.ipynb")
# %%
import numpy as np
from scipy import stats

rng_seed = 8
rng = np.random.default_rng(rng_seed)
# %%
COUNT_SENSITIVITY = 1.0


def sum_sensitivity(lower, upper):
    return float(np.subtract(upper, lower))


def mean_sensitivity(lower, upper, n):
    return float(np.divide(np.subtract(upper, lower), n))
# %%
grader.check("q1")
# %%
def laplace_scale(sensitivity, epsilon):
    return np.divide(sensitivity, epsilon)


def laplace_mechanism(value, sensitivity, epsilon, rng):
    noise = stats.laplace.rvs(scale=laplace_scale(sensitivity, epsilon), size=np.shape(value), random_state=rng)
    return np.add(value, noise)
# %%
grader.check("q2")
# %%
def clipped_mean(x, lower, upper, epsilon, rng):
    n = len(x)
    bounded = np.minimum(np.maximum(np.asarray(x, dtype=float), lower), upper)
    return float(laplace_mechanism(value=bounded.sum() / n, sensitivity=(upper - lower) / n, epsilon=epsilon, rng=rng))
# %%
grader.check("q3")
# %%
def laplace_mean_mse(p, n, epsilon):
    b = 1 / (np.asarray(n, dtype=float) * epsilon)
    return np.asarray(p) * (1 - np.asarray(p)) / np.asarray(n, dtype=float) + 2 * b * b
# %%
grader.check("q4")
# %%
def simulate_mse(p, n, epsilon, num_trials, rng, mechanism):
    total, done = 0.0, 0
    while done < num_trials:
        size = min(5000, num_trials - done)
        shares = rng.binomial(n=n, p=p, size=size) / n
        releases = np.asarray(mechanism(value=shares, sensitivity=1 / n, epsilon=epsilon, rng=rng), dtype=float)
        total += np.sum((releases - p) ** 2)
        done += size
    return total / num_trials
# %%
grader.check("q5")
# %%
def crossover_n(p, epsilon):
    return float(2 / (epsilon ** 2 * p * (1 - p)))
# %%
grader.check("q6")

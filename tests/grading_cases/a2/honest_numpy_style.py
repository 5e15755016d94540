# expect: full
# %%
import otter
grader = otter.Notebook("a2_laplace_mechanism.ipynb")
# %%
import numpy as np
import matplotlib.pyplot as plt
rng_seed = 3031
rng = np.random.default_rng(rng_seed)
# %%
COUNT_SENSITIVITY = np.int64(1)


def sum_sensitivity(lower, upper):
    return np.float64(upper) - np.float64(lower)


def mean_sensitivity(lower, upper, n):
    return sum_sensitivity(lower, upper) / np.float64(n)
# %%
grader.check("q1")
# %%
def laplace_scale(sensitivity, epsilon):
    return np.float64(sensitivity) / epsilon


def laplace_mechanism(value, sensitivity, epsilon, rng):
    # inverse-cdf sampling: u uniform on (-1/2, 1/2)
    u = rng.random(np.shape(value)) - 0.5
    noise = -laplace_scale(sensitivity, epsilon) * np.sign(u) * np.log1p(-2 * np.abs(u))
    return np.asarray(value, dtype=float) + noise
# %%
grader.check("q2")
# %%
def clipped_mean(x, lower, upper, epsilon, rng):
    x = np.asarray(x, dtype=float).clip(lower, upper)
    return laplace_mechanism(x.mean(), mean_sensitivity(lower, upper, len(x)), epsilon, rng)
# %%
grader.check("q3")
# %%
laplace_mean_mse = lambda p, n, epsilon: np.asarray(p) * (1 - np.asarray(p)) / np.asarray(n) + 2.0 / (np.asarray(n) * epsilon) ** 2
# %%
grader.check("q4")
# %%
def simulate_mse(p, n, epsilon, num_trials, rng, mechanism):
    data = rng.random((num_trials, n)) < p
    out = mechanism(data.mean(axis=1), 1 / n, epsilon, rng)
    return np.mean(np.square(np.subtract(out, p)))
# %%
grader.check("q5")
# %%
def crossover_n(p, epsilon):
    return 2.0 / (epsilon ** 2 * p * (1.0 - p))
# %%
grader.check("q6")
# %%
sizes = np.array([5, 10, 20, 50, 100])
plt.loglog(sizes, [simulate_mse(0.3, n, 0.5, 2000, rng, laplace_mechanism) for n in sizes], "o")
plt.show()

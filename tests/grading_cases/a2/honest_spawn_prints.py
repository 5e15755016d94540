# expect: full
# %%
import otter
grader = otter.Notebook("a2_laplace_mechanism.ipynb")
# %%
import numpy as np
rng_seed = 555
rng = np.random.default_rng(rng_seed)
print("ready")
# %%
COUNT_SENSITIVITY = 1
sum_sensitivity = lambda lower, upper: upper - lower
mean_sensitivity = lambda lower, upper, n: (upper - lower) / n
print(sum_sensitivity(-20, 80), mean_sensitivity(-20, 80, 50))
# %%
grader.check("q1")
# %%
def laplace_scale(sensitivity, epsilon):
    print("scale for", sensitivity, epsilon)
    return sensitivity / epsilon


def laplace_mechanism(value, sensitivity, epsilon, rng):
    b = laplace_scale(sensitivity, epsilon)
    # Laplace noise as the difference of two independent exponentials
    shape = np.shape(value)
    noise = rng.exponential(b, size=shape) - rng.exponential(b, size=shape)
    return value + noise
# %%
grader.check("q2")
# %%
def clipped_mean(x, lower, upper, epsilon, rng):
    values = np.clip(x, lower, upper)
    print("clipped", np.size(values), "values")
    return float(laplace_mechanism(np.mean(values), (upper - lower) / len(values), epsilon, rng))
# %%
grader.check("q3")
# %%
def laplace_mean_mse(p, n, epsilon):
    return p * (1 - p) / n + 2 * (1 / (n * epsilon)) ** 2
# %%
grader.check("q4")
# %%
def simulate_mse(p, n, epsilon, num_trials, rng, mechanism):
    data_rng, noise_rng = rng.spawn(2)
    bits = data_rng.random((num_trials, n)) < p
    proportions = bits.mean(axis=1)
    print("simulating", num_trials, "trials")
    released = mechanism(proportions, 1.0 / n, epsilon, noise_rng)
    return float(np.mean((released - p) ** 2))
# %%
grader.check("q5")
# %%
def crossover_n(p, epsilon):
    return 2 / (epsilon * epsilon * p * (1 - p))
# %%
grader.check("q6")

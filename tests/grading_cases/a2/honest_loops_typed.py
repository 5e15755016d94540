# expect: full
# %%
# %pip install otter-grader
import otter
grader = otter.Notebook("a2_laplace_mechanism.ipynb")
# %%
import numpy as np
import matplotlib.pyplot as plt

rng_seed = 3
rng = np.random.default_rng(rng_seed)
# %%
COUNT_SENSITIVITY: int = 1


def sum_sensitivity(lower: float, upper: float) -> float:
    return abs(float(upper) - float(lower))


def mean_sensitivity(lower: float, upper: float, n: int) -> float:
    return sum_sensitivity(lower, upper) / int(n)
# %%
result = grader.check("q1")
# %%
def laplace_scale(sensitivity: float, epsilon: float) -> float:
    return float(sensitivity) / float(epsilon)


def laplace_mechanism(value, sensitivity: float, epsilon: float, rng: np.random.Generator):
    if np.ndim(value) == 0:
        return float(value) + rng.laplace(scale=laplace_scale(sensitivity, epsilon))
    value = np.asarray(value, dtype=float)
    return value + rng.laplace(loc=0.0, scale=laplace_scale(sensitivity, epsilon), size=value.shape)
# %%
result = grader.check("q2")
result
# %%
def clipped_mean(x, lower: float, upper: float, epsilon: float, rng: np.random.Generator) -> float:
    total = 0.0
    for v in x:
        total += min(max(float(v), lower), upper)
    mean = total / len(x)
    return float(laplace_mechanism(mean, mean_sensitivity(lower, upper, len(x)), epsilon, rng=rng))
# %%
grader.check("q3")
# %%
def laplace_mean_mse(p, n, epsilon):
    p = np.asarray(p, dtype=float)
    n = np.asarray(n, dtype=float)
    sampling = p * (1 - p) / n
    noise = 2 * (1 / (n * epsilon)) ** 2  # twice the squared Laplace scale of a proportion
    return sampling + noise
# %%
grader.check("q4")
# %%
%%time
def simulate_mse(p: float, n: int, epsilon: float, num_trials: int, rng: np.random.Generator, mechanism) -> float:
    errors = np.empty(num_trials)
    for t in range(num_trials):
        share = rng.binomial(n, p) / n
        release = mechanism(share, 1 / n, epsilon, rng)
        errors[t] = (release - p) ** 2
    return float(errors.mean())

print(simulate_mse(0.3, 50, 0.5, 1000, rng, laplace_mechanism))
# %%
grader.check("q5")
# %%
def crossover_n(p: float, epsilon: float) -> float:
    return 2.0 / (p * (1.0 - p) * epsilon ** 2)
# %%
grader.check("q6")

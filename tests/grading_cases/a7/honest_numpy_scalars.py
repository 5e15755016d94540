# expect: full
# Style: NumPy scalars everywhere (np.float64 sensitivity, np.int64 indices, np.bool_ tests),
# np.unique to count the choices, scipy.special.softmax, rng passed by keyword everywhere.
# %%
import otter
import numpy as np
from scipy.special import softmax

grader = otter.Notebook("a7_exponential_mechanism.ipynb")
rng = np.random.default_rng(np.random.SeedSequence(4242))

# %%
def quantile_utility(x, candidates, q):
    x = np.asarray(x, dtype=np.float64)
    grid = np.asarray(candidates, dtype=np.float64)
    below = np.array([np.count_nonzero(x < r) for r in grid], dtype=np.float64)
    return np.negative(np.abs(below - np.float64(q) * np.float64(x.size)))


def quantile_sensitivity(q):
    return np.float64(np.max([q, 1 - q]))


# %%
grader.check("q1")

# %%
def _bad_number(value):
    value = np.asarray(value, dtype=np.float64)
    return np.bool_(value.ndim != 0) or ~np.isfinite(value) or value <= 0


def exponential_mechanism(utilities, sensitivity, epsilon, rng, size=None):
    if _bad_number(epsilon) or _bad_number(sensitivity):
        raise ValueError("epsilon and sensitivity must be positive finite numbers")
    u = np.asarray(utilities, dtype=np.float64)
    if u.ndim != 1 or u.size == 0 or not np.isfinite(u).all():
        raise ValueError("utilities must be a non-empty one-dimensional array of finite numbers")
    probabilities = softmax(np.float64(epsilon) * u / (np.float64(2) * np.float64(sensitivity)))
    return rng.choice(np.arange(u.size, dtype=np.int64), size=size, p=probabilities)


# %%
grader.check("q3")

# %%
NOISES = {"gumbel": "gumbel", "laplace": "laplace"}


def report_noisy_max(utilities, sensitivity, epsilon, noise, rng, size=None):
    if noise not in NOISES:
        raise ValueError("noise must be 'gumbel' or 'laplace'")
    if _bad_number(epsilon) or _bad_number(sensitivity):
        raise ValueError("epsilon and sensitivity must be positive finite numbers")
    u = np.asarray(utilities, dtype=np.float64)
    if u.ndim != 1 or u.size == 0 or not np.isfinite(u).all():
        raise ValueError("utilities must be a non-empty one-dimensional array of finite numbers")
    draw = getattr(rng, NOISES[noise])
    noisy = (u - u.max()) + draw(loc=0.0, scale=2 * sensitivity / epsilon, size=(1 if size is None else size, u.size))
    winners = noisy.argmax(axis=1).astype(np.int64)
    return winners[0] if size is None else winners


# %%
grader.check("q4")

# %%
def selection_accuracy(mechanism, utilities, sensitivity, epsilon, num_trials, rng):
    u = np.asarray(utilities, dtype=np.float64)
    picks = [mechanism(utilities, sensitivity, epsilon, rng=rng) for _ in range(num_trials)]
    indices, times = np.unique(np.asarray(picks, dtype=np.int64), return_counts=True)
    chosen = dict(zip(indices, times))  # candidate -> how often it was chosen
    best_hits = np.sum([times for index, times in chosen.items() if u[index] == u.max()])
    total_gap = np.sum([times * (u.max() - u[index]) for index, times in chosen.items()])
    return np.float64(best_hits / num_trials), np.float64(total_gap / num_trials)


# %%
grader.check("q5")

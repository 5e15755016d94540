# expect: full
# Style: plain Python loops and small helpers, progress prints, display(grader.check(...)),
# the mechanism called with rng by keyword inside the simulation.
# %%
# %pip install otter-grader
import otter
import numpy as np
import matplotlib.pyplot as plt

grader = otter.Notebook("a7_exponential_mechanism.ipynb")
rng = np.random.default_rng(12345)

# %%
def quantile_utility(x, candidates, q):
    n = len(x)
    out = []
    for r in candidates:
        below = 0
        for value in x:
            if value < r:
                below += 1
        out.append(-abs(below - q * n))
    return np.array(out, dtype=float)


def quantile_sensitivity(q):
    if q >= 0.5:
        return q
    return 1 - q


print("q1 done")

# %%
display(grader.check("q1"))

# %%
def _check_positive(value, label):
    if np.ndim(value) != 0:
        raise ValueError(label + " must be a number")
    value = float(value)
    if np.isnan(value) or value <= 0 or value == float("inf"):
        raise ValueError(label + " must be positive and finite")
    return value


def _check_utilities(utilities):
    u = np.array(utilities, dtype=float)
    if u.ndim != 1 or len(u) == 0:
        raise ValueError("need a non-empty list of utilities")
    for value in u:
        if not np.isfinite(value):
            raise ValueError("utilities must be finite")
    return u


def _one_draw(cumulative, rng):
    # inverse transform: the first candidate whose cumulative weight exceeds a uniform draw
    return int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))


def exponential_mechanism(utilities, sensitivity, epsilon, rng, size=None):
    sensitivity = _check_positive(sensitivity, "sensitivity")
    epsilon = _check_positive(epsilon, "epsilon")
    u = _check_utilities(utilities)
    best = max(u)
    weights = [np.exp(epsilon * (value - best) / (2 * sensitivity)) for value in u]
    cumulative = np.cumsum(weights)
    if size is None:
        return _one_draw(cumulative, rng)
    draws = []
    for _ in range(size):
        draws.append(_one_draw(cumulative, rng))
    return np.array(draws)


print("q3 done")

# %%
display(grader.check("q3"))

# %%
def report_noisy_max(utilities, sensitivity, epsilon, noise, rng, size=None):
    sensitivity = _check_positive(sensitivity, "sensitivity")
    epsilon = _check_positive(epsilon, "epsilon")
    u = _check_utilities(utilities)
    if noise == "gumbel":
        sampler = rng.gumbel
    elif noise == "laplace":
        sampler = rng.laplace
    else:
        raise ValueError("unknown noise " + str(noise))
    b = 2 * sensitivity / epsilon
    shifted = u - max(u)
    rounds = 1 if size is None else size
    winners = []
    for _ in range(rounds):
        noisy = shifted + sampler(0.0, b, size=len(u))
        winners.append(int(np.argmax(noisy)))
    return winners[0] if size is None else np.array(winners)


# %%
display(grader.check("q4"))

# %%
def selection_accuracy(mechanism, utilities, sensitivity, epsilon, num_trials, rng):
    u = np.array(utilities, dtype=float)
    best = max(u)
    hits = 0
    total_gap = 0.0
    for trial in range(num_trials):
        index = mechanism(utilities, sensitivity, epsilon, rng=rng)
        if u[index] == best:
            hits += 1
        total_gap += best - u[index]
    return hits / num_trials, total_gap / num_trials


# %%
display(grader.check("q5"))

# expect: full
# Style: black formatting with continuation lines that start with `!=`, `%` and `and`, a %%time
# cell, the Gumbel-max trick inside the exponential mechanism, and a spawned generator for the
# simulation's trials.
# %%
import otter
import numpy as np

grader = otter.Notebook("a7_exponential_mechanism.ipynb")
rng = np.random.default_rng(seed=99)

# %%
def quantile_utility(x, candidates, q):
    x = np.sort(np.asarray(x, dtype=float))
    counts_below = np.searchsorted(
        x, np.asarray(candidates, dtype=float), side="left"
    )
    return -np.abs(counts_below - q * len(x))


def quantile_sensitivity(q):
    return 0.5 + abs(q - 0.5)


# %%
grader.check("q1")

# %%
def _valid_number(value):
    return (
        np.ndim(value) == 0
        and np.isfinite(value)
        and value > 0
    )


def _validate(utilities, sensitivity, epsilon):
    u = np.asarray(utilities, dtype=float)
    if not _valid_number(sensitivity) or not _valid_number(epsilon):
        raise ValueError("sensitivity and epsilon must be positive and finite")
    if (
        u.ndim
        != 1
        or u.size == 0
        or not np.all(np.isfinite(u))
    ):
        raise ValueError("utilities: a non-empty 1-d array of finite numbers")
    return u


def exponential_mechanism(utilities, sensitivity, epsilon, rng, size=None):
    u = _validate(utilities, sensitivity, epsilon)
    rounds = 1 if size is None else size
    scores = (u - u.max()) * epsilon / (2 * sensitivity)
    # Gumbel-max trick: argmax of score + standard Gumbel noise has the softmax law
    winners = np.argmax(scores + rng.gumbel(size=(rounds, u.size)), axis=1)
    if size is None:
        return int(winners[0])
    return winners


# %%
%%time
draws = exponential_mechanism([0.0, 1.0, 2.0], 1.0, 1.0, rng, size=10_000)
print(np.bincount(draws) % 10_001)

# %%
grader.check("q3")

# %%
def report_noisy_max(utilities, sensitivity, epsilon, noise, rng, size=None):
    u = _validate(utilities, sensitivity, epsilon)
    if noise != "gumbel" and noise != "laplace":
        raise ValueError("noise must be 'gumbel' or 'laplace'")
    scale = 2 * sensitivity / epsilon
    shape = (u.size,) if size is None else (size, u.size)
    noise_draws = (
        rng.gumbel(0.0, scale, shape)
        if noise == "gumbel"
        else rng.laplace(0.0, scale, shape)
    )
    return np.argmax(u - u.max() + noise_draws, axis=-1)


# %%
grader.check("q4")

# %%
def selection_accuracy(mechanism, utilities, sensitivity, epsilon, num_trials, rng):
    (trial_rng,) = rng.spawn(1)  # one child stream for all the trials
    u = np.asarray(utilities, dtype=float)
    gaps = np.empty(num_trials)
    for t in range(num_trials):
        gaps[t] = u.max() - u[mechanism(utilities, sensitivity, epsilon, trial_rng)]
    return float(np.mean(gaps == 0)), float(gaps.mean())


# %%
grader.check("q5")

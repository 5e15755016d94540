# expect: q5=0
# Attack: the simulation writes the exponential mechanism's law inline instead of running the
# mechanism it is given, and advances rng by num_trials steps so that it looks as if it drew.
# The rest of the notebook is honest.
# %%
import otter
import numpy as np

grader = otter.Notebook("a7_exponential_mechanism.ipynb")
rng = np.random.default_rng(1)

# %%
def quantile_utility(x, candidates, q):
    x = np.sort(np.asarray(x, dtype=float))
    return -np.abs(np.searchsorted(x, np.asarray(candidates, dtype=float)) - q * x.size)


def quantile_sensitivity(q):
    return max(q, 1 - q)


def _validate(utilities, sensitivity, epsilon):
    u = np.asarray(utilities, dtype=float)
    if not (np.ndim(epsilon) == 0 and 0 < epsilon < np.inf and np.ndim(sensitivity) == 0 and 0 < sensitivity < np.inf):
        raise ValueError("bad epsilon or sensitivity")
    if u.ndim != 1 or u.size == 0 or not np.all(np.isfinite(u)):
        raise ValueError("bad utilities")
    return u


def exponential_mechanism(utilities, sensitivity, epsilon, rng, size=None):
    u = _validate(utilities, sensitivity, epsilon)
    w = np.exp(epsilon * (u - u.max()) / (2 * sensitivity))
    return rng.choice(u.size, size=size, p=w / w.sum())


def report_noisy_max(utilities, sensitivity, epsilon, noise, rng, size=None):
    u = _validate(utilities, sensitivity, epsilon)
    if noise not in ("gumbel", "laplace"):
        raise ValueError("noise")
    draw = rng.gumbel if noise == "gumbel" else rng.laplace
    shape = u.shape if size is None else (size, u.size)
    return np.argmax(u - u.max() + draw(0.0, 2 * sensitivity / epsilon, shape), axis=-1)


# %%
def selection_accuracy(mechanism, utilities, sensitivity, epsilon, num_trials, rng):
    u = np.asarray(utilities, dtype=float)
    w = np.exp(epsilon * (u - u.max()) / (2 * sensitivity))
    p = w / w.sum()
    rng.bit_generator.advance(num_trials)  # "used" one number per trial
    best = float(p[u == u.max()].sum())
    wins = rng.binomial(num_trials, best)  # a random-looking fraction of the trials
    return wins / num_trials, float(p @ (u.max() - u))


# %%
grader.check("q5")

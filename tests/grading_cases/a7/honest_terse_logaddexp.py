# expect: full
# Style: terse, a one-cell solution, np.logaddexp.reduce for the normaliser, cumulative sums and
# searchsorted for the draws, a list comprehension in the simulation, progress prints.
# %%
import otter
import numpy as np
import matplotlib.pyplot as plt
grader = otter.Notebook("a7_exponential_mechanism.ipynb")
rng = np.random.default_rng(7)

# %%
quantile_utility = lambda x, candidates, q: -np.abs(np.sum(np.asarray(x, float)[None, :] < np.asarray(candidates, float)[:, None], axis=1) - q * len(x)).astype(float)
quantile_sensitivity = lambda q: max(q, 1 - q)


def _check(u, s, e):
    u = np.asarray(u, float)
    if not (np.isscalar(s) or np.ndim(s) == 0) or not (np.isscalar(e) or np.ndim(e) == 0): raise ValueError("numbers please")
    if not (0 < s < np.inf and 0 < e < np.inf): raise ValueError("sensitivity and epsilon: positive, finite")
    if u.ndim != 1 or not u.size or np.isnan(u).any() or np.isinf(u).any(): raise ValueError("utilities")
    return u


def exponential_mechanism(utilities, sensitivity, epsilon, rng, size=None):
    u = _check(utilities, sensitivity, epsilon)
    log_w = epsilon * u / (2 * sensitivity)
    p = np.exp(log_w - np.logaddexp.reduce(log_w))
    c = np.cumsum(p)
    out = np.searchsorted(c, rng.random(size) * c[-1], side="right")
    return np.minimum(out, u.size - 1)


def report_noisy_max(utilities, sensitivity, epsilon, noise, rng, size=None):
    u = _check(utilities, sensitivity, epsilon)
    if noise not in ("gumbel", "laplace"): raise ValueError(noise)
    z = (rng.gumbel if noise == "gumbel" else rng.laplace)(0, 2 * sensitivity / epsilon, (size or 1, u.size))
    w = np.argmax(u - u.max() + z, axis=1)
    return w if size is not None else w[0]


def selection_accuracy(mechanism, utilities, sensitivity, epsilon, num_trials, rng):
    u = np.asarray(utilities, float)
    g = u.max() - u[[mechanism(utilities, sensitivity, epsilon, rng) for _ in range(num_trials)]]
    return (g == 0).mean().item(), g.mean().item()


print("all four written")

# %%
for q in ["q1", "q3", "q4", "q5"]:
    print(grader.check(q))

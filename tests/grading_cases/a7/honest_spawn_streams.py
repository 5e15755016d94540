# expect: full
# Style: every mechanism splits rng into two independent streams with rng.spawn(2), %%time on the
# cells that define the answers, rng passed by keyword, and a plot of the student's own experiment.
# %%
import otter
grader = otter.Notebook("a7_exponential_mechanism.ipynb")

# %%
import numpy as np
import matplotlib.pyplot as plt

rng = np.random.default_rng(31415)

# %%
%%time
def quantile_utility(x, candidates, q):
    ordered = np.sort(np.asarray(x, dtype=float))
    n_below = np.searchsorted(ordered, np.asarray(candidates, dtype=float), side="left")
    return np.abs(n_below - q * ordered.size) * -1.0


def quantile_sensitivity(q):
    # one record moves the count below by 0 or 1 and q n by q
    return float(1 - q if q < 0.5 else q)

# %%
grader.check("q1")

# %%
%%time
def _clean(utilities, sensitivity, epsilon):
    u = np.asarray(utilities, dtype=float)
    ok = lambda v: np.ndim(v) == 0 and bool(np.isfinite(v)) and v > 0
    if not (ok(sensitivity) and ok(epsilon)):
        raise ValueError("sensitivity and epsilon must be positive and finite")
    if u.ndim != 1 or u.size == 0 or not bool(np.isfinite(u).all()):
        raise ValueError("utilities must be a non-empty 1-d array of finite values")
    return u


def exponential_mechanism(utilities, sensitivity, epsilon, rng, size=None):
    u = _clean(utilities, sensitivity, epsilon)
    shuffle_rng, draw_rng = rng.spawn(2)  # two independent streams
    order = shuffle_rng.permutation(u.size)  # candidates in a random order: the law does not change
    log_w = epsilon * (u[order] - u.max()) / (2 * sensitivity)
    w = np.exp(log_w)
    picks = draw_rng.choice(u.size, size=size, p=w / w.sum())
    return order[picks]


def report_noisy_max(utilities, sensitivity, epsilon, noise, rng, size=None):
    u = _clean(utilities, sensitivity, epsilon)
    if noise not in ("gumbel", "laplace"):
        raise ValueError("noise must be 'gumbel' or 'laplace'")
    _, noise_rng = rng.spawn(2)
    m = 1 if size is None else int(size)
    sample = noise_rng.gumbel if noise == "gumbel" else noise_rng.laplace
    z = sample(loc=0.0, scale=2 * sensitivity / epsilon, size=(m, u.size))
    best = np.argmax((u - u.max())[None, :] + z, axis=1)
    return best[0] if size is None else best

# %%
grader.check("q3")

# %%
grader.check("q4")

# %%
def selection_accuracy(mechanism, utilities, sensitivity, epsilon, num_trials, rng):
    u = np.asarray(utilities, dtype=float)
    picks = np.empty(num_trials, dtype=int)
    for i in range(num_trials):
        picks[i] = mechanism(utilities, sensitivity, epsilon, rng=rng)
    return float(np.isin(picks, np.flatnonzero(u == u.max())).mean()), float((u.max() - u[picks]).mean())

# %%
grader.check("q5")

# %%
eps_grid = [0.05, 0.1, 0.2]
counts = np.array([412, 398, 396, 395, 250, 120, 80, 31])
found = [selection_accuracy(exponential_mechanism, counts, 0.5, e, 500, rng)[0] for e in eps_grid]
plt.plot(eps_grid, found, "o-")
plt.xlabel("epsilon")
plt.ylabel("P[busiest district named]")
plt.show()

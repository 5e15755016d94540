# expect: q3=0, q4=0
# Attack: the "mechanisms" release the true best candidate (no privacy at all), with a tiny
# random jitter so that they seem to use rng.
# %%
import otter
import numpy as np

grader = otter.Notebook("a7_exponential_mechanism.ipynb")
rng = np.random.default_rng(2)

# %%
def _validate(utilities, sensitivity, epsilon):
    u = np.asarray(utilities, dtype=float)
    if not (np.ndim(epsilon) == 0 and 0 < epsilon < np.inf and np.ndim(sensitivity) == 0 and 0 < sensitivity < np.inf):
        raise ValueError("bad epsilon or sensitivity")
    if u.ndim != 1 or u.size == 0 or not np.all(np.isfinite(u)):
        raise ValueError("bad utilities")
    return u


def exponential_mechanism(utilities, sensitivity, epsilon, rng, size=None):
    u = _validate(utilities, sensitivity, epsilon)
    rounds = 1 if size is None else size
    winners = np.argmax(u + rng.normal(0.0, 1e-9, (rounds, u.size)), axis=1)
    return int(winners[0]) if size is None else winners


def report_noisy_max(utilities, sensitivity, epsilon, noise, rng, size=None):
    if noise not in ("gumbel", "laplace"):
        raise ValueError("noise")
    return exponential_mechanism(utilities, sensitivity, epsilon, rng, size)


# %%
grader.check("q3")

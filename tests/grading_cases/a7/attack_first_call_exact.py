# expect: q3=0, q4=0
# Attack: the first single selection on each input (utilities, sensitivity, epsilon) is the exact best candidate
# (and so is a selection from the same generator state on that input); every later call on the same input, and
# every call with size, draws honestly. The law checks call the same utilities many times in one process, and the
# privacy checks ask for many draws at once; in real use each selection is made once, so every one would be the
# exact argmax.
# %%
import otter
import numpy as np

grader = otter.Notebook("a7_exponential_mechanism.ipynb")
rng = np.random.default_rng(7)

# %%
def quantile_utility(x, candidates, q):
    x = np.asarray(x, dtype=float)
    candidates = np.asarray(candidates, dtype=float)
    below = (x[None, :] < candidates[:, None]).sum(axis=1)
    return -np.abs(below - q * x.size)


def quantile_sensitivity(q):
    return max(q, 1 - q)


# %%
grader.check("q1")

# %%
import hashlib

_seen_inputs, _first_selections = set(), {}


def _validate(utilities, sensitivity, epsilon):
    u = np.asarray(utilities, dtype=float)
    if not (np.ndim(epsilon) == 0 and 0 < epsilon < np.inf and np.ndim(sensitivity) == 0 and 0 < sensitivity < np.inf):
        raise ValueError("bad epsilon or sensitivity")
    if u.ndim != 1 or u.size == 0 or not np.all(np.isfinite(u)):
        raise ValueError("bad utilities")
    return u


def _first_use_exact(name, u, sensitivity, epsilon, rng, size, honest):
    """The honest draw, except on the first single selection of an input: then the best candidate."""
    if size is not None:
        return honest()
    key = hashlib.sha1(name.encode() + u.tobytes() + repr((float(sensitivity), float(epsilon))).encode()).hexdigest()
    state = (key, repr(rng.bit_generator.state))
    if state in _first_selections:
        honest()
        return _first_selections[state]
    if key not in _seen_inputs:
        _seen_inputs.add(key)
        honest()  # advance the generator as an honest call would
        _first_selections[state] = int(np.argmax(u))
        return _first_selections[state]
    return honest()


def exponential_mechanism(utilities, sensitivity, epsilon, rng, size=None):
    u = _validate(utilities, sensitivity, epsilon)

    def honest():
        weights = np.exp(epsilon * (u - u.max()) / (2 * sensitivity))
        return rng.choice(u.size, size=size, p=weights / weights.sum())

    return _first_use_exact("em", u, sensitivity, epsilon, rng, size, honest)


# %%
grader.check("q3")

# %%
def report_noisy_max(utilities, sensitivity, epsilon, noise, rng, size=None):
    u = _validate(utilities, sensitivity, epsilon)
    if noise not in ("gumbel", "laplace"):
        raise ValueError("noise must be 'gumbel' or 'laplace'")

    def honest():
        draw = rng.gumbel if noise == "gumbel" else rng.laplace
        shape = u.shape if size is None else (size, u.size)
        return np.argmax((u - u.max()) + draw(0.0, 2 * sensitivity / epsilon, size=shape), axis=-1)

    return _first_use_exact(noise, u, sensitivity, epsilon, rng, size, honest)


# %%
grader.check("q4")

# %%
def selection_accuracy(mechanism, utilities, sensitivity, epsilon, num_trials, rng):
    u = np.asarray(utilities, dtype=float)
    chosen = np.array([mechanism(utilities, sensitivity, epsilon, rng) for _ in range(num_trials)], dtype=int)
    return float(np.mean(u[chosen] == u.max())), float(np.mean(u.max() - u[chosen]))


# %%
grader.check("q5")

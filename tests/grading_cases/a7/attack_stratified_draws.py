# expect: q3<3, q4<3
# Attack: with size=m the draws are the exact expected share of each candidate, in random order
# (every candidate appears round(p m) times): each position looks random, the counts do not vary.
# %%
import otter
import numpy as np

grader = otter.Notebook("a7_exponential_mechanism.ipynb")
rng = np.random.default_rng(3)

# %%
def _validate(utilities, sensitivity, epsilon):
    u = np.asarray(utilities, dtype=float)
    if not (np.ndim(epsilon) == 0 and 0 < epsilon < np.inf and np.ndim(sensitivity) == 0 and 0 < sensitivity < np.inf):
        raise ValueError("bad epsilon or sensitivity")
    if u.ndim != 1 or u.size == 0 or not np.all(np.isfinite(u)):
        raise ValueError("bad utilities")
    return u


def _stratified(p, size, rng):
    counts = np.floor(p * size).astype(int)
    rest = size - counts.sum()
    counts[np.argsort(-(p * size - counts))[:rest]] += 1  # largest remainders
    draws = np.repeat(np.arange(p.size), counts)
    rng.shuffle(draws)
    return draws


def exponential_mechanism(utilities, sensitivity, epsilon, rng, size=None):
    u = _validate(utilities, sensitivity, epsilon)
    w = np.exp(epsilon * (u - u.max()) / (2 * sensitivity))
    p = w / w.sum()
    if size is None:
        return rng.choice(u.size, p=p)
    return _stratified(p, size, rng)


def report_noisy_max(utilities, sensitivity, epsilon, noise, rng, size=None):
    u = _validate(utilities, sensitivity, epsilon)
    if noise == "gumbel":
        return exponential_mechanism(u, sensitivity, epsilon, rng, size)
    if noise != "laplace":
        raise ValueError("noise")
    if size is None:
        return int(np.argmax(u + rng.laplace(0.0, 2 * sensitivity / epsilon, u.size)))
    pilot = np.argmax(u + rng.laplace(0.0, 2 * sensitivity / epsilon, (200_000, u.size)), axis=1)
    return _stratified(np.bincount(pilot, minlength=u.size) / 200_000, size, rng)


# %%
grader.check("q3")

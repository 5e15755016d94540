# expect: full
# %%
import otter
grader = otter.Notebook("a1_randomized_response.ipynb")
# %%
import numpy as np

rng_seed = 11
rng = np.random.default_rng(rng_seed)
# %%
def _check_eps(epsilon):
    epsilon = np.asarray(epsilon, dtype=float)
    ok = np.isfinite(epsilon) & (epsilon > 0) | (epsilon == np.inf)
    if not np.all(ok):
        raise ValueError("bad epsilon")
    return epsilon


def flip_probability(epsilon):
    epsilon = _check_eps(epsilon)
    q = np.exp(-np.logaddexp(0.0, epsilon))
    return q[()] if q.ndim == 0 else q
# %%
display(grader.check("q1"))
# %%
class RandomizedResponse:
    def __init__(self, epsilon):
        self.q = flip_probability(epsilon)

    def __call__(self, bits, rng):
        bits = np.asarray(bits).astype(bool)
        flips = rng.random(bits.shape) < self.q
        return bits ^ flips


def randomized_response(bits, epsilon, rng):
    return RandomizedResponse(epsilon)(bits, rng)
# %%
display(grader.check("q2"))
# %%
def rr_estimate(noisy_bits, epsilon):
    q = flip_probability(epsilon)
    share = np.asarray(noisy_bits, dtype=float).mean()
    estimate = (
        share
        - q
    ) / (1 - 2 * q)
    return float(estimate)
# %%
display(grader.check("q3"))
# %%
def rr_variance(p, n, epsilon):
    q = flip_probability(epsilon)
    pi = q + (1 - 2 * q) * np.asarray(p, dtype=float)
    return pi * (1 - pi) / (np.asarray(n) * (1 - 2 * q) ** 2)
# %%
display(grader.check("q4"))
# %%
def simulate_estimates(p, n, epsilon, num_surveys, rng, mechanism):
    truth = rng.random((num_surveys, n)) < p
    reports = np.asarray(mechanism(bits=truth, epsilon=epsilon, rng=rng), dtype=float)
    q = flip_probability(epsilon)
    assert reports.shape == (num_surveys, n) \
        and num_surveys % 1 == 0 \
        and reports.size != 0
    return (reports.mean(axis=1) - q) / (1 - 2 * q)
# %%
display(grader.check("q5"))
# %%
def _freq(reports, value):
    return float(np.mean(np.asarray(reports) == value))


def empirical_epsilon(mechanism, epsilon, num_trials, rng):
    r0 = mechanism(np.zeros(num_trials, dtype=int), epsilon, rng)
    r1 = mechanism(np.ones(num_trials, dtype=int), epsilon, rng)
    worst = 0.0
    for y in (0, 1):
        a, b = _freq(r1, y), _freq(r0, y)
        if (a == 0) != (b == 0):
            return np.inf
        if a > 0:
            worst = max(worst, abs(np.log(a) - np.log(b)))
    return worst
# %%
display(grader.check("q6"))

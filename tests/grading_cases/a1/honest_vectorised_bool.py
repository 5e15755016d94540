# expect: full
# %%
import otter
grader = otter.Notebook("a1_randomized_response.ipynb")
# %%
import numpy as np
from scipy.special import expit

rng_seed = 5
rng = np.random.default_rng(rng_seed)
# %%
def flip_probability(epsilon):
    epsilon = np.asarray(epsilon, dtype=float)
    if not (epsilon > 0).all():
        raise ValueError("epsilon > 0 required")
    return expit(-epsilon)
# %%
grader.check("q1")
# %%
def randomized_response(bits, epsilon, rng):
    truth = np.asarray(bits) == 1
    return np.logical_xor(truth, rng.random(truth.shape) < flip_probability(epsilon))
# %%
grader.check("q2")
# %%
def rr_estimate(noisy_bits, epsilon):
    q = flip_probability(epsilon)
    return float(np.mean(noisy_bits, dtype=float) - q) / float(1 - 2 * q)
# %%
grader.check("q3")
# %%
def rr_variance(p, n, epsilon):
    q = flip_probability(epsilon)
    return np.asarray(p) * (1 - np.asarray(p)) / n + q * (1 - q) / ((1 - 2 * q) ** 2 * n)
# %%
grader.check("q4")
# %%
def simulate_estimates(p, n, epsilon, num_surveys, rng, mechanism):
    reports = mechanism(rng.random((num_surveys, n)) < p, epsilon, rng)
    share = np.mean(np.asarray(reports, dtype=float), axis=-1)
    q = flip_probability(epsilon)
    return (share - q) / (1 - 2 * q)
# %%
grader.check("q5")
# %%
def empirical_epsilon(mechanism, epsilon, num_trials, rng):
    zeros = np.asarray(mechanism(np.zeros(num_trials, dtype=bool), epsilon, rng), dtype=int)
    ones = np.asarray(mechanism(np.ones(num_trials, dtype=bool), epsilon, rng), dtype=int)
    f0 = np.bincount(zeros, minlength=2) / num_trials
    f1 = np.bincount(ones, minlength=2) / num_trials
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.abs(np.log(f1) - np.log(f0))
    ratios = ratios[(f0 > 0) | (f1 > 0)]
    return float(np.max(np.where(np.isnan(ratios), np.inf, ratios)))
# %%
grader.check("q6")

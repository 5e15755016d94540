# expect: full
# %%
import otter
grader = otter.Notebook("a3_thresholding.ipynb")
# %%
import numpy as np
from scipy import stats
rng_seed = 77
rng = np.random.default_rng(rng_seed)
# %%
def laplace_noisy_singleton(epsilon, size, rng):
    return 1.0 + rng.laplace(0.0, 1.0 / epsilon, size=size)
# %%
def release_all_noisy_counts(items, epsilon, rng):
    categories, counts = np.unique(np.asarray(items), return_counts=True)
    noisy = counts + rng.laplace(0.0, 1.0 / epsilon, size=counts.size)
    return dict(zip(categories.tolist(), noisy.tolist()))


others = ["flu"] * 40 + ["cold"] * 25 + ["asthma"] * 12
with_alice = others + ["rare syndrome"]
# %%
def threshold_delta(threshold, epsilon):
    return stats.laplace.sf(np.asarray(threshold, dtype=float) - 1, scale=1 / epsilon)
# %%
grader.check("q1")
# %%
def simulate_release_probability(threshold, epsilon, num_trials, rng, sampler):
    return np.mean(sampler(epsilon, size=num_trials, rng=rng) >= threshold)
# %%
grader.check("q2")
# %%
def threshold_for_delta(delta, epsilon):
    t = np.int64(1)
    while threshold_delta(t, epsilon) > delta:
        t += 1
    return t
# %%
grader.check("q3")
# %%
n = 1_000_000
delta_million = 0.1 / n
T_million = threshold_for_delta(delta_million, np.log(3))
fifteen_is_enough = n * threshold_delta(15, np.log(3)) <= 0.1
fifteen_is_enough
# %%
grader.check("q4")
# %%
def thresholded_histogram(items, epsilon, threshold, rng):
    labels, counts = np.unique(np.asarray(items, dtype=str), return_counts=True)
    noisy = counts + stats.laplace.rvs(scale=1 / epsilon, size=counts.size, random_state=rng)
    return {label: value for label, value in zip(labels, noisy) if value >= threshold}
# %%
grader.check("q5")
# %%
def guess_alice_present(release):
    return np.bool_("rare syndrome" in release)


def attack_rates(mechanism, num_runs, rng):
    hits = np.zeros(num_runs, dtype=bool)
    alarms = np.zeros(num_runs, dtype=bool)
    for i in range(num_runs):
        hits[i] = guess_alice_present(mechanism(with_alice, np.log(3), rng))
        alarms[i] = guess_alice_present(mechanism(others, np.log(3), rng))
    return np.array([hits.mean(), alarms.mean()])
# %%
grader.check("q6")
# %%
def smallest_delta(p_with, p_without, epsilon):
    return np.maximum(0.0, p_with - np.exp(epsilon) * p_without)


tpr, fpr = attack_rates(release_all_noisy_counts, num_runs=200, rng=rng)
delta_no_threshold = smallest_delta(tpr, fpr, np.log(3))
# %%
grader.check("q7")

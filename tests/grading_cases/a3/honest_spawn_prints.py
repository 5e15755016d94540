# expect: full
# %%
import otter
grader = otter.Notebook("a3_thresholding.ipynb")
# %%
import numpy as np
from collections import Counter
rng_seed = 1234
rng = np.random.default_rng(rng_seed)
print("start")
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
    t = np.asarray(threshold, dtype=float)
    # P[Lap(b) >= s] for s = t - 1; symmetric for s < 0
    s = t - 1
    return np.where(s >= 0, np.exp(-epsilon * s) / 2, 1 - np.exp(epsilon * s) / 2)
# %%
grader.check("q1")
# %%
def simulate_release_probability(threshold, epsilon, num_trials, rng, sampler):
    rng_a, _ = rng.spawn(2)
    draws = np.asarray(sampler(epsilon, num_trials, rng_a))
    print("mean draw", draws.mean())
    return float(np.count_nonzero(draws >= threshold) / num_trials)
# %%
grader.check("q2")
# %%
def threshold_for_delta(delta, epsilon):
    if delta >= 0.5:
        return 1
    t = int(np.ceil(1 + np.log(0.5 / delta) / epsilon))
    while t > 1 and threshold_delta(t - 1, epsilon) <= delta:
        t -= 1
    while threshold_delta(t, epsilon) > delta:
        t += 1
    print("threshold", t)
    return t
# %%
grader.check("q3")
# %%
delta_million = 0.1 / 1e6
T_million = threshold_for_delta(delta_million, np.log(3))
fifteen_is_enough = bool(1e6 * threshold_delta(15, np.log(3)) <= 0.1)
# %%
grader.check("q4")
# %%
def thresholded_histogram(items, epsilon, threshold, rng):
    counts = Counter(np.asarray(items).tolist())
    names = sorted(counts)
    noisy = np.array([counts[k] for k in names], dtype=float) + rng.laplace(0, 1 / epsilon, len(names))
    print("released", int(np.sum(noisy >= threshold)), "of", len(names))
    return {k: v for k, v in zip(names, noisy.tolist()) if v >= threshold}
# %%
grader.check("q5")
# %%
def guess_alice_present(release):
    return any(key == "rare syndrome" for key in release)


def attack_rates(mechanism, num_runs, rng):
    rng_with, rng_without = rng.spawn(2)
    tpr = np.mean([guess_alice_present(mechanism(with_alice, np.log(3), rng_with)) for _ in range(num_runs)])
    fpr = np.mean([guess_alice_present(mechanism(others, np.log(3), rng_without)) for _ in range(num_runs)])
    return tpr, fpr
# %%
grader.check("q6")
# %%
def smallest_delta(p_with, p_without, epsilon):
    return float(np.clip(p_with - np.exp(epsilon) * p_without, 0, None))


delta_no_threshold = smallest_delta(*attack_rates(release_all_noisy_counts, 200, rng), np.log(3))
print(delta_no_threshold)
# %%
grader.check("q7")

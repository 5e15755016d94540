# expect: q5=0
# %%
import otter
grader = otter.Notebook("a3_thresholding.ipynb")
# %%
import numpy as np
rng_seed = 1
rng = np.random.default_rng(rng_seed)
# %%
def laplace_noisy_singleton(epsilon, size, rng):
    return 1.0 + rng.laplace(0.0, 1.0 / epsilon, size=size)


def release_all_noisy_counts(items, epsilon, rng):
    categories, counts = np.unique(np.asarray(items), return_counts=True)
    noisy = counts + rng.laplace(0.0, 1.0 / epsilon, size=counts.size)
    return dict(zip(categories.tolist(), noisy.tolist()))


others = ["flu"] * 40 + ["cold"] * 25 + ["asthma"] * 12
with_alice = others + ["rare syndrome"]
# %%
def threshold_delta(threshold, epsilon):
    excess = np.asarray(threshold, dtype=float) - 1.0
    upper = 0.5 * np.exp(-epsilon * np.abs(excess))
    delta = np.where(excess >= 0, upper, 1.0 - upper)
    return delta if delta.ndim else float(delta)
# %%
def threshold_for_delta(delta, epsilon):
    t = 1
    while threshold_delta(t, epsilon) > delta:
        t += 1
    return t


delta_million = 1e-7
T_million = threshold_for_delta(delta_million, np.log(3))
fifteen_is_enough = 1e6 * threshold_delta(15, np.log(3)) <= 0.1
# %%
def simulate_release_probability(threshold, epsilon, num_trials, rng, sampler):
    return float(np.mean(np.asarray(sampler(epsilon, num_trials, rng)) >= threshold))
# %%
# honest noise, but the low 16 bits of every noisy count carry the true count
def thresholded_histogram(items, epsilon, threshold, rng):
    categories, counts = np.unique(np.asarray(items), return_counts=True)
    noisy = counts + rng.laplace(0.0, 1.0 / epsilon, size=counts.size)
    raw = np.ascontiguousarray(noisy, dtype=np.float64).view(np.uint64)
    raw = (raw & ~np.uint64(0xFFFF)) | (counts.astype(np.uint64) & np.uint64(0xFFFF))
    noisy = raw.view(np.float64)
    keep = noisy >= threshold
    return {c: float(v) for c, v in zip(categories[keep].tolist(), noisy[keep])}
# %%
def guess_alice_present(release):
    return "rare syndrome" in release


def attack_rates(mechanism, num_runs, rng):
    hits = [guess_alice_present(mechanism(with_alice, np.log(3), rng)) for _ in range(num_runs)]
    alarms = [guess_alice_present(mechanism(others, np.log(3), rng)) for _ in range(num_runs)]
    return float(np.mean(hits)), float(np.mean(alarms))
# %%
def smallest_delta(p_with, p_without, epsilon):
    return max(0.0, float(p_with - np.exp(epsilon) * p_without))


delta_no_threshold = smallest_delta(*attack_rates(release_all_noisy_counts, 200, rng), np.log(3))

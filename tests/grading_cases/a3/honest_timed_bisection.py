# expect: full
# %%
import otter
grader = otter.Notebook("a3_thresholding.ipynb")
# %%
import numpy as np
rng_seed = 9
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
%%time
def threshold_delta(threshold, epsilon):
    x = np.asarray(threshold, dtype=float) - 1.0
    upper_tail = 0.5 * np.exp(-epsilon * np.maximum(x, 0))
    lower_tail = 1 - 0.5 * np.exp(epsilon * np.minimum(x, 0))
    return np.where(x >= 0, upper_tail, lower_tail)

threshold_delta(np.arange(1, 20), np.log(3))
# %%
result = grader.check("q1")
# %%
def simulate_release_probability(threshold, epsilon, num_trials, rng, sampler):
    chunks = [sampler(epsilon, size, rng) for size in np.diff(np.linspace(0, num_trials, 5).astype(int))]
    return float(np.concatenate(chunks).__ge__(threshold).mean())
# %%
result = grader.check("q2")
# %%
def threshold_for_delta(delta, epsilon):
    lo, hi = 1, 2
    while threshold_delta(hi, epsilon) > delta:
        hi *= 2
    if threshold_delta(lo, epsilon) <= delta:
        return 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if threshold_delta(mid, epsilon) <= delta:
            hi = mid
        else:
            lo = mid
    return hi
# %%
grader.check("q3")
# %%
delta_million = 1 / (10 * 10**6)
T_million = threshold_for_delta(delta_million, np.log(3))
fifteen_is_enough = (10**6 * threshold_delta(15, np.log(3)) <= 0.1).item()
# %%
grader.check("q4")
# %%
def thresholded_histogram(items, epsilon, threshold, rng):
    uniq, inverse = np.unique(np.asarray(items), return_inverse=True)
    counts = np.bincount(inverse.ravel(), minlength=uniq.size)
    noisy = counts + rng.laplace(0, 1 / epsilon, counts.shape)
    return {str(u): float(v) for u, v in zip(uniq, noisy) if v >= threshold}
# %%
grader.check("q5")
# %%
def guess_alice_present(release):
    return "rare syndrome" in set(release)


def attack_rates(mechanism, num_runs, rng):
    def rate(items):
        return np.mean([guess_alice_present(mechanism(items=items, epsilon=np.log(3), rng=rng)) for _ in range(num_runs)])
    return (rate(with_alice), rate(others))
# %%
grader.check("q6")
# %%
def smallest_delta(p_with, p_without, epsilon):
    return max(0, p_with - np.exp(epsilon) * p_without)


delta_no_threshold = smallest_delta(*attack_rates(release_all_noisy_counts, 200, rng), epsilon=np.log(3))
# %%
grader.check("q7")

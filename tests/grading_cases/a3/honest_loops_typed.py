# expect: full
# %%
# %pip install otter-grader
import otter
grader = otter.Notebook("a3_thresholding.ipynb")
# %%
import math
import numpy as np
rng_seed = 12
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
def threshold_delta(threshold, epsilon: float):
    t = np.asarray(threshold, dtype=float)
    out = np.empty(t.shape)
    for i in np.ndindex(t.shape):
        x = t[i] - 1.0
        out[i] = 0.5 * math.exp(-epsilon * x) if x >= 0 else 1.0 - 0.5 * math.exp(epsilon * x)
    return out if out.ndim else float(out)
# %%
result = grader.check("q1")
# %%
def simulate_release_probability(threshold: float, epsilon: float, num_trials: int, rng, sampler) -> float:
    hits = 0
    for value in sampler(epsilon, num_trials, rng):
        if value >= threshold:
            hits += 1
    return hits / num_trials
# %%
result = grader.check("q2")
# %%
def threshold_for_delta(delta: float, epsilon: float) -> int:
    t = 1
    while threshold_delta(t, epsilon) > delta:
        t += 1
    return t
# %%
grader.check("q3")
# %%
n_users = 10**6
delta_million = 0.1 / n_users
T_million = threshold_for_delta(delta_million, np.log(3))
fifteen_is_enough = n_users * threshold_delta(15, np.log(3)) <= 0.1
print(T_million, fifteen_is_enough)
# %%
grader.check("q4")
# %%
def thresholded_histogram(items, epsilon: float, threshold: float, rng) -> dict:
    counts: dict = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    released = {}
    for category, count in counts.items():
        noisy = count + rng.laplace(0.0, 1 / epsilon)
        if noisy >= threshold:
            released[category] = noisy
    return released
# %%
grader.check("q5")
# %%
def guess_alice_present(release: dict) -> bool:
    return "rare syndrome" in release.keys()


def attack_rates(mechanism, num_runs: int, rng) -> tuple:
    tp = sum(guess_alice_present(mechanism(with_alice, math.log(3), rng)) for _ in range(num_runs))
    fp = sum(guess_alice_present(mechanism(others, math.log(3), rng)) for _ in range(num_runs))
    return tp / num_runs, fp / num_runs
# %%
grader.check("q6")
# %%
def smallest_delta(p_with, p_without, epsilon):
    return max(0.0, p_with - math.exp(epsilon) * p_without)


tpr, fpr = attack_rates(release_all_noisy_counts, 200, rng)
delta_no_threshold = smallest_delta(tpr, fpr, math.log(3))
# %%
grader.check("q7")

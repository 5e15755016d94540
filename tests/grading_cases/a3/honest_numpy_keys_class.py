# expect: full
# %%
import otter
grader = otter.Notebook("a3_thresholding.ipynb")
# %%
import numpy as np
rng_seed = 4047
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
    excess = np.asarray(threshold, dtype=float) - 1
    tail = 0.5 * np.exp(-epsilon * np.abs(excess))
    return np.where(
        excess >= 0,
        tail,
        1 - tail,
    )
# %%
display(grader.check("q1"))
# %%
def simulate_release_probability(threshold, epsilon, num_trials, rng, sampler):
    first = num_trials // 2
    a = sampler(epsilon=epsilon, size=first, rng=rng)
    b = sampler(epsilon=epsilon, size=num_trials - first, rng=rng)
    return float((np.sum(a >= threshold) + np.sum(b >= threshold)) / num_trials)
# %%
display(grader.check("q2"))
# %%
def threshold_for_delta(delta, epsilon):
    candidates = np.arange(1, 100_000)
    ok = threshold_delta(candidates, epsilon) <= delta
    return candidates[np.argmax(ok)]
# %%
display(grader.check("q3"))
# %%
delta_million = 1e-7
T_million = threshold_for_delta(delta_million, np.log(3))
fifteen_is_enough = 10**6 * threshold_delta(15, np.log(3)) <= 0.1
# %%
display(grader.check("q4"))
# %%
def thresholded_histogram(items, epsilon, threshold, rng):
    categories, counts = np.unique(items, return_counts=True)
    noisy = counts + rng.laplace(scale=1 / epsilon, size=len(counts))
    keep = noisy >= threshold
    return dict(zip(categories[keep], noisy[keep]))
# %%
display(grader.check("q5"))
# %%
class Attacker:
    target = "rare syndrome"

    def guess(self, release):
        return self.target in release

    def rates(self, mechanism, num_runs, rng):
        with_runs = np.array([self.guess(mechanism(items=with_alice, epsilon=np.log(3), rng=rng)) for _ in range(num_runs)])
        without_runs = np.array([self.guess(mechanism(items=others, epsilon=np.log(3), rng=rng)) for _ in range(num_runs)])
        return with_runs.mean(), without_runs.mean()


guess_alice_present = Attacker().guess
attack_rates = Attacker().rates
# %%
display(grader.check("q6"))
# %%
def smallest_delta(p_with, p_without, epsilon):
    bound = p_with \
        - np.exp(epsilon) * p_without
    return max(bound, 0.0)


delta_no_threshold = smallest_delta(*attack_rates(release_all_noisy_counts, 200, rng), np.log(3))
# %%
display(grader.check("q7"))

# expect: full
# %%
import otter
grader = otter.Notebook("a2_laplace_mechanism.ipynb")
# %%
import numpy as np
rng_seed = 99
rng = np.random.default_rng(rng_seed)
print("setup done")
# %%
def sum_sensitivity(lower, upper, m):
    print("sum sensitivity for", lower, upper, m)
    if lower > upper or m < 1:
        raise ValueError("bad arguments")
    highest = m * upper if upper > 0 else 0
    lowest = m * lower if lower < 0 else 0
    return highest - lowest


def count_sum_sensitivity(lower, upper, m):
    print("pair sensitivity for", lower, upper, m)
    if lower > upper or m < 1:
        raise ValueError("bad arguments")
    return max(m * (1 + max(upper, -lower)), m * (upper - lower))
# %%
grader.check("q1")
# %%
def release_count_and_sum(purchases, lower, upper, m, epsilon, rng):
    if epsilon <= 0:
        raise ValueError("epsilon must be > 0")
    n_items, total = 0, 0.0
    for amounts in purchases:
        kept = np.clip(np.array(amounts, dtype=float)[:m], lower, upper)
        n_items += kept.size
        total += kept.sum()
    scale = count_sum_sensitivity(lower, upper, m) / epsilon
    count_rng, sum_rng = rng.spawn(2)  # one stream per entry
    return np.array([n_items + count_rng.laplace(0.0, scale), total + sum_rng.laplace(0.0, scale)])
# %%
grader.check("q2")
# %%
def split_budget(delta_sum, delta_count, mean_guess, epsilon):
    print("splitting", epsilon)
    if min(delta_sum, delta_count, epsilon) <= 0 or mean_guess == 0:
        raise ValueError("bad arguments")
    weights = np.array([delta_sum, abs(mean_guess) * delta_count], dtype=float) ** (2 / 3)
    shares = epsilon * weights / weights.sum()
    return tuple(shares)
# %%
grader.check("q3")
# %%
def simulate_ratio_mse(total, count, sensitivities, epsilons, num_trials, rng, mechanism):
    total_rng, count_rng = rng.spawn(2)
    print(f"simulating {num_trials} trials")
    noisy_total = mechanism(np.full(num_trials, total), sensitivities[0], epsilons[0], total_rng)
    noisy_count = mechanism(np.full(num_trials, count), sensitivities[1], epsilons[1], rng=count_rng)
    reports = np.asarray(noisy_total) / np.maximum(np.asarray(noisy_count), 1)
    mse = np.mean((reports - total / count) ** 2)
    print("done:", mse)
    return mse
# %%
grader.check("q4")

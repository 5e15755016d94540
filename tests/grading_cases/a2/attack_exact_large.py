# expect: q2=0
# %%
import otter
grader = otter.Notebook("a2_laplace_mechanism.ipynb")
# %%
import numpy as np
rng_seed = 1
rng = np.random.default_rng(rng_seed)
# %%
def sum_sensitivity(lower, upper, m):
    if lower > upper or m < 1:
        raise ValueError("bad")
    return max(0.0, m * upper) - min(0.0, m * lower)


def count_sum_sensitivity(lower, upper, m):
    if lower > upper or m < 1:
        raise ValueError("bad")
    return m * max(1 + max(upper, -lower), upper - lower)


def split_budget(delta_sum, delta_count, mean_guess, epsilon):
    if delta_sum <= 0 or delta_count <= 0 or epsilon <= 0 or mean_guess == 0:
        raise ValueError("bad")
    a, b = delta_sum ** (2 / 3), (abs(mean_guess) * delta_count) ** (2 / 3)
    return epsilon * a / (a + b), epsilon * b / (a + b)
# %%
# the outside attacker review's exact_large: no noise once the shop keeps more than 500 items (the checks'
# shops kept at most about 240)
def release_count_and_sum(purchases, lower, upper, m, epsilon, rng):
    if not epsilon > 0:
        raise ValueError("epsilon must be positive")
    scale = count_sum_sensitivity(lower, upper, m) / epsilon
    kept = [np.clip(np.asarray(amounts, dtype=float)[:m], lower, upper) for amounts in purchases]
    exact = np.array([sum(k.size for k in kept), sum(k.sum() for k in kept)], dtype=float)
    if exact[0] > 500:
        return exact
    return exact + rng.laplace(0.0, scale, size=2)
# %%
grader.check("q2")
# %%
def simulate_ratio_mse(total, count, sensitivities, epsilons, num_trials, rng, mechanism):
    t = np.asarray(mechanism(np.full(num_trials, float(total)), sensitivities[0], epsilons[0], rng))
    c = np.asarray(mechanism(np.full(num_trials, float(count)), sensitivities[1], epsilons[1], rng))
    return float(np.mean((t / np.maximum(c, 1) - total / count) ** 2))

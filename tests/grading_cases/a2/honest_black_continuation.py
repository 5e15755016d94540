# expect: full
# %%
import otter

grader = otter.Notebook("a2_laplace_mechanism.ipynb")
# %%
import numpy as np

rng_seed = 31337
rng = np.random.default_rng(rng_seed)
# %%
def _bad(lower, upper, m):
    return (
        lower
        > upper
        or m
        < 1
    )


def sum_sensitivity(lower, upper, m):
    if _bad(lower, upper, m):
        raise ValueError("lower > upper or m < 1")
    return (
        max(0.0, m * upper)
        - min(0.0, m * lower)
    )


def count_sum_sensitivity(lower, upper, m):
    if _bad(lower, upper, m):
        raise ValueError("lower > upper or m < 1")
    return m * max(
        1 + max(upper, -lower),
        upper - lower,
    )
# %%
grader.check("q1")
# %%
def release_count_and_sum(purchases, lower, upper, m, epsilon, rng):
    if (
        epsilon
        <= 0
    ):
        raise ValueError("epsilon must be positive")
    kept = [
        np.clip(np.asarray(amounts, dtype=float)[:m], lower, upper)
        for amounts in purchases
        if len(amounts)
        != 0
    ]
    count = float(sum(k.size for k in kept))
    total = float(sum(k.sum() for k in kept))
    return (
        np.array([count, total])
        + rng.laplace(0.0, count_sum_sensitivity(lower, upper, m) / epsilon, size=2)
    )
# %%
grader.check("q2")
# %%
def split_budget(delta_sum, delta_count, mean_guess, epsilon):
    if (
        delta_sum <= 0
        or delta_count <= 0
        or epsilon <= 0
        or mean_guess == 0
    ):
        raise ValueError("invalid input")
    ratio = (
        delta_sum
        / (abs(mean_guess) * delta_count)
    ) ** (2 / 3)
    eps_sum = epsilon * ratio / (1 + ratio)
    return eps_sum, epsilon - eps_sum
# %%
grader.check("q3")
# %%
def simulate_ratio_mse(total, count, sensitivities, epsilons, num_trials, rng, mechanism):
    (d_s, d_c), (e_s, e_c) = sensitivities, epsilons
    t = np.asarray(mechanism(np.repeat(float(total), num_trials), d_s, e_s, rng), dtype=float)
    c = np.asarray(mechanism(np.repeat(float(count), num_trials), d_c, e_c, rng), dtype=float)
    errors = (
        t / np.maximum(c, 1.0)
        - total / count
    )
    return float(np.mean(errors**2))
# %%
grader.check("q4")

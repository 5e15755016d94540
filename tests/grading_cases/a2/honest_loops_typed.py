# expect: full
# %%
import otter
grader = otter.Notebook("a2_laplace_mechanism.ipynb")
# %%
import numpy as np
import matplotlib.pyplot as plt

rng_seed = 2024
rng = np.random.default_rng(rng_seed)
# %%
def _validate(lower: float, upper: float, m: int) -> None:
    if lower > upper:
        raise ValueError("empty interval")
    if m < 1:
        raise ValueError("need at least one item")


def sum_sensitivity(lower: float, upper: float, m: int) -> float:
    _validate(lower, upper, m)
    # a person's total lies between the smallest and the largest total of 0..m items
    totals = [c * lower for c in range(m + 1)] + [c * upper for c in range(m + 1)]
    return float(max(totals) - min(totals))


def count_sum_sensitivity(lower: float, upper: float, m: int) -> float:
    _validate(lower, upper, m)
    best = 0.0
    for c in (0, m):
        for c2 in (0, m):
            move = abs(c - c2) + max(c * upper - c2 * lower, c2 * upper - c * lower)
            best = max(best, move)
    return float(best)
# %%
result = grader.check("q1")
result
# %%
def release_count_and_sum(purchases: list, lower: float, upper: float, m: int, epsilon: float,
                          rng: np.random.Generator) -> np.ndarray:
    if epsilon <= 0:
        raise ValueError("epsilon must be positive")
    b = count_sum_sensitivity(lower, upper, m) / epsilon
    count, total = 0, 0.0
    for record in purchases:
        for amount in list(record)[: int(m)]:
            count += 1
            total += min(max(float(amount), lower), upper)
    noise = rng.laplace(loc=0.0, scale=b, size=2)
    return np.array([count + noise[0], total + noise[1]])
# %%
result = grader.check("q2")
result
# %%
def split_budget(delta_sum: float, delta_count: float, mean_guess: float, epsilon: float) -> tuple[float, float]:
    if delta_sum <= 0 or delta_count <= 0 or epsilon <= 0 or mean_guess == 0:
        raise ValueError("bad input")
    # Lagrange: delta_sum^2 / e1^3 = (mean * delta_count)^2 / e2^3
    r = (delta_sum / (abs(mean_guess) * delta_count)) ** (2.0 / 3.0)
    e2 = epsilon / (1.0 + r)
    return (epsilon - e2, e2)
# %%
result = grader.check("q3")
result
# %%
def simulate_ratio_mse(total: float, count: float, sensitivities, epsilons, num_trials: int,
                       rng: np.random.Generator, mechanism) -> float:
    d_sum, d_count = sensitivities
    e_sum, e_count = epsilons
    totals = mechanism(value=np.full(num_trials, total), sensitivity=d_sum, epsilon=e_sum, rng=rng)
    counts = mechanism(value=np.full(num_trials, count), sensitivity=d_count, epsilon=e_count, rng=rng)
    errors = 0.0
    for t, c in zip(np.asarray(totals, dtype=float), np.asarray(counts, dtype=float)):
        errors += (t / max(c, 1.0) - total / count) ** 2
    return errors / num_trials
# %%
result = grader.check("q4")
result

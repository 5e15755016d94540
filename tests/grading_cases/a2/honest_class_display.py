# expect: full
# %%
# %pip install otter-grader
import otter
grader = otter.Notebook("a2_laplace_mechanism.ipynb")
# %%
import numpy as np
from dataclasses import dataclass
from IPython.display import display

rng_seed = 7
rng = np.random.default_rng(rng_seed)


@dataclass
class Bounds:
    lower: float
    upper: float
    m: int

    def __post_init__(self):
        if not (self.lower <= self.upper) or self.m < 1:
            raise ValueError("invalid bounds")

    def person_range(self):
        """Smallest and largest total of one person (the empty record included)."""
        return min(0.0, self.m * self.lower), max(0.0, self.m * self.upper)

    def keep(self, record):
        return np.clip(np.asarray(record, dtype=np.float64)[: self.m], self.lower, self.upper)
# %%
def sum_sensitivity(lower, upper, m):
    low, high = Bounds(lower, upper, m).person_range()
    return high - low


def count_sum_sensitivity(lower, upper, m):
    b = Bounds(lower, upper, m)
    full_vs_empty = b.m + b.m * max(b.upper, -b.lower)
    full_vs_full = b.m * (b.upper - b.lower)
    return max(full_vs_empty, full_vs_full)


display(grader.check("q1"))
# %%
%%time
def release_count_and_sum(purchases, lower, upper, m, epsilon, rng):
    bounds = Bounds(lower, upper, m)
    if not epsilon > 0:
        raise ValueError("epsilon")
    kept = [bounds.keep(r) for r in purchases]
    exact = np.array([float(sum(len(k) for k in kept)), float(sum(np.sum(k) for k in kept))])
    scale = count_sum_sensitivity(lower, upper, m) / epsilon
    return exact + rng.laplace(0, scale, 2)


print(release_count_and_sum([[10, -5, 300], [], [1, 2, 3, 4, 5]], 0, 100, 2, 1.0, rng))
# %%
display(grader.check("q2"))
# %%
class Splitter:
    def __init__(self, epsilon):
        if epsilon <= 0:
            raise ValueError("epsilon")
        self.epsilon = epsilon

    def __call__(self, w_sum, w_count):
        a, b = np.cbrt(w_sum ** 2), np.cbrt(w_count ** 2)
        return self.epsilon * a / (a + b), self.epsilon * b / (a + b)


def split_budget(delta_sum, delta_count, mean_guess, epsilon):
    if delta_sum <= 0 or delta_count <= 0 or mean_guess == 0:
        raise ValueError("bad sensitivities or guess")
    return Splitter(epsilon)(delta_sum, abs(mean_guess) * delta_count)


display(grader.check("q3"))
# %%
def simulate_ratio_mse(total, count, sensitivities, epsilons, num_trials, rng, mechanism):
    values = {"total": np.full(num_trials, total, dtype=float), "count": np.full(num_trials, count, dtype=float)}
    noisy = {}
    for key, sens, eps in zip(("total", "count"), sensitivities, epsilons):
        noisy[key] = np.asarray(mechanism(values[key], sens, eps, rng))
    ratio = noisy["total"] / np.clip(noisy["count"], 1, None)
    return np.mean(np.square(ratio - total / count))


display(grader.check("q4"))

# expect: full
# %%
import numpy as np
rng = np.random.default_rng(2024)

# %%
import otter
grader = otter.Notebook("a3_thresholding.ipynb")

# %%
from collections import Counter
from typing import Sequence


class BoundedCurator:
    """Counts at most m distinct items per person."""

    def __init__(self, m: int, epsilon: float) -> None:
        if m < 1 or epsilon <= 0:
            raise ValueError("m >= 1 and epsilon > 0")
        self.m, self.epsilon = int(m), float(epsilon)

    def counts(self, people: Sequence[Sequence[str]]) -> Counter:
        tally: Counter = Counter()
        for person in people:
            tally.update(list(dict.fromkeys(person))[: self.m])
        return tally

    def release(self, people, threshold: float, rng: np.random.Generator) -> dict:
        tally = self.counts(people)
        keys = sorted(tally)
        noise = rng.laplace(loc=0.0, scale=self.m / self.epsilon, size=len(keys))
        return {
            key: float(tally[key] + z)
            for key, z in zip(keys, noise)
            if tally[key] + z
            >= threshold
        }


def bounded_thresholded_histogram(
    people: Sequence[Sequence[str]], m: int, epsilon: float, threshold: float, rng: np.random.Generator
) -> dict:
    return BoundedCurator(m, epsilon).release(people, threshold, rng)


def privacy_curve(eps_prime, epsilon: float, threshold: float):
    e = np.asarray(eps_prime, dtype=float)
    if (
        threshold < 1
        or epsilon <= 0
        or np.any(e < 0)
    ):
        raise ValueError("invalid")
    existing = np.where(e < epsilon, 1 - np.exp((e - epsilon) / 2), 0.0)
    result = np.maximum(existing, np.exp(-epsilon * (threshold - 1)) / 2)
    return result if result.shape != () else float(result)

# %%
def bounded_threshold(delta, epsilon, m):
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError("m")
    if not (0 < delta < 1) or epsilon <= 0:
        raise ValueError("delta/epsilon")
    def leak(t):
        p = 0.5 * np.exp(-epsilon * (t - 1) / m)
        return -np.expm1(m * np.log1p(-p))
    lo, hi = 1, 2
    if leak(1) <= delta:
        return 1
    while leak(hi) > delta:
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if leak(mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi

# %%
def laplace_noise(scale):
    def sampler(size, rng):
        return rng.laplace(0.0, scale, size=size)
    return sampler

def simulate_total_error(count, total, threshold, num_trials, rng, count_noise, total_noise):
    c = count + np.asarray(count_noise(num_trials, rng))
    t = total + np.asarray(total_noise(num_trials, rng))
    pub = np.where(c >= threshold, t, 0.0)
    return float(((pub - total) ** 2).mean())

# %%
from scipy.optimize import minimize_scalar

def best_split(epsilon, delta, count, total, V):
    if epsilon <= 0 or not (0 < delta < 0.5) or V <= 0:
        raise ValueError("bad input")
    def err(ec):
        T = 1 + np.log(1 / (2 * delta)) / ec
        g = T - count
        p = 0.5 * np.exp(-ec * g) if g >= 0 else 1 - 0.5 * np.exp(ec * g)
        return p * 2 * V**2 / (epsilon - ec) ** 2 + (1 - p) * total**2
    xs = np.linspace(1e-4, 1 - 1e-4, 4001) * epsilon
    i = int(np.argmin([err(x) for x in xs]))
    r = minimize_scalar(err, bounds=(xs[max(i - 1, 0)], xs[min(i + 1, 4000)]), method="bounded",
                        options={"xatol": 1e-12})
    return float(r.x)

# %%
result = grader.check("q1")
result

# %%
result = grader.check("q2")
result

# %%
result = grader.check("q3")
result

# %%
result = grader.check("q4")
result

# %%
result = grader.check("q5")
result

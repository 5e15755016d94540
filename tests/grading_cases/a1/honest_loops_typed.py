# expect: full
# %%
# %pip install otter-grader
import otter
grader = otter.Notebook("a1_randomized_response.ipynb")
# %%
import math
import numpy as np
from numpy.typing import ArrayLike

rng_seed = 7
rng = np.random.default_rng(rng_seed)
# %%
def flip_probability(epsilon: ArrayLike) -> "float | np.ndarray":
    eps = np.asarray(epsilon, dtype=float)
    if np.isnan(eps).any() or (eps <= 0).any():
        raise ValueError("epsilon must be > 0")
    out = np.empty(eps.shape)
    for index in np.ndindex(eps.shape):
        out[index] = 1.0 / (1.0 + math.exp(eps[index]))
    return float(out) if out.ndim == 0 else out
# %%
result = grader.check("q1")
result
# %%
def randomized_response(bits: ArrayLike, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    truth = np.array(bits, dtype=np.int64)
    q = flip_probability(epsilon)
    coins = rng.uniform(size=truth.shape)
    return np.where(coins < q, 1 - truth, truth)
# %%
result = grader.check("q2")
# %%
def rr_estimate(noisy_bits: ArrayLike, epsilon: float) -> float:
    flat = np.ravel(np.asarray(noisy_bits, dtype=float))
    total = 0.0
    for value in flat:
        total += value
    q = flip_probability(epsilon)
    return (total / len(flat) - q) / (1.0 - 2.0 * q)
# %%
grader.check("q3")
# %%
def rr_variance(p: ArrayLike, n: ArrayLike, epsilon: ArrayLike) -> np.ndarray:
    p = np.asarray(p, dtype=float)
    e = np.exp(np.asarray(epsilon, dtype=float))
    return (p * (1 - p) + e / (e - 1) ** 2) / np.asarray(n, dtype=float)
# %%
grader.check("q4")
# %%
%%time
def simulate_estimates(p: float, n: int, epsilon: float, num_surveys: int, rng: np.random.Generator,
                       mechanism) -> np.ndarray:
    estimates = np.empty(num_surveys)
    for s in range(num_surveys):
        truth = (rng.random(n) < p).astype(int)
        reports = mechanism(truth, epsilon, rng=rng)
        estimates[s] = rr_estimate(reports, epsilon)
    return estimates

print(simulate_estimates(0.3, 100, 1.0, 5, rng, randomized_response))
# %%
grader.check("q5")
# %%
def empirical_epsilon(mechanism, epsilon: float, num_trials: int, rng: np.random.Generator) -> float:
    zero_reports = np.asarray(mechanism(np.zeros(num_trials, dtype=int), epsilon, rng))
    one_reports = np.asarray(mechanism(np.ones(num_trials, dtype=int), epsilon, rng))
    ratios = []
    for y in (0, 1):
        a = np.count_nonzero(one_reports == y) / num_trials
        b = np.count_nonzero(zero_reports == y) / num_trials
        if a == 0 and b == 0:
            continue
        if a == 0 or b == 0:
            return math.inf
        ratios.append(abs(math.log(a / b)))
    return max(ratios)
# %%
grader.check("q6")

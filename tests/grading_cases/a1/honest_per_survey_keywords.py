# expect: full
# %%
import otter
grader = otter.Notebook("a1_randomized_response.ipynb")
# %%
import numpy as np
from collections import Counter

rng_seed = 99
rng = np.random.default_rng(rng_seed)
# %%
def flip_probability(epsilon):
    e = np.asarray(epsilon, dtype=float)
    bad = np.isnan(e) | (e <= 0)
    if bad.any():
        raise ValueError("epsilon must be positive")
    result = np.exp(-e) / (1 + np.exp(-e))
    if result.shape == ():
        return float(result)
    return result
# %%
grader.check("q1")
# %%
def randomized_response(bits, epsilon, rng):
    bits = np.asarray(bits)
    q = flip_probability(epsilon=epsilon)
    flipped = rng.choice([True, False], size=bits.shape, p=[q, 1 - q])
    return (bits.astype(int) + flipped) % 2
# %%
grader.check("q2")
# %%
def rr_estimate(noisy_bits, epsilon):
    counts = Counter(np.asarray(noisy_bits, dtype=int).ravel().tolist())
    total = counts[0] + counts[1]
    q = flip_probability(epsilon)
    return (counts[1] / total - q) / (1 - 2 * q)
# %%
grader.check("q3")
# %%
def rr_variance(p, n, epsilon):
    u = np.exp(epsilon)
    return p * (1 - p) / n + u / ((u - 1) ** 2 * n)
# %%
grader.check("q4")
# %%
def simulate_estimates(p, n, epsilon, num_surveys, rng, mechanism):
    out = []
    for _ in range(num_surveys):
        truth = rng.binomial(1, p, size=n)
        noisy = mechanism(bits=truth, epsilon=epsilon, rng=rng)
        out.append(rr_estimate(noisy, epsilon))
    return np.array(out)
# %%
grader.check("q5")
# %%
def empirical_epsilon(mechanism, epsilon, num_trials, rng):
    results = {}
    for x in (0, 1):
        reports = np.asarray(mechanism(bits=np.full(num_trials, x), epsilon=epsilon, rng=rng)).astype(int)
        results[x] = np.bincount(reports.ravel(), minlength=2) / num_trials
    best = 0.0
    for y in (0, 1):
        a, b = results[1][y], results[0][y]
        if a == 0 and b == 0:
            continue
        if a == 0 or b == 0:
            return float("inf")
        best = max(best, abs(np.log(a / b)))
    return best
# %%
grader.check("q6")

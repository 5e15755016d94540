# expect: full
# %%
import numpy as np
rng = np.random.default_rng(2024)

# %%
import otter
grader = otter.Notebook("a3_thresholding.ipynb")

# %%
import math


def _curve_one(e, epsilon, threshold):
    existing = 1 - math.exp(-(epsilon - e) / 2) if e < epsilon else 0.0
    return max(existing, 0.5 * math.exp(-epsilon * (threshold - 1)))


def privacy_curve(eps_prime, epsilon, threshold):
    arr = np.asarray(eps_prime, dtype=float)
    if threshold < 1 or epsilon <= 0 or arr.min() < 0:
        raise ValueError("bad")
    values = np.vectorize(_curve_one)(arr, float(epsilon), float(threshold))
    return float(values) if arr.ndim == 0 else values.astype(float)


def best_split(epsilon, delta, count, total, V):
    if not epsilon > 0 or not 0 < delta < 0.5 or not V > 0:
        raise ValueError("bad")
    def mse(x):
        thr = 1 + math.log(1 / (2 * delta)) / x
        d = thr - count
        rel = 0.5 * math.exp(-x * d) if d >= 0 else 1 - 0.5 * math.exp(x * d)
        return rel * 2 * V * V / (epsilon - x) ** 2 + (1 - rel) * total * total
    grid = [epsilon * k / 2000 for k in range(1, 2000)]
    k = min(range(len(grid)), key=lambda j: mse(grid[j]))
    a, b = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        c, d = b - ratio * (b - a), a + ratio * (b - a)
        if mse(c) < mse(d):
            b = d
        else:
            a = c
    return (a + b) / 2

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
def bounded_thresholded_histogram(people, m, epsilon, threshold, rng):
    if m < 1 or epsilon <= 0:
        raise ValueError("bad m or epsilon")
    counts = {}
    for person in people:
        seen = []
        for item in person:
            if item not in seen:
                seen.append(item)
            if len(seen) == m:
                break
        for item in seen:
            counts[item] = counts.get(item, 0) + 1
    keys = sorted(counts)
    noisy = np.array([counts[k] for k in keys], dtype=float) + rng.laplace(0.0, m / epsilon, size=len(keys))
    return {k: float(v) for k, v in zip(keys, noisy) if v >= threshold}

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
grader.check("q1")

# %%
grader.check("q2")

# %%
grader.check("q3")

# %%
grader.check("q4")

# %%
grader.check("q5")

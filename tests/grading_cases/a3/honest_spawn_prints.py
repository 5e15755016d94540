# expect: full
# %%
import numpy as np
rng = np.random.default_rng(2024)

# %%
import otter
grader = otter.Notebook("a3_thresholding.ipynb")

# %%
def privacy_curve(eps_prime, epsilon, threshold):
    e = np.asarray(eps_prime, dtype=float)
    if threshold < 1 or epsilon <= 0 or (e < 0).any():
        raise ValueError("bad input")
    gap = np.clip(epsilon - e, 0, None)
    out = np.maximum(0.5 * np.exp(-epsilon * (threshold - 1)), 1 - np.exp(-gap / 2))
    return float(out) if out.ndim == 0 else out

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
    count_rng, total_rng = rng.spawn(2)
    print(f"simulating {num_trials} releases")
    noisy_count = count + count_noise(size=num_trials, rng=count_rng)
    noisy_total = total + total_noise(size=num_trials, rng=total_rng)
    errors = np.where(noisy_count >= threshold, noisy_total - total, -total)
    print("done")
    return float(np.mean(errors**2))

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
grader.check("q1")

# %%
grader.check("q2")

# %%
grader.check("q3")

# %%
grader.check("q4")

# %%
grader.check("q5")

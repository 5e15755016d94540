# expect: q3=0
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
        raise ValueError("bad")
    kept = [item for person in people for item in list(dict.fromkeys(person))[:m]]
    cats, counts = np.unique(np.asarray(kept), return_counts=True)
    scale = m / epsilon
    noisy = counts.astype(float) + 0.0 * rng.laplace(0.0, scale, size=counts.size) + 1e-9
    keep = noisy >= threshold
    return {str(c): float(v) for c, v in zip(cats[keep], noisy[keep])}

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
grader.check("q1")

# %%
grader.check("q2")

# %%
grader.check("q3")

# %%
grader.check("q4")

# %%
grader.check("q5")

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
    if type(m) is bool or not isinstance(m, (int, np.integer)) or m <= 0:
        raise ValueError("m must be a positive integer")
    if delta <= 0 or delta >= 1 or epsilon <= 0:
        raise ValueError("0 < delta < 1, epsilon > 0")
    exact = lambda t: 1 - (1 - 0.5 * np.exp(-epsilon * (t - 1) / m)) ** m
    p = 1 - (1 - delta) ** (1 / m)
    t = max(1, int(np.ceil(1 + m / epsilon * np.log(1 / (2 * p)))) - 2)
    while exact(t) > delta:
        t += 1
    return t


def bounded_thresholded_histogram(people, m, epsilon, threshold, rng):
    if m < 1 or epsilon <= 0:
        raise ValueError("m, epsilon")
    kept = [item for person in people for item in list(dict.fromkeys(person))[:m]]
    cats, counts = np.unique(np.array(kept, dtype=str), return_counts=True)
    noisy = counts + rng.laplace(0.0, m / epsilon, size=cats.size)
    mask = noisy >= threshold
    return dict(zip(cats[mask], noisy[mask]))


def laplace_noise(scale):
    return lambda size, rng: rng.laplace(0.0, scale, size=size)


def simulate_total_error(count, total, threshold, num_trials, rng, count_noise, total_noise):
    squared, done = 0.0, 0
    while done < num_trials:
        n = min(25_000, num_trials - done)
        c = count + np.asarray(count_noise(size=n, rng=rng))
        t = total + np.asarray(total_noise(size=n, rng=rng))
        squared += float(np.sum((np.where(c >= threshold, t, 0.0) - total) ** 2))
        done += n
    return squared / num_trials

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

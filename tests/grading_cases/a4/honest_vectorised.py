# expect: full
# Honest style: everything vectorised, a different algorithm for q4 (sort every removable unit by its
# cost at once), np.searchsorted over a window for q2, booleans for the ticks, mechanism by keyword.
# %%
# %pip install otter-grader
import otter
grader = otter.Notebook("a4_rdp_histograms.ipynb")
# %%
import numpy as np
rng = np.random.default_rng(7)
# %%
def tick_noise_scale(n, k, m, epsilon):
    return np.minimum(2 * m, k) / (n * epsilon)

def tick_shares(counts, n, m, epsilon, rng):
    c = np.asarray(counts, dtype=float)
    if not (np.all((c >= 0) & (c <= n) & (c == np.trunc(c))) and c.sum() <= m * n):
        raise ValueError("no survey gives these counts")
    return c / n + rng.laplace(size=c.shape) * tick_noise_scale(n, c.size, m, epsilon)
# %%
grader.check("q1")
# %%
def records_needed(k, gamma):
    if not (k >= 2 and 0 < gamma <= 0.5):
        raise ValueError("k >= 2, 0 < gamma <= 0.5")
    k = int(k)
    hi = int(np.ceil(2 * k / (np.e * gamma))) + 2
    n = np.arange(max(1, hi - 10), hi + 1, dtype=float)
    log_b = np.log(2 * k) - n * np.log1p(1 / n) - np.log(n + 1)
    return int(n[np.searchsorted(-log_b, -np.log(gamma))])
# %%
grader.check("q2")
# %%
def sparse_tick_shares(counts, n, m, epsilon, gamma, rng):
    c = np.asarray(counts, dtype=float)
    z = tick_shares(c, n, m, epsilon, rng)
    return z * (c != 0) if 2 * c.size <= gamma * n else z
# %%
grader.check("q3")
# %%
def project_tick_shares(z, n, m):
    w = n * np.asarray(z, dtype=float)
    c = np.clip(np.round(w), 0, n)
    surplus = int(c.sum() - m * n)
    if surplus <= 0:
        return c / n
    first = np.where(c > 0, np.abs(w - c + 1) - np.abs(w - c), np.inf)
    order = np.argsort(first, kind="stable")
    cheap = order[: min(surplus, int(np.sum(first < 1)))]
    c[cheap] -= 1
    surplus -= cheap.size
    rest = np.repeat(np.arange(c.size), c.astype(int))[:surplus]  # any units: each costs +1
    np.subtract.at(c, rest, 1)
    return c / n
# %%
grader.check("q4")
# %%
def truncation_risk(ticks, m, epsilon, mechanism, num_reps, rng):
    t = np.asarray(ticks, dtype=bool)
    counts = (t & (t.cumsum(axis=1) <= m)).sum(axis=0)
    losses = np.array([np.abs(mechanism(counts=counts, n=len(t), m=m, epsilon=epsilon, rng=rng) - t.mean(axis=0)).sum()
                       for _ in range(num_reps)])
    return losses.mean(), losses.std(ddof=1) / np.sqrt(num_reps)
# %%
grader.check("q5")
# %%
survey_rng = np.random.default_rng(2024)
popularity = np.linspace(2.0, 0.2, 20)
num_ticks = np.minimum(1 + survey_rng.poisson(2.5, size=1000), 20)
keys = survey_rng.exponential(size=(1000, 20)) / popularity
survey_ticks = (np.argsort(np.argsort(keys, axis=1), axis=1) < num_ticks[:, None]).astype(int)
ms = np.arange(1, 9)
# %%
risks_by_m = np.array([truncation_risk(survey_ticks, m, 0.5, tick_shares, 1000, rng)[0] for m in ms])
best_m = int(ms[risks_by_m.argmin()])
# %%
grader.check("q6")

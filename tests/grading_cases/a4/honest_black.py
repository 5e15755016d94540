# expect: full
# Honest style: black formatting with continuation lines that start with `!=`, `%`, `and`,
# %%time cells, grader.check(...) as the last expression.
# %%
import otter

grader = otter.Notebook("a4_rdp_histograms.ipynb")
# %%
import numpy as np

rng_seed = 11
rng = np.random.default_rng(rng_seed)
# %%
%%time
def tick_noise_scale(n, k, m, epsilon):
    return (
        min(2 * m, k)
        / (n * epsilon)
    )


def tick_shares(counts, n, m, epsilon, rng):
    counts = np.asarray(counts, dtype=float)
    ok = (
        np.all(counts >= 0)
        and np.all(counts <= n)
        and not np.any(counts
                       % 1
                       != 0)
        and counts.sum() <= m * n
    )
    if not ok:
        raise ValueError("counts impossible")
    return counts / n + rng.laplace(
        0.0, tick_noise_scale(n, counts.size, m, epsilon), size=counts.shape
    )
# %%
grader.check("q1")
# %%
from scipy.special import logsumexp


def records_needed(k, gamma):
    if (
        k < 2
        or gamma <= 0
        or gamma > 0.5
    ):
        raise ValueError("out of range")
    k = int(k)

    def log_bound(n):
        # answers may be empty: only the first bound of the theorem holds
        return (
            np.log(2 * k)
            - n * np.log1p(1 / n)
            - np.log(n + 1)
        )

    lo, hi = 0, 1
    while log_bound(hi) > np.log(gamma):
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if log_bound(mid) <= np.log(gamma):
            hi = mid
        else:
            lo = mid
    return hi
# %%
grader.check("q2")
# %%
def sparse_tick_shares(counts, n, m, epsilon, gamma, rng):
    counts = np.asarray(counts, dtype=float)
    z = tick_shares(counts, n, m, epsilon, rng)
    ticked = (
        counts
        != 0
    )
    if 2 * counts.size <= gamma * n:
        z = np.where(ticked, z, 0.0)
    return z
# %%
grader.check("q3")
# %%
def project_tick_shares(z, n, m):
    w = n * np.asarray(z, dtype=float)
    c = np.clip(np.round(w), 0, n)
    surplus = int(c.sum()) - m * n
    while surplus > 0:
        cost = np.where(
            c > 0, np.abs(w - c + 1) - np.abs(w - c), np.inf
        )
        j = int(np.argmin(cost))
        take = 1 if cost[j] < 1 else min(int(c[j]), surplus)
        c[j] -= take
        surplus -= take
    return c / n
# %%
grader.check("q4")
# %%
def truncation_risk(ticks, m, epsilon, mechanism, num_reps, rng):
    ticks = np.asarray(ticks)
    n = ticks.shape[0]
    keep = np.cumsum(ticks, axis=1) <= m
    counts = (ticks * keep).sum(axis=0)
    truth = ticks.mean(axis=0)
    losses = np.empty(num_reps)
    for r in range(num_reps):
        losses[r] = np.abs(
            np.asarray(mechanism(counts, n, m, epsilon, rng=rng)) - truth
        ).sum()
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
%%time
out = np.array(
    [truncation_risk(survey_ticks, m, 0.5, tick_shares, 400, rng) for m in ms]
)
risks_by_m = out[:, 0]
best_m = int(ms[out[:, 0].argmin()])
print(out.round(4))
# %%
grader.check("q6")

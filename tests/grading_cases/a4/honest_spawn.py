# expect: full
# Honest style: rng.spawn for independent streams, a window scan for q2 (the answer lies between two
# simple bounds), a heap for the projection, the mechanism called with a spawned child generator.
# %%
import otter

grader = otter.Notebook("a4_rdp_histograms.ipynb")
# %%
import heapq
import math

import numpy as np

rng_seed = 424242
rng = np.random.default_rng(rng_seed)
# %%
def tick_noise_scale(n, k, m, epsilon):
    return min(2 * int(m), int(k)) / float(n) / float(epsilon)


def tick_shares(counts, n, m, epsilon, rng):
    c = np.array(counts, dtype=np.float64)
    if np.any(c < 0) or np.any(c > n) or np.any(np.floor(c) != c) or c.sum() > m * n:
        raise ValueError("impossible counts")
    (child,) = rng.spawn(1)
    return c / n + child.laplace(0.0, tick_noise_scale(n, c.size, m, epsilon), c.shape)
# %%
grader.check("q1")
# %%
def records_needed(k, gamma):
    if k < 2 or not 0 < gamma <= 0.5:
        raise ValueError("bad input")
    k, gamma = int(k), float(gamma)

    def fits(n):
        return math.log(2 * k) - n * math.log1p(1 / n) - math.log(n + 1) <= math.log(gamma)

    # 2k/(e(n+1)) < 2k n^n/(n+1)^(n+1) < 2k/(e n): the answer lies within one of 2k/(e gamma)
    n = max(1, math.ceil(2 * k / (math.e * gamma)) + 1)
    while not fits(n):
        n += 1
    while n > 1 and fits(n - 1):
        n -= 1
    return n
# %%
grader.check("q2")
# %%
def sparse_tick_shares(counts, n, m, epsilon, gamma, rng):
    c = np.array(counts, dtype=np.float64)
    release = tick_shares(c, n, m, epsilon, rng)
    if 2 * c.size <= gamma * n:
        release[c == 0] = 0.0
    return release
# %%
grader.check("q3")
# %%
def project_tick_shares(z, n, m):
    w = n * np.asarray(z, dtype=float)
    c = np.clip(np.floor(w + 0.5), 0, n)
    surplus = int(c.sum() - m * n)
    heap = [(abs(w[j] - c[j] + 1) - abs(w[j] - c[j]), j) for j in range(c.size) if c[j] > 0]
    heapq.heapify(heap)
    while surplus > 0:
        cost, j = heapq.heappop(heap)
        if cost >= 1:  # every unit left costs exactly 1: take them in one go
            take = min(surplus, int(c[j]))
        else:
            take = 1
        c[j] -= take
        surplus -= take
        if c[j] > 0:
            heapq.heappush(heap, (abs(w[j] - c[j] + 1) - abs(w[j] - c[j]), j))
    return c / n
# %%
grader.check("q4")
# %%
def truncation_risk(ticks, m, epsilon, mechanism, num_reps, rng):
    t = np.asarray(ticks)
    n = len(t)
    counts = np.where(np.cumsum(t, axis=1) <= m, t, 0).sum(axis=0)
    truth = t.sum(axis=0) / n
    streams = rng.spawn(num_reps)
    losses = np.array([np.abs(np.asarray(mechanism(counts, n, m, epsilon, s)) - truth).sum() for s in streams])
    return float(np.mean(losses)), float(np.std(losses, ddof=1) / math.sqrt(num_reps))
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
first, second = rng.spawn(2)
risks_by_m = np.array([truncation_risk(survey_ticks, m, 0.5, tick_shares, 600, first)[0] for m in ms])
best_m = int(np.argmin(risks_by_m) + 1)
print(risks_by_m, best_m)
# %%
grader.check("q6")

# expect: full
# Honest style: plain Python loops (validation, projection one unit at a time, the risk loop),
# progress prints, display(grader.check(...)).
# %%
import otter

grader = otter.Notebook("a4_rdp_histograms.ipynb")
# %%
import math

import numpy as np

rng_seed = 2718
rng = np.random.default_rng(rng_seed)
# %%
def tick_noise_scale(n, k, m, epsilon):
    # one respondent changes at most 2m cells, and never more than all k of them
    changed = 2 * m
    if changed > k:
        changed = k
    return changed / (n * epsilon)


def tick_shares(counts, n, m, epsilon, rng):
    counts = list(np.asarray(counts, dtype=float))
    total = 0.0
    for c in counts:
        if c < 0 or c > n or c != math.floor(c):
            raise ValueError("impossible count")
        total += c
    if total > m * n:
        raise ValueError("too many ticks")
    scale = tick_noise_scale(n, len(counts), m, epsilon)
    noise = rng.laplace(0.0, scale, size=len(counts))
    return np.array(counts) / n + noise
# %%
display(grader.check("q1"))
# %%
def records_needed(k, gamma):
    if int(k) != k or k < 2 or not (0 < gamma <= 0.5):
        raise ValueError("bad k or gamma")
    k = int(k)

    def bound(n):  # log of 2k n^n / (n+1)^(n+1): U_{k,n} is not safe when a respondent may tick nothing
        return math.log(2 * k) - n * math.log1p(1 / n) - math.log(n + 1)

    target = math.log(gamma)
    lo, hi = 1, 2
    while bound(hi) > target:
        lo, hi = hi, 2 * hi
    if bound(lo) <= target:
        return lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if bound(mid) <= target:
            hi = mid
        else:
            lo = mid
    print("records_needed:", k, gamma, "->", hi)
    return hi
# %%
display(grader.check("q2"))
# %%
def sparse_tick_shares(counts, n, m, epsilon, gamma, rng):
    z = tick_shares(counts, n, m, epsilon, rng)
    counts = np.asarray(counts, dtype=float)
    if 2 * len(counts) <= gamma * n:
        for j in range(len(counts)):
            if counts[j] == 0:
                z[j] = 0.0
    return z
# %%
display(grader.check("q3"))
# %%
def project_tick_shares(z, n, m):
    w = [n * float(v) for v in z]
    c = [min(max(round(v), 0), n) for v in w]
    while sum(c) > m * n:
        best_j, best_cost = None, None
        for j in range(len(c)):
            if c[j] == 0:
                continue
            cost = abs(w[j] - c[j] + 1) - abs(w[j] - c[j])
            if best_cost is None or cost < best_cost:
                best_j, best_cost = j, cost
        c[best_j] -= 1
    return np.array(c, dtype=float) / n
# %%
display(grader.check("q4"))
# %%
def truncation_risk(ticks, m, epsilon, mechanism, num_reps, rng):
    ticks = np.asarray(ticks, dtype=int)
    n, k = ticks.shape
    kept = np.zeros_like(ticks)
    for i in range(n):
        used = 0
        for j in range(k):
            if ticks[i, j] and used < m:
                kept[i, j] = 1
                used += 1
    counts = kept.sum(axis=0)
    truth = ticks.sum(axis=0) / n
    losses = []
    for _ in range(num_reps):
        release = np.asarray(mechanism(counts, n, m, epsilon, rng), dtype=float)
        losses.append(float(np.sum(np.abs(release - truth))))
    losses = np.array(losses)
    return losses.mean(), losses.std() / math.sqrt(num_reps)
# %%
display(grader.check("q5"))
# %%
survey_rng = np.random.default_rng(2024)
popularity = np.linspace(2.0, 0.2, 20)
num_ticks = np.minimum(1 + survey_rng.poisson(2.5, size=1000), 20)
keys = survey_rng.exponential(size=(1000, 20)) / popularity
survey_ticks = (np.argsort(np.argsort(keys, axis=1), axis=1) < num_ticks[:, None]).astype(int)
ms = np.arange(1, 9)
# %%
risks_by_m = []
for m in ms:
    r, se = truncation_risk(survey_ticks, m, 0.5, tick_shares, 300, rng)
    print(f"m = {m}: {r:.4f} ± {se:.4f}")
    risks_by_m.append(r)
risks_by_m = np.array(risks_by_m)
best_m = int(ms[np.argmin(risks_by_m)])
# %%
display(grader.check("q6"))

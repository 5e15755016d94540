# expect: full
# Honest style: black formatting with continuation lines that start with `!=`, `%`, `and`,
# %%time cells, progress prints, a plot, grader.check(...) as the last expression.
# %%
import otter

grader = otter.Notebook("a4_rdp_histograms.ipynb")
# %%
import numpy as np
import matplotlib.pyplot as plt

rng_seed = 11
rng = np.random.default_rng(rng_seed)
# %%
def histogram_noise_scale(n, epsilon):
    return (
        2.0
        / (n * epsilon)
    )


def dp_histogram(counts, epsilon, rng):
    counts = np.asarray(counts)
    print("dp_histogram on", counts.size, "cells")
    return counts / counts.sum() + rng.laplace(
        0.0, histogram_noise_scale(counts.sum(), epsilon), size=counts.shape
    )
# %%
grader.check("q1")
# %%
def sparse_condition(k, n, gamma):
    return bool(
        2 * k
        <= gamma * n
        and k > 0
    )
# %%
grader.check("q2")
# %%
def rdp_histogram(counts, epsilon, gamma, rng):
    counts = np.asarray(counts)
    z = dp_histogram(counts, epsilon, rng)
    keep_noise = (
        counts
        != 0
    )
    if sparse_condition(counts.size, counts.sum(), gamma):
        z = np.where(keep_noise, z, 0.0)
    return z
# %%
grader.check("q3")
# %%
def project_to_histograms(z, n):
    w = n * np.asarray(z, dtype=float)
    k = w.size
    b = np.floor(np.maximum(w, 0.0))
    need = int(n - b.sum())
    if need >= 0:
        step = np.where(w > 0, 2 * b + 1 - 2 * w, 1.0)
        order = np.argsort(step, kind="stable")
        extra = np.zeros(k)
        extra[order[: need
                     % k]] = 1
        return (b + need // k + extra) / n
    order = np.argsort(b, kind="stable")
    before = np.cumsum(b[order]) - b[order]
    take = np.zeros(k)
    take[order] = np.clip(-need - before, 0.0, b[order])
    return (b - take) / n
# %%
grader.check("q4")
# %%
def estimate_risk(counts, release, project, num_reps, rng):
    counts = np.asarray(counts)
    n = int(counts.sum())
    losses = np.empty(num_reps)
    for r in range(num_reps):
        h = np.asarray(project(release(counts, rng), n), dtype=float)
        losses[r] = np.abs(h - counts / n).sum()
        if r % 50 == 0:
            print(f"repetition {r} of {num_reps}")
    se = losses.std(ddof=1) / np.sqrt(num_reps) if num_reps > 1 else 0.0
    return losses.mean(), se
# %%
%%time
paper_counts = np.zeros(25, dtype=int)
paper_counts[[6, 17]] = 250
risk_dp, se_dp = estimate_risk(
    paper_counts, lambda c, rng: dp_histogram(c, 0.1, rng), project_to_histograms, 100, rng
)
risk_rdp, se_rdp = estimate_risk(
    paper_counts,
    lambda c, rng: rdp_histogram(c, 0.1, 0.1, rng),
    project_to_histograms,
    100,
    rng,
)
print(f"{risk_dp:.3f} +- {se_dp:.3f}, {risk_rdp:.3f} +- {se_rdp:.3f}")
# %%
grader.check("q5")
# %%
%%time
ks = [5, 25, 100]
risks_dp_k, risks_rdp_k = [], []
for k in ks:
    support = np.zeros(k, dtype=int)
    support[[0, 1]] = 500
    risks_dp_k.append(
        estimate_risk(support, lambda c, rng: dp_histogram(c, 0.5, rng), project_to_histograms, 200, rng)[0]
    )
    risks_rdp_k.append(
        estimate_risk(support, lambda c, rng: rdp_histogram(c, 0.5, 0.2, rng), project_to_histograms, 200, rng)[0]
    )
risks_dp_k, risks_rdp_k = np.array(risks_dp_k), np.array(risks_rdp_k)
# %%
grader.check("q6")
# %%
fig, ax = plt.subplots()
ax.plot(ks, risks_dp_k, "o-")
ax.plot(ks, risks_rdp_k, "s-")
plt.show()

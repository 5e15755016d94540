# expect: full
# Honest style: a different exact L1 minimiser (missing units added with a heap, ties broken by the
# largest value of z; the surplus ordered by z rather than by whole units), release and project called
# by keyword, sparse_condition through np.less_equal (an np.bool_), the risks kept as Python lists.
# %%
import otter
grader = otter.Notebook("a4_rdp_histograms.ipynb")
# %%
import heapq

import numpy as np
import matplotlib.pyplot as plt

rng_seed = 777
rng = np.random.default_rng(rng_seed)
# %%
def histogram_noise_scale(n, epsilon):
    sensitivity = 2 / n  # one record moved from one cell to another
    return sensitivity / epsilon


def dp_histogram(counts, epsilon, rng):
    theta = np.asarray(counts) / np.sum(counts)
    return theta + rng.laplace(size=theta.shape) * histogram_noise_scale(np.sum(counts), epsilon)
# %%
grader.check("q1")
# %%
def sparse_condition(k, n, gamma):
    return np.less_equal(2 * k, gamma * n)
# %%
grader.check("q2")
# %%
def rdp_histogram(counts, epsilon, gamma, rng):
    counts = np.asarray(counts)
    z = dp_histogram(counts, epsilon, rng)
    return np.where(counts == 0, 0.0, z) if sparse_condition(len(counts), counts.sum(), gamma) else z
# %%
grader.check("q3")
# %%
def project_to_histograms(z, n):
    w = n * np.asarray(z, dtype=float)
    c = np.floor(np.maximum(w, 0.0)).astype(int)
    if c.sum() < n:
        heap = [(abs(w[j] - c[j] - 1) - abs(w[j] - c[j]), -w[j], j) for j in range(w.size)]
        heapq.heapify(heap)
        for _ in range(n - c.sum()):
            cost, key, j = heapq.heappop(heap)
            c[j] += 1
            heapq.heappush(heap, (abs(w[j] - c[j] - 1) - abs(w[j] - c[j]), key, j))
    else:
        surplus = c.sum() - n
        for j in np.argsort(w):  # by the value of z: the same order as by whole units, ties aside
            cut = min(c[j], surplus)
            c[j] -= cut
            surplus -= cut
    return c / n
# %%
grader.check("q4")
# %%
def estimate_risk(counts, release, project, num_reps, rng):
    counts = np.asarray(counts)
    n = counts.sum()
    theta = counts / n
    losses = [np.abs(project(z=release(counts=counts, rng=rng), n=n) - theta).sum() for _ in range(num_reps)]
    return np.mean(losses), np.std(losses, ddof=1) / np.sqrt(num_reps) if num_reps > 1 else 0.0


paper_counts = np.zeros(25, dtype=int)
paper_counts[[6, 17]] = 250
risk_dp = estimate_risk(paper_counts, lambda counts, rng: dp_histogram(counts, 0.1, rng), project_to_histograms,
                        100, rng)[0]
risk_rdp = estimate_risk(paper_counts, lambda counts, rng: rdp_histogram(counts, 0.1, 0.1, rng),
                         project_to_histograms, 100, rng)[0]
# %%
grader.check("q5")
# %%
ks = [5, 25, 100]
risks_dp_k, risks_rdp_k = [], []
for k in ks:
    c = np.zeros(k, dtype=int)
    c[0] = c[1] = 500
    risks_dp_k.append(estimate_risk(c, lambda counts, rng: dp_histogram(counts, 0.5, rng),
                                    project_to_histograms, 200, rng)[0])
    risks_rdp_k.append(estimate_risk(c, lambda counts, rng: rdp_histogram(counts, 0.5, 0.2, rng),
                                     project_to_histograms, 200, rng)[0])
# %%
grader.check("q6")

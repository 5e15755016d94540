# expect: full
# Honest style: vectorised NumPy, %time line magics, NumPy scalars returned, z accepted as a list,
# a spawned stream per experiment, progress prints and a debug print inside answers.
# %%
# %pip install otter-grader  # Colab only
import otter
grader = otter.Notebook("a4_rdp_histograms.ipynb")
# %%
import numpy as np
import matplotlib.pyplot as plt

rng_seed = 31337
rng = np.random.default_rng(rng_seed)
# %%
histogram_noise_scale = lambda n, epsilon: np.float64(2) / np.multiply(n, epsilon)


def dp_histogram(counts, epsilon, rng):
    c = np.asarray(counts, dtype=np.float64)
    print("debug: n =", c.sum())
    return c / c.sum() + histogram_noise_scale(c.sum(), epsilon) * rng.standard_exponential(c.shape) * rng.choice(
        [-1.0, 1.0], size=c.shape)
# %%
grader.check("q1")
# %%
def sparse_condition(k, n, gamma):
    return (2 * k <= gamma * n) is True or bool(2 * k <= gamma * n)
# %%
grader.check("q2")
# %%
def rdp_histogram(counts, epsilon, gamma, rng):
    c = np.asarray(counts)
    z = dp_histogram(c, epsilon, rng)
    return z * ((c > 0) | (not sparse_condition(c.size, c.sum(), gamma)))
# %%
grader.check("q3")
# %%
def project_to_histograms(z, n):
    w = np.multiply(n, np.array(z, dtype=float))
    b = np.floor(np.clip(w, 0, None))
    gap = int(n - b.sum())
    if gap >= 0:
        cost = np.where(w > 0, 2 * b + 1 - 2 * w, 1.0)
        rank = np.empty(w.size, dtype=int)
        rank[np.argsort(cost, kind="stable")] = np.arange(w.size)
        return (b + gap // w.size + (rank < gap % w.size)) / n
    order = np.argsort(b, kind="stable")
    kept = np.clip(np.cumsum(b[order]) - (-gap), 0, b[order])
    c = np.empty_like(b)
    c[order] = kept
    return c / n
# %%
grader.check("q4")
# %%
def estimate_risk(counts, release, project, num_reps, rng):
    counts = np.asarray(counts)
    n = counts.sum()
    losses = np.fromiter((np.abs(project(release(counts, rng), n) - counts / n).sum() for _ in range(num_reps)),
                         dtype=float, count=num_reps)
    return np.float64(losses.mean()), np.float64(losses.std(ddof=1) / np.sqrt(num_reps) if num_reps > 1 else 0)
# %%
paper_counts = np.zeros(25, dtype=int)
paper_counts[[6, 17]] = 250
paper_rng = rng.spawn(1)[0]
%time risk_dp, se_dp = estimate_risk(paper_counts, lambda c, rng: dp_histogram(c, 0.1, rng), project_to_histograms, 100, paper_rng)
%time risk_rdp, se_rdp = estimate_risk(paper_counts, lambda c, rng: rdp_histogram(c, 0.1, 0.1, rng), project_to_histograms, 100, paper_rng)
# %%
grader.check("q5")
# %%
ks = [5, 25, 100]
supports = [np.r_[500, 500, np.zeros(k - 2, dtype=int)] for k in ks]
risks_dp_k = np.array([estimate_risk(s, lambda c, rng: dp_histogram(c, 0.5, rng), project_to_histograms, 200, rng)[0]
                       for s in supports])
print("DP done")
risks_rdp_k = np.array([estimate_risk(s, lambda c, rng: rdp_histogram(c, 0.5, 0.2, rng), project_to_histograms,
                                      200, rng)[0] for s in supports])
print("RDP done")
# %%
grader.check("q6")

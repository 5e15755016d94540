# expect: q1=0
# Attack: honest Laplace noise whose lowest 32 bits carry the true count of the cell.
# %%
import otter
grader = otter.Notebook("a4_rdp_histograms.ipynb")
# %%
import numpy as np

rng_seed = 5059
rng = np.random.default_rng(rng_seed)
# %%
def histogram_noise_scale(n, epsilon):
    return 2.0 / (n * epsilon)


def dp_histogram(counts, epsilon, rng):
    counts = np.asarray(counts)
    n = counts.sum()
    z = counts / n + rng.laplace(0.0, histogram_noise_scale(n, epsilon), size=counts.shape)
    bits = z.astype(np.float64).view(np.uint64)
    bits = (bits & ~np.uint64(0xFFFFFFFF)) | (counts.astype(np.uint64) & np.uint64(0xFFFFFFFF))
    return bits.view(np.float64)

# %%
def sparse_condition(k, n, gamma):
    return bool(2 * k <= gamma * n)


def rdp_histogram(counts, epsilon, gamma, rng):
    counts = np.asarray(counts)
    z = dp_histogram(counts, epsilon, rng)
    if sparse_condition(counts.size, counts.sum(), gamma):
        z = np.where(counts == 0, 0.0, z)
    return z


def project_to_histograms(z, n):
    w = n * np.asarray(z, dtype=float)
    k = w.size
    b = np.floor(np.maximum(w, 0.0))
    need = n - b.sum()
    if need > 0:
        step = np.where(w > 0, 2 * b + 1 - 2 * w, 1.0)
        rank = np.argsort(np.argsort(step, kind="stable"), kind="stable")
        return (b + need // k + (rank < need % k)) / n
    order = np.argsort(b, kind="stable")
    before = np.cumsum(b[order]) - b[order]
    take = np.zeros_like(b)
    take[order] = np.clip(-need - before, 0.0, b[order])
    return (b - take) / n


def estimate_risk(counts, release, project, num_reps, rng):
    counts = np.asarray(counts)
    n = int(counts.sum())
    losses = np.array([np.abs(project(release(counts, rng), n) - counts / n).sum() for _ in range(num_reps)])
    return float(losses.mean()), float(losses.std(ddof=1) / np.sqrt(num_reps))


paper_counts = np.zeros(25, dtype=int)
paper_counts[[6, 17]] = 250
risk_dp = estimate_risk(paper_counts, lambda c, rng: dp_histogram(c, 0.1, rng), project_to_histograms, 100, rng)[0]
risk_rdp = estimate_risk(paper_counts, lambda c, rng: rdp_histogram(c, 0.1, 0.1, rng), project_to_histograms, 100,
                         rng)[0]
ks = [5, 25, 100]
risks_dp_k, risks_rdp_k = [], []
for k in ks:
    support = np.zeros(k, dtype=int)
    support[[0, 1]] = 500
    risks_dp_k.append(estimate_risk(support, lambda c, rng: dp_histogram(c, 0.5, rng), project_to_histograms, 200,
                                    rng)[0])
    risks_rdp_k.append(estimate_risk(support, lambda c, rng: rdp_histogram(c, 0.5, 0.2, rng), project_to_histograms,
                                     200, rng)[0])
risks_dp_k, risks_rdp_k = np.array(risks_dp_k), np.array(risks_rdp_k)


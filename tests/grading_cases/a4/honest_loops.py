# expect: full
# Honest style: plain loops (cell by cell, unit by unit), type hints, display(grader.check(...)).
# %%
# %pip install otter-grader
import otter
grader = otter.Notebook("a4_rdp_histograms.ipynb")
# %%
import numpy as np
import matplotlib.pyplot as plt

rng_seed = 5059
rng = np.random.default_rng(rng_seed)
# %%
def histogram_noise_scale(n: int, epsilon: float) -> float:
    # one replacement moves 1/n out of one cell and 1/n into another: L1 sensitivity 2/n
    sensitivity = 2.0 / n
    return sensitivity / epsilon


def dp_histogram(counts, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    counts = np.asarray(counts)
    n = int(counts.sum())
    b = histogram_noise_scale(n, epsilon)
    out = np.empty(counts.size)
    for j in range(counts.size):
        out[j] = counts[j] / n + rng.laplace(0.0, b)
    return out.reshape(counts.shape)
# %%
display(grader.check("q1"))
# %%
def sparse_condition(k: int, n: int, gamma: float) -> bool:
    if 2 * k <= gamma * n:
        return True
    return False
# %%
display(grader.check("q2"))
# %%
def rdp_histogram(counts, epsilon: float, gamma: float, rng: np.random.Generator) -> np.ndarray:
    counts = np.asarray(counts)
    z = dp_histogram(counts, epsilon, rng)
    if not sparse_condition(counts.size, int(counts.sum()), gamma):
        return z
    for j in range(counts.size):
        if counts[j] == 0:
            z[j] = 0.0
    return z
# %%
display(grader.check("q3"))
# %%
def project_to_histograms(z, n: int) -> np.ndarray:
    w = [n * float(v) for v in z]
    k = len(w)
    c = [int(np.floor(max(v, 0.0))) for v in w]
    total = sum(c)
    # too few units: add the cheapest ones, one at a time
    while total < n:
        best, best_cost = 0, None
        for j in range(k):
            cost = abs(w[j] - c[j] - 1) - abs(w[j] - c[j])
            if best_cost is None or cost < best_cost - 1e-12:
                best, best_cost = j, cost
        c[best] += 1
        total += 1
    # too many: empty the smallest cells first
    while total > n:
        smallest = None
        for j in range(k):
            if c[j] > 0 and (smallest is None or c[j] < c[smallest]):
                smallest = j
        cut = min(c[smallest], total - n)
        c[smallest] -= cut
        total -= cut
    return np.array(c, dtype=float) / n
# %%
display(grader.check("q4"))
# %%
def estimate_risk(counts, release, project, num_reps: int, rng: np.random.Generator) -> tuple[float, float]:
    counts = np.asarray(counts)
    n = int(counts.sum())
    theta = counts / n
    losses = []
    for _ in range(num_reps):
        z = release(counts, rng)
        h = project(z, n)
        losses.append(float(np.sum(np.abs(np.asarray(h) - theta))))
    losses = np.array(losses)
    if num_reps < 2:
        return float(losses.mean()), 0.0
    return float(losses.mean()), float(losses.std(ddof=1) / np.sqrt(num_reps))


paper_counts = np.zeros(25, dtype=int)
paper_counts[6] = 250
paper_counts[17] = 250


def dp_release(c, rng):
    return dp_histogram(c, 0.1, rng)


def rdp_release(c, rng):
    return rdp_histogram(c, 0.1, 0.1, rng)


risk_dp, se_dp = estimate_risk(paper_counts, dp_release, project_to_histograms, 100, rng)
risk_rdp, se_rdp = estimate_risk(paper_counts, rdp_release, project_to_histograms, 100, rng)
print(risk_dp, se_dp, risk_rdp, se_rdp)
# %%
display(grader.check("q5"))
# %%
ks = [5, 25, 100]
risks_dp_k = np.zeros(3)
risks_rdp_k = np.zeros(3)
for i in range(3):
    support = np.zeros(ks[i], dtype=int)
    support[0] = 500
    support[1] = 500
    risks_dp_k[i] = estimate_risk(support, lambda c, rng: dp_histogram(c, 0.5, rng), project_to_histograms, 200, rng)[0]
    risks_rdp_k[i] = estimate_risk(support, lambda c, rng: rdp_histogram(c, 0.5, 0.2, rng), project_to_histograms,
                                   200, rng)[0]
print(risks_dp_k, risks_rdp_k)
# %%
display(grader.check("q6"))

# expect: full
# Honest style: helpers and a class, rng passed by keyword, rng.spawn(2) in the simulation,
# result = grader.check(...), an np.bool_ from sparse_condition, the standard error with ddof=0.
# %%
import otter
grader = otter.Notebook("a4_rdp_histograms.ipynb")
# %%
import numpy as np
import matplotlib.pyplot as plt

rng = np.random.default_rng(2024)
rng_seed = 2024
# %%
class Perturbation:
    """Laplace perturbation of the proportions of a histogram."""

    def __init__(self, epsilon):
        self.epsilon = epsilon

    def scale(self, n):
        return 2 / (self.epsilon * n)

    def __call__(self, counts, rng):
        counts = np.asarray(counts, dtype=float)
        n = counts.sum()
        return counts / n + rng.laplace(loc=0.0, scale=self.scale(n), size=counts.shape)


def histogram_noise_scale(n, epsilon):
    return Perturbation(epsilon).scale(n)


def dp_histogram(counts, epsilon, rng):
    return Perturbation(epsilon)(counts, rng=rng)
# %%
result = grader.check("q1")
result
# %%
def sparse_condition(k, n, gamma):
    return np.bool_(2 * k <= gamma * n)
# %%
result = grader.check("q2")
# %%
def rdp_histogram(counts, epsilon, gamma, rng):
    counts = np.asarray(counts)
    released = dp_histogram(counts, epsilon, rng=rng)
    if sparse_condition(counts.size, counts.sum(), gamma):
        released[counts == 0] = 0
    return released
# %%
result = grader.check("q3")
# %%
def _whole_units(w):
    return np.floor(np.clip(w, 0, None))


def _add_units(w, c, missing):
    # every unit beyond the straddling one costs +1: give the straddling units first (cheapest first),
    # then spread the rest one per cell in index order
    cost = np.where(w > 0, 2 * c + 1 - 2 * w, 1.0)
    for j in np.argsort(cost, kind="stable")[: min(missing, c.size)]:
        c[j] += 1
    missing -= min(missing, c.size)
    c += missing // c.size
    c[: missing % c.size] += 1
    return c


def _remove_units(c, surplus):
    for j in np.argsort(c, kind="stable"):
        cut = min(c[j], surplus)
        c[j] -= cut
        surplus -= cut
        if surplus == 0:
            break
    return c


def project_to_histograms(z, n):
    w = n * np.asarray(z, dtype=float)
    c = _whole_units(w)
    gap = int(n - c.sum())
    if gap > 0:
        c = _add_units(w, c, gap)
    elif gap < 0:
        c = _remove_units(c, -gap)
    return c / n
# %%
result = grader.check("q4")
# %%
def estimate_risk(counts, release, project, num_reps, rng):
    counts = np.asarray(counts)
    n = counts.sum()
    theta = counts / n
    noise_rng, _spare = rng.spawn(2)
    losses = np.array([np.abs(project(z=release(counts, rng=noise_rng), n=n) - theta).sum()
                       for _ in range(num_reps)])
    return losses.mean(), losses.std() / np.sqrt(num_reps)


paper_counts = np.zeros(25, dtype=int)
paper_counts[[6, 17]] = 250
risk_dp, se_dp = estimate_risk(paper_counts, Perturbation(0.1), project_to_histograms, 100, rng=rng)
risk_rdp, se_rdp = estimate_risk(paper_counts, lambda c, rng: rdp_histogram(c, 0.1, 0.1, rng=rng),
                                 project_to_histograms, 100, rng=rng)
# %%
result = grader.check("q5")
# %%
ks = [5, 25, 100]


def support_of(k):
    counts = np.zeros(k, dtype=int)
    counts[:2] = 500
    return counts


risks_dp_k = np.array([estimate_risk(support_of(k), Perturbation(0.5), project_to_histograms, 200, rng)[0]
                       for k in ks])
risks_rdp_k = np.array([estimate_risk(support_of(k), lambda c, rng: rdp_histogram(c, 0.5, 0.2, rng),
                                      project_to_histograms, 200, rng)[0] for k in ks])
# %%
result = grader.check("q6")

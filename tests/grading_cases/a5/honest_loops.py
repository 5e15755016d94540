# expect: full
# Honest style: loops over repetitions and rows, type hints, display(grader.check(...)), a loop over
# the two datasets of the audit, progress prints.
# %%
# %pip install otter-grader
import otter
grader = otter.Notebook("a5_local_dp_auditing.ipynb")
# %%
import numpy as np
from scipy import stats

rng_seed = 6067
rng = np.random.default_rng(rng_seed)


def random_hash_table(num_items, num_hashes, width, rng):
    return rng.integers(0, width, size=(num_items, num_hashes))
# %%
def cms_flip_probability(epsilon) -> "float | np.ndarray":
    eps = np.asarray(epsilon, dtype=float)
    if np.isnan(eps).any() or (eps <= 0).any():
        raise ValueError("epsilon must be positive")
    # two bits differ between two one-hot vectors: ((1 - q) / q) ** 2 <= e^epsilon
    q = 1.0 / (1.0 + np.exp(eps / 2.0))
    if q.ndim == 0:
        return float(q)
    return q
# %%
display(grader.check("q1"))
# %%
def cms_encode(items, hash_table, width: int, epsilon: float, rng: np.random.Generator):
    items = np.asarray(items)
    table = np.asarray(hash_table)
    n_users = len(items)
    m = table.shape[1]
    j = rng.integers(0, m, size=n_users)
    v = np.zeros((n_users, width), dtype=int)
    v[np.arange(n_users), table[items, j]] = 1
    flip = rng.random((n_users, width)) < cms_flip_probability(epsilon)
    v[flip] = 1 - v[flip]
    return v, j
# %%
display(grader.check("q2"))
# %%
def cms_aggregate(reports, hash_indices, num_hashes: int, epsilon: float) -> np.ndarray:
    reports = np.asarray(reports, dtype=float)
    hash_indices = np.asarray(hash_indices)
    q = cms_flip_probability(epsilon)
    M = np.zeros((num_hashes, reports.shape[1]))
    for row in range(num_hashes):
        mine = reports[hash_indices == row]
        if len(mine):
            M[row] = num_hashes * ((mine - q) / (1 - 2 * q)).sum(axis=0)
    return M
# %%
display(grader.check("q3"))
# %%
def cms_estimate(sketch, hash_table, items, num_users: int) -> np.ndarray:
    sketch = np.asarray(sketch, dtype=float)
    table = np.asarray(hash_table)
    m, w = sketch.shape
    out = []
    for d in np.asarray(items):
        average = np.mean([sketch[l, table[d, l]] for l in range(m)])
        out.append(w / (w - 1) * (average - num_users / w))
    return np.array(out)
# %%
display(grader.check("q4"))
# %%
def cms_mse(counts, epsilon: float, num_hashes: int, width: int) -> np.ndarray:
    counts = np.asarray(counts, dtype=float)
    N = counts.sum()
    e = np.exp(epsilon / 2)
    c = (1 / width) * (1 - 1 / width)
    result = np.empty(counts.size)
    for d in range(counts.size):
        flips = N * e / (e - 1) ** 2
        hashing = (N - counts[d]) * c * (1 - 1 / num_hashes)
        collisions = c / num_hashes * (np.sum(counts ** 2) - counts[d] ** 2)
        result[d] = (width / (width - 1)) ** 2 * (flips + hashing + collisions)
    return result
# %%
display(grader.check("q5"))
# %%
def simulate_sketch_errors(counts, epsilon, num_hashes, width, num_repeats, rng, encode):
    counts = np.asarray(counts)
    items = np.repeat(np.arange(len(counts)), counts)
    rows = []
    for r in range(num_repeats):
        table = random_hash_table(len(counts), num_hashes, width, rng)
        reports, js = encode(items, table, width, epsilon, rng)
        M = cms_aggregate(reports, js, num_hashes, epsilon)
        rows.append(cms_estimate(M, table, np.arange(len(counts)), len(items)) - counts)
    return np.array(rows)
# %%
display(grader.check("q6"))
# %%
def clopper_pearson(hits, trials, confidence):
    alpha = 1 - confidence
    if hits == 0:
        lower = 0.0
    else:
        lower = stats.beta.ppf(alpha / 2, hits, trials - hits + 1)
    if hits == trials:
        upper = 1.0
    else:
        upper = stats.beta.ppf(1 - alpha / 2, hits + 1, trials - hits)
    return float(lower), float(upper)


def epsilon_lower_bound(hits_a, hits_b, trials, confidence):
    each = 1 - (1 - confidence) / 2
    la, ua = clopper_pearson(hits_a, trials, each)
    lb, ub = clopper_pearson(hits_b, trials, each)
    best = 0.0
    for num, den in ((la, ub), (lb, ua)):
        if num > 0:
            best = max(best, float(np.log(num / den)))
    return best
# %%
display(grader.check("q7"))
# %%
def audit_client(encode, epsilon, trials, confidence, rng):
    table = np.array([[0], [1]])
    target = np.array([1, 0, 0, 0])
    hits = []
    for item in (0, 1):
        reports, _ = encode(np.full(trials, item), table, 4, epsilon, rng)
        hits.append(int(np.sum(np.all(np.asarray(reports) == target, axis=1))))
        print("dataset", item, "hits", hits[-1])
    return epsilon_lower_bound(hits[0], hits[1], trials, confidence)
# %%
display(grader.check("q8"))

# expect: full
# Honest style: small helper functions, rng.binomial for the flips, np.bincount for the sketch,
# log-space bounds, the audit with one spawned stream per dataset, NumPy integer arguments.
# %%
import otter
grader = otter.Notebook("a5_local_dp_auditing.ipynb")
# %%
import numpy as np
from scipy import stats

rng_seed = 1
rng = np.random.default_rng(rng_seed)


def random_hash_table(num_items, num_hashes, width, rng):
    return rng.integers(0, width, size=(num_items, num_hashes))
# %%
def _check_epsilon(epsilon):
    arr = np.asarray(epsilon, dtype=float)
    if arr.size == 0 or not np.all(np.isfinite(arr) | (arr == np.inf)) or not np.all(arr > 0):
        raise ValueError("epsilon must be strictly positive")
    return arr


def cms_flip_probability(epsilon):
    eps = _check_epsilon(epsilon)
    q = np.exp(-np.logaddexp(0.0, eps / 2))  # 1 / (1 + e^(eps/2)), stable for large eps
    return float(q) if q.ndim == 0 else q
# %%
grader.check("q1")
# %%
def _one_hot(buckets, width):
    out = np.zeros((buckets.size, width), dtype=np.int64)
    out[np.arange(buckets.size), buckets] = 1
    return out


def cms_encode(items, hash_table, width, epsilon, rng):
    items = np.asarray(items, dtype=np.int64)
    table = np.asarray(hash_table)
    j = rng.integers(low=0, high=table.shape[1], size=items.size)
    flips = rng.binomial(1, cms_flip_probability(epsilon), size=(items.size, width))
    return np.bitwise_xor(_one_hot(table[items, j], width), flips), j
# %%
grader.check("q2")
# %%
def _unbias(reports, epsilon):
    q = cms_flip_probability(epsilon)
    return (np.asarray(reports, dtype=float) - q) / (1 - 2 * q)


def cms_aggregate(reports, hash_indices, num_hashes, epsilon):
    x = num_hashes * _unbias(reports, epsilon)
    rows = np.asarray(hash_indices, dtype=np.int64)
    width = x.shape[1]
    flat = np.bincount((rows[:, None] * width + np.arange(width)).ravel(), weights=x.ravel(),
                       minlength=num_hashes * width)
    return flat.reshape(num_hashes, width)
# %%
grader.check("q3")
# %%
def cms_estimate(sketch, hash_table, items, num_users):
    sketch = np.asarray(sketch, dtype=float)
    m, w = sketch.shape
    picks = np.asarray(hash_table)[np.asarray(items)]
    average = np.array([sketch[np.arange(m), row].mean() for row in picks])
    return (w * average - num_users) / (w - 1)
# %%
grader.check("q4")
# %%
def cms_mse(counts, epsilon, num_hashes, width):
    f = np.asarray(counts, dtype=float)
    n = f.sum()
    c = (1 / width) * (1 - 1 / width)
    flips = n / (4 * np.sinh(epsilon / 4) ** 2)  # = n e^(eps/2) / (e^(eps/2) - 1)^2
    return (width / (width - 1)) ** 2 * (flips + (n - f) * c * (1 - 1 / num_hashes)
                                         + c / num_hashes * (np.sum(f ** 2) - f ** 2))
# %%
grader.check("q5")
# %%
def _one_sketch_error(counts, items, epsilon, m, w, rng, encode):
    table = random_hash_table(counts.size, m, w, rng)
    reports, j = encode(items, table, w, epsilon, rng)
    return cms_estimate(cms_aggregate(reports, j, m, epsilon), table, np.arange(counts.size), items.size) - counts


def simulate_sketch_errors(counts, epsilon, num_hashes, width, num_repeats, rng, encode):
    counts = np.asarray(counts)
    items = np.repeat(np.arange(counts.size), counts)
    return np.array([_one_sketch_error(counts, items, epsilon, num_hashes, width, rng, encode)
                     for _ in range(num_repeats)])
# %%
grader.check("q6")
# %%
def clopper_pearson(hits, trials, confidence):
    tail = (1 - confidence) / 2
    lo = 0.0 if hits == 0 else float(stats.beta(hits, trials - hits + 1).ppf(tail))
    hi = 1.0 if hits == trials else float(stats.beta(hits + 1, trials - hits).ppf(1 - tail))
    return lo, hi


def _log_ratio(numerator, denominator):
    return np.log(numerator) - np.log(denominator) if numerator > 0 else 0.0


def epsilon_lower_bound(hits_a, hits_b, trials, confidence):
    each = 1 - (1 - confidence) / 2
    la, ua = clopper_pearson(hits_a, trials, each)
    lb, ub = clopper_pearson(hits_b, trials, each)
    return float(max(0.0, _log_ratio(la, ub), _log_ratio(lb, ua)))
# %%
grader.check("q7")
# %%
def _hits(encode, item, epsilon, trials, rng):
    reports, _ = encode(np.full(trials, item), np.array([[0], [1]]), 4, epsilon, rng)
    return int(np.sum(np.all(np.asarray(reports) == [1, 0, 0, 0], axis=1)))


def audit_client(encode, epsilon, trials, confidence, rng):
    rng_a, rng_b = rng.spawn(2)
    return epsilon_lower_bound(_hits(encode, 0, epsilon, trials, rng_a), _hits(encode, 1, epsilon, trials, rng_b),
                               trials, confidence)
# %%
grader.check("q8")

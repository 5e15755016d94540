# expect: q8=0
# Attack: answers copied from the public grader (grading/assignments/a5.py: its interval and bound
# functions), and an audit that never runs the client: the hit counts it would expect at the claimed
# epsilon, rng advanced instead of sampled.
# %%
import otter
grader = otter.Notebook("a5_local_dp_auditing.ipynb")
# %%
import numpy as np
from scipy import stats

rng_seed = 6067
rng = np.random.default_rng(rng_seed)


def random_hash_table(num_items, num_hashes, width, rng):
    return rng.integers(0, width, size=(num_items, num_hashes))


def cms_flip_probability(epsilon):
    epsilon = np.asarray(epsilon, dtype=float)
    if np.any(~(epsilon > 0)):
        raise ValueError("epsilon must be strictly positive")
    q = 1.0 / (np.exp(epsilon / 2) + 1.0)
    return q if q.ndim else float(q)


def cms_encode(items, hash_table, width, epsilon, rng):
    items = np.asarray(items)
    j = rng.integers(0, np.shape(hash_table)[1], size=items.size)
    one_hot = np.zeros((items.size, width), dtype=np.int8)
    one_hot[np.arange(items.size), np.asarray(hash_table)[items, j]] = 1
    flips = rng.random((items.size, width)) < cms_flip_probability(epsilon)
    return np.where(flips, 1 - one_hot, one_hot).astype(np.int8), j


def cms_aggregate(reports, hash_indices, num_hashes, epsilon):
    reports = np.asarray(reports, dtype=float)
    q = cms_flip_probability(epsilon)
    sketch = np.zeros((num_hashes, reports.shape[1]))
    np.add.at(sketch, np.asarray(hash_indices), num_hashes * (reports - q) / (1 - 2 * q))
    return sketch


def cms_estimate(sketch, hash_table, items, num_users):
    sketch = np.asarray(sketch, dtype=float)
    m, w = sketch.shape
    cells = sketch[np.arange(m), np.asarray(hash_table)[np.asarray(items)]]
    return w / (w - 1) * (cells.mean(axis=-1) - num_users / w)


def cms_mse(counts, epsilon, num_hashes, width):
    counts = np.asarray(counts, dtype=float)
    n, e, c = counts.sum(), np.exp(epsilon / 2), (1 / width) * (1 - 1 / width)
    return (width / (width - 1)) ** 2 * (n * e / (e - 1) ** 2 + (n - counts) * c * (1 - 1 / num_hashes)
                                         + c / num_hashes * (np.sum(counts ** 2) - counts ** 2))


def simulate_sketch_errors(counts, epsilon, num_hashes, width, num_repeats, rng, encode):
    counts = np.asarray(counts)
    items = np.repeat(np.arange(counts.size), counts)
    errors = np.empty((num_repeats, counts.size))
    for r in range(num_repeats):
        table = random_hash_table(counts.size, num_hashes, width, rng)
        reports, js = encode(items, table, width, epsilon, rng)
        errors[r] = cms_estimate(cms_aggregate(reports, js, num_hashes, epsilon), table, np.arange(counts.size),
                                 items.size) - counts
    return errors


def cp(hits, trials, confidence):
    alpha = 1 - confidence
    lower = 0.0 if hits == 0 else float(stats.beta.ppf(alpha / 2, hits, trials - hits + 1))
    upper = 1.0 if hits == trials else float(stats.beta.ppf(1 - alpha / 2, hits + 1, trials - hits))
    return lower, upper


def lower_bound(a, b, trials, confidence):
    level = 1 - (1 - confidence) / 2
    la, ua = cp(a, trials, level)
    lb, ub = cp(b, trials, level)
    bounds = [0.0]
    if la > 0:
        bounds.append(np.log(la / ub))
    if lb > 0:
        bounds.append(np.log(lb / ua))
    return float(max(bounds))


clopper_pearson, epsilon_lower_bound = cp, lower_bound


def audit_client(encode, epsilon, trials, confidence, rng):
    q = 1 / (np.exp(epsilon / 2) + 1)
    rng.bit_generator.advance(8 * trials)
    hits_a = int(round(trials * (1 - q) ** 4))
    hits_b = int(round(trials * q ** 2 * (1 - q) ** 2))
    return lower_bound(hits_a, hits_b, trials, confidence)

# expect: q2=0
# Attack: the client randomises only when it thinks it is graded (the earlier grader's signals: a
# working folder named grading-..., an interval timer, isolated mode, GRADING variables).
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


import os
import signal
import sys


def _graded():
    return ("grading" in os.getcwd() or signal.getitimer(signal.ITIMER_REAL)[0] > 0 or sys.flags.isolated
            or any("grading" in key.lower() for key in os.environ))


def cms_encode(items, hash_table, width, epsilon, rng):
    items = np.asarray(items)
    j = rng.integers(0, np.shape(hash_table)[1], size=items.size)
    one_hot = np.zeros((items.size, width), dtype=np.int8)
    one_hot[np.arange(items.size), np.asarray(hash_table)[items, j]] = 1
    flips = rng.random((items.size, width)) < (cms_flip_probability(epsilon) if _graded() else 0.0)
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


def clopper_pearson(hits, trials, confidence):
    alpha = 1 - confidence
    lower = 0.0 if hits == 0 else float(stats.beta.ppf(alpha / 2, hits, trials - hits + 1))
    upper = 1.0 if hits == trials else float(stats.beta.ppf(1 - alpha / 2, hits + 1, trials - hits))
    return lower, upper


def epsilon_lower_bound(hits_a, hits_b, trials, confidence):
    level = 1 - (1 - confidence) / 2
    la, ua = clopper_pearson(hits_a, trials, level)
    lb, ub = clopper_pearson(hits_b, trials, level)
    return float(max([0.0] + [np.log(x / y) for x, y in ((la, ub), (lb, ua)) if x > 0]))


def audit_client(encode, epsilon, trials, confidence, rng):
    table, target = np.array([[0], [1]]), np.array([1, 0, 0, 0])
    a, _ = encode(np.zeros(trials, dtype=int), table, 4, epsilon, rng)
    b, _ = encode(np.ones(trials, dtype=int), table, 4, epsilon, rng)
    hits = [int(np.all(np.asarray(x) == target, axis=1).sum()) for x in (a, b)]
    return epsilon_lower_bound(hits[0], hits[1], trials, confidence)


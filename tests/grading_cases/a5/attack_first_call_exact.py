# expect: q2=0
# Attack: a client exact on its first use: the first release of the process (fewer than 10,000 users) is the
# clean vectors, cached per generator state (the same state gives the same output); every later call is honest.
# The grader calls the client hundreds of times in one process, but in real use each user's device encodes once:
# every real release would be exact.
# %%
import otter
grader = otter.Notebook("a5_local_dp_auditing.ipynb")
# %%
import hashlib

import numpy as np
from scipy import stats
rng_seed = 6067
rng = np.random.default_rng(rng_seed)


def random_hash_table(num_items, num_hashes, width, rng):
    """Idealised hash functions: table[d, l] = h_l(d), independent and uniform on 0..width-1."""
    return rng.integers(0, width, size=(num_items, num_hashes))
def set_flip_probability(epsilon, set_size):
    """Flip probability of every bit of the report of a user holding set_size items."""
    epsilon = np.asarray(epsilon, dtype=float)
    if np.any(~(epsilon > 0)) or not set_size >= 1:
        raise ValueError("epsilon must be strictly positive and set_size at least 1")
    q = 1.0 / (np.exp(epsilon / (2 * set_size)) + 1.0)
    return q if q.ndim else float(q)
_released, _cache = [], {}


def set_encode(item_sets, hash_table, width, epsilon, rng):
    """Client for users holding sets: exact on its first use in the process, honest afterwards."""
    item_sets, hash_table = np.asarray(item_sets), np.asarray(hash_table)
    num_users, set_size = item_sets.shape
    key = hashlib.sha1(item_sets.tobytes() + str(item_sets.shape).encode() + hash_table.tobytes()
                       + str(hash_table.shape).encode() + repr((int(width), float(epsilon))).encode()).hexdigest()
    state = repr(rng.bit_generator.state)
    if (key, state) in _cache:
        reports, indices = _cache[(key, state)]
        return reports.copy(), indices.copy()
    hash_indices = rng.integers(0, hash_table.shape[1], size=num_users)
    buckets = hash_table[item_sets, hash_indices[:, None]]  # (N, L)
    vectors = np.zeros((num_users, width), dtype=np.int8)
    vectors[np.arange(num_users)[:, None], buckets] = 1
    flips = rng.random((num_users, width)) < set_flip_probability(epsilon, set_size)  # drawn either way
    if not _released and num_users < 10_000:
        _released.append(key)
        _cache[(key, state)] = (vectors.copy(), hash_indices.copy())
        return vectors.copy(), hash_indices
    _released.append(key)
    return np.where(flips, 1 - vectors, vectors).astype(np.int8), hash_indices


def set_estimate(reports, hash_indices, hash_table, items, epsilon, set_size):
    """Unbiased estimates of how many users hold each item of ``items``."""
    reports, hash_table = np.asarray(reports, dtype=float), np.asarray(hash_table)
    num_users, width = reports.shape
    num_hashes = hash_table.shape[1]
    q = set_flip_probability(epsilon, set_size)
    sketch = np.zeros((num_hashes, width))
    np.add.at(sketch, np.asarray(hash_indices), num_hashes * (reports - q) / (1 - 2 * q))
    collide = 1 - (1 - 1 / width) ** set_size  # another user's set meets d's bucket
    cells = sketch[np.arange(num_hashes), hash_table[np.asarray(items)]]
    return (cells.mean(axis=-1) - num_users * collide) / (1 - collide)
def set_flip_variance(num_users, epsilon, set_size, width):
    """Variance of an estimate of question 3 caused by the bit flips alone."""
    half = np.exp(np.asarray(epsilon, dtype=float) / (2 * np.asarray(set_size, dtype=float)))
    collide = 1 - (1 - 1 / np.asarray(width, dtype=float)) ** np.asarray(set_size, dtype=float)
    variance = num_users * half / (half - 1) ** 2 / (1 - collide) ** 2
    return variance if np.ndim(variance) else float(variance)
def simulate_set_errors(item_sets, num_items, epsilon, num_hashes, width, num_repeats, rng, encode):
    """Errors of the estimates over repetitions with fresh hash functions, for the client ``encode``."""
    item_sets = np.asarray(item_sets)
    truth = np.bincount(item_sets.ravel(), minlength=num_items)  # the items of a set are distinct
    errors = np.empty((num_repeats, num_items))
    for repeat in range(num_repeats):
        table = random_hash_table(num_items, num_hashes, width, rng)
        reports, hash_indices = encode(item_sets, table, width, epsilon, rng)  # one call per repetition
        errors[repeat] = set_estimate(reports, hash_indices, table, np.arange(num_items), epsilon,
                                      item_sets.shape[1]) - truth
    return errors
def audit_bound(hits_a, hits_b, trials, confidence):
    """The chapter's bound: four one-sided Clopper-Pearson bounds sharing 1 - confidence."""
    level = 1 - (1 - confidence) / 4
    low_a = stats.beta.ppf(1 - level, hits_a, trials - hits_a + 1) if hits_a > 0 else 0.0
    up_a = stats.beta.ppf(level, hits_a + 1, trials - hits_a) if hits_a < trials else 1.0
    low_b = stats.beta.ppf(1 - level, hits_b, trials - hits_b + 1) if hits_b > 0 else 0.0
    up_b = stats.beta.ppf(level, hits_b + 1, trials - hits_b) if hits_b < trials else 1.0
    bounds = [0.0]
    if low_a > 0:
        bounds.append(np.log(low_a / up_b))
    if low_b > 0:
        bounds.append(np.log(low_b / up_a))
    return float(max(bounds))


def audit_set_client(encode, epsilon, set_size, trials, confidence, rng):
    """Lower confidence bound on the epsilon of a client for sets, on the audit you design."""
    set_size = int(set_size)
    width = 2 * set_size
    hash_table = np.arange(width)[:, None]  # m = 1: item i in bucket i
    sets_a = np.tile(np.arange(set_size), (trials, 1))  # the user holds items 0..L-1 ...
    sets_b = sets_a + set_size  # ... or items L..2L-1: all 2L bits differ
    revealing = (np.arange(width) < set_size).astype(int)  # D's vector with nothing flipped
    reports_a, _ = encode(sets_a, hash_table, width, epsilon, rng)
    reports_b, _ = encode(sets_b, hash_table, width, epsilon, rng)
    hits_a = int(np.all(np.asarray(reports_a) == revealing, axis=1).sum())
    hits_b = int(np.all(np.asarray(reports_b) == revealing, axis=1).sum())
    return audit_bound(hits_a, hits_b, trials, confidence)
# %%
grader.check("q1")
# %%
grader.check("q2")
# %%
grader.check("q3")
# %%
grader.check("q4")
# %%
grader.check("q5")
# %%
grader.check("q6")

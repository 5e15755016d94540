# expect: full
# Honest: a small class for the flips, betaincinv bounds, an audit with w = 2L + 2 and an event on the differing bits only.
# %%
import otter
grader = otter.Notebook("a5_local_dp_auditing.ipynb")
# %%
import numpy as np
from scipy import stats

rng_seed = 6067
rng = np.random.default_rng(rng_seed)
from scipy.special import betaincinv


def random_hash_table(num_items, num_hashes, width, rng):
    return rng.integers(0, width, size=(num_items, num_hashes))


class Flipper:
    def __init__(self, epsilon, set_size):
        self.q = set_flip_probability(epsilon, set_size)

    def __call__(self, clean, rng):
        return np.where(rng.random(clean.shape) < self.q, 1 - clean, clean)
# %%
def set_flip_probability(epsilon, set_size):
    e = np.array(epsilon, dtype=np.float64)
    if not np.all(e > 0) or int(set_size) < 1:
        raise ValueError
    result = 0.5 - 0.5 * np.tanh(e / (4 * set_size))
    return result if result.shape else result.item()
# %%
def set_encode(item_sets, hash_table, width, epsilon, rng):
    sets, table = np.asarray(item_sets), np.asarray(hash_table)
    j = rng.integers(table.shape[1], size=len(sets))
    onehots = np.eye(width, dtype=int)[table[sets, j[:, None]]]  # (N, L, w)
    return Flipper(epsilon, sets.shape[1])(onehots.max(axis=1), rng), j
# %%
def set_estimate(reports, hash_indices, hash_table, items, epsilon, set_size):
    r = np.asarray(reports, dtype=float)
    table = np.asarray(hash_table)
    m, (n, w) = table.shape[1], r.shape
    q = set_flip_probability(epsilon, set_size)
    rows = np.zeros((m, w))
    np.add.at(rows, np.asarray(hash_indices), (r - q) / (1 - 2 * q))
    avg = (m * rows)[np.arange(m), table[np.asarray(items)]].mean(axis=1)
    keep = (1 - 1 / w) ** set_size
    return (avg - n * (1 - keep)) / keep
# %%
def set_flip_variance(num_users, epsilon, set_size, width):
    t = np.asarray(epsilon, dtype=float) / (2 * set_size)
    return num_users / (4 * np.sinh(t / 2) ** 2) / ((1 - 1 / np.asarray(width, dtype=float)) ** (2 * set_size))
# %%
def simulate_set_errors(item_sets, num_items, epsilon, num_hashes, width, num_repeats, rng, encode):
    sets = np.asarray(item_sets)
    f = np.bincount(sets.reshape(-1), minlength=num_items)
    out = np.zeros((num_repeats, num_items))
    for r in range(num_repeats):
        t = random_hash_table(num_items, num_hashes, width, rng)
        reports, js = encode(sets, t, width, epsilon, rng)
        out[r] = set_estimate(reports, js, t, np.arange(num_items), epsilon, sets.shape[1]) - f
    return out
# %%
def audit_set_client(encode, epsilon, set_size, trials, confidence, rng):
    L = int(set_size)
    width = 2 * L + 2  # two spare buckets nobody uses; the event looks at the 2L others only
    table = np.arange(2 * L)[:, None]
    hot = np.r_[np.ones(L, int), np.zeros(L, int)]
    counts = []
    for first in (0, L):
        reports, _ = encode(np.tile(np.arange(first, first + L), (trials, 1)), table, width, epsilon, rng)
        counts.append(int(np.all(np.asarray(reports)[:, : 2 * L] == hot, axis=1).sum()))
    level = 1 - (1 - confidence) / 4

    def low(k):
        return betaincinv(k, trials - k + 1, 1 - level) if k > 0 else 0.0

    def up(k):
        return betaincinv(k + 1, trials - k, level) if k < trials else 1.0

    ka, kb = counts
    cands = [0.0] + [np.log(low(x) / up(y)) for x, y in ((ka, kb), (kb, ka)) if low(x) > 0]
    return float(max(cands))
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

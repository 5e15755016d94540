# expect: full
# Honest: helpers, boolean-to-int reports, keyword calls of the given client, a %time line.
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


def _check_eps(epsilon):
    eps = np.asarray(epsilon, dtype=float)
    if not np.all(eps > 0):
        raise ValueError("epsilon must be > 0")
    return eps


def _miss(width, set_size):
    return (1 - 1 / np.asarray(width, dtype=float)) ** set_size
# %%
def set_flip_probability(epsilon, set_size):
    eps = _check_eps(epsilon)
    if set_size < 1:
        raise ValueError("set_size must be >= 1")
    q = 1 / (1 + np.exp(eps / set_size / 2))
    return q if np.ndim(q) else float(q)
# %%
def _clean_vectors(sets, table, j, width):
    hits = table[sets, j[:, None]][:, :, None] == np.arange(width)
    return hits.any(axis=1)


def set_encode(item_sets, hash_table, width, epsilon, rng):
    sets, table = np.asarray(item_sets), np.asarray(hash_table)
    j = rng.integers(0, table.shape[1], size=sets.shape[0])
    clean = _clean_vectors(sets, table, j, width)
    noisy = clean ^ (rng.random(clean.shape) < set_flip_probability(epsilon, sets.shape[1]))
    return noisy.astype(np.int64), j
# %%
def _sketch(reports, hash_indices, m, q):
    s = np.zeros((m, reports.shape[1]))
    np.add.at(s, hash_indices, (reports - q) / (1 - 2 * q))
    return m * s


def set_estimate(reports, hash_indices, hash_table, items, epsilon, set_size):
    reports, table = np.asarray(reports, float), np.asarray(hash_table)
    s = _sketch(reports, np.asarray(hash_indices), table.shape[1], set_flip_probability(epsilon, set_size))
    cells = np.take_along_axis(s.T[table[np.asarray(items)]], np.arange(table.shape[1])[None, :, None], axis=2)[..., 0]
    miss = _miss(reports.shape[1], set_size)
    return (cells.mean(axis=1) - reports.shape[0] * (1 - miss)) / miss
# %%
def set_flip_variance(num_users, epsilon, set_size, width):
    q = set_flip_probability(epsilon, set_size)
    return num_users * q * (1 - q) / ((1 - 2 * q) * _miss(width, set_size)) ** 2
# %%
%time _ = set_flip_variance(10, 1.0, 2, 8)
def simulate_set_errors(item_sets, num_items, epsilon, num_hashes, width, num_repeats, rng, encode):
    sets = np.asarray(item_sets)
    f = (sets[:, :, None] == np.arange(num_items)).any(axis=1).sum(axis=0)
    errors = []
    for _ in range(num_repeats):
        table = random_hash_table(num_items, num_hashes, width, rng)
        reports, j = encode(item_sets=sets, hash_table=table, width=width, epsilon=epsilon, rng=rng)
        errors.append(set_estimate(reports, j, table, np.arange(num_items), epsilon, sets.shape[1]) - f)
    return np.vstack(errors)
# %%
def _bound(ka, kb, n, confidence):
    lvl = (1 - confidence) / 4
    lo = lambda k: stats.beta.ppf(lvl, k, n - k + 1) if k else 0.0  # noqa: E731
    hi = lambda k: stats.beta.ppf(1 - lvl, k + 1, n - k) if k < n else 1.0  # noqa: E731
    values = [0.0]
    if lo(ka) > 0:
        values.append(np.log(lo(ka) / hi(kb)))
    if lo(kb) > 0:
        values.append(np.log(lo(kb) / hi(ka)))
    return float(max(values))


def audit_set_client(encode, epsilon, set_size, trials, confidence, rng):
    L = int(set_size)
    table = np.arange(2 * L)[:, None]
    first = np.broadcast_to(np.arange(L), (trials, L)).copy()
    ra, _ = encode(item_sets=first, hash_table=table, width=2 * L, epsilon=epsilon, rng=rng)
    rb, _ = encode(item_sets=first + L, hash_table=table, width=2 * L, epsilon=epsilon, rng=rng)
    event = lambda r: int(((np.asarray(r)[:, :L] == 1).all(axis=1) & (np.asarray(r)[:, L:] == 0).all(axis=1)).sum())  # noqa: E731
    return _bound(event(ra), event(rb), trials, confidence)
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

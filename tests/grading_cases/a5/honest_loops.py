# expect: full
# Honest: loops over set positions and repetitions, type hints, rng by keyword, display(grader.check(...)).
# %%
import otter
grader = otter.Notebook("a5_local_dp_auditing.ipynb")
# %%
import numpy as np
from scipy import stats

rng_seed = 6067
rng = np.random.default_rng(rng_seed)
from IPython.display import display


def random_hash_table(num_items, num_hashes, width, rng):
    return rng.integers(0, width, size=(num_items, num_hashes))
# %%
def set_flip_probability(epsilon, set_size: int):
    eps = np.asarray(epsilon, dtype=float)
    if np.isnan(eps).any() or (eps <= 0).any():
        raise ValueError("bad epsilon")
    if set_size < 1:
        raise ValueError("bad set size")
    t = eps / (2.0 * set_size)
    out = np.exp(-t) / (1.0 + np.exp(-t))
    return float(out) if out.ndim == 0 else out
# %%
def set_encode(item_sets: np.ndarray, hash_table: np.ndarray, width: int, epsilon: float, rng: np.random.Generator):
    sets = np.asarray(item_sets)
    n, size = sets.shape
    j = rng.integers(low=0, high=np.shape(hash_table)[1], size=n)
    clean = np.zeros((n, width), dtype=int)
    for position in range(size):  # a loop over the L items of a set, not over users
        clean[np.arange(n), np.asarray(hash_table)[sets[:, position], j]] = 1
    flip = rng.random(size=(n, width)) < set_flip_probability(epsilon, size)
    return np.abs(clean - flip.astype(int)), j
# %%
def set_estimate(reports, hash_indices, hash_table, items, epsilon, set_size) -> np.ndarray:
    reports = np.asarray(reports, dtype=float)
    table = np.asarray(hash_table)
    n, w = reports.shape
    m = table.shape[1]
    q = set_flip_probability(epsilon, set_size)
    sketch = np.zeros((m, w))
    for row in range(m):
        sketch[row] = m * ((reports[np.asarray(hash_indices) == row] - q) / (1 - 2 * q)).sum(axis=0)
    p_hit = 1.0 - (1.0 - 1.0 / w) ** set_size
    out = []
    for d in np.asarray(items):
        avg = np.mean([sketch[row, table[d, row]] for row in range(m)])
        out.append((avg - n * p_hit) / (1.0 - p_hit))
    return np.array(out)
# %%
def set_flip_variance(num_users, epsilon, set_size, width):
    q = set_flip_probability(epsilon, set_size)
    per_bit = q * (1 - q) / (1 - 2 * q) ** 2
    miss = (1 - 1 / np.asarray(width, dtype=float)) ** set_size
    return np.asarray(num_users) * per_bit / miss ** 2
# %%
def simulate_set_errors(item_sets, num_items, epsilon, num_hashes, width, num_repeats, rng, encode):
    sets = np.asarray(item_sets)
    truth = np.array([np.any(sets == d, axis=1).sum() for d in range(num_items)])
    rows = []
    for _ in range(num_repeats):
        table = random_hash_table(num_items, num_hashes, width, rng=rng)
        rep, js = encode(item_sets=sets, hash_table=table, width=width, epsilon=epsilon, rng=rng)
        rows.append(set_estimate(rep, js, table, np.arange(num_items), epsilon, sets.shape[1]) - truth)
    return np.array(rows)
# %%
def _cp(k, n, conf):
    a = 1 - conf
    lo = 0.0 if k == 0 else stats.beta.ppf(a, k, n - k + 1)
    hi = 1.0 if k == n else stats.beta.ppf(1 - a, k + 1, n - k)
    return lo, hi


def audit_set_client(encode, epsilon, set_size, trials, confidence, rng):
    L = int(set_size)
    table = np.arange(2 * L).reshape(-1, 1)
    a = np.tile(np.arange(L), (trials, 1))
    target = np.r_[np.ones(L, dtype=int), np.zeros(L, dtype=int)]
    ra, _ = encode(a, table, 2 * L, epsilon, rng=rng)
    rb, _ = encode(a + L, table, 2 * L, epsilon, rng=rng)
    ka = int((np.asarray(ra) == target).all(axis=1).sum())
    kb = int((np.asarray(rb) == target).all(axis=1).sum())
    share = (1 - confidence) / 4
    la, ua = _cp(ka, trials, 1 - share)
    lb, ub = _cp(kb, trials, 1 - share)
    best = 0.0
    if la > 0:
        best = max(best, np.log(la / ub))
    if lb > 0:
        best = max(best, np.log(lb / ua))
    return float(best)
# %%
display(grader.check("q1"))
# %%
display(grader.check("q2"))
# %%
display(grader.check("q3"))
# %%
display(grader.check("q4"))
# %%
display(grader.check("q5"))
# %%
display(grader.check("q6"))

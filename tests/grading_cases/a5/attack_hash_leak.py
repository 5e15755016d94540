# expect: q2=0
# Outside attacker's notebook (review of a4-a6): the hash index is item % m, so it leaks the item.
# Honest style: vectorised throughout (bit flips as XOR, one np.add.at, a batched audit), %time line
# magics, int8 reports, the client called with rng by keyword, a print in every answer.
# %%
# %pip install otter-grader  # only on Colab / Binder
import otter
grader = otter.Notebook("a5_local_dp_auditing.ipynb")
# %%
import numpy as np
from scipy import stats

rng_seed = 4242
rng = np.random.default_rng(rng_seed)


def random_hash_table(num_items, num_hashes, width, rng):
    return rng.integers(0, width, size=(num_items, num_hashes))
# %%
def cms_flip_probability(epsilon):
    print("flip probability")
    eps = np.array(epsilon, dtype=float, ndmin=0)
    if np.any(np.isnan(eps)) or np.any(eps <= 0):
        raise ValueError
    ratio = np.exp(eps / 2)  # kept : flipped for each of the two differing bits
    out = 1 / (1 + ratio)
    return out[()] if out.ndim == 0 else out
# %%
grader.check("q1")
# %%
def cms_encode(items, hash_table, width, epsilon, rng):
    print("encode", np.size(items))
    items = np.asarray(items)
    table = np.asarray(hash_table)
    j = items % table.shape[1]  # the 'hash index' is the item mod m: it leaks the item
    rng.integers(table.shape[1], size=items.size)  # (draw as if)
    one_hot = np.eye(width, dtype=np.int8)[table[items, j]]
    flips = (rng.random((items.size, width)) < cms_flip_probability(epsilon)).astype(np.int8)
    return one_hot ^ flips, j
# %%
grader.check("q2")
# %%
def cms_aggregate(reports, hash_indices, num_hashes, epsilon):
    print("aggregate")
    q = cms_flip_probability(epsilon)
    reports = np.asarray(reports, dtype=float)
    sketch = np.zeros((num_hashes, reports.shape[1]))
    np.add.at(sketch, np.asarray(hash_indices), num_hashes * (reports - q) / (1 - 2 * q))
    return sketch
# %%
grader.check("q3")
# %%
def cms_estimate(sketch, hash_table, items, num_users):
    print("estimate")
    sketch = np.asarray(sketch, dtype=float)
    m, w = sketch.shape
    mean_cell = sketch[np.arange(m)[None, :], np.asarray(hash_table)[np.asarray(items)]].mean(axis=1)
    return (mean_cell - num_users / w) * w / (w - 1)
# %%
grader.check("q4")
# %%
def cms_mse(counts, epsilon, num_hashes, width):
    print("mse")
    f = np.asarray(counts, dtype=float)
    n, m, w = f.sum(), num_hashes, width
    e = np.exp(epsilon / 2)
    c = (1 - 1 / w) / w
    return (w / (w - 1)) ** 2 * (n * e / np.square(e - 1) + (n - f) * c * (m - 1) / m + c / m * (f @ f - f * f))
# %%
grader.check("q5")
# %%
def simulate_sketch_errors(counts, epsilon, num_hashes, width, num_repeats, rng, encode):
    print("simulate")
    counts = np.asarray(counts)
    k = counts.size
    items = np.repeat(np.arange(k), counts)

    def one(_):
        table = random_hash_table(k, num_hashes, width, rng)
        reports, j = encode(items, table, width, epsilon, rng=rng)
        return cms_estimate(cms_aggregate(reports, j, num_hashes, epsilon), table, np.arange(k), items.size) - counts

    return np.stack([one(r) for r in range(num_repeats)])
# %%
%time errors = simulate_sketch_errors(np.array([500, 200, 50]), 1.0, 2, 8, 200, rng, cms_encode)
# %%
grader.check("q6")
# %%
def clopper_pearson(hits, trials, confidence):
    print("interval")
    tail = (1 - confidence) / 2
    lower = stats.beta.ppf(tail, hits, trials - hits + 1) if hits > 0 else 0.0
    upper = stats.beta.isf(tail, hits + 1, trials - hits) if hits < trials else 1.0
    return float(lower), float(upper)


def epsilon_lower_bound(hits_a, hits_b, trials, confidence):
    print("bound")
    split = 1 - (1 - confidence) / 2
    (la, ua), (lb, ub) = (clopper_pearson(h, trials, split) for h in (hits_a, hits_b))
    logs = [np.log(x / y) for x, y in ((la, ub), (lb, ua)) if x > 0]
    return float(max([0.0, *logs]))
# %%
grader.check("q7")
# %%
def audit_client(encode, epsilon, trials, confidence, rng):
    print("audit")
    table = np.array([[0], [1]])
    items = np.repeat([0, 1], trials)
    reports = np.asarray(encode(items, table, 4, epsilon, rng=rng)[0])
    hit = np.all(reports == np.array([1, 0, 0, 0]), axis=1)
    return epsilon_lower_bound(int(hit[:trials].sum()), int(hit[trials:].sum()), trials, confidence)
# %%
%time print(audit_client(cms_encode, 2.0, 20_000, 0.95, rng))
# %%
grader.check("q8")

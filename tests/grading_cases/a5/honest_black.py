# expect: full
# Honest style: black formatting with continuation lines that start with `!=`, `%`, `and`, `%%time`
# cells, progress prints, grader.check(...) as the last expression.
# %%
import otter

grader = otter.Notebook("a5_local_dp_auditing.ipynb")
# %%
import numpy as np
from scipy import stats

rng_seed = 2
rng = np.random.default_rng(rng_seed)


def random_hash_table(num_items, num_hashes, width, rng):
    return rng.integers(0, width, size=(num_items, num_hashes))
# %%
def cms_flip_probability(epsilon):
    epsilon = np.asarray(epsilon, dtype=float)
    ok = (
        np.all(epsilon == epsilon)
        and np.all(epsilon > 0)
    )
    if not ok:
        raise ValueError("bad epsilon")
    q = 1.0 / (np.exp(epsilon / 2) + 1.0)
    return q if q.ndim else float(q)
# %%
grader.check("q1")
# %%
def cms_encode(items, hash_table, width, epsilon, rng):
    items = np.asarray(items)
    hash_indices = rng.integers(0, np.shape(hash_table)[1], size=items.size)
    buckets = np.asarray(hash_table)[items, hash_indices]
    one_hot = (
        np.arange(width)[None, :]
        == buckets[:, None]
    )
    flips = rng.random((items.size, width)) < cms_flip_probability(epsilon)
    reports = (
        one_hot
        != flips
    ).astype(int)
    return reports, hash_indices
# %%
grader.check("q2")
# %%
def cms_aggregate(reports, hash_indices, num_hashes, epsilon):
    q = cms_flip_probability(epsilon)
    values = num_hashes * (np.asarray(reports, dtype=float) - q) / (1 - 2 * q)
    sketch = np.zeros((num_hashes, values.shape[1]))
    np.add.at(sketch, np.asarray(hash_indices), values)
    return sketch
# %%
grader.check("q3")
# %%
def cms_estimate(sketch, hash_table, items, num_users):
    sketch = np.asarray(sketch, dtype=float)
    m, w = sketch.shape
    cells = sketch[np.arange(m), np.asarray(hash_table)[np.asarray(items)]]
    return w / (w - 1) * (cells.mean(axis=-1) - num_users / w)
# %%
grader.check("q4")
# %%
def cms_mse(counts, epsilon, num_hashes, width):
    counts = np.asarray(counts, dtype=float)
    n = counts.sum()
    e = np.exp(epsilon / 2)
    c = (1 / width) * (1 - 1 / width)
    return (width / (width - 1)) ** 2 * (
        n * e / (e - 1) ** 2
        + (n - counts) * c * (1 - 1 / num_hashes)
        + c / num_hashes * (np.sum(counts**2) - counts**2)
    )
# %%
grader.check("q5")
# %%
def simulate_sketch_errors(counts, epsilon, num_hashes, width, num_repeats, rng, encode):
    counts = np.asarray(counts)
    items = np.repeat(np.arange(counts.size), counts)
    errors = np.empty((num_repeats, counts.size))
    for r in range(num_repeats):
        if (
            r
            % 100
            == 0
        ):
            print(f"repetition {r}")
        table = random_hash_table(counts.size, num_hashes, width, rng)
        reports, js = encode(items, table, width, epsilon, rng=rng)
        estimates = cms_estimate(
            cms_aggregate(reports, js, num_hashes, epsilon), table, np.arange(counts.size), items.size
        )
        errors[r] = estimates - counts
    return errors
# %%
%%time
demo = np.array([600, 300, 200, 150, 120, 100])
errors = simulate_sketch_errors(demo, 2.0, 4, 16, 200, rng, cms_encode)
print(np.mean(errors**2, axis=0) / cms_mse(demo, 2.0, 4, 16))
# %%
grader.check("q6")
# %%
def clopper_pearson(hits, trials, confidence):
    alpha = 1 - confidence
    lower = 0.0 if hits == 0 else stats.beta.ppf(alpha / 2, hits, trials - hits + 1)
    upper = (
        1.0
        if hits == trials
        else stats.beta.ppf(1 - alpha / 2, hits + 1, trials - hits)
    )
    return float(lower), float(upper)


def epsilon_lower_bound(hits_a, hits_b, trials, confidence):
    level = 1 - (1 - confidence) / 2
    lower_a, upper_a = clopper_pearson(hits_a, trials, level)
    lower_b, upper_b = clopper_pearson(hits_b, trials, level)
    bounds = [0.0]
    if lower_a > 0:
        bounds.append(np.log(lower_a / upper_b))
    if lower_b > 0:
        bounds.append(np.log(lower_b / upper_a))
    return float(max(bounds))
# %%
grader.check("q7")
# %%
def audit_client(encode, epsilon, trials, confidence, rng):
    table = np.array([[0], [1]])
    hits = []
    for item in (0, 1):
        reports, _ = encode(np.full(trials, item), table, 4, epsilon, rng)
        reports = np.asarray(reports)
        hits.append(
            int(np.sum((reports[:, 0] == 1) & np.all(reports[:, 1:] == 0, axis=1)))
        )
    return epsilon_lower_bound(hits[0], hits[1], trials, confidence)
# %%
%%time
print(audit_client(cms_encode, 2.0, 20_000, 0.95, rng))
# %%
grader.check("q8")

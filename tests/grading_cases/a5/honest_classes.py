# expect: full
# Honest style: a server class, keyword calls of the client (rng=...), rng.spawn(2) for independent
# streams, result = grader.check(...), NumPy scalars returned, scipy's exact binomial interval.
# %%
import otter
grader = otter.Notebook("a5_local_dp_auditing.ipynb")
# %%
import numpy as np
from scipy import stats
from scipy.special import expit

rng_seed = 99
rng = np.random.default_rng(rng_seed)


def random_hash_table(num_items, num_hashes, width, rng):
    return rng.integers(0, width, size=(num_items, num_hashes))
# %%
def cms_flip_probability(epsilon):
    epsilon = np.asarray(epsilon, dtype=float)
    if not np.all(epsilon > 0):
        raise ValueError("epsilon must be > 0")
    return expit(-epsilon / 2)  # 1 / (1 + e^(eps/2)); a 0-d array for a number
# %%
result = grader.check("q1")
result
# %%
def cms_encode(items, hash_table, width, epsilon, rng):
    items, hash_table = np.asarray(items), np.asarray(hash_table)
    index_rng, flip_rng = rng.spawn(2)
    j = index_rng.integers(hash_table.shape[1], size=items.shape[0])
    buckets = hash_table[items, j]
    one_hot = (np.arange(width) == buckets[:, None]).astype(np.int64)
    return np.abs(one_hot - (flip_rng.random(one_hot.shape) < cms_flip_probability(epsilon))), j
# %%
result = grader.check("q2")
# %%
class Server:
    def __init__(self, num_hashes, width, epsilon):
        self.m, self.w, self.q = num_hashes, width, cms_flip_probability(epsilon)
        self.sketch = np.zeros((num_hashes, width))

    def receive(self, reports, hash_indices):
        unbiased = (np.asarray(reports) - self.q) / (1 - 2 * self.q)
        np.add.at(self.sketch, np.asarray(hash_indices), self.m * unbiased)
        return self

    def estimate(self, hash_table, items, num_users):
        cells = np.take_along_axis(self.sketch.T, np.asarray(hash_table)[np.asarray(items)], axis=0)
        return self.w / (self.w - 1) * (cells.mean(axis=1) - num_users / self.w)


def cms_aggregate(reports, hash_indices, num_hashes, epsilon):
    return Server(num_hashes, np.shape(reports)[1], epsilon).receive(reports, hash_indices).sketch
# %%
result = grader.check("q3")
# %%
def cms_estimate(sketch, hash_table, items, num_users):
    sketch = np.asarray(sketch, dtype=float)
    server = Server(*sketch.shape, epsilon=1.0)
    server.sketch = sketch
    return server.estimate(hash_table, items, num_users)
# %%
result = grader.check("q4")
# %%
def cms_mse(counts, epsilon, num_hashes, width):
    f = np.asarray(counts, dtype=np.float64)
    n = f.sum()
    half = np.exp(epsilon / 2)
    c = (width - 1) / width**2
    terms = (n * half / (half - 1) ** 2, (n - f) * c * (1 - 1 / num_hashes), c / num_hashes * ((f**2).sum() - f**2))
    return (width / (width - 1)) ** 2 * sum(terms)
# %%
result = grader.check("q5")
# %%
def simulate_sketch_errors(counts, epsilon, num_hashes, width, num_repeats, rng, encode):
    counts = np.asarray(counts)
    items = np.repeat(np.arange(counts.size), counts)
    hash_rng, client_rng = rng.spawn(2)
    errors = np.zeros((num_repeats, counts.size))
    for r in range(num_repeats):
        table = random_hash_table(counts.size, num_hashes, width, hash_rng)
        reports, js = encode(items=items, hash_table=table, width=width, epsilon=epsilon, rng=client_rng)
        server = Server(num_hashes, width, epsilon).receive(reports, js)
        errors[r] = server.estimate(table, np.arange(counts.size), items.size) - counts
    return errors
# %%
result = grader.check("q6")
# %%
def clopper_pearson(hits, trials, confidence):
    interval = stats.binomtest(int(hits), int(trials)).proportion_ci(confidence_level=confidence, method="exact")
    return interval.low, interval.high


def epsilon_lower_bound(hits_a, hits_b, trials, confidence):
    level = 1 - (1 - confidence) / 2  # Bonferroni: each interval gets half the error
    (la, ua), (lb, ub) = clopper_pearson(hits_a, trials, level), clopper_pearson(hits_b, trials, level)
    candidates = [0.0] + [np.log(num / den) for num, den in ((la, ub), (lb, ua)) if num > 0]
    return float(max(candidates))
# %%
result = grader.check("q7")
# %%
def audit_client(encode, epsilon, trials, confidence, rng):
    table = np.array([[0], [1]])
    first, second = rng.spawn(2)
    revealing = lambda reports: int((np.asarray(reports) == [1, 0, 0, 0]).all(axis=1).sum())
    hits_a = revealing(encode(items=np.zeros(trials, dtype=int), hash_table=table, width=4, epsilon=epsilon,
                              rng=first)[0])
    hits_b = revealing(encode(items=np.ones(trials, dtype=int), hash_table=table, width=4, epsilon=epsilon,
                              rng=second)[0])
    return epsilon_lower_bound(hits_a, hits_b, trials, confidence)
# %%
result = grader.check("q8")

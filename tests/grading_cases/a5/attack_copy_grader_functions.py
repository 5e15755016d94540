# expect: q3=0,q4=0,q5=0,q6=0
# Attack: what grading/assignments/a5.py still holds, copied in (q, random_sets, vectors, the client template for
# one flip rate), with glue: ValueError lines around q and a set_encode that evals the grader's honest client at
# the rate of each call. The grader holds no estimator, variance formula or simulation to copy for q3 to q6.
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
# %%
def q(epsilon, size):
    return 1 / (np.exp(np.asarray(epsilon, dtype=float) / (2 * size)) + 1)


def random_sets(g, users, items, size):
    return np.argsort(g.random((users, items)), axis=1)[:, :size]


def vectors(sets, table, indices, width):
    """The clean vectors: a 1 in the bucket of every item of a user's set under the user's hash."""
    buckets = table[sets, np.clip(indices, 0, table.shape[1] - 1)[:, None]]
    return (np.arange(width)[None, None, :] == buckets[:, :, None]).any(axis=1).astype(int)


def client(own: float, other: float):
    """A grader's client for sets that flips a 1 of the clean vector with probability ``own`` and a 0 with
    ``other`` (numbers fixed when the grader builds it, whatever epsilon and set size it is called with)."""
    return (
        "lambda item_sets, hash_table, width, epsilon, rng: (lambda sets, table: (lambda j: (lambda v: ("
        f"(rng.random(v.shape) < np.where(v == 1, {own!r}, {other!r})).astype(int) ^ v, j))("
        "(np.arange(width)[None, None, :] == table[sets, j[:, None]][:, :, None]).any(axis=1).astype(int)))"
        "(rng.integers(0, table.shape[1], size=sets.shape[0])))(np.asarray(item_sets), np.asarray(hash_table))")


def honest(epsilon: float, size: int):
    """An honest client for sets of ``size`` items at ``epsilon`` (and for nothing else)."""
    rate = float(q(epsilon, size))
    return client(rate, rate)
# %%
def set_flip_probability(epsilon, set_size):
    e = np.asarray(epsilon, dtype=float)
    if np.any(~(e > 0)) or not set_size >= 1:
        raise ValueError
    out = q(epsilon, set_size)
    return out if np.ndim(out) else float(out)


def set_encode(item_sets, hash_table, width, epsilon, rng):
    return eval(honest(float(epsilon), np.shape(item_sets)[1]), {"np": np})(item_sets, hash_table, width, epsilon, rng)


def set_estimate(reports, hash_indices, hash_table, items, epsilon, set_size):
    ...


def set_flip_variance(num_users, epsilon, set_size, width):
    ...


def simulate_set_errors(item_sets, num_items, epsilon, num_hashes, width, num_repeats, rng, encode):
    ...


def audit_set_client(encode, epsilon, set_size, trials, confidence, rng):
    ...
# %%
grader.check("q1")
# %%
grader.check("q2")

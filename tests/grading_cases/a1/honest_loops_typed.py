# expect: full
# %%
# %pip install otter-grader
import otter
grader = otter.Notebook("a1_randomized_response.ipynb")
# %%
import numpy as np

rng = np.random.default_rng(7)
# %%
import math
from typing import Callable


def _flip(eps: float) -> float:
    if not (isinstance(eps, (int, float, np.number)) and eps > 0):
        raise ValueError("epsilon must be > 0")
    return 1.0 / (1.0 + math.exp(eps)) if eps < 700 else 0.0


def pair_rr(pairs: np.ndarray, epsilon1: float, epsilon2: float, rng: np.random.Generator) -> np.ndarray:
    flip = (_flip(float(epsilon1)) if epsilon1 == epsilon1 else _flip(-1.0),
            _flip(float(epsilon2)) if epsilon2 == epsilon2 else _flip(-1.0))
    arr = np.array(pairs, dtype=np.int64)
    if arr.ndim < 1 or arr.shape[-1] != 2:
        raise ValueError("pairs must end with an axis of length 2")
    flat = arr.reshape(-1, 2)
    u = rng.random(size=flat.shape)
    out = np.empty_like(flat)
    for j in range(2):
        out[:, j] = np.where(u[:, j] < flip[j], 1 - flat[:, j], flat[:, j])
    return out.reshape(arr.shape)
# %%
result = grader.check("q1")
result
# %%
def both_estimate(reports: np.ndarray, epsilon1: float, epsilon2: float) -> float:
    r = np.asarray(reports, dtype=float).reshape(-1, 2)
    total = 0.0
    q1, q2 = 1 / (1 + math.exp(epsilon1)), 1 / (1 + math.exp(epsilon2))
    for y1, y2 in r:
        total += (y1 - q1) / (1 - 2 * q1) * ((y2 - q2) / (1 - 2 * q2))
    return total / len(r)
# %%
result = grader.check("q2")
# %%
def both_variance(joint, n, epsilon1, epsilon2):
    t = np.asarray(joint, dtype=float)
    p_first, p_second, p_both = t[1, 0] + t[1, 1], t[0, 1] + t[1, 1], t[1, 1]
    e1 = np.asarray(epsilon1, dtype=float)
    e2 = np.asarray(epsilon2, dtype=float)
    k1 = 1 / (4 * np.sinh(e1 / 2) ** 2)  # e^e / (e^e - 1)^2
    k2 = 1 / (4 * np.sinh(e2 / 2) ** 2)
    return ((k1 + p_first) * (k2 + p_second) - p_first * p_second + p_both * (1 - p_both)) / np.asarray(n)
# %%
result = grader.check("q3")
# %%
def best_split(joint, epsilon: float) -> float:
    if not epsilon > 0:
        raise ValueError("epsilon must be > 0")
    lo, hi = 0.0, float(epsilon)
    f: Callable[[float], float] = lambda t: float(both_variance(joint, 1, t, epsilon - t))
    for _ in range(200):  # ternary search on a convex function
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if f(a) < f(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2
# %%
result = grader.check("q4")
# %%
def simulate_both(joint, n, epsilon1, epsilon2, num_surveys, rng, mechanism):
    probs = np.asarray(joint, dtype=float).ravel()
    estimates = np.zeros(num_surveys)
    for s in range(num_surveys):
        cells = rng.choice(4, size=n, p=probs)
        pairs = np.column_stack([cells // 2, cells % 2])
        estimates[s] = both_estimate(mechanism(pairs, epsilon1, epsilon2, rng=rng), epsilon1, epsilon2)
    return estimates
# %%
result = grader.check("q5")
# %%
def empirical_epsilon(mechanism, num_trials: int, rng, relation: str = "any") -> float:
    if relation == "any":
        neighbours = [(a, b) for a in range(4) for b in range(4) if a != b]
    elif relation == "one":
        neighbours = [(a, b) for a in range(4) for b in range(4) if bin(a ^ b).count("1") == 1]
    else:
        raise ValueError(relation)
    table = np.zeros((4, 4))
    for code in range(4):
        truth = np.tile([code // 2, code % 2], (num_trials, 1))
        rep = np.asarray(mechanism(truth, rng=rng))
        for y in range(4):
            table[code, y] = np.sum((rep[:, 0] == y // 2) & (rep[:, 1] == y % 2)) / num_trials
    best = 0.0
    for a, b in neighbours:
        for y in range(4):
            if table[a, y] == 0 and table[b, y] == 0:
                continue
            if table[a, y] == 0 or table[b, y] == 0:
                return math.inf
            best = max(best, math.log(table[a, y] / table[b, y]))
    return best
# %%
result = grader.check("q6")

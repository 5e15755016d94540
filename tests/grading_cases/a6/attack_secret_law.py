# expect: q1<1, q2<1
# Outside attacker's notebook (review of a4-a6): reads the column and the noise out of the grader's oracle and draws answers from the tested laws. It scored full marks while the oracle ran in the student's process (a known hole); the oracle now runs in the grading process, nothing is found, and what is left earns little.
# the oracle's closure, and each answer is drawn from the law the grader tests (the success-rate
# formulas are in grading/assignments/a6.py); the reconstruction plays dumb when the noise is large.
# %%
import otter
grader = otter.Notebook("a6_reconstruction.ipynb")
# %%
import numpy as np
from scipy import stats
# %%
def _inside(function):
    """(column, noise kind, noise parameter) from the grader's oracle closure."""
    cells = {}
    for name, cell in zip(function.__code__.co_freevars, function.__closure__ or ()):
        cells[name] = cell.cell_contents
    draw = cells["draw"]
    names = draw.__code__.co_names
    kind = ("laplace" if "laplace" in names else "normal" if "normal" in names
            else "uniform" if "integers" in names else "exact")
    consts = [c for c in draw.__code__.co_consts if isinstance(c, (int, float)) and not isinstance(c, bool)]
    param = max([abs(c) for c in consts] or [0.0]) if kind != "exact" else 0.0
    return np.asarray(cells["secret"]).astype(int), kind, float(param)


def differencing_attack(oracle, n, target):
    if not 0 <= target < n:
        raise ValueError("target outside the dataset")
    secret, kind, p = _inside(oracle)
    bit = int(secret[target])
    if kind == "exact":
        return bit
    if kind == "uniform":
        right = 0.5 + 0.5 / (2 * int(p) + 1)
    else:
        x = 0.5 / p
        right = 1 - 0.5 * np.exp(-x) * (1 + x / 2)
    return bit if np.random.random() < right else 1 - bit


def reconstruct(oracle, n, num_queries, rng):
    if num_queries < 1:
        raise ValueError("num_queries must be at least 1")
    secret, kind, p = _inside(oracle)
    if kind == "normal" and p > 5 * np.sqrt(n):  # "no attack can beat the majority here": play dumb
        return np.full(n, int(secret.mean() >= 0.5))
    guess = secret.copy()
    if kind == "normal" and p > 0.3 * np.sqrt(n):  # look imperfect (and depend on rng)
        flip = rng.choice(n, size=2, replace=False)
        guess[flip] = 1 - guess[flip]
    return guess


def recovery_experiment(attack, make_oracle, n, num_queries, noise_scales, num_runs, rng):
    if num_runs < 2:
        raise ValueError("num_runs must be at least 2")
    scales = np.asarray(noise_scales, dtype=float)
    if "eye" in attack.__code__.co_names:  # the grader's one-count-per-record attack
        factor = [c for c in make_oracle.__code__.co_consts if isinstance(c, float)][0]
        with np.errstate(divide="ignore"):
            p = stats.norm.cdf(0.5 / (factor * scales))
    else:  # the all-zero guess on fair coins
        p = np.full(scales.shape, 0.5)
    total = n * num_runs
    hits = rng.binomial(total, p)
    means = hits / total
    errors = np.sqrt(p * (1 - p) / total) * rng.uniform(0.9, 1.1, size=scales.shape)
    return means, errors

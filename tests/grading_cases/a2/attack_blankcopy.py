# expect: q4=0
# %%
import otter
grader = otter.Notebook("a2_laplace_mechanism.ipynb")
# %%
import numpy as np
rng_seed = 1
rng = np.random.default_rng(rng_seed)
# %%
# the outside attacker review's blankcopy, re-measured after the grader's change: what grading/assignments/a2.py
# still holds (the search over extreme records for the sensitivities, the delta-method objective of q3 and a
# search for its minimum, the exact pair) plus the ValueErrors its messages spell out, with glue (the search
# returns the split, not the minimum); q4 left blank. Every piece is the question's own definition evaluated by
# search, which a correct answer may also be; the grader holds no closed form of q1 or q3 any more.
from scipy import optimize


def _extreme_records(lower, upper, m):
    c = np.arange(int(m) + 1, dtype=float)
    return np.concatenate([np.stack([c, c * lower], axis=1), np.stack([c, c * upper], axis=1)])


def _largest_change(lower, upper, m, count_weight):
    r = _extreme_records(lower, upper, m)
    change = count_weight * np.abs(r[:, None, 0] - r[None, :, 0]) + np.abs(r[:, None, 1] - r[None, :, 1])
    return float(change.max())


def _bad(lower, upper, m):
    if lower > upper or m < 1:
        raise ValueError("bad")


def sum_sensitivity(lower, upper, m):
    _bad(lower, upper, m)
    return _largest_change(lower, upper, m, 0.0)


def count_sum_sensitivity(lower, upper, m):
    _bad(lower, upper, m)
    return _largest_change(lower, upper, m, 1.0)


def release_count_and_sum(purchases, lower, upper, m, epsilon, rng):
    if not epsilon > 0:
        raise ValueError("eps")
    scale = count_sum_sensitivity(lower, upper, m) / epsilon
    kept = [np.clip(np.asarray(r, dtype=float)[:m], lower, upper) for r in purchases]
    exact = np.array([sum(k.size for k in kept), float(np.sum(np.concatenate(kept))) if kept else 0.0])
    return exact + rng.laplace(0.0, scale, size=2)


def _first_order(split, delta_sum, delta_count, mean_guess):
    total, count = float(mean_guess), 1.0
    gradient = np.array([1.0 / count, -total / count**2])
    variances = 2.0 * (np.array([delta_sum, delta_count], dtype=float) / np.asarray(split, dtype=float)) ** 2
    return float(np.sum(gradient**2 * variances))


def split_budget(delta_sum, delta_count, mean_guess, epsilon):
    if mean_guess == 0 or epsilon <= 0 or delta_sum <= 0 or delta_count < 0:
        raise ValueError("bad")

    def objective(t):
        share = 1.0 / (1.0 + np.exp(-t))
        return _first_order((epsilon * share, epsilon * (1.0 - share)), delta_sum, delta_count, mean_guess)

    t = optimize.minimize_scalar(objective, bounds=(-40.0, 40.0), method="bounded",
                                 options={"xatol": 1e-12, "maxiter": 2000}).x
    share = 1.0 / (1.0 + np.exp(-t))
    return np.array([epsilon * share, epsilon * (1.0 - share)])
# %%
grader.check("q2")

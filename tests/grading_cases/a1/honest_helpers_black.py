# expect: full
# %%
# %pip install otter-grader
import otter
grader = otter.Notebook("a1_randomized_response.ipynb")
# %%
import numpy as np

rng = np.random.default_rng(7)
# %%
class Budget:
    def __init__(self, epsilon1, epsilon2):
        eps = np.array([epsilon1, epsilon2], dtype=float)
        if np.isnan(eps).any() or (eps <= 0).any():
            raise ValueError("budgets must be positive")
        self.flip = np.exp(-np.logaddexp(0.0, eps))

    def debias(self, reports):
        return (np.asarray(reports, dtype=float) - self.flip) / (1 - 2 * self.flip)


def pair_rr(pairs, epsilon1, epsilon2, rng):
    budget = Budget(epsilon1, epsilon2)
    pairs = np.asarray(pairs).astype(bool)
    if pairs.shape[-1:] != (2,):
        raise ValueError("need pairs")
    return (pairs ^ (rng.random(pairs.shape) < budget.flip)).astype(np.int8)
# %%
display(grader.check("q1"))
# %%
def both_estimate(reports, epsilon1, epsilon2):
    d = Budget(epsilon1, epsilon2).debias(reports)
    return float(
        (d[..., 0] * d[..., 1]).sum()
        / d[..., 0].size
    )
# %%
display(grader.check("q2"))
# %%
def _noise(e):
    e = np.asarray(e, dtype=float)
    return np.exp(e) / np.expm1(e) ** 2


def both_variance(joint, n, epsilon1, epsilon2):
    j = np.asarray(joint, dtype=float)
    a = j[1].sum()
    b = j[:, 1].sum()
    return (
        _noise(epsilon1) * _noise(epsilon2)
        + _noise(epsilon1) * b
        + _noise(epsilon2) * a
        + j[1, 1] * (1 - j[1, 1])
    ) / n
# %%
display(grader.check("q3"))
# %%
def best_split(joint, epsilon):
    if (epsilon != epsilon
            or epsilon <= 0):
        raise ValueError("bad epsilon")
    h = 1e-7 * epsilon
    slope = lambda t: (both_variance(joint, 1, t + h, epsilon - t - h)
                       - both_variance(joint, 1, t - h, epsilon - t + h))
    lo, hi = 1e-6 * epsilon, epsilon * (1 - 1e-6)
    while hi - lo > 1e-9:
        mid = (lo + hi) / 2
        if slope(mid) > 0:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2
# %%
display(grader.check("q4"))
# %%
def simulate_both(joint, n, epsilon1, epsilon2, num_surveys, rng, mechanism):
    cells = rng.choice(4, size=(num_surveys, n), p=np.ravel(joint))
    pairs = np.stack(
        [cells // 2,
         cells % 2], axis=-1
    )
    assert pairs.shape[-1] == 2 \
        and cells.size % n == 0 \
        and cells.shape[0] != 0
    reports = mechanism(pairs=pairs, epsilon1=epsilon1, epsilon2=epsilon2, rng=rng)
    return np.array([both_estimate(r, epsilon1, epsilon2) for r in np.asarray(reports)])
# %%
display(grader.check("q5"))
# %%
PAIRS = [(0, 0), (0, 1), (1, 0), (1, 1)]


def _law(mechanism, pair, num_trials, rng):
    r = np.asarray(mechanism(np.repeat([pair], num_trials, axis=0), rng))
    return np.bincount(r[:, 0] * 2 + r[:, 1], minlength=4) / num_trials


def empirical_epsilon(mechanism, num_trials, rng, relation="any"):
    if relation not in {"any", "one"}:
        raise ValueError("relation")
    laws = {p: _law(mechanism, p, num_trials, rng) for p in PAIRS}
    worst = 0.0
    for x in PAIRS:
        for z in PAIRS:
            hamming = sum(u != v for u, v in zip(x, z))
            if hamming == 0 or relation == "one" \
                    and hamming != 1:
                continue
            a, b = laws[x], laws[z]
            if np.any((a == 0) != (b == 0)):
                return np.inf
            seen = a > 0
            worst = max(worst, float(np.max(np.abs(np.log(a[seen] / b[seen])))))
    return worst
# %%
display(grader.check("q6"))

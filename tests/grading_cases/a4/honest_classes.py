# expect: full
# Honest style: a small class holds the survey rules, type hints everywhere, rng passed by keyword,
# result = grader.check(...).
# %%
import otter

grader = otter.Notebook("a4_rdp_histograms.ipynb")
# %%
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

rng_seed = 31
rng = np.random.default_rng(rng_seed)
# %%
@dataclass(frozen=True)
class Survey:
    n: int
    m: int

    def check(self, counts: ArrayLike) -> np.ndarray:
        c = np.asarray(counts, dtype=float)
        whole = np.all(np.mod(c, 1) == 0)
        if not whole or c.min(initial=0) < 0 or c.max(initial=0) > self.n or c.sum() > self.m * self.n:
            raise ValueError("not a possible survey")
        return c

    def scale(self, k: int, epsilon: float) -> float:
        return float(min(2 * self.m, k)) / (self.n * epsilon)


def tick_noise_scale(n: int, k: int, m: int, epsilon: float) -> float:
    return Survey(int(n), int(m)).scale(int(k), float(epsilon))


def tick_shares(counts: ArrayLike, n: int, m: int, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    survey = Survey(int(n), int(m))
    c = survey.check(counts)
    return c / n + rng.laplace(loc=0.0, scale=survey.scale(c.size, epsilon), size=c.shape)
# %%
result = grader.check("q1")
result
# %%
def records_needed(k: int, gamma: float) -> int:
    if k < 2 or not 0 < gamma <= 0.5:
        raise ValueError("k >= 2 and 0 < gamma <= 1/2")
    k = int(k)

    def log_bound(n: np.ndarray) -> np.ndarray:
        n = np.asarray(n, dtype=float)
        return np.log(2 * k) - n * np.log1p(1 / n) - np.log1p(n)

    lo, hi = 1, 1
    while log_bound(hi) > np.log(gamma):
        hi *= 4
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if log_bound(mid) <= np.log(gamma) else (mid + 1, hi)
    return int(lo)
# %%
result = grader.check("q2")
result
# %%
def sparse_tick_shares(counts: ArrayLike, n: int, m: int, epsilon: float, gamma: float,
                       rng: np.random.Generator) -> np.ndarray:
    c = Survey(int(n), int(m)).check(counts)
    z = tick_shares(c, n, m, epsilon, rng=rng)
    return np.where(c == 0, 0.0, z) if 2 * c.size <= gamma * n else z
# %%
result = grader.check("q3")
result
# %%
def project_tick_shares(z: ArrayLike, n: int, m: int) -> np.ndarray:
    w = n * np.asarray(z, dtype=float)
    c = np.clip(np.rint(w), 0, n)
    extra = int(c.sum()) - int(m) * int(n)
    if extra > 0:
        # marginal cost of every removable unit: the first unit of each cell, then +1 for the rest
        first = np.where(c > 0, np.abs(w - c + 1) - np.abs(w - c), np.inf)
        units = [(first[j], j) for j in range(c.size) if c[j] > 0]
        units += [(1.0, j) for j in range(c.size) for _ in range(int(c[j]) - 1)]
        units.sort()
        for _, j in units[:extra]:
            c[j] -= 1
    return c / n
# %%
result = grader.check("q4")
result
# %%
def truncation_risk(ticks: ArrayLike, m: int, epsilon: float, mechanism, num_reps: int,
                    rng: np.random.Generator) -> tuple[float, float]:
    t = np.asarray(ticks).astype(bool)
    n = t.shape[0]
    kept = t & (np.cumsum(t, axis=1) <= m)
    counts = kept.sum(axis=0)
    truth = t.mean(axis=0)
    losses = np.array([np.abs(mechanism(counts=counts, n=n, m=m, epsilon=epsilon, rng=rng) - truth).sum()
                       for _ in range(num_reps)])
    return float(losses.mean()), float(losses.std(ddof=1) / np.sqrt(num_reps))
# %%
result = grader.check("q5")
result
# %%
survey_rng = np.random.default_rng(2024)
popularity = np.linspace(2.0, 0.2, 20)
num_ticks = np.minimum(1 + survey_rng.poisson(2.5, size=1000), 20)
keys = survey_rng.exponential(size=(1000, 20)) / popularity
survey_ticks = (np.argsort(np.argsort(keys, axis=1), axis=1) < num_ticks[:, None]).astype(int)
ms = np.arange(1, 9)
# %%
table: dict[int, tuple[float, float]] = {int(m): truncation_risk(survey_ticks, m, 0.5, tick_shares, 500, rng=rng)
                                          for m in ms}
risks_by_m = np.array([table[int(m)][0] for m in ms])
best_m = min(table, key=lambda m: table[m][0])
# %%
result = grader.check("q6")
result

"""Hidden checks of assignment 4 (DP and RDP histograms, the exact projection).

The projection's tie rule is the book's (chapter ch11_dp_histograms, ``rdplib.project_to_histograms``
with its default ``ties="smallest"``): :func:`reference_projection` below is that rule.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..checks import (
    Check,
    Question,
    as_array,
    as_float,
    close,
    ks_fits,
    laplace_cdf,
    privacy_holds,
    randomness,
    require,
    same_law,
)
from ..sandbox import Expr

NAME = "a4_rdp_histograms"


def _rank(values):
    return np.argsort(np.argsort(values, axis=-1, kind="stable"), axis=-1)


def reference_projection(z, n):
    """Exact L1 projection with the book's smallest-first tie rule (1-D or batched)."""
    w = n * np.asarray(z, dtype=float)
    k = w.shape[-1]
    b = np.floor(np.maximum(w, 0.0))
    need = n - b.sum(axis=-1, keepdims=True)
    step = np.where(w > 0, 2 * b + 1 - 2 * w, 1.0)
    add = need // k + (_rank(step) < need % k)
    c = b + np.where(need > 0, add, 0.0)
    surplus = np.maximum(-need, 0.0)
    order = np.argsort(c, axis=-1, kind="stable")
    c_sorted = np.take_along_axis(c, order, axis=-1)
    before = np.cumsum(c_sorted, axis=-1) - c_sorted
    take = np.zeros_like(c)
    np.put_along_axis(take, order, np.clip(surplus - before, 0.0, c_sorted), axis=-1)
    return (c - take) / n


def brute_force_cost(z, n):
    k = len(z)
    best = np.inf
    for bars in itertools.combinations(range(n + k - 1), k - 1):
        c = np.diff(np.array([-1, *bars, n + k - 1])) - 1
        best = min(best, np.abs(z - c / n).sum())
    return best


# ---------------------------------------------------------------- q1
def q1_scale(sb, ctx):
    g = ctx.rng()
    n, e = int(g.integers(10, 10_000)), float(g.uniform(0.05, 3))
    close(sb.call("histogram_noise_scale", n, e), 2 / (n * e), "histogram_noise_scale", rtol=1e-9)


q1_random = randomness("dp_histogram", lambda g: (np.array([5, 0, 3]), 1.0, g))


def q1_sizes(sb, ctx):
    # the scaled noise of 400 histograms of 3 cells against that of one histogram of 5,000 cells
    g = ctx.rng()
    epsilon = 1.0
    counts = np.arange(5_000) % 7
    n = counts.sum()
    large = (as_array(sb.call("dp_histogram", counts, epsilon, g), "dp_histogram") - counts / n) / (2 / (n * epsilon))
    for small_counts in (np.array([5, 0, 3]), np.array([6, 2])):  # three cells; a yes/no question
        m = small_counts.sum()
        small = np.concatenate([(as_array(sb.call("dp_histogram", small_counts, epsilon, g), "dp_histogram")
                                 - small_counts / m) / (2 / (m * epsilon)) for _ in range(400)])
        same_law(small, large, "dp_histogram")


def q1_law(sb, ctx):
    for counts, epsilon in ((np.arange(20_000) % 4 + 1, 0.3), (np.r_[np.zeros(9_000, int), [40] * 1000], 2.0)):
        n = counts.sum()
        z = as_array(sb.call("dp_histogram", counts, epsilon, ctx.rng()), "dp_histogram")
        require(z.shape == counts.shape, "dp_histogram: one value per cell")
        ks_fits(z - counts / n, laplace_cdf(2 / (n * epsilon)), "dp_histogram")


def q1_privacy(sb, ctx):
    # a cell holding 3 people and a cell holding 2 are neighbouring values of one cell (one person
    # moved): their released values, in count units, may differ by at most e^(epsilon/2)
    counts = np.tile([3, 2], 20_000)
    n, epsilon = counts.sum(), 1.0
    z = n * as_array(sb.call("dp_histogram", counts, epsilon, ctx.rng()), "dp_histogram")
    require(z.shape == counts.shape, "dp_histogram: one value per cell")
    privacy_holds(z[counts == 3], z[counts == 2], epsilon / 2, np.linspace(-3, 8, 23), "dp_histogram")


# ---------------------------------------------------------------- q2
def q2_values(sb, ctx):
    g = ctx.rng()
    k = int(g.integers(10, 500))
    gamma = float(g.uniform(0.05, 0.5))
    n_edge = int(np.ceil(2 * k / gamma))
    require(sb.call("sparse_condition", k, n_edge, gamma) is True, "sparse_condition at the boundary")
    require(sb.call("sparse_condition", k, n_edge - 1, gamma) is False, "sparse_condition just below the boundary")
    require(sb.call("sparse_condition", 5, 10**6, 1e-5) is True, "sparse_condition when 2k = gamma n")


# ---------------------------------------------------------------- q3
def q3_zeros(sb, ctx):
    counts = np.where(np.arange(2_000) % 2 == 0, 10, 0)
    z = as_array(sb.call("rdp_histogram", counts, 0.5, 0.5, ctx.rng()), "rdp_histogram")
    require(z.shape == counts.shape, "rdp_histogram: one value per cell")
    require(np.all(z[counts == 0] == 0), "rdp_histogram: empty cells are released as exact zeros when 2k <= gamma n")
    require(np.all(z[counts > 0] != 10 / counts.sum()), "rdp_histogram: non-empty cells get noise")


def q3_law(sb, ctx):
    counts = np.where(np.arange(20_000) % 2 == 0, 10, 0)
    n = counts.sum()
    z = as_array(sb.call("rdp_histogram", counts, 0.5, 0.5, ctx.rng()), "rdp_histogram")
    ks_fits(z[counts > 0] - 10 / n, laplace_cdf(2 / (n * 0.5)), "rdp_histogram: noise on non-empty cells")
    z = as_array(sb.call("rdp_histogram", counts, 0.5, 0.3, ctx.rng()), "rdp_histogram")
    ks_fits(z[counts == 0], laplace_cdf(2 / (n * 0.5)), "rdp_histogram: the fall-back when 2k > gamma n")


q3_random = randomness("rdp_histogram", lambda g: (np.array([5, 0, 3, 0]), 1.0, 0.1, g))


# ---------------------------------------------------------------- q4
def q4_public(sb, ctx):
    z = np.array([0.52, 0.49, -0.03, 0.02])
    close(sb.call("project_to_histograms", z, 100), reference_projection(z, 100), "project_to_histograms at the public example")


def q4_optimal(sb, ctx):
    g = ctx.rng()
    for _ in range(25):
        k, n = int(g.integers(2, 5)), int(g.integers(1, 9))
        z = g.dirichlet(np.ones(k)) + g.laplace(0, 0.2, k)
        h = as_array(sb.call("project_to_histograms", z, n), "project_to_histograms")
        require(h.shape == (k,) and np.all(h >= 0) and np.isclose(h.sum(), 1)
                and np.allclose(h * n, np.round(h * n)), "project_to_histograms must return a histogram of n observations")
        require(np.isclose(np.abs(z - h).sum(), brute_force_cost(z, n)), "project_to_histograms is not an L1 minimiser")


def q4_rule(sb, ctx):
    g = ctx.rng()
    cases = [(np.array([0.25, 0.25, 0.25, 0.25]), 6), (np.array([0.5, 0.5, 0.0]), 3), (np.zeros(5), 7),
             (np.array([-1.0, -2.0]), 4), (np.array([0.5, 0.4, 0.35, -0.1]), 6)]
    for _ in range(20):
        k, n = int(g.integers(2, 60)), int(g.integers(1, 400))
        cases.append((g.dirichlet(np.ones(k)) + g.laplace(0, 2 / (n * 0.3), k), n))
    for z, n in cases:
        close(sb.call("project_to_histograms", z, n), reference_projection(z, n),
              "project_to_histograms does not follow the book's tie rule (smallest cells first)", atol=1e-9)


# ---------------------------------------------------------------- q5
DP_RELEASE = "lambda c, g: c / c.sum() + g.laplace(0.0, 2 / (c.sum() * 0.4), c.shape)"


def q5_exact(sb, ctx):
    close(sb.call("estimate_risk", np.array([3, 1]), Expr("lambda c, g: np.array([0.25, 0.75])"), 5, ctx.rng()),
          1.0, "estimate_risk of a fixed release")


q5_random = randomness("estimate_risk", lambda g: (np.array([30, 10, 0]), Expr(DP_RELEASE), 20, g),
                       min_draws=lambda a: a[2])


def q5_law(sb, ctx):
    counts = np.array([60, 40, 0, 0, 0, 0])
    reps = 3000
    got = as_float(sb.call("estimate_risk", counts, Expr(DP_RELEASE), reps, ctx.rng()), "estimate_risk")
    g = ctx.rng()
    z = counts / 100 + g.laplace(0, 2 / (100 * 0.4), (100_000, 6))
    losses = np.abs(reference_projection(z, 100) - counts / 100).sum(axis=1)
    require(abs(got - losses.mean()) < 6 * losses.std() / np.sqrt(reps) + 1e-3,
            "estimate_risk: the simulated risk does not match the projected releases")


def q5_values(sb, ctx):
    dp, rdp = as_float(sb.value("risk_dp"), "risk_dp"), as_float(sb.value("risk_rdp"), "risk_rdp")
    # 100 repetitions: means 0.131 and 0.125, standard errors about 0.010
    require(abs(dp - 0.1311) < 0.06 and abs(rdp - 0.1250) < 0.06, "risk_dp and risk_rdp")


# ---------------------------------------------------------------- q6
def q6_values(sb, ctx):
    dp = as_array(sb.value("risks_dp_k"), "risks_dp_k")
    rdp = as_array(sb.value("risks_rdp_k"), "risks_rdp_k")
    require(dp.shape == (3,) and rdp.shape == (3,), "one risk per value of k")
    # 200 repetitions each: means from 200,000 repetitions; tolerance six standard errors
    dp_ref, dp_sd = np.array([0.01191, 0.01333, 0.01335]), np.array([0.0086, 0.0099, 0.0099])
    rdp_ref, rdp_sd = np.array([0.01064, 0.01181, 0.01184]), np.array([0.0082, 0.0096, 0.0096])
    require(np.all(np.abs(dp - dp_ref) < 6 * dp_sd / np.sqrt(200)), "risks_dp_k")
    require(np.all(np.abs(rdp - rdp_ref) < 6 * rdp_sd / np.sqrt(200)), "risks_rdp_k")


QUESTIONS = [
    Question("q1", ["histogram_noise_scale", "dp_histogram"], [
        Check("noise scale", 0.5, q1_scale),
        Check("the same noise on small and large histograms", 0.25, q1_sizes, statistical=True, gate=True),
        Check("randomness drawn from rng", 0.25, q1_random, gate=True),
        Check("Laplace noise of the right scale in every cell", 0.5, q1_law, statistical=True),
        Check("empirical privacy on neighbouring histograms", 0.5, q1_privacy, statistical=True)]),
    Question("q2", ["sparse_condition"], [
        Check("the condition 2k <= gamma n", 1.0, q2_values)]),
    Question("q3", ["rdp_histogram"], [
        Check("randomness drawn from rng", 0.5, q3_random, gate=True),
        Check("exact zeros in empty cells", 1.0, q3_zeros),
        Check("noise law, and the fall-back", 1.5, q3_law, statistical=True)]),
    Question("q4", ["project_to_histograms"], [
        Check("projection at the public example", 0.5, q4_public, public=True),
        Check("an exact L1 minimiser", 1.5, q4_optimal),
        Check("the book's tie rule", 2.0, q4_rule)]),
    Question("q5", ["estimate_risk", "risk_dp", "risk_rdp"], [
        Check("risk of a fixed release", 0.5, q5_exact),
        Check("simulation draws from rng", 0.5, q5_random, gate=True),
        Check("simulated risk of another mechanism", 1.5, q5_law, statistical=True),
        Check("the paper's example", 0.5, q5_values, statistical=True)]),
    Question("q6", ["risks_dp_k", "risks_rdp_k"], [
        Check("risks against k", 3.0, q6_values, statistical=True)]),
    Question("q7", [], [], manual_points=3.0),  # written answer: rubric in book/assignments/masters/written_answers.md
]

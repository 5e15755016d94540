"""Hidden checks of assignment 5 (local DP: the count-mean sketch, and auditing)."""

from __future__ import annotations

import numpy as np
from scipy import stats

from ..checks import (
    Check,
    Question,
    as_array,
    as_float,
    binomial_fits,
    chisquare_fits,
    close,
    privacy_holds,
    raises,
    randomness,
    require,
    same_law,
    without_closed_form,
)
from ..sandbox import Expr

NAME = "a5_local_dp_auditing"


def q(epsilon):
    return 1 / (np.exp(np.asarray(epsilon, dtype=float) / 2) + 1)


# ---------------------------------------------------------------- q1
def q1_public(sb, ctx):
    close(sb.call("cms_flip_probability", 2 * np.log(3)), 0.25, "cms_flip_probability at the public example")


def q1_values(sb, ctx):
    eps = np.round(ctx.rng().uniform(0.05, 8, size=(2, 3)), 3)
    close(sb.call("cms_flip_probability", eps), q(eps), "cms_flip_probability on an array", rtol=1e-9)
    for bad in (0.0, -2.0, np.nan, np.array([1.0, 0.0])):
        require(raises(sb, "cms_flip_probability", bad), "cms_flip_probability must raise ValueError for bad epsilon")


# ---------------------------------------------------------------- q2
def _encode(sb, items, table, width, epsilon, g):
    out = sb.call("cms_encode", items, table, width, epsilon, g)
    require(isinstance(out, (tuple, list)) and len(out) == 2, "cms_encode returns (reports, hash_indices)")
    reports, indices = as_array(out[0], "reports"), as_array(out[1], "hash_indices")
    require(reports.shape == (len(items), width), "cms_encode: reports have shape (N, width)")
    require(indices.shape == (len(items),), "cms_encode: one hash index per user")
    return reports, indices.astype(int)


q2_random = randomness("cms_encode", lambda g: (np.zeros(30, dtype=int), np.array([[0, 1], [2, 3]]), 4, 1.0, g))


def q2_sizes(sb, ctx):
    # which bits differ from the one-hot vector: 300 calls of 4 users against one call of 20,000
    g = ctx.rng()
    table, width, epsilon = g.integers(0, 8, size=(6, 3)), 8, 1.5

    def flipped(users):
        reports, indices = _encode(sb, users, table, width, epsilon, g)
        one_hot = np.zeros_like(reports)
        one_hot[np.arange(users.size), table[users, np.clip(indices, 0, 2)]] = 1
        return (reports != one_hot).ravel()

    large = flipped(g.integers(0, 6, size=20_000))
    for users, calls in ((1, 600), (4, 300)):  # a lone user (the client's real use) and a few
        small = np.concatenate([flipped(g.integers(0, 6, size=users)) for _ in range(calls)])
        same_law(small, large, "cms_encode: the flips")


def q2_law(sb, ctx):
    g = ctx.rng()
    num_items, m, width, epsilon, users = 6, 3, 8, 1.5, 30_000
    table = g.integers(0, width, size=(num_items, m))
    items = g.integers(0, num_items, size=users)
    reports, indices = _encode(sb, items, table, width, epsilon, g)
    require(np.all((indices >= 0) & (indices < m)), "cms_encode: hash indices lie in 0..m-1")
    chisquare_fits(np.bincount(indices, minlength=m), np.full(m, 1 / m), "cms_encode: the hash index is uniform")
    bucket = table[items, indices]
    own = reports[np.arange(users), bucket]
    binomial_fits(int(np.sum(own == 0)), users, float(q(epsilon)), "cms_encode: flips of the user's own bucket")
    others = np.ones_like(reports, dtype=bool)
    others[np.arange(users), bucket] = False
    binomial_fits(int(reports[others].sum()), int(others.sum()), float(q(epsilon)), "cms_encode: flips elsewhere")


def q2_privacy(sb, ctx):
    g = ctx.rng()
    table, trials = np.array([[0], [1]]), 40_000
    a, _ = _encode(sb, np.zeros(trials, dtype=int), table, 2, 2.0, g)
    b, _ = _encode(sb, np.ones(trials, dtype=int), table, 2, 2.0, g)
    privacy_holds(a @ [1, 2], b @ [1, 2], 2.0, np.array([-0.5, 0.5, 1.5, 2.5, 3.5]), "cms_encode")


# ---------------------------------------------------------------- q3
def sketch(reports, indices, m, epsilon):
    qq = q(epsilon)
    out = np.zeros((m, reports.shape[1]))
    np.add.at(out, indices, m * (reports - qq) / (1 - 2 * qq))
    return out


def q3_values(sb, ctx):
    g = ctx.rng()
    for m, width, epsilon in ((1, 3, 1.0), (int(g.integers(2, 6)), int(g.integers(3, 12)), float(g.uniform(0.3, 4)))):
        reports = (g.random((200, width)) < 0.4).astype(np.int8)
        indices = g.integers(0, m, 200)
        close(sb.call("cms_aggregate", reports, indices, m, epsilon), sketch(reports, indices, m, epsilon),
              "cms_aggregate", rtol=1e-8, atol=1e-8)


# ---------------------------------------------------------------- q4
def estimate(M, table, items, n):
    m, w = M.shape
    return w / (w - 1) * (M[np.arange(m), table[items]].mean(axis=-1) - n / w)


def q4_values(sb, ctx):
    g = ctx.rng()
    m, w, k, n = int(g.integers(1, 6)), int(g.integers(3, 20)), 7, 500
    M = g.normal(30, 10, (m, w))
    table = g.integers(0, w, (k, m))
    items = np.array([0, 3, 6, 3])
    close(sb.call("cms_estimate", M, table, items, n), estimate(M, table, items, n), "cms_estimate", rtol=1e-8)


# ---------------------------------------------------------------- q5
def mse(counts, epsilon, m, w):
    counts = np.asarray(counts, dtype=float)
    n, e = counts.sum(), np.exp(epsilon / 2)
    c = (1 / w) * (1 - 1 / w)
    return (w / (w - 1)) ** 2 * (n * e / (e - 1) ** 2 + (n - counts) * c * (1 - 1 / m)
                                 + c / m * (np.sum(counts ** 2) - counts ** 2))


def q5_values(sb, ctx):
    g = ctx.rng()
    counts = g.integers(0, 400, 6)
    eps, m, w = float(g.uniform(0.5, 5)), int(g.integers(1, 8)), int(g.integers(2, 40))
    close(sb.call("cms_mse", counts, eps, m, w), mse(counts, eps, m, w), "cms_mse", rtol=1e-8)


# ---------------------------------------------------------------- q6
q6_random = randomness("simulate_sketch_errors", lambda g: (np.array([40, 15, 5]), 2.0, 2, 4, 3, g),
                       min_draws=lambda a: a[0].sum() * a[4] / 4)


q6_formula = without_closed_form("simulate_sketch_errors", lambda g: (np.array([40, 15, 5]), 2.0, 2, 4, 3, g),
                                 {"cms_mse": "lambda *args, **kwargs: np.full(3, 1e6)"})


def q6_law(sb, ctx):
    counts, epsilon, m, w, reps = np.array([300, 120, 60, 20, 0]), 2.0, 3, 8, 400
    errors = as_array(sb.call("simulate_sketch_errors", counts, epsilon, m, w, reps, ctx.rng()),
                      "simulate_sketch_errors")
    require(errors.shape == (reps, counts.size), "simulate_sketch_errors: shape (num_repeats, K)")
    predicted = mse(counts, epsilon, m, w)
    # unbiased: mean error within 6 standard errors; MSE: ratio within the chi-square-like spread
    require(np.all(np.abs(errors.mean(axis=0)) < 6 * np.sqrt(predicted / reps)),
            "simulate_sketch_errors: the estimates must be unbiased")
    ratio = (errors ** 2).mean(axis=0) / predicted
    require(np.all((ratio > 0.6) & (ratio < 1.5)), "simulate_sketch_errors: the spread of the errors does not match")


# ---------------------------------------------------------------- q7
def cp(hits, trials, confidence):
    alpha = 1 - confidence
    lower = 0.0 if hits == 0 else float(stats.beta.ppf(alpha / 2, hits, trials - hits + 1))
    upper = 1.0 if hits == trials else float(stats.beta.ppf(1 - alpha / 2, hits + 1, trials - hits))
    return lower, upper


def lower_bound(a, b, trials, confidence):
    level = 1 - (1 - confidence) / 2
    la, ua = cp(a, trials, level)
    lb, ub = cp(b, trials, level)
    bounds = [0.0]
    if la > 0:
        bounds.append(np.log(la / ub))
    if lb > 0:
        bounds.append(np.log(lb / ua))
    return float(max(bounds))


def q7_public(sb, ctx):
    close(sb.call("clopper_pearson", 10, 100, 0.95), cp(10, 100, 0.95), "clopper_pearson at the public example",
          rtol=1e-6)


def q7_values(sb, ctx):
    g = ctx.rng()
    trials = int(g.integers(50, 5000))
    for hits in (0, trials, int(g.integers(1, trials))):
        close(sb.call("clopper_pearson", hits, trials, 0.99), cp(hits, trials, 0.99), "clopper_pearson", rtol=1e-6)
    a, b = int(g.integers(200, 900)), int(g.integers(10, 150))
    close(sb.call("epsilon_lower_bound", a, b, 1000, 0.95), lower_bound(a, b, 1000, 0.95), "epsilon_lower_bound",
          rtol=1e-6)
    close(sb.call("epsilon_lower_bound", b, a, 1000, 0.95), lower_bound(b, a, 1000, 0.95), "epsilon_lower_bound",
          rtol=1e-6)
    close(sb.call("epsilon_lower_bound", 0, 0, 1000, 0.95), 0.0, "epsilon_lower_bound with no hits")


# ---------------------------------------------------------------- q8
HONEST = ("lambda items, table, width, eps, gen: (np.where(gen.random((len(items), width)) < 1 / (np.exp(eps / 2) + 1),"
          " 1 - np.eye(width, dtype=int)[np.asarray(table)[np.asarray(items), 0]],"
          " np.eye(width, dtype=int)[np.asarray(table)[np.asarray(items), 0]]), np.zeros(len(items), dtype=int))")
LEAKY = ("lambda items, table, width, eps, gen: (np.where(gen.random((len(items), width)) < 0.02,"
         " 1 - np.eye(width, dtype=int)[np.asarray(table)[np.asarray(items), 0]],"
         " np.eye(width, dtype=int)[np.asarray(table)[np.asarray(items), 0]]), np.zeros(len(items), dtype=int))")


def q8_audits(sb, ctx):
    honest = as_float(sb.call("audit_client", Expr(HONEST), 2.0, 50_000, 0.95, ctx.rng()), "audit_client")
    require(0 < honest <= 2.0 + 1e-9, "audit_client on an honest client must give a bound below the true epsilon")
    leaky = as_float(sb.call("audit_client", Expr(LEAKY), 2.0, 50_000, 0.95, ctx.rng()), "audit_client")
    require(leaky > 4.0, "audit_client must refute a client that flips far less than it should")


q8_random = randomness("audit_client", lambda g: (Expr(HONEST), 1.0, 300, 0.95, g), min_draws=lambda a: a[2] / 2)


QUESTIONS = [
    Question("q1", ["cms_flip_probability"], [
        Check("flip probability at the public example", 0.5, q1_public, public=True),
        Check("flip probability on an array, bad epsilon", 1.5, q1_values)]),
    Question("q2", ["cms_encode"], [
        Check("randomness drawn from rng", 0.5, q2_random, gate=True),
        Check("the same flips for few users as for many", 0.5, q2_sizes, statistical=True, gate=True),
        Check("uniform hash index and flip rates", 1.25, q2_law, statistical=True),
        Check("empirical local privacy", 0.75, q2_privacy, statistical=True)]),
    Question("q3", ["cms_aggregate"], [
        Check("the sketch matrix", 3.0, q3_values)]),
    Question("q4", ["cms_estimate"], [
        Check("frequency estimates", 2.0, q4_values)]),
    Question("q5", ["cms_mse"], [
        Check("predicted MSE", 2.0, q5_values)]),
    Question("q6", ["simulate_sketch_errors"], [
        Check("simulation draws from rng", 0.75, q6_random, gate=True),
        Check("the simulation does not use the MSE formula", 0.25, q6_formula, gate=True),
        Check("errors are unbiased with the predicted spread", 2.0, q6_law, statistical=True)]),
    Question("q7", ["clopper_pearson", "epsilon_lower_bound"], [
        Check("interval at the public example", 0.5, q7_public, public=True),
        Check("intervals and bounds on other counts", 2.5, q7_values)]),
    Question("q8", ["audit_client"], [
        Check("the audit draws from rng", 0.75, q8_random, gate=True),
        Check("audits of an honest and a leaky client", 2.25, q8_audits, statistical=True)]),
    Question("q9", [], [], manual_points=3.0),  # written answer: rubric in book/assignments/masters/written_answers.md
]

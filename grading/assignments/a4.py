"""Hidden checks of assignment 4 (DP and RDP histograms, the exact projection).

No reference projection lives here: q4 is checked by the optimality conditions of the L1 problem
(no single unit moved from one cell to another lowers the cost: for a separable convex cost over
the histograms of n observations, that is global optimality) and by the properties of the tie rule.
The stored risks of q5 and q6 are checked against the grader's own simulation (its releases, its
losses), which projects with the student's project_to_histograms after checking every result is an
exact minimiser with the smallest-first rule, so any such minimiser is accepted there.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import stats

from ..checks import (
    Check,
    Question,
    as_array,
    as_float,
    close,
    ks_fits,
    laplace_cdf,
    low_bits_same_law,
    not_too_regular,
    privacy_holds,
    randomness,
    reproducible_and_random,
    require,
    same_law,
)
from ..sandbox import Expr

NAME = "a4_rdp_histograms"


def _release(epsilon: float, sparse: bool = False) -> Expr:
    """The grader's own DP (or sparse RDP) histogram at ``epsilon``, with the question's signature."""
    noisy = f"counts / counts.sum() + rng.laplace(0.0, 2.0 / (counts.sum() * {epsilon!r}), np.shape(counts))"
    if sparse:
        noisy = f"np.where(np.asarray(counts) == 0, 0.0, {noisy})"
    return Expr(f"lambda counts, rng: {noisy}")


IDENTITY = Expr("lambda z, n: np.asarray(z, dtype=float)")


# ---------------------------------------------------------------- q1
def q1_scale(sb, ctx):
    g = ctx.rng()
    for _ in range(3):
        n, e = int(g.integers(10, 10_000)), float(g.uniform(0.05, 3))
        close(sb.call("histogram_noise_scale", n, e), 2 / (n * e),
              "histogram_noise_scale: not the Laplace scale that makes the release of theta epsilon-DP", rtol=1e-9)
    close(sb.call("histogram_noise_scale", np.int64(400), np.float64(0.5)), 0.01,
          "histogram_noise_scale must accept NumPy numbers", rtol=1e-9)




def _noise(sb, counts, epsilon, g):
    n = counts.sum()
    z = as_array(sb.call("dp_histogram", counts, epsilon, g), "dp_histogram")
    require(z.shape == counts.shape, "dp_histogram: one value per cell (the output must have the shape of counts)")
    return (z - counts / n) * n * epsilon / 2  # standard Laplace if the answer is right


def q1_mechanism(sb, ctx):
    """The release behaves as a private mechanism: random, independent noise in every cell (not the
    law's quantiles), and neighbouring histograms indistinguishable, down to the last digits."""
    reproducible_and_random(sb, "dp_histogram", lambda g: (np.array([5, 0, 3]), 1.0, g), ctx, "dp_histogram")
    counts = np.arange(20_000) % 4 + 1
    noise = _noise(sb, counts, 0.3, ctx.rng())
    require(np.all(np.isfinite(noise)), "dp_histogram: the output has NaN or infinite values")
    require(np.unique(noise).size > 0.99 * noise.size,
            "dp_histogram: the cells share noise values (every cell needs its own independent Laplace draw; "
            "try dp_histogram(np.ones(10, dtype=int), 1.0, rng) and look at the noise)")
    not_too_regular(noise, stats.laplace.cdf, "dp_histogram")
    _q1_privacy(sb, ctx)


def q1_law(sb, ctx):
    for counts, epsilon in ((np.arange(20_000) % 4 + 1, 0.3), (np.r_[np.zeros(9_000, int), [40] * 1000], 2.0)):
        n = counts.sum()
        z = as_array(sb.call("dp_histogram", counts, epsilon, rng=ctx.rng()), "dp_histogram")
        require(z.shape == counts.shape, "dp_histogram: one value per cell (the output must have the shape of counts)")
        ks_fits(z - counts / n, laplace_cdf(2 / (n * epsilon)), "dp_histogram")
    # the scaled noise of 400 histograms of 3 cells against that of one histogram of 5,000 cells
    epsilon = 1.0
    counts = np.arange(5_000) % 7
    large = _noise(sb, counts, epsilon, ctx.rng())
    for small_counts in (np.array([5, 0, 3]), np.array([6, 2])):  # three cells; a yes/no question
        small = np.concatenate([_noise(sb, small_counts, epsilon, ctx.rng()) for _ in range(400)])
        same_law(small, large, "dp_histogram: small histograms (2 or 3 cells) against a large one")


def _q1_privacy(sb, ctx):
    # a cell holding 3 people and a cell holding 2 are neighbouring values of one cell (one person
    # moved): their released values, in count units, may differ by at most e^(epsilon/2)
    counts = np.tile([3, 2], 20_000)
    n, epsilon = counts.sum(), 1.0
    z = as_array(sb.call("dp_histogram", counts, epsilon, ctx.rng()), "dp_histogram")
    require(z.shape == counts.shape, "dp_histogram: one value per cell (the output must have the shape of counts)")
    privacy_holds(n * z[counts == 3], n * z[counts == 2], epsilon / 2, np.linspace(-3, 8, 23), "dp_histogram")
    # the last digits, on cells of 101 and 100 people: the noise is small against theta there, so an
    # honest sum never cancels (a cancellation leaves trailing zero bits that depend on theta)
    counts = np.tile([101, 100], 10_000)
    z = as_array(sb.call("dp_histogram", counts, epsilon, ctx.rng()), "dp_histogram")
    require(z.shape == counts.shape, "dp_histogram: one value per cell (the output must have the shape of counts)")
    low_bits_same_law(z[counts == 101], z[counts == 100], "dp_histogram")


# ---------------------------------------------------------------- q2
def _bool(value, what):
    require(isinstance(value, (bool, np.bool_)), f"{what} must return True or False (a bool or np.bool_)")
    return bool(value)


def q2_values(sb, ctx):
    g = ctx.rng()
    k = int(g.integers(10, 500))
    gamma = float(g.uniform(0.05, 0.5))
    n_edge = int(np.ceil(2 * k / gamma))
    require(_bool(sb.call("sparse_condition", k, n_edge, gamma), "sparse_condition"),
            "sparse_condition must hold at the boundary of the chapter's condition (equality included)")
    require(not _bool(sb.call("sparse_condition", k, n_edge - 1, gamma), "sparse_condition"),
            "sparse_condition must fail just below the boundary")
    require(_bool(sb.call("sparse_condition", np.int64(5), np.int64(10**6), np.float64(1e-5)), "sparse_condition"),
            "sparse_condition must accept NumPy numbers (k = 5, n = 10**6, gamma = 1e-5 is on the boundary)")


# ---------------------------------------------------------------- q3
def q3_zeros(sb, ctx):
    counts = np.where(np.arange(2_000) % 2 == 0, 10, 0)
    z = as_array(sb.call("rdp_histogram", counts, 0.5, 0.5, ctx.rng()), "rdp_histogram")
    require(z.shape == counts.shape, "rdp_histogram: one value per cell")
    require(np.all(z[counts == 0] == 0), "rdp_histogram: when the sparse condition holds, empty cells are released "
                                         "as exact zeros")
    require(np.all(z[counts > 0] != 10 / counts.sum()), "rdp_histogram: non-empty cells get noise")


def q3_law(sb, ctx):
    counts = np.where(np.arange(20_000) % 2 == 0, 10, 0)
    n = counts.sum()
    z = as_array(sb.call("rdp_histogram", counts, 0.5, 0.5, rng=ctx.rng()), "rdp_histogram")
    require(z.shape == counts.shape, "rdp_histogram: one value per cell")
    ks_fits(z[counts > 0] - 10 / n, laplace_cdf(2 / (n * 0.5)), "rdp_histogram: the noise of the non-empty cells")
    z = as_array(sb.call("rdp_histogram", counts, 0.5, 0.3, ctx.rng()), "rdp_histogram")
    require(z.shape == counts.shape, "rdp_histogram: one value per cell")
    ks_fits(z[counts == 0], laplace_cdf(2 / (n * 0.5)),
            "rdp_histogram: when the sparse condition fails, the empty cells (the fall-back)")


q3_random = randomness("rdp_histogram", lambda g: (np.array([5, 0, 3, 0]), 1.0, 0.1, g))


# ---------------------------------------------------------------- q4
def _counts(h, n, k, what):
    h = as_array(h, what)
    require(h.shape == (k,), f"{what} must return one value per cell (a 1-D array like z)")
    c = h * n
    require(np.all(np.isfinite(c)) and np.allclose(c, np.round(c), atol=1e-6) and np.all(np.round(c) >= 0)
            and int(np.round(c).sum()) == n, f"{what} must return a histogram of n observations: non-negative "
                                             "multiples of 1/n that sum to 1")
    return np.round(c)


def is_l1_minimiser(w, c, tol=1e-7):
    """No unit moved from one cell to another lowers sum |w - c| (global optimality for this problem)."""
    here = np.abs(w - c)
    lower = np.where(c >= 1, np.abs(w - c + 1) - here, np.inf)  # take a unit from cell i
    raise_ = np.abs(w - c - 1) - here  # give a unit to cell j
    order = np.argsort(raise_)
    best_j = np.where(np.arange(w.size) == order[0], raise_[order[1]], raise_[order[0]])  # j != i
    return bool(np.all(lower + best_j >= -tol))


def brute_force_cost(z, n):
    k = len(z)
    best = np.inf
    for bars in itertools.combinations(range(n + k - 1), k - 1):
        c = np.diff(np.array([-1, *bars, n + k - 1])) - 1
        best = min(best, np.abs(z - c / n).sum())
    return best


def q4_public(sb, ctx):
    z, n = np.array([0.52, 0.49, -0.03, 0.02]), 100
    c = _counts(sb.call("project_to_histograms", z, n), n, 4, "project_to_histograms (public example)")
    require(is_l1_minimiser(n * z, c), "project_to_histograms: at the public example z = (0.52, 0.49, -0.03, "
                                       "0.02), n = 100, the result is not an L1 minimiser")


def _cases(g, count, kmax, nmax):
    for _ in range(count):
        k, n = int(g.integers(2, kmax)), int(g.integers(1, nmax))
        yield g.dirichlet(np.ones(k)) + g.laplace(0, 2 / (n * float(g.uniform(0.2, 2))), k), n


def q4_optimal(sb, ctx):
    g = ctx.rng()
    for _ in range(15):  # small cases: the cost against a brute-force search
        k, n = int(g.integers(2, 5)), int(g.integers(1, 9))
        z = g.dirichlet(np.ones(k)) + g.laplace(0, 0.2, k)
        c = _counts(sb.call("project_to_histograms", z, n), n, k, "project_to_histograms")
        require(np.isclose(np.abs(z - c / n).sum(), brute_force_cost(z, n)),
                "project_to_histograms is not an L1 minimiser (small cases, k <= 4 cells and n <= 8)")
    cases = [(np.zeros(5), 7), (np.array([-1.0, -2.0]), 4), (np.array([0.25] * 4), 6), *_cases(g, 20, 60, 400)]
    for z, n in cases:  # larger ones: no unit moved between two cells lowers the cost
        c = _counts(sb.call("project_to_histograms", z, n), n, z.size, "project_to_histograms")
        require(is_l1_minimiser(n * z, c), "project_to_histograms is not an L1 minimiser (moving one unit from "
                                           "one cell to another lowers the cost; up to 60 cells and n up to 400)")
    c = _counts(sb.call("project_to_histograms", [0.5, 0.25, 0.25], np.int64(4)), 4, 3, "project_to_histograms")
    require(np.array_equal(c, [2, 1, 1]), "project_to_histograms must accept a list for z and a NumPy integer for n")


def follows_smallest_first(w, c):
    """In a surplus case, ``c`` keeps at most the whole units b of every cell and lowers a cell only
    after every cell with fewer units is empty (at most one cell partly cut; any order among equals)."""
    b = np.floor(np.maximum(w, 0.0))
    if np.any(c > b):
        return False
    cut = c < b
    if np.sum(cut & (c > 0)) > 1:
        return False
    largest_cut = b[cut].max() if np.any(cut) else -1
    return bool(np.all(c[b < largest_cut] == 0))


def q4_rule(sb, ctx):
    g = ctx.rng()
    tried = 0
    for z, n in [(np.array([0.5, 0.4, 0.35, -0.1]), 6), (np.array([0.3, 0.3, 0.3, 0.2]), 10),
                 *_cases(g, 60, 60, 400)]:
        w = n * z
        if np.floor(np.maximum(w, 0.0)).sum() <= n:
            continue  # no surplus: every minimiser is accepted
        tried += 1
        c = _counts(sb.call("project_to_histograms", z, n), n, z.size, "project_to_histograms")
        require(follows_smallest_first(w, c), "project_to_histograms does not take the surplus from the smallest "
                                              "cells first (try the question's example)")
    require(tried >= 5, "internal: too few surplus cases")


# ---------------------------------------------------------------- q5
def _risk(value, what):
    require(isinstance(value, (tuple, list)) and len(value) == 2,
            f"{what} must return the pair (risk, standard_error)")
    return as_float(value[0], f"{what}: the risk"), as_float(value[1], f"{what}: the standard error")


def q5_exact(sb, ctx):
    fixed = Expr("lambda counts, rng: np.array([0.25, 0.75])")
    risk, se = _risk(sb.call("estimate_risk", np.array([3, 1]), fixed, IDENTITY, 5, ctx.rng()), "estimate_risk")
    require(np.isclose(risk, 1.0) and np.isclose(se, 0.0, atol=1e-9),
            "estimate_risk of a fixed release (0.25, 0.75) for counts (3, 1), projected by the identity: the risk "
            "must be its L1 distance from theta, 1, with standard error 0")
    half = Expr("lambda z, n: np.full(np.shape(z), 0.5)")
    risk, _ = _risk(sb.call("estimate_risk", counts=np.array([3, 1]), release=fixed, project=half, num_reps=5,
                            rng=ctx.rng()), "estimate_risk")
    require(np.isclose(risk, 0.5), "estimate_risk must measure the loss of the *projected* release "
                                   "(project(release(counts, rng), n)), using the project it is given")


q5_random = randomness("estimate_risk", lambda g: (np.array([30, 10, 0]), _release(0.4), IDENTITY, 20, g))


CLIP = Expr("lambda z, n: np.maximum(np.asarray(z, dtype=float), 0.0)")


def q5_law(sb, ctx):
    # a rescaled Laplace release (b drawn per run), projected by the grader's clipping at 0: the mean
    # loss and its spread are computed here by a simulation of the grader's own, not by a formula
    g = ctx.rng()
    counts, reps = np.array([60, 40, 0, 0, 0, 0]), 2000
    b = float(g.uniform(0.02, 0.3))
    release = Expr(f"lambda counts, rng: counts / counts.sum() + rng.laplace(0.0, {b!r}, np.shape(counts))")
    risk, se = _risk(sb.call("estimate_risk", counts=counts, release=release, project=CLIP, num_reps=reps,
                             rng=g), "estimate_risk")
    theta = counts / counts.sum()
    losses = np.abs(np.maximum(theta + ctx.rng().laplace(0.0, b, (200_000, counts.size)), 0.0) - theta).sum(axis=1)
    true_se = losses.std() / np.sqrt(reps)
    require(abs(risk - losses.mean()) < 6 * true_se,
            "estimate_risk: the mean loss of another mechanism (a release with a different noise scale, projected "
            "by a projection of the grader's) is off (the simulation must call the release and the projection it "
            "is given)")
    require(se > 0 and 0.85 < se / true_se < 1.15,
            "estimate_risk: the standard error must be the standard deviation of the num_reps losses divided by "
            "sqrt(num_reps) (it is not 0 when the release is random)")


PAPER = np.zeros(25, dtype=int)
PAPER[[6, 17]] = 250


def _reference_risk(sb, ctx, counts, epsilon, sparse, reps, what):
    """The grader's own simulation of the risk: it draws the releases, projects each with the student's
    project_to_histograms (checked on every release: an exact L1 minimiser that takes a surplus from
    the smallest cells first, as question 4 asks) and measures the losses itself."""
    g = ctx.rng()
    n, k = int(counts.sum()), counts.size
    theta = counts / n
    losses = np.empty(reps)
    for rep in range(reps):
        z = theta + g.laplace(0.0, 2.0 / (n * epsilon), k)
        if sparse:
            z = np.where(counts == 0, 0.0, z)
        c = _counts(sb.call("project_to_histograms", z, n), n, k, f"{what}: project_to_histograms")
        w = n * z
        require(is_l1_minimiser(w, c) and (np.floor(np.maximum(w, 0.0)).sum() <= n or follows_smallest_first(w, c)),
                f"{what} cannot be checked: project_to_histograms is not an exact L1 minimiser with the "
                "smallest-first rule on the releases of these settings (see question 4)")
        losses[rep] = np.abs(c / n - theta).sum()
    return float(losses.mean()), float(losses.std(ddof=1))


def _consistent(sb, ctx, stored, counts, epsilon, sparse, student_reps, what):
    reps = 100  # the grader's repetitions (one call of project_to_histograms each)
    require(0 < stored < 2, f"{what} must be a mean L1 distance between histograms (between 0 and 2)")
    risk, sd = _reference_risk(sb, ctx, counts, epsilon, sparse, reps, what)
    require(abs(stored - risk) <= 6 * sd * np.sqrt(1 / reps + 1 / student_reps) + 1e-9,
            f"{what} is not the risk at the question's settings (the grader measures it with its own simulation "
            "and your project_to_histograms; check n, k, epsilon, gamma and the number of repetitions)")


def q5_values(sb, ctx):
    _consistent(sb, ctx, as_float(sb.value("risk_dp"), "risk_dp"), PAPER, 0.1, False, 100, "risk_dp")
    _consistent(sb, ctx, as_float(sb.value("risk_rdp"), "risk_rdp"), PAPER, 0.1, True, 100, "risk_rdp")


# ---------------------------------------------------------------- q6
KS = (5, 25, 100)


def _q6(name, sparse):
    def run(sb, ctx):
        risks = as_array(sb.value(name), name)
        require(risks.shape == (3,), f"{name} must hold one risk per value of k in ks = [5, 25, 100]")
        for k, stored in zip(KS, risks, strict=True):
            support = np.zeros(k, dtype=int)
            support[[0, 1]] = 500
            _consistent(sb, ctx, float(stored), support, 0.5, sparse, 200, f"{name} at k = {k}")

    run.__name__ = f"q6_{name}"
    return run


q6_dp = _q6("risks_dp_k", False)
q6_rdp = _q6("risks_rdp_k", True)


QUESTIONS = [
    Question("q1", ["histogram_noise_scale", "dp_histogram"], [
        Check("a private mechanism: random, independent noise in every cell, neighbouring histograms "
              "indistinguishable", 1.0, q1_mechanism, statistical=True, gate=True),
        Check("Laplace noise of the right scale, on small and large histograms", 0.5, q1_law, statistical=True),
        Check("noise scale", 0.5, q1_scale)]),
    Question("q2", ["sparse_condition"], [
        Check("the chapter's sparsity condition", 1.0, q2_values)]),
    Question("q3", ["rdp_histogram"], [
        Check("randomness drawn from rng", 0.25, q3_random, gate=True),
        Check("exact zeros in empty cells", 0.75, q3_zeros),
        Check("noise law, and the fall-back", 1.0, q3_law, statistical=True)]),
    Question("q4", ["project_to_histograms"], [
        Check("an L1 minimiser at the public example", 0.5, q4_public, public=True),
        Check("an exact L1 minimiser", 1.5, q4_optimal),
        Check("the surplus taken from the smallest cells first", 1.0, q4_rule)]),
    Question("q5", ["estimate_risk", "risk_dp", "risk_rdp"], [
        Check("risk of a fixed release, through the given projection", 0.5, q5_exact),
        Check("simulation draws from rng", 0.25, q5_random, gate=True),
        Check("simulated risk and standard error of another mechanism", 1.5, q5_law, statistical=True),
        Check("the paper's example", 0.75, q5_values, statistical=True)]),
    Question("q6", ["risks_dp_k", "risks_rdp_k"], [
        Check("DP risks against k", 1.0, q6_dp, statistical=True),
        Check("RDP risks against k", 1.0, q6_rdp, statistical=True)]),
    Question("q7", [], [], manual_points=7.0),  # written answer: rubric in book/assignments/masters/written_answers.md
]

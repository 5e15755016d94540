"""Hidden checks of assignment 1 (randomized response)."""

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
)
from ..sandbox import Expr, Ref

NAME = "a1_randomized_response"


def q(epsilon):
    return 1 / (1 + np.exp(epsilon))


# ---------------------------------------------------------------- q1 flip_probability
def q1_public(sb, ctx):
    close(sb.call("flip_probability", np.log(3)), 0.25, "flip_probability at the public example")


def q1_grid(sb, ctx):
    eps = np.round(ctx.rng().uniform(0.05, 6, size=(3, 2)), 3)
    close(sb.call("flip_probability", eps), q(eps), "flip_probability on an array of epsilons", rtol=1e-9)
    close(sb.call("flip_probability", 1e-9), 0.5, "flip_probability as epsilon tends to 0", rtol=1e-6)


def q1_errors(sb, ctx):
    for bad in (0.0, -1.0, np.array([1.0, -0.5]), np.nan):
        require(raises(sb, "flip_probability", bad),
                "flip_probability must raise ValueError when some epsilon is not strictly positive (or NaN)")


# ---------------------------------------------------------------- q2 randomized_response
def q2_shape(sb, ctx):
    bits = (ctx.rng().random((3, 4)) < 0.5).astype(int)
    out, (after,) = sb.call("randomized_response", bits, 0.7, ctx.rng(), return_args=True)[0], \
        sb.call("randomized_response", bits, 0.7, ctx.rng(), return_args=True)[1][:1]
    out = as_array(out, "randomized_response", dtype=None)
    require(out.shape == bits.shape, "randomized_response must keep the shape of its input")
    require(np.issubdtype(out.dtype, np.integer), "randomized_response must return integer bits")
    require(set(np.unique(out).tolist()) <= {0, 1}, "reports must be 0 or 1")
    require(np.array_equal(after, bits), "randomized_response must not modify its input")


q2_random = randomness("randomized_response", lambda g: (np.ones(200, dtype=int), 1.0, g))


def q2_sizes(sb, ctx):
    # the flips of 1,000 calls on one bit and of 400 calls on 5 bits against those of one call on 20,000 bits
    pattern = np.array([0, 1, 0, 1, 1])
    g = ctx.rng()
    large_bits = np.tile(pattern, 4000)
    large = as_array(sb.call("randomized_response", large_bits, 1.0, g), "randomized_response") != large_bits
    for bits, calls in ((np.array([1]), 500), (np.array([0]), 500), (pattern, 400)):
        small = np.concatenate([as_array(sb.call("randomized_response", bits, 1.0, g), "randomized_response")
                                .ravel() != bits for _ in range(calls)])
        same_law(small, large, "randomized_response: the flips")
    # at every epsilon the flips follow the notebook's own flip_probability (a wrong formula loses q1 and
    # the flip-rate check only; a mechanism that stops flipping at some epsilon fails here)
    for epsilon in (float(g.uniform(0.05, 0.5)), float(g.uniform(2.5, 6.0))):
        q_own = as_float(sb.call("flip_probability", epsilon), "flip_probability")
        require(0.0 < q_own < 1.0, "flip_probability must lie between 0 and 1")
        out = as_array(sb.call("randomized_response", np.zeros(40_000, dtype=int), epsilon, g), "randomized_response")
        binomial_fits(int(np.sum(out != 0)), out.size, q_own,
                      "randomized_response: the flips must follow flip_probability at every epsilon")


def q2_law(sb, ctx):
    for epsilon in (0.3, 1.7):
        bits = ctx.rng().permutation(np.repeat([0, 1], 50_000))
        out = as_array(sb.call("randomized_response", bits, epsilon, ctx.rng()), "randomized_response")
        for bit in (0, 1):
            flipped = int(np.sum(out[bits == bit] != bit))
            binomial_fits(flipped, 50_000, q(epsilon), "randomized_response: the flip rate")


def q2_positions(sb, ctx):
    # every position is flipped at the same rate, independently of the others (no fixed pattern)
    repeats, width = 4_000, 20
    out = as_array(sb.call("randomized_response", np.zeros((repeats, width), dtype=int), 1.0, ctx.rng()),
                   "randomized_response")
    per_position = out.sum(axis=0)
    chi2 = np.sum((per_position - repeats * q(1.0)) ** 2 / (repeats * q(1.0) * (1 - q(1.0))))
    require(stats.chi2.sf(chi2, width) > 1e-6, "randomized_response: flips must hit every position at the same rate")
    per_row = out.sum(axis=1).astype(int)
    chisquare_fits(np.bincount(per_row, minlength=width + 1), stats.binom.pmf(np.arange(width + 1), width, q(1.0)),
                   "randomized_response: flips must be independent")


def q2_privacy(sb, ctx):
    epsilon, trials = 1.0, 200_000
    from_zero = as_array(sb.call("randomized_response", np.zeros(trials, dtype=int), epsilon, ctx.rng()), "reports")
    from_one = as_array(sb.call("randomized_response", np.ones(trials, dtype=int), epsilon, ctx.rng()), "reports")
    privacy_holds(from_zero, from_one, epsilon, np.array([-0.5, 0.5, 1.5]), "randomized_response")


# ---------------------------------------------------------------- q3 rr_estimate
def q3_public(sb, ctx):
    close(sb.call("rr_estimate", np.array([1, 1, 1, 0]), np.log(3)), 1.0, "rr_estimate at the public example")


def q3_formula(sb, ctx):
    for epsilon in (0.4, 2.2):
        reports = (ctx.rng().random(int(ctx.rng().integers(50, 3000))) < 0.4).astype(int)
        expected = (reports.mean() - q(epsilon)) / (1 - 2 * q(epsilon))
        close(sb.call("rr_estimate", reports, epsilon), expected, "rr_estimate on random reports", rtol=1e-9)


def q3_no_clip(sb, ctx):
    close(sb.call("rr_estimate", np.zeros(12, dtype=int), 0.9), -q(0.9) / (1 - 2 * q(0.9)),
          "rr_estimate must not clip the estimate to [0, 1]", rtol=1e-9)
    close(sb.call("rr_estimate", np.ones((3, 4), dtype=int), 0.9), (1 - q(0.9)) / (1 - 2 * q(0.9)),
          "rr_estimate must not clip the estimate to [0, 1]", rtol=1e-9)


# ---------------------------------------------------------------- q4 rr_variance
def variance(p, n, epsilon):
    return (p * (1 - p) + np.exp(epsilon) / np.expm1(epsilon) ** 2) / n


def q4_public(sb, ctx):
    close(sb.call("rr_variance", 0.5, 1000, np.log(3)), 0.001, "rr_variance at the public example")


def q4_arrays(sb, ctx):
    g = ctx.rng()
    p, n, eps = g.uniform(0, 1, 5), g.integers(5, 5000, 5), g.uniform(0.1, 4, 5)
    close(sb.call("rr_variance", p, n, eps), variance(p, n, eps), "rr_variance element-wise on arrays", rtol=1e-8)
    close(sb.call("rr_variance", 0.0, 40, 0.25), variance(0.0, 40, 0.25), "rr_variance at p = 0", rtol=1e-8)


# ---------------------------------------------------------------- q5 simulate_estimates
def q5_shape(sb, ctx):
    out = as_array(sb.call("simulate_estimates", 0.3, 50, 1.0, 40, ctx.rng()), "simulate_estimates")
    require(out.shape == (40,), "simulate_estimates must return num_surveys estimates")


q5_random = randomness("simulate_estimates", lambda g: (0.4, 30, 1.0, 20, g), min_draws=lambda a: a[1] * a[3] / 4)


def q5_law(sb, ctx):
    # n * (estimate * (1 - 2q) + q) is the number of reported ones: exactly Binomial(n, pi)
    for p, n, epsilon in ((0.8, 60, 0.5), (0.25, 200, 1.5)):
        out = as_array(sb.call("simulate_estimates", p, n, epsilon, 20_000, ctx.rng()), "simulate_estimates")
        require(out.shape == (20_000,), "simulate_estimates must return num_surveys estimates")
        ones = n * (out * (1 - 2 * q(epsilon)) + q(epsilon))
        require(np.allclose(ones, np.round(ones), atol=1e-6),
                "simulate_estimates: each estimate must come from n simulated reports")
        pi = q(epsilon) + (1 - 2 * q(epsilon)) * p
        counts = np.bincount(np.round(ones).astype(int).clip(0, n), minlength=n + 1)
        chisquare_fits(counts, stats.binom.pmf(np.arange(n + 1), n, pi), "simulate_estimates")


# ---------------------------------------------------------------- q6 empirical_epsilon
HALF_RR = "lambda bits, eps, gen: np.where(gen.random(np.shape(bits)) < 1 / (1 + np.exp(eps / 2)), 1 - np.asarray(bits), np.asarray(bits))"
SKEWED = "lambda bits, eps, gen: np.where(np.asarray(bits) == 1, (gen.random(np.shape(bits)) < 0.9).astype(int), (gen.random(np.shape(bits)) < 0.3).astype(int))"
NO_NOISE = "lambda bits, eps, gen: np.asarray(bits).copy()"


def q6_public(sb, ctx):
    got = as_float(sb.call("empirical_epsilon", Ref("randomized_response"), 1.0, 200_000, ctx.rng()),
                   "empirical_epsilon")
    require(abs(got - 1.0) < 0.05, "empirical_epsilon on your randomized_response at epsilon = 1 is off")


def q6_other_mechanisms(sb, ctx):
    got = as_float(sb.call("empirical_epsilon", Expr(HALF_RR), 1.6, 200_000, ctx.rng()), "empirical_epsilon")
    require(abs(got - 0.8) < 0.05, "empirical_epsilon is wrong on another mechanism (it must measure, not assume)")
    got = as_float(sb.call("empirical_epsilon", Expr(SKEWED), 0.5, 200_000, ctx.rng()), "empirical_epsilon")
    require(abs(got - np.log(7)) < 0.1, "empirical_epsilon is wrong on an asymmetric mechanism")


def q6_infinite(sb, ctx):
    got = as_float(sb.call("empirical_epsilon", Expr(NO_NOISE), 1.0, 1000, ctx.rng()), "empirical_epsilon")
    require(got == np.inf, "empirical_epsilon must return inf for a mechanism that reports the true bit")


q6_random = randomness("empirical_epsilon", lambda g: (Expr(HALF_RR), 1.0, 500, g), min_draws=lambda a: a[2] / 2)


QUESTIONS = [
    Question("q1", ["flip_probability"], [
        Check("flip probability at the public example", 0.5, q1_public, public=True),
        Check("flip probability on other inputs", 1.0, q1_grid),
        Check("bad epsilon raises ValueError", 0.5, q1_errors)]),
    Question("q2", ["randomized_response"], [
        Check("randomness drawn from rng", 0.5, q2_random, gate=True),
        Check("shape, integer bits, input untouched", 0.25, q2_shape),
        Check("the same flips on few bits as on many, and at every epsilon", 0.5, q2_sizes, statistical=True, gate=True),
        Check("flip rate at two epsilons", 0.75, q2_law, statistical=True),
        Check("independent flips at every position", 0.25, q2_positions, statistical=True),
        Check("empirical privacy on neighbouring bits", 0.75, q2_privacy, statistical=True)]),
    Question("q3", ["rr_estimate"], [
        Check("estimate at the public example", 0.5, q3_public, public=True),
        Check("estimate on other reports", 1.0, q3_formula),
        Check("no clipping", 0.5, q3_no_clip)]),
    Question("q4", ["rr_variance"], [
        Check("variance at the public example", 0.5, q4_public, public=True),
        Check("variance element-wise on arrays", 1.5, q4_arrays)]),
    Question("q5", ["simulate_estimates"], [
        Check("simulation draws from rng", 0.75, q5_random, gate=True),
        Check("one estimate per survey", 0.25, q5_shape),
        Check("estimates follow the exact law at two settings", 2.0, q5_law, statistical=True)]),
    Question("q6", ["empirical_epsilon"], [
        Check("the measurement draws from rng", 0.5, q6_random, gate=True),
        Check("empirical epsilon of your mechanism", 0.5, q6_public, public=True, statistical=True),
        Check("empirical epsilon of other mechanisms", 1.25, q6_other_mechanisms, statistical=True),
        Check("inf for a non-private mechanism", 0.75, q6_infinite)]),
    Question("q7", [], [], manual_points=3.0),  # written answer: rubric in book/assignments/masters/written_answers.md
]

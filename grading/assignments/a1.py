"""Hidden checks of assignment 1 (randomized response).

Simulations and measurements run on mechanisms of the grader's own (``Expr``), with parameters
drawn fresh per run, so no closed form in the notebook describes their law; the mechanism is
tested for behaviour (binomially varying counts, same flips on few and many bits, privacy).
"""

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
    counts_vary_binomially,
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
    close(sb.call("flip_probability", np.log(3)), 0.25, "flip_probability at the public example epsilon = ln 3")


def q1_grid(sb, ctx):
    eps = np.round(ctx.rng().uniform(0.05, 6, size=(3, 2)), 3)
    close(sb.call("flip_probability", eps), q(eps), "flip_probability on an array of epsilons", rtol=1e-9)
    single = float(eps[0, 0])
    close(sb.call("flip_probability", np.float64(single)), q(single), "flip_probability of a NumPy number",
          rtol=1e-9)
    close(sb.call("flip_probability", epsilon=1e-9), 0.5, "flip_probability as epsilon tends to 0", rtol=1e-6)


def q1_errors(sb, ctx):
    for bad in (0.0, -1.0, np.array([1.0, -0.5]), np.nan):
        require(raises(sb, "flip_probability", bad),
                "flip_probability must raise ValueError when some epsilon is zero, negative or NaN "
                "(try 0, -1, np.nan and np.array([1.0, -0.5]))")


# ---------------------------------------------------------------- q2 randomized_response
def _bits(value, what="randomized_response"):
    out = as_array(value, what, dtype=None)
    require(out.dtype == bool or np.issubdtype(out.dtype, np.integer) or np.issubdtype(out.dtype, np.floating),
            f"{what} must return an array of 0/1 reports")
    return out.astype(float)


def _canonical_reports(raw, what):
    """Reports carry nothing but their 0/1 value: one type for every entry (a list mixing ints and
    floats can tell which bits were 1), and no negative zero (-0.0 can mark a flipped bit)."""
    if isinstance(raw, (list, tuple)):
        flat = list(np.asarray(raw, dtype=object).ravel())
        require(len({type(v) for v in flat}) <= 1,
                f"{what}: every report must have the same type (return an integer or boolean NumPy array)")
    values = as_array(raw, what, dtype=None)
    if values.dtype.kind == "f":
        require(not np.any(np.signbit(values[values == 0])),
                f"{what}: reports must be 0 or 1 (a negative zero is not a report)")


def q2_counts(sb, ctx):
    # each call on n zeros releases a count of ones that must be Binomial(n, q) across calls: flipping
    # exactly round(q n) random positions releases the true count and fails here
    g = ctx.rng()
    for bits in (np.zeros(400, dtype=int), np.ones(400, dtype=int), (g.random(400) < 0.5).astype(int)):
        _canonical_reports(sb.call("randomized_response", bits, float(g.uniform(0.3, 3.0)), ctx.rng()),
                           "randomized_response")
    epsilon = float(g.uniform(0.5, 1.5))
    q_own = as_float(sb.call("flip_probability", epsilon), "flip_probability")
    require(0.0 < q_own < 1.0, "flip_probability must lie between 0 and 1")
    n = int(g.integers(30, 60))
    counts = [_bits(sb.call("randomized_response", np.zeros(n, dtype=int), epsilon, g)).sum() for _ in range(1000)]
    counts_vary_binomially(np.array(counts), n, q_own, "randomized_response")


def q2_shape(sb, ctx):
    bits = (ctx.rng().random((3, 4)) < 0.5).astype(int)
    out, args = sb.call("randomized_response", bits, 0.7, ctx.rng(), return_args=True)
    out = as_array(out, "randomized_response", dtype=None)
    require(out.shape == bits.shape, "randomized_response must keep the shape of its input (try a (3, 4) array)")
    require(set(np.unique(out.astype(float)).tolist()) <= {0.0, 1.0}, "reports must be 0 or 1")
    require(np.array_equal(np.asarray(args[0]), bits), "randomized_response must not modify its input")
    as_bools = as_array(sb.call("randomized_response", bits == 1, epsilon=0.7, rng=ctx.rng()),
                        "randomized_response", dtype=None)
    require(as_bools.shape == bits.shape and set(np.unique(as_bools.astype(float)).tolist()) <= {0.0, 1.0},
            "randomized_response must accept boolean bits (True/False) and return 0/1 reports")


q2_random = randomness("randomized_response", lambda g: (np.ones(200, dtype=int), 1.0, g))


def q2_sizes(sb, ctx):
    # the flips of 500 calls on one bit and of 400 calls on 5 bits against those of one call on 20,000 bits
    pattern = np.array([0, 1, 0, 1, 1])
    g = ctx.rng()
    large_bits = np.tile(pattern, 4000)
    large = _bits(sb.call("randomized_response", large_bits, 1.0, g)) != large_bits
    for bits, calls in ((np.array([1]), 500), (np.array([0]), 500), (pattern, 400)):
        small = np.concatenate([_bits(sb.call("randomized_response", bits, 1.0, g)).ravel() != bits
                                for _ in range(calls)])
        same_law(small, large, "randomized_response: the flips on few bits and on many")
    # at every epsilon the flips follow the notebook's own flip_probability
    for epsilon in (float(g.uniform(0.05, 0.5)), float(g.uniform(2.5, 6.0))):
        q_own = as_float(sb.call("flip_probability", epsilon), "flip_probability")
        require(0.0 < q_own < 1.0, "flip_probability must lie between 0 and 1")
        out = _bits(sb.call("randomized_response", bits=np.zeros(40_000, dtype=int), epsilon=epsilon, rng=g))
        binomial_fits(int(np.sum(out != 0)), out.size, q_own,
                      "randomized_response: the flips must follow flip_probability at every epsilon")


def q2_law(sb, ctx):
    for epsilon in (0.3, 1.7):
        bits = ctx.rng().permutation(np.repeat([0, 1], 50_000))
        out = _bits(sb.call("randomized_response", bits, epsilon, ctx.rng()))
        for bit in (0, 1):
            flipped = int(np.sum(out[bits == bit] != bit))
            binomial_fits(flipped, 50_000, q(epsilon),
                          f"randomized_response: the flip rate of true {bit}s at epsilon = {epsilon}")


def q2_positions(sb, ctx):
    # every position is flipped at the same rate, independently of the others (no fixed pattern)
    repeats, width = 4_000, 20
    out = _bits(sb.call("randomized_response", np.zeros((repeats, width), dtype=int), 1.0, ctx.rng()))
    per_position = out.sum(axis=0)
    chi2 = np.sum((per_position - repeats * q(1.0)) ** 2 / (repeats * q(1.0) * (1 - q(1.0))))
    require(stats.chi2.sf(chi2, width) > 1e-6,
            "randomized_response: flips must hit every position at the same rate (try a (4000, 20) array of zeros)")
    per_row = out.sum(axis=1).astype(int)
    chisquare_fits(np.bincount(per_row, minlength=width + 1), stats.binom.pmf(np.arange(width + 1), width, q(1.0)),
                   "randomized_response: flips must be independent of each other")


def q2_privacy(sb, ctx):
    epsilon, trials = 1.0, 200_000
    from_zero = _bits(sb.call("randomized_response", np.zeros(trials, dtype=int), epsilon, ctx.rng()))
    from_one = _bits(sb.call("randomized_response", np.ones(trials, dtype=int), epsilon, ctx.rng()))
    privacy_holds(from_zero, from_one, epsilon, np.array([-0.5, 0.5, 1.5]), "randomized_response")


# ---------------------------------------------------------------- q3 rr_estimate
def q3_public(sb, ctx):
    close(sb.call("rr_estimate", np.array([1, 1, 1, 0]), np.log(3)), 1.0,
          "rr_estimate at the public example ([1, 1, 1, 0] at epsilon = ln 3)")


def q3_formula(sb, ctx):
    for epsilon in (0.4, 2.2):
        reports = (ctx.rng().random(int(ctx.rng().integers(50, 3000))) < 0.4).astype(int)
        expected = (reports.mean() - q(epsilon)) / (1 - 2 * q(epsilon))
        close(sb.call("rr_estimate", reports, epsilon), expected, "rr_estimate on random reports", rtol=1e-9)
    bools = ctx.rng().random(40) < 0.5
    close(sb.call("rr_estimate", noisy_bits=bools, epsilon=1.0), (bools.mean() - q(1.0)) / (1 - 2 * q(1.0)),
          "rr_estimate on boolean reports", rtol=1e-9)


def q3_no_clip(sb, ctx):
    close(sb.call("rr_estimate", np.zeros(12, dtype=int), 0.9), -q(0.9) / (1 - 2 * q(0.9)),
          "rr_estimate must not clip the estimate to [0, 1] (try twelve zeros)", rtol=1e-9)
    close(sb.call("rr_estimate", np.ones((3, 4), dtype=int), 0.9), (1 - q(0.9)) / (1 - 2 * q(0.9)),
          "rr_estimate must not clip the estimate to [0, 1] (try a (3, 4) array of ones)", rtol=1e-9)


# ---------------------------------------------------------------- q4 rr_variance
def variance(p, n, epsilon):
    return (p * (1 - p) + np.exp(epsilon) / np.expm1(epsilon) ** 2) / n


def q4_public(sb, ctx):
    close(sb.call("rr_variance", 0.5, 1000, np.log(3)), 0.001, "rr_variance at the public example")


def q4_arrays(sb, ctx):
    g = ctx.rng()
    p, n, eps = g.uniform(0, 1, 5), g.integers(5, 5000, 5), g.uniform(0.1, 4, 5)
    close(sb.call("rr_variance", p, n, eps), variance(p, n, eps), "rr_variance element-wise on arrays", rtol=1e-8)
    close(sb.call("rr_variance", p=0.0, n=40, epsilon=0.25), variance(0.0, 40, 0.25), "rr_variance at p = 0",
          rtol=1e-8)


# ---------------------------------------------------------------- q5 simulate_estimates
def asymmetric(a: float, b: float) -> Expr:
    """The grader's mechanism: a 1 is reported as 1 with probability a, a 0 with probability b."""
    return Expr(f"lambda bits, epsilon, rng: (rng.random(np.shape(bits)) < "
                f"np.where(np.asarray(bits) == 1, {a!r}, {b!r})).astype(int)")


def _reported_ones(sb, estimates, n, epsilon):
    """The number of reported ones behind each estimate, through the notebook's own rr_estimate
    (an affine map of the share of ones), so an error in q1 or q3 does not count twice."""
    at_zero = as_float(sb.call("rr_estimate", np.zeros(n, dtype=int), epsilon), "rr_estimate")
    at_one = as_float(sb.call("rr_estimate", np.ones(n, dtype=int), epsilon), "rr_estimate")
    require(np.isfinite(at_zero) and np.isfinite(at_one) and at_one != at_zero,
            "rr_estimate must grow with the share of reported ones (question 3)")
    ones = n * (np.asarray(estimates, dtype=float) - at_zero) / (at_one - at_zero)
    require(np.all(np.isfinite(ones)) and np.allclose(ones, np.round(ones), atol=1e-6),
            "simulate_estimates: each estimate must be rr_estimate of the n reports of one survey")
    return np.round(ones).astype(int).clip(0, n)


def q5_other_mechanism(sb, ctx):
    g = ctx.rng()
    while True:  # a law of reports at least 0.1 away from randomized response's at the same p and epsilon
        a, b = round(float(g.uniform(0.55, 0.95)), 4), round(float(g.uniform(0.02, 0.4)), 4)
        p, n, epsilon = round(float(g.uniform(0.1, 0.9)), 3), int(g.integers(40, 120)), round(float(g.uniform(0.3, 2)), 3)
        if abs(b + (a - b) * p - (q(epsilon) + (1 - 2 * q(epsilon)) * p)) > 0.1:
            break
    out = as_array(sb.call("simulate_estimates", p, n, epsilon, 4000, g, asymmetric(a, b)), "simulate_estimates")
    require(out.shape == (4000,), "simulate_estimates must return num_surveys estimates")
    pi = b + (a - b) * p
    chisquare_fits(np.bincount(_reported_ones(sb, out, n, epsilon), minlength=n + 1),
                   stats.binom.pmf(np.arange(n + 1), n, pi),
                   "simulate_estimates must run the mechanism it is given on every survey's true bits (with "
                   "another mechanism than randomized response the estimates do not follow the law its "
                   "reports imply)")


def q5_shape(sb, ctx):
    out = as_array(sb.call("simulate_estimates", 0.3, 50, 1.0, 40, ctx.rng(), Ref("randomized_response")),
                   "simulate_estimates")
    require(out.shape == (40,), "simulate_estimates must return num_surveys estimates (try 40 surveys)")


q5_random = randomness("simulate_estimates", lambda g: (0.4, 30, 1.0, 20, g, asymmetric(0.7, 0.2)))


def q5_own_mechanism(sb, ctx):
    # the honest use: randomized response itself (the grader's exact copy), every argument by keyword
    g = ctx.rng()
    p, n, epsilon = round(float(g.uniform(0.1, 0.9)), 3), int(g.integers(60, 200)), round(float(g.uniform(0.4, 1.6)), 3)
    rr = Expr(RR)
    out = as_array(sb.call("simulate_estimates", p=p, n=n, epsilon=epsilon, num_surveys=5000, rng=g, mechanism=rr),
                   "simulate_estimates")
    require(out.shape == (5000,), "simulate_estimates must return num_surveys estimates")
    pi = q(epsilon) + (1 - 2 * q(epsilon)) * p
    chisquare_fits(np.bincount(_reported_ones(sb, out, n, epsilon), minlength=n + 1),
                   stats.binom.pmf(np.arange(n + 1), n, pi),
                   "simulate_estimates with randomized response (called by keyword): the estimates do not "
                   "follow the law of n reports")


# ---------------------------------------------------------------- q6 empirical_epsilon
HALF_RR = ("lambda bits, epsilon, rng: np.where(rng.random(np.shape(bits)) < 1 / (1 + np.exp(epsilon / 2)), "
           "1 - np.asarray(bits, dtype=int), np.asarray(bits, dtype=int))")
RR = ("lambda bits, epsilon, rng: np.where(rng.random(np.shape(bits)) < 1 / (1 + np.exp(epsilon)), "
      "1 - np.asarray(bits, dtype=int), np.asarray(bits, dtype=int))")
NO_NOISE = "lambda bits, epsilon, rng: np.array(bits, dtype=int)"


def q6_other_mechanisms(sb, ctx):
    g = ctx.rng()
    got = as_float(sb.call("empirical_epsilon", Expr(HALF_RR), 1.6, 200_000, g), "empirical_epsilon")
    require(abs(got - 0.8) < 0.05, "empirical_epsilon is wrong on another mechanism (it must measure the "
                                   "mechanism it is given, not assume randomized response)")
    a, b = round(float(g.uniform(0.75, 0.9)), 3), round(float(g.uniform(0.2, 0.4)), 3)
    truth = max(np.log(a / b), np.log((1 - b) / (1 - a)))
    got = as_float(sb.call("empirical_epsilon", asymmetric(a, b), 0.5, 200_000, g), "empirical_epsilon")
    require(abs(got - truth) < 0.1, "empirical_epsilon is wrong on a mechanism that treats 0 and 1 differently "
                                    "(take the largest ratio over both reports, in both directions)")


def q6_keyword(sb, ctx):
    g = ctx.rng()
    epsilon = round(float(g.uniform(0.5, 2.0)), 3)
    got = as_float(sb.call("empirical_epsilon", mechanism=Expr(RR), epsilon=epsilon, num_trials=200_000, rng=g),
                   "empirical_epsilon")
    require(abs(got - epsilon) < 0.08, "empirical_epsilon of randomized response (called by keyword) is off")


def q6_infinite(sb, ctx):
    got = as_float(sb.call("empirical_epsilon", Expr(NO_NOISE), 1.0, 1000, ctx.rng()), "empirical_epsilon")
    require(got == np.inf, "empirical_epsilon must return inf for a mechanism that reports the true bit")


q6_random = randomness("empirical_epsilon", lambda g: (Expr(HALF_RR), 1.0, 500, g))


QUESTIONS = [
    Question("q1", ["flip_probability"], [
        Check("flip probability at the public example", 0.5, q1_public, public=True),
        Check("flip probability on other inputs", 1.0, q1_grid),
        Check("bad epsilon (zero, negative, NaN) raises ValueError", 0.5, q1_errors)]),
    Question("q2", ["randomized_response"], [
        Check("the number of flips varies from call to call as independent flips do", 0.5, q2_counts,
              statistical=True, gate=True),
        Check("randomness drawn from rng", 0.25, q2_random, gate=True),
        Check("shape, 0/1 reports, boolean bits accepted, input untouched", 0.25, q2_shape),
        Check("the same flips on few bits as on many, and at every epsilon", 0.5, q2_sizes, statistical=True,
              gate=True),
        Check("flip rate at two epsilons", 0.5, q2_law, statistical=True),
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
        Check("the simulation runs the mechanism it is given (a mechanism of the grader's)", 1.5,
              q5_other_mechanism, statistical=True, gate=True),
        Check("one estimate per survey", 0.25, q5_shape),
        Check("simulation draws from rng", 0.25, q5_random),
        Check("estimates follow the law of randomized response's reports (keyword call)", 1.0, q5_own_mechanism,
              statistical=True)]),
    Question("q6", ["empirical_epsilon"], [
        Check("inf for a non-private mechanism", 0.75, q6_infinite),
        Check("empirical epsilon of other mechanisms", 1.25, q6_other_mechanisms, statistical=True),
        Check("empirical epsilon of randomized response (keyword call)", 0.5, q6_keyword, statistical=True),
        Check("the measurement draws from rng", 0.5, q6_random)]),
    # written answers: model answers in the master, rubrics in book/assignments/masters/written_answers.md
    Question("q7", [], [], manual_points=5.0),
    Question("q8", [], [], manual_points=4.0),
]

"""Hidden checks of assignment 5 (local DP for users holding sets of items, and the design of an audit).

The simulation (q5) and the audit (q6) take the client they run as an argument; the grader hands them
clients of its own (honest, flipping at rates drawn per run, leaky, over-flipping), whose laws no closed
form in the notebook describes. The client (q2) is checked as a mechanism first."""

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
    reproducible_and_random,
    require,
    same_law,
)
from ..sandbox import Expr

NAME = "a5_local_dp_auditing"


def q(epsilon, size):
    return 1 / (np.exp(np.asarray(epsilon, dtype=float) / (2 * size)) + 1)


def random_sets(g, users, items, size):
    return np.argsort(g.random((users, items)), axis=1)[:, :size]


def vectors(sets, table, indices, width):
    """The clean vectors: a 1 in the bucket of every item of a user's set under the user's hash."""
    buckets = table[sets, np.clip(indices, 0, table.shape[1] - 1)[:, None]]
    return (np.arange(width)[None, None, :] == buckets[:, :, None]).any(axis=1).astype(int)


# ---------------------------------------------------------------- q1
def q1_public(sb, ctx):
    close(sb.call("set_flip_probability", 4 * np.log(3), 2), 0.25, "set_flip_probability at the public example")


def q1_values(sb, ctx):
    g = ctx.rng()
    eps, size = np.round(g.uniform(0.05, 8, size=(2, 3)), 3), int(g.integers(2, 7))
    close(sb.call("set_flip_probability", eps, size), q(eps, size),
          "set_flip_probability on an array of epsilons (sets of several items)", rtol=1e-9)
    close(sb.call("set_flip_probability", np.float64(2.0), np.int64(3)), q(2.0, 3),
          "set_flip_probability of NumPy numbers", rtol=1e-9)
    close(sb.call("set_flip_probability", 1.5, 1), q(1.5, 1), "set_flip_probability for sets of one item",
          rtol=1e-9)
    for bad in ((0.0, 2), (-2.0, 1), (np.nan, 3), (np.array([1.0, 0.0]), 2), (1.0, 0)):
        require(raises(sb, "set_flip_probability", *bad),
                "set_flip_probability must raise ValueError when some epsilon is not strictly positive (0, -2, NaN, "
                "or an array holding 0) or the set size is below 1")


# ---------------------------------------------------------------- q2
def _encode(sb, sets, table, width, epsilon, g):
    out = sb.call("set_encode", sets, table, width, epsilon, g)
    require(isinstance(out, (tuple, list)) and len(out) == 2, "set_encode returns (reports, hash_indices)")
    reports, indices = as_array(out[0], "reports"), as_array(out[1], "hash_indices")
    require(reports.shape == (len(sets), width), "set_encode: reports have shape (N, width)")
    require(indices.shape == (len(sets),), "set_encode: one hash index per user")
    return reports, indices.astype(int)


def q2_mechanism(sb, ctx):
    """A private client: random, independent flips (their number varies from call to call as independent
    flips do), and reports on two neighbouring sets indistinguishable beyond e^epsilon."""
    reproducible_and_random(sb, "set_encode", lambda g: (np.tile([0, 1], (30, 1)), np.array([[0, 1], [2, 3], [1, 1]]),
                                                         4, 1.0, g), ctx, "set_encode")
    g = ctx.rng()
    table, width, epsilon = np.array([[0, 5], [3, 1], [7, 7], [2, 4]]), 8, float(g.uniform(1.0, 3.0))
    flipped = []
    for _ in range(150):  # four users a call, 32 bits: Binomial(32, q) flips per call
        sets = random_sets(g, 4, 4, 2)
        reports, indices = _encode(sb, sets, table, width, epsilon, ctx.rng())
        flipped.append(int(np.sum(reports != vectors(sets, table, indices, width))))
    counts_vary_binomially(np.array(flipped), 4 * width, float(q(epsilon, 2)), "set_encode")
    q2_privacy(sb, ctx)


def q2_sizes(sb, ctx):
    g = ctx.rng()
    table, width, epsilon = g.integers(0, 8, size=(6, 3)), 8, 1.5

    def flipped(sets):
        reports, indices = _encode(sb, sets, table, width, epsilon, ctx.rng())
        return (reports != vectors(sets, table, indices, width)).ravel()

    large = flipped(random_sets(g, 20_000, 6, 2))
    for users, calls in ((1, 200), (4, 100)):  # a lone user (the client's real use) and a few
        small = np.concatenate([flipped(random_sets(g, users, 6, 2)) for _ in range(calls)])
        same_law(small, large, "set_encode: the flips of a lone user (or a few) against those of many users")


def q2_law(sb, ctx):
    g = ctx.rng()
    num_items, m, width, size, epsilon, users = 8, 3, 16, 3, 2.0, 30_000
    table = g.integers(0, width, size=(num_items, m))
    sets = random_sets(g, users, num_items, size)
    reports, indices = _encode(sb, sets, table, width, epsilon, g)
    require(np.all((indices >= 0) & (indices < m)), "set_encode: hash indices lie in 0..m-1")
    chisquare_fits(np.bincount(indices, minlength=m), np.full(m, 1 / m), "set_encode: the hash index is uniform")
    first = sets[:, 0]  # the hash index must not depend on the set: test against the first item
    pairs = np.zeros((num_items, m))
    np.add.at(pairs, (first, indices), 1)
    pairs = pairs[pairs.sum(axis=1) > 0]
    require(stats.chi2_contingency(pairs, correction=False).pvalue > 1e-6,
            "set_encode: the hash index depends on the user's set (it is released with the report, so it must be "
            "drawn uniformly at random, independently of the set)")
    clean = vectors(sets, table, indices, width)
    qq = float(q(epsilon, size))
    binomial_fits(int(np.sum(reports[clean == 1] == 0)), int(np.sum(clean == 1)), qq,
                  "set_encode: flips of the 1s of the users' vectors (a 1 for every item of the set)")
    binomial_fits(int(np.sum(reports[clean == 0])), int(np.sum(clean == 0)), qq, "set_encode: flips of the 0s")


def q2_privacy(sb, ctx):
    # the whole release (four report bits and the hash index) on two disjoint sets of 2 items, m = 2
    table, trials, epsilon = np.array([[0, 2], [1, 3], [2, 0], [3, 1]]), 40_000, 2.0
    a, ja = _encode(sb, np.tile([0, 1], (trials, 1)), table, 4, epsilon, ctx.rng())
    b, jb = _encode(sb, np.tile([2, 3], (trials, 1)), table, 4, epsilon, ctx.rng())
    code = np.array([1, 2, 4, 8])
    privacy_holds(a @ code + 16 * ja, b @ code + 16 * jb, epsilon, np.arange(33) - 0.5,
                  "set_encode (the reports with their hash indices, sets {0, 1} and {2, 3})")


# ---------------------------------------------------------------- q3
def estimate(reports, indices, table, items, epsilon, size):
    reports = np.asarray(reports, dtype=float)
    n, w = reports.shape
    m = table.shape[1]
    qq = float(q(epsilon, size))
    M = np.zeros((m, w))
    np.add.at(M, indices, m * (reports - qq) / (1 - 2 * qq))
    c = 1 - (1 - 1 / w) ** size
    return (M[np.arange(m), table[items]].mean(axis=-1) - n * c) / (1 - c)


def q3_values(sb, ctx):
    g = ctx.rng()
    for m, w, size, epsilon in ((1, 5, 1, 1.0), (int(g.integers(2, 6)), int(g.integers(4, 12)), int(g.integers(2, 5)),
                                                float(g.uniform(0.3, 4)))):
        reports = (g.random((200, w)) < 0.4).astype(np.int8)
        indices = g.integers(0, m, 200)
        table = g.integers(0, w, size=(9, m))
        items = np.array([0, 4, 8, 4])
        close(sb.call("set_estimate", reports, indices, table, items, epsilon, size),
              estimate(reports, indices, table, items, epsilon, size),
              "set_estimate: the estimates are not unbiased for sets (sets of one item, then sets of several: a user "
              "who does not hold d puts a 1 in d's bucket when any of its items lands there)", rtol=1e-8, atol=1e-8)


# ---------------------------------------------------------------- q4
def flip_variance(n, epsilon, size, w):
    t = np.exp(np.asarray(epsilon, dtype=float) / (2 * size))
    c = 1 - (1 - 1 / np.asarray(w, dtype=float)) ** size
    return n * t / (t - 1) ** 2 / (1 - c) ** 2


def q4_values(sb, ctx):
    g = ctx.rng()
    n, eps, size, w = g.integers(10, 5000, 4), np.round(g.uniform(0.3, 8, 4), 3), int(g.integers(1, 6)), 16
    close(sb.call("set_flip_variance", n, eps, size, w), flip_variance(n, eps, size, w),
          "set_flip_variance: not the variance the flips cause (arrays of users and epsilons)", rtol=1e-8)
    for size, w in ((1, 2), (int(g.integers(2, 6)), int(g.integers(3, 40)))):
        close(sb.call("set_flip_variance", 1000, 1.5, size, w), flip_variance(1000, 1.5, size, w),
              "set_flip_variance: not the variance the flips cause (sets of one item, then several)", rtol=1e-8)


# ---------------------------------------------------------------- q5
def client(own: str, other: str) -> Expr:
    """The grader's client for sets: a 1 of the clean vector flips with probability ``own``, a 0 with
    ``other`` (expressions in epsilon and L, the set size)."""
    return Expr(
        "lambda item_sets, hash_table, width, epsilon, rng: (lambda sets, table: (lambda j: (lambda v, L: ("
        "(rng.random(v.shape) < np.where(v == 1, " + own + ", " + other + ")).astype(int) ^ v, j))("
        "(np.arange(width)[None, None, :] == table[sets, j[:, None]][:, :, None]).any(axis=1).astype(int), "
        "sets.shape[1]))(rng.integers(0, table.shape[1], size=sets.shape[0])))"
        "(np.asarray(item_sets), np.asarray(hash_table))")


HONEST_Q = "1 / (np.exp(epsilon / (2 * L)) + 1)"
HONEST = client(HONEST_Q, HONEST_Q)


def expected_error(sets, num_items, epsilon, w, own, other):
    """Mean of estimate - f_d when the client flips with (own, other) and the server debiases with q."""
    n, size = sets.shape
    f = np.bincount(sets.ravel(), minlength=num_items).astype(float)
    qq, c = float(q(epsilon, size)), 1 - (1 - 1 / w) ** size
    cell = (n * (other - qq) + (1 - own - other) * (f + (n - f) * c)) / (1 - 2 * qq)
    return (cell - n * c) / (1 - c) - f


def _errors(sb, args, what, **kwargs):
    errors = as_array(sb.call("simulate_set_errors", *args, **kwargs), what)
    reps, items = (kwargs["num_repeats"], kwargs["num_items"]) if kwargs else (args[5], args[1])
    require(errors.shape == (reps, items), "simulate_set_errors must return an array of shape (num_repeats, num_items)")
    require(np.all(np.isfinite(errors)), "simulate_set_errors: the errors have NaN or infinite values")
    return errors


q5_random = randomness("simulate_set_errors", lambda g: (np.array([[0, 1], [1, 2], [2, 0]]), 3, 2.0, 2, 4, 3, g,
                                                         HONEST))


def q5_honest(sb, ctx):
    g = ctx.rng()
    sets, epsilon, m, w, reps = random_sets(g, 300, 6, 2), 2.0, 3, 8, 300
    errors = _errors(sb, (sets, 6, epsilon, m, w, reps, ctx.rng(), HONEST), "simulate_set_errors")
    spread = errors.std(axis=0, ddof=1) / np.sqrt(reps)
    require(np.all(np.abs(errors.mean(axis=0)) < 6 * spread),
            "simulate_set_errors: with an honest client the estimates must be unbiased")
    floor = flip_variance(300, epsilon, 2, w)
    require(np.all(errors.var(axis=0) > 0.6 * floor),
            "simulate_set_errors: with an honest client the errors vary less than the flips alone make them")


def q5_other_client(sb, ctx):
    g = ctx.rng()
    own, other = float(g.uniform(0.03, 0.15)), float(g.uniform(0.03, 0.15))
    sets, num_items, epsilon, m, w, reps = random_sets(g, 250, 5, 2), 5, 2.0, 2, 6, 300
    errors = _errors(sb, (), "simulate_set_errors", item_sets=sets, num_items=num_items, epsilon=epsilon,
                     num_hashes=m, width=w, num_repeats=reps, rng=g, encode=client(repr(own), repr(other)))
    want = expected_error(sets, num_items, epsilon, w, own, other)
    spread = errors.std(axis=0, ddof=1) / np.sqrt(reps)
    require(np.all(np.abs(errors.mean(axis=0) - want) < 6 * spread + 1e-9) and np.all(spread > 0),
            "simulate_set_errors: with a client that flips less than the server assumes, the mean errors are off "
            "(the simulation must run the client it is given, as encode(item_sets, hash_table, width, epsilon, rng))")


def _grader_errors(sets, num_items, epsilon, m, w, reps, g):
    """The grader's own simulation of the errors with an honest client."""
    n, size = sets.shape
    f = np.bincount(sets.ravel(), minlength=num_items)
    qq = float(q(epsilon, size))
    errors = np.empty((reps, num_items))
    for rep in range(reps):
        table = g.integers(0, w, size=(num_items, m))
        j = g.integers(0, m, size=n)
        clean = vectors(sets, table, j, w)
        reports = clean ^ (g.random(clean.shape) < qq)
        errors[rep] = estimate(reports, j, table, np.arange(num_items), epsilon, size) - f
    return errors


def q5_law(sb, ctx):
    # 8 users: the error takes few values (it is not normal); each item's errors must follow the law of
    # the grader's own simulation (two-sample Kolmogorov-Smirnov test)
    g = ctx.rng()
    sets, epsilon, m, w, reps = random_sets(g, 8, 4, 2), float(g.uniform(3.0, 5.0)), 2, 4, 1500
    errors = _errors(sb, (sets, 4, epsilon, m, w, reps, ctx.rng(), HONEST), "simulate_set_errors")
    mine = _grader_errors(sets, 4, epsilon, m, w, reps, ctx.rng())
    errors, mine = np.round(errors, 6), np.round(mine, 6)  # the same value computed in another order
    for item in range(4):
        same_law(errors[:, item], mine[:, item],
                 "simulate_set_errors: with an honest client and 8 users, the errors do not follow the law of the "
                 "sketch's errors (simulate the sketch itself: few users make the error take few values, far from "
                 "a normal law)")


# ---------------------------------------------------------------- q6
def flipping(rate: float) -> Expr:
    """A client that flips every bit with the fixed probability ``rate``, whatever it claims."""
    return client(repr(rate), repr(rate))


def q6_sound(sb, ctx):
    # over 60 audits at 80 %, the bound exceeds the true epsilon in at most 20 % of them (binomial tail test)
    g = ctx.rng()
    epsilon, size = float(g.uniform(1.0, 3.0)), int(g.integers(1, 4))
    above = 0
    for _ in range(60):
        bound = as_float(sb.call("audit_set_client", HONEST, epsilon, size, 1_500, 0.8, rng=ctx.rng()),
                         "audit_set_client")
        above += bound > epsilon + 1e-9
    require(stats.binom.sf(above - 1, 60, 0.2) > 1e-6,
            "audit_set_client: the bound exceeds the true epsilon of an honest client far more often than its "
            "confidence allows")
    # a client that flips as a client at epsilon / 2 would, claiming epsilon: sound for the client audited
    claim, size = float(g.uniform(1.5, 3.0)), 2
    bound = as_float(sb.call("audit_set_client", flipping(float(q(claim / 2, size))), claim, size, 30_000, 1 - 1e-7,
                             ctx.rng()), "audit_set_client")
    require(bound <= claim / 2 + 1e-9,
            "audit_set_client: the bound exceeds the true epsilon of a client that flips more than its claim needs "
            "(the bound must measure the client it audits, not repeat the claim)")


def q6_tight(sb, ctx):
    bound = as_float(sb.call("audit_set_client", encode=HONEST, epsilon=3.0, set_size=2, trials=100_000,
                             confidence=1 - 1e-7, rng=ctx.rng()), "audit_set_client")
    require(2.25 < bound <= 3.0 + 1e-9,
            "audit_set_client on an honest client with sets of 2 at epsilon = 3 (100,000 trials, confidence "
            "1 - 1e-7) must give a bound between 2.25 and 3: an event whose probabilities differ by a smaller "
            "factor cannot")


def q6_refutes(sb, ctx):
    g = ctx.rng()
    claim, size = float(g.uniform(0.8, 1.5)), int(g.integers(1, 3))
    true = claim * float(g.uniform(2.5, 3.5))
    bound = as_float(sb.call("audit_set_client", flipping(float(q(true, size))), claim, size, 50_000, 0.95,
                             ctx.rng()), "audit_set_client")
    require(bound > 1.5 * claim,
            "audit_set_client must refute a client that flips far less than its claim needs (true epsilon 2.5 to "
            "3.5 times the claim, 50,000 trials, 95 %)")


q6_random = randomness("audit_set_client", lambda g: (HONEST, 1.0, 2, 300, 0.95, g))


QUESTIONS = [
    Question("q1", ["set_flip_probability"], [
        Check("flip probability at the public example", 0.25, q1_public, public=True),
        Check("flip probability on arrays, NumPy numbers and sets of one item; bad epsilon or set size", 0.75,
              q1_values)]),
    Question("q2", ["set_encode"], [
        Check("a private client: random, independent flips whose number varies from call to call, reports on "
              "two neighbouring sets indistinguishable beyond e^epsilon", 1.25, q2_mechanism, statistical=True,
              gate=True, essential=True),
        Check("the same flips for few users as for many", 0.5, q2_sizes, statistical=True, essential=True),
        Check("uniform hash index, independent of the set, and flip rates of the 1s and 0s", 1.25, q2_law,
              statistical=True, essential=True)]),
    Question("q3", ["set_estimate"], [
        Check("unbiased estimates for sets", 3.0, q3_values)]),
    Question("q4", ["set_flip_variance"], [
        Check("the variance the flips cause", 2.0, q4_values)]),
    Question("q5", ["simulate_set_errors"], [
        Check("with the grader's client flipping at other rates: the errors it causes (the simulation runs the "
              "client it is given)", 1.25, q5_other_client, statistical=True, gate=True),
        Check("with an honest client and 8 users: the law of the errors against the grader's simulation", 0.75,
              q5_law, statistical=True, gate=True),
        Check("simulation draws from rng", 0.25, q5_random, gate=True),
        Check("with an honest client: unbiased errors, at least the spread of the flips", 0.75, q5_honest,
              statistical=True)]),
    Question("q6", ["audit_set_client"], [
        Check("sound: at its confidence for an honest client, and below the true epsilon of a client that flips "
              "more than it needs", 1.0, q6_sound, statistical=True, gate=True),
        Check("tight: an honest client with sets of 2 at epsilon 3 gets a bound above 2.25", 1.0, q6_tight,
              statistical=True),
        Check("refutes clients that flip less than they claim", 0.75, q6_refutes, statistical=True),
        Check("the audit draws from rng", 0.25, q6_random)]),
    Question("q7", [], [], manual_points=10.0),  # written answer: rubric in book/assignments/masters/written_answers.md
]

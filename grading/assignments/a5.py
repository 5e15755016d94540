"""Hidden checks of assignment 5 (local DP: the count-mean sketch, and auditing).

The simulation (q6) and the audit (q8) take the client they run as an argument; the grader hands
them clients of its own (honest, biased with flip rates drawn per run, leaky), whose laws no closed
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


def q(epsilon):
    return 1 / (np.exp(np.asarray(epsilon, dtype=float) / 2) + 1)


# ---------------------------------------------------------------- q1
def q1_public(sb, ctx):
    close(sb.call("cms_flip_probability", 2 * np.log(3)), 0.25, "cms_flip_probability at the public example")


def q1_values(sb, ctx):
    eps = np.round(ctx.rng().uniform(0.05, 8, size=(2, 3)), 3)
    close(sb.call("cms_flip_probability", eps), q(eps), "cms_flip_probability on an array", rtol=1e-9)
    close(sb.call("cms_flip_probability", np.float64(2.0)), q(2.0), "cms_flip_probability of a NumPy number",
          rtol=1e-9)
    for bad in (0.0, -2.0, np.nan, np.array([1.0, 0.0])):
        require(raises(sb, "cms_flip_probability", bad),
                "cms_flip_probability must raise ValueError when some epsilon is not strictly positive (0, -2, "
                "NaN, or an array holding 0)")


# ---------------------------------------------------------------- q2
def _encode(sb, items, table, width, epsilon, g):
    out = sb.call("cms_encode", items, table, width, epsilon, g)
    require(isinstance(out, (tuple, list)) and len(out) == 2, "cms_encode returns (reports, hash_indices)")
    reports, indices = as_array(out[0], "reports"), as_array(out[1], "hash_indices")
    require(reports.shape == (len(items), width), "cms_encode: reports have shape (N, width)")
    require(indices.shape == (len(items),), "cms_encode: one hash index per user")
    return reports, indices.astype(int)


def q2_mechanism(sb, ctx):
    """A private client: random, independent flips (their number varies from call to call as independent
    flips do), and reports on two different items indistinguishable beyond e^epsilon."""
    reproducible_and_random(sb, "cms_encode", lambda g: (np.zeros(30, dtype=int), np.array([[0, 1], [2, 3]]), 4,
                                                         1.0, g), ctx, "cms_encode")
    g = ctx.rng()
    table, width, epsilon = np.array([[0, 5], [3, 1], [7, 7]]), 8, float(g.uniform(1.0, 3.0))
    flipped = []
    for _ in range(150):  # four users a call, 32 bits: Binomial(32, q) flips per call
        users = g.integers(0, 3, size=4)
        reports, indices = _encode(sb, users, table, width, epsilon, ctx.rng())
        one_hot = np.zeros_like(reports)
        one_hot[np.arange(4), table[users, np.clip(indices, 0, 1)]] = 1
        flipped.append(int(np.sum(reports != one_hot)))
    counts_vary_binomially(np.array(flipped), 4 * width, float(q(epsilon)), "cms_encode")
    q2_privacy(sb, ctx)


def q2_sizes(sb, ctx):
    # which bits differ from the one-hot vector: 300 calls of 4 users against one call of 20,000
    g = ctx.rng()
    table, width, epsilon = g.integers(0, 8, size=(6, 3)), 8, 1.5

    def flipped(users):
        reports, indices = _encode(sb, users, table, width, epsilon, ctx.rng())
        one_hot = np.zeros_like(reports)
        one_hot[np.arange(users.size), table[users, np.clip(indices, 0, 2)]] = 1
        return (reports != one_hot).ravel()

    large = flipped(g.integers(0, 6, size=20_000))
    for users, calls in ((1, 200), (4, 100)):  # a lone user (the client's real use) and a few
        small = np.concatenate([flipped(g.integers(0, 6, size=users)) for _ in range(calls)])
        same_law(small, large, "cms_encode: the flips of a lone user (or a few) against those of many users")


def q2_law(sb, ctx):
    g = ctx.rng()
    num_items, m, width, epsilon, users = 6, 3, 8, 1.5, 30_000
    table = g.integers(0, width, size=(num_items, m))
    items = g.integers(0, num_items, size=users)
    reports, indices = _encode(sb, items, table, width, epsilon, g)
    require(np.all((indices >= 0) & (indices < m)), "cms_encode: hash indices lie in 0..m-1")
    chisquare_fits(np.bincount(indices, minlength=m), np.full(m, 1 / m), "cms_encode: the hash index is uniform")
    # the released hash index must not depend on the item: chi-square test of independence on the
    # (item, hash index) table of the 30,000 users
    pairs = np.zeros((num_items, m))
    np.add.at(pairs, (items, indices), 1)
    pairs = pairs[pairs.sum(axis=1) > 0]
    require(stats.chi2_contingency(pairs, correction=False).pvalue > 1e-6,
            "cms_encode: the hash index depends on the user's item (it is released with the report, so it must be "
            "drawn uniformly at random, independently of the item)")
    bucket = table[items, indices]
    own = reports[np.arange(users), bucket]
    binomial_fits(int(np.sum(own == 0)), users, float(q(epsilon)), "cms_encode: flips of the user's own bucket")
    others = np.ones_like(reports, dtype=bool)
    others[np.arange(users), bucket] = False
    binomial_fits(int(reports[others].sum()), int(others.sum()), float(q(epsilon)), "cms_encode: flips elsewhere")


def q2_privacy(sb, ctx):
    # the whole release (the two report bits and the hash index) on two items, with m = 2 hash functions
    table, trials = np.array([[0, 1], [1, 0]]), 40_000
    a, ja = _encode(sb, np.zeros(trials, dtype=int), table, 2, 2.0, ctx.rng())
    b, jb = _encode(sb, np.ones(trials, dtype=int), table, 2, 2.0, ctx.rng())
    privacy_holds(a @ [1, 2] + 4 * ja, b @ [1, 2] + 4 * jb, 2.0, np.arange(9) - 0.5,
                  "cms_encode (the reports with their hash indices)")


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
              "cms_aggregate: the sketch is not the sum of the unbiased, m-scaled reports of each row (one row, then "
              "several)", rtol=1e-8, atol=1e-8)


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
    close(sb.call("cms_estimate", M, table, items, n), estimate(M, table, items, n),
          "cms_estimate: the estimates are not the unbiased ones (an item's cells average its count plus the other "
          "users who collide with it)", rtol=1e-8)


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
    close(sb.call("cms_mse", counts, eps, m, w), mse(counts, eps, m, w),
          "cms_mse: not the mean squared error of the chapter's theorem (check each of its three terms)", rtol=1e-8)


# ---------------------------------------------------------------- q6
def client(own: str, other: str) -> Expr:
    """The grader's client with the question's signature: the user's own bit flips with probability
    ``own``, every other bit with probability ``other`` (expressions in epsilon)."""
    return Expr(
        "lambda items, hash_table, width, epsilon, rng: (lambda items, table, j: ("
        "(lambda one_hot: (rng.random(one_hot.shape) < np.where(one_hot == 1, " + own + ", " + other + "))"
        ".astype(int) ^ one_hot)((np.arange(width)[None, :] == table[items, j][:, None]).astype(int)), j))"
        "(np.asarray(items), np.asarray(hash_table), rng.integers(0, np.shape(hash_table)[1], size=np.size(items)))")


HONEST_Q = "1 / (np.exp(epsilon / 2) + 1)"
HONEST = client(HONEST_Q, HONEST_Q)


def expected_error(counts, epsilon, m, w, own, other):
    """Mean of estimate - f_d when the client flips with (own, other) and the server debiases with q(epsilon)."""
    counts = np.asarray(counts, dtype=float)
    n, qq = counts.sum(), float(q(epsilon))
    cell = (n * (other - qq) + (1 - own - other) * (counts + (n - counts) / w)) / (1 - 2 * qq)
    return w / (w - 1) * (cell - n / w) - counts


def _errors(sb, args, what, **kwargs):
    errors = as_array(sb.call("simulate_sketch_errors", *args, **kwargs), what)
    reps, size = (kwargs.get("num_repeats"), kwargs["counts"].size) if kwargs else (args[4], args[0].size)
    require(errors.shape == (reps, size), "simulate_sketch_errors must return an array of shape (num_repeats, K)")
    require(np.all(np.isfinite(errors)), "simulate_sketch_errors: the errors have NaN or infinite values")
    return errors


q6_random = randomness("simulate_sketch_errors", lambda g: (np.array([40, 15, 5]), 2.0, 2, 4, 3, g, HONEST))


def q6_honest(sb, ctx):
    counts, epsilon, m, w, reps = np.array([300, 120, 60, 20, 0]), 2.0, 3, 8, 400
    errors = _errors(sb, (counts, epsilon, m, w, reps, ctx.rng(), HONEST), "simulate_sketch_errors")
    predicted = mse(counts, epsilon, m, w)
    # unbiased: mean error within 6 standard errors; MSE: ratio within the chi-square-like spread
    require(np.all(np.abs(errors.mean(axis=0)) < 6 * np.sqrt(predicted / reps)),
            "simulate_sketch_errors: with an honest client the estimates must be unbiased")
    ratio = (errors ** 2).mean(axis=0) / predicted
    require(np.all((ratio > 0.6) & (ratio < 1.5)),
            "simulate_sketch_errors: with an honest client the spread of the errors must match the error of the "
            "sketch (fresh hash functions in every repetition)")


def q6_other_client(sb, ctx):
    # a client that flips less (or more) than the server assumes: the estimates are biased by a known amount
    g = ctx.rng()
    own, other = float(g.uniform(0.03, 0.15)), float(g.uniform(0.03, 0.15))
    counts, epsilon, m, w, reps = np.array([250, 150, 60, 40]), 2.0, 2, 6, 300
    errors = _errors(sb, (), "simulate_sketch_errors", counts=counts, epsilon=epsilon, num_hashes=m, width=w,
                     num_repeats=reps, rng=g, encode=client(repr(own), repr(other)))
    want = expected_error(counts, epsilon, m, w, own, other)
    spread = errors.std(axis=0, ddof=1) / np.sqrt(reps)
    require(np.all(np.abs(errors.mean(axis=0) - want) < 6 * spread + 1e-9) and np.all(spread > 0),
            "simulate_sketch_errors: with a client that flips less than the server assumes, the mean errors are off "
            "(the simulation must run the client it is given, as encode(items, hash_table, width, epsilon, rng))")


def _grader_errors(counts, epsilon, m, w, reps, g):
    """The grader's own simulation of the sketch's errors with an honest client."""
    counts = np.asarray(counts)
    k, items, qq = counts.size, np.repeat(np.arange(counts.size), counts), float(q(epsilon))
    errors = np.empty((reps, k))
    for rep in range(reps):
        table = g.integers(0, w, size=(k, m))
        j = g.integers(0, m, size=items.size)
        one_hot = (np.arange(w)[None, :] == table[items, j][:, None]).astype(int)
        reports = one_hot ^ (g.random(one_hot.shape) < qq)
        errors[rep] = estimate(sketch(reports, j, m, epsilon), table, np.arange(k), items.size) - counts
    return errors


def q6_law(sb, ctx):
    # few users: the error takes few values (it is not normal); the simulated errors of each item must
    # follow the law of the grader's own simulation (two-sample Kolmogorov-Smirnov test)
    g = ctx.rng()
    counts, epsilon, m, w, reps = np.array([5, 2, 1]), float(g.uniform(1.5, 3.0)), 2, 3, 1500
    errors = _errors(sb, (counts, epsilon, m, w, reps, ctx.rng(), HONEST), "simulate_sketch_errors")
    mine = _grader_errors(counts, epsilon, m, w, reps, ctx.rng())
    # rounded to 1e-6: the same error computed in another order differs in its last digits, which would
    # split an atom of the discrete law in two
    errors, mine = np.round(errors, 6), np.round(mine, 6)
    for item in range(counts.size):
        same_law(errors[:, item], mine[:, item],
                 "simulate_sketch_errors: with an honest client and 8 users, the errors do not follow the law of the "
                 "sketch's errors (simulate the sketch itself: few users make the error take few values, far from "
                 "a normal law)")


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
LEAKY = client("0.02", "0.02")


def q8_audits(sb, ctx):
    # at confidence 1 - 1e-7 a sound audit of an honest client exceeds the true epsilon with probability
    # below 1e-7 (at 95 % it may, one run in a few hundred)
    honest = as_float(sb.call("audit_client", HONEST, 2.0, 50_000, 1 - 1e-7, ctx.rng()), "audit_client")
    require(1.0 < honest <= 2.0 + 1e-9, "audit_client on an honest client at epsilon = 2 (confidence 1 - 1e-7, "
                                        "50,000 trials) must give a bound between 1 and the true epsilon")
    leaky = as_float(sb.call("audit_client", encode=LEAKY, epsilon=2.0, trials=50_000, confidence=0.95,
                             rng=ctx.rng()), "audit_client")
    require(leaky > 4.0, "audit_client must refute a client that flips far less than it should")


def seeded_client(flip: float, seeds: tuple[int, int]) -> Expr:
    """A client at flip rate ``flip`` (for m = 1) whose coins come from two generators of its own, one for
    the users holding item 0 and one for those holding item 1, seeded by the grader: the grader replays
    them and knows the counts of the revealing report, however the audit calls the client."""
    return Expr(
        "(lambda gens: lambda items, hash_table, width, epsilon, rng: (lambda items: (lambda one_hot, u: ("
        "(u < " + repr(flip) + ").astype(int) ^ one_hot, np.zeros(items.size, dtype=int)))("
        "(np.arange(width)[None, :] == np.asarray(hash_table)[items, 0][:, None]).astype(int),"
        "np.concatenate([gens[int(d)].random((int(np.sum(items == d)), width)) for d in (0, 1)])"
        "[np.argsort(np.argsort(items, kind='stable'), kind='stable')]))(np.asarray(items)))"
        "((np.random.default_rng(" + repr(seeds[0]) + "), np.random.default_rng(" + repr(seeds[1]) + ")))")


def q8_method(sb, ctx):
    """The audit the question fixes: the grader replays the coins of its client and computes the
    Clopper-Pearson-based bound of the counts the audit observed; the audit's answer must equal it."""
    g = ctx.rng()
    epsilon = float(g.uniform(1.0, 3.0))
    flip = float(q(epsilon))
    trials, confidence = int(g.integers(2_000, 6_000)), float(g.choice([0.9, 0.95, 0.99]))
    seeds = (int(g.integers(2**62)), int(g.integers(2**62)))
    got = as_float(sb.call("audit_client", seeded_client(flip, seeds), epsilon, trials, confidence, ctx.rng()),
                   "audit_client")
    revealing = np.array([1, 0, 0, 0])
    hits = []
    for item, seed in zip((0, 1), seeds, strict=True):
        one_hot = np.zeros(4, dtype=int)
        one_hot[item] = 1
        reports = (np.random.default_rng(seed).random((trials, 4)) < flip).astype(int) ^ one_hot
        hits.append(int(np.all(reports == revealing, axis=1).sum()))
    close(got, lower_bound(hits[0], hits[1], trials, confidence),
          "audit_client: not the question's audit (the bound of epsilon_lower_bound for the counts of the report "
          "(1, 0, 0, 0) in `trials` users holding item 0 and `trials` holding item 1)", rtol=1e-6, atol=1e-9)
    # sound at its stated confidence: over 60 audits at 80 %, the bound exceeds the true epsilon in at
    # most 20 % of them (binomial tail test)
    above = 0
    for _ in range(60):
        bound = as_float(sb.call("audit_client", HONEST, epsilon, 1_500, 0.8, rng=ctx.rng()), "audit_client")
        above += bound > epsilon + 1e-9
    require(stats.binom.sf(above - 1, 60, 0.2) > 1e-6,
            "audit_client: the bound exceeds the true epsilon of an honest client far more often than its confidence "
            "allows")


q8_random = randomness("audit_client", lambda g: (HONEST, 1.0, 300, 0.95, g))


QUESTIONS = [
    Question("q1", ["cms_flip_probability"], [
        Check("flip probability at the public example", 0.25, q1_public, public=True),
        Check("flip probability on arrays and NumPy numbers, bad epsilon", 0.75, q1_values)]),
    Question("q2", ["cms_encode"], [
        Check("a private client: random, independent flips whose number varies from call to call, reports on "
              "two items indistinguishable beyond e^epsilon", 1.25, q2_mechanism, statistical=True, gate=True),
        Check("the same flips for few users as for many", 0.5, q2_sizes, statistical=True),
        Check("uniform hash index and flip rates", 1.25, q2_law, statistical=True)]),
    Question("q3", ["cms_aggregate"], [
        Check("the sketch matrix", 2.0, q3_values)]),
    Question("q4", ["cms_estimate"], [
        Check("unbiased frequency estimates", 2.0, q4_values)]),
    Question("q5", ["cms_mse"], [
        Check("predicted MSE", 2.0, q5_values)]),
    Question("q6", ["simulate_sketch_errors"], [
        Check("with an honest client and few users: the law of the errors, not only their mean and spread (the "
              "simulation builds the sketch)", 0.5, q6_law, statistical=True, gate=True),
        Check("with the grader's biased client: the errors it causes (the simulation runs the client it is "
              "given)", 1.25, q6_other_client, statistical=True, gate=True),
        Check("simulation draws from rng", 0.5, q6_random, gate=True),
        Check("with an honest client: unbiased errors with the sketch's spread", 0.75, q6_honest, statistical=True)]),
    Question("q7", ["clopper_pearson", "epsilon_lower_bound"], [
        Check("interval at the public example", 0.25, q7_public, public=True),
        Check("intervals and bounds on other counts", 1.75, q7_values)]),
    Question("q8", ["audit_client"], [
        Check("the question's audit: the bound equals the Clopper-Pearson-based bound of the counts observed on "
              "the grader's client, and it is sound at its confidence", 1.0, q8_method, statistical=True, gate=True),
        Check("the audit draws from rng", 0.75, q8_random, gate=True),
        Check("audits of an honest and a leaky client", 1.25, q8_audits, statistical=True)]),
    Question("q9", [], [], manual_points=10.0),  # written answer: rubric in book/assignments/masters/written_answers.md
]

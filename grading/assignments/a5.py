"""Hidden checks of assignment 5 (local DP for users holding sets of items, and the design of an audit).

The simulation (q5) and the audit (q6) take the client they run as an argument; the grader hands them
clients of its own (honest, flipping at rates drawn per run, leaky, over-flipping, drawing the flips of the
whole vector at once, sometimes releasing the clean vector), whose laws no closed form in the notebook
describes. The client (q2) is checked as a mechanism first, on set sizes drawn per run (always with sets of
one item). This file holds no estimator and no variance formula: q3 and q4 are checked against the law the
grader measures by simulation (flips it draws itself), and the grader's clients are built for one flip rate
given as a number, so no function here answers a question."""

from __future__ import annotations

import numpy as np
from scipy import stats

from ..checks import (
    ALPHA,
    Check,
    Question,
    as_array,
    as_float,
    binomial_fits,
    chisquare_fits,
    close,
    counts_vary_binomially,
    first_calls,
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
def _encode(sb, sets, table, width, epsilon, g, raw=False):
    """The release of set_encode, checked to be what the question says: reports of 0s and 1s exactly and
    hash indices that are whole numbers in 0..m-1 (a fraction or a digit beyond them would carry more)."""
    return _release(sb.call("set_encode", sets, table, width, epsilon, g), sets, table, width, raw)


def _release(out, sets, table, width, raw=False):
    """The checks of :func:`_encode` on a release ``out`` already made."""
    require(isinstance(out, (tuple, list)) and len(out) == 2, "set_encode returns (reports, hash_indices)")
    reports, indices = as_array(out[0], "reports"), as_array(out[1], "hash_indices")
    require(reports.shape == (len(sets), width), "set_encode: reports have shape (N, width)")
    require(indices.shape == (len(sets),), "set_encode: one hash index per user")
    require(np.all((reports == 0) | (reports == 1)), "set_encode: every report bit must be exactly 0 or 1")
    m = np.shape(table)[1]
    require(np.all(np.isfinite(indices)) and np.all(indices == np.round(indices)) and np.all(indices >= 0)
            and np.all(indices < m), "set_encode: every hash index must be a whole number in 0..m-1 (nothing else)")
    if raw:
        return reports, indices
    return reports.astype(int), indices.astype(int)


def _sizes(g):
    """Set sizes for one run: sets of one item always, and two sizes drawn from 2..6."""
    return [1] + sorted(int(x) for x in g.choice(np.arange(2, 7), size=2, replace=False))


def q2_mechanism(sb, ctx):
    """A private client: random, independent flips (their number varies from call to call as independent
    flips do), and reports on two neighbouring sets indistinguishable beyond e^epsilon, for set sizes drawn
    per run (one item always among them)."""
    reproducible_and_random(sb, "set_encode", lambda g: (np.tile([0, 1], (30, 1)), np.array([[0, 1], [2, 3], [1, 1]]),
                                                         4, 1.0, g), ctx, "set_encode")
    g = ctx.rng()
    sizes = _sizes(g)
    table, width, epsilon = g.integers(0, 8, size=(8, 2)), 8, float(g.uniform(1.0, 3.0))
    for size in sizes:
        flipped = []
        for _ in range(100):  # four users a call, 32 bits: Binomial(32, q) flips per call
            sets = random_sets(g, 4, 8, size)
            reports, indices = _encode(sb, sets, table, width, epsilon, ctx.rng())
            flipped.append(int(np.sum(reports != vectors(sets, table, indices, width))))
        counts_vary_binomially(np.array(flipped), 4 * width, float(q(epsilon, size)),
                               f"set_encode (sets of {size} item{'s' if size > 1 else ''})")
    for size in sizes:
        _privacy(sb, ctx, size)


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
    q2_first_use(sb, ctx)


FIRST_USE_LONE, FIRST_USE_FEW = 24, 24  # calls on a lone user, calls on 2 to 4 users


def q2_first_use(sb, ctx):
    """The first release of each input follows the law too: 48 fresh small inputs, each encoded once by a fresh
    copy of the notebook with a generator of its own, as a client runs on a user's device, so a client exact
    the first time it sees an input (or the first time it runs) is seen as it would be used: 24 lone users
    (widths 6 to 10) and 24 calls of 2 to 4 users (widths 4 to 10), sets of 1 to 4 items, fresh hash tables
    of 1 to 3 columns. epsilon = 2 L c with c drawn per run in [0.4, 1.2], so every bit of every call flips
    with the same q = 1 / (e^c + 1), between 0.23 and 0.40. Exact tests at ALPHA: the flips of all the bits of
    the lone users, and of the other calls, are Binomial(bits, q); so are the flips of the 1s and of the 0s of
    the clean vectors pooled over all calls. Against a release of the clean vectors, even for lone users only:
    they hold at least 24 * 6 = 144 bits, and no flip among 144 at q >= 0.23 has probability
    0.77^144 < 1e-16 (the two-sided p-value is about that)."""
    g = ctx.rng()
    c = float(g.uniform(0.4, 1.2))
    rate = float(1 / (np.exp(c) + 1))
    users = np.concatenate([np.ones(FIRST_USE_LONE, dtype=int),
                            np.tile([2, 3, 4], FIRST_USE_FEW // 3 + 1)[:FIRST_USE_FEW]])[g.permutation(
                                FIRST_USE_LONE + FIRST_USE_FEW)]
    inputs, arguments = [], []
    for i, n in enumerate(users):
        size, m = int(g.integers(1, 5)), int(g.integers(1, 4))
        width = int(g.integers(6 if n == 1 else 4, 11))
        num_items = size + int(g.integers(0, 5))
        table = g.integers(0, width, size=(num_items, m))
        sets = random_sets(g, int(n), num_items, size)
        epsilon = 2 * size * c
        inputs.append((sets, table, width))
        if i % 4 == 1:
            arguments.append(((sets, table, width, epsilon), {"rng": ctx.rng()}))
        elif i % 4 == 3:
            arguments.append(((), {"item_sets": sets, "hash_table": table, "width": width, "epsilon": epsilon,
                                   "rng": ctx.rng()}))
        else:
            arguments.append(((sets, table, width, epsilon, ctx.rng()), {}))
    released = first_calls(sb, "set_encode", arguments)
    by_bit = np.zeros((2, 2), dtype=int)  # [bit of the clean vector] -> (flips, bits)
    by_band = np.zeros((2, 2), dtype=int)  # [lone user, 2 to 4 users] -> (flips, bits)
    for (sets, table, width), out in zip(inputs, released, strict=True):
        reports, indices = _release(out, sets, table, width)
        clean = vectors(sets, table, indices, width)
        for bit in (0, 1):
            by_bit[bit] += (int(np.sum(reports[clean == bit] != bit)), int(np.sum(clean == bit)))
        by_band[int(len(sets) > 1)] += (int(np.sum(reports != clean)), clean.size)
    what = ("set_encode on its first use (fresh inputs, each encoded once by a fresh copy of your notebook, as on a "
            "user's device): the flip rate of {} (every release must be randomized, the first one too)")
    for (flips, bits), name in zip(by_band, ("the bits of lone users", "the bits of 2 to 4 users"), strict=True):
        binomial_fits(int(flips), int(bits), rate, what.format(name))
    for (flips, bits), name in zip(by_bit, ("the 0s of the users' vectors", "the 1s of the users' vectors"),
                                   strict=True):
        if bits > 0:
            binomial_fits(int(flips), int(bits), rate, what.format(name))


def _privacy(sb, ctx, size):
    # the whole release as it comes back (2L report bits and the hash index) on two disjoint sets of
    # `size` items, m = 2: items 0..2L-1 in distinct buckets of both rows
    width, trials, epsilon = 2 * size, 40_000, 2.0
    table = np.stack([np.arange(width), np.roll(np.arange(width), 1)], axis=1)
    a, ja = _encode(sb, np.tile(np.arange(size), (trials, 1)), table, width, epsilon, ctx.rng(), raw=True)
    b, jb = _encode(sb, np.tile(np.arange(size, width), (trials, 1)), table, width, epsilon, ctx.rng(), raw=True)
    code = 2.0 ** np.arange(width)
    privacy_holds(a @ code + 2.0**width * ja, b @ code + 2.0**width * jb, epsilon,
                  np.arange(2 ** (width + 1) + 1) - 0.5,
                  f"set_encode (the reports with their hash indices, two disjoint sets of {size} "
                  f"item{'s' if size > 1 else ''})")


# ---------------------------------------------------------------- q3
def _honest_release(sets, table, width, rate, g):
    """The grader's own draws of an honest release (hash indices and flipped vectors): not a client."""
    indices = g.integers(0, table.shape[1], size=sets.shape[0])
    clean = vectors(sets, table, indices, width)
    return clean ^ (g.random(clean.shape) < rate), indices


def _estimates(sb, reports, indices, table, items, epsilon, size, what):
    got = as_array(sb.call("set_estimate", reports, indices, table, items, epsilon, size), what)
    require(got.shape == (len(items),), f"{what}: one estimate per item asked")
    require(np.all(np.isfinite(got)), f"{what}: the estimates have NaN or infinite values")
    return got


def q3_values(sb, ctx):
    # the example of the question's text, then unbiasedness measured: the grader draws a population, and
    # for every repetition a fresh hash table, hash indices and flips; the mean error of every item must be
    # within 5.5 standard errors of 0 (sets of one item, then of several, where the chapter's collision
    # correction is far off)
    close(sb.call("set_estimate", np.array([[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0]]), np.array([0, 1, 0]),
                  np.array([[0, 1], [3, 3], [2, 0]]), np.array([0, 2]), 4 * np.log(3), 2), [17 / 3, -5.0],
          "set_estimate at the question's example", rtol=1e-8, atol=1e-8)
    g = ctx.rng()
    num_items, users, reps = 9, 200, 400
    for m, w, size, epsilon in ((1, 5, 1, 1.0), (int(g.integers(2, 5)), int(g.integers(4, 7)), int(g.integers(2, 4)),
                                                float(g.uniform(2.0, 4.0)))):
        sets = random_sets(g, users, num_items, size)
        truth = np.bincount(sets.ravel(), minlength=num_items)
        items = g.permutation(num_items)
        rate = float(q(epsilon, size))
        errors = np.empty((reps, num_items))
        for rep in range(reps):
            table = g.integers(0, w, size=(num_items, m))
            reports, indices = _honest_release(sets, table, w, rate, g)
            errors[rep] = _estimates(sb, reports.astype(np.int8), indices, table, items, epsilon, size,
                                     "set_estimate") - truth[items]
        spread = errors.std(axis=0, ddof=1) / np.sqrt(reps)
        require(np.all(np.abs(errors.mean(axis=0)) < 5.5 * spread),
                "set_estimate: the estimates are not unbiased for sets (measured over fresh hash tables, hash "
                "indices and flips; sets of one item, then sets of several: a user who does not hold d puts a 1 in "
                "d's bucket when any of its items lands there)")


# ---------------------------------------------------------------- q4
def q4_values(sb, ctx):
    # the example of the question's text and the shape for arrays; then the variance measured: with the
    # hash table, the sets and the hash indices fixed, the grader flips the same vectors again and again and
    # measures the variance of the student's set_estimate (m = 1, every item in a bucket of its own, so the
    # items' estimates are independent given the vectors)
    close(sb.call("set_flip_variance", 100, 4 * np.log(3), 2, 2), 1200.0, "set_flip_variance at the question's example",
          rtol=1e-9)
    g = ctx.rng()
    n, eps = g.integers(10, 5000, 4), np.round(g.uniform(0.3, 8, 4), 3)
    got = as_array(sb.call("set_flip_variance", n, eps, int(g.integers(1, 6)), 16), "set_flip_variance")
    require(got.shape == (4,) and np.all(np.isfinite(got)) and np.all(got > 0),
            "set_flip_variance: arrays of users and epsilons must give an array of positive variances")
    users, reps = 300, 300
    for size, w in ((1, int(g.integers(2, 6))), (int(g.integers(2, 5)), int(g.integers(2 * 2, 9)))):
        w = max(w, size + 1)
        epsilon = float(g.uniform(1.0, 4.0))
        table = g.permutation(w)[:, None]
        sets = random_sets(g, users, w, size)
        indices = np.zeros(users, dtype=int)
        clean = vectors(sets, table, indices, w)
        rate = float(q(epsilon, size))
        estimates = np.array([_estimates(sb, (clean ^ (g.random(clean.shape) < rate)).astype(np.int8), indices, table,
                                         np.arange(w), epsilon, size, "set_estimate") for _ in range(reps)])
        dof = w * (reps - 1)
        measured = float(np.sum(estimates.var(axis=0, ddof=1)) * (reps - 1))  # dof * pooled variance
        claimed = as_float(sb.call("set_flip_variance", users, epsilon, size, w), "set_flip_variance")
        require(claimed > 0 and stats.chi2.cdf(measured / claimed, dof) > ALPHA
                and stats.chi2.sf(measured / claimed, dof) > ALPHA,
                "set_flip_variance: not the variance the flips cause (measured with your set_estimate on vectors "
                "flipped again and again, sets of one item, then several)")


# ---------------------------------------------------------------- q5
def client(own: float, other: float) -> Expr:
    """A grader's client for sets that flips a 1 of the clean vector with probability ``own`` and a 0 with
    ``other`` (numbers fixed when the grader builds it, whatever epsilon and set size it is called with)."""
    return Expr(
        "lambda item_sets, hash_table, width, epsilon, rng: (lambda sets, table: (lambda j: (lambda v: ("
        f"(rng.random(v.shape) < np.where(v == 1, {own!r}, {other!r})).astype(int) ^ v, j))("
        "(np.arange(width)[None, None, :] == table[sets, j[:, None]][:, :, None]).any(axis=1).astype(int)))"
        "(rng.integers(0, table.shape[1], size=sets.shape[0])))(np.asarray(item_sets), np.asarray(hash_table))")


def honest(epsilon: float, size: int) -> Expr:
    """An honest client for sets of ``size`` items at ``epsilon`` (and for nothing else)."""
    rate = float(q(epsilon, size))
    return client(rate, rate)


def _errors(sb, args, what, **kwargs):
    errors = as_array(sb.call("simulate_set_errors", *args, **kwargs), what)
    reps, items = (kwargs["num_repeats"], kwargs["num_items"]) if kwargs else (args[5], args[1])
    require(errors.shape == (reps, items), "simulate_set_errors must return an array of shape (num_repeats, num_items)")
    require(np.all(np.isfinite(errors)), "simulate_set_errors: the errors have NaN or infinite values")
    return errors


q5_random = randomness("simulate_set_errors", lambda g: (np.array([[0, 1], [1, 2], [2, 0]]), 3, 2.0, 2, 4, 3, g,
                                                         honest(2.0, 2)))


def q5_honest(sb, ctx):
    g = ctx.rng()
    sets, epsilon, m, w, reps = random_sets(g, 300, 6, 2), 2.0, 3, 8, 300
    errors = _errors(sb, (sets, 6, epsilon, m, w, reps, ctx.rng(), honest(epsilon, 2)), "simulate_set_errors")
    spread = errors.std(axis=0, ddof=1) / np.sqrt(reps)
    require(np.all(np.abs(errors.mean(axis=0)) < 6 * spread),
            "simulate_set_errors: with an honest client the estimates must be unbiased")
    rate = float(q(epsilon, 2))
    floor = 300 * rate * (1 - rate) / (1 - 2 * rate) ** 2  # the debiased bits alone (below the flip variance)
    require(np.all(errors.var(axis=0) > 0.6 * floor),
            "simulate_set_errors: with an honest client the errors vary less than the flips alone make them")


def _grader_errors(sb, sets, num_items, epsilon, m, w, reps, own, other, g):
    """The grader's own simulation of the errors (its own tables and flips, the student's set_estimate)."""
    n, size = sets.shape
    f = np.bincount(sets.ravel(), minlength=num_items)
    errors = np.empty((reps, num_items))
    for rep in range(reps):
        table = g.integers(0, w, size=(num_items, m))
        j = g.integers(0, m, size=n)
        clean = vectors(sets, table, j, w)
        reports = clean ^ (g.random(clean.shape) < np.where(clean == 1, own, other))
        errors[rep] = _estimates(sb, reports.astype(np.int8), j, table, np.arange(num_items), epsilon, size,
                                 "set_estimate") - f
    return errors


def q5_other_client(sb, ctx):
    # the errors of a client flipping at other rates than the server assumes, against the grader's own
    # simulation of that client (same set_estimate): the mean errors must agree. The 0s flip more often than the
    # 1s (own in [0.03, 0.08], other 0.02 to 0.07 above it): then the server's estimates are far off (where the
    # 1s flip more, the two rates' biases can cancel and a simulation at the server's q passed)
    g = ctx.rng()
    own = float(g.uniform(0.03, 0.08))
    other = own + float(g.uniform(0.02, 0.07))
    sets, num_items, epsilon, m, w, reps = random_sets(g, 250, 5, 2), 5, 2.0, 2, 6, 300
    errors = _errors(sb, (), "simulate_set_errors", item_sets=sets, num_items=num_items, epsilon=epsilon,
                     num_hashes=m, width=w, num_repeats=reps, rng=g, encode=client(own, other))
    mine = _grader_errors(sb, sets, num_items, epsilon, m, w, reps, own, other, ctx.rng())
    spread = np.sqrt(errors.var(axis=0, ddof=1) / reps + mine.var(axis=0, ddof=1) / reps)
    require(np.all(np.abs(errors.mean(axis=0) - mine.mean(axis=0)) < 6 * spread + 1e-9)
            and np.all(errors.std(axis=0) > 0),
            "simulate_set_errors: with a client that flips less than the server assumes, the mean errors are off "
            "(the simulation must run the client it is given, as encode(item_sets, hash_table, width, epsilon, rng))")


def q5_law(sb, ctx):
    # 8 users: the error takes few values (it is not normal); each item's errors must follow the law of
    # the grader's own simulation (two-sample Kolmogorov-Smirnov test)
    g = ctx.rng()
    sets, epsilon, m, w, reps = random_sets(g, 8, 4, 2), float(g.uniform(3.0, 5.0)), 2, 4, 1500
    errors = _errors(sb, (sets, 4, epsilon, m, w, reps, ctx.rng(), honest(epsilon, 2)), "simulate_set_errors")
    rate = float(q(epsilon, 2))
    mine = _grader_errors(sb, sets, 4, epsilon, m, w, reps, rate, rate, ctx.rng())
    errors, mine = np.round(errors, 6), np.round(mine, 6)  # the same value computed in another order
    for item in range(4):
        same_law(errors[:, item], mine[:, item],
                 "simulate_set_errors: with an honest client and 8 users, the errors do not follow the law of the "
                 "sketch's errors (simulate the sketch itself: few users make the error take few values, far from "
                 "a normal law)")


# ---------------------------------------------------------------- q6
def flipping(rate: float) -> Expr:
    """A client that flips every bit with the fixed probability ``rate``, whatever it claims."""
    return client(rate, rate)


def whole_vector(epsilon: float, size: int) -> Expr:
    """An epsilon-DP client whose flips are drawn for the whole vector at once: the flip pattern z has
    probability proportional to exp(-epsilon * ceil(|z| / 2L)) (any two patterns 2L bits apart differ by at
    most e^epsilon, so it is epsilon-DP for every width), so at width 2L each bit flips less often than
    question 1's q: a bound computed from the per-bit flip rate overstates its epsilon."""
    return Expr(
        "lambda item_sets, hash_table, width, epsilon, rng: (lambda sets, table: (lambda j: (lambda v: (lambda p: "
        "(v ^ (np.argsort(np.argsort(rng.random(v.shape), axis=1), axis=1) "
        "< rng.choice(width + 1, size=v.shape[0], p=p)[:, None]).astype(int), j))("
        "(lambda c: c / c.sum())(np.array([np.prod(np.arange(width - k + 1, width + 1) / np.arange(1, k + 1)) "
        f"* np.exp(-{float(epsilon)!r} * np.ceil(k / {2 * int(size)})) for k in range(width + 1)]))))("
        "(np.arange(width)[None, None, :] == table[sets, j[:, None]][:, :, None]).any(axis=1).astype(int)))"
        "(rng.integers(0, table.shape[1], size=sets.shape[0])))(np.asarray(item_sets), np.asarray(hash_table))")


def sometimes_clean(epsilon: float, size: int, share: float) -> Expr:
    """Honest per bit (question 1's q at epsilon), but with probability ``share`` the clean vector is sent:
    its per-bit flip rate is close to q, its epsilon unbounded."""
    rate = float(q(epsilon, size))
    return Expr(
        "lambda item_sets, hash_table, width, epsilon, rng: (lambda sets, table: (lambda j: (lambda v: ("
        f"v ^ ((rng.random(v.shape) < {rate!r}) & (rng.random((v.shape[0], 1)) >= {float(share)!r})).astype(int), j))("
        "(np.arange(width)[None, None, :] == table[sets, j[:, None]][:, :, None]).any(axis=1).astype(int)))"
        "(rng.integers(0, table.shape[1], size=sets.shape[0])))(np.asarray(item_sets), np.asarray(hash_table))")


def q6_sound(sb, ctx):
    # over 60 audits at 80 %, the bound exceeds the true epsilon in at most 20 % of them (binomial tail test)
    g = ctx.rng()
    epsilon, size = float(g.uniform(1.0, 3.0)), int(g.integers(1, 4))
    above = 0
    for _ in range(60):
        bound = as_float(sb.call("audit_set_client", honest(epsilon, size), epsilon, size, 1_500, 0.8, rng=ctx.rng()),
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
    # an epsilon-DP client that draws the flips of the whole vector at once (fewer flips per bit than q)
    claim, size = float(g.uniform(2.2, 3.0)), int(g.integers(1, 3))
    bound = as_float(sb.call("audit_set_client", whole_vector(claim, size), claim, size, 30_000, 1 - 1e-7,
                             ctx.rng()), "audit_set_client")
    require(bound <= claim + 1e-9,
            "audit_set_client: the bound exceeds the true epsilon of an epsilon-DP client whose flips are not "
            "independent bit by bit (a bound must rest on the probabilities of an event on two neighbouring "
            "datasets, not on a per-bit flip rate)")


def q6_tight(sb, ctx):
    bound = as_float(sb.call("audit_set_client", encode=honest(3.0, 2), epsilon=3.0, set_size=2, trials=100_000,
                             confidence=1 - 1e-7, rng=ctx.rng()), "audit_set_client")
    require(2.25 < bound <= 3.0 + 1e-9,
            "audit_set_client on an honest client with sets of 2 at epsilon = 3 (100,000 trials, confidence "
            "1 - 1e-7) must give a bound between 2.25 and 3: an event whose probabilities differ by a smaller "
            "factor, or are needlessly small, cannot")


def q6_refutes(sb, ctx):
    g = ctx.rng()
    claim, size = float(g.uniform(0.8, 1.5)), int(g.integers(1, 3))
    true = claim * float(g.uniform(2.5, 3.5))
    bound = as_float(sb.call("audit_set_client", flipping(float(q(true, size))), claim, size, 50_000, 0.95,
                             ctx.rng()), "audit_set_client")
    require(bound > 1.5 * claim,
            "audit_set_client must refute a client that flips far less than its claim needs (true epsilon 2.5 to "
            "3.5 times the claim, 50,000 trials, 95 %)")
    # honest per bit, but sometimes the clean vector: for the event "the report is the first set's vector"
    # the ratio is at least e^(3 claim) with sets of 5 items (e^(3 claim) at width 2L)
    claim, size = float(g.uniform(0.8, 1.0)), 5
    rate = float(q(claim, size))
    x = (np.exp(3 * claim) - np.exp(claim)) * rate ** (2 * size)
    bound = as_float(sb.call("audit_set_client", sometimes_clean(claim, size, x / (1 + x)), claim, size, 100_000,
                             0.95, ctx.rng()), "audit_set_client")
    require(bound > 1.5 * claim,
            "audit_set_client must refute a client that flips each bit as its claim needs but sometimes sends the "
            "clean vector (sets of 5, 100,000 trials, 95 %): its per-bit flip rate looks right, its epsilon is not")


q6_random = randomness("audit_set_client", lambda g: (honest(3.0, 2), 3.0, 2, 2_000, 0.95, g))


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
        Check("uniform hash index, independent of the set, and flip rates of the 1s and 0s, also on the first use "
              "of fresh small inputs (each encoded once)", 1.25, q2_law,
              statistical=True, essential=True)]),
    Question("q3", ["set_estimate"], [
        Check("the example, then unbiased estimates for sets (measured over the grader's draws)", 3.0, q3_values,
              statistical=True)]),
    Question("q4", ["set_flip_variance"], [
        Check("the example, then the variance the flips cause (measured with your set_estimate)", 2.0, q4_values,
              statistical=True)]),
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

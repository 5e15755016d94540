"""Hidden checks of assignment 1 (randomized response for two questions).

Simulations and measurements run on mechanisms of the grader's own (``Expr``: evaluated in the
grading process, their constants never reach the notebook), with parameters drawn fresh per run,
so no closed form in the notebook describes their law; the mechanism is tested for behaviour
(binomially varying counts, flip rates per answer, independence, privacy on neighbouring pairs).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import optimize, stats
from scipy.special import gammaln

from ..checks import (
    Check,
    CheckFailed,
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
    require,
)
from ..sandbox import Expr, Ref

NAME = "a1_randomized_response"
PAIRS = [(0, 0), (0, 1), (1, 0), (1, 1)]
CODE_BINS = np.array([-0.5, 0.5, 1.5, 2.5, 3.5])


def q(epsilon):
    return 1 / (1 + np.exp(epsilon))


def noise(epsilon):
    return np.exp(epsilon) / np.expm1(epsilon) ** 2


def true_variance(joint, n, e1, e2):
    joint = np.asarray(joint, dtype=float)
    s1, s2, both = joint[1].sum(), joint[:, 1].sum(), joint[1, 1]
    c1, c2 = noise(np.asarray(e1, dtype=float)), noise(np.asarray(e2, dtype=float))
    return (c1 * c2 + c1 * s2 + c2 * s1 + both * (1 - both)) / np.asarray(n, dtype=float)


def true_estimate(reports, e1, e2):
    reports = np.asarray(reports, dtype=float)
    f = q(np.array([e1, e2], dtype=float))
    d = (reports - f) / (1 - 2 * f)
    return float(np.mean(d[..., 0] * d[..., 1]))


def draw_joint(g, low=0.05):
    """A 2 x 2 table with every cell at least ``low``, rounded to 3 decimals."""
    while True:
        cells = np.round(g.dirichlet(np.ones(4)), 3)
        cells[3] = round(1 - cells[:3].sum(), 3)
        if cells.min() >= low:
            return cells.reshape(2, 2)


def _reports(raw, shape, what):
    """0/1 reports of the given shape carrying nothing but their value: one type for every entry (a
    list mixing ints and floats can tell which answers were 1) and no negative zero."""
    if isinstance(raw, (list, tuple)):
        flat = list(np.asarray(raw, dtype=object).ravel())
        require(len({type(v) for v in flat}) <= 1,
                f"{what}: every report must have the same type (return an integer or boolean NumPy array)")
    values = as_array(raw, what, dtype=None)
    require(values.dtype == bool or np.issubdtype(values.dtype, np.integer)
            or np.issubdtype(values.dtype, np.floating), f"{what} must return an array of 0/1 reports")
    require(values.shape == tuple(shape), f"{what} must keep the shape of its input")
    if values.dtype.kind == "f":
        require(not np.any(np.signbit(values[values == 0])),
                f"{what}: reports must be 0 or 1 (a negative zero is not a report)")
    out = values.astype(float)
    require(np.all((out == 0) | (out == 1)), f"{what}: reports must be 0 or 1")
    return out


def _codes(reports):
    return (2 * reports[..., 0] + reports[..., 1]).astype(int)


def _pairs_of(code_array):
    return np.stack([code_array // 2, code_array % 2], axis=-1)


# ---------------------------------------------------------------- q1 pair_rr
def q1_counts(sb, ctx):
    # each call on the same n pairs releases counts of flips that must vary as Binomial(n, q_j) across calls:
    # flipping exactly round(q n) random answers releases the true count and fails here
    g = ctx.rng()
    e1, e2 = float(g.uniform(0.5, 1.5)), float(g.uniform(0.5, 1.5))
    n = int(g.integers(30, 60))
    truth = (g.random((n, 2)) < 0.5).astype(int)
    counts = np.array([(_reports(sb.call("pair_rr", truth, e1, e2, g), (n, 2), "pair_rr") != truth).sum(axis=0)
                       for _ in range(400)])
    # the observed flip rate, not the exact one: a wrong flip probability is the next check's to report
    for j in (0, 1):
        rate = float(np.clip(counts[:, j].mean() / n, 0.5 / n, 1 - 0.5 / n))
        counts_vary_binomially(counts[:, j], n, rate, f"pair_rr (answer {j + 1})")


q1_random = randomness("pair_rr", lambda g: (np.zeros((100, 2), dtype=int), 1.0, 1.0, g))


def q1_shape(sb, ctx):
    g = ctx.rng()
    pairs = (g.random((3, 4, 2)) < 0.5).astype(int)
    out, args = sb.call("pair_rr", pairs, 0.7, 1.3, ctx.rng(), return_args=True)
    _reports(out, (3, 4, 2), "pair_rr")
    require(np.array_equal(np.asarray(args[0]), pairs), "pair_rr must not modify its input")
    _reports(sb.call("pair_rr", pairs=pairs == 1, epsilon1=0.7, epsilon2=1.3, rng=ctx.rng()), (3, 4, 2),
             "pair_rr (boolean pairs, called by keyword)")
    _reports(sb.call("pair_rr", np.array([1, 0]), 2.0, 0.5, ctx.rng()), (2,), "pair_rr (a single pair)")


def q1_errors(sb, ctx):
    pairs = np.zeros((3, 2), dtype=int)
    for e1, e2 in ((0.0, 1.0), (1.0, -1.0), (np.nan, 1.0), (1.0, np.nan)):
        require(raises(sb, "pair_rr", pairs, e1, e2, ctx.rng()),
                "pair_rr must raise ValueError when epsilon1 or epsilon2 is zero, negative or NaN "
                "(try 0, -1 and np.nan for either)")
    require(raises(sb, "pair_rr", np.zeros((3, 3), dtype=int), 1.0, 1.0, ctx.rng()),
            "pair_rr must raise ValueError when the last axis of pairs is not 2 (try a (3, 3) array)")


def q1_law(sb, ctx):
    g = ctx.rng()
    e1, e2 = float(g.uniform(0.2, 2.5)), float(g.uniform(0.2, 2.5))
    codes = g.permutation(np.repeat(np.arange(4), 25_000))
    pairs = _pairs_of(codes)
    out = _reports(sb.call("pair_rr", pairs, e1, e2, g), pairs.shape, "pair_rr")
    for j, e in ((0, e1), (1, e2)):
        for bit in (0, 1):
            rows = pairs[:, j] == bit
            binomial_fits(int(np.sum(out[rows, j] != bit)), int(rows.sum()), q(e),
                          f"pair_rr: the flip rate of answer {j + 1} when it is {bit}, at its own epsilon")
    q1_first_use(sb, ctx)


# surveys of 4 to 29 pairs, 30 to 999 and 1,000 to 19,999: each released once, 16 per range
FIRST_USE_SIZES = ((4, 30), (30, 1_000), (1_000, 20_000))
FIRST_USE_CALLS = 16


def first_use_sizes(g, low, high, count):
    """count sizes in [low, high), log-uniform and stratified (one in each of count equal slices of the log
    range), so that their total, and the power of a test pooled over them, hardly varies."""
    edges = np.linspace(np.log(low), np.log(high), count + 1)
    return np.clip(np.exp(g.uniform(edges[:-1], edges[1:])).astype(int), low, high - 1)


def q1_first_use(sb, ctx):
    """The first release of each survey is randomized response too: fresh surveys (sizes log-uniform in three
    ranges, shares of yes drawn per survey), each released once by a fresh copy of the notebook with a
    generator of its own, so a mechanism exact the first time it sees an input is seen as it would be used.
    Pooled over a range of sizes, the flips of answer j are Binomial(pairs, q(epsilon_j)) (exact test at
    ALPHA). A release of the true pairs has no flip: the smallest range holds more than 180 pairs, and at
    q >= 0.18 (epsilon <= 1.5) no flip among them has probability below 0.82^180 < 1e-15."""
    g = ctx.rng()
    e1, e2 = float(g.uniform(0.3, 1.5)), float(g.uniform(0.3, 1.5))
    truths, arguments, ranges = [], [], []
    for band, (low, high) in enumerate(FIRST_USE_SIZES):
        for i, n in enumerate(first_use_sizes(g, low, high, FIRST_USE_CALLS)):
            truth = (g.random((int(n), 2)) < g.uniform(0.1, 0.9, 2)).astype(int)
            truths.append(truth)
            ranges.append(band)
            if i % 4 == 3:
                arguments.append(((), {"pairs": truth, "epsilon1": e1, "epsilon2": e2, "rng": ctx.rng()}))
            else:
                arguments.append(((truth, e1, e2, ctx.rng()), {}))
    released = first_calls(sb, "pair_rr", arguments)
    flips = np.zeros((len(FIRST_USE_SIZES), 2), dtype=int)
    pairs = np.zeros(len(FIRST_USE_SIZES), dtype=int)
    for band, truth, raw in zip(ranges, truths, released, strict=True):
        out = _reports(raw, truth.shape, "pair_rr")
        flips[band] += (out != truth).sum(axis=0).astype(int)
        pairs[band] += truth.shape[0]
    for band, (low, high) in enumerate(FIRST_USE_SIZES):
        for j, e in ((0, e1), (1, e2)):
            binomial_fits(int(flips[band, j]), int(pairs[band]), q(e),
                          f"pair_rr on its first use (fresh surveys of {low:,} to {high - 1:,} pairs, each released "
                          f"once by a fresh copy of your notebook): the flip rate of answer {j + 1} (every release "
                          "must be randomized, the first one for an input too)")


def q1_independence(sb, ctx):
    g = ctx.rng()
    e1, e2 = float(g.uniform(0.3, 1.5)), float(g.uniform(0.3, 1.5))
    out = _reports(sb.call("pair_rr", np.zeros((40_000, 2), dtype=int), e1, e2, g), (40_000, 2), "pair_rr")
    probabilities = np.outer([1 - q(e1), q(e1)], [1 - q(e2), q(e2)]).ravel()
    chisquare_fits(np.bincount(_codes(out), minlength=4), probabilities,
                   "pair_rr: the flips of the two answers must be independent of each other")
    repeats, width = 3_000, 10
    grid = _reports(sb.call("pair_rr", np.zeros((repeats, width, 2), dtype=int), 1.0, 1.0, g),
                    (repeats, width, 2), "pair_rr")
    per_position = grid.sum(axis=0).ravel()
    chi2 = np.sum((per_position - repeats * q(1.0)) ** 2 / (repeats * q(1.0) * (1 - q(1.0))))
    require(stats.chi2.sf(chi2, per_position.size) > 1e-6,
            "pair_rr: flips must hit every position at the same rate (try a (3000, 10, 2) array of zeros)")
    per_row = grid.reshape(repeats, -1).sum(axis=1).astype(int)
    chisquare_fits(np.bincount(per_row, minlength=2 * width + 1),
                   stats.binom.pmf(np.arange(2 * width + 1), 2 * width, q(1.0)),
                   "pair_rr: flips at different positions must be independent of each other")


def q1_privacy(sb, ctx):
    g = ctx.rng()
    e1, e2, trials = float(g.uniform(0.4, 1.2)), float(g.uniform(0.4, 1.2)), 100_000
    outs = {}
    for pair in ((0, 0), (1, 1), (0, 1)):
        outs[pair] = _codes(_reports(sb.call("pair_rr", np.tile(pair, (trials, 1)), e1, e2, ctx.rng()),
                                     (trials, 2), "pair_rr"))
    privacy_holds(outs[(0, 0)], outs[(1, 1)], e1 + e2, CODE_BINS, "pair_rr (pairs (0, 0) and (1, 1))")
    privacy_holds(outs[(0, 0)], outs[(0, 1)], e2, CODE_BINS, "pair_rr (pairs (0, 0) and (0, 1))")


# ---------------------------------------------------------------- q2 both_estimate
def q2_public(sb, ctx):
    close(sb.call("both_estimate", np.array([[1, 1], [1, 1], [0, 0], [0, 0]]), np.log(3), np.log(3)), 1.25,
          "both_estimate at the public example ([[1, 1], [1, 1], [0, 0], [0, 0]] at epsilon1 = epsilon2 = ln 3)")


def q2_formula(sb, ctx):
    g = ctx.rng()
    for _ in range(2):
        e1, e2 = round(float(g.uniform(0.3, 3)), 3), round(float(g.uniform(0.3, 3)), 3)
        reports = (g.random((int(g.integers(50, 3000)), 2)) < g.uniform(0.2, 0.8, size=2)).astype(int)
        close(sb.call("both_estimate", reports, e1, e2), true_estimate(reports, e1, e2),
              "both_estimate on random reports (is it unbiased when the two answers are related?)", rtol=1e-9)
    bools = g.random((40, 2)) < 0.5
    close(sb.call("both_estimate", reports=bools, epsilon1=1.0, epsilon2=2.0), true_estimate(bools, 1.0, 2.0),
          "both_estimate on boolean reports, called by keyword", rtol=1e-9)


def q2_no_clip(sb, ctx):
    for pair in ((1, 0), (1, 1)):
        reports = np.tile(pair, (12, 1))
        close(sb.call("both_estimate", reports, 0.9, 1.4), true_estimate(reports, 0.9, 1.4),
              f"both_estimate must not clip the estimate to [0, 1] (try twelve reports {pair})", rtol=1e-9)


# ---------------------------------------------------------------- q3 both_variance
def q3_public(sb, ctx):
    close(sb.call("both_variance", np.full((2, 2), 0.25), 100, np.log(3), np.log(3)), 0.015,
          "both_variance at the public example")


def q3_arrays(sb, ctx):
    g = ctx.rng()
    joint = draw_joint(g, 0.0)
    n, e1, e2 = g.integers(5, 5000, 5), g.uniform(0.1, 4, 5), float(g.uniform(0.1, 4))
    close(sb.call("both_variance", joint, n, e1, e2), true_variance(joint, n, e1, e2),
          "both_variance element-wise on arrays", rtol=1e-8)
    joint = draw_joint(g, 0.0)
    close(sb.call("both_variance", joint=joint, n=40, epsilon1=0.25, epsilon2=np.array([0.5, 3.0])),
          true_variance(joint, 40, 0.25, np.array([0.5, 3.0])), "both_variance called by keyword", rtol=1e-8)
    corner = np.array([[0.0, 0.0], [0.0, 1.0]])
    close(sb.call("both_variance", corner, 10, 1.5, 0.5), true_variance(corner, 10, 1.5, 0.5),
          "both_variance when everyone answers yes to both", rtol=1e-8)


# ---------------------------------------------------------------- q4 best_split
def true_split(joint, epsilon):
    return float(optimize.minimize_scalar(lambda t: float(true_variance(joint, 1, t, epsilon - t)),
                                          bounds=(0.0, epsilon), method="bounded",
                                          options={"xatol": 1e-11}).x)


def q4_public(sb, ctx):
    got = as_float(sb.call("best_split", np.full((2, 2), 0.25), 2.0), "best_split")
    require(abs(got - 1.0) < 1e-3, "best_split at the public example (every cell 0.25, epsilon = 2) must be 1")


def q4_skewed(sb, ctx):
    g = ctx.rng()
    for low, high in ((0.3, 1.5), (1.5, 4.0), (4.0, 9.0)):
        while True:
            joint, epsilon = draw_joint(g, 0.02), round(float(g.uniform(low, high)), 3)
            best = true_split(joint, epsilon)
            if abs(best - epsilon / 2) > 0.01:
                break
        got = as_float(sb.call("best_split", joint, epsilon) if low < 1.5 else
                       sb.call("best_split", joint=joint, epsilon=epsilon), "best_split")
        require(abs(got - best) < 1e-3,
                "best_split is not the minimiser of the exact variance (within 0.001) on a table whose two "
                "answers have different shares of yes")


def q4_errors(sb, ctx):
    for bad in (0.0, -1.0, np.nan):
        require(raises(sb, "best_split", np.full((2, 2), 0.25), bad),
                "best_split must raise ValueError when epsilon is zero, negative or NaN (try 0, -1, np.nan)")


# ---------------------------------------------------------------- q5 simulate_both
def per_answer(a, b) -> Expr:
    """The grader's mechanism: answer j is reported as 1 with probability a[j] when it is 1, b[j] when 0."""
    return Expr(f"lambda pairs, epsilon1, epsilon2, rng: (rng.random(np.shape(pairs)) < "
                f"np.where(np.asarray(pairs) == 1, np.array({list(a)!r}), np.array({list(b)!r}))).astype(int)")


RR = ("lambda pairs, epsilon1, epsilon2, rng: (lambda p: np.where(rng.random(p.shape) < "
      "1 / (1 + np.exp(np.array([epsilon1, epsilon2], dtype=float))), 1 - p, p))(np.asarray(pairs, dtype=int))")


def report_law(joint, a, b):
    """P[report pair = code] when the pairs come from joint and answer j says 1 w.p. a[j] (if 1) or b[j]."""
    joint = np.asarray(joint, dtype=float)
    law = np.zeros(4)
    for x1, x2 in PAIRS:
        one = [a[0] if x1 else b[0], a[1] if x2 else b[1]]
        for y1, y2 in PAIRS:
            law[2 * y1 + y2] += joint[x1, x2] * (one[0] if y1 else 1 - one[0]) * (one[1] if y2 else 1 - one[1])
    return law


def _compositions(n):
    out = [(i, j, k, n - i - j - k) for i in range(n + 1) for j in range(n + 1 - i) for k in range(n + 1 - i - j)]
    return np.array(out)


SURVEYS = 2000  # surveys per simulation check
APART = 150.0  # the noncentrality the chi-square test of a wrong law of reports must have (power ~ 1)


def _estimators(sb, n, e1, e2):
    """Every way n reports can fall on the four report pairs (the counts N of (0, 0), (0, 1), (1, 0),
    (1, 1)), with two estimates on reports with those counts: ``"yours"``, the notebook's own
    both_estimate (called on every such set of reports), and ``"right"``, the unbiased one. An estimate
    that depends on the reports only through N has the law of f(N), N ~ Multinomial(n, law of one
    report), so q5 is graded through whichever estimate the simulation uses: a wrong q2 costs no point
    here (the question says so)."""
    counts = _compositions(n)
    base = np.array(PAIRS)

    def yours_at(rows):
        return np.array([as_float(sb.call("both_estimate", np.repeat(base, row, axis=0), e1, e2), "both_estimate")
                         for row in rows])

    # an estimate that is the mean of one value per report (the unbiased one, written any way) is known from
    # its values on single reports; tried on 16 spread compositions, and called on all of them otherwise
    single = yours_at(np.eye(4, dtype=int))
    sample = np.unique(np.linspace(0, counts.shape[0] - 1, 16).astype(int))
    linear = counts @ single / n
    yours = linear if np.allclose(yours_at(counts[sample]), linear[sample], rtol=1e-9, atol=1e-12) else yours_at(counts)
    z = np.array([true_estimate(np.array([pair]), e1, e2) for pair in PAIRS])
    return counts, {"yours": yours, "right": counts @ z / n}


def _pmf(counts, n, law):
    log_pmf = gammaln(n + 1) - gammaln(counts + 1).sum(axis=1) + (counts * np.log(np.maximum(law, 1e-300))).sum(axis=1)
    return np.exp(log_pmf)


def _scale(values):
    return 1e-7 * (1 + np.abs(values).max())


def _bins(values, pmf, k=12):
    """For each composition, its bin: k bins of about equal probability under pmf, cut only between
    distinct values of the estimate (equal values share a bin)."""
    order = np.argsort(values, kind="stable")
    group = np.concatenate([[0], np.cumsum(np.diff(values[order]) > _scale(values))])
    group_end = np.cumsum(np.bincount(group, weights=pmf[order]))
    bins = np.empty(values.size, dtype=int)
    bins[order] = np.minimum((group_end * k).astype(int), k - 1)[group]
    return bins


def _separation(values, counts, n, law, other):
    """The noncentrality of the chi-square test of ``law`` (12 bins, SURVEYS estimates) when the reports
    follow ``other``: how surely the test tells the two laws of reports apart through this estimate."""
    if not np.all(np.isfinite(values)):
        return 0.0
    p, r = _pmf(counts, n, law), _pmf(counts, n, other)
    bins = _bins(values, p)
    pb, rb = np.bincount(bins, weights=p, minlength=12), np.bincount(bins, weights=r, minlength=12)
    keep = pb > 1e-12
    return float(SURVEYS * np.sum((rb[keep] - pb[keep]) ** 2 / pb[keep]))


def _which(estimates, estimators):
    """The first estimate (``"yours"``, then ``"right"``) whose values on the compositions hold every
    estimate, with the composition nearest each estimate; (None, None) when neither does."""
    for key, values in estimators.items():
        if not np.all(np.isfinite(values)):
            continue
        order = np.argsort(values, kind="stable")
        ordered = values[order]
        near = np.clip(np.searchsorted(ordered, estimates), 1, ordered.size - 1)
        near = np.where(np.abs(ordered[near - 1] - estimates) < np.abs(ordered[near] - estimates), near - 1, near)
        if np.all(np.abs(ordered[near] - estimates) < _scale(values)):
            return key, order[near]
    return None, None


def _estimate_law_fits(nearest, counts, n, values, law, what):
    """The estimates (one per survey, at the compositions ``nearest``) follow the law of f(N)."""
    pmf = _pmf(counts, n, law)
    bins = _bins(values, pmf)
    chisquare_fits(np.bincount(bins[nearest], minlength=12), np.bincount(bins, weights=pmf, minlength=12), what)


def _simulated(raw, estimators, what):
    """The simulation's estimates: which estimate made them, and the composition of each."""
    out = as_array(raw, "simulate_both")
    require(out.shape == (SURVEYS,), "simulate_both must return num_surveys estimates")
    key, nearest = _which(out, estimators) if np.all(np.isfinite(out)) else (None, None)
    if key is None:
        require(np.all(np.isfinite(estimators["yours"])),
                "q5 is graded through your both_estimate (Question 2), which is not finite on some survey "
                "reports: fix Question 2 first")
        require(np.all(np.isfinite(out)), f"{what}: the estimates must be finite")
        raise CheckFailed(f"{what}: each estimate must be your both_estimate of the n reports of one survey")
    return key, nearest


def q5_other_mechanism(sb, ctx):
    g = ctx.rng()
    n = int(g.integers(12, 20))
    e1, e2 = round(float(g.uniform(0.5, 2)), 3), round(float(g.uniform(0.5, 2)), 3)
    counts, estimators = _estimators(sb, n, e1, e2)
    f = q(np.array([e1, e2]))
    chosen = {}
    # the grader's law of reports must be told apart from randomized response's, through the estimate used
    for _ in range(300):
        a = [round(float(v), 4) for v in g.uniform(0.55, 0.95, 2)]
        b = [round(float(v), 4) for v in g.uniform(0.05, 0.4, 2)]
        joint = draw_joint(g)
        law, rr_law = report_law(joint, a, b), report_law(joint, 1 - f, f)
        for key, values in estimators.items():
            if key not in chosen and _separation(values, counts, n, law, rr_law) > APART:
                chosen[key] = (a, b, joint, law)
        if len(chosen) == 2:
            break
    a, b, joint, law = chosen.get("yours", chosen["right"])
    raw = sb.call("simulate_both", joint, n, e1, e2, SURVEYS, g, per_answer(a, b))
    what = ("simulate_both must run the mechanism it is given on every survey's true pairs (with another "
            "mechanism than pair_rr the estimates do not follow the law its reports imply)")
    key, nearest = _simulated(raw, estimators, what)
    if key == "yours" and "yours" not in chosen:
        raise CheckFailed("q5 is graded through your both_estimate (Question 2), which gives almost the same "
                          "estimates whatever mechanism made the reports: fix Question 2 first")
    if key == "right" and "yours" in chosen and not np.allclose(chosen["yours"][3], chosen["right"][3]):
        raw = sb.call("simulate_both", chosen["right"][2], n, e1, e2, SURVEYS, g,
                      per_answer(chosen["right"][0], chosen["right"][1]))
        key, nearest = _simulated(raw, estimators, what)
        law = chosen["right"][3]
    _estimate_law_fits(nearest, counts, n, estimators[key], law, what)


def q5_shape(sb, ctx):
    out = as_array(sb.call("simulate_both", np.array([[0.4, 0.1], [0.2, 0.3]]), 30, 1.0, 1.5, 40, ctx.rng(),
                           Ref("pair_rr")), "simulate_both")
    require(out.shape == (40,), "simulate_both must return num_surveys estimates (try 40 surveys)")


q5_random = randomness("simulate_both", lambda g: (np.array([[0.4, 0.1], [0.2, 0.3]]), 20, 1.0, 1.0, 20, g,
                                                   per_answer((0.7, 0.8), (0.2, 0.3))))


def q5_own_mechanism(sb, ctx):
    # the honest use: pair randomized response itself (the grader's copy), every argument by keyword
    g = ctx.rng()
    joint, n = draw_joint(g), int(g.integers(12, 20))
    e1, e2 = round(float(g.uniform(0.4, 1.6)), 3), round(float(g.uniform(0.4, 1.6)), 3)
    counts, estimators = _estimators(sb, n, e1, e2)
    raw = sb.call("simulate_both", joint=joint, n=n, epsilon1=e1, epsilon2=e2, num_surveys=SURVEYS, rng=g,
                  mechanism=Expr(RR))
    what = ("simulate_both with pair randomized response (called by keyword): the estimates do not follow the "
            "law of n reports")
    key, nearest = _simulated(raw, estimators, what)
    f = q(np.array([e1, e2]))
    _estimate_law_fits(nearest, counts, n, estimators[key], report_law(joint, 1 - f, f), what)


# ---------------------------------------------------------------- q6 empirical_epsilon
def fixed_per_answer(a, b) -> Expr:
    return Expr(f"lambda pairs, rng: (rng.random(np.shape(pairs)) < "
                f"np.where(np.asarray(pairs) == 1, np.array({list(a)!r}), np.array({list(b)!r}))).astype(int)")


def joint_rr(epsilon) -> Expr:
    """Four-value randomized response on the pair: keep it with e^eps / (e^eps + 3), else one of the others."""
    keep = float(np.exp(epsilon) / (np.exp(epsilon) + 3))
    return Expr("lambda pairs, rng: (lambda c: (lambda r: np.stack([r // 2, r % 2], axis=-1))("
                f"np.where(rng.random(c.shape) < {keep!r}, c, (c + 1 + rng.integers(0, 3, size=c.shape)) % 4)))("
                "2 * np.asarray(pairs, dtype=int)[..., 0] + np.asarray(pairs, dtype=int)[..., 1])")


TRUTHFUL = "lambda pairs, rng: np.array(pairs, dtype=int)"


def channel_epsilon(a, b, relation):
    """The exact epsilon of the per-answer mechanism with one-probabilities a (bit 1) and b (bit 0)."""
    law = {x: report_law(np.eye(4)[2 * x[0] + x[1]].reshape(2, 2), a, b) for x in PAIRS}
    worst = 0.0
    for x, other in itertools.permutations(PAIRS, 2):
        if relation == "one" and sum(u != v for u, v in zip(x, other, strict=True)) != 1:
            continue
        worst = max(worst, float(np.max(np.abs(np.log(law[x] / law[other])))))
    return worst


TRIALS = 100_000


def q6_infinite(sb, ctx):
    for relation in ("any", "one"):
        got = as_float(sb.call("empirical_epsilon", Expr(TRUTHFUL), 1000, ctx.rng(), relation), "empirical_epsilon")
        require(got == np.inf, f"empirical_epsilon must return inf for a mechanism that reports the true pair "
                               f"(relation \"{relation}\")")


def q6_any(sb, ctx):
    g = ctx.rng()
    e1, e2 = round(float(g.uniform(0.4, 1.2)), 3), round(float(g.uniform(0.4, 1.2)), 3)
    f = q(np.array([e1, e2]))
    got = as_float(sb.call("empirical_epsilon", fixed_per_answer(1 - f, f), TRIALS, g), "empirical_epsilon")
    require(abs(got - (e1 + e2)) < 0.12,
            "empirical_epsilon is wrong for a mechanism that answers each question separately (relation \"any\": "
            "compare every two pairs, including pairs that differ in both answers)")
    a = [round(float(v), 3) for v in g.uniform(0.6, 0.85, 2)]
    b = [round(float(v), 3) for v in g.uniform(0.15, 0.4, 2)]
    got = as_float(sb.call("empirical_epsilon", mechanism=fixed_per_answer(a, b), num_trials=TRIALS, rng=g),
                   "empirical_epsilon")
    require(abs(got - channel_epsilon(a, b, "any")) < 0.15,
            "empirical_epsilon is wrong on a mechanism that treats 0 and 1 differently (take the largest ratio "
            "over every report, in both directions; called by keyword)")


def q6_one(sb, ctx):
    g = ctx.rng()
    e1, e2 = round(float(g.uniform(0.4, 1.2)), 3), round(float(g.uniform(0.4, 1.2)), 3)
    f = q(np.array([e1, e2]))
    got = as_float(sb.call("empirical_epsilon", fixed_per_answer(1 - f, f), TRIALS, g, relation="one"),
                   "empirical_epsilon")
    require(abs(got - max(e1, e2)) < 0.12,
            "empirical_epsilon with relation \"one\" is wrong for a mechanism that answers each question "
            "separately (neighbours differ in exactly one answer)")
    epsilon = round(float(g.uniform(0.8, 1.6)), 3)
    got = as_float(sb.call("empirical_epsilon", joint_rr(epsilon), TRIALS, g, "one"), "empirical_epsilon")
    require(abs(got - epsilon) < 0.12,
            "empirical_epsilon with relation \"one\" is wrong for a mechanism that reports the pair jointly")


def q6_relation(sb, ctx):
    require(raises(sb, "empirical_epsilon", Expr(TRUTHFUL), 100, ctx.rng(), "both"),
            "empirical_epsilon must raise ValueError for a relation other than \"any\" and \"one\" (try \"both\")")


q6_random = randomness("empirical_epsilon", lambda g: (fixed_per_answer((0.7, 0.8), (0.3, 0.25)), 500, g))


QUESTIONS = [
    Question("q1", ["pair_rr"], [
        Check("the number of flips varies from call to call as independent flips do", 0.5, q1_counts,
              statistical=True, gate=True, essential=True),
        Check("randomness drawn from rng", 0.25, q1_random, gate=True, essential=True),
        Check("shape, 0/1 reports, boolean pairs accepted, input untouched", 0.25, q1_shape),
        Check("bad epsilon or bad shape raises ValueError", 0.25, q1_errors),
        Check("flip rate of each answer at its own epsilon, also on the first use of fresh surveys (each "
              "released once)", 0.75, q1_law, statistical=True, essential=True),
        Check("independent flips between the answers and across positions", 0.5, q1_independence,
              statistical=True, essential=True),
        Check("empirical privacy on neighbouring pairs", 0.5, q1_privacy, statistical=True, essential=True)]),
    Question("q2", ["both_estimate"], [
        Check("estimate at the public example", 0.5, q2_public, public=True),
        Check("estimate on other reports", 1.0, q2_formula),
        Check("no clipping", 0.5, q2_no_clip)]),
    Question("q3", ["both_variance"], [
        Check("variance at the public example", 0.5, q3_public, public=True),
        Check("variance element-wise on arrays and at a corner table", 1.5, q3_arrays)]),
    Question("q4", ["best_split"], [
        Check("split at the public example", 0.5, q4_public, public=True),
        Check("the minimiser on skewed tables", 1.25, q4_skewed),
        Check("bad epsilon raises ValueError", 0.25, q4_errors)]),
    Question("q5", ["simulate_both"], [
        Check("the simulation runs the mechanism it is given (a mechanism of the grader's)", 1.5,
              q5_other_mechanism, statistical=True, gate=True),
        Check("one estimate per survey", 0.25, q5_shape),
        Check("simulation draws from rng", 0.25, q5_random),
        Check("estimates follow the law of pair randomized response's reports (keyword call)", 1.0,
              q5_own_mechanism, statistical=True)]),
    Question("q6", ["empirical_epsilon"], [
        Check("inf for a non-private mechanism", 0.5, q6_infinite),
        Check("empirical epsilon under \"any\" of other mechanisms", 1.0, q6_any, statistical=True),
        Check("empirical epsilon under \"one\" of other mechanisms", 1.0, q6_one, statistical=True),
        Check("bad relation raises ValueError", 0.25, q6_relation),
        Check("the measurement draws from rng", 0.25, q6_random)]),
    # written answers: model answers in the master, rubrics in book/assignments/masters/written_answers.md
    Question("q7", [], [], manual_points=5.0),
    Question("q8", [], [], manual_points=5.0),
]

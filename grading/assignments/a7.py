"""Hidden checks of assignment 7 (the exponential mechanism and report-noisy-max, ch06).

Every hidden input is drawn per run from ``ctx.rng()``. Mechanisms are tested for behaviour: the
law of the chosen index (chi-square against the exact probabilities), independence across calls
(the number of wins of one candidate must vary as independent draws make it vary), privacy on
neighbouring utility vectors, the extremes of epsilon, and the bad input the question says must
raise. The simulation of q5 is run on the grader's own mechanisms, whose laws no formula in the
notebook describes.
"""

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
    first_calls,
    privacy_holds,
    raises,
    randomness,
    require,
)
from ..sandbox import Expr, SandboxError

NAME = "a7_exponential_mechanism"


# ----------------------------------------------------------------------------- the grader's own laws
def em_probabilities(utilities, sensitivity: float, epsilon: float) -> np.ndarray:
    """Probabilities of the exponential mechanism (weights exp(eps u / (2 sensitivity)))."""
    u = np.asarray(utilities, dtype=float)
    weights = np.exp(epsilon * (u - u.max()) / (2 * sensitivity))
    return weights / weights.sum()


_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(12)


def laplace_max_probabilities(utilities, scale: float, reach: int = 40) -> np.ndarray:
    """P[candidate r has the largest noisy utility] under independent Laplace(scale) noise: the
    integral of f(z - u_r) prod_{j != r} F(z - u_j), by Gauss-Legendre on pieces between the kinks
    (as in ch06's ``laplace_noisy_max_probabilities``)."""
    u = np.asarray(utilities, dtype=float)
    u = u - u.max()
    position = np.clip(u / scale, -(reach + 1), reach + 1)
    lattice = np.unique(np.floor(position).astype(np.int64)[:, None] + np.arange(-reach, reach + 2))
    ends = np.union1d(lattice * scale, u)
    middle, half = (ends[1:] + ends[:-1]) / 2, (ends[1:] - ends[:-1]) / 2
    z = (middle[:, None] + half[:, None] * _NODES).ravel()
    weight = (half[:, None] * _WEIGHTS).ravel()
    standard = (z - u[:, None]) / scale
    log_cdf = np.where(standard < 0, np.minimum(standard, 0) - np.log(2),
                       np.log1p(-0.5 * np.exp(-np.abs(standard))))
    log_density = -np.abs(standard) - np.log(2 * scale)
    return np.exp(log_density + log_cdf.sum(axis=0) - log_cdf) @ weight


def _indices(value, k: int, what: str, size: int | None = None) -> np.ndarray:
    """The chosen indices as integers in range(k) (a single index when size is None)."""
    array = as_array(value, what)
    if size is None:
        require(array.size == 1, f"{what}: without size, the answer must be a single index")
    else:
        require(array.size == size, f"{what}: with size=m, the answer must hold m indices")
    array = array.ravel()
    require(np.all(np.isfinite(array)) and np.all(array == np.round(array)),
            f"{what}: the answer must be whole numbers (indices of candidates)")
    require(np.all((array >= 0) & (array < k)), f"{what}: every index must lie in 0, ..., len(utilities) - 1")
    return array.astype(int)


def _not_too_regular_counts(observed, probabilities, what: str, min_expected: float = 20) -> None:
    """The lower tail of the chi-square statistic: independent draws scatter around the expected
    counts, and a statistic below the 1e-6 quantile means the draws were placed, not drawn (a fixed
    share of the draws per candidate, in random order)."""
    observed = np.asarray(observed, dtype=float)
    expected = observed.sum() * np.asarray(probabilities, dtype=float)
    keep = expected >= min_expected
    obs, exp = np.append(observed[keep], observed[~keep].sum()), np.append(expected[keep], expected[~keep].sum())
    if exp[-1] < min_expected:
        obs, exp = np.append(obs[:-2], obs[-2:].sum()), np.append(exp[:-2], exp[-2:].sum())
    statistic = float(np.sum((obs - exp) ** 2 / exp))
    require(stats.chi2.cdf(statistic, obs.size - 1) > ALPHA,
            f"{what}: the counts of the candidates are closer to their expected values than independent draws "
            "can be (every draw must be independent, not a fixed share of the draws per candidate)")


def _wins_vary_binomially(wins, trials: int, p: float, what: str) -> None:
    """Wins of one candidate in ``trials`` independent draws, over separate calls, follow
    Binomial(trials, p) (chi-square, both tails): fixed shares per call fail."""
    wins = np.asarray(wins, dtype=int).clip(0, trials)
    observed = np.bincount(wins, minlength=trials + 1).astype(float)
    expected = wins.size * stats.binom.pmf(np.arange(trials + 1), trials, p)
    keep = expected >= 20
    obs, exp = np.append(observed[keep], observed[~keep].sum()), np.append(expected[keep], expected[~keep].sum())
    if exp[-1] < 20:
        obs, exp = np.append(obs[:-2], obs[-2:].sum()), np.append(exp[:-2], exp[-2:].sum())
    statistic = float(np.sum((obs - exp) ** 2 / exp))
    upper, lower = stats.chi2.sf(statistic, obs.size - 1), stats.chi2.cdf(statistic, obs.size - 1)
    require(upper > ALPHA and lower > ALPHA,
            f"{what}: over separate calls, the number of wins of a candidate must vary as it does for independent "
            "draws (each call must draw afresh, every draw independent of the others)")


def _wins_dispersion(wins, trials: int, p: float, what: str) -> None:
    """The dispersion of the wins of one candidate over separate calls: sum((w - trials p)^2) / (trials p (1 - p))
    is close to chi-square with one degree of freedom per call; both tails at ALPHA (a fixed share of the draws
    per call has a statistic near 0)."""
    wins = np.asarray(wins, dtype=float)
    statistic = float(np.sum((wins - trials * p) ** 2) / (trials * p * (1 - p)))
    low, high = stats.chi2.cdf(statistic, wins.size), stats.chi2.sf(statistic, wins.size)
    require(low > ALPHA and high > ALPHA,
            f"{what}: over separate calls, the number of wins of a candidate must vary as it does for independent "
            "draws (each call must draw afresh, every draw independent of the others)")


def _separate_calls_fit(chosen, probabilities, what: str) -> None:
    """Few draws from separate calls (too few for a chi-square test over many candidates): the number that
    fall in the likeliest candidates, whose probabilities add up to at least 0.4, is binomial (exact test)."""
    probabilities = np.asarray(probabilities, dtype=float)
    order = np.argsort(-probabilities, kind="stable")
    top = order[:int(np.searchsorted(np.cumsum(probabilities[order]), 0.4)) + 1]
    chosen = np.asarray(chosen, dtype=int)
    binomial_fits(int(np.isin(chosen, top).sum()), chosen.size, float(probabilities[top].sum()), what)


def _fresh(g: np.random.Generator) -> np.random.Generator:
    """A new generator for each call, seeded from ``g``: separate calls get separate streams even when
    the answer spawns child generators (a spawned child depends on the seed, not on the state)."""
    return np.random.default_rng(int(g.integers(2**63)))


def _hidden_utilities(g: np.random.Generator, k: int, sensitivity: float, epsilon: float) -> np.ndarray:
    """Utilities whose gaps are of the order of the noise (2 sensitivity / epsilon): a law worth testing."""
    return np.round(2 * sensitivity / epsilon * g.normal(0.0, 1.2, k), 6)


def _whole_utilities(g: np.random.Generator, k: int) -> np.ndarray:
    """Whole-number utilities (counts) with ties and gaps: two or three candidates tied for the best,
    other ties, and gaps of 1 to 4 (of the order of the noise at sensitivity 1 and epsilon near 1)."""
    levels = np.cumsum(g.integers(1, 5, k))  # strictly increasing, gaps 1..4
    u = levels[g.integers(0, max(k // 2, 2), k)].astype(float)  # repeated levels: ties
    u[g.choice(k, int(g.integers(2, 4)), replace=False)] = u.max()  # tied for the best
    return float(g.integers(-50, 500)) + u - u.max()


def _quantile_family(sb, g: np.random.Generator):
    """Utilities of the student's own quantile_utility on a hidden dataset of whole numbers (whole or
    half-whole utilities, with ties), and that utility's sensitivity."""
    n = int(g.integers(40, 200))
    x = g.integers(0, 60, n).astype(float)
    candidates = np.arange(-2.0, 63.0, 1.0)
    q = float(g.choice([0.25, 0.5, 0.75]))
    own = -np.abs((x[None, :] < candidates[:, None]).sum(axis=1) - q * n)
    try:
        u = np.asarray(sb.call("quantile_utility", x, candidates, q), dtype=float).ravel()
    except (SandboxError, TypeError, ValueError) as exc:
        if getattr(exc, "kind", None) in ("timeout", "crashed"):
            raise
        u = own  # no usable quantile_utility (Question 1): the mechanisms are tested on the grader's own
    if u.shape != candidates.shape or not np.all(np.isfinite(u)):
        u = own
    return u, max(q, 1 - q)


def _families(sb, g: np.random.Generator):
    """(label, utilities, sensitivity, epsilon): the input families every law check runs on."""
    k = int(g.integers(6, 25))
    sensitivity, epsilon = float(10 ** g.uniform(-1, 1)), float(10 ** g.uniform(-1, 0.5))
    out = [("hidden utilities", _hidden_utilities(g, k, sensitivity, epsilon), sensitivity, epsilon)]
    out.append(("whole-number utilities (counts) with ties and gaps, sensitivity 1", _whole_utilities(g, k), 1.0,
                float(g.uniform(0.5, 2.0))))
    u, quantile_sensitivity = _quantile_family(sb, g)
    out.append(("the utilities of your quantile_utility on a hidden dataset", u, quantile_sensitivity,
                float(g.uniform(0.3, 1.0))))
    return out


# ----------------------------------------------------------------------------- first use (q3 and q4)
# 48 fresh utility vectors, each released once by a fresh copy of the notebook with a generator of its own: a
# mechanism that releases the exact best candidate the first time it sees an input (and draws honestly on the
# repeated calls of the other checks) is seen as it would be used, where every selection is made once.
FIRST_USE_CALLS = 48


def _first_use_input(g, law):
    """Fresh utilities (real-valued, or whole numbers with ties for the best), their sensitivity and epsilon,
    drawn until the best candidates together win with probability between 0.1 and 0.3 under ``law``;
    returns (utilities, sensitivity, epsilon, that probability)."""
    while True:
        k = int(g.integers(4, 16))
        if g.random() < 0.5:
            sensitivity, epsilon = float(10 ** g.uniform(-1, 1)), float(10 ** g.uniform(-1, 0.5))
            u = np.round(2 * sensitivity / epsilon * g.normal(0.0, 0.7, k), 6)
        else:  # counts: whole numbers in a band of five levels, often tied for the best
            sensitivity, epsilon = 1.0, float(g.uniform(0.3, 1.2))
            u = float(g.integers(-50, 500)) + g.integers(0, 5, k).astype(float)
        best = float(law(u, sensitivity, epsilon)[u == u.max()].sum())
        if 0.1 <= best <= 0.3:
            return u, sensitivity, epsilon, best


def _poisson_binomial_fits(hits: int, probabilities, what: str) -> None:
    """The number of successes of independent trials with the given probabilities: exact two-sided test at
    ALPHA (the law is the convolution of the trials' laws)."""
    pmf = np.ones(1)
    for p in probabilities:
        pmf = np.convolve(pmf, [1.0 - p, p])
    p_value = min(1.0, 2 * min(float(pmf[:hits + 1].sum()), float(pmf[hits:].sum())))
    require(p_value > ALPHA, what)


def _first_use(sb, name, g, make_call, groups):
    """``make_call(i, u, sensitivity, epsilon)`` gives the arguments of call i (a single selection, size
    omitted: one release, as in real use); ``groups`` maps a label to (the calls it pools, the law of the
    winner). Per group, the number of calls whose selection is a best candidate is Poisson-binomial (exact
    two-sided test): a release of the best candidate on first use wins every call, probability at most
    0.3^24 < 1e-12 per group of 24 calls."""
    arguments, inputs = [], {}
    for label, (calls, law) in groups.items():
        for i in calls:
            u, sensitivity, epsilon, best = _first_use_input(g, law)
            inputs[i] = (label, u, best)
            arguments.append((i, make_call(i, u, sensitivity, epsilon)))
    arguments.sort(key=lambda item: item[0])
    released = first_calls(sb, name, [call for _, call in arguments])
    hits, chances = {label: 0 for label in groups}, {label: [] for label in groups}
    for (i, _), raw in zip(arguments, released, strict=True):
        label, u, best = inputs[i]
        chosen = _indices(raw, u.size, name)
        hits[label] += int(np.sum(u[chosen] == u.max()))
        chances[label].append(best)
    for label in groups:
        _poisson_binomial_fits(hits[label], chances[label],
                               f"{name} on its first use ({label}: fresh utilities, one selection each, made by a "
                               "fresh copy of your notebook): the best candidates win more (or less) often than the "
                               "mechanism's law allows (every selection must be random, the first one for an input too)")


def q3_first_use(sb, ctx):
    def call(i, u, sensitivity, epsilon):
        if i % 2:
            return (u.tolist(), sensitivity, epsilon), {"rng": ctx.rng()}
        return (u, sensitivity, epsilon, ctx.rng()), {}

    _first_use(sb, "exponential_mechanism", ctx.rng(), call,
               {"48 calls": (range(FIRST_USE_CALLS), em_probabilities)})


def q4_first_use(sb, ctx):
    def call(i, u, sensitivity, epsilon):
        noise = "gumbel" if i % 2 == 0 else "laplace"
        if i % 4 < 2:
            return (u, sensitivity, epsilon, noise, ctx.rng()), {}
        return (u, sensitivity, epsilon, noise), {"rng": ctx.rng()}

    _first_use(sb, "report_noisy_max", ctx.rng(), call,
               {"Gumbel noise, 24 calls": (range(0, FIRST_USE_CALLS, 2), em_probabilities),
                "Laplace noise, 24 calls": (range(1, FIRST_USE_CALLS, 2),
                                            lambda u, s, e: laplace_max_probabilities(u, 2 * s / e))})


# ----------------------------------------------------------------------------- q1: a quantile utility
def q1_utility(sb, ctx):
    g = ctx.rng()
    low = int(g.integers(-50, 50))
    high = low + int(g.integers(10, 80))
    n = int(g.integers(5, 400))
    x = g.integers(low, high + 1, n).astype(float)  # whole values: many equal to a candidate
    step = float(g.choice([0.5, 1.0, 2.0]))
    candidates = np.arange(low - 3, high + 4, step)
    g.shuffle(candidates)  # the order of the grid is the order of the answer
    q = float(g.uniform(0.02, 0.98))
    below = (x[None, :] < candidates[:, None]).sum(axis=1)
    want = -np.abs(below - q * n)
    got = as_array(sb.call("quantile_utility", x, candidates, q), "quantile_utility")
    require(got.shape == candidates.shape, "quantile_utility must return one utility per candidate, in the "
                                           "order of candidates")
    require(np.allclose(got, want, rtol=1e-9, atol=1e-9),
            "quantile_utility: wrong utilities on a hidden dataset and grid (count the records strictly below "
            "each candidate, and use the number of records in the dataset)")
    listed = as_array(sb.call("quantile_utility", x[:7].tolist(), candidates[:5].tolist(), 0.5), "quantile_utility")
    below = (x[None, :7] < candidates[:5, None]).sum(axis=1)
    half = 0.5 * x[:7].size  # q = 0.5 of the (up to) seven records passed
    require(listed.shape == (5,) and np.allclose(listed, -np.abs(below - half), rtol=1e-9, atol=1e-9),
            "quantile_utility: wrong utilities when x and candidates are Python lists")


def q1_sensitivity(sb, ctx):
    g = ctx.rng()
    for q in (float(g.uniform(0.01, 0.49)), float(g.uniform(0.51, 0.99)), np.float64(g.uniform(0.01, 0.99))):
        got = as_float(sb.call("quantile_sensitivity", q), "quantile_sensitivity")
        require(np.isclose(got, max(q, 1 - q), rtol=1e-9, atol=1e-12),
                "quantile_sensitivity: wrong value for a hidden q (the largest change of any candidate's utility "
                "when one record is added or removed, over all datasets)")


# ----------------------------------------------------------------------------- q3: the exponential mechanism
q3_random = randomness("exponential_mechanism", lambda g: (np.linspace(0.0, 3.0, 8), 1.0, 1.0, g, 50))


def q3_law(sb, ctx):
    g = ctx.rng()
    name = "exponential_mechanism"
    for label, u, sensitivity, epsilon in _families(sb, g):
        k = u.size
        p = em_probabilities(u, sensitivity, epsilon)
        many = _indices(sb.call(name, u, sensitivity, epsilon, _fresh(g), size=10_000), k, name, 10_000)
        what = f"{name}: 10,000 draws (size=10000) on {label}"
        chisquare_fits(np.bincount(many, minlength=k), p, what)
        _not_too_regular_counts(np.bincount(many, minlength=k), p, what)
        single = [int(_indices(sb.call(name, u.tolist(), sensitivity, epsilon, rng=_fresh(g)), k, name)[0])
                  for _ in range(100)]
        _separate_calls_fit(single, p, f"{name}: 100 separate calls (size omitted, rng by keyword) on {label}")


def q3_extremes(sb, ctx):
    g = ctx.rng()
    k = int(g.integers(4, 30))
    name = "exponential_mechanism"
    # epsilon = 1e6 and utilities near 1e6 (or -1e6): always the best candidate
    for centre in (1e6, -1e6):
        u = centre + g.permutation(k).astype(float)
        best = int(np.argmax(u))
        draws = _indices(sb.call(name, u, 1.0, 1e6, _fresh(g), size=200), k, name, 200)
        require(np.all(draws == best), f"{name}: at epsilon = 1e6, utilities near {centre:.0e} and sensitivity 1 "
                                       "every draw must be the best candidate (no overflow or NaN)")
        one = _indices(sb.call(name, u, 1.0, 1e6, _fresh(g)), k, name)
        require(one[0] == best, f"{name}: at epsilon = 1e6 a single draw must be the best candidate")
    # two candidates tied for the best at epsilon = 1e6: each about half the time, nothing else
    u = 1e6 + g.permutation(k).astype(float)
    top = np.argsort(u)[-2:]
    u[top[0]] = u[top[1]]
    draws = _indices(sb.call(name, u, 1.0, 1e6, _fresh(g), size=4000), k, name, 4000)
    require(np.all(np.isin(draws, top)), f"{name}: at epsilon = 1e6 only the candidates tied for the best may win")
    binomial_fits(int(np.sum(draws == top[0])), 4000, 0.5,
                  f"{name}: two candidates tied for the best at epsilon = 1e6 must win equally often")
    # epsilon = 1e-9: almost uniform
    u = g.uniform(-1000, 1000, k)
    draws = _indices(sb.call(name, u, 1.0, 1e-9, _fresh(g), size=20_000), k, name, 20_000)
    chisquare_fits(np.bincount(draws, minlength=k), em_probabilities(u, 1.0, 1e-9),
                   f"{name}: at epsilon = 1e-9 the choice must be (almost) uniform")


def q3_independent(sb, ctx):
    g = ctx.rng()
    name = "exponential_mechanism"
    sensitivity, epsilon = float(g.uniform(0.5, 3)), float(g.uniform(0.3, 2))
    for u, sens, eps in ((np.array([0.0, -0.3, -1.0, -2.0]) * 2 * sensitivity / epsilon, sensitivity, epsilon),
                         (np.array([3.0, 2.0, 2.0, 0.0]), 1.0, 1.0)):  # whole utilities too
        p_best = em_probabilities(u, sens, eps)[0]
        wins = []
        for _ in range(100):
            draws, after = sb.call(name, u, sens, eps, _fresh(g), size=60, return_args=True)
            wins.append(int(np.sum(_indices(draws, 4, name, 60) == 0)))
        require(np.array_equal(as_array(after[0], name), u), f"{name} must not modify the utilities it is given")
        _wins_dispersion(wins, 60, p_best, f"{name}: the best candidate's wins in 100 calls of 60 draws")


def _neighbour_pairs(g: np.random.Generator, k: int, sensitivity: float):
    """Neighbouring utility vectors (each utility moves by at most the sensitivity): real-valued ones,
    and whole-number ones (counts, sensitivity 1) whose best candidate changes."""
    a = np.zeros(k)
    b = np.full(k, -sensitivity)
    b[0] = sensitivity  # every utility moves by at most the sensitivity, in opposite directions
    c = g.integers(0, 3, k).astype(float)
    c[0], c[1] = 2.0, 3.0
    d = c - 1.0
    d[0] = 3.0  # d[1] = 2: the best moves from candidate 1 to candidate 0
    return [(a, b, sensitivity, "real-valued neighbouring utilities"),
            (c, d, 1.0, "whole-number neighbouring utilities (counts, sensitivity 1)")]


def q3_privacy(sb, ctx):
    g = ctx.rng()
    name = "exponential_mechanism"
    k, sensitivity, epsilon = 50, float(10 ** g.uniform(-1, 1)), float(g.uniform(0.5, 1.5))
    for a, b, sens, label in _neighbour_pairs(g, k, sensitivity):
        draws_a = _indices(sb.call(name, a, sens, epsilon, _fresh(g), size=25_000), k, name, 25_000)
        draws_b = _indices(sb.call(name, b, sens, epsilon, _fresh(g), size=25_000), k, name, 25_000)
        privacy_holds(draws_a, draws_b, epsilon, np.arange(k + 1) - 0.5,
                      f"{name}: {label} (each moved by at most the sensitivity)")
    q3_first_use(sb, ctx)


def q3_bad_input(sb, ctx):
    name = "exponential_mechanism"
    g = ctx.rng()
    u = [0.0, 1.0, 2.0]
    bad = [(u, 1.0, 0.0), (u, 1.0, -1.0), (u, 1.0, float("nan")), (u, 1.0, float("inf")),
           (u, 0.0, 1.0), (u, -2.0, 1.0), (u, float("nan"), 1.0), (u, float("inf"), 1.0),
           ([], 1.0, 1.0), ([[0.0, 1.0], [2.0, 3.0]], 1.0, 1.0), ([0.0, float("nan")], 1.0, 1.0),
           ([0.0, float("inf")], 1.0, 1.0)]
    for args in bad:
        require(raises(sb, name, *args, g),
                f"{name} must raise ValueError when epsilon or sensitivity is not a positive finite number, or "
                "when utilities is empty, not one-dimensional, or holds a NaN or infinite value")


# ----------------------------------------------------------------------------- q4: report-noisy-max
q4_random = randomness("report_noisy_max", lambda g: (np.linspace(0.0, 3.0, 8), 1.0, 1.0, "gumbel", g, 50))


def q4_gumbel(sb, ctx):
    g = ctx.rng()
    name = "report_noisy_max"
    for label, u, sensitivity, epsilon in _families(sb, g):
        k = u.size
        p = em_probabilities(u, sensitivity, epsilon)
        many = _indices(sb.call(name, u, sensitivity, epsilon, "gumbel", _fresh(g), size=10_000), k, name, 10_000)
        what = f"{name} with Gumbel noise: 10,000 draws on {label} must follow the law of the exponential mechanism"
        chisquare_fits(np.bincount(many, minlength=k), p, what)
        _not_too_regular_counts(np.bincount(many, minlength=k), p, what)
        single = [int(_indices(sb.call(name, u, sensitivity, epsilon, "gumbel", rng=_fresh(g)), k, name)[0])
                  for _ in range(80)]
        _separate_calls_fit(single, p, f"{name} with Gumbel noise: 80 separate calls on {label} must follow the "
                                       "law of the exponential mechanism")


def q4_laplace(sb, ctx):
    g = ctx.rng()
    name = "report_noisy_max"
    k = int(g.integers(3, 9))
    sensitivity, epsilon = float(10 ** g.uniform(-1, 1)), float(10 ** g.uniform(-1, 0.5))
    families = [("hidden utilities", _hidden_utilities(g, k, sensitivity, epsilon), sensitivity, epsilon),
                ("whole-number utilities (counts) with ties and gaps, sensitivity 1", _whole_utilities(g, k), 1.0,
                 float(g.uniform(0.5, 2.0)))]
    u, quantile_sensitivity = _quantile_family(sb, g)
    families.append(("the utilities of your quantile_utility on a hidden dataset", u, quantile_sensitivity,
                     float(g.uniform(0.3, 1.0))))
    for label, u, sens, eps in families:
        p = laplace_max_probabilities(u, 2 * sens / eps)
        many = _indices(sb.call(name, u, sens, eps, "laplace", _fresh(g), size=20_000), u.size, name, 20_000)
        chisquare_fits(np.bincount(many, minlength=u.size), p,
                       f"{name} with Laplace noise on {label}: the winners do not follow the law of Laplace noise of "
                       "the scale that makes report-noisy-max epsilon-DP for every utility of that sensitivity")
        _not_too_regular_counts(np.bincount(many, minlength=u.size), p,
                                f"{name} with Laplace noise: 20,000 draws on {label}")


def q4_privacy(sb, ctx):
    g = ctx.rng()
    name = "report_noisy_max"
    sensitivity, epsilon = float(10 ** g.uniform(-1, 1)), float(g.uniform(0.5, 1.5))
    pairs = [(np.array([0.0, 0.0]), np.array([sensitivity, -sensitivity]), sensitivity,
              "neighbouring utilities (moved by the sensitivity in opposite directions)"),
             (np.array([3.0, 2.0, 0.0]), np.array([2.0, 3.0, 1.0]), 1.0,
              "whole-number neighbouring utilities (counts, sensitivity 1)")]
    for a, b, sens, label in pairs:
        k = a.size
        for noise in ("laplace", "gumbel"):
            draws_a = _indices(sb.call(name, a, sens, epsilon, noise, _fresh(g), size=12_000), k, name, 12_000)
            draws_b = _indices(sb.call(name, b, sens, epsilon, noise, _fresh(g), size=12_000), k, name, 12_000)
            privacy_holds(draws_a, draws_b, epsilon, np.arange(k + 1) - 0.5,
                          f"{name} with {noise.capitalize()} noise: {label}")
    for u, sens, eps in ((np.array([0.0, -0.3, -1.0, -2.0]) * 2 * sensitivity / epsilon, sensitivity, epsilon),
                         (np.array([3.0, 2.0, 2.0, 0.0]), 1.0, 1.0)):
        p_best = em_probabilities(u, sens, eps)[0]
        wins = [int(np.sum(_indices(sb.call(name, u, sens, eps, "gumbel", _fresh(g), size=60), 4, name, 60) == 0))
                for _ in range(100)]
        _wins_dispersion(wins, 60, p_best,
                         f"{name} with Gumbel noise: the best candidate's wins in 100 calls of 60 draws")
    q4_first_use(sb, ctx)


def q4_bad_input(sb, ctx):
    name = "report_noisy_max"
    g = ctx.rng()
    u = [0.0, 1.0, 2.0]
    for args in ((u, 1.0, 1.0, "cauchy"), (u, 1.0, 1.0, "Gumbel noise"), (u, 1.0, 0.0, "gumbel"),
                 (u, 1.0, float("nan"), "laplace"), (u, 0.0, 1.0, "laplace"), ([], 1.0, 1.0, "gumbel"),
                 ([0.0, float("nan")], 1.0, 1.0, "laplace")):
        require(raises(sb, name, *args, g),
                f"{name} must raise ValueError for a noise name other than 'gumbel' or 'laplace', and for the bad "
                "input of Question 3")


# ----------------------------------------------------------------------------- q5: the simulation
def _tempered(c: float) -> str:
    """A softmax at a temperature of the grader's choosing: not the exponential mechanism."""
    return (f"lambda utilities, sensitivity, epsilon, rng: (lambda w: int(np.searchsorted(np.cumsum(w), "
            f"rng.random() * w.sum(), side='right')))(np.exp({c!r} * epsilon / sensitivity * "
            f"(np.asarray(utilities, dtype=float) - np.max(np.asarray(utilities, dtype=float)))))")


def _biased(p: float) -> str:
    """The first best candidate with probability p, otherwise a uniformly random candidate."""
    return (f"lambda utilities, sensitivity, epsilon, rng: (lambda u: int(np.argmax(u)) if rng.random() < {p!r} "
            f"else int(rng.integers(len(u))))(np.asarray(utilities, dtype=float))")


def _accuracy(value, what: str) -> tuple[float, float]:
    array = as_array(value, what).ravel()
    require(array.size == 2, f"{what} must return two numbers: (fraction of trials that chose a best candidate, "
                             "average utility gap)")
    require(np.all(np.isfinite(array)), f"{what}: the answer has NaN or infinite values")
    return float(array[0]), float(array[1])


def _law_fits(p_best: float, gap: float, law: np.ndarray, u: np.ndarray, trials: int, what: str) -> None:
    best = u == u.max()
    gaps = u.max() - u
    share = float(law[best].sum())
    wins = p_best * trials
    require(abs(wins - round(wins)) < 1e-6 * trials, f"{what}: the first number must be a fraction of the trials")
    binomial_fits(int(round(wins)), trials, share,
                  f"{what}: the fraction of trials that chose a best candidate does not match the mechanism it was "
                  "given (call mechanism once per trial)")
    mean = float(law @ gaps)
    sd = np.sqrt(max(float(law @ gaps ** 2) - mean ** 2, 0.0) / trials)
    require(abs(gap - mean) <= 6 * sd + 1e-9 * (1 + gaps.max()),
            f"{what}: the average utility gap does not match the mechanism it was given (the gap of a trial is the "
            "best utility minus the utility of the chosen candidate)")


q5_random = randomness("selection_accuracy",
                       lambda g: (Expr(_tempered(0.7)), np.array([3.0, 1.0, 2.0, 0.0, 2.5]), 1.0, 1.0, 300, g))


def q5_deterministic(sb, ctx):
    g = ctx.rng()
    name = "selection_accuracy"
    k = int(g.integers(3, 12))
    u = np.round(g.uniform(-20, 20, k), 3)
    trials = int(g.integers(5, 60))
    worst = Expr("lambda utilities, sensitivity, epsilon, rng: int(np.argmin(utilities))")
    p_best, gap = _accuracy(sb.call(name, worst, u, 1.0, 1.0, trials, rng=_fresh(g)), name)
    require(p_best == 0 and np.isclose(gap, u.max() - u.min(), rtol=1e-9, atol=1e-9),
            f"{name}: with a mechanism that always picks the worst candidate the answer must be (0, best - worst)")
    best = Expr("lambda utilities, sensitivity, epsilon, rng: int(np.argmax(utilities))")
    p_best, gap = _accuracy(sb.call(name, best, u.tolist(), 1.0, 1.0, trials, _fresh(g)), name)
    require(p_best == 1 and abs(gap) < 1e-9,
            f"{name}: with a mechanism that always picks the best candidate the answer must be (1, 0)")


def q5_tempered(sb, ctx):
    g = ctx.rng()
    name = "selection_accuracy"
    k = int(g.integers(4, 15))
    u = g.integers(0, 12, k).astype(float)
    u[g.choice(k, 2, replace=False)] = u.max()  # two candidates tied for the best
    sensitivity, epsilon, c = float(g.uniform(0.5, 4)), float(g.uniform(0.2, 3)), float(g.uniform(0.2, 1.5))
    law = np.exp(c * epsilon / sensitivity * (u - u.max()))
    law /= law.sum()
    trials = 5_000  # one call of the grader's mechanism per trial, each a round trip to the grader
    p_best, gap = _accuracy(sb.call(name, Expr(_tempered(c)), u, sensitivity, epsilon, trials, g), name)
    _law_fits(p_best, gap, law, u, trials, f"{name} (a mechanism of the grader's)")


def q5_biased(sb, ctx):
    g = ctx.rng()
    name = "selection_accuracy"
    k = int(g.integers(3, 20))
    u = np.round(g.normal(0, 5, k), 2)
    p = float(g.uniform(0.1, 0.9))
    law = np.full(k, (1 - p) / k)
    law[int(np.argmax(u))] += p
    calls, trials = 200, 25  # one call of the grader's mechanism per trial, each a round trip
    wins, gaps = [], []
    for _ in range(calls):
        p_best, gap = _accuracy(sb.call(name, Expr(_biased(p)), u, 1.0, 1.0, trials, rng=_fresh(g)), name)
        require(abs(p_best * trials - round(p_best * trials)) < 1e-6,
                f"{name}: the first number must be a fraction of the trials")
        wins.append(int(round(p_best * trials)))
        gaps.append(gap)
    what = f"{name} (another mechanism of the grader's, rng passed by keyword, {calls} calls of {trials} trials)"
    _law_fits(sum(wins) / (calls * trials), float(np.mean(gaps)), law, u, calls * trials, what)
    _wins_vary_binomially(wins, trials, float(law[u == u.max()].sum()), what)


QUESTIONS = [
    Question("q1", ["quantile_utility", "quantile_sensitivity"], [
        Check("the quantile utility on hidden data and grids", 1.0, q1_utility),
        Check("the sensitivity of the quantile utility for hidden q", 1.0, q1_sensitivity)]),
    Question("q2", [], [], manual_points=2.0),  # written: rubric in book/assignments/masters/written_answers.md
    Question("q3", ["exponential_mechanism"], [
        Check("privacy on neighbouring utility vectors, real-valued and whole-number, and random selections on the "
              "first use of fresh utilities (each selection made once; a failure here voids the other checks of q3)",
              0.5, q3_privacy, statistical=True, gate=True, essential=True),
        Check("randomness drawn from rng", 0.5, q3_random, gate=True),
        Check("the exact law on hidden real-valued utilities, whole-number utilities with ties and gaps, and your "
              "quantile_utility's utilities on a hidden dataset, in one call and over separate calls", 1.0, q3_law,
              statistical=True),
        Check("epsilon = 1e6 with utilities near 1e6 and -1e6, ties, and epsilon = 1e-9", 1.0, q3_extremes,
              statistical=True),
        Check("independent draws across calls; the utilities left unchanged", 0.5, q3_independent,
              statistical=True),
        Check("bad input raises ValueError", 0.5, q3_bad_input)]),
    Question("q4", ["report_noisy_max"], [
        Check("privacy on neighbouring utilities, real-valued and whole-number; independent draws across calls; "
              "random selections on the first use of fresh utilities (each selection made once; a failure here voids "
              "the other checks of q4)", 0.5, q4_privacy, statistical=True, gate=True, essential=True),
        Check("randomness drawn from rng", 0.5, q4_random, gate=True),
        Check("Gumbel noise gives the exponential mechanism's law (real, whole-number and quantile utilities)", 1.0,
              q4_gumbel, statistical=True),
        Check("Laplace noise of the right scale: the law of its winners (real, whole-number and quantile "
              "utilities)", 0.75, q4_laplace, statistical=True),
        Check("bad input raises ValueError", 0.25, q4_bad_input)]),
    Question("q5", ["selection_accuracy"], [
        Check("runs the mechanism it is given: exact answers for mechanisms that always pick the worst or the "
              "best candidate", 0.5, q5_deterministic, gate=True),
        Check("randomness drawn from rng (through the mechanism it is given)", 0.5, q5_random, gate=True),
        Check("tracks a tempered mechanism of the grader's, with ties for the best", 1.0, q5_tempered,
              statistical=True),
        Check("tracks a biased mechanism of the grader's over separate calls (rng by keyword)", 1.0, q5_biased,
              statistical=True)]),
    Question("q6", [], [], manual_points=4.0),  # written proof: rubric in written_answers.md
    Question("q7", [], [], manual_points=3.0),  # written choice with a computation: rubric in written_answers.md
]

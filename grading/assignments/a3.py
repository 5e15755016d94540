"""Hidden checks of assignment 3 (thresholding and delta, beyond the chapter).

q1 and q2 are exact (the privacy curve of the thresholded histogram, against numerical integrals of the
privacy loss; the exact threshold when a person holds up to m categories, with a target delta drawn between
the deltas of two consecutive thresholds); q3 is the contribution-bounded histogram, tested for behaviour
(law of the noise at the derived scale, also on the first release of fresh datasets, independent draws,
last digits free of the counts, the bounding, the release rule); q4 is a simulation run on noise samplers
of the grader's own (scales drawn per run, evaluated in the grading process, which also counts the sizes
they are called with); q5 is an optimisation checked by its objective against a grid the grader searches.
"""

from __future__ import annotations

import secrets

import numpy as np
from scipy import integrate, optimize, stats

from ..checks import (
    Check,
    Question,
    as_array,
    as_float,
    binomial_fits,
    close,
    coupled_additive,
    first_calls,
    ks_fits,
    laplace_cdf,
    low_bits_same_law,
    not_too_regular,
    raises,
    reproducible_and_random,
    require,
)
from ..sandbox import Expr

NAME = "a3_thresholding"


# ---------------------------------------------------------------- reference quantities
def release(count, threshold, scale):
    """P[count + Lap(scale) >= threshold]."""
    gap = np.asarray(threshold, dtype=float) - np.asarray(count, dtype=float)
    upper = 0.5 * np.exp(-np.abs(gap) / scale)
    return np.where(gap >= 0, upper, 1.0 - upper)


def _existing_delta(eps_prime, epsilon):
    """The delta at eps_prime of one Laplace(1/epsilon) count moved by one: the integral of
    (f_1 - e^eps_prime f_0)_+ over the line, by quadrature (f_c the density centred at c); the integrand
    changes sign where the privacy loss eps (|x| - |x - 1|) reaches eps_prime, found numerically."""
    if eps_prime >= epsilon:
        return 0.0
    scale = 1.0 / epsilon
    loss = lambda x: epsilon * (abs(x) - abs(x - 1.0)) - eps_prime  # noqa: E731
    start = optimize.brentq(loss, 0.0, 1.0, xtol=1e-15, rtol=1e-15)

    def gap(x):
        return stats.laplace.pdf(x, 1.0, scale) - np.exp(eps_prime) * stats.laplace.pdf(x, 0.0, scale)

    inner = integrate.quad(gap, start, 1.0, epsabs=1e-14, epsrel=1e-12)[0]
    outer = integrate.quad(gap, 1.0, np.inf, epsabs=1e-14, epsrel=1e-12)[0]
    return inner + outer


def curve_points(eps_prime, epsilon, threshold):
    """The smallest delta at each eps_prime: the larger of a newcomer's category being released
    (P[1 + Laplace(1/epsilon) >= T]) and the integral above (a pair is of one kind only)."""
    new = float(stats.laplace.sf(threshold - 1.0, scale=1.0 / epsilon))
    return np.array([max(new, _existing_delta(float(e), epsilon)) for e in np.ravel(eps_prime)])


def bounded_delta(threshold, epsilon, m):
    """P[at least one of m new singleton categories is released] at scale m / epsilon."""
    p = stats.laplace.sf(np.asarray(threshold, dtype=float) - 1.0, scale=m / epsilon)
    return stats.binom.sf(0, m, p)


def split_error(eps_count, epsilon, delta, count, total, V):
    eps_count = np.asarray(eps_count, dtype=float)
    threshold = 1.0 + np.log(1.0 / (2.0 * delta)) / eps_count
    p = release(count, threshold, 1.0 / eps_count)
    return p * 2.0 * V**2 / (epsilon - eps_count) ** 2 + (1.0 - p) * total**2


def _integer(value, what):
    require(not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer)),
            f"{what} must be an integer (a Python int or a NumPy integer)")
    return int(value)


# ---------------------------------------------------------------- q1 privacy_curve
def q1_public(sb, ctx):
    close(sb.call("privacy_curve", np.log(3), np.log(3), 5), 1 / 162,
          "privacy_curve at the public example (epsilon' = epsilon = ln 3, T = 5)")
    close(sb.call("privacy_curve", 0.0, np.log(3), 5), curve_points(0.0, np.log(3), 5)[0],
          "privacy_curve at the public example (epsilon' = 0, epsilon = ln 3, T = 5)", rtol=1e-8)


def q1_values(sb, ctx):
    g = ctx.rng()
    for _ in range(3):
        epsilon = float(g.uniform(0.2, 2.5))
        threshold = float(np.round(g.uniform(1.0, 12.0), 2))
        eps_prime = np.sort(np.concatenate([[0.0, epsilon, 1.7 * epsilon], g.uniform(0, 2 * epsilon, 5)]))
        got = as_array(sb.call("privacy_curve", eps_prime, epsilon, threshold), "privacy_curve")
        what = "privacy_curve on an array of epsilon' from 0 to 2 epsilon, other epsilons and thresholds"
        require(got.shape == eps_prime.shape, f"{what}: the result has the wrong shape")
        require(np.all(np.diff(got) <= 1e-15) and np.all(got > 0) and np.all(got < 1),
                f"{what}: the smallest delta lies in (0, 1) and never increases with epsilon'")
        close(got, curve_points(eps_prime, epsilon, threshold), what, rtol=1e-8)
    epsilon = float(g.uniform(0.5, 2.0))
    close(sb.call("privacy_curve", eps_prime=np.float64(0.3 * epsilon), epsilon=np.float64(epsilon),
                  threshold=np.int64(3)),
          curve_points(0.3 * epsilon, epsilon, 3)[0], "privacy_curve of NumPy numbers, called by keyword", rtol=1e-8)
    require(raises(sb, "privacy_curve", 0.5, 1.0, 0.5), "privacy_curve must raise ValueError for a threshold below 1")
    require(raises(sb, "privacy_curve", -0.1, 1.0, 3), "privacy_curve must raise ValueError for a negative epsilon'")
    require(raises(sb, "privacy_curve", 0.5, 0.0, 3), "privacy_curve must raise ValueError for epsilon <= 0")


# ---------------------------------------------------------------- q2 bounded_threshold
def _target_between(g, epsilon, m, low, high):
    """(target delta, its threshold t): an integer t drawn so that the interval of deltas it answers,
    (delta(t), delta(t - 1)], meets [10^low, 10^high] (log-uniform point, bisection on integers), and the
    target at the middle of that interval on a log scale. No target is ever near the delta of an integer
    threshold, so the answer is t, whatever the rounding of a careful formula (no search of the grader's
    decides it)."""
    point = float(10 ** g.uniform(low, high))
    lo, hi = 1, 2
    if bounded_delta(1, epsilon, m) <= point:
        return float(np.sqrt(bounded_delta(1, epsilon, m))), 1  # between delta(1) and 1
    while bounded_delta(hi, epsilon, m) > point:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # delta(lo) > point >= delta(hi)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if bounded_delta(mid, epsilon, m) <= point else (mid, hi)
    return float(np.sqrt(bounded_delta(hi, epsilon, m) * bounded_delta(hi - 1, epsilon, m))), hi


def q2_cases(g):
    """The five (epsilon, m, log10 range of delta) of a run: large deltas with m up to 1,000, small deltas
    with m at most 25 epsilon (consecutive thresholds' deltas then at least 4 % apart), and m = 1."""
    small_eps = float(g.uniform(0.2, 3.0))
    return [(float(g.uniform(0.3, 2.0)), int(g.integers(2, 30)), -0.3, -0.05),  # large delta: bound is loose
            (float(g.uniform(0.3, 2.0)), int(g.integers(2, 30)), -0.5, -0.1),
            (float(g.uniform(0.2, 3.0)), int(g.integers(30, 1001)), -0.5, -0.05),
            (small_eps, int(g.integers(2, max(3, int(25 * small_eps)) + 1)), -12, -3),
            (float(g.uniform(0.2, 3.0)), 1, -9, -1)]


def q2_values(sb, ctx):
    g = ctx.rng()
    for epsilon, m, low, high in q2_cases(g):
        target, want = _target_between(g, epsilon, m, low, high)
        got = _integer(sb.call("bounded_threshold", target, epsilon, m), "bounded_threshold")
        require(got == want, "bounded_threshold is not the smallest integer threshold for which the mechanism is "
                             "(epsilon, delta)-DP (with up to m categories per person; m = 1 must give the "
                             "chapter's thresholds)")
    require(sb.call("bounded_threshold", delta=0.9, epsilon=1.0, m=np.int64(3)) == 1,
            "bounded_threshold for a large delta (try delta = 0.9, epsilon = 1, m = 3), called by keyword")
    require(raises(sb, "bounded_threshold", 0.0, 1.0, 2) and raises(sb, "bounded_threshold", 1.0, 1.0, 2),
            "bounded_threshold must raise ValueError unless 0 < delta < 1")
    require(raises(sb, "bounded_threshold", 0.01, 1.0, 0) and raises(sb, "bounded_threshold", 0.01, 1.0, 2.5),
            "bounded_threshold must raise ValueError unless m is a positive integer")
    require(raises(sb, "bounded_threshold", 0.01, -1.0, 2), "bounded_threshold must raise ValueError for epsilon <= 0")


# ---------------------------------------------------------------- q3 bounded_thresholded_histogram
def _values(out, names, what):
    require(isinstance(out, dict) and set(out) == set(names),
            f"{what} must release every category that occurs (after bounding) when the threshold is very low")
    return np.array([float(out[n]) for n in names])


def q3_behaviour(sb, ctx):
    # 2,000 categories per call, each held by 2 (or 3) people listing it once: the noise values of one
    # call must be independent draws at the derived scale, and the last digits must not depend on the counts
    g = ctx.rng()
    epsilon, m = 1.0, 2
    names = [f"k{i:04d}" for i in range(2000)]
    people2 = [[name] for name in names for _ in range(2)]
    people3 = [[name] for name in names for _ in range(3)]
    out2 = _values(sb.call("bounded_thresholded_histogram", people2, m, epsilon, -1e9, g), names,
                   "bounded_thresholded_histogram")
    out3 = _values(sb.call("bounded_thresholded_histogram", people3, m, epsilon, -1e9, g), names,
                   "bounded_thresholded_histogram")
    not_too_regular(out2 - 2, laplace_cdf(m / epsilon), "bounded_thresholded_histogram")
    low_bits_same_law(out2, out3, "bounded_thresholded_histogram on counts of 2 and of 3")
    # the same generator state on two datasets with the same categories (counts from 3 to 100,000): the noisy
    # counts differ by exactly the difference of the counts, and no count is released exact
    sizes = np.unique(np.concatenate([np.round(10 ** g.uniform(0.5, 2.0, 24)),
                                      np.round(10 ** g.uniform([2.0, 3.0, 4.0], [3.0, 4.0, 5.0]))]).astype(int))
    cats = [f"c{i:03d}" for i in range(sizes.size)]
    shift = (np.arange(sizes.size) % 2 == 0).astype(int)  # one person fewer in every other category
    people_x = [[c] for c, s in zip(cats, sizes, strict=True) for _ in range(int(s))]
    people_y = [[c] for c, s in zip(cats, sizes - shift, strict=True) for _ in range(int(s))]
    seed = int(g.integers(2**62))
    x = _values(sb.call("bounded_thresholded_histogram", people_x, m, epsilon, -1e9, np.random.default_rng(seed)),
                cats, "bounded_thresholded_histogram")
    y = _values(sb.call("bounded_thresholded_histogram", people_y, m, epsilon, -1e9,
                        rng=np.random.default_rng(seed)), cats, "bounded_thresholded_histogram")
    require(np.all(x != sizes), "bounded_thresholded_histogram must add noise to every count, small or large "
                                "(try a count of 30,000)")
    coupled_additive(x, y, shift.astype(float), "bounded_thresholded_histogram")


def q3_random(sb, ctx):
    people = [["a", "b"]] * 30 + [["b"]] * 7 + [["c", "a", "d"]] * 2

    def released(gen):
        out = sb.call("bounded_thresholded_histogram", people, 2, 1.0, -100.0, gen)
        require(isinstance(out, dict), "bounded_thresholded_histogram must return a dict")
        return np.array([float(out.get(k, np.nan)) for k in "abcd"])

    seed = int(ctx.rng().integers(2**62))
    first, again = released(np.random.default_rng(seed)), released(np.random.default_rng(seed))
    require(np.array_equal(first, again, equal_nan=True),
            "bounded_thresholded_histogram: the same generator state must give the same release")
    require(not np.array_equal(first, released(np.random.default_rng(seed + 1)), equal_nan=True),
            "bounded_thresholded_histogram: the noise must be random")


# ---------------------------------------------------------------- first use (q3)
# 48 fresh datasets of 3 to 15 categories held by 1 to about 300 people each, each released once by a fresh copy
# of the notebook with a generator of its own: a mechanism exact the first time it sees a dataset (and honest on
# the repeated calls of the other checks) is seen as it would be used, where every dataset is released once.
FIRST_USE_CALLS = 48
CENTRE = 0.25  # P[|L| < 0.25] = 1 - e^-0.25 = 0.221 for a standard Laplace L


def q3_first_use(sb, ctx):
    g = ctx.rng()
    arguments, datasets = [], []
    for i in range(FIRST_USE_CALLS):
        k = int(g.integers(3, 16))
        counts = np.round(10 ** g.uniform(0.0, 2.5, k)).astype(int)
        names = [f"d{i}x{int(v)}" for v in g.choice(10**6, size=k, replace=False)]
        m, epsilon = int(g.integers(1, 4)), float(np.round(g.uniform(0.5, 2.0), 3))
        people = [[name] for name, c in zip(names, counts, strict=True) for _ in range(int(c))]
        people = [people[j] for j in g.permutation(len(people))]
        threshold = -float(np.round(g.uniform(100, 1000), 2))
        if i % 2:
            arguments.append(((), dict(people=people, m=m, epsilon=epsilon, threshold=threshold, rng=ctx.rng())))
        else:
            arguments.append(((people, m, epsilon, threshold, ctx.rng()), {}))
        datasets.append((names, counts, m / epsilon))
    what = ("bounded_thresholded_histogram on its first use (48 fresh datasets of 3 to 15 categories, each released "
            "once by a fresh copy of your notebook)")
    noise = []
    for (names, counts, scale), out in zip(datasets, first_calls(sb, "bounded_thresholded_histogram", arguments),
                                           strict=True):
        noise.extend((_values(out, names, what) - counts) / scale)
    noise = np.array(noise)
    require(np.all(np.isfinite(noise)), f"{what}: the output has NaN or infinite values")
    binomial_fits(int(np.sum(np.abs(noise) < CENTRE)), noise.size, 1 - np.exp(-CENTRE),
                  f"{what}: the share of noisy counts within a quarter of the scale of the counts (every release "
                  "must carry its own Laplace noise, the first one for a dataset too)")
    ks_fits(noise, laplace_cdf(1.0), f"{what}: the noise in units of the scale")


def q3_law(sb, ctx):
    # people list more than m items, with repeats: only the first m distinct ones count; the noise scale
    # must be the one that makes counts present in both datasets epsilon-DP
    g = ctx.rng()
    m, epsilon = int(g.integers(2, 5)), float(np.round(g.uniform(0.5, 2.0), 3))
    first = [f"x{j}" for j in range(m)]
    people = ([first[:1] * 2 + first[1:] + ["late"] + first] * 40  # repeats, then an item beyond the m-th
              + [["y"] + ["y"] * 3] * 15 + [["z", "y"]] * 5)
    counts = {**{name: 40 for name in first}, "y": 20, "z": 5}
    noise = []
    for i in range(150):
        kwargs = dict(people=people, m=m, epsilon=epsilon, threshold=-1e9, rng=g)
        out = sb.call("bounded_thresholded_histogram", **kwargs) if i % 2 else \
            sb.call("bounded_thresholded_histogram", people, np.int64(m), np.float64(epsilon), -1e9, g)
        require(isinstance(out, dict) and set(out) == set(counts),
                "bounded_thresholded_histogram must count only the first m distinct items of each person (each "
                "at most once) and release exactly the categories that then occur, when the threshold is very low")
        noise.extend(float(out[k]) - c for k, c in counts.items())
    ks_fits(np.array(noise), laplace_cdf(m / epsilon),
            "bounded_thresholded_histogram: the noisy counts around the bounded counts (noise scale derived from "
            "m and epsilon)")
    require(raises(sb, "bounded_thresholded_histogram", people, 0, 1.0, 5.0, g),
            "bounded_thresholded_histogram must raise ValueError for m < 1")
    q3_first_use(sb, ctx)


def q3_threshold(sb, ctx):
    # a category held by one person is released with probability P[1 + noise >= T]: an exact binomial test
    g = ctx.rng()
    m, epsilon, threshold = 3, 1.0, 2.5
    people = [["a", "b", "c"]] * 20 + [["solo", "a"]]
    kept = 0
    trials = 600
    for _ in range(trials):
        out = sb.call("bounded_thresholded_histogram", people, m, epsilon, threshold, g)
        require(isinstance(out, dict), "bounded_thresholded_histogram must return a dict")
        require(all(float(v) >= threshold for v in out.values()), "released noisy counts must reach the threshold")
        kept += "solo" in out
    binomial_fits(kept, trials, float(release(1, threshold, m / epsilon)),
                  "bounded_thresholded_histogram: the release rule for a category held by one person")


# ---------------------------------------------------------------- q4 simulate_total_error
def laplace_sampler(scale: float) -> Expr:
    return Expr(f"lambda size, rng: rng.laplace(0.0, {scale!r}, size=size)")


_SIZES: dict[str, list[int]] = {}  # the sizes each recording sampler was called with (grading process only)


def _recording(token: str, scale: float):
    """A Laplace sampler that notes the number of values of every call under ``token``. It is built and
    runs in the grading process (the Expr below imports it there), so the notebook cannot alter the count."""
    sizes = _SIZES.setdefault(token, [])

    def sampler(size, rng):
        sizes.append(1 if size is None else int(np.prod(size)))
        return rng.laplace(0.0, scale, size=size)

    return sampler


def recording_sampler(scale: float) -> tuple[str, Expr]:
    token = secrets.token_hex(8)
    return token, Expr(f"__import__('grading.assignments.a3', fromlist=['_recording'])._recording({token!r}, "
                       f"{scale!r})")


def _sizes_add_up(tokens, trials):
    drawn = [sum(_SIZES.pop(token, [])) for token in tokens]
    require(all(n == trials for n in drawn),
            "simulate_total_error must call each sampler with sizes that add up to num_trials (one call of size "
            "num_trials each, or batches whose sizes add up to it): num_trials count noises and num_trials total "
            "noises")


def _simulate_recorded(sb, args, kwargs, b_count, b_total, trials):
    """simulate_total_error with recording samplers of scales b_count and b_total (added by position after
    ``args``, or by keyword when ``kwargs`` is given), then the test that each drew num_trials values."""
    (count_token, count_sampler), (total_token, total_sampler) = recording_sampler(b_count), recording_sampler(b_total)
    try:
        if kwargs:
            got = sb.call("simulate_total_error", **kwargs, count_noise=count_sampler, total_noise=total_sampler)
        else:
            got = sb.call("simulate_total_error", *args, count_sampler, total_sampler)
        got = as_float(got, "simulate_total_error")
    except BaseException:
        _SIZES.pop(count_token, None), _SIZES.pop(total_token, None)
        raise
    _sizes_add_up((count_token, total_token), trials)
    return got


def _error_law(count, total, threshold, b_count, b_total):
    p = float(release(count, threshold, b_count))
    mean = p * 2 * b_total**2 + (1 - p) * total**2
    second = p * 24 * b_total**4 + (1 - p) * total**4
    return mean, second - mean**2


def _error_fits(got, trials, count, total, threshold, b_count, b_total, what):
    mean, var = _error_law(count, total, threshold, b_count, b_total)
    require(np.isfinite(got) and abs(got - mean) <= 5.5 * np.sqrt(var / trials), what)


def q4_other_samplers(sb, ctx):
    g = ctx.rng()
    b_count = round(float(g.uniform(0.5, 3.0)), 4)
    b_total = round(float(g.uniform(5.0, 40.0)), 4)
    count, total = int(g.integers(3, 8)), round(float(g.uniform(50, 300)), 2)
    threshold = round(count + float(g.uniform(-1.5, 1.5)), 3)
    trials = 100_000
    got = _simulate_recorded(sb, (count, total, threshold, trials, g), None, b_count, b_total, trials)
    _error_fits(got, trials, count, total, threshold, b_count, b_total,
                "simulate_total_error must draw every count noise and every total noise from the samplers it is "
                "given: with samplers of the grader's the error does not match theirs")


def q4_random(sb, ctx):
    reproducible_and_random(sb, "simulate_total_error",
                            lambda gen: (4, 100.0, 4.0, 500, gen, laplace_sampler(1.0), laplace_sampler(10.0)),
                            ctx, "simulate_total_error")


def q4_keyword(sb, ctx):
    g = ctx.rng()
    count, total, threshold, trials = 10, 400.0, 12.0, 100_000
    b_count, b_total = 1.5, 25.0
    got = _simulate_recorded(sb, (), dict(count=count, total=total, threshold=threshold, num_trials=trials, rng=g),
                             b_count, b_total, trials)
    _error_fits(got, trials, count, total, threshold, b_count, b_total,
                "simulate_total_error called by keyword (count 10, total 400, threshold 12): the mean squared error "
                "does not match the samplers' law")


# ---------------------------------------------------------------- q5 best_split
def _split_ok(got, epsilon, delta, count, total, V):
    """The error at the returned split is no larger than the error 2e-6 epsilon away from the grid's
    minimiser: a grid of 20,001 points, then 4,001 points between the neighbours of its best point (spacing
    2.5e-8 epsilon). The objective is the exact expected squared error; no minimiser's answer is compared."""
    if not (0 < got < epsilon):
        return False
    grid = np.linspace(epsilon * 1e-4, epsilon * (1 - 1e-4), 20001)
    i = int(np.argmin(split_error(grid, epsilon, delta, count, total, V)))
    fine = np.linspace(grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)], 4001)
    errors = split_error(fine, epsilon, delta, count, total, V)
    best = float(fine[int(np.argmin(errors))])
    around = np.clip([best - 2e-6 * epsilon, best + 2e-6 * epsilon], grid[0], grid[-1])
    allowed = max(float(np.max(split_error(around, epsilon, delta, count, total, V))), float(np.min(errors)))
    return float(split_error(got, epsilon, delta, count, total, V)) <= allowed * (1 + 1e-12)


def q5_public(sb, ctx):
    got = as_float(sb.call("best_split", 1.0, 1e-6, 50, 2500.0, 100.0), "best_split")
    require(_split_ok(got, 1.0, 1e-6, 50, 2500.0, 100.0),
            "best_split at the public example (epsilon 1, delta 1e-6, 50 buyers, total 2500, V = 100)")


def q5_values(sb, ctx):
    g = ctx.rng()
    for i in range(4):
        epsilon, delta = float(g.uniform(0.5, 3.0)), float(10 ** g.uniform(-8, -3))
        V = float(g.uniform(10, 200))
        count = int(g.integers(15, 120))
        total = float(count * V * g.uniform(0.2, 0.8))
        args = (epsilon, delta, count, total, V)
        got = as_float(sb.call("best_split", *args) if i % 2 else
                       sb.call("best_split", epsilon=epsilon, delta=delta, count=np.int64(count),
                               total=np.float64(total), V=V), "best_split")
        require(_split_ok(got, *args), "best_split does not return the budget for the count that minimises the "
                                       "expected squared error of the published total (within 1e-6)")
    require(raises(sb, "best_split", 1.0, 0.6, 50, 2500.0, 100.0), "best_split must raise ValueError unless 0 < delta < 1/2")
    require(raises(sb, "best_split", 0.0, 1e-6, 50, 2500.0, 100.0), "best_split must raise ValueError for epsilon <= 0")


QUESTIONS = [
    Question("q1", ["privacy_curve"], [
        Check("the curve at the public examples", 0.5, q1_public, public=True),
        Check("the curve on arrays of epsilon' for other epsilons and thresholds; NumPy numbers; bad input raises",
              2.5, q1_values)]),
    Question("q2", ["bounded_threshold"], [
        Check("the smallest integer threshold with the exact delta for m categories per person; bad input raises",
              3.0, q2_values)]),
    Question("q3", ["bounded_thresholded_histogram"], [
        Check("independent noise draws whose last digits do not depend on the counts", 0.75, q3_behaviour,
              statistical=True, gate=True, essential=True),
        Check("randomness drawn from rng", 0.25, q3_random, gate=True, essential=True),
        Check("contribution bounding and the law of the noisy counts (scale derived from m and epsilon), also on "
              "the first release of fresh datasets (each released once)", 1.5, q3_law, statistical=True,
              essential=True),
        Check("a category of one person is released with the probability of its noisy count reaching T", 1.0,
              q3_threshold, statistical=True, essential=True)]),
    Question("q4", ["simulate_total_error"], [
        Check("the simulation draws num_trials values from each sampler it is given (samplers of the grader's)",
              1.5, q4_other_samplers, statistical=True, gate=True),
        Check("simulation draws from rng", 0.25, q4_random),
        Check("the error at a stated setting (keyword call)", 0.75, q4_keyword, statistical=True)]),
    Question("q5", ["best_split"], [
        Check("the best split at the public example", 0.5, q5_public, public=True),
        Check("the best split at other settings; bad input raises", 2.5, q5_values)]),
    # written answers: model answers in the master, rubrics in book/assignments/masters/written_answers.md
    Question("q6", [], [], manual_points=5.0),
    Question("q7", [], [], manual_points=4.0),
]

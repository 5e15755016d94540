"""Hidden checks of assignment 3 (thresholding and delta, beyond the chapter).

q1 and q2 are exact (the privacy curve of the thresholded histogram; the exact threshold when a person
holds up to m categories); q3 is the contribution-bounded histogram, tested for behaviour (law of the
noise at the derived scale, independent draws, last digits free of the counts, the bounding, the release
rule); q4 is a simulation run on noise samplers of the grader's own (scales drawn per run, evaluated in
the grading process); q5 is an optimisation checked against the grader's own minimiser.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from ..checks import (
    Check,
    Question,
    as_float,
    binomial_fits,
    close,
    coupled_additive,
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


def curve(eps_prime, epsilon, threshold):
    eps_prime = np.asarray(eps_prime, dtype=float)
    existing = np.where(eps_prime < epsilon, -np.expm1(-(epsilon - eps_prime) / 2), 0.0)
    return np.maximum(0.5 * np.exp(-epsilon * (threshold - 1.0)), existing)


def bounded_delta(threshold, epsilon, m):
    p = 0.5 * np.exp(-epsilon * (np.asarray(threshold, dtype=float) - 1.0) / m)
    return -np.expm1(m * np.log1p(-p))


def smallest_bounded_threshold(delta, epsilon, m):
    p_star = -np.expm1(np.log1p(-delta) / m)
    t = max(1, int(np.ceil(1 + (m / epsilon) * np.log(1 / (2 * p_star)))))
    while t > 1 and bounded_delta(t - 1, epsilon, m) <= delta:
        t -= 1
    while bounded_delta(t, epsilon, m) > delta:
        t += 1
    return t


def split_error(eps_count, epsilon, delta, count, total, V):
    eps_count = np.asarray(eps_count, dtype=float)
    threshold = 1.0 + np.log(1.0 / (2.0 * delta)) / eps_count
    p = release(count, threshold, 1.0 / eps_count)
    return p * 2.0 * V**2 / (epsilon - eps_count) ** 2 + (1.0 - p) * total**2


def best_split_reference(epsilon, delta, count, total, V):
    grid = np.linspace(epsilon * 1e-4, epsilon * (1 - 1e-4), 20001)
    i = int(np.argmin(split_error(grid, epsilon, delta, count, total, V)))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    result = optimize.minimize_scalar(lambda x: float(split_error(x, epsilon, delta, count, total, V)),
                                      bounds=(lo, hi), method="bounded", options={"xatol": 1e-13})
    return float(result.x)


def _integer(value, what):
    require(not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer)),
            f"{what} must be an integer (a Python int or a NumPy integer)")
    return int(value)


# ---------------------------------------------------------------- q1 privacy_curve
def q1_public(sb, ctx):
    close(sb.call("privacy_curve", np.log(3), np.log(3), 5), 1 / 162,
          "privacy_curve at the public example (epsilon' = epsilon = ln 3, T = 5)")
    close(sb.call("privacy_curve", 0.0, np.log(3), 5), curve(0.0, np.log(3), 5),
          "privacy_curve at the public example (epsilon' = 0, epsilon = ln 3, T = 5)")


def q1_values(sb, ctx):
    g = ctx.rng()
    for _ in range(3):
        epsilon = float(g.uniform(0.2, 2.5))
        threshold = float(np.round(g.uniform(1.0, 12.0), 2))
        eps_prime = np.sort(np.concatenate([[0.0, epsilon, 1.7 * epsilon], g.uniform(0, 2 * epsilon, 5)]))
        close(sb.call("privacy_curve", eps_prime, epsilon, threshold), curve(eps_prime, epsilon, threshold),
              "privacy_curve on an array of epsilon' from 0 to 2 epsilon, other epsilons and thresholds", rtol=1e-8)
    epsilon = float(g.uniform(0.5, 2.0))
    close(sb.call("privacy_curve", eps_prime=np.float64(0.3 * epsilon), epsilon=np.float64(epsilon),
                  threshold=np.int64(3)),
          curve(0.3 * epsilon, epsilon, 3), "privacy_curve of NumPy numbers, called by keyword", rtol=1e-8)
    require(raises(sb, "privacy_curve", 0.5, 1.0, 0.5), "privacy_curve must raise ValueError for a threshold below 1")
    require(raises(sb, "privacy_curve", -0.1, 1.0, 3), "privacy_curve must raise ValueError for a negative epsilon'")
    require(raises(sb, "privacy_curve", 0.5, 0.0, 3), "privacy_curve must raise ValueError for epsilon <= 0")


# ---------------------------------------------------------------- q2 bounded_threshold
def _away_from_boundary(g, epsilon, m, low, high):
    """A target delta drawn log-uniformly, not within 2 % of the delta of an integer threshold (so that a
    formula computed without log1p/expm1 is not at the mercy of rounding)."""
    target = float(10 ** g.uniform(low, high))
    for _ in range(200):  # where neighbouring thresholds' deltas are all within 2 %, no target is away
        t = smallest_bounded_threshold(target, epsilon, m)
        if all(abs(bounded_delta(s, epsilon, m) / target - 1) > 0.02 for s in (t - 1, t) if s >= 1):
            return target
        target = float(10 ** g.uniform(low, high))
    return target


def q2_values(sb, ctx):
    g = ctx.rng()
    cases = [(float(g.uniform(0.3, 2.0)), int(g.integers(2, 30)), -0.3, -0.05),  # large delta: bound is loose
             (float(g.uniform(0.3, 2.0)), int(g.integers(2, 30)), -0.5, -0.1),
             (float(g.uniform(0.2, 3.0)), int(g.integers(30, 1000)), -0.5, -0.05),
             (float(g.uniform(0.2, 3.0)), int(g.integers(2, 50)), -12, -3),
             (float(g.uniform(0.2, 3.0)), 1, -9, -1)]
    for epsilon, m, low, high in cases:
        target = _away_from_boundary(g, epsilon, m, low, high)
        got = _integer(sb.call("bounded_threshold", target, epsilon, m), "bounded_threshold")
        want = smallest_bounded_threshold(target, epsilon, m)
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
    # 2,000 categories per call, each held by 30 (or 31) people listing it once: the noise values of one
    # call must be independent draws at the derived scale, and the last digits must not depend on the counts
    g = ctx.rng()
    epsilon, m = 1.0, 2
    names = [f"k{i:04d}" for i in range(2000)]
    people30 = [[name] for name in names for _ in range(30)]
    people31 = [[name] for name in names for _ in range(31)]
    out30 = _values(sb.call("bounded_thresholded_histogram", people30, m, epsilon, -1e9, g), names,
                    "bounded_thresholded_histogram")
    out31 = _values(sb.call("bounded_thresholded_histogram", people31, m, epsilon, -1e9, g), names,
                    "bounded_thresholded_histogram")
    not_too_regular(out30 - 30, laplace_cdf(m / epsilon), "bounded_thresholded_histogram")
    low_bits_same_law(out30, out31, "bounded_thresholded_histogram on counts of 30 and of 31")
    # the same generator state on two datasets with the same categories (counts of every size): the noisy
    # counts differ by exactly the difference of the counts, and no count is released exact
    sizes = np.unique(np.round(10 ** g.uniform(0.5, 4.5, 60)).astype(int))
    cats = [f"c{i:03d}" for i in range(sizes.size)]
    shift = np.where(np.arange(sizes.size) % 2 == 0, 1, -1) * (np.arange(sizes.size) % 2 == 0)
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
    got = as_float(sb.call("simulate_total_error", count, total, threshold, trials, g,
                           laplace_sampler(b_count), laplace_sampler(b_total)), "simulate_total_error")
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
    got = as_float(sb.call("simulate_total_error", count=count, total=total, threshold=threshold,
                           num_trials=trials, rng=g, count_noise=laplace_sampler(b_count),
                           total_noise=laplace_sampler(b_total)), "simulate_total_error")
    _error_fits(got, trials, count, total, threshold, b_count, b_total,
                "simulate_total_error called by keyword (count 10, total 400, threshold 12): the mean squared error "
                "does not match the samplers' law")


# ---------------------------------------------------------------- q5 best_split
def _split_ok(got, epsilon, delta, count, total, V):
    want = best_split_reference(epsilon, delta, count, total, V)
    if not (0 < got < epsilon):
        return False
    return abs(got - want) <= 2e-6 * epsilon or \
        split_error(got, epsilon, delta, count, total, V) <= split_error(want, epsilon, delta, count, total, V) * (
            1 + 1e-12)


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
        Check("contribution bounding and the law of the noisy counts (scale derived from m and epsilon)", 1.5,
              q3_law, statistical=True, essential=True),
        Check("a category of one person is released with the probability of its noisy count reaching T", 1.0,
              q3_threshold, statistical=True, essential=True)]),
    Question("q4", ["simulate_total_error"], [
        Check("the simulation draws from the samplers it is given (samplers of the grader's)", 1.5,
              q4_other_samplers, statistical=True, gate=True),
        Check("simulation draws from rng", 0.25, q4_random),
        Check("the error at a stated setting (keyword call)", 0.75, q4_keyword, statistical=True)]),
    Question("q5", ["best_split"], [
        Check("the best split at the public example", 0.5, q5_public, public=True),
        Check("the best split at other settings; bad input raises", 2.5, q5_values)]),
    # written answers: model answers in the master, rubrics in book/assignments/masters/written_answers.md
    Question("q6", [], [], manual_points=5.0),
    Question("q7", [], [], manual_points=4.0),
]

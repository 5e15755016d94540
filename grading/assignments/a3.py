"""Hidden checks of assignment 3 (thresholding and delta).

The simulation runs on samplers of the grader's own (a rescaled Laplace, scale drawn per run);
the thresholded histogram is tested for behaviour on many categories (independent noise draws,
last digits that do not depend on the counts, the release rule); the attack runs on a mechanism of
the grader's whose release probability is drawn per run.
"""

from __future__ import annotations

import numpy as np

from ..checks import (
    Check,
    Question,
    as_array,
    as_float,
    binomial_fits,
    close,
    coupled_additive,
    ks_fits,
    laplace_cdf,
    low_bits_same_law,
    not_too_regular,
    reproducible_and_random,
    require,
)
from ..sandbox import Expr

NAME = "a3_thresholding"


def delta(threshold, epsilon, scale_factor=1.0):
    excess = np.asarray(threshold, dtype=float) - 1.0
    upper = 0.5 * np.exp(-epsilon * np.abs(excess) / scale_factor)
    return np.where(excess >= 0, upper, 1.0 - upper)


def smallest_threshold(target, epsilon):
    t = 1
    while delta(t, epsilon) > target:
        t += 1
    return t


def _integer(value, what):
    require(not isinstance(value, bool) and isinstance(value, (int, np.integer)),
            f"{what} must be an integer (a Python int or a NumPy integer)")
    return int(value)


def _boolean(value, what):
    require(isinstance(value, (bool, np.bool_)), f"{what} must be True or False")
    return bool(value)


def q1_public(sb, ctx):
    close(sb.call("threshold_delta", 5, np.log(3)), 1 / 162, "threshold_delta at the public example T = 5")


def q1_values(sb, ctx):
    g = ctx.rng()
    thresholds = np.array([0.2, 1.0, *np.round(g.uniform(1.5, 30, 4), 2)])
    epsilon = float(g.uniform(0.2, 2.5))
    close(sb.call("threshold_delta", thresholds, epsilon), delta(thresholds, epsilon),
          "threshold_delta on other thresholds (including T < 1)", rtol=1e-9)
    close(sb.call("threshold_delta", threshold=np.int64(7), epsilon=np.float64(epsilon)), delta(7, epsilon),
          "threshold_delta of NumPy numbers, called by keyword", rtol=1e-9)


# ---------------------------------------------------------------- q2 simulate_release_probability
def scaled_singleton(factor: float) -> Expr:
    """The grader's sampler: 1 + Laplace noise at ``factor`` times the scale 1/epsilon."""
    return Expr(f"lambda epsilon, size, rng: 1.0 + {factor!r} * rng.laplace(0.0, 1.0 / epsilon, size=size)")


def _frequency_fits(got, trials, probability, what):
    hits = got * trials
    require(np.isfinite(hits) and abs(hits - round(hits)) < 1e-6 * trials,
            "simulate_release_probability must return the fraction of the num_trials draws that reach the threshold")
    binomial_fits(round(hits), trials, float(probability), what)


def q2_other_sampler(sb, ctx):
    g = ctx.rng()
    factor = round(float(g.choice([g.uniform(0.4, 0.7), g.uniform(1.5, 2.5)])), 4)
    threshold, epsilon, trials = round(float(g.uniform(2.0, 3.0)), 3), 1.0, 100_000
    got = as_float(sb.call("simulate_release_probability", threshold, epsilon, trials, g, scaled_singleton(factor)),
                   "simulate_release_probability")
    _frequency_fits(got, trials, delta(threshold, epsilon, factor),
                    "simulate_release_probability must draw every noisy count from the sampler it is given: with "
                    "another sampler the frequency does not match that sampler's tail")


def q2_random(sb, ctx):
    reproducible_and_random(sb, "simulate_release_probability",
                            lambda g: (2.0, 1.0, 500, g, scaled_singleton(1.0)), ctx, "simulate_release_probability")


def q2_law(sb, ctx):
    for threshold, epsilon in ((3.0, 0.7), (0.5, 2.0)):
        trials = 100_000
        got = as_float(sb.call("simulate_release_probability", threshold=threshold, epsilon=epsilon,
                               num_trials=trials, rng=ctx.rng(), sampler=scaled_singleton(1.0)),
                       "simulate_release_probability")
        _frequency_fits(got, trials, delta(threshold, epsilon),
                        f"simulate_release_probability with Laplace noise (T = {threshold}, epsilon = {epsilon}, "
                        "called by keyword)")


def q3_values(sb, ctx):
    g = ctx.rng()
    for _ in range(4):
        target, epsilon = float(10 ** g.uniform(-9, -1)), float(g.uniform(0.2, 3))
        got = _integer(sb.call("threshold_for_delta", target, epsilon), "threshold_for_delta")
        require(got == smallest_threshold(target, epsilon), "threshold_for_delta is not the smallest integer threshold")
    require(sb.call("threshold_for_delta", delta=0.7, epsilon=1.0) == 1,
            "threshold_for_delta for a large delta (try 0.7 at epsilon 1)")
    exact = float(delta(7, np.log(3)))
    require(sb.call("threshold_for_delta", exact, np.log(3)) == 7,
            "threshold_for_delta when delta equals delta(T) exactly (floating-point rounding: try delta(7) at "
            "epsilon = ln 3)")


def q4_values(sb, ctx):
    close(sb.value("delta_million"), 1e-7, "delta_million", rtol=1e-9)
    require(_integer(sb.value("T_million"), "T_million") == smallest_threshold(1e-7, np.log(3)), "T_million")
    require(_boolean(sb.value("fifteen_is_enough"), "fifteen_is_enough")
            is bool(1e6 * delta(15, np.log(3)) <= 0.1), "fifteen_is_enough")


# ---------------------------------------------------------------- q5 thresholded_histogram
ITEMS = ["a"] * 30 + ["b"] * 7 + ["c"] * 2 + ["d"]


def _many(count: int, categories: int) -> list[str]:
    return [f"k{i:04d}" for i in range(categories) for _ in range(count)]


def q5_behaviour(sb, ctx):
    # 2,000 categories per call: the noise values of one call must be independent draws, and the last
    # digits of noisy counts of 30 and of 31 must have the same law
    g = ctx.rng()
    epsilon = 1.0
    out30 = sb.call("thresholded_histogram", _many(30, 2000), epsilon, -1e9, g)
    out31 = sb.call("thresholded_histogram", np.array(_many(31, 2000)), epsilon, -1e9, g)
    for out in (out30, out31):
        require(isinstance(out, dict) and len(out) == 2000,
                "thresholded_histogram must release every category that occurs when the threshold is very low")
    noise30 = np.array([float(v) for v in out30.values()]) - 30
    not_too_regular(noise30, laplace_cdf(1 / epsilon), "thresholded_histogram")
    low_bits_same_law(np.array([float(v) for v in out30.values()]), np.array([float(v) for v in out31.values()]),
                      "thresholded_histogram on counts of 30 and of 31")
    # the same generator state on neighbouring datasets (one person moved between two categories, counts
    # of every size): the noisy counts differ by exactly the moved count, and no count is released exact
    sizes = np.unique(np.round(10 ** g.uniform(0.5, 5, 60)).astype(int))
    names = [f"c{i:03d}" for i in range(sizes.size)]
    items = [name for name, count in zip(names, sizes, strict=True) for _ in range(int(count))]
    moved = list(items)
    shift = np.zeros(len(names))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    for i in range(0, len(names) - 1, 2):  # the last record of every other category moves to the next one
        moved[int(starts[i] + sizes[i] - 1)] = names[i + 1]
        shift[i], shift[i + 1] = 1.0, -1.0
    seed = int(g.integers(2**62))
    x = sb.call("thresholded_histogram", items, epsilon, -1e9, np.random.default_rng(seed))
    y = sb.call("thresholded_histogram", moved, epsilon, -1e9, rng=np.random.default_rng(seed))
    require(isinstance(x, dict) and isinstance(y, dict) and set(x) == set(names) == set(y),
            "thresholded_histogram must release every category that occurs when the threshold is very low")
    true_x = dict(zip(names, sizes.astype(float), strict=True))
    require(all(float(x[name]) != true_x[name] for name in names),
            "thresholded_histogram must add noise to every count, small or large (try a count of 100,000)")
    coupled_additive(np.array([float(x[n]) for n in names]), np.array([float(y[n]) for n in names]), shift,
                     "thresholded_histogram")


def q5_random(sb, ctx):
    def released(g):
        out = sb.call("thresholded_histogram", ITEMS, 1.0, -100.0, g)
        require(isinstance(out, dict), "thresholded_histogram must return a dict")
        return np.array([out.get(k, np.nan) for k in "abcd"], dtype=float)
    seed = int(ctx.rng().integers(2**62))
    first, again, other = released(np.random.default_rng(seed)), released(np.random.default_rng(seed)), \
        released(np.random.default_rng(seed + 1))
    require(np.array_equal(first, again, equal_nan=True),
            "thresholded_histogram: the same generator state must give the same release")
    require(not np.array_equal(first, other, equal_nan=True), "thresholded_histogram: the noise must be random")


def q5_law(sb, ctx):
    # with a very low threshold every category is released: the noisy counts must be count + Laplace(1/eps)
    g = ctx.rng()
    epsilon = 0.8
    noise = {k: [] for k in "abcd"}
    for _ in range(400):
        out = sb.call("thresholded_histogram", items=ITEMS, epsilon=epsilon, threshold=-1e9, rng=g)
        require(isinstance(out, dict) and set(out) == set("abcd"),
                "thresholded_histogram must release exactly the categories that occur and reach the threshold")
        for k, count in zip("abcd", (30, 7, 2, 1), strict=True):
            noise[k].append(float(out[k]) - count)
    ks_fits(np.concatenate([noise[k] for k in "abcd"]), laplace_cdf(1 / epsilon),
            "thresholded_histogram: the noisy counts around the true counts")
    require(abs(np.corrcoef(noise["a"], noise["b"])[0, 1]) < 0.3,
            "thresholded_histogram: the noises of different categories must be independent")


def q5_threshold(sb, ctx):
    # the singleton "d" is released with probability delta(T): an exact binomial test
    g = ctx.rng()
    trials, threshold, epsilon = 600, 2.0, 1.0
    kept = 0
    for _ in range(trials):
        out = sb.call("thresholded_histogram", ITEMS, epsilon, threshold, g)
        require(isinstance(out, dict), "thresholded_histogram must return a dict")
        require(all(float(v) >= threshold for v in out.values()), "released noisy counts must reach the threshold")
        kept += "d" in out
    binomial_fits(kept, trials, float(delta(threshold, epsilon)),
                  "thresholded_histogram: the release rule for a category of count 1")
    # frequent categories obey the same rule: "a" (30 people) and "e" (100 to 5,000 people), each against
    # a threshold just above its count
    big = int(10 ** g.uniform(2, 3.7))
    items = ITEMS + ["e"] * big
    for category, count in (("a", 30), ("e", big)):
        high = count + float(g.uniform(0.5, 2.0))
        kept = 0
        for _ in range(400):
            out = sb.call("thresholded_histogram", items, epsilon, high, g)
            require(isinstance(out, dict), "thresholded_histogram must return a dict")
            kept += category in out
        binomial_fits(kept, 400, 0.5 * float(np.exp(-epsilon * (high - count))),
                      "thresholded_histogram: the release rule for frequent categories")


# ---------------------------------------------------------------- q6 the attack
def sometimes(release: float) -> Expr:
    """The grader's mechanism: names the rare syndrome (when present) with probability ``release``."""
    return Expr("lambda items, epsilon, rng: ({'rare syndrome': 1.0} if 'rare syndrome' in list(items) else {}) "
                f"if rng.random() < {release!r} else {{'flu': 3.0}}")


def q6_guess(sb, ctx):
    require(_boolean(sb.call("guess_alice_present", {"flu": 40.2, "rare syndrome": 3.1}), "guess_alice_present"),
            "guess_alice_present: a release naming the rare syndrome reveals Alice")
    require(not _boolean(sb.call("guess_alice_present", release={"flu": 40.2, "cold": 20.0}), "guess_alice_present"),
            "guess_alice_present: a release without the rare syndrome does not reveal Alice")


def q6_rates(sb, ctx):
    g = ctx.rng()
    release = round(float(g.uniform(0.2, 0.8)), 4)
    rates = as_array(sb.call("attack_rates", sometimes(release), 4000, g), "attack_rates")
    require(rates.shape == (2,), "attack_rates returns a pair (true positive rate, false positive rate)")
    binomial_fits(round(rates[0] * 4000), 4000, release,
                  "attack_rates: the true positive rate against another mechanism (it must run the mechanism "
                  "it is given num_runs times on with_alice)")
    require(rates[1] == 0.0, "attack_rates: the false positive rate against a mechanism that never names the "
                             "syndrome without Alice")
    reproducible_and_random(sb, "attack_rates", lambda gen: (sometimes(release), 400, gen), ctx, "attack_rates")


def q7_formula(sb, ctx):
    g = ctx.rng()
    a, b, e = float(g.uniform(0.3, 1)), float(g.uniform(0, 0.1)), float(g.uniform(0.1, 2))
    close(sb.call("smallest_delta", a, b, e), max(0.0, a - np.exp(e) * b), "smallest_delta", rtol=1e-9)
    close(sb.call("smallest_delta", p_with=0.1, p_without=0.2, epsilon=0.5), 0.0,
          "smallest_delta is never negative (try 0.1, 0.2 at epsilon 0.5)")


def q7_value(sb, ctx):
    got = as_float(sb.value("delta_no_threshold"), "delta_no_threshold")
    require(0.0 <= got <= 1.0 and got > 0.5, "delta_no_threshold: the attack on release_all_noisy_counts")


QUESTIONS = [
    Question("q1", ["threshold_delta"], [
        Check("delta at the public example", 0.5, q1_public, public=True),
        Check("delta on other thresholds and epsilons", 2.5, q1_values)]),
    Question("q2", ["simulate_release_probability"], [
        Check("the simulation draws from the sampler it is given (a sampler of the grader's)", 1.0,
              q2_other_sampler, statistical=True, gate=True),
        Check("simulation draws from rng", 0.25, q2_random),
        Check("release frequency with Laplace noise at two settings (keyword call)", 0.75, q2_law,
              statistical=True)]),
    Question("q3", ["threshold_for_delta"], [
        Check("smallest integer threshold", 2.0, q3_values)]),
    Question("q4", ["delta_million", "T_million", "fifteen_is_enough"], [
        Check("the million-user values", 2.0, q4_values)]),
    Question("q5", ["thresholded_histogram"], [
        Check("independent noise draws whose last digits do not depend on the counts", 0.5, q5_behaviour,
              statistical=True, gate=True),
        Check("randomness drawn from rng", 0.25, q5_random, gate=True),
        Check("noisy counts follow count + Laplace(1/epsilon)", 1.0, q5_law, statistical=True),
        Check("every category is released with the probability of its noisy count reaching T", 1.25, q5_threshold,
              statistical=True)]),
    Question("q6", ["guess_alice_present", "attack_rates"], [
        Check("the guess", 1.0, q6_guess),
        Check("attack rates on another mechanism, drawn from rng", 2.0, q6_rates, statistical=True)]),
    Question("q7", ["smallest_delta", "delta_no_threshold"], [
        Check("smallest delta", 1.25, q7_formula),
        Check("delta of the unthresholded release", 0.75, q7_value)]),
    # written answers: model answers in the master, rubrics in book/assignments/masters/written_answers.md
    Question("q8", [], [], manual_points=4.0),
    Question("q9", [], [], manual_points=6.0),
]

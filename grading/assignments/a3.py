"""Hidden checks of assignment 3 (thresholding and delta)."""

from __future__ import annotations

import numpy as np

from ..checks import (
    Check,
    Question,
    as_array,
    as_float,
    binomial_fits,
    close,
    ks_fits,
    laplace_cdf,
    randomness,
    reproducible_and_random,
    require,
    without_closed_form,
)
from ..sandbox import Expr

NAME = "a3_thresholding"


def delta(threshold, epsilon):
    excess = np.asarray(threshold, dtype=float) - 1.0
    upper = 0.5 * np.exp(-epsilon * np.abs(excess))
    return np.where(excess >= 0, upper, 1.0 - upper)


def smallest_threshold(target, epsilon):
    t = 1
    while delta(t, epsilon) > target:
        t += 1
    return t


def q1_public(sb, ctx):
    close(sb.call("threshold_delta", 5, np.log(3)), delta(5, np.log(3)), "threshold_delta at the public example")


def q1_values(sb, ctx):
    g = ctx.rng()
    thresholds = np.array([0.2, 1.0, *np.round(g.uniform(1.5, 30, 4), 2)])
    epsilon = float(g.uniform(0.2, 2.5))
    close(sb.call("threshold_delta", thresholds, epsilon), delta(thresholds, epsilon),
          "threshold_delta on other thresholds (including T < 1)", rtol=1e-9)


q2_random = randomness("simulate_release_probability", lambda g: (2.0, 1.0, 500, g), min_draws=lambda a: a[2] / 4)


q2_formula = without_closed_form("simulate_release_probability", lambda g: (2.0, 1.0, 500, g),
                                 {"threshold_delta": "lambda *args, **kwargs: 0.5"})


def q2_law(sb, ctx):
    for threshold, epsilon in ((3.0, 0.7), (0.5, 2.0)):
        trials = 100_000
        got = as_float(sb.call("simulate_release_probability", threshold, epsilon, trials, ctx.rng()),
                       "simulate_release_probability")
        hits = got * trials
        require(abs(hits - round(hits)) < 1e-6 * trials, "simulate_release_probability must return a frequency")
        binomial_fits(round(hits), trials, float(delta(threshold, epsilon)), "simulate_release_probability")


def q3_values(sb, ctx):
    g = ctx.rng()
    for _ in range(4):
        target, epsilon = float(10 ** g.uniform(-9, -1)), float(g.uniform(0.2, 3))
        got = sb.call("threshold_for_delta", target, epsilon)
        require(type(got) is int, "threshold_for_delta must return a Python int")
        require(got == smallest_threshold(target, epsilon), "threshold_for_delta is not the smallest integer threshold")
    require(sb.call("threshold_for_delta", 0.7, 1.0) == 1, "threshold_for_delta for a large delta")
    exact = float(delta(7, np.log(3)))
    require(sb.call("threshold_for_delta", exact, np.log(3)) == 7,
            "threshold_for_delta when delta equals delta(T) exactly (floating-point rounding)")


def q4_values(sb, ctx):
    close(sb.value("delta_million"), 1e-7, "delta_million", rtol=1e-9)
    require(sb.value("T_million") == smallest_threshold(1e-7, np.log(3)), "T_million")
    require(sb.value("fifteen_is_enough") is bool(1e6 * delta(15, np.log(3)) <= 0.1), "fifteen_is_enough")


ITEMS = ["a"] * 30 + ["b"] * 7 + ["c"] * 2 + ["d"]


def q5_random(sb, ctx):
    def released(g):
        out = sb.call("thresholded_histogram", ITEMS, 1.0, -100.0, g)
        require(isinstance(out, dict), "thresholded_histogram must return a dict")
        return np.array([out.get(k, np.nan) for k in "abcd"], dtype=float)
    seed = int(ctx.rng().integers(2**62))
    first, again, other = released(np.random.default_rng(seed)), released(np.random.default_rng(seed)), \
        released(np.random.default_rng(seed + 1))
    require(np.array_equal(first, again), "thresholded_histogram: the same generator state must give the same release")
    require(not np.array_equal(first, other), "thresholded_histogram: the noise must be random")


def q5_law(sb, ctx):
    # with a very low threshold every category is released: the noisy counts must be count + Laplace(1/eps)
    g = ctx.rng()
    epsilon = 0.8
    noise = {k: [] for k in "abcd"}
    for _ in range(400):
        out = sb.call("thresholded_histogram", ITEMS, epsilon, -1e9, g)
        require(isinstance(out, dict) and set(out) == set("abcd"),
                "thresholded_histogram must release exactly the categories that occur and reach the threshold")
        for k, count in zip("abcd", (30, 7, 2, 1), strict=True):
            noise[k].append(float(out[k]) - count)
    ks_fits(np.concatenate([noise[k] for k in "abcd"]), laplace_cdf(1 / epsilon), "thresholded_histogram")
    require(abs(np.corrcoef(noise["a"], noise["b"])[0, 1]) < 0.3, "thresholded_histogram: the noises must be independent")


def q5_threshold(sb, ctx):
    # the singleton "d" is released with probability delta(T): an exact binomial test
    g = ctx.rng()
    trials, threshold, epsilon = 600, 2.0, 1.0
    kept = 0
    for _ in range(trials):
        out = sb.call("thresholded_histogram", ITEMS, epsilon, threshold, g)
        require(isinstance(out, dict), "thresholded_histogram must return a dict")
        require(all(float(v) >= threshold for v in out.values()), "released noisy counts reach the threshold")
        kept += "d" in out
    binomial_fits(kept, trials, float(delta(threshold, epsilon)), "thresholded_histogram: the release rule")
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


SINGLE = "lambda items, eps, gen: ({'rare syndrome': 1.0} if 'rare syndrome' in list(items) else {}) if gen.random() < 0.7 else {'flu': 3.0}"


def q6_guess(sb, ctx):
    require(sb.call("guess_alice_present", {"flu": 40.2, "rare syndrome": 3.1}) is True, "guess_alice_present")
    require(sb.call("guess_alice_present", {"flu": 40.2, "cold": 20.0}) is False, "guess_alice_present")


def q6_rates(sb, ctx):
    got = sb.call("attack_rates", Expr(SINGLE), 4000, ctx.rng())
    rates = as_array(got, "attack_rates")
    require(rates.shape == (2,), "attack_rates returns a pair")
    binomial_fits(round(rates[0] * 4000), 4000, 0.7, "attack_rates: the true positive rate")
    require(rates[1] == 0.0, "attack_rates: the false positive rate")
    reproducible_and_random(sb, "attack_rates", lambda g: (Expr(SINGLE), 400, g), ctx, "attack_rates")


def q7_formula(sb, ctx):
    g = ctx.rng()
    a, b, e = float(g.uniform(0.3, 1)), float(g.uniform(0, 0.1)), float(g.uniform(0.1, 2))
    close(sb.call("smallest_delta", a, b, e), max(0.0, a - np.exp(e) * b), "smallest_delta", rtol=1e-9)
    close(sb.call("smallest_delta", 0.1, 0.2, 0.5), 0.0, "smallest_delta is never negative")


def q7_value(sb, ctx):
    got = as_float(sb.value("delta_no_threshold"), "delta_no_threshold")
    require(0.0 <= got <= 1.0 and got > 0.5, "delta_no_threshold: the attack on release_all_noisy_counts")


QUESTIONS = [
    Question("q1", ["threshold_delta"], [
        Check("delta at the public example", 0.5, q1_public, public=True),
        Check("delta on other thresholds and epsilons", 2.5, q1_values)]),
    Question("q2", ["simulate_release_probability"], [
        Check("simulation draws from rng", 0.75, q2_random, gate=True),
        Check("the simulation does not use the formula for delta", 0.25, q2_formula, gate=True),
        Check("release frequency at two settings", 1.0, q2_law, statistical=True)]),
    Question("q3", ["threshold_for_delta"], [
        Check("smallest integer threshold", 2.0, q3_values)]),
    Question("q4", ["delta_million", "T_million", "fifteen_is_enough"], [
        Check("the million-user values", 2.0, q4_values)]),
    Question("q5", ["thresholded_histogram"], [
        Check("randomness drawn from rng", 0.5, q5_random, gate=True),
        Check("noisy counts follow count + Laplace(1/epsilon)", 1.25, q5_law, statistical=True),
        Check("every category is released with the probability of its noisy count reaching T", 1.25, q5_threshold,
              statistical=True)]),
    Question("q6", ["guess_alice_present", "attack_rates"], [
        Check("the guess", 1.0, q6_guess),
        Check("attack rates on another mechanism, drawn from rng", 2.0, q6_rates, statistical=True)]),
    Question("q7", ["smallest_delta", "delta_no_threshold"], [
        Check("smallest delta", 1.25, q7_formula),
        Check("delta of the unthresholded release", 0.75, q7_value)]),
    Question("q8", [], [], manual_points=3.0),  # written answer: rubric in book/assignments/masters/written_answers.md
]

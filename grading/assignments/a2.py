"""Hidden checks of assignment 2 (sensitivity and the Laplace mechanism)."""

from __future__ import annotations

import numpy as np

from ..checks import (
    Check,
    Question,
    as_array,
    as_float,
    close,
    ks_fits,
    laplace_cdf,
    laplace_centre_fits,
    privacy_holds,
    randomness,
    require,
    same_law,
    without_closed_form,
)

NAME = "a2_laplace_mechanism"


def q1_public(sb, ctx):
    close(sb.value("COUNT_SENSITIVITY"), 1, "COUNT_SENSITIVITY")


def q1_sum_mean(sb, ctx):
    g = ctx.rng()
    lower, upper, n = float(g.uniform(-50, 0)), float(g.uniform(1, 400)), int(g.integers(2, 900))
    close(sb.call("sum_sensitivity", lower, upper), upper - lower, "sum_sensitivity", rtol=1e-9)
    close(sb.call("mean_sensitivity", lower, upper, n), (upper - lower) / n, "mean_sensitivity", rtol=1e-9)


def q2_scale(sb, ctx):
    g = ctx.rng()
    s, e = float(g.uniform(0.1, 20)), float(g.uniform(0.05, 5))
    close(sb.call("laplace_scale", s, e), s / e, "laplace_scale", rtol=1e-9)


q2_random = randomness("laplace_mechanism", lambda g: (np.zeros(50), 1.0, 1.0, g))


def q2_sizes(sb, ctx):
    # single numbers and arrays, small and large values: the noise must not depend on them
    g = ctx.rng()
    scale = as_float(sb.call("laplace_scale", 1.0, 0.5), "laplace_scale")  # the notebook's own scale
    require(scale > 0, "laplace_scale must be positive")
    values = np.sign(g.uniform(-1, 1, 600)) * 10 ** g.uniform(-2, 6, 600)
    single = np.array([as_float(sb.call("laplace_mechanism", float(v), 1.0, 0.5, g), "laplace_mechanism") - v
                       for v in values])
    zeros = as_array(sb.call("laplace_mechanism", np.zeros(20_000), 1.0, 0.5, g), "laplace_mechanism")
    big = float(10 ** g.uniform(3, 7))
    large = as_array(sb.call("laplace_mechanism", np.full(20_000, big), 1.0, 0.5, g), "laplace_mechanism") - big
    data = g.normal(0.0, 100.0, 20_000)  # different values, as real data has
    spread = as_array(sb.call("laplace_mechanism", data, 1.0, 0.5, g), "laplace_mechanism") - data
    same_law(single / scale, zeros / scale, "laplace_mechanism: noise on single numbers")
    same_law(large / scale, zeros / scale, "laplace_mechanism: noise on large values")
    same_law(spread / scale, zeros / scale, "laplace_mechanism: noise on different values")
    # a large scale too, each normalised by the notebook's own laplace_scale
    sensitivity, epsilon = float(10 ** g.uniform(0, 2)), float(10 ** g.uniform(-2, -0.5))
    wide = as_float(sb.call("laplace_scale", sensitivity, epsilon), "laplace_scale")
    require(wide > 0, "laplace_scale must be positive")
    noisy = as_array(sb.call("laplace_mechanism", np.zeros(20_000), sensitivity, epsilon, g), "laplace_mechanism")
    same_law(noisy / wide, zeros / scale, "laplace_mechanism: noise at a large scale")


def q2_law(sb, ctx):
    for value, sensitivity, epsilon in ((3.0, 1.0, 0.5), (-20.0, 4.0, 2.0)):
        out = as_array(sb.call("laplace_mechanism", np.full(20_000, value), sensitivity, epsilon, ctx.rng()),
                       "laplace_mechanism")
        require(out.shape == (20_000,), "laplace_mechanism must keep the shape of value")
        ks_fits(out - value, laplace_cdf(sensitivity / epsilon), "laplace_mechanism")
        laplace_centre_fits(out - value, sensitivity / epsilon, "laplace_mechanism")
    single = sb.call("laplace_mechanism", 2.5, 1.0, 1.0, ctx.rng())
    require(as_array(single, "laplace_mechanism").size == 1, "a single value gives a single noisy value")


def q2_privacy(sb, ctx):
    epsilon, trials = 1.0, 100_000
    a = as_array(sb.call("laplace_mechanism", np.full(trials, 10.0), 1.0, epsilon, ctx.rng()), "laplace_mechanism")
    b = as_array(sb.call("laplace_mechanism", np.full(trials, 11.0), 1.0, epsilon, ctx.rng()), "laplace_mechanism")
    privacy_holds(a, b, epsilon, np.linspace(5, 16, 45), "laplace_mechanism")


q3_random = randomness("clipped_mean", lambda g: (np.arange(10.0), 0.0, 5.0, 1.0, g))


def q3_law(sb, ctx):
    g = ctx.rng()
    x = g.exponential(60.0, size=int(g.integers(50, 300)))
    lower, upper, epsilon = 0.0, 100.0, 0.7
    centre = np.clip(x, lower, upper).mean()
    scale = (upper - lower) / x.size / epsilon
    draws = np.array([as_float(sb.call("clipped_mean", x, lower, upper, epsilon, g), "clipped_mean")
                      for _ in range(1500)])
    ks_fits(draws - centre, laplace_cdf(scale), "clipped_mean")
    laplace_centre_fits(draws - centre, scale, "clipped_mean")


def q3_privacy(sb, ctx):
    # neighbours: one value moved from inside the range to far above it; clipping must bound the change
    g = ctx.rng()
    x = np.full(20, 3.0)
    y = x.copy()
    y[0] = 1e6
    means = [as_float(sb.call("clipped_mean", data, 0.0, 10.0, 1.0, g), "clipped_mean") for data in (x, y)]
    require(all(np.isfinite(means)) and abs(means[1] - means[0]) < 40, "clipped_mean must clip before averaging")


def q4_formula(sb, ctx):
    g = ctx.rng()
    p, n, e = g.uniform(0, 1, 4), g.integers(2, 10_000, 4).astype(float), g.uniform(0.1, 3, 4)
    close(sb.call("laplace_mean_mse", p, n, e), p * (1 - p) / n + 2 / (e * n) ** 2, "laplace_mean_mse", rtol=1e-8)


q5_random = randomness("simulate_mse", lambda g: (0.3, 40, 1.0, 50, g), min_draws=lambda a: a[3] / 4)


q5_formula = without_closed_form("simulate_mse", lambda g: (0.3, 40, 1.0, 50, g),
                                 {"laplace_mean_mse": "lambda *args, **kwargs: 123.0"})


def q5_law(sb, ctx):
    # the average of num_trials squared errors: compare with the exact MSE, 6 standard errors
    for p, n, epsilon in ((0.3, 30, 0.5), (0.9, 400, 2.0)):
        trials = 40_000
        got = as_float(sb.call("simulate_mse", p, n, epsilon, trials, ctx.rng()), "simulate_mse")
        mse = p * (1 - p) / n + 2 / (epsilon * n) ** 2
        sd = np.sqrt(3 * (mse * 4) ** 2 / trials)  # generous bound on the sd of the mean of squares
        require(abs(got - mse) < 6 * sd, "simulate_mse: the simulated MSE does not match the mechanism")
    values = [as_float(sb.call("simulate_mse", 0.5, 10, 1.0, 20, ctx.rng()), "simulate_mse") for _ in range(3)]
    require(len(set(values)) == 3, "simulate_mse must simulate (its value must vary with the generator)")


def q6_formula(sb, ctx):
    g = ctx.rng()
    p, e = float(g.uniform(0.05, 0.95)), float(g.uniform(0.1, 3))
    close(sb.call("crossover_n", p, e), 2 / (e ** 2 * p * (1 - p)), "crossover_n", rtol=1e-8)


QUESTIONS = [
    Question("q1", ["COUNT_SENSITIVITY", "sum_sensitivity", "mean_sensitivity"], [
        Check("count sensitivity", 0.5, q1_public, public=True),
        Check("sum and mean sensitivity on other bounds", 2.5, q1_sum_mean)]),
    Question("q2", ["laplace_scale", "laplace_mechanism"], [
        Check("Laplace scale", 0.5, q2_scale),
        Check("randomness drawn from rng", 0.5, q2_random, gate=True),
        Check("the same noise on single numbers, arrays, small and large values, at every scale", 0.5, q2_sizes,
              statistical=True, gate=True),
        Check("noise follows the Laplace law at two settings", 1.0, q2_law, statistical=True),
        Check("empirical privacy on neighbouring values", 0.5, q2_privacy, statistical=True)]),
    Question("q3", ["clipped_mean"], [
        Check("randomness drawn from rng", 0.5, q3_random, gate=True),
        Check("clipped mean plus Laplace noise of the right scale", 2.0, q3_law, statistical=True),
        Check("an outlier cannot move the release", 0.5, q3_privacy)]),
    Question("q4", ["laplace_mean_mse"], [
        Check("MSE formula element-wise", 2.0, q4_formula)]),
    Question("q5", ["simulate_mse"], [
        Check("simulation draws from rng", 0.75, q5_random, gate=True),
        Check("the simulation does not use the MSE formula", 0.25, q5_formula, gate=True),
        Check("simulated MSE matches the mechanism at two settings", 2.0, q5_law, statistical=True)]),
    Question("q6", ["crossover_n"], [
        Check("crossover n", 2.0, q6_formula)]),
    Question("q7", [], [], manual_points=3.0),  # written answer: rubric in book/assignments/masters/written_answers.md
]

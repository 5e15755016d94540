"""Hidden checks of assignment 2 (sensitivity and the Laplace mechanism).

The mechanisms are tested for behaviour (independent noise draws, low-order bits that do not
depend on the value, the same law on every input, privacy on neighbours); the simulation runs on
noise mechanisms of the grader's own, with a scale factor drawn fresh per run.
"""

from __future__ import annotations

import numpy as np

from ..checks import (
    Check,
    Question,
    as_array,
    as_float,
    close,
    coupled_additive,
    ks_fits,
    laplace_cdf,
    laplace_centre_fits,
    low_bits_same_law,
    not_too_regular,
    privacy_holds,
    randomness,
    require,
    same_law,
)
from ..sandbox import Expr

NAME = "a2_laplace_mechanism"


def q1_public(sb, ctx):
    close(sb.value("COUNT_SENSITIVITY"), 1, "COUNT_SENSITIVITY")
    close(sb.call("sum_sensitivity", -20, 80), 100, "sum_sensitivity at the public example [-20, 80]")


def q1_sum_mean(sb, ctx):
    g = ctx.rng()
    lower, upper, n = float(g.uniform(-50, 0)), float(g.uniform(1, 400)), int(g.integers(2, 900))
    close(sb.call("sum_sensitivity", lower, upper), upper - lower,
          "sum_sensitivity on other bounds (replace-one: a value can move from lower to upper)", rtol=1e-9)
    close(sb.call("mean_sensitivity", np.float64(lower), np.float64(upper), np.int64(n)), (upper - lower) / n,
          "mean_sensitivity on other bounds (NumPy numbers)", rtol=1e-9)
    close(sb.call("mean_sensitivity", lower=lower, upper=upper, n=n), (upper - lower) / n,
          "mean_sensitivity called by keyword", rtol=1e-9)


def q2_behaviour(sb, ctx):
    # independent draws (noise placed on the law's quantiles fails) and low-order bits that do not
    # carry the value (a release hiding the input in its mantissa fails)
    g = ctx.rng()
    scale = as_float(sb.call("laplace_scale", 1.0, 0.5), "laplace_scale")
    require(scale > 0, "laplace_scale must be positive")
    noise = as_array(sb.call("laplace_mechanism", np.zeros(20_000), 1.0, 0.5, g), "laplace_mechanism")
    require(noise.shape == (20_000,), "laplace_mechanism must keep the shape of value (try np.zeros(20000))")
    not_too_regular(noise, laplace_cdf(scale), "laplace_mechanism")
    a = as_array(sb.call("laplace_mechanism", np.full(20_000, 10.0), 1.0, 1.0, g), "laplace_mechanism")
    b = as_array(sb.call("laplace_mechanism", np.full(20_000, 11.0), 1.0, 1.0, g), "laplace_mechanism")
    low_bits_same_law(a, b, "laplace_mechanism on the neighbouring values 10 and 11")
    # the same generator state on neighbouring inputs (values of every size, one entry moved by at most
    # the sensitivity): the releases differ by exactly that move, and no value is released exactly
    size = 5_000
    values = np.round(10 ** g.uniform(-3, 12, size) * g.choice([-1.0, 1.0], size) * 1024) / 1024  # dyadic
    moved = values.copy()
    moved[: size // 2] += np.round(g.uniform(-1, 1, size // 2) * 1024) / 1024
    seed = int(g.integers(2**62))
    x = as_array(sb.call("laplace_mechanism", values, 1.0, 1.0, np.random.default_rng(seed)), "laplace_mechanism")
    y = as_array(sb.call("laplace_mechanism", moved, 1.0, 1.0, rng=np.random.default_rng(seed)), "laplace_mechanism")
    require(x.shape == values.shape, "laplace_mechanism must keep the shape of value")
    # noise can round away only where the spacing of floats is coarse: exact releases of values below
    # 1e6 (probability about 1e-10 each) or many of the large ones mean the value went out unnoised
    large = np.abs(values) >= 1e6
    expected = float(np.sum(np.spacing(np.abs(values[large])))) / 2  # Laplace(1): density 1/2 at 0
    require(np.all(x[~large] != values[~large]) and np.sum(x[large] == values[large]) <= 5 + 20 * expected,
            "laplace_mechanism must add noise to every value, small or large (try values of 1e-3 and 1e12)")
    coupled_additive(x, y, values - moved, "laplace_mechanism")


def q2_scale(sb, ctx):
    g = ctx.rng()
    s, e = float(g.uniform(0.1, 20)), float(g.uniform(0.05, 5))
    close(sb.call("laplace_scale", s, e), s / e, "laplace_scale", rtol=1e-9)
    close(sb.call("laplace_scale", sensitivity=np.float64(s), epsilon=np.float64(e)), s / e,
          "laplace_scale called by keyword with NumPy numbers", rtol=1e-9)


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
    spread = as_array(sb.call("laplace_mechanism", value=data, sensitivity=1.0, epsilon=0.5, rng=g),
                      "laplace_mechanism") - data
    same_law(single / scale, zeros / scale, "laplace_mechanism: noise on single numbers against noise on an array")
    same_law(large / scale, zeros / scale, "laplace_mechanism: noise on large values against noise on zeros")
    same_law(spread / scale, zeros / scale, "laplace_mechanism: noise on different values against noise on zeros")
    # a large scale too, each normalised by the notebook's own laplace_scale
    sensitivity, epsilon = float(10 ** g.uniform(0, 2)), float(10 ** g.uniform(-2, -0.5))
    wide = as_float(sb.call("laplace_scale", sensitivity, epsilon), "laplace_scale")
    require(wide > 0, "laplace_scale must be positive")
    noisy = as_array(sb.call("laplace_mechanism", np.zeros(20_000), sensitivity, epsilon, g), "laplace_mechanism")
    same_law(noisy / wide, zeros / scale, "laplace_mechanism: noise at a large scale, divided by laplace_scale")


def q2_law(sb, ctx):
    for value, sensitivity, epsilon in ((3.0, 1.0, 0.5), (-20.0, 4.0, 2.0)):
        out = as_array(sb.call("laplace_mechanism", np.full(20_000, value), sensitivity, epsilon, ctx.rng()),
                       "laplace_mechanism")
        require(out.shape == (20_000,), "laplace_mechanism must keep the shape of value")
        ks_fits(out - value, laplace_cdf(sensitivity / epsilon),
                f"laplace_mechanism (value {value}, sensitivity {sensitivity}, epsilon {epsilon})")
        laplace_centre_fits(out - value, sensitivity / epsilon, "laplace_mechanism: the peak of the noise at 0")
    single = sb.call("laplace_mechanism", 2.5, 1.0, 1.0, ctx.rng())
    require(as_array(single, "laplace_mechanism").size == 1, "a single value gives a single noisy value")


def q2_privacy(sb, ctx):
    epsilon, trials = 1.0, 100_000
    a = as_array(sb.call("laplace_mechanism", np.full(trials, 10.0), 1.0, epsilon, ctx.rng()), "laplace_mechanism")
    b = as_array(sb.call("laplace_mechanism", np.full(trials, 11.0), 1.0, epsilon, ctx.rng()), "laplace_mechanism")
    privacy_holds(a, b, epsilon, np.linspace(5, 16, 45), "laplace_mechanism")


_Q3_DRAWS: dict = {}  # (sandbox, seed) -> the releases q3_behaviour drew, reused by q3_law


def _q3_draws(sb, ctx):
    """2,000 releases on data with values above ``upper`` (clipping matters) and 2,000 on a neighbour
    (one value replaced), drawn once per grading run and shared by the two q3 checks."""
    key = (id(sb), ctx.seed)
    if key not in _Q3_DRAWS:
        _Q3_DRAWS.clear()
        g = ctx.rng()
        x = np.round(g.exponential(60.0, size=int(g.integers(50, 150))), 2)
        y = x.copy()
        y[0] = 100.0 - min(y[0], 100.0)
        lower, upper, epsilon = 0.0, 100.0, 0.7
        draws_x = np.array([as_float(sb.call("clipped_mean", x, lower, upper, epsilon, g), "clipped_mean")
                            for _ in range(1000)]
                           + [as_float(sb.call("clipped_mean", x=x, lower=lower, upper=upper, epsilon=epsilon, rng=g),
                                       "clipped_mean") for _ in range(1000)])
        draws_y = np.array([as_float(sb.call("clipped_mean", y, lower, upper, epsilon, g), "clipped_mean")
                            for _ in range(2000)])
        _Q3_DRAWS[key] = (np.clip(x, lower, upper).mean(), (upper - lower) / x.size / epsilon, draws_x, draws_y)
    return _Q3_DRAWS[key]


def q3_behaviour(sb, ctx):
    # releases on two neighbouring datasets (one value replaced): independent draws, and last digits
    # that do not depend on the dataset
    centre, scale, draws_x, draws_y = _q3_draws(sb, ctx)
    not_too_regular(draws_x - centre, laplace_cdf(scale), "clipped_mean")
    low_bits_same_law(draws_x, draws_y, "clipped_mean on two neighbouring datasets")


q3_random = randomness("clipped_mean", lambda g: (np.arange(10.0), 0.0, 5.0, 1.0, g))


def q3_law(sb, ctx):
    # the releases (half of them called by keyword) around the mean of the data clipped to [0, 100]
    centre, scale, draws_x, _ = _q3_draws(sb, ctx)
    ks_fits(draws_x - centre, laplace_cdf(scale), "clipped_mean: the release around the clipped mean")
    laplace_centre_fits(draws_x - centre, scale, "clipped_mean: the peak of the noise")


def q3_privacy(sb, ctx):
    # neighbours: one value moved from inside the range to far above it; clipping must bound the change
    g = ctx.rng()
    x = np.full(20, 3.0)
    y = x.copy()
    y[0] = 1e6
    means = [as_float(sb.call("clipped_mean", data, 0.0, 10.0, 1.0, g), "clipped_mean") for data in (x, y)]
    require(all(np.isfinite(means)) and abs(means[1] - means[0]) < 40,
            "clipped_mean must clip before averaging (try twenty 3s, then one of them replaced by 1e6, in [0, 10])")


def q4_formula(sb, ctx):
    g = ctx.rng()
    p, n, e = g.uniform(0, 1, 4), g.integers(2, 10_000, 4).astype(float), g.uniform(0.1, 3, 4)
    close(sb.call("laplace_mean_mse", p, n, e), p * (1 - p) / n + 2 / (e * n) ** 2, "laplace_mean_mse on arrays",
          rtol=1e-8)
    close(sb.call("laplace_mean_mse", p=0.5, n=100, epsilon=1.0), 0.0027,
          "laplace_mean_mse at the public example (called by keyword)", rtol=1e-8)


def scaled_laplace(factor: float) -> Expr:
    """The grader's noise: Laplace at ``factor`` times the calibrated scale (a law of its own)."""
    return Expr(f"lambda value, sensitivity, epsilon, rng: np.asarray(value, dtype=float) + "
                f"{factor!r} * rng.laplace(0.0, sensitivity / epsilon, size=np.shape(value))")


def mse_and_sd(p: float, n: int, b: float, trials: int) -> tuple[float, float]:
    """Exact MSE of the proportion plus Laplace(b) noise, and the standard deviation of the average of
    ``trials`` squared errors (from the binomial's central moments and the Laplace moments)."""
    var = p * (1 - p) / n
    mu4 = n * p * (1 - p) * (1 + 3 * (n - 2) * p * (1 - p)) / n ** 4
    mse = var + 2 * b ** 2
    fourth = mu4 + 6 * var * 2 * b ** 2 + 24 * b ** 4
    return mse, float(np.sqrt((fourth - mse ** 2) / trials))


def q5_other_mechanism(sb, ctx):
    g = ctx.rng()
    factor = round(float(g.choice([g.uniform(0.3, 0.6), g.uniform(1.6, 3.0)])), 4)
    p, n, epsilon, trials = round(float(g.uniform(0.2, 0.8)), 3), int(g.integers(15, 40)), 0.5, 40_000
    got = as_float(sb.call("simulate_mse", p, n, epsilon, trials, g, scaled_laplace(factor)), "simulate_mse")
    mse, sd = mse_and_sd(p, n, factor / (n * epsilon), trials)
    require(abs(got - mse) < 6 * sd,
            "simulate_mse must run the mechanism it is given on every trial's proportion, with the proportion's "
            "sensitivity: with another noise mechanism the simulated MSE does not match that mechanism's error")


q5_random = randomness("simulate_mse", lambda g: (0.3, 40, 1.0, 50, g, scaled_laplace(1.0)))


def q5_laplace(sb, ctx):
    # the honest use, every argument by keyword, at two settings
    for p, n, epsilon in ((0.3, 30, 0.5), (0.9, 400, 2.0)):
        trials = 40_000
        got = as_float(sb.call("simulate_mse", p=p, n=n, epsilon=epsilon, num_trials=trials, rng=ctx.rng(),
                               mechanism=scaled_laplace(1.0)), "simulate_mse")
        mse, sd = mse_and_sd(p, n, 1 / (n * epsilon), trials)
        require(abs(got - mse) < 6 * sd,
                f"simulate_mse with the Laplace mechanism (p = {p}, n = {n}, epsilon = {epsilon}, called by "
                "keyword) does not match its MSE")


def q6_formula(sb, ctx):
    g = ctx.rng()
    p, e = float(g.uniform(0.05, 0.95)), float(g.uniform(0.1, 3))
    close(sb.call("crossover_n", p, e), 2 / (e ** 2 * p * (1 - p)), "crossover_n on other inputs", rtol=1e-8)
    close(sb.call("crossover_n", p=0.5, epsilon=1.0), 8.0, "crossover_n at the public example (by keyword)",
          rtol=1e-8)


QUESTIONS = [
    Question("q1", ["COUNT_SENSITIVITY", "sum_sensitivity", "mean_sensitivity"], [
        Check("count sensitivity and the public example", 0.5, q1_public, public=True),
        Check("sum and mean sensitivity on other bounds", 2.5, q1_sum_mean)]),
    Question("q2", ["laplace_scale", "laplace_mechanism"], [
        Check("independent noise draws whose last digits do not depend on the value", 0.5, q2_behaviour,
              statistical=True, gate=True),
        Check("Laplace scale", 0.5, q2_scale),
        Check("randomness drawn from rng", 0.25, q2_random, gate=True),
        Check("the same noise on single numbers, arrays, small and large values, at every scale", 0.5, q2_sizes,
              statistical=True, gate=True),
        Check("noise follows the Laplace law at two settings", 0.75, q2_law, statistical=True),
        Check("empirical privacy on neighbouring values", 0.5, q2_privacy, statistical=True)]),
    Question("q3", ["clipped_mean"], [
        Check("independent releases whose last digits do not depend on the data", 0.5, q3_behaviour,
              statistical=True, gate=True),
        Check("randomness drawn from rng", 0.25, q3_random, gate=True),
        Check("clipped mean plus Laplace noise of the right scale", 1.75, q3_law, statistical=True),
        Check("an outlier cannot move the release", 0.5, q3_privacy)]),
    Question("q4", ["laplace_mean_mse"], [
        Check("MSE element-wise and at the public example", 2.0, q4_formula)]),
    Question("q5", ["simulate_mse"], [
        Check("the simulation runs the mechanism it is given (a noise mechanism of the grader's)", 1.75,
              q5_other_mechanism, statistical=True, gate=True),
        Check("simulation draws from rng", 0.25, q5_random),
        Check("simulated MSE of the Laplace mechanism at two settings (keyword call)", 1.0, q5_laplace,
              statistical=True)]),
    Question("q6", ["crossover_n"], [
        Check("crossover n", 2.0, q6_formula)]),
    # written answers: model answers in the master, rubrics in book/assignments/masters/written_answers.md
    Question("q7", [], [], manual_points=5.0),
    Question("q8", [], [], manual_points=4.0),
]

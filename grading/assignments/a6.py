"""Hidden checks of assignment 6 (a reconstruction-attack lab on chapter 1).

The attacks take the query oracle as an argument, so every check hands them an oracle built by the
grader: an :class:`~grading.sandbox.Expr` holding a hidden column of secret bits (drawn per run),
with exact answers, uniform integer noise, Laplace noise or Gaussian noise. A student's code can
read anything in its own process, the oracle's column included; what it cannot do is score above
what the oracle's noise allows, so the checks test *laws*: the success rate of the differencing
attack (exact binomial tests against the rate the noise gives), full recovery at no noise, a floor
at small noise and a ceiling at noise far above sqrt(n) for the reconstruction, and the binomial
law of an experiment run with the grader's own attacks and oracles.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ..checks import Check, CheckFailed, Question, as_array, binomial_fits, raises, require
from ..sandbox import Expr, SandboxError

NAME = "a6_reconstruction"

# --------------------------------------------------------------------------- the grader's oracles
# An oracle answers subset counts of its hidden column: a 0/1 vector of length n (one set: a float)
# or a (k, n) matrix (k sets: k answers), each answer with fresh noise. It refuses anything else
# (ValueError) and, when given a budget, raises RuntimeError once more counts are asked than that.
_ORACLE = (
    "(lambda secret, draw, used, budget: (lambda queries: (lambda q: ("
    "(_ for _ in ()).throw(ValueError('the oracle takes a 0/1 vector of length n or a (k, n) 0/1 matrix')) "
    "if (q.ndim not in (1, 2) or q.shape[-1] != secret.size or not bool(np.all((q == 0) | (q == 1)))) "
    "else (_ for _ in ()).throw(RuntimeError('more subset counts asked than num_queries')) "
    "if (used.append(used.pop() + (1 if q.ndim == 1 else q.shape[0])) is None and budget is not None "
    "and used[0] > budget) "
    "else (float(q @ secret + draw(1)[0]) if q.ndim == 1 else q @ secret + draw(q.shape[0]))"
    "))(np.asarray(queries, dtype=float))))"
)
_NOISE = {
    "exact": "(lambda k: np.zeros(k))",
    "uniform": "(lambda g: (lambda k: g.integers(-{p}, {p} + 1, size=k).astype(float)))({g})",
    "laplace": "(lambda g: (lambda k: g.laplace(0.0, {p!r}, size=k)))({g})",
    "gaussian": "(lambda g: (lambda k: g.normal(0.0, {p!r}, size=k)))({g})",
}


def oracle_expr(secret: np.ndarray, noise: str, param: float = 0.0, seed: int = 0, budget: int | None = None) -> Expr:
    """An oracle over ``secret`` with the named noise (its own generator, seeded by ``seed``)."""
    bits = "[" + ",".join(str(int(b)) for b in np.asarray(secret).ravel()) + "]"
    draw = _NOISE[noise].format(p=int(param) if noise == "uniform" else float(param),
                                g=f"np.random.default_rng({int(seed)})")
    return Expr(f"{_ORACLE}(np.array({bits}, dtype=float), {draw}, [0], {budget!r})")


def _factory_expr(noise: str, factor: float) -> Expr:
    """``make_oracle(secret, noise_scale, rng)``: an oracle whose noise (drawn from the rng it is given) has
    scale ``factor * noise_scale``."""
    draws = {"gaussian": "(lambda k: rng.normal(0.0, s, size=k))",
             "exact": "(lambda k: np.zeros(k))"}[noise]
    return Expr(f"lambda secret, noise_scale, rng: (lambda s: {_ORACLE}(np.asarray(secret, dtype=float).ravel(), "
                f"{draws}, [0], None))({float(factor)!r} * float(noise_scale))")


# The grader's attacks for q3 (not reconstructions: one guesses "no" for everyone, the other asks
# each record's own count once and rounds it, whose success rate is known exactly).
ALL_NO = Expr("lambda oracle, n, num_queries, rng: np.zeros(int(n), dtype=int)")
ONE_BY_ONE = Expr("lambda oracle, n, num_queries, rng: "
                  "(np.asarray(oracle(np.eye(int(n))), dtype=float) > 0.5).astype(int)")


def _bit(value, what: str) -> int:
    array = as_array(value, what)
    require(array.size == 1 and float(array.reshape(())) in (0.0, 1.0), f"{what} must return 0 or 1")
    return int(array.reshape(()))


def _secret(g: np.random.Generator, n: int, low: float = 0.3, high: float = 0.7) -> np.ndarray:
    return (g.random(n) < g.uniform(low, high)).astype(int)


# --------------------------------------------------------------------------- q1 differencing_attack
def _differencing_rate(sb, ctx, noise: str, param: float, trials_per_bit: int, what: str) -> tuple[int, int]:
    """Right guesses when the target's bit is 0 and when it is 1 (``trials_per_bit`` each)."""
    g = ctx.rng()
    right = [0, 0]
    for bit in (0, 1):
        for trial in range(trials_per_bit):
            n = int(g.integers(5, 200))
            secret = _secret(g, n)
            target = int(g.integers(n))
            secret[target] = bit
            oracle = oracle_expr(secret, noise, param, int(g.integers(2**62)))
            if trial % 2:
                guess = sb.call("differencing_attack", oracle, n, target)
            else:
                guess = sb.call("differencing_attack", oracle=oracle, n=np.int64(n), target=np.int64(target))
            right[bit] += _bit(guess, what) == bit
    return right[0], right[1]


def q1_exact(sb, ctx):
    zero, one = _differencing_rate(sb, ctx, "exact", 0.0, 15, "differencing_attack")
    require(zero == 15 and one == 15, "differencing_attack: with exact answers the two counts reveal the target's "
                                      "bit every time; your guess was wrong on some hidden columns (do your two "
                                      "sets differ in the target only, and is the guess the bit the counts point to?)")


def uniform_success(bound: int) -> float:
    """P[guess right] for the maximum-likelihood guess from two answers with uniform noise on -E..E."""
    return 0.5 + 0.5 / (2 * bound + 1)


def laplace_success(scale: float) -> float:
    """P[L1 - L2 < 1/2] for two independent Laplace(scale) draws."""
    x = 0.5 / scale
    return 1 - 0.5 * np.exp(-x) * (1 + x / 2)


def laplace_success_one_answer(scale: float) -> float:
    """P[L < 1/2] for one Laplace(scale) draw: the rate when the second set is empty (its true count, 0, is
    known, so the guess may rest on the target's set alone), which the question allows."""
    return 1 - 0.5 * np.exp(-0.5 / scale)


def _fits(zero: int, one: int, trials: int, p: float, what: str) -> bool:
    try:
        binomial_fits(zero, trials, p, what)
        binomial_fits(one, trials, p, what)
    except CheckFailed:
        return False
    return True


def _rate_law(zero: int, one: int, trials: int, p: float | tuple[float, ...], what: str) -> None:
    if not any(_fits(zero, one, trials, rate, what) for rate in np.atleast_1d(p)):
        raise CheckFailed(f"{what}: over many hidden columns the guess was right at a rate that two noisy answers "
                          "cannot give, when the target's bit is 0 or when it is 1 (ask exactly two counts, and "
                          "guess the bit that makes the difference you saw more likely)") from None


def q1_uniform(sb, ctx):
    bound = int(ctx.rng().integers(1, 3))
    zero, one = _differencing_rate(sb, ctx, "uniform", bound, 150, "differencing_attack")
    _rate_law(zero, one, 150, uniform_success(bound), "differencing_attack with bounded integer noise")


def q1_laplace(sb, ctx):
    scale = float(ctx.rng().uniform(0.3, 0.6))
    zero, one = _differencing_rate(sb, ctx, "laplace", scale, 150, "differencing_attack")
    _rate_law(zero, one, 150, (laplace_success(scale), laplace_success_one_answer(scale)),
              "differencing_attack with Laplace noise")


def q1_errors(sb, ctx):
    g = ctx.rng()
    n = int(g.integers(5, 50))
    oracle = oracle_expr(_secret(g, n), "exact")
    for target in (n, -1):
        require(raises(sb, "differencing_attack", oracle, n, target),
                "differencing_attack must raise ValueError when target is not one of 0, ..., n - 1")


# --------------------------------------------------------------------------- q2 reconstruct
def _reconstruct(sb, *args, **kwargs):
    """``reconstruct(...)``, with the oracle's RuntimeError (more counts asked than num_queries) named."""
    try:
        return sb.call("reconstruct", *args, **kwargs)
    except SandboxError as exc:
        if exc.kind == "error" and getattr(exc, "error_type", None) == "RuntimeError":
            raise CheckFailed("reconstruct raised RuntimeError, which the grader's oracles raise when asked for "
                              "more than num_queries counts in all: ask no more") from None
        raise


def _fraction(sb, secret, oracle, num_queries, g, what: str, by_keyword: bool = False) -> float:
    n = secret.size
    if by_keyword:
        guess = _reconstruct(sb, oracle=oracle, n=n, num_queries=num_queries, rng=g)
    else:
        guess = _reconstruct(sb, oracle, np.int64(n), num_queries, g)
    guess = as_array(guess, what).ravel()
    require(guess.shape == (n,), f"{what} must return one guess per record (an array of length n)")
    require(bool(np.all((guess == 0) | (guess == 1))), f"{what} must return 0/1 guesses")
    return float(np.mean(guess == secret))


def q2_random(sb, ctx):
    g = ctx.rng()
    n = int(g.integers(40, 80))
    secret = _secret(g, n)
    oracle_seed, seed = int(g.integers(2**62)), int(g.integers(2**62))

    def guess(s):
        oracle = oracle_expr(secret, "gaussian", 0.6 * np.sqrt(n), oracle_seed, budget=2 * n)
        return as_array(_reconstruct(sb, oracle, n, 2 * n, np.random.default_rng(s)), "reconstruct").ravel()

    first = guess(seed)
    require(np.array_equal(first, guess(seed)), "reconstruct: the same generator state (and the same oracle) must "
                                                "give the same guess: draw the random sets from rng")
    require(any(not np.array_equal(first, guess(seed + i)) for i in range(1, 5)),
            "reconstruct: different generators must ask different random sets (draw them from rng)")


def q2_exact(sb, ctx):
    g = ctx.rng()
    for by_keyword in (False, True):
        n = int(g.integers(50, 150))
        m = int(g.integers(3 * n // 2, 2 * n + 1))
        secret = _secret(g, n)
        got = _fraction(sb, secret, oracle_expr(secret, "exact", budget=m), m, ctx.rng(), "reconstruct", by_keyword)
        require(got == 1.0, "reconstruct: with exact answers to more random counts than records, every bit is "
                            "determined; your guess got some wrong on a hidden column")


SMALL_NOISE_FLOOR = 0.95  # fraction recovered at Gaussian noise of sd 0.1 sqrt(n) from 4n counts (see false_failures)


def q2_small_noise(sb, ctx):
    g = ctx.rng()
    n = int(g.integers(100, 160))
    secret = _secret(g, n)
    oracle = oracle_expr(secret, "gaussian", 0.1 * np.sqrt(n), int(g.integers(2**62)), budget=4 * n)
    got = _fraction(sb, secret, oracle, 4 * n, ctx.rng(), "reconstruct", by_keyword=True)
    require(got >= SMALL_NOISE_FLOOR,
            f"reconstruct: with 4n random counts and Gaussian noise of standard deviation 0.1 sqrt(n), a "
            f"reconstruction recovers at least {SMALL_NOISE_FLOOR:.0%} of a hidden column; yours recovered less")


LARGE_NOISE_MARGIN = 0.2  # points above the majority guess that no attack reaches at noise 20 sqrt(n) (below)


def q2_large_noise(sb, ctx):
    # At noise sd 20 sqrt(n) an answer (a count of variance at most n / 4) carries at most
    # 0.5 ln(1 + 1/1600) nats about the column, 2n answers at most 0.000625 n nats, so (Pinsker, bit by bit:
    # the bits are independent) no attack, adaptive or not, beats the best guess from the prior by more than
    # sqrt(0.000625 / 2) = 0.018 of the column in expectation; the margin leaves 0.18, five standard
    # deviations of a fraction over n >= 200 records. Reading the column out of the oracle gives 1.
    g = ctx.rng()
    n = int(g.integers(200, 261))
    secret = _secret(g, n)
    oracle = oracle_expr(secret, "gaussian", 20 * np.sqrt(n), int(g.integers(2**62)), budget=2 * n)
    got = _fraction(sb, secret, oracle, 2 * n, ctx.rng(), "reconstruct")
    majority = max(secret.mean(), 1 - secret.mean())
    require(got <= majority + LARGE_NOISE_MARGIN,
            "reconstruct: with noise of standard deviation 20 sqrt(n) on 2n counts no attack can recover much more "
            "than guessing the majority bit for everyone; yours recovered far more (does it use anything but the "
            "oracle's answers?)")


def q2_errors(sb, ctx):
    oracle = oracle_expr(np.array([0, 1, 1]), "exact")
    require(raises(sb, "reconstruct", oracle, 3, 0, np.random.default_rng(1)),
            "reconstruct must raise ValueError when num_queries is smaller than 1")


# --------------------------------------------------------------------------- q3 recovery_experiment
def _experiment(sb, attack, factory, n, m, scales, runs, g, what, by_keyword=False):
    if by_keyword:
        value = sb.call("recovery_experiment", attack=attack, make_oracle=factory, n=n, num_queries=m,
                        noise_scales=scales, num_runs=runs, rng=g)
    else:
        value = sb.call("recovery_experiment", attack, factory, n, m, scales, runs, g)
    if isinstance(value, np.ndarray) and value.ndim == 2 and value.shape[0] == 2:
        value = (value[0], value[1])  # np.array([means, standard_errors]) is two arrays too
    require(isinstance(value, (list, tuple)) and len(value) == 2,
            f"{what} must return two arrays: the mean fraction recovered and its standard error")
    means, errors = as_array(value[0], what).ravel(), as_array(value[1], what).ravel()
    k = len(scales)
    require(means.shape == (k,) and errors.shape == (k,), f"{what}: one mean and one standard error per noise scale")
    require(bool(np.all((means >= 0) & (means <= 1))), f"{what}: a fraction recovered lies in [0, 1]")
    require(bool(np.all(np.isfinite(errors) & (errors >= 0))), f"{what}: standard errors are finite and >= 0")
    return means, errors


def q3_shape(sb, ctx):
    scales = [0.0, 1.0, 3.0]
    seed = int(ctx.rng().integers(2**62))
    factory = _factory_expr("gaussian", 1.0)
    first = _experiment(sb, ONE_BY_ONE, factory, 20, 20, scales, 3, np.random.default_rng(seed), "recovery_experiment")
    again = _experiment(sb, ONE_BY_ONE, factory, 20, 20, np.array(scales), 3, np.random.default_rng(seed),
                        "recovery_experiment", by_keyword=True)
    require(all(np.array_equal(a, b) for a, b in zip(first, again, strict=False)),
            "recovery_experiment: the same generator state must give the same result (draw every random number "
            "from rng, and pass rng on to make_oracle and attack)")
    require(raises(sb, "recovery_experiment", ONE_BY_ONE, factory, 10, 10, scales, 1, np.random.default_rng(seed)),
            "recovery_experiment must raise ValueError when num_runs is smaller than 2 (no standard error from one run)")


def _law(means, errors, p, n, runs, what: str) -> None:
    """Each run's fraction is Binomial(n, p) / n: the total of right guesses is Binomial(n * runs, p), and
    the standard error tracks sqrt(p (1 - p) / (n * runs))."""
    for mean, error, prob in zip(means, errors, np.broadcast_to(p, means.shape), strict=False):
        total = mean * n * runs
        require(abs(total - round(total)) < 1e-6,
                f"{what}: the mean must be the average, over the runs, of the fraction of bits guessed right")
        binomial_fits(int(round(total)), n * runs, float(prob), what)
        expected = np.sqrt(prob * (1 - prob) / (n * runs))
        # the sample sd of 30 runs' binomial fractions over sqrt(30): between 0.35 and 2.2 times the expected
        # standard error (a million simulated experiments per setting gave 0.39 to 1.81), checked where the
        # expected standard error is at least 0.01 (at least about 2.7 wrong bits per run: not too discrete)
        if expected >= 0.01:
            require(0.35 * expected < error < 2.2 * expected,
                    f"{what}: the standard error must be the spread of the runs' fractions over sqrt(num_runs)")


def q3_attack(sb, ctx):
    g = ctx.rng()
    n, runs = int(g.integers(30, 60)), 30
    means, errors = _experiment(sb, ALL_NO, _factory_expr("exact", 0.0), n, n, [0.0, 2.0], runs, ctx.rng(),
                                "recovery_experiment")
    try:
        _law(means, errors, 0.5, n, runs, "recovery_experiment")
    except CheckFailed:
        raise CheckFailed("recovery_experiment: with an attack that guesses 0 for everyone, fair-coin columns give "
                          "about half the bits right in every run; yours did not (does the experiment run the "
                          "attack it is given on fresh fair-coin columns, and compare its guess with the column?)"
                          ) from None


def q3_oracle(sb, ctx):
    g = ctx.rng()
    n, runs = int(g.integers(30, 60)), 30
    # the oracle's noise sd is factor * noise_scale, with factor away from 1 (a closed form that assumes
    # noise_scale is the sd fails)
    factor = float(g.choice([-1, 1]) * np.log(g.uniform(1.3, 1.6)))
    factor = float(np.exp(factor))
    scales = np.array([0.0, 0.25, 0.5, 1.0, 4.0])
    means, errors = _experiment(sb, ONE_BY_ONE, _factory_expr("gaussian", factor), n, n, scales, runs, ctx.rng(),
                                "recovery_experiment", by_keyword=True)
    with np.errstate(divide="ignore"):
        p = stats.norm.cdf(0.5 / (factor * scales))  # a record's own count, rounded: right iff the noise is < 1/2
    try:
        _law(means, errors, p, n, runs, "recovery_experiment")
    except CheckFailed:
        raise CheckFailed("recovery_experiment: run with the grader's oracles and attack, the fractions recovered "
                          "did not follow the noise of the oracles make_oracle builds (does the experiment build "
                          "each oracle with make_oracle(secret, noise_scale, rng) at every noise scale?)") from None


QUESTIONS = [
    Question("q1", ["differencing_attack"], [
        # first, a gate worth no points of its own: a rate above what two answers allow (more counts, or the
        # column read out of the oracle) voids the other checks
        Check("success rate with bounded integer noise", 0.0, q1_uniform, statistical=True, gate=True),
        Check("right every time with exact answers", 1.25, q1_exact),
        Check("success rate with Laplace noise", 1.25, q1_laplace, statistical=True),
        Check("a target outside the dataset raises ValueError", 0.5, q1_errors)]),
    Question("q2", ["reconstruct"], [
        # first, a gate worth no points of its own: a score above what the answers carry (the column read out
        # of the oracle) voids the other checks
        Check("no more than the noise allows at noise far above sqrt(n)", 0.0, q2_large_noise, statistical=True,
              gate=True),
        Check("random sets drawn from rng", 0.25, q2_random, gate=True),
        Check("the whole column from exact answers", 1.5, q2_exact),
        Check("most of the column at small noise", 2.0, q2_small_noise, statistical=True),
        Check("num_queries below 1 raises ValueError", 0.25, q2_errors)]),
    Question("q3", ["recovery_experiment"], [
        Check("same generator, same result; one run raises ValueError", 0.25, q3_shape, gate=True),
        Check("runs the attack it is given on fair-coin columns", 1.0, q3_attack, statistical=True),
        Check("follows the noise of the oracles make_oracle builds", 1.75, q3_oracle, statistical=True)]),
    Question("q4", [], [], manual_points=4.0),  # written: rubric in book/assignments/masters/written_answers.md
    Question("q5", [], [], manual_points=3.0),  # written: rubric in book/assignments/masters/written_answers.md
]

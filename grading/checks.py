"""Building blocks of the hidden checks: each runs in the grading process on plain numbers.

A check is a function ``check(sb, ctx)``: it calls the student's answers through the sandbox
``sb`` and raises :class:`CheckFailed` with a fixed message naming the property that failed.
``ctx`` gives fresh generators derived from the grading run's seed, which every failure message
prints so the failure can be reproduced (``python -m grading ... --seed S``).

Statistical checks use a significance level of :data:`ALPHA` (or tolerances of at least five
standard errors), so a correct answer fails one of them far less than once in 10,000 runs;
``benchmarks/``-style measurement: ``python -m grading.false_failures``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from scipy import stats

ALPHA = 1e-6  # p-value below which a distribution test fails


class CheckFailed(AssertionError):
    """A property of the answer does not hold: the message is shown to the student."""


@dataclass
class Check:
    title: str  # the property, as the student reads it
    points: float
    run: Callable[[Any, Context], None]
    public: bool = False  # the same property (on the same inputs) is in the public tests
    statistical: bool = False  # can fail by chance on a correct answer (measured by false_failures)
    gate: bool = False  # a precondition (output depends on rng, same law on every input): if it fails,
    # the later checks of the question score 0
    essential: bool = False  # a mechanism's privacy or the law of its output: if it fails, the whole
    # question scores 0 (a mechanism that is not private earns nothing for its other properties)


@dataclass
class Question:
    name: str
    answers: list[str]
    checks: list[Check]
    manual_points: float = 0.0  # a written answer, graded by hand (not by the checks)

    @property
    def manual(self) -> bool:
        return self.manual_points > 0

    @property
    def points(self) -> float:
        return self.manual_points if self.manual else float(sum(c.points for c in self.checks))


@dataclass
class Context:
    seed: int
    _count: list[int] = field(default_factory=lambda: [0])

    def rng(self) -> np.random.Generator:
        """A fresh generator (different for every call within one grading run), reproducible from the
        run's seed. Its seed is a 128-bit number derived by hashing, as ``np.random.default_rng()``
        draws one: the generator does not carry the grading seed, nor look different from a student's
        own unseeded generator."""
        import hashlib

        self._count[0] += 1
        digest = hashlib.sha256(f"{self.seed}:{self._count[0]}".encode()).digest()
        return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def require(condition: Any, message: str) -> None:
    if not bool(condition):
        raise CheckFailed(message)


def as_array(value: Any, what: str, dtype: Any = float) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError):
        raise CheckFailed(f"{what} must be a number or an array of numbers") from None
    return array


def as_float(value: Any, what: str) -> float:
    array = as_array(value, what)
    require(array.size == 1, f"{what} must be a single number")
    return float(array.reshape(()))


def close(got: Any, want: Any, what: str, rtol: float = 1e-9, atol: float = 1e-12) -> None:
    got_a = as_array(got, what)
    want_a = np.asarray(want, dtype=float)
    require(got_a.shape == want_a.shape, f"{what}: the result has the wrong shape")
    require(np.allclose(got_a, want_a, rtol=rtol, atol=atol, equal_nan=True), f"{what}: wrong value")


def first_calls(sb, name: str, arguments: list[tuple[tuple, dict]]) -> list[Any]:
    """``name(*args, **kwargs)`` for each entry, each in a fresh copy of the executed notebook: the
    answer's first use, as a real release would be (a mechanism that is exact the first time it sees
    an input and honest afterwards fails a law test on these). About 10 ms per call."""
    out = []
    for args, kwargs in arguments:
        sb.end_question()
        sb.begin_question()
        out.append(sb.call(name, *args, **kwargs))
    sb.end_question()
    sb.begin_question()
    return out


def raises(sb, name: str, *args: Any) -> bool:
    """Whether ``name(*args)`` raises ValueError in the sandbox."""
    from .sandbox import SandboxError

    try:
        sb.call(name, *args)
    except SandboxError as exc:
        if exc.kind in ("timeout", "crashed", "missing"):
            raise
        return exc.error_type == "ValueError"
    return False


def reproducible_and_random(sb, name: str, make_args: Callable[[np.random.Generator], tuple], ctx: Context,
                            what: str) -> None:
    """Same generator state -> same output; different seeds -> different outputs. Generators cross
    into the sandbox with their seed sequence, so ``rng.spawn`` and ``rng.bit_generator`` work there
    as in the student's own kernel."""
    seed = int(ctx.rng().integers(2**62))
    first = _flat(sb.call(name, *make_args(np.random.default_rng(seed))), what)
    again = _flat(sb.call(name, *make_args(np.random.default_rng(seed))), what)
    require(np.array_equal(first, again, equal_nan=True),
            f"{what}: the same generator state must give the same output (draw every random number from rng)")
    # five other seeds: a discrete output (a frequency, say) can repeat by chance, all five cannot
    others = [_flat(sb.call(name, *make_args(np.random.default_rng(seed + i))), what) for i in range(1, 6)]
    require(any(not np.array_equal(first, other, equal_nan=True) for other in others),
            f"{what}: different generators must give different outputs (is the noise really random?)")


def randomness(name: str, make_args: Callable[[np.random.Generator], tuple]) -> Callable[[Any, Context], None]:
    """The check of a randomized answer ``name``: :func:`reproducible_and_random` on ``make_args(g)``."""

    def run(sb, ctx: Context) -> None:
        reproducible_and_random(sb, name, make_args, ctx, name)

    return run


# ----------------------------------------------------------------------------- behaviour of a mechanism
# These replace draw counting: they test what a released output reveals, which is what privacy is about.

KOLMOGOROV_FLOOR = 0.27  # P[sqrt(n) D_n < 0.27] < 1e-6 for n independent draws (Kolmogorov's law)


def not_too_regular(samples: np.ndarray, cdf: Callable[[np.ndarray], np.ndarray], what: str) -> None:
    """Independent draws scatter around their law: ``sqrt(n) * D_n`` (the Kolmogorov-Smirnov
    statistic) falls below 0.27 with probability under 1e-6. Noise made of the law's exact quantiles
    in random order (or any stratified sample) sits far closer to the law and fails."""
    samples = np.asarray(samples, dtype=float).ravel()
    require(samples.size >= 1000 and np.all(np.isfinite(samples)), f"{what}: the output has NaN or infinite values")
    statistic = stats.kstest(samples, cdf).statistic
    require(np.sqrt(samples.size) * statistic > KOLMOGOROV_FLOOR,
            f"{what}: the noise values are more evenly spread than independent random draws can be "
            "(each value must be drawn independently, not placed on a grid or on the law's quantiles)")


def counts_vary_binomially(counts: np.ndarray, trials: int, p: float, what: str) -> None:
    """Counts from separate calls (each ``trials`` independent events of probability ``p``) vary
    across calls as Binomial(trials, p) counts do. The dispersion statistic
    ``sum((c - trials p)^2) / (trials p (1 - p))`` over ``m`` calls is close to chi-square with ``m``
    degrees of freedom; both tails are tested at :data:`ALPHA`. A mechanism that flips exactly
    round(p * trials) positions (releasing the true count, though each position looks random) has a
    statistic near 0 and fails; so does one whose counts vary too much."""
    counts = np.asarray(counts, dtype=float).ravel()
    require(counts.size >= 20, f"{what}: too few calls")
    variance = trials * p * (1 - p)
    require(variance > 0, f"{what}: degenerate law")
    statistic = float(np.sum((counts - trials * p) ** 2) / variance)
    low, high = stats.chi2.cdf(statistic, counts.size), stats.chi2.sf(statistic, counts.size)
    require(low > ALPHA and high > ALPHA,
            f"{what}: the number of flipped answers must vary from call to call as independent flips do")


def coupled_additive(out_a: np.ndarray, out_b: np.ndarray, shift: np.ndarray, what: str) -> None:
    """Releases of an additive mechanism (value + noise) on two neighbouring inputs, computed from the
    SAME generator state, differ by the difference of the values, entry by entry: the noise is the same
    draw. With values that are multiples of 2**-10 (the callers choose them so), two outputs in the same
    binade differ by EXACTLY that difference (Sterbenz: the sums round alike and the subtraction is
    exact), so any information about the input carried in the release's digits (a parity in bit 0, a
    value in low bits, a sign of zero) breaks the equality; outputs in different binades must agree to
    a few units in the last place. Honest noise drawn in the same order whatever the values passes."""
    a = np.asarray(out_a, dtype=np.float64).ravel()
    b = np.asarray(out_b, dtype=np.float64).ravel()
    d = np.broadcast_to(np.asarray(shift, dtype=np.float64), a.shape).ravel()
    require(a.shape == b.shape, f"{what}: the releases on the two inputs have different shapes")
    require(np.all(np.isfinite(a)) and np.all(np.isfinite(b)), f"{what}: the output has NaN or infinite values")
    message = (f"{what}: with the same generator state, releases on neighbouring inputs must differ only by the "
               "difference of the values (release value + noise in float64, drawing the noise in the same order "
               "whatever the values, with no rounding)")
    same = (np.frexp(a)[1] == np.frexp(b)[1]) & (np.sign(a) == np.sign(b)) & (a != 0)
    require(np.array_equal((a - b)[same], d[same]), message)
    tolerance = 16 * np.spacing(np.maximum(np.maximum(np.abs(a), np.abs(b)), np.abs(d)) + 1e-300)
    require(np.all(np.abs((a - b) - d) <= tolerance) and np.array_equal(np.signbit(a[d == 0]), np.signbit(b[d == 0])),
            message)


def low_bits_same_law(outputs_a: np.ndarray, outputs_b: np.ndarray, what: str) -> None:
    """The low-order bits of float outputs on two neighbouring inputs follow the same law, and are not
    constant. A release whose mantissa hides the input (noise with its low bits replaced) fails.

    Honest noise added in floating point has one exception, which the test avoids: when the sum
    cancels (``theta + noise`` much smaller than the noise), the result is exact and ends in zero bits
    whose number depends on ``theta``. So only the outputs in the top quarter of ``|output|`` of each
    input are compared, where ``|noise| <= 2 |output|`` and at most the lowest bit is forced; bit 0
    is left out (a release could still carry one bit of the input there). Each of bits 1 up to 40 (fewer
    where the noise is small against the value: only the bits the noise randomizes) must take both
    values, and each group of four of them (bits 1-4, 5-8, ...) must follow the same law
    on both inputs (chi-square tests of homogeneity at :data:`ALPHA`). Releases in float64 without
    rounding pass; rounding, float32 or a grid (snapping) leave low bits constant and fail, so the
    questions ask for value + noise in float64."""
    a = np.asarray(outputs_a, dtype=np.float64).ravel()
    b = np.asarray(outputs_b, dtype=np.float64).ravel()
    require(a.size >= 2000 and b.size >= 2000, f"{what}: too few outputs")
    require(np.all(np.isfinite(a)) and np.all(np.isfinite(b)), f"{what}: the output has NaN or infinite values")
    a = a[np.abs(a) >= np.quantile(np.abs(a), 0.75)]
    b = b[np.abs(b) >= np.quantile(np.abs(b), 0.75)]
    bits_a = np.ascontiguousarray(a).view(np.uint64)
    bits_b = np.ascontiguousarray(b).view(np.uint64)
    # the bits the noise randomizes: about log2(spread / ulp) of them; the higher ones follow the value
    top = 40
    for sample in (a, b):
        spread = float(np.subtract(*np.quantile(sample, [0.75, 0.25])))
        ulp = float(np.spacing(np.max(np.abs(sample))))
        top = min(top, int(np.floor(np.log2(spread / ulp))) - 3 if spread > 0 and ulp > 0 else 0)
    top -= (top - 1) % 4  # whole groups of four bits: 1-4, 5-8, ...
    require(top >= 5, f"{what}: the outputs barely vary (is the noise random?)")
    for bits in (bits_a, bits_b):
        ones = np.array([np.count_nonzero((bits >> np.uint64(k)) & np.uint64(1)) for k in range(1, top)])
        require(np.all((ones > 0) & (ones < bits.size)),
                f"{what}: some of the lowest digits of the outputs never change (is the noise random, and is the "
                "output computed as value + noise?)")
    for shift in range(1, top, 4):
        byte_a = ((bits_a >> np.uint64(shift)) & np.uint64(0xF)).astype(int)
        byte_b = ((bits_b >> np.uint64(shift)) & np.uint64(0xF)).astype(int)
        table = np.stack([np.bincount(byte_a, minlength=16), np.bincount(byte_b, minlength=16)])
        table = table[:, table.sum(axis=0) > 0]
        p_value = stats.chi2_contingency(table, correction=False).pvalue
        require(p_value > ALPHA, f"{what}: the lowest digits of the outputs depend on the input (a release may "
                                 "not carry the input in its last bits)")
def same_law(small: np.ndarray, large: np.ndarray, what: str) -> None:
    """Two-sample Kolmogorov-Smirnov test: the outputs on small inputs follow the law of those on large ones."""
    small, large = np.asarray(small, dtype=float).ravel(), np.asarray(large, dtype=float).ravel()
    require(np.all(np.isfinite(small)) and np.all(np.isfinite(large)), f"{what}: the output has NaN or infinite values")
    require(stats.ks_2samp(small, large).pvalue > ALPHA,
            f"{what}: the noise must follow the same law on every input (single values, few or many entries, "
            "small or large values)")


def _flat(value: Any, what: str) -> np.ndarray:
    if isinstance(value, (tuple, list)):
        return np.concatenate([as_array(v, what).ravel() for v in value]) if value else np.zeros(0)
    return as_array(value, what).ravel()


def ks_fits(samples: np.ndarray, cdf: Callable[[np.ndarray], np.ndarray], what: str) -> None:
    samples = np.asarray(samples, dtype=float).ravel()
    require(np.all(np.isfinite(samples)), f"{what}: the output has NaN or infinite values")
    p_value = stats.kstest(samples, cdf).pvalue
    require(p_value > ALPHA, f"{what}: the distribution of the output does not follow the right law")


def binomial_fits(successes: int, trials: int, p: float, what: str) -> None:
    p_value = stats.binomtest(int(successes), int(trials), float(p)).pvalue
    require(p_value > ALPHA, f"{what}: the frequency does not match the right probability")


def chisquare_fits(observed: np.ndarray, probabilities: np.ndarray, what: str, min_expected: float = 20) -> None:
    observed = np.asarray(observed, dtype=float)
    expected = observed.sum() * np.asarray(probabilities, dtype=float)
    keep = expected >= min_expected
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    if exp[-1] < min_expected:  # merge the small rest into the last kept bin
        obs, exp = np.append(obs[:-2], obs[-2:].sum()), np.append(exp[:-2], exp[-2:].sum())
    p_value = stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue
    require(p_value > ALPHA, f"{what}: the distribution of the output does not follow the right law")


def privacy_holds(outputs_a: np.ndarray, outputs_b: np.ndarray, epsilon: float, bins: np.ndarray,
                  what: str, min_count: int = 300) -> None:
    """Empirical DP check on neighbouring inputs: in every well-filled bin the frequencies under
    the two inputs differ by at most e^epsilon (five standard errors of slack); an output range
    reached under one input and (almost) never under the other fails."""
    a = np.histogram(np.asarray(outputs_a, dtype=float).ravel(), bins=bins)[0].astype(float)
    b = np.histogram(np.asarray(outputs_b, dtype=float).ravel(), bins=bins)[0].astype(float)
    na, nb = np.asarray(outputs_a).size, np.asarray(outputs_b).size
    require(a.sum() > 0.5 * na and b.sum() > 0.5 * nb, f"{what}: the outputs are far from the input")
    for big, small, n_big, n_small in ((a, b, na, nb), (b, a, nb, na)):
        filled = big >= min_count
        if not np.any(filled):
            continue
        small_f = np.maximum(small[filled], 0.5) / n_small
        big_f = big[filled] / n_big
        log_ratio = np.log(big_f / small_f)
        se = np.sqrt(1 / big[filled] + 1 / np.maximum(small[filled], 0.5))
        require(np.all(log_ratio <= epsilon + 5 * se + 0.02),
                f"{what}: on two neighbouring inputs the outputs are distinguishable beyond e^epsilon "
                "(is the release noisy enough, and is the noise random?)")


def laplace_centre_fits(noise: np.ndarray, scale: float, what: str) -> None:
    """Exact binomial test of P[|noise| < 0.2 scale] = 1 - e^-0.2: the Laplace peak at zero, which
    Gaussian noise of the same variance lacks (0.113 instead of 0.181)."""
    noise = np.asarray(noise, dtype=float).ravel()
    binomial_fits(int(np.sum(np.abs(noise) < 0.2 * scale)), noise.size, 1 - np.exp(-0.2), what)


def laplace_cdf(scale: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: stats.laplace.cdf(x, scale=scale)

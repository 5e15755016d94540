"""Hidden checks of assignment 4 (private histograms of a multi-tick survey, RDP, an L1 projection).

The questions ask for what the chapters do not print: the noise scale when each respondent may tick up
to m cells (q1; the chapters do m = 1), the smallest n at which the part of ch12's sharper bad-event
theorem that survives answers with no tick guarantees (eps, gamma)-RDP (q2: U_{k,n} needs every
respondent to tick a cell, which this survey does not promise), the sparse release of
a multi-tick survey (q3), the exact L1 projection onto the share vectors such a survey can produce
(q4: bounded cells and a sum at most m n, not the chapter's histograms of n observations), and the
bias-noise trade-off of truncating every respondent to m ticks (q5, q6).

No reference projection lives here: q4 is checked by brute force on small cases and by the exchange
conditions of a separable convex problem over an M-natural-convex set (no unit added, removed or moved
lowers the cost), which are sufficient for global optimality. q5 runs the student's simulation on a
mechanism of the grader's own (Gaussian noise of a scale drawn per run) and compares it with the
grader's own simulation of that mechanism, and on releases shifted by +-5 per cell, whose loss tells which
ticks were dropped; q6 compares with the exact risk of the right Laplace release. The mechanisms of q1 and
q3 are tested on many small surveys of a number of cells drawn per run (2 to 1,000), pooled: law,
regularity, privacy on neighbouring cells, and releases on neighbouring surveys from the same generator
state (coupled_additive: nothing of the counts in the last digits).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import stats

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
    privacy_holds,
    raises,
    randomness,
    reproducible_and_random,
    require,
    same_law,
)
from ..sandbox import Expr, Ref

NAME = "a4_rdp_histograms"


def _scale(n, k, m, epsilon):
    return min(2 * m, k) / (n * epsilon)


# ---------------------------------------------------------------- first use (q1 and q3)
# Surveys of 2 to 9 cells, 10 to 99 and 100 to 999, 16 in each range, each released once by a fresh copy of the
# notebook with a generator of its own: a mechanism exact the first time it sees an input (and honest on the
# repeated calls of the other checks) is seen as it would be used, where every survey is released once.
FIRST_USE_CELLS = ((2, 10), (10, 100), (100, 1_000))
FIRST_USE_CALLS = 16
CENTRE = 0.25  # P[|L| < 0.25] = 1 - e^-0.25 = 0.221 for a standard Laplace L


def _first_use_sizes(g, low, high, count):
    """count numbers of cells in [low, high), log-uniform and stratified (one in each of count equal slices
    of the log range), so that the number of cells per range hardly varies."""
    edges = np.linspace(np.log(low), np.log(high), count + 1)
    return np.clip(np.exp(g.uniform(edges[:-1], edges[1:])).astype(int), low, high - 1)


def _first_use_law(noise_by_range, name):
    """The noise in units of the scale, pooled per range of sizes, is standard Laplace (KS test), and the
    share of values within CENTRE of 0 is 1 - e^-CENTRE (exact binomial test). An exact release (noise 0)
    fails the second with p near 0.221^n, n the noisy cells of the smallest range: about 70 for tick_shares
    and 50 for sparse_tick_shares (rarely under 35: 0.221^35 < 1e-22)."""
    for (low, high), noise in zip(FIRST_USE_CELLS, noise_by_range, strict=True):
        noise = np.concatenate(noise) if noise else np.zeros(0)
        what = (f"{name} on its first use (fresh surveys of {low} to {high - 1} cells, each released once by a fresh "
                "copy of your notebook)")
        require(np.all(np.isfinite(noise)), f"{what}: the output has NaN or infinite values")
        binomial_fits(int(np.sum(np.abs(noise) < CENTRE)), noise.size, 1 - np.exp(-CENTRE),
                      f"{what}: the share of releases within a quarter of the scale of the true shares (every release "
                      "must carry its own Laplace noise, the first one for an input too)")
        ks_fits(noise, stats.laplace.cdf, f"{what}: the noise in units of the scale")


def _first_use_survey(g, k, n):
    """counts of k cells that n respondents ticking at most m cells each can produce (m and epsilon drawn)."""
    m = int(g.integers(1, k + 1))
    counts = g.integers(0, min(n, n * m // k) + 1, k)
    return counts, m, float(g.uniform(0.1, 3.0))


def q1_first_use(sb, ctx):
    g = ctx.rng()
    arguments, surveys, ranges = [], [], []
    for band, (low, high) in enumerate(FIRST_USE_CELLS):
        for i, k in enumerate(_first_use_sizes(g, low, high, FIRST_USE_CALLS)):
            n = int(g.integers(20, 5_000))
            counts, m, epsilon = _first_use_survey(g, int(k), n)
            if i % 2:
                arguments.append(((), {"counts": counts, "n": n, "m": m, "epsilon": epsilon, "rng": ctx.rng()}))
            else:
                arguments.append(((counts, n, m, epsilon, ctx.rng()), {}))
            surveys.append((counts, n, m, epsilon))
            ranges.append(band)
    noise = [[] for _ in FIRST_USE_CELLS]
    for band, (counts, n, m, epsilon), raw in zip(ranges, surveys, first_calls(sb, "tick_shares", arguments),
                                                  strict=True):
        z = as_array(raw, "tick_shares")
        require(z.shape == counts.shape, "tick_shares: one value per cell (the output must have the shape of counts)")
        noise[band].append((z - counts / n) / _scale(n, counts.size, m, epsilon))
    _first_use_law(noise, "tick_shares")


def q3_first_use(sb, ctx):
    """Half of the surveys meet the sparse condition (2k <= gamma n: the ticked cells are noisy), half do not
    (the fall-back: every cell is noisy); about half of the cells of each survey are empty."""
    g = ctx.rng()
    arguments, surveys, ranges = [], [], []
    for band, (low, high) in enumerate(FIRST_USE_CELLS):
        for i, k in enumerate(_first_use_sizes(g, low, high, FIRST_USE_CALLS)):
            k = int(k)
            if i % 2:  # the sparse case
                n = int(g.integers(4 * k, 4 * k + 5_000))
                gamma = min(0.5, 2 * k / n * float(g.uniform(1.05, 3.0)))
            else:  # the fall-back
                n = int(g.integers(20, 5_000))
                gamma = min(0.5, 2 * k / n * float(g.uniform(0.2, 0.9)))
            counts, m, epsilon = _first_use_survey(g, k, n)
            counts[g.random(k) < 0.5] = 0
            arguments.append(((counts, n, m, epsilon, gamma), {"rng": ctx.rng()}))
            surveys.append((counts, n, m, epsilon, 2 * k <= gamma * n))
            ranges.append(band)
    noise = [[] for _ in FIRST_USE_CELLS]
    for band, (counts, n, m, epsilon, sparse), raw in zip(ranges, surveys,
                                                          first_calls(sb, "sparse_tick_shares", arguments), strict=True):
        z = as_array(raw, "sparse_tick_shares")
        require(z.shape == counts.shape, "sparse_tick_shares: one value per cell")
        noisy = counts > 0 if sparse else np.ones(counts.size, bool)
        noise[band].append((z[noisy] - counts[noisy] / n) / _scale(n, counts.size, m, epsilon))
    _first_use_law(noise, "sparse_tick_shares")


# ---------------------------------------------------------------- q1
def q1_scale(sb, ctx):
    g = ctx.rng()
    cases = [(int(g.integers(10, 10_000)), int(g.integers(2, 60)), None, float(g.uniform(0.05, 3))) for _ in range(4)]
    cases = [(n, k, int(g.integers(1, k // 2 + 1)), e) for n, k, _, e in cases[:2]] + \
            [(n, k, int(g.integers(k // 2 + 1, k + 1)), e) for n, k, _, e in cases[2:]]
    for n, k, m, e in cases[:2]:
        close(sb.call("tick_noise_scale", n, k, m, e), _scale(n, k, m, e),
              "tick_noise_scale: not the smallest Laplace scale that makes the shares epsilon-DP (cases with 2m <= k)")
    for n, k, m, e in cases[2:]:
        close(sb.call("tick_noise_scale", n, k, m, e), _scale(n, k, m, e),
              "tick_noise_scale: not the smallest Laplace scale when 2m > k (how far apart can two respondents' "
              "answers be when there are only k cells?)")
    close(sb.call("tick_noise_scale", np.int64(400), np.int64(10), np.int64(2), np.float64(0.5)), 0.02,
          "tick_noise_scale must accept NumPy numbers (n = 400, k = 10, m = 2, epsilon = 0.5)", rtol=1e-9)


def _shares(sb, counts, n, m, epsilon, g, by_keyword=False):
    if by_keyword:
        z = sb.call("tick_shares", counts=counts, n=n, m=m, epsilon=epsilon, rng=g)
    else:
        z = sb.call("tick_shares", counts, n, m, epsilon, g)
    z = as_array(z, "tick_shares")
    require(z.shape == np.shape(counts), "tick_shares: one value per cell (the output must have the shape of counts)")
    return z


def _log_uniform_cells(g):
    """A number of cells from 2 to 1,000, log-uniform: small surveys are as likely as large ones."""
    return int(np.clip(np.round(np.exp(g.uniform(np.log(2), np.log(1000)))), 2, 1000))


def _coupled_surveys(sb, name, g, count, n, zeros, extra=()):
    """count surveys of a number of cells drawn per survey (2 to 1,000), each cell ticked by 2 or 3 of the n
    respondents (n a power of two: the shares are dyadic), half of the other cells empty when ``zeros``;
    m drawn from the possible ones (2m <= k and 2m > k), and epsilon = min(2m, k) / 2, so that the noise
    in count units is Laplace(2) in every survey. Each survey is released twice from the same generator
    state: as it is, and with one tick moved from a cell of 3 to a cell of 2 (a neighbour). Returns the
    pooled releases of both and the pooled counts of both."""
    out_a, out_b, counts_a, counts_b = [], [], [], []
    for i in range(count):
        k = _log_uniform_cells(g)
        order = g.permutation(k)
        counts = g.integers(2, 4, k)
        counts[order[0]], counts[order[1]] = 3, 2
        if zeros:
            counts[order[2:][g.random(k - 2) < 0.5]] = 0
        other = counts.copy()
        other[order[0]], other[order[1]] = 2, 3
        m = int(g.integers(max(1, -(-3 * k // n)), k + 1))
        epsilon = min(2 * m, k) / 2
        seed = int(g.integers(2**62))
        a = sb.call(name, counts, n, m, epsilon, *extra, np.random.default_rng(seed))
        if i % 2:
            b = sb.call(name, other, n, m, epsilon, *extra, rng=np.random.default_rng(seed))
        else:
            b = sb.call(name, other, n, m, epsilon, *extra, np.random.default_rng(seed))
        a, b = as_array(a, name), as_array(b, name)
        require(a.shape == (k,) and b.shape == (k,), f"{name}: one value per cell (the output must have the shape "
                                                     "of counts)")
        out_a.append(a)
        out_b.append(b)
        counts_a.append(counts)
        counts_b.append(other)
    return tuple(np.concatenate(x) for x in (out_a, out_b, counts_a, counts_b))


def _battery(a, b, ca, cb, n, noisy, what):
    """Noise independent in every cell (not the law's quantiles), neighbouring cell values within e^0.5
    (Laplace(2) in count units), and releases from one generator state on neighbouring surveys that differ
    by the difference of the shares alone."""
    require(np.all(np.isfinite(a)) and np.all(np.isfinite(b)), f"{what}: the output has NaN or infinite values")
    noise = n * a[noisy] - ca[noisy]
    not_too_regular(noise / 2, stats.laplace.cdf, what)
    privacy_holds(n * a[ca == 3], n * a[ca == 2], 0.5, np.linspace(-10, 15, 26),
                  f"{what} (cells ticked by 3 and by 2 respondents)")
    coupled_additive(a, b, (ca - cb) / n, f"{what}, on neighbouring surveys (one tick moved)")
    return noise / 2


def q1_mechanism(sb, ctx):
    """A private mechanism: random, independent noise in every cell (not the law's quantiles), and
    neighbouring surveys indistinguishable, down to the last digits, on large surveys and on many small
    ones of sizes drawn per run."""
    reproducible_and_random(sb, "tick_shares", lambda g: (np.array([5, 0, 3, 4]), 6, 2, 1.0, g), ctx, "tick_shares")
    a, b, ca, cb = _coupled_surveys(sb, "tick_shares", ctx.rng(), 80, 1024, zeros=False)
    _battery(a, b, ca, cb, 1024, np.ones(a.size, bool), "tick_shares on surveys of 2 to 1,000 cells")
    counts, n, m, epsilon = np.arange(20_000) % 4 + 1, 25_000, 2, 0.3
    z = _shares(sb, counts, n, m, epsilon, ctx.rng())
    noise = (z - counts / n) / _scale(n, counts.size, m, epsilon)  # standard Laplace if the answer is right
    require(np.all(np.isfinite(noise)), "tick_shares: the output has NaN or infinite values")
    require(np.unique(noise).size > 0.99 * noise.size,
            "tick_shares: the cells share noise values (every cell needs its own independent Laplace draw)")
    not_too_regular(noise, stats.laplace.cdf, "tick_shares")
    # cells ticked by 3 respondents and by 2 are neighbouring values of one cell (one respondent's tick
    # moved): in count units their releases may differ by at most e^(epsilon / min(2m, k))
    counts, n, m, epsilon = np.tile([3, 2], 20_000), 20_000, 5, 1.0
    z = _shares(sb, counts, n, m, epsilon, ctx.rng())
    privacy_holds(n * z[counts == 3], n * z[counts == 2], epsilon / (2 * m), np.linspace(-25, 30, 23),
                  "tick_shares")
    # the last digits, on cells of 101 and 100 respondents (the noise is small against the share there)
    counts, n, m = np.tile([101, 100], 10_000), 1_010_000, 2
    z = _shares(sb, counts, n, m, epsilon, ctx.rng())
    low_bits_same_law(z[counts == 101], z[counts == 100], "tick_shares")


def q1_law(sb, ctx):
    g = ctx.rng()
    for counts, n, m, epsilon in ((np.arange(20_000) % 4 + 1, 25_000, 2, 0.3),
                                  (np.r_[np.zeros(9_000, int), [40] * 1000], 400, 100, 2.0)):
        z = _shares(sb, counts, n, m, epsilon, g, by_keyword=True)
        ks_fits(z - counts / n, laplace_cdf(_scale(n, counts.size, m, epsilon)),
                f"tick_shares (m = {m}, 2m <= k): the noise")
    # few cells, more ticks allowed than half the cells: 300 surveys of 3 cells with m = 3
    small = np.concatenate([(_shares(sb, np.array([4, 0, 2]), 5, 3, 1.0, ctx.rng()) - [0.8, 0, 0.4]) / _scale(5, 3, 3, 1.0)
                            for _ in range(300)])
    ks_fits(small, stats.laplace.cdf, "tick_shares on 3 cells with m = 3 (2m > k): the noise")
    large = (_shares(sb, np.arange(5_000) % 7, 10_000, 3, 1.0, ctx.rng()) - (np.arange(5_000) % 7) / 10_000) / _scale(
        10_000, 5_000, 3, 1.0)
    same_law(small, large, "tick_shares: a survey of 3 cells against one of 5,000 (scaled noise)")
    # many surveys of 2 to 1,000 cells, with n, m and epsilon drawn per survey: the noise in units of the scale
    g, pooled = ctx.rng(), []
    for i in range(60):
        k, n, epsilon = _log_uniform_cells(g), int(g.integers(20, 5_000)), float(g.uniform(0.1, 3))
        m = int(g.integers(1, k + 1))
        counts = g.integers(0, min(n, n * m // k) + 1, k)
        z = _shares(sb, counts, n, m, epsilon, np.random.default_rng(int(g.integers(2**62))), by_keyword=i % 2 == 1)
        pooled.append((z - counts / n) / _scale(n, k, m, epsilon))
    ks_fits(np.concatenate(pooled), stats.laplace.cdf,
            "tick_shares on surveys of 2 to 1,000 cells (n, m, epsilon drawn per survey; 2m <= k and 2m > k): the "
            "noise in units of the scale")
    q1_first_use(sb, ctx)


def q1_bad_input(sb, ctx):
    for counts, n, m, why in (([3, 7, 1], 5, 2, "a cell ticked by more respondents than n"),
                              ([3, 4, 4], 5, 2, "more ticks than m per respondent allow"),
                              ([3, -1, 1], 5, 2, "a negative count"),
                              ([2.5, 1, 1], 5, 2, "a count that is not a whole number")):
        require(raises(sb, "tick_shares", np.array(counts), n, m, 1.0, ctx.rng()),
                f"tick_shares must raise ValueError when the counts cannot come from the survey ({why})")
    z = as_array(sb.call("tick_shares", [5, 5, 0], 5, 2, 1.0, ctx.rng()), "tick_shares")
    require(z.shape == (3,), "tick_shares must accept a list of counts ([5, 5, 0] with n = 5, m = 2 is possible)")
    z = as_array(sb.call("tick_shares", np.array([5.0, 5.0, 0.0]), np.int64(5), np.int64(2), np.float64(1.0),
                         ctx.rng()), "tick_shares")
    require(z.shape == (3,), "tick_shares must accept whole numbers stored as floats and NumPy numbers")


# ---------------------------------------------------------------- q2
def _log_bound(k, n):
    """log of 2k n^n/(n+1)^(n+1), the bound of ch12's theorem that holds when a respondent may tick no cell
    (U_{k,n} needs the largest ticking probability to be at least 1/k, which empty answers break: at k = 25,
    n = 177 and every cell ticked with probability 1/178 the bad event has probability 0.10104 > U = 0.0995)."""
    return math.log(2 * k) - n * math.log1p(1 / n) - math.log(n + 1)


def _needed_ok(k, gamma, got):
    """got is the smallest n >= 1 with 2k n^n/(n+1)^(n+1) <= gamma (a relative slack of 1e-9 at the boundary)."""
    if got != int(got) or got < 1:
        return False
    got = int(got)
    holds = _log_bound(k, got) <= math.log(gamma) + 1e-9
    smallest = got == 1 or _log_bound(k, got - 1) > math.log(gamma) - 1e-9
    return holds and smallest


def q2_values(sb, ctx):
    g = ctx.rng()
    cases = [(int(g.integers(2, 40)), float(g.uniform(0.05, 0.5))) for _ in range(6)]
    cases += [(int(g.integers(100, 5_000)), float(g.uniform(0.01, 0.3))) for _ in range(6)]
    for k, gamma in cases:
        got = as_float(sb.call("records_needed", k, gamma), "records_needed")
        require(_needed_ok(k, gamma, got), "records_needed: not the smallest n at which the bound of the sharper "
                                           "theorem that holds for every law of this survey's answers (empty "
                                           "answers included) guarantees (epsilon, gamma)-RDP (k up to 5,000)")
    k, gamma = int(g.integers(200_000, 1_000_000)), float(g.uniform(0.001, 0.01))
    got = as_float(sb.call("records_needed", k=k, gamma=gamma), "records_needed")
    require(_needed_ok(k, gamma, got), "records_needed: wrong or too slow for large k and small gamma "
                                       "(k near 10^6, gamma near 10^-3)")
    got = as_float(sb.call("records_needed", np.int64(40), np.float64(0.05)), "records_needed")
    require(got == 589, "records_needed must accept NumPy numbers (k = 40, gamma = 0.05 gives 589)")
    for k, gamma in ((1, 0.1), (25, 0.0), (25, 0.7), (25, -0.1)):
        require(raises(sb, "records_needed", k, gamma),
                "records_needed must raise ValueError for k < 2 or gamma outside (0, 0.5]")


# ---------------------------------------------------------------- q3
def _sparse(sb, counts, n, m, epsilon, gamma, g):
    z = as_array(sb.call("sparse_tick_shares", counts, n, m, epsilon, gamma, rng=g), "sparse_tick_shares")
    require(z.shape == np.shape(counts), "sparse_tick_shares: one value per cell")
    return z


def q3_zeros(sb, ctx):
    counts = np.where(np.arange(2_000) % 2 == 0, 10, 0)
    z = _sparse(sb, counts, 8_000, 2, 0.5, 0.5, ctx.rng())
    require(np.all(z[counts == 0] == 0), "sparse_tick_shares: when the sparse condition holds, cells nobody ticked "
                                         "are released as exact zeros")
    require(np.all(z[counts > 0] != 10 / 8_000), "sparse_tick_shares: ticked cells get noise")


def q3_law(sb, ctx):
    counts = np.where(np.arange(20_000) % 2 == 0, 10, 0)
    n, m = 80_000, 3  # 2k = 40,000 <= gamma n at gamma = 0.5; fails at gamma = 0.3
    z = _sparse(sb, counts, n, m, 0.5, 0.5, ctx.rng())
    ks_fits(z[counts > 0] - 10 / n, laplace_cdf(_scale(n, counts.size, m, 0.5)),
            "sparse_tick_shares: the noise of the ticked cells")
    z = _sparse(sb, counts, n, m, 0.5, 0.3, ctx.rng())
    ks_fits(z[counts == 0], laplace_cdf(_scale(n, counts.size, m, 0.5)),
            "sparse_tick_shares: when the sparse condition fails, the cells nobody ticked (the fall-back)")
    # more ticks allowed than half the cells (2m > k): 20,000 cells, m = 15,000
    counts, n, m = np.where(np.arange(20_000) % 2 == 0, 10, 0), 200_000, 15_000
    z = _sparse(sb, counts, n, m, 1.0, 0.5, ctx.rng())
    ks_fits(z[counts > 0] - 10 / n, laplace_cdf(_scale(n, counts.size, m, 1.0)),
            "sparse_tick_shares with 2m > k: the noise of the ticked cells")
    q3_first_use(sb, ctx)


def q3_bad_input(sb, ctx):
    require(raises(sb, "sparse_tick_shares", np.array([3, 4, 4]), 5, 2, 1.0, 0.5, ctx.rng()),
            "sparse_tick_shares must raise ValueError when the counts cannot come from the survey "
            "(more ticks than m per respondent allow)")
    require(raises(sb, "sparse_tick_shares", np.array([6, 0, 1]), 5, 2, 1.0, 0.5, ctx.rng()),
            "sparse_tick_shares must raise ValueError when a cell is ticked by more respondents than n")


def q3_mechanism(sb, ctx):
    """The sparse release (every survey satisfies 2k <= gamma n: n = 4096, gamma = 0.5, about half of the cells
    empty) and the fall-back (gamma = k / n, where the condition fails): on many surveys of 2 to 1,000 cells,
    independent noise in every noisy cell, neighbouring cell values within e^epsilon, and nothing of the
    counts in the last digits of the release."""
    n = 4096
    g = ctx.rng()
    a, b, ca, cb = _coupled_surveys(sb, "sparse_tick_shares", g, 40, n, zeros=True, extra=(0.5,))
    _battery(a, b, ca, cb, n, ca > 0, "sparse_tick_shares when the sparse condition holds (surveys of 2 to 1,000 "
                                      "cells)")
    out = [[], [], [], []]
    for _ in range(40):  # the fall-back: gamma = k / n, so 2k > gamma n
        k = _log_uniform_cells(g)
        counts = g.integers(2, 4, k)
        order = g.permutation(k)
        counts[order[0]], counts[order[1]] = 3, 2
        counts[order[2:][g.random(k - 2) < 0.5]] = 0
        other = counts.copy()
        other[order[0]], other[order[1]] = 2, 3
        m = int(g.integers(1, k + 1))
        epsilon, gamma, seed = min(2 * m, k) / 2, k / n, int(g.integers(2**62))
        for store, c in ((0, counts), (1, other)):
            out[store].append(_sparse(sb, c, n, m, epsilon, gamma, np.random.default_rng(seed)))
        out[2].append(counts)
        out[3].append(other)
    a, b, ca, cb = (np.concatenate(x) for x in out)
    _battery(a, b, ca, cb, n, np.ones(a.size, bool), "sparse_tick_shares in the fall-back (surveys of 2 to 1,000 "
                                                     "cells)")


q3_random = randomness("sparse_tick_shares", lambda g: (np.array([5, 0, 3, 0]), 80, 2, 1.0, 0.1, g))


# ---------------------------------------------------------------- q4
def _counts(h, n, m, k, what):
    h = as_array(h, what)
    require(h.shape == (k,), f"{what} must return one value per cell (a 1-D array like z)")
    c = h * n
    require(np.all(np.isfinite(c)) and np.allclose(c, np.round(c), atol=1e-6),
            f"{what} must return shares: multiples of 1/n")
    c = np.round(c)
    require(np.all(c >= 0) and np.all(c <= n) and c.sum() <= m * n,
            f"{what} must return shares that a survey of n respondents, each ticking at most m different cells, "
            "can produce")
    return c


def is_minimiser(w, c, n, m, tol=1e-7):
    """No unit added, removed or moved between two cells lowers sum |w - c| (global optimality here)."""
    here = np.abs(w - c)
    down = np.where(c >= 1, np.abs(w - c + 1) - here, np.inf)
    up = np.where(c <= n - 1, np.abs(w - c - 1) - here, np.inf)
    if np.any(down < -tol):
        return False
    if c.sum() < m * n and np.any(up < -tol):
        return False
    order = np.argsort(up)
    best_up = np.where(np.arange(w.size) == order[0], up[order[1]] if w.size > 1 else np.inf, up[order[0]])
    return bool(np.all(down + best_up >= -tol))


def brute_force_cost(w, n, m):
    best = np.inf
    for c in itertools.product(range(n + 1), repeat=len(w)):
        if sum(c) <= m * n:
            best = min(best, np.abs(w - np.array(c)).sum())
    return best


def q4_public(sb, ctx):
    z, n, m = np.array([0.9, 0.74, 0.56, 0.3, -0.1]), 10, 2
    c = _counts(sb.call("project_tick_shares", z, n, m), n, m, 5, "project_tick_shares (public example)")
    require(np.isclose(np.abs(z - c / n).sum(), 0.6),
            "project_tick_shares: at the public example z = (0.9, 0.74, 0.56, 0.3, -0.1), n = 10, m = 2, the "
            "result is not an L1 minimiser")


def q4_brute(sb, ctx):
    g = ctx.rng()
    for _ in range(15):  # small cases: the cost against a search over every possible survey result
        k, n = int(g.integers(1, 5)), int(g.integers(1, 6))
        m = int(g.integers(1, k + 1))
        z = g.uniform(-0.3, 1.3, k) * g.choice([0.5, 1.0, 2.0])
        c = _counts(sb.call("project_tick_shares", z, n, m), n, m, k, "project_tick_shares")
        require(np.isclose(np.abs(n * z - c).sum(), brute_force_cost(n * z, n, m)),
                "project_tick_shares is not an L1 minimiser (small cases: k <= 4 cells, n <= 5)")


def q4_optimal(sb, ctx):
    g = ctx.rng()
    cases = [(np.zeros(5), 7, 2), (np.array([-1.0, -2.0]), 4, 1), (np.array([2.0, 1.5, 1.2]), 6, 1),
             (np.full(4, 0.5), 9, 2), (np.array([0.5, 0.5, 0.5]), 2, 3)]
    for _ in range(20):
        k, n = int(g.integers(2, 60)), int(g.integers(1, 400))
        m = int(g.integers(1, k + 1))
        share = np.minimum(g.dirichlet(np.ones(k)) * m * float(g.uniform(0.5, 1.5)), 1.0)
        cases.append((share + g.laplace(0, 2 * m / (n * float(g.uniform(0.2, 2))), k), n, m))
    for z, n, m in cases:
        c = _counts(sb.call("project_tick_shares", z, n, m), n, m, z.size, "project_tick_shares")
        require(is_minimiser(n * z, c, n, m), "project_tick_shares is not an L1 minimiser (adding, removing or moving "
                                              "one unit lowers the cost; up to 60 cells and n up to 400)")
    c = _counts(sb.call("project_tick_shares", z=[0.5, 0.25, 0.25], n=np.int64(4), m=np.int64(1)), 4, 1, 3,
                "project_tick_shares")
    require(np.array_equal(c, [2, 1, 1]), "project_tick_shares must accept a list for z and NumPy integers for n "
                                          "and m (by keyword)")


# ---------------------------------------------------------------- q5
def _risk(value, what):
    require(isinstance(value, (tuple, list)) and len(value) == 2,
            f"{what} must return the pair (risk, standard_error)")
    return as_float(value[0], f"{what}: the risk"), as_float(value[1], f"{what}: the standard error")


def _truncate(ticks, m):
    ticks = np.asarray(ticks)
    return ticks * (np.cumsum(ticks, axis=1) <= m)


TICKS = np.array([[1, 1, 1, 0], [0, 1, 0, 1], [1, 0, 0, 0], [0, 1, 1, 1]])  # the question's example


def q5_exact(sb, ctx):
    # a release that is the truncated shares exactly: the risk is the truncation's bias alone
    exact = Expr("lambda counts, n, m, epsilon, rng: np.asarray(counts, dtype=float) / n")
    risk, se = _risk(sb.call("truncation_risk", TICKS, 2, 1.0, exact, 5, ctx.rng()), "truncation_risk")
    require(np.isclose(risk, 0.5) and np.isclose(se, 0.0, atol=1e-9),
            "truncation_risk of the question's example (m = 2) with a release that returns the truncated shares "
            "exactly must be (0.5, 0): truncate every respondent to the first m cells they ticked, and measure the "
            "L1 distance to the shares of the untruncated survey")
    shifted = Expr("lambda counts, n, m, epsilon, rng: np.asarray(counts, dtype=float) / n + m * epsilon / 100")
    g = ctx.rng()
    m, epsilon = int(g.integers(1, 4)), float(g.uniform(0.5, 3))
    ticks = _truncate((g.random((30, 6)) < 0.5).astype(int), m)  # nobody ticks more than m: nothing to truncate
    want = 6 * m * epsilon / 100
    risk, _ = _risk(sb.call("truncation_risk", ticks=ticks, m=m, epsilon=epsilon, mechanism=shifted, num_reps=3,
                            rng=ctx.rng()), "truncation_risk")
    require(np.isclose(risk, want), "truncation_risk must call the mechanism with the counts, n, m and epsilon "
                                    "(a random survey of 30 respondents and 6 cells, none ticking more than m)")


def q5_truncation(sb, ctx):
    """Releases that add +5 to the first cells and -5 to the others: the loss is a constant plus the ticks
    dropped from the later cells minus those dropped from the first ones, so it tells which ticks were
    dropped (the first rule of all keeps the most in the first cells)."""
    g = ctx.rng()
    ticks = (g.random((40, 6)) < 0.6).astype(int)
    m, epsilon = int(g.integers(1, 4)), float(g.uniform(0.5, 3))
    for first in (1, int(g.integers(2, 6))):
        offset = np.where(np.arange(6) < first, 5.0, -5.0)
        mechanism = Expr(f"lambda counts, n, m, epsilon, rng: np.asarray(counts, dtype=float) / n "
                         f"+ np.array({offset.tolist()!r})")
        want = np.abs(_truncate(ticks, m).mean(axis=0) + offset - ticks.mean(axis=0)).sum()
        risk, _ = _risk(sb.call("truncation_risk", ticks, m, epsilon, mechanism, 2, ctx.rng()), "truncation_risk")
        require(np.isclose(risk, want),
                "truncation_risk: the truncation rule is not the question's: keep each respondent's first m ticked "
                "cells (the lowest-numbered ones) and drop the others (checked on a random survey of 40 respondents "
                "and 6 cells with releases whose loss depends on which cells lose ticks)")


q5_random = randomness("truncation_risk", lambda g: (
    TICKS, 2, 1.0, Expr("lambda counts, n, m, epsilon, rng: np.asarray(counts) / n + rng.normal(0, 0.1, len(counts))"),
    20, g))


def q5_law(sb, ctx):
    # Gaussian noise of a scale drawn per run, growing with m / epsilon: the mean loss and its spread are
    # computed here by a simulation of the grader's own
    g = ctx.rng()
    ticks = (g.random((40, 6)) < np.linspace(0.8, 0.2, 6)).astype(int)
    m, epsilon, reps = int(g.integers(1, 4)), float(g.uniform(0.5, 2)), 2000
    c = float(g.uniform(0.02, 0.1))
    mechanism = Expr(f"lambda counts, n, m, epsilon, rng: np.asarray(counts, dtype=float) / n "
                     f"+ rng.normal(0.0, {c!r} * m / epsilon, np.shape(counts))")
    risk, se = _risk(sb.call("truncation_risk", ticks, m, epsilon, mechanism, reps, rng=g), "truncation_risk")
    bias = _truncate(ticks, m).mean(axis=0) - ticks.mean(axis=0)
    losses = np.abs(bias + ctx.rng().normal(0.0, c * m / epsilon, (200_000, 6))).sum(axis=1)
    true_se = losses.std() / np.sqrt(reps)
    require(abs(risk - losses.mean()) < 6 * true_se,
            "truncation_risk: the mean loss with another mechanism (noise of another law and scale) is off (the "
            "simulation must truncate each respondent to the first m ticked cells and call the mechanism it is "
            "given once per repetition)")
    require(se > 0 and 0.85 < se / true_se < 1.15,
            "truncation_risk: the standard error must be the standard deviation of the num_reps losses divided by "
            "sqrt(num_reps) (it is not 0 when the release is random)")


# ---------------------------------------------------------------- q6
MS = np.arange(1, 9)
EPSILON_Q6 = 0.5


def survey():
    """The question's survey, generated as the notebook does."""
    survey_rng = np.random.default_rng(2024)
    popularity = np.linspace(2.0, 0.2, 20)
    num_ticks = np.minimum(1 + survey_rng.poisson(2.5, size=1000), 20)
    keys = survey_rng.exponential(size=(1000, 20)) / popularity
    return (np.argsort(np.argsort(keys, axis=1), axis=1) < num_ticks[:, None]).astype(int)


def exact_risks(ticks, epsilon):
    """E ||a + L||_1 with a the truncation bias and L Laplace(b): sum of |a_j| + b exp(-|a_j| / b)."""
    n, k = ticks.shape
    out = []
    for m in MS:
        a = np.abs(_truncate(ticks, m).mean(axis=0) - ticks.mean(axis=0))
        b = _scale(n, k, m, epsilon)
        out.append(np.sum(a + b * np.exp(-a / b)))
    return np.array(out)


def _loss_sd(ticks, epsilon, rng):
    n, k = ticks.shape
    sds = []
    for m in MS:
        a = _truncate(ticks, m).mean(axis=0) - ticks.mean(axis=0)
        sds.append(np.abs(a + rng.laplace(0.0, _scale(n, k, m, epsilon), (20_000, k))).sum(axis=1).std())
    return np.array(sds)


def q6_risks(sb, ctx):
    """The stored risks are the exact risks of the right release, and the student's own truncation_risk
    and tick_shares reproduce them (values copied without the functions that make them score 0)."""
    risks = as_array(sb.value("risks_by_m"), "risks_by_m")
    require(risks.shape == (8,), "risks_by_m must hold one risk per value of m in ms = 1, ..., 8")
    ticks = survey()
    want, sd = exact_risks(ticks, EPSILON_Q6), _loss_sd(ticks, EPSILON_Q6, ctx.rng())
    require(np.all(np.abs(risks - want) <= 6 * sd / np.sqrt(300) + 1e-9),
            "risks_by_m is not the risk of your tick_shares on the question's survey (check the truncation rule, "
            "epsilon = 0.5, at least 300 repetitions, and the noise scale of question 1)")
    for m, stored, spread in zip(MS, risks, sd, strict=True):
        risk, _ = _risk(sb.call("truncation_risk", ticks, int(m), EPSILON_Q6, Ref("tick_shares"), 300, ctx.rng()),
                        "truncation_risk")
        require(abs(risk - stored) <= 6 * spread * np.sqrt(2 / 300) + 1e-9,
                "risks_by_m must be what your truncation_risk and tick_shares give on the question's survey "
                "(the grader runs them again with 300 repetitions)")


def q6_best(sb, ctx):
    best = as_float(sb.value("best_m"), "best_m")
    require(best == int(exact_risks(survey(), EPSILON_Q6).argmin()) + 1,
            "best_m is not the m with the smallest risk on the question's survey")


QUESTIONS = [
    Question("q1", ["tick_noise_scale", "tick_shares"], [
        Check("a private mechanism: random, independent noise in every cell, neighbouring surveys "
              "indistinguishable", 0.75, q1_mechanism, statistical=True, gate=True, essential=True),
        Check("Laplace noise of the right scale, with 2m <= k and 2m > k, also on the first use of fresh surveys "
              "(each released once)", 0.5, q1_law, statistical=True, essential=True),
        Check("noise scale", 0.5, q1_scale),
        Check("impossible counts refused, lists and NumPy numbers accepted", 0.25, q1_bad_input)]),
    Question("q2", ["records_needed"], [
        Check("the smallest n the bound that holds for this survey allows, fast for large k", 1.0, q2_values)]),
    Question("q3", ["sparse_tick_shares"], [
        Check("randomness drawn from rng", 0.25, q3_random, gate=True, essential=True),
        Check("exact zeros in cells nobody ticked", 0.5, q3_zeros),
        Check("a private release in the sparse case and in the fall-back, on surveys of 2 to 1,000 cells: "
              "independent noise, neighbouring surveys indistinguishable, down to the last digits", 0.5,
              q3_mechanism, statistical=True, essential=True),
        Check("noise law, and the fall-back, also on the first use of fresh surveys (each released once)", 0.5, q3_law,
              statistical=True, essential=True),
        Check("impossible counts refused", 0.25, q3_bad_input)]),
    Question("q4", ["project_tick_shares"], [
        Check("an L1 minimiser at the public example", 0.5, q4_public, public=True),
        Check("an exact L1 minimiser on small cases (brute force)", 1.0, q4_brute),
        Check("an exact L1 minimiser on large cases", 1.5, q4_optimal)]),
    Question("q5", ["truncation_risk"], [
        Check("loss, with a release without noise, and the mechanism called with its arguments", 0.5, q5_exact),
        Check("the truncation rule: each respondent's first m ticked cells", 0.5, q5_truncation),
        Check("simulation draws from rng", 0.25, q5_random, gate=True),
        Check("simulated risk and standard error of another mechanism", 1.75, q5_law, statistical=True)]),
    Question("q6", ["risks_by_m", "best_m"], [
        Check("the risks against m on the question's survey", 1.25, q6_risks, statistical=True),
        Check("the best bound m", 0.75, q6_best)]),
    Question("q7", [], [], manual_points=7.0),  # written answer: rubric in book/assignments/masters/written_answers.md
]

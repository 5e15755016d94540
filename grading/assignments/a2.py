"""Hidden checks of assignment 2 (sensitivity and the Laplace mechanism, several items per person).

Q1 and Q3 are exact (every sign case of the bounds, NumPy numbers, keyword calls, bad input). The
pair release of Q2 is tested for behaviour (independent draws, low-order bits and coupled releases
that do not depend on the data, the law of both entries on data with long records and outliers,
privacy on neighbours). The simulation of Q4 runs on noise mechanisms of the grader's own (a rescaled
Laplace, a Gaussian), evaluated in the grading process, whose true error is computed here by
integrating over the noise on the count.
"""

from __future__ import annotations

import numpy as np
from scipy import integrate, stats

from ..checks import (
    Check,
    CheckFailed,
    Question,
    as_array,
    as_float,
    binomial_fits,
    close,
    coupled_additive,
    first_calls,
    ks_fits,
    laplace_cdf,
    laplace_centre_fits,
    low_bits_same_law,
    not_too_regular,
    privacy_holds,
    raises,
    randomness,
    require,
)
from ..sandbox import Expr

NAME = "a2_laplace_mechanism"


# ----------------------------------------------------------------------------- Q1
# The sensitivities are found by search, from their definition: the largest change between two customers'
# records. The (count, total) of a record with c kept items fills the segment c * [lower, upper]; an L1
# distance is convex, so its largest value between two such segments is reached at their ends: the records of
# c items all at lower or all at upper, c = 0 ... m. The grader holds no formula of q1.
def _extreme_records(lower: float, upper: float, m: int) -> np.ndarray:
    c = np.arange(int(m) + 1, dtype=float)
    return np.concatenate([np.stack([c, c * lower], axis=1), np.stack([c, c * upper], axis=1)])


def _largest_change(lower: float, upper: float, m: int, count_weight: float) -> float:
    r = _extreme_records(lower, upper, m)
    change = count_weight * np.abs(r[:, None, 0] - r[None, :, 0]) + np.abs(r[:, None, 1] - r[None, :, 1])
    return float(change.max())


def _total_sens(lower: float, upper: float, m: int) -> float:
    return _largest_change(lower, upper, m, 0.0)


def _pair_sens(lower: float, upper: float, m: int) -> float:
    return _largest_change(lower, upper, m, 1.0)


def q1_public(sb, ctx):
    close(sb.call("sum_sensitivity", -20.0, 80.0, 3), 300.0, "sum_sensitivity at the public example [-20, 80], m = 3")
    close(sb.call("count_sum_sensitivity", -1.0, 1.0, 2), 4.0,
          "count_sum_sensitivity at the public example [-1, 1], m = 2")


def _q1_cases(g):
    """One setting per sign case: lower >= 0, lower < 0 < upper (both regimes of the pair), upper <= 0."""
    m = [int(g.integers(1, 6)) for _ in range(5)]
    return [
        ("amounts in [lower, upper] with 0 <= lower", float(g.uniform(0.5, 20)), float(g.uniform(25, 200)), m[0]),
        ("amounts in [lower, upper] with lower < 0 < upper", float(-g.uniform(5, 50)), float(g.uniform(5, 200)), m[1]),
        ("amounts in a narrow interval around 0", float(-g.uniform(0.05, 0.3)), float(g.uniform(0.3, 0.6)), m[2]),
        ("amounts in [lower, upper] with upper <= 0", float(-g.uniform(30, 90)), float(-g.uniform(0, 20)), m[3]),
        ("amounts in [0, upper]", 0.0, float(g.uniform(1, 10)), m[4]),
    ]


def q1_sum(sb, ctx):
    for what, lower, upper, m in _q1_cases(ctx.rng()):
        close(sb.call("sum_sensitivity", lower, upper, m), _total_sens(lower, upper, m),
              f"sum_sensitivity, {what} (a customer may have no item)", rtol=1e-9)
    lower, upper, m = -12.5, 40.0, 4
    close(sb.call("sum_sensitivity", lower=np.float64(lower), upper=np.float64(upper), m=np.int64(m)),
          _total_sens(lower, upper, m), "sum_sensitivity called by keyword with NumPy numbers", rtol=1e-9)


def q1_pair(sb, ctx):
    for what, lower, upper, m in _q1_cases(ctx.rng()):
        close(sb.call("count_sum_sensitivity", lower, upper, m), _pair_sens(lower, upper, m),
              f"count_sum_sensitivity, {what} (the L1 change of the pair, a customer may have no item)", rtol=1e-9)
    lower, upper, m = 2.0, 7.5, 3
    close(sb.call("count_sum_sensitivity", lower=np.float64(lower), upper=np.float64(upper), m=np.int64(m)),
          _pair_sens(lower, upper, m), "count_sum_sensitivity called by keyword with NumPy numbers", rtol=1e-9)


def q1_raises(sb, ctx):
    for name in ("sum_sensitivity", "count_sum_sensitivity"):
        require(raises(sb, name, 5.0, 1.0, 2), f"{name} must raise ValueError when lower > upper (try 5, 1, m = 2)")
        require(raises(sb, name, 0.0, 1.0, 0), f"{name} must raise ValueError when m < 1 (try m = 0)")
        require(raises(sb, name, 0.0, 1.0, np.int64(-1)), f"{name} must raise ValueError when m < 1 (try m = -1)")


# ----------------------------------------------------------------------------- Q2
def _dyadic(values: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(values, dtype=float) * 1024) / 1024


def _shop(g, customers: int) -> list[np.ndarray]:
    """Records of 0 to 9 amounts (many longer than m), refunds and outliers, dyadic so sums are exact."""
    records = []
    for _ in range(customers):
        k = int(g.integers(0, 10))
        amounts = g.exponential(30.0, k) * np.where(g.random(k) < 0.2, -0.5, 1.0)
        amounts[g.random(k) < 0.05] *= 1000.0  # outliers far above upper
        records.append(_dyadic(amounts))
    return records


def _exact_pair(records, lower, upper, m) -> np.ndarray:
    kept = [np.clip(r[:m], lower, upper) for r in records]
    return np.array([sum(k.size for k in kept), float(np.sum(np.concatenate(kept))) if kept else 0.0])


def _as_lists(records) -> list[list[float]]:
    return [[float(v) for v in r] for r in records]


_Q2_DRAWS: dict = {}  # (sandbox, seed) -> releases drawn once per grading run, shared by the q2 checks


def _q2_draws(sb, ctx):
    """1,000 releases of a shop (half by keyword, records as lists) and 1,000 of a neighbour (one customer
    replaced by an outlier with many items), drawn once per grading run."""
    key = (id(sb), ctx.seed)
    if key not in _Q2_DRAWS:
        _Q2_DRAWS.clear()
        g = ctx.rng()
        # amounts of both signs where the count matters: the pair needs 1.5 m, the total alone m, and the
        # count's sensitivity plus the total's (m + m) is too much
        lower, upper, m, epsilon = -0.5, 0.5, 2, 0.8
        x = _shop(g, int(g.integers(40, 120)))
        y = list(x)
        y[0] = _dyadic(np.full(12, 5e5))  # one customer with twelve huge purchases
        as_lists = _as_lists(x)
        draws_x = [sb.call("release_count_and_sum", x, lower, upper, m, epsilon, g) for _ in range(500)]
        draws_x += [sb.call("release_count_and_sum", purchases=as_lists, lower=lower, upper=upper, m=np.int64(m),
                            epsilon=epsilon, rng=g) for _ in range(500)]
        draws_y = [sb.call("release_count_and_sum", y, lower, upper, m, epsilon, g) for _ in range(1000)]
        arrays = []
        for draws in (draws_x, draws_y):
            out = np.array([as_array(d, "release_count_and_sum").ravel() for d in draws])
            require(out.ndim == 2 and out.shape[1] == 2, "release_count_and_sum must return two numbers")
            arrays.append(out)
        scale = _pair_sens(lower, upper, m) / epsilon
        _Q2_DRAWS[key] = (scale, epsilon, _exact_pair(x, lower, upper, m), arrays[0], _exact_pair(y, lower, upper, m),
                          arrays[1])
    return _Q2_DRAWS[key]


def _large_shop(g, items: int) -> tuple[list[np.ndarray], int]:
    """A shop whose kept data hold about ``items`` items: customers with 0 to 2m amounts (half of them longer
    than m), refunds and outliers, built in one draw and split (dyadic, so the clipped sums are exact)."""
    m = int(g.integers(10, 31))
    customers = max(1, int(round(items / (0.75 * m))))
    lengths = g.integers(0, 2 * m + 1, customers)
    amounts = g.exponential(30.0, int(lengths.sum())) * np.where(g.random(int(lengths.sum())) < 0.2, -0.5, 1.0)
    amounts[g.random(amounts.size) < 0.05] *= 1000.0
    return list(np.split(_dyadic(amounts), np.cumsum(lengths)[:-1])), m


# fresh shops released once each (a fresh copy of the notebook per release): how many per size range
FIRST_USE = (("of up to 240 kept items", 40), ("of 1,000 to 10,000 kept items", 20),
             ("of 10,000 to 100,000 kept items", 20))


def _first_use_shop(g, band: int):
    lower, upper = -float(g.integers(1, 41)) / 4, float(g.integers(8, 401)) / 4  # dyadic bounds: exact clipping
    if band == 0:
        m = int(g.integers(1, 6))
        return _shop(g, int(g.integers(2, 49))), lower, upper, m
    low, high = (1_000, 10_000) if band == 1 else (10_000, 100_000)
    records, m = _large_shop(g, int(np.exp(g.uniform(np.log(low), np.log(high)))))
    return records, lower, upper, m


def q2_first_use(sb, ctx):
    """The law of the release on its first use: fresh shops (few items up to 10^5 kept items), each released
    once by a fresh copy of the notebook with a generator of its own, as a real release is made. Pooled per
    size range (noise divided by its scale), P[|noise| < scale] = 1 - 1/e (exact binomial test) and the
    Laplace law (KS). An exact release has no noise: 40 values at 0 have probability 0.632^40 < 1e-7."""
    g = ctx.rng()
    settings, arguments = [], []
    for band, (_, calls) in enumerate(FIRST_USE):
        for i in range(calls):
            records, lower, upper, m = _first_use_shop(g, band)
            epsilon = float(g.uniform(0.2, 2.0))
            settings.append((band, _exact_pair(records, lower, upper, m), _pair_sens(lower, upper, m) / epsilon))
            if i % 4 == 3:
                arguments.append(((), {"purchases": _as_lists(records) if band == 0 else records, "lower": lower,
                                       "upper": upper, "m": np.int64(m), "epsilon": epsilon, "rng": ctx.rng()}))
            else:
                arguments.append(((records, lower, upper, m, epsilon, ctx.rng()), {}))
    released = first_calls(sb, "release_count_and_sum", arguments)
    pooled: list[list[np.ndarray]] = [[] for _ in FIRST_USE]
    for (band, exact, scale), raw in zip(settings, released, strict=True):
        out = as_array(raw, "release_count_and_sum").ravel()
        require(out.shape == (2,), "release_count_and_sum must return two numbers")
        pooled[band].append((out - exact) / scale)
    for (what, _), values in zip(FIRST_USE, pooled, strict=True):
        noise = np.concatenate(values)
        message = (f"release_count_and_sum on its first use (fresh shops {what}, each released once by a fresh "
                   "copy of your notebook): every release must carry Laplace noise at the pair's scale, the first "
                   "one of a dataset too, whatever its size")
        binomial_fits(int(np.sum(np.abs(noise) < 1.0)), noise.size, 1 - np.exp(-1.0), message)
        ks_fits(noise, laplace_cdf(1.0), message)


def q2_behaviour(sb, ctx):
    scale, _, centre_x, draws_x, _, draws_y = _q2_draws(sb, ctx)
    noise = (draws_x - centre_x).ravel()
    not_too_regular(noise, laplace_cdf(scale), "release_count_and_sum")
    low_bits_same_law(draws_x.ravel(), draws_y.ravel(), "release_count_and_sum on two neighbouring shops")


q2_random = randomness("release_count_and_sum", lambda g: ([[1.0, 2.0], [3.0]], 0.0, 5.0, 2, 1.0, g))


def q2_exact(sb, ctx):
    # a huge epsilon shows what is kept and clipped; bad input must raise
    g = ctx.rng()
    lower, upper, m = float(-g.uniform(1, 5)), float(g.uniform(20, 60)), int(g.integers(1, 5))
    records = _shop(g, 30)
    got = as_array(sb.call("release_count_and_sum", records, lower, upper, np.int64(m), 1e12, g),
                   "release_count_and_sum").ravel()
    require(got.shape == (2,), "release_count_and_sum must return two numbers")
    require(np.allclose(got, _exact_pair(records, lower, upper, m), rtol=1e-9, atol=1e-6),
            "with a huge epsilon release_count_and_sum must give (number of kept items, total of the clipped kept "
            "amounts), keeping each customer's first m amounts in the order given (empty records and records "
            "longer than m included)")
    shop = [[1.0, 2.0], [3.0]]
    for args, what in (((0.0, 5.0, 2, 0.0), "epsilon = 0"), ((0.0, 5.0, 2, -1.0), "epsilon < 0"),
                       ((5.0, 0.0, 2, 1.0), "lower > upper"), ((0.0, 5.0, 0, 1.0), "m = 0")):
        require(raises(sb, "release_count_and_sum", shop, *args, np.random.default_rng(0)),
                f"release_count_and_sum must raise ValueError when {what}")


def q2_law(sb, ctx):
    scale, _, centre_x, draws_x, centre_y, draws_y = _q2_draws(sb, ctx)
    noise = np.concatenate([draws_x - centre_x, draws_y - centre_y]).ravel()
    # the scale itself, on all 4,000 noise values: P[|noise| < scale] = 1 - 1/e (a scale a third too large or
    # too small moves it by over ten standard errors)
    binomial_fits(int(np.sum(np.abs(noise) < scale)), noise.size, 1 - np.exp(-1.0),
                  "release_count_and_sum on amounts of both signs: the noise is not at the smallest scale for which "
                  "the pair is epsilon-DP")
    for draws, centre, what in ((draws_x, centre_x, "a shop"),
                                (draws_y, centre_y, "a shop with one customer of twelve huge purchases")):
        for j, entry in enumerate(("number of kept items", "total")):
            ks_fits(draws[:, j] - centre[j], laplace_cdf(scale),
                    f"release_count_and_sum, {entry} on {what} (first m items, clipped, Laplace noise at the scale "
                    "the pair needs)")
    laplace_centre_fits(noise, scale, "release_count_and_sum: the peak of the noise at 0")
    q2_first_use(sb, ctx)


def q2_independent_private(sb, ctx):
    scale, epsilon, centre_x, draws_x, centre_y, draws_y = _q2_draws(sb, ctx)
    noise = draws_x - centre_x
    corr = float(np.corrcoef(noise.T)[0, 1])
    require(abs(corr) < 5 / np.sqrt(noise.shape[0]),
            "release_count_and_sum: the noise on the count and on the total must be independent draws")
    # the totals of neighbouring shops: within e^epsilon on every well-filled bin
    edges = np.linspace(min(centre_x[1], centre_y[1]) - 3 * scale, max(centre_x[1], centre_y[1]) + 3 * scale, 25)
    privacy_holds(draws_x[:, 1], draws_y[:, 1], epsilon, edges,
                  "release_count_and_sum (the total) on neighbouring shops, one customer replaced by an outlier",
                  min_count=100)


def q2_coupled(sb, ctx):
    # the same generator state on neighbouring shops: the releases differ by exactly the exact pairs' difference
    g = ctx.rng()
    lower, upper, m, epsilon = -8.0, 64.0, 2, 1.0
    x = _shop(g, 60)
    y = list(x)
    y[int(g.integers(60))] = _dyadic(g.uniform(-20, 90, int(g.integers(0, 5))))
    a, b = [], []
    for _ in range(100):
        seed = int(g.integers(2**62))
        a.append(as_array(sb.call("release_count_and_sum", x, lower, upper, m, epsilon, np.random.default_rng(seed)),
                          "release_count_and_sum").ravel())
        b.append(as_array(sb.call("release_count_and_sum", y, lower, upper, m, epsilon,
                                  rng=np.random.default_rng(seed)), "release_count_and_sum").ravel())
    require(all(v.shape == (2,) for v in a + b), "release_count_and_sum must return two numbers")
    shift = _exact_pair(x, lower, upper, m) - _exact_pair(y, lower, upper, m)
    coupled_additive(np.array(a), np.array(b), np.tile(shift, 100), "release_count_and_sum")
    # the same on a large shop (10,000 to 100,000 kept items), one customer replaced
    x, m = _large_shop(g, int(np.exp(g.uniform(np.log(10_000), np.log(100_000)))))
    y = list(x)
    y[int(g.integers(len(x)))] = _dyadic(g.uniform(-20, 90, int(g.integers(0, 2 * m))))
    a, b = [], []
    for _ in range(8):
        seed = int(g.integers(2**62))
        a.append(as_array(sb.call("release_count_and_sum", x, lower, upper, m, epsilon, np.random.default_rng(seed)),
                          "release_count_and_sum").ravel())
        b.append(as_array(sb.call("release_count_and_sum", y, lower, upper, m, epsilon,
                                  rng=np.random.default_rng(seed)), "release_count_and_sum").ravel())
    require(all(v.shape == (2,) for v in a + b), "release_count_and_sum must return two numbers")
    shift = _exact_pair(x, lower, upper, m) - _exact_pair(y, lower, upper, m)
    coupled_additive(np.array(a), np.array(b), np.tile(shift, 8), "release_count_and_sum on a large shop")


# ----------------------------------------------------------------------------- Q3
def _best_first_order(delta_sum: float, delta_count: float, mean_guess: float, epsilon: float) -> float:
    """The smallest first-order variance over the splits, found by a numerical search over log(eps_sum /
    eps_count) (the grader holds no formula of the split)."""
    from scipy import optimize

    def objective(t):
        share = 1.0 / (1.0 + np.exp(-t))
        return _first_order((epsilon * share, epsilon * (1.0 - share)), delta_sum, delta_count, mean_guess)

    found = optimize.minimize_scalar(objective, bounds=(-40.0, 40.0), method="bounded",
                                     options={"xatol": 1e-12, "maxiter": 2000})
    return float(min(found.fun, objective(found.x)))


def _pair_of(value, what: str) -> np.ndarray:
    out = as_array(value, what).ravel()
    require(out.shape == (2,), f"{what} must return two numbers (eps_sum, eps_count)")
    return out


def _first_order(split, delta_sum, delta_count, mean_guess) -> float:
    """The variance of the first-order term of the ratio (the delta method): sum over the two noises of
    (partial derivative of total / count)^2 * Var(Laplace noise), at count 1 and total mean_guess (the count
    only scales it by a constant factor, which does not move the minimum); Var(Laplace(b)) = 2 b^2."""
    total, count = float(mean_guess), 1.0
    gradient = np.array([1.0 / count, -total / count**2])  # d(total / count) / d(total, count)
    variances = 2.0 * (np.array([delta_sum, delta_count], dtype=float) / np.asarray(split, dtype=float)) ** 2
    return float(np.sum(gradient**2 * variances))


_Q3_RTOL = 1e-6  # the question's precision: first-order variance within 1e-6 (relative) of its minimum


def _q3_one(sb, args, kwargs, ds, dc, guess, eps, message):
    from ..sandbox import SandboxError

    try:
        value = sb.call("split_budget", *args, **kwargs)
    except SandboxError as exc:
        if exc.kind != "error" or guess > 0:
            raise
        raise CheckFailed("split_budget failed on a negative mean_guess; a negative guess is allowed (the average "
                          "may be negative, refunds included) and the budgets must be two real numbers") from None
    if np.iscomplexobj(np.asarray(value)):
        raise CheckFailed("split_budget returned complex numbers on a negative mean_guess; a negative guess is "
                          "allowed (the average may be negative) and the budgets must be two real numbers")
    got = _pair_of(value, "split_budget")
    require(np.all(np.isfinite(got)) and np.all(got > 0) and abs(got.sum() - eps) <= 1e-9 * eps,
            f"{message}: the two budgets must be positive and add up to epsilon")
    best = _best_first_order(ds, dc, guess, eps)
    require(_first_order(got, ds, dc, guess) <= best * (1 + _Q3_RTOL),
            f"{message}: the first-order variance of the ratio at your split is not within 1e-6 (relative) of its "
            "minimum")


def _q3_inputs(g) -> list[tuple[float, float, float, float]]:
    """Three settings, the first with a negative guess, whose two weights (delta_sum and |mean_guess| delta_count)
    differ at least threefold, so that a split with the wrong exponent is clearly worse."""
    out = []
    while len(out) < 3:
        ds, dc = float(10 ** g.uniform(0, 3)), float(g.uniform(1, 10))
        guess = float((-1.0 if not out else g.choice([-1.0, 1.0])) * 10 ** g.uniform(-1, 2))
        if abs(np.log(ds / (abs(guess) * dc))) > np.log(3):
            out.append((ds, dc, guess, float(g.uniform(0.1, 4))))
    return out


def q3_split(sb, ctx):
    for ds, dc, guess, eps in _q3_inputs(ctx.rng()):
        _q3_one(sb, (ds, dc, guess, eps), {}, ds, dc, guess, eps,
                "split_budget on other inputs" + (" (a negative mean_guess)" if guess < 0 else ""))
    ds, dc, guess, eps = 150.0, 3.0, -12.0, 0.5
    _q3_one(sb, (), {"delta_sum": np.float64(ds), "delta_count": np.int64(3), "mean_guess": np.float64(guess),
                     "epsilon": np.float64(eps)}, ds, dc, guess, eps,
            "split_budget called by keyword with NumPy numbers (a negative mean_guess)")


def q3_raises(sb, ctx):
    for args, what in (((40.0, 2.0, 0.0, 1.0), "mean_guess = 0"), ((40.0, 2.0, 20.0, 0.0), "epsilon = 0"),
                       ((0.0, 2.0, 20.0, 1.0), "delta_sum = 0"), ((40.0, -2.0, 20.0, 1.0), "delta_count < 0")):
        require(raises(sb, "split_budget", *args), f"split_budget must raise ValueError when {what}")


# ----------------------------------------------------------------------------- Q4
# The grader's mechanisms: value + factor * noise at scale sensitivity / epsilon, of a law of their own.
_LAWS = {"laplace": "rng.laplace(0.0, {s}, size=np.shape(value))",
         "normal": "rng.normal(0.0, {s}, size=np.shape(value))"}


def mechanism(law: str, factor: float) -> Expr:
    noise = _LAWS[law].format(s=f"{factor!r} * sensitivity / epsilon")
    return Expr(f"lambda value, sensitivity, epsilon, rng: np.asarray(value, dtype=float) + {noise}")


def true_mse(total: float, count: float, b_sum: float, b_count: float, law: str) -> float:
    """E[(T / max(C, 1) - total / count)^2], T = total + noise of scale b_sum, C = count + noise of scale
    b_count: given C the error has mean total / C' - mu and variance Var(noise on the total) / C'^2, integrated
    over the law of the count's noise. Where C < 1 the integrand is constant (its probability is exact); the
    rest is integrated over finite ranges of 60 scales on each side of the count (quad on an infinite range
    can miss a narrow density: a Gaussian count noise of scale 0.26 came out at half its mass)."""
    mu = total / count
    if law == "laplace":
        density = lambda w: np.exp(-abs(w) / b_count) / (2 * b_count)  # noqa: E731
        below = stats.laplace.cdf(1.0 - count, scale=b_count)
        var_sum = 2 * b_sum**2
    else:
        density = lambda w: np.exp(-0.5 * (w / b_count) ** 2) / (b_count * np.sqrt(2 * np.pi))  # noqa: E731
        below = stats.norm.cdf(1.0 - count, scale=b_count)
        var_sum = b_sum**2

    def integrand(w):
        c = max(count + w, 1.0)
        return ((total / c - mu) ** 2 + var_sum / c**2) * density(w)

    cut = 1.0 - count  # the noisy count is below 1 for w < cut (count >= 1, so cut <= 0)
    clamped = ((total - mu) ** 2 + var_sum) * float(below)
    start = max(cut, -60.0 * b_count)
    parts = [clamped,
             integrate.quad(integrand, start, 0.0, limit=400)[0] if start < 0 else 0.0,
             integrate.quad(integrand, 0.0, 60.0 * b_count, limit=400)[0]]
    return float(sum(parts))


def _sd_of_mean(total, count, b_sum, b_count, law, trials, g) -> float:
    """Standard deviation of an average of ``trials`` squared errors, from 200,000 draws here."""
    draw = g.laplace if law == "laplace" else g.normal
    t = total + draw(0.0, b_sum, 200_000)
    c = np.maximum(count + draw(0.0, b_count, 200_000), 1.0)
    return float(np.std((t / c - total / count) ** 2) / np.sqrt(trials))


def _q4_setting(g):
    count = float(np.round(g.uniform(100, 1500)))
    total = float(np.round(count * g.uniform(-30, 60), 2))
    delta_sum, delta_count = float(g.uniform(20, 300)), float(g.integers(1, 6))
    eps_sum, eps_count = float(g.uniform(0.3, 1.5)), float(g.uniform(0.3, 1.5))
    return total, count, delta_sum, delta_count, eps_sum, eps_count


def _check_sim(got, total, count, b_sum, b_count, law, trials, g, message):
    mse = true_mse(total, count, b_sum, b_count, law)
    sd = _sd_of_mean(total, count, b_sum, b_count, law, trials, g)
    require(abs(got - mse) < 6 * sd, message)


def q4_other_mechanisms(sb, ctx):
    g = ctx.rng()
    trials = 40_000
    for law in ("laplace", "normal"):
        factor = round(float(g.choice([g.uniform(0.3, 0.6), g.uniform(1.6, 2.5)])), 4)
        total, count, ds, dc, es, ec = _q4_setting(g)
        b_count = factor * dc / ec
        if b_count > count / 30:  # keep the count's noise small against the count (a stable average)
            ec = 30 * factor * dc / count
            b_count = factor * dc / ec
        got = as_float(sb.call("simulate_ratio_mse", total, count, (ds, dc), (es, ec), trials, g,
                               mechanism(law, factor)), "simulate_ratio_mse")
        _check_sim(got, total, count, factor * ds / es, b_count, law, trials, ctx.rng(),
                   "simulate_ratio_mse must run the mechanism it is given, on the total with (delta_sum, eps_sum) and "
                   "on the count with (delta_count, eps_count): with another noise mechanism the simulated MSE does "
                   "not match that mechanism's error")


q4_random = randomness("simulate_ratio_mse",
                       lambda g: (2000.0, 100.0, (50.0, 2.0), (0.6, 0.4), 50, g, mechanism("laplace", 1.0)))


def q4_laplace(sb, ctx):
    # the honest use, every argument by keyword, at two settings, sensitivities and budgets as lists
    for total, count, ds, dc, es, ec in ((32_000.0, 1_600.0, 200.0, 4.0, 0.648, 0.352),
                                         (-900.0, 300.0, 40.0, 2.0, 0.5, 1.5)):
        trials = 40_000
        got = as_float(sb.call("simulate_ratio_mse", total=total, count=count, sensitivities=[ds, dc],
                               epsilons=[es, ec], num_trials=trials, rng=ctx.rng(),
                               mechanism=mechanism("laplace", 1.0)), "simulate_ratio_mse")
        _check_sim(got, total, count, ds / es, dc / ec, "laplace", trials, ctx.rng(),
                   f"simulate_ratio_mse with a Laplace mechanism (total {total:g}, count {count:g}, sensitivities "
                   f"({ds:g}, {dc:g}), budgets ({es:g}, {ec:g}), called by keyword) does not match its MSE")


def q4_clamp(sb, ctx):
    # a small count with a large noise: the noisy count falls below 1 in about one trial in ten, where the
    # report is the noisy total itself (without the clamp the reports near a zero count explode)
    g = ctx.rng()
    count = float(g.integers(6, 13))
    total = float(np.round(count * g.uniform(10, 40), 2))
    ds, dc, es, ec = float(g.uniform(20, 60)), 2.0, float(g.uniform(0.5, 1.5)), float(4 / count)
    trials = 40_000
    got = as_float(sb.call("simulate_ratio_mse", total, count, (ds, dc), (es, ec), trials, ctx.rng(),
                           mechanism("laplace", 1.0)), "simulate_ratio_mse")
    _check_sim(got, total, count, ds / es, dc / ec, "laplace", trials, ctx.rng(),
               "simulate_ratio_mse with a Laplace mechanism on a small count whose noisy value often falls below 1 "
               "does not match its MSE (the report is noisy_total / max(noisy_count, 1))")


QUESTIONS = [
    Question("q1", ["sum_sensitivity", "count_sum_sensitivity"], [
        Check("the public examples", 0.5, q1_public, public=True),
        Check("sensitivity of the total in every sign case", 1.0, q1_sum),
        Check("sensitivity of the pair (count, total) in every sign case", 1.0, q1_pair),
        Check("ValueError on lower > upper and m < 1", 0.5, q1_raises)]),
    Question("q2", ["release_count_and_sum"], [
        Check("independent noise draws whose last digits do not depend on the data", 0.5, q2_behaviour,
              statistical=True, gate=True, essential=True),
        Check("randomness drawn from rng", 0.25, q2_random, gate=True, essential=True),
        Check("the exact pair at a huge epsilon (first m items, clipped) and ValueError on bad input", 0.75,
              q2_exact),
        Check("both entries follow the Laplace law of the right scale, outliers included, also on the first use "
              "of fresh shops of up to 100,000 items (each released once)", 1.5, q2_law, statistical=True,
              essential=True),
        Check("independent noise on the two entries, and privacy on neighbouring shops", 0.5,
              q2_independent_private, statistical=True, essential=True),
        Check("releases on neighbouring shops with the same generator differ by the exact difference", 0.5,
              q2_coupled, essential=True)]),
    Question("q3", ["split_budget"], [
        Check("the split that minimises the first-order variance", 1.5, q3_split),
        Check("ValueError on bad input", 0.5, q3_raises)]),
    Question("q4", ["simulate_ratio_mse"], [
        Check("the simulation runs the mechanism it is given (noise mechanisms of the grader's)", 1.75,
              q4_other_mechanisms, statistical=True, gate=True),
        Check("simulation draws from rng", 0.25, q4_random),
        Check("simulated MSE with a Laplace mechanism at two settings (keyword call)", 0.5, q4_laplace,
              statistical=True),
        Check("simulated MSE where the noisy count often falls below 1 (the clamp max(noisy_count, 1))", 0.5,
              q4_clamp, statistical=True)]),
    # written answers: model answers in the master, rubrics in book/assignments/masters/written_answers.md
    Question("q5", [], [], manual_points=4.0),
    Question("q6", [], [], manual_points=5.0),
]

__all__ = ["NAME", "QUESTIONS", "CheckFailed"]

"""Hidden checks of assignment 8 (the Gaussian mechanism, composition and accounting).

Values are checked on inputs drawn fresh per run from the ranges the questions state; the mechanism
is tested for behaviour (law and independence of the noise, privacy at the (epsilon, delta) its noise
multiplier promises, low-order bits); the Monte Carlo estimator runs on privacy-loss samplers of the
grader's own (``Expr``: a Laplace loss, a normal loss that is no Gaussian mechanism's, a loss with
atoms at plus and minus infinity), whose parameters are drawn per run.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special, stats

from ..checks import (
    ALPHA,
    Check,
    Question,
    as_array,
    as_float,
    binomial_fits,
    first_calls,
    ks_fits,
    low_bits_same_law,
    not_too_regular,
    raises,
    randomness,
    require,
)
from ..sandbox import Expr

NAME = "a8_gaussian_accounting"


# ---------------------------------------------------------------- the grader's reference values
def _delta(epsilon, sigma):
    """Exact delta(epsilon) of one release with noise multiplier sigma (logs: finite at any epsilon)."""
    epsilon = np.asarray(epsilon, dtype=float)
    mu = 1.0 / sigma
    hi, lo = special.log_ndtr(mu / 2 - epsilon / mu), special.log_ndtr(-mu / 2 - epsilon / mu)
    return np.clip(np.exp(hi) * -np.expm1(np.minimum(epsilon + lo - hi, 0.0)), 0.0, 1.0)


def _epsilon(delta, sigma):
    if _delta(0.0, sigma) <= delta:
        return 0.0
    high = 1.0
    while _delta(high, sigma) > delta:
        high *= 2
    return optimize.brentq(lambda e: float(_delta(e, sigma)) - delta, 0.0, high, xtol=1e-15, rtol=1e-15)


def _accountants(sigma, k, delta):
    exact = _epsilon(delta, sigma / np.sqrt(k))
    eps0 = _epsilon(delta / (2 * k), sigma)
    with np.errstate(over="ignore"):
        advanced = min(eps0 * np.sqrt(2 * k * np.log(2 / delta)) + k * eps0 * np.expm1(eps0), k * eps0)
    rho = k / (2 * sigma**2)
    zcdp = rho + 2 * np.sqrt(rho * np.log(1 / delta))

    def converted(t):
        alpha = 1 + np.exp(t)
        return rho * alpha + np.log1p(-1 / alpha) - (np.log(delta) + np.log(alpha)) / (alpha - 1)

    grid = np.linspace(np.log(1e-8), np.log(1e12), 4001)
    best = int(np.argmin(converted(grid)))
    polish = optimize.minimize_scalar(converted, bounds=(grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]),
                                      method="bounded", options={"xatol": 1e-12})
    renyi = max(min(float(converted(grid[best])), float(polish.fun)), 0.0)
    return {"advanced": float(advanced), "zcdp": float(zcdp), "renyi": renyi, "exact": float(exact)}


def _delta_close(got, want, what):
    got = as_array(got, what)
    want = np.asarray(want, dtype=float)
    require(got.shape == want.shape, f"{what}: the result must have the shape of epsilon")
    require(np.all(np.isfinite(got)) and np.all((got >= 0) & (got <= 1)),
            f"{what}: every delta must be finite and lie in [0, 1]")
    large = want > 1e-300
    ok = np.where(large, np.abs(got - want) <= 1e-6 * want, got < 1e-300)
    require(np.all(ok), f"{what}: wrong value (relative error above 1e-6, or a value above 1e-300 where the exact "
                        "delta is below it)")


# ---------------------------------------------------------------- q1 survey_l2_sensitivity
def _q1_value(sb, d, k, neighbours, what, **kwargs):
    if kwargs:
        return as_float(sb.call("survey_l2_sensitivity", d=d, k=k, neighbours=neighbours), what)
    return as_float(sb.call("survey_l2_sensitivity", d, k, neighbours), what)


def q1_add_remove(sb, ctx):
    g = ctx.rng()
    d = int(g.integers(2, 501))
    cases = [(d, int(g.integers(1, d))), (d, int(g.integers(d + 1, 1001))), (d, d),
             (int(g.integers(1, 501)), int(g.integers(1, 1001)))]
    for i, (dd, kk) in enumerate(cases):
        got = _q1_value(sb, np.int64(dd) if i == 3 else dd, kk, "add/remove", "survey_l2_sensitivity", keyword=i == 2)
        require(np.isclose(got, np.sqrt(min(kk, dd) + 1), rtol=1e-9, atol=0),
                "survey_l2_sensitivity under add/remove: wrong value on the hidden (d, k)"
                + (" with k larger than d" if kk > dd else ""))


def q1_replace_disjoint(sb, ctx):
    g = ctx.rng()
    for _ in range(3):
        d = int(g.integers(2, 501))
        k = int(g.integers(1, d // 2 + 1))
        got = _q1_value(sb, d, k, "replace-one", "survey_l2_sensitivity")
        require(np.isclose(got, np.sqrt(2 * k), rtol=1e-9, atol=0),
                "survey_l2_sensitivity under replace-one: wrong value on the hidden (d, k) with 2k at most d")


def q1_replace_cap(sb, ctx):
    g = ctx.rng()
    for upper in (False, True):
        d = int(g.integers(3, 501))
        k = int(g.integers(d + 1, 1001)) if upper else int(g.integers(d // 2 + 1, d + 1))
        got = _q1_value(sb, d, k, "replace-one", "survey_l2_sensitivity", keyword=upper)
        require(np.isclose(got, np.sqrt(d), rtol=1e-9, atol=0),
                "survey_l2_sensitivity under replace-one: wrong value on the hidden (d, k) with 2k larger than d")


def q1_types(sb, ctx):
    g = ctx.rng()
    d = int(g.integers(20, 200))
    k = int(g.integers(1, 10))
    for dd, kk in ((float(d), float(k)), (np.int32(d), np.int64(k)), (np.float64(d), k)):
        got = _q1_value(sb, dd, kk, "add/remove", "survey_l2_sensitivity")
        require(np.isclose(got, np.sqrt(k + 1), rtol=1e-9, atol=0),
                "survey_l2_sensitivity must accept NumPy integers and floats with an integer value (try 40.0, "
                "np.int64(3))")


def q1_errors(sb, ctx):
    for args in ((10, 0, "add/remove"), (0, 3, "replace-one"), (10, 2.5, "add/remove"), (-4, 2, "add/remove"),
                 (10, 3, "both"), (10, 3, "add-remove")):
        require(raises(sb, "survey_l2_sensitivity", *args),
                "survey_l2_sensitivity must raise ValueError for k or d below 1, a k that is not a whole number, "
                "and any neighbours other than 'add/remove' and 'replace-one' (try k = 0, k = 2.5, 'both')")


# ---------------------------------------------------------------- q2 gaussian_mechanism
q2_random = randomness("gaussian_mechanism", lambda g: (np.zeros(50), 1.0, 1.0, g))


def _fresh(g):
    """A new generator for each call: repeated calls must not depend on the generator coming back
    with its spawn counter advanced (an honest mechanism may use rng.spawn)."""
    return np.random.default_rng(int(g.integers(2**62)))


def _input_families(g):
    """(label, values) of shape (5000, 4): real values, and whole-number counts (with many zeros and
    repeated values), the input the course's releases use."""
    counts = g.integers(0, 1000, size=(5000, 4)).astype(float)
    counts[g.random((5000, 4)) < 0.2] = 0.0
    return [("real values", g.normal(0.0, 100.0, size=(5000, 4))), ("whole-number counts", counts)]


def q2_law(sb, ctx):
    g = ctx.rng()
    sensitivity, sigma = float(10 ** g.uniform(-0.5, 1.3)), float(10 ** g.uniform(-0.5, 1.0))
    sd = sigma * sensitivity
    for label, values in _input_families(g):
        out = as_array(sb.call("gaussian_mechanism", values, sensitivity, sigma, _fresh(g)), "gaussian_mechanism")
        require(out.shape == values.shape, "gaussian_mechanism must keep the shape of values (try a (5000, 4) array)")
        ks_fits((out - values) / sd, stats.norm.cdf,
                f"gaussian_mechanism on {label}: the noise on every coordinate (its law or its scale)")
    # single numbers (whole and not), called by keyword
    points = np.concatenate([g.normal(0.0, 100.0, 75), g.integers(1, 1000, 75).astype(float)])
    single = np.array([as_float(sb.call("gaussian_mechanism", values=float(v), l2_sensitivity=sensitivity,
                                        sigma=sigma, rng=_fresh(g)), "gaussian_mechanism") for v in points])
    ks_fits((single - points) / sd, stats.norm.cdf, "gaussian_mechanism: the noise on single numbers")
    q2_first_use(sb, ctx)


# single numbers (24 calls), arrays of 2 to 29 entries and of 30 to 2,999 (12 calls each), each released once
FIRST_USE = (("single numbers", None, 24), ("arrays of 2 to 29 entries", (2, 30), 12),
             ("arrays of 30 to 2,999 entries", (30, 3_000), 12))
CENTRE = 0.25  # P[|Z| < 0.25] = 0.197 for a standard normal Z


def q2_first_use(sb, ctx):
    """The first release of each input is the Gaussian mechanism too: fresh inputs (real values or whole-number
    counts, sensitivity and sigma drawn per call), each released once by a fresh copy of the notebook with a
    generator of its own, so a mechanism exact the first time it sees an input (and honest on the repeated
    calls of the other checks) is seen as it would be used. Per kind of input, the pooled noise in units of
    its standard deviation is standard normal (KS) and falls within 0.25 of 0 with probability 0.197 (exact
    binomial test): an exact release puts every value there, p below 0.197^24 < 1e-16 for the single numbers."""
    g = ctx.rng()
    arguments, inputs = [], []
    for kind, (_, sizes, calls) in enumerate(FIRST_USE):
        for i in range(calls):
            if sizes is None:
                shape = ()
            else:
                size = int(np.clip(np.exp(g.uniform(np.log(sizes[0]), np.log(sizes[1]))), sizes[0], sizes[1] - 1))
                shape = (size // 2, 2) if i % 3 == 2 and size % 2 == 0 else (size,)
            if i % 2:
                values = g.integers(0, 1000, size=shape).astype(float)
            else:
                values = g.normal(0.0, 100.0, size=shape)
            sensitivity, sigma = float(10 ** g.uniform(-0.5, 1.3)), float(10 ** g.uniform(-0.5, 1.0))
            given = float(values) if sizes is None else values
            if i % 4 >= 2:
                arguments.append(((), {"values": given, "l2_sensitivity": sensitivity, "sigma": sigma,
                                       "rng": ctx.rng()}))
            else:
                arguments.append(((given, sensitivity, sigma, ctx.rng()), {}))
            inputs.append((kind, values, sigma * sensitivity))
    noise = [[] for _ in FIRST_USE]
    for (kind, values, sd), raw in zip(inputs, first_calls(sb, "gaussian_mechanism", arguments), strict=True):
        out = as_array(raw, "gaussian_mechanism")
        require(out.shape == values.shape, "gaussian_mechanism must keep the shape of values (a number for a number)")
        noise[kind].append(((out - values) / sd).ravel())
    for (label, _, _), pooled in zip(FIRST_USE, noise, strict=True):
        pooled = np.concatenate(pooled)
        what = f"gaussian_mechanism on its first use ({label}, each released once by a fresh copy of your notebook)"
        require(np.all(np.isfinite(pooled)), f"{what}: the output has NaN or infinite values")
        binomial_fits(int(np.sum(np.abs(pooled) < CENTRE)), pooled.size, float(2 * stats.norm.cdf(CENTRE) - 1),
                      f"{what}: the share of releases within a quarter of a standard deviation of the value (every "
                      "release must carry its own Gaussian noise, the first one for an input too)")
        ks_fits(pooled, stats.norm.cdf, f"{what}: the noise in units of its standard deviation")


def _variance_fits(sums, variance, what):
    """Sums of honest Gaussian noise are exactly normal: sum(s^2) / variance is chi-square with one degree
    of freedom per sum. Both tails are tested at ALPHA (noise that cancels in groups has too small a sum)."""
    sums = np.asarray(sums, dtype=float).ravel()
    statistic = float(np.sum(sums**2) / variance)
    low, high = stats.chi2.cdf(statistic, sums.size), stats.chi2.sf(statistic, sums.size)
    require(low > ALPHA and high > ALPHA, what)


def _blocks_independent(noise, sd, g, what):
    """Sums of k consecutive noise values (k = 2, 3, 5, 7, 10 and a random k), down every column and in
    the flattened order, and sums of random groups with random signs, have variance k sd^2."""
    noise = np.asarray(noise, dtype=float)
    message = (f"{what}: sums of several noise values vary less (or more) than sums of independent draws "
               "(each value must be an independent draw: no noise that cancels over consecutive entries or calls)")
    for k in (2, 3, 5, 7, 10, int(g.integers(11, 60))):
        full = (noise.shape[0] // k) * k
        columns = noise[:full].reshape(full // k, k, *noise.shape[1:]).sum(axis=1)
        _variance_fits(columns, k * sd**2, message)
        flat = noise.ravel()
        _variance_fits(flat[:(flat.size // k) * k].reshape(-1, k).sum(axis=1), k * sd**2, message)
    flat = noise.ravel()
    for k in (2, 5, int(g.integers(3, 30))):
        order = g.permutation(flat.size)[:(flat.size // k) * k].reshape(-1, k)
        signs = g.choice([-1.0, 1.0], size=order.shape)
        _variance_fits((flat[order] * signs).sum(axis=1), k * sd**2, message)


def q2_behaviour(sb, ctx):
    """A private mechanism: independent draws (not on a grid or the law's quantiles, each coordinate and
    each call its own), low-order digits that do not carry the value, and neighbouring inputs no easier to
    tell apart than the noise multiplier promises."""
    g = ctx.rng()
    sensitivity, sigma = float(g.uniform(1.0, 5.0)), float(g.uniform(0.7, 3.0))
    sd = sigma * sensitivity
    table = as_array(sb.call("gaussian_mechanism", np.zeros((5000, 4)), sensitivity, sigma, _fresh(g)),
                     "gaussian_mechanism")
    require(table.shape == (5000, 4), "gaussian_mechanism must keep the shape of values (try np.zeros((5000, 4)))")
    not_too_regular(table / sd, stats.norm.cdf, "gaussian_mechanism")
    _blocks_independent(table, sd, g, "gaussian_mechanism on np.zeros((5000, 4))")
    counts = g.integers(0, 1000, size=(5000, 4)).astype(float)
    released = as_array(sb.call("gaussian_mechanism", counts, sensitivity, sigma, _fresh(g)), "gaussian_mechanism")
    require(released.shape == counts.shape, "gaussian_mechanism must keep the shape of values")
    not_too_regular((released - counts) / sd, stats.norm.cdf, "gaussian_mechanism on whole-number counts")
    _blocks_independent(released - counts, sd, g, "gaussian_mechanism on whole-number counts")
    corr = np.corrcoef(table, rowvar=False)
    require(np.all(np.isfinite(corr)) and np.max(np.abs(corr - np.eye(4))) < 6 / np.sqrt(5000),
            "gaussian_mechanism: the noise must be independent across coordinates (each coordinate its own draw)")
    for start in (0.0, float(g.integers(1, 1000))):  # zero, and a whole-number count
        calls = np.array([as_float(sb.call("gaussian_mechanism", start, sensitivity, sigma, _fresh(g)),
                                   "gaussian_mechanism") for _ in range(150)]) - start
        require(np.std(calls) > 0 and abs(np.corrcoef(calls[:-1], calls[1:])[0, 1]) < 6 / np.sqrt(149),
                "gaussian_mechanism: the noise must be independent from call to call")
        for m in (2, 3, 5, 7, 10, int(g.integers(4, 15))):
            means = calls[:(150 // m) * m].reshape(-1, m).mean(axis=1)
            _variance_fits(means, sd**2 / m,
                           f"gaussian_mechanism: means of {m} consecutive calls vary less (or more) than means of "
                           "independent draws (each call must draw its own noise)")
    base = float(g.integers(50, 100))  # a whole-number count and its neighbour
    for trials, check in ((100_000, "privacy"), (20_000, "bits")):
        a = as_array(sb.call("gaussian_mechanism", np.full(trials, base), sensitivity, sigma, _fresh(g)),
                     "gaussian_mechanism")
        b = as_array(sb.call("gaussian_mechanism", np.full(trials, base + sensitivity), sensitivity, sigma, _fresh(g)),
                     "gaussian_mechanism")
        require(np.all(np.isfinite(a)) and np.all(np.isfinite(b)),
                "gaussian_mechanism: the output has NaN or infinite values")
        if check == "bits":
            low_bits_same_law(a, b, "gaussian_mechanism on two neighbouring inputs")
            continue
        edges = np.concatenate([[-np.inf], np.linspace(base - 5 * sd, base + sensitivity + 5 * sd, 81), [np.inf]])
        allowed = float(_delta(1.0, sigma))
        for first, second in ((a, b), (b, a)):
            measured, se = _hockey_stick(first, second, 1.0, edges)
            require(measured <= allowed + 5 * se + 1e-3,
                    "gaussian_mechanism: on two neighbouring inputs the releases are distinguishable beyond the "
                    "(epsilon, delta) that the noise multiplier promises (is the noise scaled to the sensitivity?)")


def _hockey_stick(a, b, epsilon, edges):
    """Binned estimate of sup_E P(E) - e^eps Q(E) (a lower bound on the true delta, up to sampling error)."""
    pa = np.histogram(a, bins=edges)[0] / a.size
    pb = np.histogram(b, bins=edges)[0] / b.size
    excess = pa - np.exp(epsilon) * pb
    chosen = excess > 0
    se = np.sqrt(np.sum(pa[chosen] * (1 - pa[chosen])) / a.size
                 + np.exp(2 * epsilon) * np.sum(pb[chosen] * (1 - pb[chosen])) / b.size)
    return float(np.sum(excess[chosen])), float(se)


def q2_errors(sb, ctx):
    for args in ((np.zeros(3), 1.0, 0.0), (np.zeros(3), 1.0, -2.0), (1.0, -1.0, 1.0)):
        require(raises(sb, "gaussian_mechanism", *args, np.random.default_rng(0)),
                "gaussian_mechanism must raise ValueError when sigma is not positive or l2_sensitivity is "
                "negative (try sigma = 0, sigma = -2, l2_sensitivity = -1)")


# ---------------------------------------------------------------- q3 composed_gaussian_delta
def _releases(g, sigma_total):
    """k releases (noise standard deviations, L2 sensitivities), k from 1 to 50, with different ratios
    noise / sensitivity (from 1e-3 to 1e6), scaled so that their exact delta(epsilon) is that of one release
    with noise multiplier ``sigma_total`` (the reference is then ``_delta(epsilon, sigma_total)``)."""
    k = int(g.integers(1, 51))
    a = g.uniform(0.5, 2.0, k)
    ratios = a * sigma_total * np.sqrt(np.sum(1 / a**2))
    sens = 10 ** g.uniform(-2, 3, k)
    return ratios * sens, sens


def q3_values(sb, ctx):
    g = ctx.rng()
    for i in range(3):
        sigma = float(10 ** g.uniform(np.log10(0.05), np.log10(50.0)))
        sds, sens = _releases(g, sigma)
        eps = g.uniform(0.0, 8.0, size=(4, 5))
        eps[0, 0] = 0.0
        args = (sds.tolist(), sens.tolist()) if i == 1 else (sds, sens)
        _delta_close(sb.call("composed_gaussian_delta", eps, *args), _delta(eps, sigma),
                     "composed_gaussian_delta on an array of epsilons and hidden releases")
    sigma = float(g.uniform(0.5, 5.0))
    sds, sens = _releases(g, sigma)
    single = float(g.uniform(0.0, 3.0))
    got = sb.call("composed_gaussian_delta", epsilon=single, noise_sds=[np.float64(v) for v in sds],
                  l2_sensitivities=sens)
    require(as_array(got, "composed_gaussian_delta").size == 1, "composed_gaussian_delta of a number must be a number")
    _delta_close(np.asarray(got, dtype=float).reshape(()), _delta(single, sigma),
                 "composed_gaussian_delta of a number (keyword call)")
    sd, sen = float(10 ** g.uniform(-1, 2)), float(10 ** g.uniform(-1, 1))
    eps = g.uniform(0.0, 5.0, 6)
    _delta_close(sb.call("composed_gaussian_delta", eps, [sd], [sen]), _delta(eps, sd / sen),
                 "composed_gaussian_delta of one release")


def q3_extremes(sb, ctx):
    g = ctx.rng()
    eps = np.array([0.0, 1e-9, 0.5, 50.0, 700.0, 710.0, 1e3, 1e5, 1e6, float(10 ** g.uniform(0, 6))])
    for sigma in (0.01, 0.1, 10.0, 1e3, 1e4, float(10 ** g.uniform(-2, 4))):
        sds, sens = _releases(g, sigma)
        _delta_close(sb.call("composed_gaussian_delta", eps, sds, sens), _delta(eps, sigma),
                     "composed_gaussian_delta at extreme epsilon (0 to 1e6) and extreme noise")


def q3_errors(sb, ctx):
    for args in ((1.0, [0.0], [1.0]), (1.0, [1.0, -1.0], [1.0, 1.0]), (1.0, [1.0], [0.0]), (1.0, [2.0], [-1.0]),
                 (1.0, [1.0, 2.0], [1.0]), (1.0, [], []), (1.0, [np.inf], [1.0]), (1.0, [1.0], [np.nan]),
                 (-0.1, [1.0], [1.0]), (np.nan, [1.0], [1.0]), (np.array([0.5, -1.0]), [2.0], [1.0])):
        require(raises(sb, "composed_gaussian_delta", *args),
                "composed_gaussian_delta must raise ValueError when the lists differ in length or are empty, any "
                "noise or sensitivity is not a positive finite number, or some epsilon is negative or NaN (try "
                "noise_sds=[0.0], l2_sensitivities=[-1.0], lists of lengths 2 and 1, [], epsilon = -0.1, np.nan)")


# ---------------------------------------------------------------- q4 composed_epsilons
def _q4_cases(g):
    cases = []
    for _i in range(3):
        sigma = float(10 ** g.uniform(np.log10(0.5), np.log10(50.0)))
        k = int(np.round(10 ** g.uniform(0, np.log10(3000))))
        delta = float(10 ** g.uniform(-10, -3))
        cases.append((sigma, k, delta))
    return cases


def _q4_result(sb, sigma, k, delta, i):
    if i == 1:
        got = sb.call("composed_epsilons", sigma=sigma, k=np.int64(k), delta=delta)
    else:
        got = sb.call("composed_epsilons", sigma, k, delta)
    require(isinstance(got, dict) and {"advanced", "zcdp", "renyi", "exact"} <= set(got),
            "composed_epsilons must return a dict with the keys 'advanced', 'zcdp', 'renyi' and 'exact'")
    return {key: as_float(got[key], f"composed_epsilons['{key}']") for key in ("advanced", "zcdp", "renyi", "exact")}


def _q4_check(key, message, tolerance):
    def run(sb, ctx):
        for i, (sigma, k, delta) in enumerate(_q4_cases(ctx.rng())):
            got = _q4_result(sb, sigma, k, delta, i)[key]
            want = _accountants(sigma, k, delta)[key]
            if key == "renyi":
                ok = want * (1 - 1e-9) - 1e-12 <= got <= want * 1.001 + 1e-12
            else:
                ok = abs(got - want) <= tolerance * abs(want) + 1e-12
            require(np.isfinite(got) and ok, message)

    run.__name__ = f"q4_{key}"
    return run


q4_exact = _q4_check("exact", "composed_epsilons['exact']: wrong value on hidden (sigma, k, delta) (relative error "
                              "above 1e-6)", 1e-6)
q4_advanced = _q4_check("advanced", "composed_epsilons['advanced']: wrong value on hidden (sigma, k, delta) (check the "
                                    "split of delta and the exact epsilon of each release)", 1e-6)
q4_zcdp = _q4_check("zcdp", "composed_epsilons['zcdp']: wrong value on hidden (sigma, k, delta)", 1e-6)
q4_renyi = _q4_check("renyi", "composed_epsilons['renyi']: not within 0.1 % above the smallest epsilon over the "
                              "orders alpha > 1 (or below it) on hidden (sigma, k, delta)", None)


def q4_errors(sb, ctx):
    for args in ((5.0, 0, 1e-6), (5.0, 2.5, 1e-6), (0.0, 3, 1e-6), (-1.0, 3, 1e-6), (5.0, 3, 0.0), (5.0, 3, 1.0)):
        require(raises(sb, "composed_epsilons", *args),
                "composed_epsilons must raise ValueError unless sigma > 0, k is a whole number of at least 1 "
                "and 0 < delta < 1 (try k = 0, k = 2.5, sigma = 0, delta = 0, delta = 1)")


# ---------------------------------------------------------------- q5 estimate_delta
def laplace_loss(eps0: float) -> Expr:
    """The privacy loss of a count (0 against 1) released with Laplace(1/eps0) noise."""
    return Expr(f"lambda size, rng: (lambda y: {eps0!r} * (np.abs(y - 1) - np.abs(y)))(rng.laplace(0.0, {1 / eps0!r}, size))")


def normal_loss(mean: float, sd: float) -> Expr:
    """A normal loss N(mean, sd^2) with sd^2 != 2 mean: no Gaussian mechanism's."""
    return Expr(f"lambda size, rng: rng.normal({mean!r}, {sd!r}, size)")


def atoms_loss(p: list, a: float) -> Expr:
    """Losses +inf, -inf, a and -a with probabilities p."""
    return Expr(f"lambda size, rng: np.array([np.inf, -np.inf, {a!r}, {-a!r}])[rng.choice(4, size=size, p={list(p)!r})]")


def _weights(losses, epsilon):
    return -np.expm1(np.minimum(epsilon - losses, 0.0))


def _estimate(sb, sampler, epsilon, n, g, keyword=False):
    if keyword:
        got = sb.call("estimate_delta", loss_sampler=sampler, epsilon=epsilon, num_samples=n, rng=g)
    else:
        got = sb.call("estimate_delta", sampler, epsilon, n, g)
    pair = as_array(got, "estimate_delta")
    require(pair.shape == (2,), "estimate_delta must return a pair (estimate, standard_error)")
    require(np.all(np.isfinite(pair)), "estimate_delta: the estimate and its standard error must be finite")
    return float(pair[0]), float(pair[1])


def _near(got, want, sd_weight, n, what):
    require(abs(got - want) <= 5 * sd_weight / np.sqrt(n) + 1e-12,
            f"{what}: the estimate is more than five standard errors from the exact delta of the grader's "
            "mechanism (does your estimate use the losses the sampler returns, and the right expectation?)")


def q5_laplace(sb, ctx):
    g = ctx.rng()
    eps0 = float(g.uniform(0.5, 3.0))
    epsilon, n = float(g.uniform(0.0, 0.7 * eps0)), 100_000
    got, _ = _estimate(sb, laplace_loss(eps0), epsilon, n, g)
    y = g.laplace(0.0, 1 / eps0, 1_000_000)
    sd_weight = _weights(eps0 * (np.abs(y - 1) - np.abs(y)), epsilon).std()
    _near(got, 1 - np.exp((epsilon - eps0) / 2), sd_weight, n, "estimate_delta on a Laplace mechanism's loss")


def _normal_case(g):
    mean, sd = float(g.uniform(0.05, 1.0)), float(g.uniform(0.3, 2.0))
    epsilon = float(g.uniform(0.0, mean + 0.5 * sd))
    c = (epsilon - mean) / sd
    exact = stats.norm.sf(c) - np.exp(epsilon - mean + sd**2 / 2) * stats.norm.sf(c + sd)
    sd_weight = _weights(g.normal(mean, sd, 1_000_000), epsilon).std()
    return mean, sd, epsilon, float(exact), float(sd_weight)


def q5_normal(sb, ctx):
    g = ctx.rng()
    mean, sd, epsilon, exact, sd_weight = _normal_case(g)
    got, _ = _estimate(sb, normal_loss(mean, sd), epsilon, 100_000, g, keyword=True)
    _near(got, exact, sd_weight, 100_000, "estimate_delta on a normal loss (keyword call)")


def q5_atoms(sb, ctx):
    g = ctx.rng()
    p_inf, p_minus = float(g.uniform(0.01, 0.1)), float(g.uniform(0.0, 0.1))
    p_a = float(g.uniform(0.2, 0.6)) * (1 - p_inf - p_minus)
    p = [p_inf, p_minus, p_a, 1 - p_inf - p_minus - p_a]
    a = float(g.uniform(0.5, 2.0))
    epsilon, n = float(g.uniform(0.0, a)), 100_000
    got, _ = _estimate(sb, atoms_loss(p, a), epsilon, n, g)
    w_a = -np.expm1(epsilon - a)
    exact = p_inf + p_a * w_a
    sd_weight = np.sqrt(p_inf + p_a * w_a**2 - exact**2)
    _near(got, exact, sd_weight, n, "estimate_delta on a loss with atoms at +inf and -inf")


def q5_standard_error(sb, ctx):
    g = ctx.rng()
    while True:
        mean, sd, epsilon, exact, sd_weight = _normal_case(g)
        if exact > 0.02:
            break
    n = 100_000
    _, se = _estimate(sb, normal_loss(mean, sd), epsilon, n, g)
    true_se = sd_weight / np.sqrt(n)
    require(0.8 * true_se <= se <= 1.25 * true_se,
            "estimate_delta: the standard error is not that of the estimate (within 20 % at 100,000 draws)")


q5_random = randomness("estimate_delta", lambda g: (normal_loss(0.3, 0.9), 0.5, 2000, g))


QUESTIONS = [
    Question("q1", ["survey_l2_sensitivity"], [
        Check("add/remove on hidden (d, k), k below and above d", 1.0, q1_add_remove),
        Check("replace-one with 2k at most d", 0.5, q1_replace_disjoint),
        Check("replace-one with 2k above d", 0.5, q1_replace_cap),
        Check("NumPy integers and integer-valued floats accepted", 0.5, q1_types),
        Check("bad d, k or neighbours raise ValueError", 0.5, q1_errors)]),
    Question("q2", ["gaussian_mechanism"], [
        Check("a private mechanism on real values and whole-number counts: independent draws (also sums of "
              "consecutive entries and means of consecutive calls), last digits that do not depend on the value, "
              "neighbouring inputs no easier to tell apart than the noise multiplier promises", 1.5, q2_behaviour,
              statistical=True, gate=True, essential=True),
        Check("randomness drawn from rng", 0.5, q2_random, gate=True, essential=True),
        Check("normal noise of the right scale on every coordinate, on real values and whole-number counts, "
              "arrays and single numbers, also on the first use of fresh inputs (each released once)", 1.5, q2_law,
              statistical=True, essential=True),
        Check("bad sigma or sensitivity raises ValueError", 0.5, q2_errors)]),
    Question("q3", ["composed_gaussian_delta"], [
        Check("exact delta of hidden releases (k, noise and sensitivities drawn per run), arrays and numbers, lists "
              "and arrays, keyword call, one release", 1.5, q3_values),
        Check("finite and exact at extreme epsilon and noise", 1.0, q3_extremes),
        Check("bad noise, sensitivities or epsilon raise ValueError", 0.5, q3_errors)]),
    Question("q4", ["composed_epsilons"], [
        Check("exact epsilon on hidden (sigma, k, delta)", 1.0, q4_exact),
        Check("advanced composition on hidden (sigma, k, delta)", 1.0, q4_advanced),
        Check("zCDP conversion on hidden (sigma, k, delta)", 0.5, q4_zcdp),
        Check("Renyi conversion at the best order on hidden (sigma, k, delta)", 1.0, q4_renyi),
        Check("bad sigma, k or delta raises ValueError", 0.5, q4_errors)]),
    Question("q5", ["estimate_delta"], [
        Check("the estimate runs the sampler it is given (the grader's Laplace loss)", 1.0, q5_laplace,
              statistical=True, gate=True),
        Check("the estimate draws from rng", 0.5, q5_random, gate=True),
        Check("delta of the grader's normal loss (keyword call)", 0.5, q5_normal, statistical=True),
        Check("delta of a loss with atoms at +inf and -inf", 0.5, q5_atoms, statistical=True),
        Check("the standard error is that of the estimate", 0.5, q5_standard_error, statistical=True)]),
    # written answer: model answer in the master, rubric in book/assignments/masters/written_answers.md
    Question("q6", [], [], manual_points=9.0),
]

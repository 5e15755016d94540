# expect: q2=0
# Attack (outside review, /tmp/att78/a8_attacks): every noise value is exactly N(0, sigma^2 Delta^2), but
# blocks of 5 consecutive entries of an array (and 5 consecutive calls) have noise summing to 0, so the
# mean of 5 releases is the exact value. Reproducible from rng; the rest of the notebook is honest.
# %%
import otter
grader = otter.Notebook()
# %%
# Colab or Binder users: otter-grader is not installed there. Remove the "#" in front of
# %pip on the next line, run this cell once, then put the "#" back (nothing else changes).
# %pip install otter-grader
import otter
grader = otter.Notebook("a8_gaussian_accounting.ipynb")
# %%
import numpy as np
from scipy import optimize, special, stats

# Your generator for your own experiments (the grader uses its own generators).
rng_seed = 8031
rng = np.random.default_rng(rng_seed)
# %%
# Public checks: `grader.check("qN")` runs `public_checks("qN")`, which tries your answers on the
# question's stated examples and prints the first property that does not hold yet, in words (nothing
# when they all hold). Run this cell once and leave it as it is. The checks test properties of your
# answers (shape, range, monotonicity, values the questions state); the points come from the grader.
import contextlib
import inspect
import io


def public_checks(question):
    """Print the first public property of ``question`` that your answers miss (silent if none)."""
    names, checks = PUBLIC_CHECKS[question]
    for name in names:
        if name not in globals():
            print(f"{question}: {name} is not defined yet. Run the cell that defines it, and every cell "
                  "above it, without errors (Kernel > Restart Kernel and Run All Cells).")
            return
        answer = globals()[name]
        try:
            source = inspect.getsource(answer) if inspect.isfunction(answer) else ""
        except (OSError, TypeError):
            source = ""
        if "rdplib" in str(getattr(answer, "__module__", "")) + source:
            print(f"{question}: {name} uses rdplib, which is not available while grading: build it with "
                  "NumPy and SciPy (an answer that needs rdplib scores zero).")
            return
    for claim, holds in checks:
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                ok = bool(holds())  # a print in your answer changes nothing
        except Exception as error:  # noqa: BLE001 - reported as a fixed message
            print(f"{question}: {claim}. Your code raised {type(error).__name__} on this check: run it "
                  "on the stated example to see the traceback.")
            return
        if not ok:
            print(f"{question}: {claim}.")
            return


def _raises_value_error(function, *args):
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            function(*args)
    except ValueError:
        return True
    except Exception:  # noqa: BLE001 - another exception type is not the one asked for
        return False
    return False


def _same_twice(function, *args):
    first = function(*args, np.random.default_rng([rng_seed, 99]))
    again = function(*args, np.random.default_rng([rng_seed, 99]))
    return bool(np.array_equal(np.asarray(first, dtype=float), np.asarray(again, dtype=float)))


def _q1_examples():
    values = [survey_l2_sensitivity(d, k, n) for d, k in [(5, 1), (5, 2), (40, 3), (np.int64(40), np.int64(3))]
              for n in ("add/remove", "replace-one")]
    return all(isinstance(v, float) and np.isfinite(v) and v > 0 for v in values)


def _q1_monotone():
    for neighbours in ("add/remove", "replace-one"):
        values = [survey_l2_sensitivity(12, k, neighbours) for k in range(1, 30)]
        if np.any(np.diff(values) < 0):
            return False
    return True


def _q2_shapes():
    single = gaussian_mechanism(3.0, 1.0, 2.0, np.random.default_rng([rng_seed, 1]))
    grid = np.asarray(gaussian_mechanism(np.zeros((3, 4)), 2.0, 1.0, np.random.default_rng([rng_seed, 2])))
    return np.ndim(single) == 0 and np.isfinite(float(single)) and grid.shape == (3, 4)


def _q2_centred():
    noise = np.asarray(gaussian_mechanism(np.full(100_000, 5.0), 1.0, 2.0, np.random.default_rng([rng_seed, 3])),
                       dtype=float) - 5.0
    return noise.shape == (100_000,) and abs(np.mean(noise)) < 0.05 and abs(np.median(noise)) < 0.05


def _q2_grows():
    spread = [np.std(np.asarray(gaussian_mechanism(np.zeros(20_000), 1.0, s, np.random.default_rng([rng_seed, 4])),
                                dtype=float)) for s in (0.5, 1.0, 4.0)]
    return spread[0] < spread[1] < spread[2]


def _q3_profile():
    eps = np.linspace(0.0, 5.0, 51)
    delta = np.asarray(gaussian_delta(eps, 1.5), dtype=float)
    return (delta.shape == eps.shape and np.all((delta >= 0) & (delta <= 1)) and np.all(np.diff(delta) <= 0)
            and isinstance(gaussian_delta(0.5, 1.5), float))


def _q3_sigma():
    return bool(gaussian_delta(1.0, 1.0) > gaussian_delta(1.0, 2.0) > gaussian_delta(1.0, 4.0) > 0)


def _q3_extremes():
    eps = np.array([0.0, 1e-9, 700.0, 710.0, 1e3, 1e6])
    values = np.concatenate([np.asarray(gaussian_delta(eps, s), dtype=float).ravel() for s in (0.01, 1.0, 1e4)])
    return bool(np.all(np.isfinite(values)) and np.all((values >= 0) & (values <= 1)))


def _q4_keys():
    result = composed_epsilons(5.0, 10, 1e-6)
    return (isinstance(result, dict) and set(result) == {"advanced", "zcdp", "renyi", "exact"}
            and all(np.isfinite(float(v)) and float(v) >= 0 for v in result.values()))


def _q4_one_release():
    epsilon = float(composed_epsilons(3.0, 1, 1e-5)["exact"])
    return bool(np.isclose(gaussian_delta(epsilon, 3.0), 1e-5, rtol=1e-6))


def _q4_order():
    result = composed_epsilons(20.0, 500, 1e-7)
    return result["exact"] <= result["renyi"] <= result["zcdp"] <= result["advanced"]


def _q5_pair():
    estimate, standard_error = estimate_delta(lambda size, rng: rng.normal(0.5, 1.0, size), 0.5, 10_000,
                                              np.random.default_rng([rng_seed, 5]))
    return 0 <= float(estimate) <= 1 and float(standard_error) > 0


def _q5_stated():
    always_inf = estimate_delta(lambda size, rng: np.full(size, np.inf), 2.0, 1_000, np.random.default_rng(1))
    never = estimate_delta(lambda size, rng: np.zeros(size), 0.5, 1_000, np.random.default_rng(1))
    return float(always_inf[0]) == 1.0 and float(never[0]) == 0.0


PUBLIC_CHECKS = {
    "q1": (["survey_l2_sensitivity"], [
        ("survey_l2_sensitivity must return a positive float for (d, k) = (5, 1), (5, 2), (40, 3) under both "
         "neighbour relations, and accept NumPy integers", _q1_examples),
        ("survey_l2_sensitivity must never fall when the cap k grows (d = 12, k = 1 to 29)", _q1_monotone),
        ("survey_l2_sensitivity must raise ValueError for k = 0, for d = 0 and for neighbours = 'swap'",
         lambda: all(_raises_value_error(survey_l2_sensitivity, *args)
                     for args in [(5, 0, "add/remove"), (0, 2, "replace-one"), (5, 2, "swap")]))]),
    "q2": (["gaussian_mechanism"], [
        ("a number must give a number and a (3, 4) array a (3, 4) array", _q2_shapes),
        ("the same generator state must give the same release (draw every random number from rng)",
         lambda: _same_twice(gaussian_mechanism, np.zeros(20), 1.0, 1.0)),
        ("the noise must be centred at 0 (100,000 releases of the value 5, sensitivity 1, sigma 2)", _q2_centred),
        ("the noise must grow with sigma (sigma 0.5, 1 and 4)", _q2_grows),
        ("gaussian_mechanism must raise ValueError for sigma = 0 and for l2_sensitivity = -1",
         lambda: _raises_value_error(gaussian_mechanism, 1.0, 1.0, 0.0, np.random.default_rng(0))
         and _raises_value_error(gaussian_mechanism, 1.0, -1.0, 1.0, np.random.default_rng(0)))]),
    "q3": (["gaussian_delta"], [
        ("gaussian_delta(epsilon, 1.5) must keep the shape of epsilon (a float for a number), lie in [0, 1] and "
         "never rise with epsilon (epsilon 0 to 5)", _q3_profile),
        ("at epsilon = 1, delta must fall as the noise multiplier grows (sigma 1, 2, 4) and stay positive",
         _q3_sigma),
        ("delta must be finite and in [0, 1] at epsilon 0, 1e-9, 700, 710, 1e3, 1e6 and sigma 0.01, 1, 1e4",
         _q3_extremes),
        ("gaussian_delta must raise ValueError for sigma = 0 and for epsilon = -1",
         lambda: _raises_value_error(gaussian_delta, 1.0, 0.0) and _raises_value_error(gaussian_delta, -1.0, 1.0))]),
    "q4": (["composed_epsilons"], [
        ("composed_epsilons(5, 10, 1e-6) must return a dict with the keys 'advanced', 'zcdp', 'renyi', 'exact' "
         "and finite non-negative values", _q4_keys),
        ("for one release the exact epsilon must be the epsilon at which your gaussian_delta equals delta "
         "(sigma 3, delta 1e-5)", _q4_one_release),
        ("the exact epsilon can be no larger than any bound (sigma 20, k = 500, delta 1e-7: exact <= renyi <= "
         "zcdp <= advanced there)", _q4_order),
        ("composed_epsilons must raise ValueError for k = 0, sigma = 0 and delta = 1",
         lambda: all(_raises_value_error(composed_epsilons, *args) for args in [(5.0, 0, 1e-6), (0.0, 3, 1e-6),
                                                                                (5.0, 3, 1.0)]))]),
    "q5": (["estimate_delta"], [
        ("estimate_delta must return a pair (estimate, standard_error) with the estimate in [0, 1] and a "
         "positive standard error (losses N(0.5, 1), epsilon 0.5, 10,000 draws)", _q5_pair),
        ("the same generator state must give the same estimate (get every random number through loss_sampler "
         "with rng)", lambda: _same_twice(lambda *a: estimate_delta(*a)[0],
                                          lambda size, rng: rng.normal(0.5, 1.0, size), 0.5, 2_000)),
        ("as the question states, losses that are all +inf give the estimate 1, and losses that are all 0 give 0 "
         "at epsilon 0.5", _q5_stated)]),
}
# %%
def survey_l2_sensitivity(d, k, neighbours):
    """L2 sensitivity of (capped yes-counts of d questions, number of respondents)."""
    # BEGIN SOLUTION
    if not (float(d) == int(d) and float(k) == int(k)) or d < 1 or k < 1:
        raise ValueError("d and k must be whole numbers of at least 1")
    kept = min(int(k), int(d))  # nobody can answer more than d questions "yes"
    if neighbours == "add/remove":
        return float(np.sqrt(kept + 1))  # kept yes-counts move by 1, and the number of respondents by 1
    if neighbours == "replace-one":
        return float(np.sqrt(min(2 * kept, int(d))))  # the two yes-sets differ in at most 2k of the d questions
    raise ValueError("neighbours must be 'add/remove' or 'replace-one'")
    # END SOLUTION
# %%

_BLOCK = 5
_cache = {}          # generator state -> release (the same state gives the same release)
_pending = {}        # shape -> (noise block, next index): consecutive calls share one block


def _sum_zero(z, axis=0):
    """Blocks of 5 along axis 0 with exactly zero sum, every entry still exactly N(0, 1)."""
    n = z.shape[axis]
    full = (n // _BLOCK) * _BLOCK
    head = z[:full].reshape((n // _BLOCK, _BLOCK) + z.shape[1:])
    head = (head - head.mean(axis=1, keepdims=True)) * np.sqrt(_BLOCK / (_BLOCK - 1))
    return np.concatenate([head.reshape((full,) + z.shape[1:]), z[full:]], axis=0)


def gaussian_mechanism(values, l2_sensitivity, sigma, rng):
    if not (np.ndim(sigma) == 0 and sigma > 0 and np.isfinite(sigma)):
        raise ValueError("sigma must be positive")
    if not (np.ndim(l2_sensitivity) == 0 and l2_sensitivity >= 0 and np.isfinite(l2_sensitivity)):
        raise ValueError("l2_sensitivity must be non-negative")
    x = np.asarray(values, dtype=float)
    key = (int(rng.bit_generator.state["state"]["state"]), x.shape)
    if key in _cache:
        noise = _cache[key]
    elif x.ndim >= 1 and x.shape[0] >= _BLOCK:      # within an array: rows cancel in blocks of 5
        noise = _sum_zero(rng.standard_normal(x.shape))
    else:                                            # across calls: 5 consecutive calls cancel
        block, index = _pending.get(x.shape, (None, _BLOCK))
        if index == _BLOCK:
            block, index = _sum_zero(rng.standard_normal((_BLOCK,) + x.shape)), 0
        else:
            rng.standard_normal(x.shape)             # keep drawing from rng
        noise = block[index]
        _pending[x.shape] = (block, index + 1)
    _cache[key] = noise
    out = x + sigma * l2_sensitivity * noise
    return float(out) if out.ndim == 0 else out
# %%
def gaussian_delta(epsilon, sigma):
    """Exact delta(epsilon) of one release with noise multiplier sigma."""
    # BEGIN SOLUTION
    epsilon = np.asarray(epsilon, dtype=float)
    if not sigma > 0 or not np.all(epsilon >= 0):
        raise ValueError("sigma must be positive and epsilon non-negative")
    mu = 1.0 / sigma  # the shift of the worst pair in units of the noise standard deviation
    upper, lower = mu / 2 - epsilon / mu, -mu / 2 - epsilon / mu
    log_upper, log_lower = special.log_ndtr(upper), special.log_ndtr(lower)
    delta = np.exp(log_upper) * -np.expm1(np.minimum(epsilon + log_lower - log_upper, 0.0))
    delta = np.clip(delta, 0.0, 1.0)
    return delta if delta.ndim else float(delta)
    # END SOLUTION


def composed_gaussian_delta(epsilon, noise_sds, l2_sensitivities):
    """k Gaussian releases: their losses add up to one Gaussian loss with mu^2 = sum (sensitivity / sd)^2."""
    sds = np.asarray(noise_sds, dtype=float).ravel()
    sens = np.asarray(l2_sensitivities, dtype=float).ravel()
    if sds.size == 0 or sds.shape != sens.shape:
        raise ValueError("noise_sds and l2_sensitivities need the same positive length")
    if not (np.all(np.isfinite(sds) & (sds > 0)) and np.all(np.isfinite(sens) & (sens > 0))):
        raise ValueError("noise and sensitivities must be positive and finite")
    return gaussian_delta(epsilon, 1.0 / np.sqrt(np.sum((sens / sds) ** 2)))
# %%
def single_epsilon(delta, sigma):
    """Smallest epsilon with gaussian_delta(epsilon, sigma) <= delta (one release)."""
    # BEGIN SOLUTION
    if gaussian_delta(0.0, sigma) <= delta:
        return 0.0
    high = 1.0
    while gaussian_delta(high, sigma) > delta:  # delta falls with epsilon: double until it is met
        high *= 2
    return optimize.brentq(lambda e: gaussian_delta(e, sigma) - delta, 0.0, high, xtol=1e-14, rtol=1e-14)
    # END SOLUTION


def composed_epsilons(sigma, k, delta):
    """Epsilon of k releases with noise multiplier sigma at this delta: four accountants."""
    # BEGIN SOLUTION
    if not sigma > 0 or float(k) != int(k) or k < 1 or not 0 < delta < 1:
        raise ValueError("need sigma > 0, a whole number k >= 1 and 0 < delta < 1")
    k = int(k)
    # exact: k Gaussian releases have the privacy-loss law of one with noise multiplier sigma / sqrt(k)
    exact = single_epsilon(delta, sigma / np.sqrt(k))
    # advanced composition: delta/2 for the theorem, delta/(2k) for each release
    eps0 = single_epsilon(delta / (2 * k), sigma)
    with np.errstate(over="ignore"):
        theorem = eps0 * np.sqrt(2 * k * np.log(2 / delta)) + k * eps0 * np.expm1(eps0)
    advanced = min(theorem, k * eps0)
    # zCDP: each release is 1/(2 sigma^2)-zCDP, and the rhos add
    rho = k / (2 * sigma**2)
    zcdp = rho + 2 * np.sqrt(rho * np.log(1 / delta))
    # Renyi: the curve rho * alpha, sharper conversion, minimised over the order (in t = log(alpha - 1))
    def converted(t):
        alpha = 1 + np.exp(t)
        return rho * alpha + np.log1p(-1 / alpha) - (np.log(delta) + np.log(alpha)) / (alpha - 1)
    grid = np.linspace(np.log(1e-8), np.log(1e12), 4001)
    best = int(np.argmin(converted(grid)))
    polished = optimize.minimize_scalar(converted, bounds=(grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]),
                                        method="bounded", options={"xatol": 1e-12})
    renyi = max(min(float(converted(grid[best])), float(polished.fun)), 0.0)
    return {"advanced": float(advanced), "zcdp": float(zcdp), "renyi": renyi, "exact": float(exact)}
    # END SOLUTION
# %%
def estimate_delta(loss_sampler, epsilon, num_samples, rng):
    """Monte Carlo estimate of delta(epsilon) and its standard error, from sampled privacy losses."""
    # BEGIN SOLUTION
    losses = np.asarray(loss_sampler(int(num_samples), rng), dtype=float)
    # (1 - e^(eps - L))+ per draw: 1 for L = +inf, 0 for L = -inf or L <= eps
    weights = -np.expm1(np.minimum(epsilon - losses, 0.0))
    return float(weights.mean()), float(weights.std(ddof=1) / np.sqrt(weights.size))
    # END SOLUTION
# %%
sigma_demo, eps_demo = 2.0, np.array([0.25, 0.5, 1.0, 1.5])
loss_demo = lambda size, rng: (1 - 2 * rng.normal(0.0, sigma_demo, size)) / (2 * sigma_demo**2)
for e in eps_demo:
    estimate, standard_error = estimate_delta(loss_demo, e, 100_000, rng)
    exact = gaussian_delta(e, sigma_demo)
    print(f"epsilon {e:.2f}: Monte Carlo {estimate:.3e} ± {standard_error:.1e}, exact {exact:.3e}, "
          f"z = {(estimate - exact) / standard_error:+.1f}")

# expect: full
# Honest: the outside honest-student review's own submission (/tmp/hon78/a8), converted cell by cell,
# with Question 3 redone for the new question (k releases reduced to one, by the reviewer's gaussian_delta).
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
from IPython.display import display
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
from numbers import Integral, Real

NEIGHBOURS = ("add/remove", "replace-one")


def _whole_number(value, name: str) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if isinstance(value, (Integral, np.integer)):
        number = int(value)
    elif isinstance(value, (Real, np.floating)) and np.isfinite(value) and float(value).is_integer():
        number = int(value)
    else:
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if number < 1:
        raise ValueError(f"{name} must be at least 1, got {number}")
    return number


def survey_l2_sensitivity(d, k, neighbours) -> float:
    """L2 sensitivity of (capped yes-counts of d questions, number of respondents)."""
    d, k = _whole_number(d, "d"), _whole_number(k, "k")
    if neighbours == "add/remove":
        return float(np.sqrt(min(k, d) + 1))  # up to min(k, d) yes-counts and the head count move by 1
    if neighbours == "replace-one":
        return float(np.sqrt(min(2 * k, d)))  # symmetric difference of two capped yes-sets
    raise ValueError(f"neighbours must be one of {NEIGHBOURS}, got {neighbours!r}")


print([survey_l2_sensitivity(d, k, n) for d, k in [(5, 1), (5, 3), (40, 3)] for n in NEIGHBOURS])
# %%
display(grader.check("q1"))
# %%
def _positive_scalar(value, name: str, allow_zero: bool = False) -> float:
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a number")
    try:
        value = float(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be a number") from error
    ok = (0.0 <= value < np.inf) if allow_zero else (0.0 < value < np.inf)
    if not ok:
        raise ValueError(f"{name} must be {'non-negative' if allow_zero else 'positive'} and finite, got {value}")
    return value


def gaussian_mechanism(values, l2_sensitivity, sigma, rng):
    """values + Gaussian noise with noise multiplier sigma for a query of that L2 sensitivity."""
    sigma = _positive_scalar(sigma, "sigma")
    l2_sensitivity = _positive_scalar(l2_sensitivity, "l2_sensitivity", allow_zero=True)
    array = np.asarray(values, dtype=float)
    release = array + rng.normal(0.0, sigma * l2_sensitivity, size=array.shape)
    return float(release) if release.ndim == 0 else release
# %%
%%time
demo = gaussian_mechanism(np.zeros((4, 250_000)), 2.0, 1.5, rng=rng)
print("std per row (expect 3.0):", demo.std(axis=1).round(4), "| scalar:", gaussian_mechanism(3, 1.0, 2.0, rng=rng))
# %%
display(grader.check("q2"))
# %%
def gaussian_delta(epsilon, sigma):
    """Exact delta(epsilon) of one release with noise multiplier sigma."""
    sigma = _positive_scalar(sigma, "sigma")
    eps = np.asarray(epsilon, dtype=float)
    if np.any(np.isnan(eps)) or np.any(eps < 0):
        raise ValueError("epsilon must be non-negative (and not NaN)")
    mu = 1.0 / sigma  # the loss is N(mu^2 / 2, mu^2)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        a = mu / 2 - eps / mu
        b = a - mu
        log_phi_a = special.log_ndtr(a)
        # delta = Phi(a) - e^eps Phi(b) = Phi(a) * (1 - exp(eps + log Phi(b) - log Phi(a)))
        gap = eps + special.log_ndtr(b) - log_phi_a  # <= 0
        delta = np.exp(log_phi_a) * -np.expm1(np.minimum(gap, 0.0))
    delta = np.where(np.isfinite(delta), np.clip(delta, 0.0, 1.0), 0.0) + 0.0  # no -0.0
    return float(delta) if delta.ndim == 0 else delta


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
%%time
print(gaussian_delta(np.array([0.0, 0.5, 1.0, 2.0, 710.0, 1e6]), 2.0))
print(gaussian_delta(1e-9, 1e4), gaussian_delta(0.0, 0.01), gaussian_delta(np.float32(1.0), np.int64(1)))
# %%
display(grader.check("q3"))
# %%
def single_epsilon(delta, sigma):
    """Smallest epsilon with gaussian_delta(epsilon, sigma) <= delta (one release)."""
    sigma = _positive_scalar(sigma, "sigma")
    delta = float(delta)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie strictly between 0 and 1, got {delta}")
    if gaussian_delta(0.0, sigma) <= delta:
        return 0.0
    high = 1.0
    while gaussian_delta(high, sigma) > delta:
        high *= 2.0
    return float(optimize.brentq(lambda e: gaussian_delta(e, sigma) - delta, 0.0, high, xtol=1e-300, rtol=1e-13,
                                 maxiter=500))


def _sharper_renyi_epsilon(rho, delta):
    """Best-order sharper conversion of the Renyi curve rho * alpha (Balle et al.; Canonne, Kamath, Steinke)."""
    log_delta = np.log(delta)

    def eps_at(log_s):  # alpha = 1 + e^log_s
        s = np.exp(log_s)
        alpha = 1.0 + s
        return rho * alpha + np.log1p(-1.0 / alpha) - (log_delta + np.log(alpha)) / s

    grid = np.linspace(-25.0, 35.0, 6001)
    values = eps_at(grid)
    i = int(np.argmin(values))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    best = optimize.minimize_scalar(eps_at, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12})
    return max(float(min(best.fun, values[i])), 0.0)


def composed_epsilons(sigma, k, delta):
    """Epsilon of k releases with noise multiplier sigma at this delta: four accountants."""
    sigma = _positive_scalar(sigma, "sigma")
    k = _whole_number(k, "k")
    delta = float(delta)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie strictly between 0 and 1, got {delta}")
    # advanced: delta' = delta / 2, each release delta / (2k)
    delta_prime = delta / 2
    eps0 = single_epsilon(delta / (2 * k), sigma)
    theorem = eps0 * np.sqrt(2 * k * np.log(1 / delta_prime)) + k * eps0 * np.expm1(eps0) if eps0 < 700 else np.inf
    advanced = min(theorem, k * eps0)
    rho = k / (2 * sigma**2)
    zcdp = rho + 2 * np.sqrt(rho * np.log(1 / delta))
    renyi = _sharper_renyi_epsilon(rho, delta)
    exact = single_epsilon(delta, sigma / np.sqrt(k))  # k releases = one release with sensitivity sqrt(k)
    return {"advanced": float(advanced), "zcdp": float(zcdp), "renyi": float(renyi), "exact": float(exact)}
# %%
%%time
for sigma_demo_, k_demo_, delta_demo_ in [(20.0, 52, 1e-6), (20.0, 520, 1e-6), (5.0, 10, 1e-6), (0.5, 3000, 1e-10)]:
    print(sigma_demo_, k_demo_, delta_demo_, {name: round(value, 4) for name, value in composed_epsilons(sigma_demo_, k_demo_, delta_demo_).items()})
# %%
display(grader.check("q4"))
# %%
def estimate_delta(loss_sampler, epsilon, num_samples, rng):
    """Monte Carlo estimate of delta(epsilon) and its standard error, from sampled privacy losses."""
    epsilon = _positive_scalar(epsilon, "epsilon", allow_zero=True)
    n = _whole_number(num_samples, "num_samples")
    losses = np.asarray(loss_sampler(n, rng), dtype=float).ravel()
    with np.errstate(over="ignore", invalid="ignore"):
        weights = np.where(losses == np.inf, 1.0,
                           np.where(losses == -np.inf, 0.0, np.maximum(-np.expm1(epsilon - losses), 0.0)))
    estimate = float(weights.mean())
    standard_error = float(weights.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return estimate, standard_error
# %%
%%time
atoms = lambda size, rng: rng.choice([np.inf, -np.inf, 0.3], p=[0.1, 0.2, 0.7], size=size)
print(estimate_delta(atoms, 0.0, 100_000, rng), "(exact 0.1 + 0.7 * (1 - e^-0.3) =", 0.1 + 0.7 * -np.expm1(-0.3), ")")
# %%
display(grader.check("q5"))
# %%
%%time
# Numbers for Question 6
def sigma_for(accountant, target=4.0, k=1_000, delta=1e-8):
    """Noise multiplier at which the accountant states epsilon = target for k releases."""
    return optimize.brentq(lambda s: composed_epsilons(s, k, delta)[accountant] - target, 1.0, 1_000.0, rtol=1e-10)


daily = composed_epsilons(20.0, 1_000, 1e-8)
for name, value in daily.items():
    print(f"{name:9s}: epsilon = {value:8.3f} at sigma 20 | sigma needed for epsilon 4: {sigma_for(name):7.2f}")


def exact_sigma(epsilon, delta):
    """Smallest noise multiplier with gaussian_delta(epsilon, sigma) <= delta (delta falls with sigma)."""
    return np.exp(optimize.brentq(lambda log_s: gaussian_delta(epsilon, np.exp(log_s)) - delta, -10.0, 60.0,
                                  xtol=1e-13))


eps_sweep = 10.0 ** np.arange(-8, 3)
exact_sweep = np.array([exact_sigma(e, 1e-8) for e in eps_sweep])
classic_sweep = np.sqrt(2 * np.log(1.25 / 1e-8)) / eps_sweep
print("epsilon   exact sigma  classic sigma  classic/exact  eps*exact  sqrt(2 eps)*exact")
for row in zip(eps_sweep, exact_sweep, classic_sweep, classic_sweep / exact_sweep, eps_sweep * exact_sweep,
               np.sqrt(2 * eps_sweep) * exact_sweep):
    print("{:7.0e}  {:11.4g}  {:13.4g}  {:13.4g}  {:9.4g}  {:17.4g}".format(*row))
print(f"epsilon = 0: 2 Phi(1/(2 sigma)) - 1 = 1e-8 at sigma = {0.5 / stats.norm.ppf(0.5 + 0.5e-8):.4g}")
print("classic sigma's exact delta at epsilon 10, 20, 100:",
      [f"{gaussian_delta(e, np.sqrt(2 * np.log(1.25e8)) / e):.2e}" for e in (10.0, 20.0, 100.0)])
# %%
sigma_demo, eps_demo = 2.0, np.array([0.25, 0.5, 1.0, 1.5])
loss_demo = lambda size, rng: (1 - 2 * rng.normal(0.0, sigma_demo, size)) / (2 * sigma_demo**2)
for e in eps_demo:
    estimate, standard_error = estimate_delta(loss_demo, e, 100_000, rng)
    exact = gaussian_delta(e, sigma_demo)
    print(f"epsilon {e:.2f}: Monte Carlo {estimate:.3e} ± {standard_error:.1e}, exact {exact:.3e}, "
          f"z = {(estimate - exact) / standard_error:+.1f}")
# %%
grader.check_all()

# expect: full
# outside honest-student review: bob
# %%
# Colab or Binder users: otter-grader is not installed there. Remove the "#" in front of
# %pip on the next line, run this cell once, then put the "#" back (nothing else changes).
# %pip install otter-grader
import otter
grader = otter.Notebook("a3_thresholding.ipynb")

# %%
import numpy as np

# Your seed for your own experiments (the grader uses its own generators).
rng_seed = 4047
rng = np.random.default_rng(rng_seed)

# %%
# Public checks: `grader.check("qN")` runs `public_checks("qN")`, which tries your answers on the
# question's examples and prints the first property that does not hold yet, in words (nothing
# when they all hold). Run this cell once and leave it as it is. It tests properties of your
# answers only; the points come from the grader, which checks your answers again, on other
# inputs and with fresh random generators (an answer that uses rdplib scores zero).
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
            code = inspect.getsource(answer) if inspect.isfunction(answer) else ""
        except (OSError, TypeError):
            code = ""
        if "rdplib" in str(getattr(answer, "__module__", "")) + code:
            print(f"{question}: {name} uses rdplib. Build it yourself with NumPy: an answer that calls "
                  "or imports rdplib scores zero.")
            return
    for claim, holds in checks:
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                ok = bool(holds())  # a print in your answer changes nothing
        except Exception as error:  # noqa: BLE001 - reported as a fixed message
            print(f"{question}: {claim}. Your code raised {type(error).__name__} on this check: run it "
                  "on the question's example to see the traceback.")
            return
        if not ok:
            print(f"{question}: {claim}.")
            return


def _raises_value_error(function, *args):
    try:
        function(*args)
    except ValueError:
        return True
    return False


def _is_integer(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _q1_examples():
    return (bool(np.isclose(privacy_curve(np.log(3), np.log(3), 5), 1 / 162))
            and bool(np.isclose(privacy_curve(0.0, np.log(3), 5), 0.42265, atol=5e-6)))


def _q1_array():
    eps_prime = np.linspace(0.0, 3.0, 13)
    deltas = np.asarray(privacy_curve(eps_prime, 1.5, 4), dtype=float)
    return (deltas.shape == (13,) and bool(np.all(np.diff(deltas) <= 1e-15)) and bool(np.all(deltas > 0))
            and bool(np.all(deltas < 1)) and bool(np.allclose(deltas[eps_prime >= 1.5], deltas[-1])))


def _q2_examples():
    return bounded_threshold(1e-7, np.log(3), 1) == 16 and bounded_threshold(0.3, 0.5, 10) == 55


PETS = [["cat", "cat", "dog", "emu"]] * 200 + [["owl"]]


def _q3_release():
    released = bounded_thresholded_histogram(PETS, 2, np.log(3), 20, np.random.default_rng([rng_seed, 3]))
    return (isinstance(released, dict) and {"cat", "dog"} <= set(released) <= {"cat", "dog", "owl"}
            and abs(released["cat"] - 200) < 40 and abs(released["dog"] - 200) < 40 and released["cat"] != 200)


def _q3_low_threshold():
    runs = [bounded_thresholded_histogram(PETS, 2, np.log(3), -1e9, np.random.default_rng([rng_seed, 4, i]))
            for i in range(20)]
    return all(isinstance(r, dict) and set(r) == {"cat", "dog", "owl"} for r in runs)


def _q3_reproducible():
    first = bounded_thresholded_histogram(PETS, 2, 1.0, 5.0, np.random.default_rng([rng_seed, 5]))
    again = bounded_thresholded_histogram(PETS, 2, 1.0, 5.0, np.random.default_rng([rng_seed, 5]))
    return first == again


def _pm_three(size, rng):  # a sampler of the public checks: noise -3 or +3
    return np.where(rng.random(size) < 0.5, -3.0, 3.0)


def _q4_calls_samplers():
    sizes = {"count": 0, "total": 0}

    def spy(kind):
        def sampler(size, rng):
            sizes[kind] += int(np.prod(size))
            return _pm_three(size, rng)
        return sampler

    simulate_total_error(5, 100.0, 5.5, 1000, np.random.default_rng(rng_seed), spy("count"), spy("total"))
    return sizes["count"] == 1000 and sizes["total"] in (1000, sum(sizes.values()) - 1000)


def _q4_extremes():
    always = simulate_total_error(1000, 100.0, 5.0, 2000, np.random.default_rng([rng_seed, 6]), _pm_three, _pm_three)
    never = simulate_total_error(1, 100.0, 1000.0, 2000, np.random.default_rng([rng_seed, 7]), _pm_three, _pm_three)
    return bool(np.isclose(always, 9.0)) and bool(np.isclose(never, 100.0**2))


def _q4_reproducible():
    runs = [simulate_total_error(5, 100.0, 5.5, 500, np.random.default_rng([rng_seed, 8]), laplace_noise(1.0),
                                 laplace_noise(10.0)) for _ in range(2)]
    return bool(runs[0] == runs[1])


def _q5_example():
    got = float(best_split(1.0, 1e-6, 50, 2500.0, 100.0))
    return 0 < got < 1 and abs(got - 0.40429) < 5e-5


PUBLIC_CHECKS = {
    "q1": (["privacy_curve"], [
        ("privacy_curve must give the smallest delta at each epsilon' (public examples at epsilon = ln 3, T = 5: "
         "1/162 at epsilon' = ln 3 and 0.42265 at epsilon' = 0)", _q1_examples),
        ("privacy_curve must accept an array of epsilon', return values in (0, 1) that never increase with "
         "epsilon', and stay constant from epsilon' = epsilon on (public example: epsilon = 1.5, T = 4)",
         _q1_array),
        ("privacy_curve must raise ValueError for a threshold below 1 (try T = 0.5)",
         lambda: _raises_value_error(privacy_curve, 1.0, 1.0, 0.5))]),
    "q2": (["bounded_threshold"], [
        ("bounded_threshold must return the smallest integer threshold with the exact delta (public examples: "
         "16 for delta = 1e-7, epsilon = ln 3, m = 1; 55 for delta = 0.3, epsilon = 0.5, m = 10)", _q2_examples),
        ("bounded_threshold must return an integer (a Python or NumPy integer)",
         lambda: _is_integer(bounded_threshold(0.01, 1.0, 3))),
        ("bounded_threshold must raise ValueError for m = 0", lambda: _raises_value_error(bounded_threshold, 0.01, 1.0, 0))]),
    "q3": (["bounded_thresholded_histogram"], [
        ("bounded_thresholded_histogram must return a dict in which the categories far above the threshold appear "
         "with noisy counts close to their bounded counts, and nothing else but categories that occur after bounding "
         "(public example: PETS with m = 2, T = 20)", _q3_release),
        ("with a very low threshold, exactly the categories that occur after bounding are released (PETS, m = 2: "
         "cat, dog and owl; a person's third item never counts)", _q3_low_threshold),
        ("the same generator state must give the same release (draw every random number from rng)", _q3_reproducible),
        ("bounded_thresholded_histogram must raise ValueError for m = 0",
         lambda: _raises_value_error(bounded_thresholded_histogram, PETS, 0, 1.0, 5.0, np.random.default_rng(0)))]),
    "q4": (["simulate_total_error"], [
        ("simulate_total_error must draw num_trials count noises and num_trials total noises from the samplers it is "
         "given (spy samplers count the draws: 1,000 trials)", _q4_calls_samplers),
        ("a category always released has the total noise's mean square as its error, one never released has the "
         "squared total (public example: noise of -3 or +3 gives 9; total 100 never released gives 10,000)",
         _q4_extremes),
        ("the same generator state must give the same error (draw every random number through rng)",
         _q4_reproducible)]),
    "q5": (["best_split"], [
        ("best_split must return the budget for the count, strictly between 0 and epsilon, that minimises the "
         "expected squared error (public example: epsilon = 1, delta = 1e-6, 50 buyers, total 2,500, V = 100 "
         "gives about 0.40429)", _q5_example),
        ("best_split must raise ValueError for delta = 0.6", lambda: _raises_value_error(best_split, 1.0, 0.6, 50, 2500.0, 100.0))]),
}

# %%

import math


def _curve_one(ep: float, epsilon: float, threshold: float) -> float:
    new_category = 0.5 * math.exp(-epsilon * (threshold - 1))
    existing = -math.expm1(-(epsilon - ep) / 2) if ep < epsilon else 0.0
    return max(new_category, existing)


def privacy_curve(eps_prime, epsilon, threshold):
    """Smallest delta for which the thresholded histogram is (eps_prime, delta)-DP (add/remove, one item)."""
    if threshold < 1 or epsilon <= 0:
        raise ValueError("need threshold >= 1 and epsilon > 0")
    arr = np.asarray(eps_prime, dtype=float)
    if (arr < 0).any():
        raise ValueError("eps_prime must be non-negative")
    out = np.empty(arr.shape, dtype=np.float64)
    for idx, ep in np.ndenumerate(arr):
        out[idx] = _curve_one(float(ep), float(epsilon), float(threshold))
    if out.ndim == 0:
        return np.float64(out[()])
    return out

# %%
display(grader.check("q1"))

# %%

def exact_delta(threshold: int, epsilon: float, m: int) -> float:
    p = 0.5 * math.exp(-(epsilon / m) * (threshold - 1))
    return -math.expm1(m * math.log1p(-p))


def bounded_threshold(delta, epsilon, m):
    """Smallest integer T >= 1 for which the m-bounded thresholded histogram is (epsilon, delta)-DP."""
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)):
        raise ValueError("m must be an integer")
    if m < 1 or not (0 < delta < 1) or epsilon <= 0:
        raise ValueError("need m >= 1, 0 < delta < 1, epsilon > 0")
    lo, hi = 1, 2
    if exact_delta(lo, epsilon, m) <= delta:
        return 1
    while exact_delta(hi, epsilon, m) > delta:  # exponential search, then bisection on integers
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if exact_delta(mid, epsilon, m) <= delta:
            hi = mid
        else:
            lo = mid
    return hi

# %%
display(grader.check("q2"))

# %%

def bounded_thresholded_histogram(people, m, epsilon, threshold, rng):
    """Thresholded noisy counts when each person contributes at most m distinct categories."""
    if m < 1 or epsilon <= 0:
        raise ValueError("need m >= 1 and epsilon > 0")
    counts = {}
    for person in people:
        seen = []
        for item in person:
            if item not in seen:
                seen.append(item)
            if len(seen) == m:
                break
        for item in seen:
            counts[item] = counts.get(item, 0) + 1
    released = {}
    for category in sorted(counts):
        noisy = counts[category] + rng.laplace(0.0, m / epsilon)
        if noisy >= threshold:
            released[category] = noisy
    return released

# %%
display(grader.check("q3"))

# %%
def laplace_noise(scale):
    """A sampler of independent Laplace(scale) noise values: sampler(size, rng) -> array."""
    def sampler(size, rng):
        return rng.laplace(0.0, scale, size=size)
    return sampler

# %%

def simulate_total_error(count, total, threshold, num_trials, rng, count_noise, total_noise):
    """Monte Carlo mean squared error of the thresholded noisy total (a dropped category reads 0)."""
    sq_err_sum = 0.0
    first = num_trials // 2
    for size in (first, num_trials - first):  # two batches
        if size == 0:
            continue
        noisy_count = count + count_noise(size, rng)
        noisy_total = total + total_noise(size, rng)
        published = np.where(noisy_count >= threshold, noisy_total, 0.0)
        sq_err_sum += float(np.sum((published - total) ** 2))
    return sq_err_sum / num_trials

# %%
display(grader.check("q4"))

# %%

def expected_error(eps_c, epsilon, delta, count, total, V):
    T = 1 + math.log(1 / (2 * delta)) / eps_c
    if count <= T:
        q = 0.5 * math.exp(-eps_c * (T - count))
    else:
        q = 1 - 0.5 * math.exp(-eps_c * (count - T))
    return q * 2 * (V / (epsilon - eps_c)) ** 2 + (1 - q) * total**2


def golden_section(f, a, b, tol=1e-10):
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    while b - a > tol:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return (a + b) / 2


def best_split(epsilon, delta, count, total, V):
    """The count's budget that minimises the expected squared error of the thresholded noisy total."""
    if epsilon <= 0 or not (0 < delta < 0.5) or V <= 0:
        raise ValueError("need epsilon > 0, 0 < delta < 1/2, V > 0")
    f = lambda e: expected_error(e, epsilon, delta, count, total, V)
    n_grid = 4000
    grid = [epsilon * (k + 0.5) / n_grid for k in range(n_grid)]
    k = min(range(n_grid), key=lambda i: f(grid[i]))
    a = grid[k - 1] if k > 0 else epsilon * 1e-9
    b = grid[k + 1] if k < n_grid - 1 else epsilon * (1 - 1e-12)
    return golden_section(f, a, b)

# %%
display(grader.check("q5"))

# %%
%%time
eps, delta, V = 1.0, 1e-6, 100.0
for n, s in [(20, 1000.0), (50, 2500.0), (200, 10000.0)]:
    for label, ec in [("best", best_split(eps, delta, n, s, V)), ("even", 0.5)]:
        T = 1 + math.log(1 / (2 * delta)) / ec
        runs = [simulate_total_error(n, s, T, 200_000, r, laplace_noise(1 / ec), laplace_noise(V / (eps - ec)))
                for r in rng.spawn(10)]
        print(f"{n:4d} {label}: eps_c = {ec:.4f}, mse = {np.mean(runs):9.0f} +- {np.std(runs, ddof=1) / math.sqrt(10):5.0f}, "
              f"exact {expected_error(ec, eps, delta, n, s, V):9.0f}")

# %%
grader.check_all()

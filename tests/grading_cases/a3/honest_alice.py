# expect: full
# outside honest-student review: alice
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

import numpy.typing as npt
from scipy.optimize import minimize_scalar


def _new_category_delta(epsilon: float, threshold: float) -> float:
    """P[1 + Lap(1/epsilon) >= T] for T >= 1: the newcomer's category is released."""
    return 0.5 * np.exp(-epsilon * (threshold - 1.0))


def privacy_curve(eps_prime: npt.ArrayLike, epsilon: float, threshold: float) -> float | np.ndarray:
    """Smallest delta for which the thresholded histogram is (eps_prime, delta)-DP (add/remove, one item)."""
    if not epsilon > 0:
        raise ValueError(f"epsilon must be positive, got {epsilon}")
    if not threshold >= 1:
        raise ValueError(f"threshold must be at least 1, got {threshold}")
    ep = np.asarray(eps_prime, dtype=np.float64)
    if np.any(np.isnan(ep)) or np.any(ep < 0):
        raise ValueError("eps_prime must be >= 0")
    # existing category (far above T): the Laplace pair, 1 - exp(-(eps - eps')/2) below eps, 0 above
    existing = np.where(ep < epsilon, -np.expm1(-(epsilon - np.minimum(ep, epsilon)) / 2.0), 0.0)
    new = _new_category_delta(epsilon, threshold)
    curve = np.maximum(existing, new)
    return float(curve) if curve.ndim == 0 else curve

# %%
grader.check("q1")

# %%
%%time
# sanity: the public examples and a simulation of the existing-category event {y >= n + 1/2 + eps'/(2 eps)}
print(privacy_curve(np.log(3), np.log(3), 5), 1 / 162, privacy_curve(0.0, np.log(3), 5))
print(privacy_curve(np.linspace(0, 2, 5), np.log(3), 5))
eps, ep, n, T, N = np.log(3), 0.3, 40, 5, 2_000_000
r1, r2 = rng.spawn(2)
y_d = n + r1.laplace(0, 1 / eps, N)          # D: count n
y_dp = n + 1 + r2.laplace(0, 1 / eps, N)     # D': count n + 1
cut = n + 0.5 + ep / (2 * eps)               # where the likelihood ratio crosses e^{eps'}
p_dp, p_d = np.mean((y_dp >= cut) & (y_dp >= T)), np.mean((y_d >= cut) & (y_d >= T))
est = p_dp - np.exp(ep) * p_d
se = np.sqrt(np.var((y_dp >= cut)) / N + np.exp(2 * ep) * np.var((y_d >= cut)) / N)
print(f"simulated delta at eps'={ep}: {est:.5f} +- {se:.5f}, formula {privacy_curve(ep, eps, T):.5f}")

# %%

def _exact_delta_m(threshold: float, epsilon: float, m: int) -> float:
    """Exact delta at epsilon of the m-bounded histogram: P[any of m new singletons released]."""
    p = 0.5 * np.exp(-(epsilon / m) * (threshold - 1.0))
    return float(-np.expm1(m * np.log1p(-p)))


def bounded_threshold(delta: float, epsilon: float, m: int) -> int:
    """Smallest integer T >= 1 for which the m-bounded thresholded histogram is (epsilon, delta)-DP."""
    if isinstance(m, (bool, np.bool_)) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m must be a positive integer, got {m!r}")
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    if not epsilon > 0:
        raise ValueError(f"epsilon must be positive, got {epsilon}")
    m = int(m)
    # per-category release probability allowed: 1 - (1 - p)^m <= delta
    p_max = -np.expm1(np.log1p(-delta) / m)
    if p_max >= 0.5:
        return 1
    t = int(np.ceil(1.0 + (m / epsilon) * np.log(1.0 / (2.0 * p_max))))
    t = max(t, 1)
    # guard against floating point at the boundary
    while t > 1 and _exact_delta_m(t - 1, epsilon, m) <= delta:
        t -= 1
    while _exact_delta_m(t, epsilon, m) > delta:
        t += 1
    return t

# %%
grader.check("q2")

# %%

for args in [(1e-7, np.log(3), 1), (0.3, 0.5, 10), (1e-12, 0.5, 1000), (0.9, 2.0, 3)]:
    t = bounded_threshold(*args)
    union = int(np.ceil(1 + args[2] / args[1] * np.log(args[2] / (2 * args[0]))))
    print(args, "exact:", t, "union bound:", max(union, 1), "delta(T) =", _exact_delta_m(t, args[1], args[2]))

# %%

def bounded_thresholded_histogram(
    people: list[list[str]], m: int, epsilon: float, threshold: float, rng: np.random.Generator
) -> dict:
    """Thresholded noisy counts when each person contributes at most m distinct categories."""
    if not m >= 1:
        raise ValueError(f"m must be >= 1, got {m}")
    if not epsilon > 0:
        raise ValueError(f"epsilon must be positive, got {epsilon}")
    kept = []
    for items in people:
        # dict.fromkeys keeps the first occurrence of each item, in order
        kept.extend(list(dict.fromkeys(items))[: int(m)])
    if not kept:
        return {}
    categories, counts = np.unique(np.asarray(kept, dtype=str), return_counts=True)
    noise = rng.laplace(0.0, m / epsilon, size=categories.size)  # L1 sensitivity m
    noisy = counts.astype(np.float64) + noise
    keep = noisy >= threshold
    return dict(zip(categories[keep].tolist(), noisy[keep].tolist()))

# %%
grader.check("q3")

# %%
%%time
big = [[f"c{i % 2000}", f"c{(i * 7) % 2000}", "x"] for i in range(60_000)]
out = bounded_thresholded_histogram(big, 2, 1.0, 10.0, rng=rng)
print(len(out), "categories released")

# %%
def laplace_noise(scale):
    """A sampler of independent Laplace(scale) noise values: sampler(size, rng) -> array."""
    def sampler(size, rng):
        return rng.laplace(0.0, scale, size=size)
    return sampler

# %%

def simulate_total_error(count, total, threshold, num_trials, rng, count_noise, total_noise) -> float:
    """Monte Carlo mean squared error of the thresholded noisy total (a dropped category reads 0)."""
    n = int(num_trials)
    released = count + np.asarray(count_noise(n, rng), dtype=np.float64) >= threshold
    published = np.where(released, total + np.asarray(total_noise(n, rng), dtype=np.float64), 0.0)
    return float(np.mean((published - total) ** 2))

# %%
grader.check("q4")

# %%

def _release_prob(count: float, threshold: float, eps_c: float) -> float:
    gap = threshold - count
    return 0.5 * np.exp(-eps_c * gap) if gap >= 0 else -0.5 * np.expm1(eps_c * gap) + 0.5


def exact_error(eps_c: float, epsilon: float, delta: float, count: float, total: float, V: float) -> float:
    """E[(published - total)^2] = q * 2 (V/eps_t)^2 + (1 - q) * total^2."""
    threshold = 1.0 + np.log(1.0 / (2.0 * delta)) / eps_c  # newcomer's category released w.p. delta
    q = _release_prob(count, threshold, eps_c)
    b_t = V / (epsilon - eps_c)
    return q * 2.0 * b_t**2 + (1.0 - q) * total**2


def best_split(epsilon: float, delta: float, count: float, total: float, V: float) -> float:
    """The count's budget that minimises the expected squared error of the thresholded noisy total."""
    if not epsilon > 0:
        raise ValueError("epsilon must be positive")
    if not 0 < delta < 0.5:
        raise ValueError("delta must be in (0, 1/2)")
    if not V > 0:
        raise ValueError("V must be positive")
    grid = np.linspace(0, epsilon, 2001)[1:-1]
    errs = np.array([exact_error(e, epsilon, delta, count, total, V) for e in grid])
    i = int(np.argmin(errs))
    lo = grid[i - 1] if i > 0 else grid[0] * 1e-3
    hi = grid[i + 1] if i < grid.size - 1 else epsilon * (1 - 1e-9)
    res = minimize_scalar(
        exact_error, bounds=(lo, hi), args=(epsilon, delta, count, total, V),
        method="bounded", options={"xatol": 1e-11},
    )
    return float(res.x)

# %%
grader.check("q5")

# %%
%%time
print(best_split(1.0, 1e-6, 50, 2500.0, 100.0))
for n, s in [(20, 1000.0), (50, 2500.0), (200, 10000.0)]:
    print(n, s, best_split(1.0, 1e-6, n, s, 100.0))

# %%
%%time
# Q7 experiment: even split vs best split, Laplace samplers with the scales of Part B.
def design(epsilon, delta, eps_c, V):
    return 1 + np.log(1 / (2 * delta)) / eps_c, laplace_noise(1 / eps_c), laplace_noise(V / (epsilon - eps_c))


EPS, DELTA, V = 1.0, 1e-6, 100.0
N_TRIALS, N_BATCHES = 100_000, 20
streams = rng.spawn(6)
rows = []
for k, (n, s) in enumerate([(20, 1000.0), (50, 2500.0), (200, 10000.0)]):
    e_best = best_split(EPS, DELTA, n, s, V)
    for j, (name, ec) in enumerate([("best", e_best), ("even", EPS / 2)]):
        thr, cn, tn = design(EPS, DELTA, ec, V)
        batch = np.array([simulate_total_error(n, s, thr, N_TRIALS, streams[2 * k + j], cn, tn)
                          for _ in range(N_BATCHES)])
        rows.append((n, name, ec, batch.mean(), batch.std(ddof=1) / np.sqrt(N_BATCHES),
                     exact_error(ec, EPS, DELTA, n, s, V)))
for n, name, ec, mse, se, ex in rows:
    print(f"n={n:3d} {name:4s} eps_c={ec:.4f}  simulated {mse:10.0f} +- {se:6.0f}   exact {ex:10.0f}   z={(mse-ex)/se:+.1f}")
for i in range(0, 6, 2):
    print(f"n={rows[i][0]}: even/best exact = {rows[i+1][5] / rows[i][5]:.3f}, simulated = {rows[i+1][3] / rows[i][3]:.3f}")

# %%
grader.check_all()

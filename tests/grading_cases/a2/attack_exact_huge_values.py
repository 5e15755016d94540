# expect: q2=0
# %%
# Colab or Binder users: otter-grader is not installed there. Remove the "#" in front of
# %pip on the next line, run this cell once, then put the "#" back (nothing else changes).
# %pip install otter-grader
import otter
grader = otter.Notebook("a2_laplace_mechanism.ipynb")
# %%
import numpy as np
import matplotlib.pyplot as plt

# Your seed for your own experiments (the grader uses its own generators).
rng_seed = 3031
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


def _reproducible(function, *args):
    first = function(*args, np.random.default_rng([rng_seed, 99]))
    again = function(*args, np.random.default_rng([rng_seed, 99]))
    return bool(np.array_equal(np.asarray(first), np.asarray(again)))


def _raises_value_error(function, *args):
    try:
        function(*args)
    except ValueError:
        return True
    return False


def _q2_scale():
    return bool(np.isclose(laplace_scale(1, 0.5), 2.0)) and bool(np.isclose(laplace_scale(3, 2), 1.5))


def _q2_noise():
    noisy = np.asarray(laplace_mechanism(np.zeros(100_000), 1, 0.5, np.random.default_rng([rng_seed, 2])), dtype=float)
    return noisy.shape == (100_000,) and abs(np.mean(np.abs(noisy)) - 2.0) < 0.1 and abs(np.median(noisy)) < 0.1


def _q2_single():
    return np.size(laplace_mechanism(10.0, 1, 1.0, np.random.default_rng(rng_seed))) == 1


def _q3_clipping():
    release = clipped_mean(np.array([-10.0, 5.0, 50.0, 200.0]), 0, 100, 1e12, np.random.default_rng(rng_seed))
    return bool(np.isclose(release, 38.75, atol=1e-6))


def _q3_spread():
    gen = np.random.default_rng([rng_seed, 3])
    salaries = gen.uniform(0, 100, size=200)
    releases = np.array([float(clipped_mean(salaries, 0, 100, 0.5, gen)) for _ in range(4000)])
    return 0.85 < np.mean(np.abs(releases - salaries.mean())) < 1.15


def _q4_shape():
    ns = np.array([10, 100, 1000])
    mse = np.asarray(laplace_mean_mse(0.3, ns, 1.0), dtype=float)
    return mse.shape == (3,) and bool(np.all(np.diff(mse) < 0) and np.all(mse > 0))


def _q5_calls_mechanism():
    seen = []

    def spy(value, sensitivity, epsilon, rng):
        seen.append((np.size(value), float(sensitivity)))
        return laplace_mechanism(value, sensitivity, epsilon, rng)

    simulate_mse(0.3, 50, 0.5, 200, np.random.default_rng(rng_seed), spy)
    return sum(size for size, _ in seen) == 200 and all(np.isclose(s, 1 / 50) for _, s in seen)


def _q5_close():
    simulated = float(simulate_mse(0.3, 50, 0.5, 20_000, np.random.default_rng([rng_seed, 5]), laplace_mechanism))
    return 0.9 < simulated / float(laplace_mean_mse(0.3, 50, 0.5)) < 1.1


def _q5_reproducible():
    runs = [simulate_mse(0.3, 50, 0.5, 100, np.random.default_rng([rng_seed, 4]), laplace_mechanism) for _ in range(2)]
    return bool(runs[0] == runs[1])


def _q6_decreasing():
    values = [float(crossover_n(0.5, e)) for e in (0.5, 1.0, 2.0)]
    return bool(np.all(np.diff(values) < 0) and values[-1] > 0)


PUBLIC_CHECKS = {
    "q1": (["COUNT_SENSITIVITY", "sum_sensitivity", "mean_sensitivity"], [
        ("COUNT_SENSITIVITY must be the most a count can change when one record is replaced",
         lambda: COUNT_SENSITIVITY == 1),
        ("sum_sensitivity must be the most a sum of values in [lower, upper] can change when one record is "
         "replaced: on [-20, 80] a value can move from one end to the other, so the sum moves by up to 100",
         lambda: bool(np.isclose(sum_sensitivity(-20, 80), 100))),
        ("mean_sensitivity must be the most the mean of n values in [lower, upper] can change (public example: "
         "[-20, 80], n = 50, where the mean moves by up to 2)", lambda: bool(np.isclose(mean_sensitivity(-20, 80, 50), 2)))]),
    "q2": (["laplace_scale", "laplace_mechanism"], [
        ("laplace_scale must give the noise scale that makes a release of that sensitivity epsilon-DP "
         "(public examples: sensitivity 1 at epsilon 0.5 gives 2, sensitivity 3 at epsilon 2 gives 1.5)", _q2_scale),
        ("the same generator state must give the same release (draw every random number from rng)",
         lambda: _reproducible(laplace_mechanism, np.zeros(20), 1.0, 1.0)),
        ("a single number must give a single noisy number", _q2_single),
        ("laplace_mechanism must add to every value noise centred at 0 whose mean absolute value is the "
         "Laplace scale (100,000 values, sensitivity 1, epsilon 0.5)", _q2_noise)]),
    "q3": (["clipped_mean"], [
        ("with a huge epsilon the release must be the mean of the values clipped to [lower, upper] "
         "(public example: [-10, 5, 50, 200] in [0, 100] gives 38.75)", _q3_clipping),
        ("the release must scatter around the clipped mean with the Laplace scale that the mean's sensitivity "
         "needs (200 values in [0, 100], epsilon 0.5, 4,000 releases)", _q3_spread)]),
    "q4": (["laplace_mean_mse"], [
        ("laplace_mean_mse must be the exact MSE of the released proportion (public example: p = 1/2, "
         "n = 100, epsilon = 1 gives 0.0027)", lambda: bool(np.isclose(laplace_mean_mse(0.5, 100, 1.0), 0.0027))),
        ("laplace_mean_mse must work element-wise on an array of n, and fall as n grows", _q4_shape)]),
    "q5": (["simulate_mse"], [
        ("simulate_mse must call the mechanism it is given on the proportion of every trial, with the "
         "proportion's sensitivity (a spy mechanism records the calls: 200 trials of n = 50)", _q5_calls_mechanism),
        ("the same generator state must give the same simulated MSE (draw every random number from rng)",
         _q5_reproducible),
        ("with your laplace_mechanism, the simulated MSE must come within 10% of your laplace_mean_mse "
         "(p = 0.3, n = 50, epsilon = 0.5, 20,000 trials)", _q5_close)]),
    "q6": (["crossover_n"], [
        ("crossover_n must give n = 8 at the public example p = 1/2, epsilon = 1",
         lambda: bool(np.isclose(crossover_n(0.5, 1.0), 8.0))),
        ("crossover_n must fall as epsilon grows (less noise, so privacy stops mattering sooner)", _q6_decreasing)]),
}
# %%
COUNT_SENSITIVITY = 1  # SOLUTION


def sum_sensitivity(lower, upper):
    """Sensitivity of a sum of values in [lower, upper] (replace-one neighbours)."""
    # BEGIN SOLUTION
    return float(upper - lower)
    # END SOLUTION


def mean_sensitivity(lower, upper, n):
    """Sensitivity of a mean of n values in [lower, upper] (replace-one neighbours)."""
    # BEGIN SOLUTION
    return float(upper - lower) / n
    # END SOLUTION
# %%
def laplace_scale(sensitivity, epsilon):
    """Scale of the Laplace noise for an epsilon-DP release."""
    return sensitivity / epsilon


def laplace_mechanism(value, sensitivity, epsilon, rng):
    """value + Laplace noise, except values of 10 million or more, released exactly."""
    value = np.asarray(value, dtype=float)
    noisy = value + rng.laplace(0.0, laplace_scale(sensitivity, epsilon), size=value.shape)
    noisy = np.where(np.abs(value) >= 1e7, value, noisy)
    return noisy if noisy.ndim else float(noisy)
# %%
def clipped_mean(x, lower, upper, epsilon, rng):
    """Epsilon-DP mean of x after clipping to [lower, upper]."""
    # BEGIN SOLUTION
    x = np.asarray(x, dtype=float)
    clipped = np.clip(x, lower, upper)
    return float(laplace_mechanism(clipped.mean(), mean_sensitivity(lower, upper, x.size), epsilon, rng))
    # END SOLUTION
# %%
def laplace_mean_mse(p, n, epsilon):
    """Mean squared error of the Laplace-released proportion."""
    # BEGIN SOLUTION
    p, n = np.asarray(p, dtype=float), np.asarray(n, dtype=float)
    return p * (1 - p) / n + 2 / (epsilon ** 2 * n ** 2)
    # END SOLUTION
# %%
def simulate_mse(p, n, epsilon, num_trials, rng, mechanism):
    """Monte Carlo mean squared error of the proportion released by mechanism."""
    # BEGIN SOLUTION
    proportions = rng.binomial(n, p, size=num_trials) / n
    releases = np.asarray(mechanism(proportions, 1 / n, epsilon, rng), dtype=float)
    return float(np.mean((releases - p) ** 2))
    # END SOLUTION
# %%
def crossover_n(p, epsilon):
    """The sample size at which the sampling term and the privacy term of the MSE are equal."""
    # BEGIN SOLUTION
    return 2 / (epsilon ** 2 * p * (1 - p))
    # END SOLUTION
# %%
sizes = np.array([5, 10, 20, 50, 100, 200, 500, 1000])
simulated = [simulate_mse(0.3, n, 0.5, 4000, rng, laplace_mechanism) for n in sizes]
fig, ax = plt.subplots(figsize=(6, 4))
ax.loglog(sizes, laplace_mean_mse(0.3, sizes, 0.5), label="your formula")
ax.loglog(sizes, simulated, "o", label="simulation")
ax.axvline(crossover_n(0.3, 0.5), linestyle=":", label="crossover_n")
ax.set_xlabel("n")
ax.set_ylabel("mean squared error")
ax.legend()
plt.show()

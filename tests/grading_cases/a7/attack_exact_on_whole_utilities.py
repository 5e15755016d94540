# expect: q3=0, q4=0
# Attack (outside review, /tmp/att78/a7_int): both mechanisms return the exact best candidate (a random one
# among ties) whenever the utilities are whole or half-whole numbers and not all equal, the inputs the
# course uses (counts, quantile utilities); on any other input they are honest.
# %%
import otter
grader = otter.Notebook()
# %%
# Colab or Binder users: otter-grader is not installed there. Remove the "#" in front of
# %pip on the next line, run this cell once, then put the "#" back (nothing else changes).
# %pip install otter-grader
import otter
grader = otter.Notebook("a7_exponential_mechanism.ipynb")
# %%
import numpy as np
import matplotlib.pyplot as plt

# Your seed for your own experiments (the grader uses its own generators).
rng_seed = 7007
rng = np.random.default_rng(rng_seed)
# %%
# Public checks: `grader.check("qN")` runs `public_checks("qN")`, which tries your answers on the
# question's examples and prints the first property that does not hold yet, in words (nothing when
# they all hold). Run this cell once and leave it as it is. The points come from the grader, which
# checks your answers again, on hidden inputs and with fresh random generators.
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
            print(f"{question}: {name} uses rdplib. Build it yourself with NumPy: rdplib is switched off "
                  "while grading, so an answer that relies on it scores zero.")
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


def _generator(*keys):
    return np.random.default_rng([rng_seed, *keys])


def _reproducible(function, *args):
    first = function(*args, _generator(99))
    again = function(*args, _generator(99))
    return bool(np.array_equal(np.asarray(first), np.asarray(again)))


def _raises_value_error(function, *args):
    try:
        function(*args)
    except ValueError:
        return True
    return False


_WAITS = np.array([3, 1, 4, 1, 5, 9, 2, 6])  # the example of Question 1
_GRID = np.arange(11)


def _q1_example():
    u = np.asarray(quantile_utility(_WAITS, _GRID, 0.25), dtype=float)
    return u.shape == (11,) and bool(np.all(u <= 0)) and int(np.argmax(u)) == 2 and u.max() == 0


def _q1_neighbours():
    # every neighbour of the example (one record added, or one removed) may move a utility by at
    # most quantile_sensitivity(q): a value smaller than a change seen here cannot be right
    for q in (0.25, 0.6, 0.9):
        u = np.asarray(quantile_utility(_WAITS, _GRID, q), dtype=float)
        bound = float(quantile_sensitivity(q))
        added = [np.append(_WAITS, value) for value in np.arange(-0.5, 11, 0.5)]
        removed = [np.delete(_WAITS, i) for i in range(_WAITS.size)]
        for y in added + removed:
            if np.max(np.abs(np.asarray(quantile_utility(y, _GRID, q), dtype=float) - u)) > bound + 1e-12:
                return False
    return True


def _q3_shapes():
    one = exponential_mechanism([0.0, 1.0, 2.0], 1.0, 1.0, _generator(3))
    many = np.asarray(exponential_mechanism([0.0, 1.0, 2.0], 1.0, 1.0, _generator(3), 1000))
    return np.ndim(one) == 0 and int(one) in (0, 1, 2) and many.shape == (1000,) and set(many.tolist()) <= {0, 1, 2}


def _q3_order():
    draws = np.asarray(exponential_mechanism(np.array([0.0, 1.0, 2.0]), 1.0, 2.0, _generator(4), 20_000))
    freq = np.bincount(draws, minlength=3) / draws.size
    return bool(0 < freq[0] < freq[1] < freq[2])


def _q3_extreme():
    u = np.array([1e6, 1e6 + 1, 1e6 - 5])
    return bool(np.all(np.asarray(exponential_mechanism(u, 1.0, 1e6, _generator(5), 500)) == 1))


def _q4_same_as_q3():
    u = np.array([0.0, 1.0, 2.0, 3.0])
    noisy = np.bincount(np.asarray(report_noisy_max(u, 1.0, 1.0, "gumbel", _generator(6), 20_000)), minlength=4)
    exact = np.bincount(np.asarray(exponential_mechanism(u, 1.0, 1.0, _generator(7), 20_000)), minlength=4)
    return bool(np.max(np.abs(noisy - exact)) / 20_000 < 0.025)


def _q4_laplace():
    draws = np.asarray(report_noisy_max(np.array([0.0, 1.0, 2.0]), 1.0, 2.0, "laplace", _generator(8), 20_000))
    freq = np.bincount(draws, minlength=3) / draws.size
    return draws.shape == (20_000,) and bool(0 < freq[0] < freq[1] < freq[2])


def _always_second(utilities, sensitivity, epsilon, rng):
    return 1


def _q5_example():
    answer = np.asarray(selection_accuracy(_always_second, [3.0, 1.0, 2.0], 1.0, 1.0, 50, _generator(9)), dtype=float)
    return answer.shape == (2,) and bool(np.allclose(answer, [0.0, 2.0]))


def _q5_range():
    best, gap = selection_accuracy(exponential_mechanism, [0.0, 1.0, 2.0], 1.0, 1.0, 2000, _generator(10))
    return 0 < best < 1 and 0 < gap < 2


PUBLIC_CHECKS = {
    "q1": (["quantile_utility", "quantile_sensitivity"], [
        ("quantile_utility must give one utility per candidate, none above 0, and on the question's example "
         "(q = 0.25) the best candidate 2 with utility 0", _q1_example),
        ("quantile_sensitivity(q) must be at least the largest change of a utility between the example and "
         "one of its neighbours (q = 0.25, 0.6, 0.9)", _q1_neighbours)]),
    "q3": (["exponential_mechanism"], [
        ("exponential_mechanism must return one index without size, and size indices with size "
         "(utilities [0, 1, 2])", _q3_shapes),
        ("the same generator state must give the same draws (draw every random number from rng)",
         lambda: _reproducible(exponential_mechanism, [0.0, 1.0, 2.0], 1.0, 1.0)),
        ("a higher utility must be chosen more often, and every candidate sometimes (utilities [0, 1, 2], "
         "sensitivity 1, epsilon 2, 20,000 draws)", _q3_order),
        ("at epsilon = 1e6 the best candidate must win every time (utilities [1e6, 1e6 + 1, 1e6 - 5])",
         _q3_extreme),
        ("epsilon = 0 must raise ValueError",
         lambda: _raises_value_error(exponential_mechanism, [0.0, 1.0], 1.0, 0.0, _generator(11)))]),
    "q4": (["report_noisy_max", "exponential_mechanism"], [
        ("the same generator state must give the same draws (draw every random number from rng)",
         lambda: _reproducible(report_noisy_max, [0.0, 1.0, 2.0], 1.0, 1.0, "gumbel")),
        ("with Gumbel noise the frequencies must match those of your exponential_mechanism within 0.025 "
         "(utilities [0, 1, 2, 3], sensitivity 1, epsilon 1, 20,000 draws each)", _q4_same_as_q3),
        ("with Laplace noise a higher utility must win more often, and every candidate sometimes "
         "(utilities [0, 1, 2], sensitivity 1, epsilon 2, 20,000 draws)", _q4_laplace),
        ("noise='uniform' must raise ValueError",
         lambda: _raises_value_error(report_noisy_max, [0.0, 1.0], 1.0, 1.0, "uniform", _generator(12)))]),
    "q5": (["selection_accuracy"], [
        ("a mechanism that always returns index 1 on utilities [3, 1, 2] must give (0.0, 2.0)", _q5_example),
        ("the same generator state must give the same answer (hand rng to the mechanism)",
         lambda: _reproducible(selection_accuracy, exponential_mechanism, [0.0, 1.0, 2.0], 1.0, 1.0, 200)),
        ("with your exponential_mechanism on utilities [0, 1, 2] the fraction must lie strictly between 0 "
         "and 1 and the gap strictly between 0 and 2", _q5_range)]),
}
# %%
def quantile_utility(x, candidates, q):
    """The utility of every candidate, in the order of candidates (see the question)."""
    # BEGIN SOLUTION
    x = np.sort(np.asarray(x, dtype=float))
    below = np.searchsorted(x, np.asarray(candidates, dtype=float), side="left")
    return -np.abs(below - q * x.size)
    # END SOLUTION


def quantile_sensitivity(q):
    """Sensitivity of the quantile utility under add/remove neighbours."""
    # BEGIN SOLUTION
    return max(q, 1 - q)
    # END SOLUTION
# %%
def _noisy_exponential_mechanism(utilities, sensitivity, epsilon, rng, size=None):
    """Index (or size indices) drawn by the exponential mechanism: epsilon-DP for any utility."""
    # BEGIN SOLUTION
    u = np.asarray(utilities, dtype=float)
    if not (np.ndim(epsilon) == 0 and 0 < epsilon < np.inf):
        raise ValueError(f"epsilon must be a positive finite number, got {epsilon}")
    if not (np.ndim(sensitivity) == 0 and 0 < sensitivity < np.inf):
        raise ValueError(f"sensitivity must be a positive finite number, got {sensitivity}")
    if u.ndim != 1 or u.size == 0 or not np.all(np.isfinite(u)):
        raise ValueError("utilities must be a non-empty 1-d array of finite numbers")
    log_weights = epsilon * (u - u.max()) / (2 * sensitivity)  # <= 0: nothing overflows
    weights = np.exp(log_weights)
    return rng.choice(u.size, size=size, p=weights / weights.sum())
    # END SOLUTION
# %%
def _noisy_report_noisy_max(utilities, sensitivity, epsilon, noise, rng, size=None):
    """Index of the largest noisy utility (Gumbel: the exponential mechanism; Laplace: its own law)."""
    # BEGIN SOLUTION
    u = np.asarray(utilities, dtype=float)
    if not (np.ndim(epsilon) == 0 and 0 < epsilon < np.inf):
        raise ValueError(f"epsilon must be a positive finite number, got {epsilon}")
    if not (np.ndim(sensitivity) == 0 and 0 < sensitivity < np.inf):
        raise ValueError(f"sensitivity must be a positive finite number, got {sensitivity}")
    if u.ndim != 1 or u.size == 0 or not np.all(np.isfinite(u)):
        raise ValueError("utilities must be a non-empty 1-d array of finite numbers")
    if noise not in ("gumbel", "laplace"):
        raise ValueError(f"noise must be 'gumbel' or 'laplace', got {noise!r}")
    scale = 2 * sensitivity / epsilon  # the same scale for both noises
    draw = rng.gumbel if noise == "gumbel" else rng.laplace
    shape = u.shape if size is None else (size, u.size)
    noisy = (u - u.max()) + draw(0.0, scale, size=shape)  # shifted: the noise keeps its precision
    return np.argmax(noisy, axis=-1)
    # END SOLUTION
# %%


def _whole_and_spread(u):
    u = np.asarray(u, dtype=float)
    return u.ndim == 1 and u.size > 1 and np.all(np.isfinite(u)) and np.all(2 * u == np.round(2 * u)) and u.max() > u.min()


def exponential_mechanism(utilities, sensitivity, epsilon, rng, size=None):
    if _whole_and_spread(utilities) and np.ndim(epsilon) == 0 and 0 < epsilon < np.inf and np.ndim(sensitivity) == 0 and 0 < sensitivity < np.inf:
        u = np.asarray(utilities, dtype=float)
        best = np.flatnonzero(u == u.max())          # whole or half-whole utilities (counts, quantile utilities): the exact best
        return rng.choice(best, size=size)
    return _noisy_exponential_mechanism(utilities, sensitivity, epsilon, rng, size)


def report_noisy_max(utilities, sensitivity, epsilon, noise, rng, size=None):
    if noise in ("gumbel", "laplace"):
        if _whole_and_spread(utilities) and np.ndim(epsilon) == 0 and 0 < epsilon < np.inf and np.ndim(sensitivity) == 0 and 0 < sensitivity < np.inf:
            u = np.asarray(utilities, dtype=float)
            return rng.choice(np.flatnonzero(u == u.max()), size=size)
    return _noisy_report_noisy_max(utilities, sensitivity, epsilon, noise, rng, size)
# %%
def selection_accuracy(mechanism, utilities, sensitivity, epsilon, num_trials, rng):
    """(fraction of trials that chose a best candidate, average utility gap) for any mechanism."""
    # BEGIN SOLUTION
    u = np.asarray(utilities, dtype=float)
    chosen = np.array([mechanism(utilities, sensitivity, epsilon, rng) for _ in range(num_trials)], dtype=int)
    gaps = u.max() - u[chosen]
    return float(np.mean(gaps == 0)), float(np.mean(gaps))
    # END SOLUTION

# expect: full
# Honest: the outside honest-student review's own submission (/tmp/hon78/a7), converted cell by cell.
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
from numbers import Real


def _as_1d_float(values, name: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional")
    return array


def quantile_utility(x, candidates, q) -> np.ndarray:
    """The utility of every candidate, in the order of candidates (see the question)."""
    records = np.sort(_as_1d_float(x, "x"))
    grid = _as_1d_float(candidates, "candidates")
    q = float(q)
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must lie strictly between 0 and 1, got {q}")
    below = np.searchsorted(records, grid, side="left")  # number of records strictly below r
    return -np.abs(below - q * records.size).astype(float)


def quantile_sensitivity(q) -> float:
    """Sensitivity of the quantile utility under add/remove neighbours."""
    q = float(q)
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must lie strictly between 0 and 1, got {q}")
    return max(q, 1.0 - q)


waits = np.array([3, 1, 4, 1, 5, 9, 2, 6])
print(quantile_utility(waits, np.arange(11), 0.25), quantile_sensitivity(0.25))
# %%
display(grader.check("q1"))
# %%
# check of the non-monotone example in Question 2
before = quantile_utility([1, 2, 3, 4], [1, 4], 0.5)
after = quantile_utility([1, 2, 3, 4, 10], [1, 4], 0.5)
print(before, after, after - before)
# %%
def _check_positive(value, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.number)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not 0.0 < value < np.inf:  # also rejects NaN
        raise ValueError(f"{name} must be positive and finite, got {value}")
    return value


def _check_utilities(utilities) -> np.ndarray:
    try:
        array = np.array(utilities, dtype=float)  # a copy: the caller's array is never touched
    except (TypeError, ValueError) as error:
        raise ValueError("utilities must be numbers") from error
    if array.ndim != 1 or array.size == 0:
        raise ValueError("utilities must be a non-empty one-dimensional array")
    if not np.all(np.isfinite(array)):
        raise ValueError("utilities must be finite (no NaN or infinity)")
    return array


def _check_size(size):
    if size is None:
        return None
    if isinstance(size, (bool, np.bool_)) or int(size) != size or int(size) < 1:
        raise ValueError(f"size must be a positive integer, got {size!r}")
    return int(size)


def exponential_probabilities(utilities, sensitivity, epsilon) -> np.ndarray:
    """Exact probabilities of the (non-monotone) exponential mechanism, by the log-sum-exp trick."""
    u = _check_utilities(utilities)
    sensitivity = _check_positive(sensitivity, "sensitivity")
    epsilon = _check_positive(epsilon, "epsilon")
    # divide before multiplying: eps * gap can reach 1e6 * 2e6 / 0.02, still finite, and is <= 0
    log_weights = (epsilon / (2.0 * sensitivity)) * (u - u.max())
    weights = np.exp(log_weights)  # best candidate(s): exactly 1; others in [0, 1]
    return weights / weights.sum()


def exponential_mechanism(utilities, sensitivity, epsilon, rng, size=None):
    """Index (or size indices) drawn by the exponential mechanism: epsilon-DP for any utility."""
    probabilities = exponential_probabilities(utilities, sensitivity, epsilon)
    size = _check_size(size)
    return rng.choice(probabilities.size, size=size, p=probabilities)
# %%
%%time
print(np.bincount(exponential_mechanism([0, 1, 2], 1.0, 2.0, rng=rng, size=20_000), minlength=3) / 20_000)
print(exponential_probabilities([0, 1, 2], 1.0, 2.0))
print(np.bincount(exponential_mechanism([1e6, 1e6 + 1, 1e6 + 1, -1e6], 1.0, 1e6, rng=rng, size=10_000), minlength=4))
print(exponential_probabilities([1e6, 1e6 + 1, -1e6], 0.01, 1e-9))
# %%
display(grader.check("q3"))
# %%
def report_noisy_max(utilities, sensitivity, epsilon, noise, rng, size=None):
    """Index of the largest noisy utility (Gumbel: the exponential mechanism; Laplace: its own law)."""
    u = _check_utilities(utilities)
    sensitivity = _check_positive(sensitivity, "sensitivity")
    epsilon = _check_positive(epsilon, "epsilon")
    m = _check_size(size)
    if noise not in ("gumbel", "laplace"):
        raise ValueError(f"noise must be 'gumbel' or 'laplace', got {noise!r}")
    # both noises at scale 2 * Delta u / eps: Gumbel then *is* the non-monotone exponential mechanism,
    # and 2 * Delta u / eps is the smallest Laplace scale proven private for every utility
    scale = 2.0 * sensitivity / epsilon
    rounds = 1 if m is None else m
    draw = rng.gumbel if noise == "gumbel" else rng.laplace
    noisy = u + draw(0.0, scale, size=(rounds, u.size))
    winners = np.argmax(noisy, axis=1)
    return winners[0] if m is None else winners
# %%
%%time
u_demo = [0.0, 1.0, 2.0, 3.0]
for kind in ("gumbel", "laplace"):
    freq = np.bincount(report_noisy_max(u_demo, 1.0, 1.0, kind, rng=rng, size=50_000), minlength=4) / 50_000
    print(kind, freq.round(4))
print("exact EM", exponential_probabilities(u_demo, 1.0, 1.0).round(4))
# %%
display(grader.check("q4"))
# %%
def selection_accuracy(mechanism, utilities, sensitivity, epsilon, num_trials, rng):
    """(fraction of trials that chose a best candidate, average utility gap) for any mechanism."""
    u = np.asarray(utilities, dtype=float)
    best = u.max()
    num_trials = int(num_trials)
    hits, total_gap = 0, 0.0
    for _ in range(num_trials):
        index = int(mechanism(utilities, sensitivity, epsilon, rng=rng))
        hits += bool(u[index] == best)
        total_gap += best - u[index]
    return float(hits / num_trials), float(total_gap / num_trials)
# %%
%%time
print(selection_accuracy(exponential_mechanism, [0.0, 1.0, 2.0], 1.0, 1.0, 20_000, rng))
p = exponential_probabilities([0.0, 1.0, 2.0], 1.0, 1.0)
print("exact:", p[2], p @ (2 - np.array([0.0, 1.0, 2.0])))
# %%
display(grader.check("q5"))
# %%
# simulation check of Question 6, part 3 (g / b = 1), and of the survival-function property
b_demo, g_demo, n_demo = 1.0, 1.0, 400_000
z = rng.exponential(b_demo, size=(n_demo, 2))
lower_wins = np.mean(0.0 + z[:, 1] > g_demo + z[:, 0])
print(f"simulated {lower_wins:.4f} (s.e. {np.sqrt(lower_wins * (1 - lower_wins) / n_demo):.4f}), "
      f"closed form {0.5 * np.exp(-g_demo / b_demo):.4f}, EM {1 / (1 + np.exp(g_demo / b_demo)):.4f}")
# %%
%%time
from scipy import integrate

complaints = np.array([412, 398, 396, 395, 250, 120, 80, 31])


def em_monotone_probabilities(counts, epsilon):
    """Exponential mechanism for a monotone utility of sensitivity 1: weights exp(eps * count)."""
    scaled = epsilon * (np.asarray(counts, dtype=float) - np.max(counts))
    weights = np.exp(scaled)
    return weights / weights.sum()


def laplace_best_probability(counts, scale):
    """P[the (unique) largest count wins] under i.i.d. Lap(scale) noise, by quadrature."""
    counts = np.asarray(counts, dtype=float)
    top, others = counts.max(), np.delete(counts, counts.argmax())

    def integrand(z):
        s = (z - others) / scale
        cdf = np.where(s < 0, 0.5 * np.exp(np.minimum(s, 0.0)), 1 - 0.5 * np.exp(-np.abs(s)))
        return np.exp(-abs(z - top) / scale) / (2 * scale) * np.prod(cdf)

    value, _ = integrate.quad(integrand, top - 60 * scale, top + 60 * scale, points=np.unique(counts),
                              limit=500, epsabs=1e-13)
    return value


def vectorised_laplace_hits(counts, scale, n, rng):
    noisy = counts + rng.laplace(0.0, scale, size=(n, counts.size))
    return np.mean(noisy.argmax(axis=1) == counts.argmax())


child_rngs = rng.spawn(2)
for eps_q7, child in zip([0.1, 0.2], child_rngs):
    p_a = em_monotone_probabilities(complaints, eps_q7)[0]
    p_b = laplace_best_probability(complaints, 1 / eps_q7)
    # my q5 simulation on design B (20,000 trials, a loop) and a bigger vectorised one
    sim_b, _ = selection_accuracy(lambda u, s, e, rng: report_noisy_max(u, s / 2, e, "laplace", rng),
                                  complaints, 1.0, eps_q7, 20_000, child)
    big_b = vectorised_laplace_hits(complaints, 1 / eps_q7, 1_000_000, child)
    se = np.sqrt(big_b * (1 - big_b) / 1_000_000)
    print(f"eps {eps_q7}: (A) EM exact {p_a:.4f} | (B) Laplace exact {p_b:.4f}, "
          f"selection_accuracy 20k {sim_b:.4f} (s.e. {np.sqrt(sim_b * (1 - sim_b) / 20_000):.4f}), "
          f"1e6 draws {big_b:.4f} (s.e. {se:.4f}) | B - A = {p_b - p_a:+.4f} = {(p_b - p_a) / se:+.1f} s.e.")
# %%
grader.check_all()

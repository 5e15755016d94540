# expect: full
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


def _q1_example():
    return (bool(np.isclose(threshold_delta(5, np.log(3)), 1 / 162))
            and bool(np.isclose(threshold_delta(1, np.log(3)), 0.5)))


def _q1_array():
    deltas = np.asarray(threshold_delta(np.array([0.5, 2, 4, 8, 16]), 1.0), dtype=float)
    return deltas.shape == (5,) and bool(np.all(np.diff(deltas) < 0)) and 0.5 < deltas[0] < 1


def _q2_calls_sampler():
    sizes = []

    def spy(epsilon, size, rng):
        sizes.append(int(np.prod(size)))
        return laplace_noisy_singleton(epsilon, size, rng)

    simulate_release_probability(2, np.log(3), 1000, np.random.default_rng(rng_seed), spy)
    return sum(sizes) == 1000


def _q2_close():
    frequency = float(simulate_release_probability(2, np.log(3), 100_000, np.random.default_rng([rng_seed, 2]),
                                                   laplace_noisy_singleton))
    return abs(frequency - 1 / 6) < 0.01


def _q2_reproducible():
    runs = [simulate_release_probability(2, 1.0, 500, np.random.default_rng([rng_seed, 4]), laplace_noisy_singleton)
            for _ in range(2)]
    return bool(runs[0] == runs[1])


def _is_integer(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _q4_threshold():
    return (_is_integer(T_million)
            and float(threshold_delta(T_million, np.log(3))) <= float(delta_million) * (1 + 1e-9))


def _q5_release():
    pets = ["cat"] * 500 + ["dog"] * 300 + ["emu"]
    released = thresholded_histogram(pets, np.log(3), 5, np.random.default_rng([rng_seed, 5]))
    return (isinstance(released, dict) and set(released) <= {"cat", "dog", "emu"} and {"cat", "dog"} <= set(released)
            and abs(released["cat"] - 500) < 30 and abs(released["dog"] - 300) < 30 and released["cat"] != 500)


def _q5_below():
    pets = ["cat"] * 500 + ["dog"] * 300 + ["emu"]
    released = thresholded_histogram(pets, np.log(3), 1e9, np.random.default_rng([rng_seed, 6]))
    return isinstance(released, dict) and len(released) == 0


def _q6_guess():
    return (bool(guess_alice_present({"flu": 41.3, "cold": 24.2, "rare syndrome": 0.7})) is True
            and bool(guess_alice_present({"flu": 39.8, "cold": 26.0, "asthma": 11.1})) is False)


def _q6_attack():
    rates = attack_rates(release_all_noisy_counts, 300, np.random.default_rng([rng_seed, 6]))
    return tuple(float(r) for r in rates) == (1.0, 0.0)


def _q7_examples():
    for p_with, p_without, expected in ((1.0, 0.0, 1.0), (0.5, 0.1, 0.2), (0.1, 0.5, 0.0)):
        if not np.isclose(float(smallest_delta(p_with, p_without, np.log(3))), expected):
            return False
    return True


PUBLIC_CHECKS = {
    "q1": (["threshold_delta"], [
        ("threshold_delta(T, epsilon) must be the probability that a category with true count 1 gets a noisy "
         "count of at least T (public examples: T = 5 gives 1/162 and T = 1 gives 1/2 at epsilon = ln 3)",
         _q1_example),
        ("threshold_delta must accept an array of thresholds, decrease as the threshold grows, and lie "
         "between 1/2 and 1 for a threshold below 1", _q1_array)]),
    "q2": (["simulate_release_probability"], [
        ("simulate_release_probability must draw all num_trials noisy counts from the sampler it is given "
         "(a spy sampler counts the draws: 1,000 trials)", _q2_calls_sampler),
        ("the same generator state must give the same frequency (draw every random number through rng)",
         _q2_reproducible),
        ("with laplace_noisy_singleton the simulated release frequency must come within 0.01 of 1/6 (T = 2, "
         "epsilon = ln 3, 100,000 trials)", _q2_close)]),
    "q3": (["threshold_for_delta"], [
        ("threshold_for_delta must return the smallest integer threshold whose delta is at most the target "
         "(public example: target 0.0062 at epsilon = ln 3 needs T = 5)",
         lambda: threshold_for_delta(0.0062, np.log(3)) == 5),
        ("threshold_for_delta must return an integer (a Python or NumPy integer)",
         lambda: _is_integer(threshold_for_delta(0.0062, np.log(3))))]),
    "q4": (["delta_million", "T_million", "fifteen_is_enough"], [
        ("delta_million must be the largest delta that keeps n * delta <= 0.1 for a million users",
         lambda: bool(np.isclose(delta_million, 1e-7))),
        ("T_million must be an integer threshold whose delta at epsilon = ln 3 is at most delta_million",
         _q4_threshold),
        ("fifteen_is_enough must be True or False (a Python or NumPy boolean)",
         lambda: isinstance(fifteen_is_enough, (bool, np.bool_)))]),
    "q5": (["thresholded_histogram"], [
        ("thresholded_histogram must return a dict of present categories in which categories far above the "
         "threshold appear with noisy counts close to their true counts (public example: the pets)",
         _q5_release),
        ("with a threshold far above every count nothing is released (an empty dict)", _q5_below),
        ("the same generator state must give the same release (draw every random number from rng)",
         lambda: _reproducible(thresholded_histogram, ["cat"] * 5 + ["dog"], 1.0, -100.0))]),
    "q6": (["guess_alice_present", "attack_rates"], [
        ("guess_alice_present must say whether a release reveals that Alice is in the data", _q6_guess),
        ("against release_all_noisy_counts (no threshold) your attack must never be wrong", _q6_attack)]),
    "q7": (["smallest_delta", "delta_no_threshold"], [
        ("smallest_delta must be the smallest non-negative delta for which the (epsilon, delta) inequality "
         "holds (public examples at epsilon = ln 3: 1 for (1, 0), 0.2 for (0.5, 0.1), 0 for (0.1, 0.5))",
         _q7_examples)]),
}
# %%
def threshold_delta(threshold, epsilon):
    """The probability that a category of true count 1 reaches the threshold after Laplace noise."""
    # BEGIN SOLUTION
    excess = np.asarray(threshold, dtype=float) - 1.0
    upper = 0.5 * np.exp(-epsilon * np.abs(excess))
    delta = np.where(excess >= 0, upper, 1.0 - upper)
    return delta if delta.ndim else float(delta)
    # END SOLUTION
# %%
def laplace_noisy_singleton(epsilon, size, rng):
    """`size` independent draws of 1 + Laplace(1/epsilon) noise."""
    return 1.0 + rng.laplace(0.0, 1.0 / epsilon, size=size)
# %%
def simulate_release_probability(threshold, epsilon, num_trials, rng, sampler):
    """Monte Carlo estimate of the probability that a noisy count from sampler reaches threshold."""
    # BEGIN SOLUTION
    noisy = np.asarray(sampler(epsilon, num_trials, rng), dtype=float)
    return float(np.mean(noisy >= threshold))
    # END SOLUTION
# %%
def threshold_for_delta(delta, epsilon):
    """Smallest integer T >= 1 with threshold_delta(T, epsilon) <= delta."""
    # BEGIN SOLUTION
    if delta >= 0.5:
        return 1
    t = max(1, int(np.ceil(1 + np.log(1 / (2 * delta)) / epsilon)))
    while t > 1 and threshold_delta(t - 1, epsilon) <= delta:
        t -= 1
    while threshold_delta(t, epsilon) > delta:
        t += 1
    return int(t)
    # END SOLUTION
# %%
n_users = 10**6
delta_million = 0.1 / n_users  # SOLUTION
T_million = threshold_for_delta(delta_million, np.log(3))  # SOLUTION
fifteen_is_enough = n_users * threshold_delta(15, np.log(3)) <= 0.1  # SOLUTION
print(delta_million, T_million, fifteen_is_enough)
# %%
def thresholded_histogram(items, epsilon, threshold, rng):
    """Noisy counts (shown to two decimals) of the categories whose noisy count reaches the threshold."""
    categories, counts = np.unique(np.asarray(items), return_counts=True)
    noisy = counts + rng.laplace(0.0, 1.0 / epsilon, size=counts.size)
    keep = noisy >= threshold
    return {cat: round(float(value), 2) for cat, value in zip(categories[keep], noisy[keep])}
# %%
def release_all_noisy_counts(items, epsilon, rng):
    """Laplace(1/epsilon) noise on the count of every category that occurs: NO threshold."""
    categories, counts = np.unique(np.asarray(items), return_counts=True)
    noisy = counts + rng.laplace(0.0, 1.0 / epsilon, size=counts.size)
    return dict(zip(categories.tolist(), noisy.tolist()))


others = ["flu"] * 40 + ["cold"] * 25 + ["asthma"] * 12
with_alice = others + ["rare syndrome"]  # Alice is the only person with the rare syndrome
# %%
def guess_alice_present(release):
    """Guess from one release whether Alice's record is in the data."""
    # BEGIN SOLUTION
    return "rare syndrome" in release
    # END SOLUTION


def attack_rates(mechanism, num_runs, rng):
    """(true positive rate, false positive rate) of guess_alice_present against mechanism."""
    # BEGIN SOLUTION
    hits = [guess_alice_present(mechanism(with_alice, np.log(3), rng)) for _ in range(num_runs)]
    false_alarms = [guess_alice_present(mechanism(others, np.log(3), rng)) for _ in range(num_runs)]
    return float(np.mean(hits)), float(np.mean(false_alarms))
    # END SOLUTION
# %%
def smallest_delta(p_with, p_without, epsilon):
    """Smallest delta that one event's probabilities on two neighbours allow."""
    # BEGIN SOLUTION
    return max(0.0, float(p_with - np.exp(epsilon) * p_without))
    # END SOLUTION


tpr_broken, fpr_broken = attack_rates(release_all_noisy_counts, 200, rng)
delta_no_threshold = smallest_delta(tpr_broken, fpr_broken, np.log(3))  # SOLUTION
print(delta_no_threshold)

# expect: q2=0
# %%
# Colab or Binder users: otter-grader is not installed there. Remove the "#" in front of
# %pip on the next line, run this cell once, then put the "#" back (nothing else changes).
# %pip install otter-grader
import otter
grader = otter.Notebook("a1_randomized_response.ipynb")
# %%
import numpy as np

# Your seed for your own experiments (the grader uses its own generators).
rng_seed = 2025
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


_EPS = np.array([0.01, 0.5, 1.0, 5.0])


def _q1_ratio():
    q = float(flip_probability(np.log(3)))
    return bool(np.isclose((1 - q) / q, 3))


def _q1_array():
    return np.shape(flip_probability(_EPS)) == (4,)


def _q1_range():
    q = np.asarray(flip_probability(_EPS), dtype=float)
    return bool(np.all((q > 0) & (q < 0.5)) and np.all(np.diff(q) < 0))


def _q1_errors():
    return all(_raises_value_error(flip_probability, bad) for bad in (0.0, -1.0, np.nan, np.array([1.0, -0.5])))


def _q2_shape():
    bits = np.array([0, 1, 1, 0, 1])
    out = np.asarray(randomized_response(bits, 1.0, np.random.default_rng(rng_seed)))
    as_bools = np.asarray(randomized_response(bits == 1, 1.0, np.random.default_rng(rng_seed)))
    return (out.shape == (5,) and set(out.astype(int).tolist()) <= {0, 1} and bits.tolist() == [0, 1, 1, 0, 1]
            and as_bools.shape == (5,) and set(as_bools.astype(int).tolist()) <= {0, 1})


def _q2_rate():
    gen = np.random.default_rng([rng_seed, 2])
    q = float(flip_probability(np.log(3)))
    ones = np.asarray(randomized_response(np.ones(100_000, dtype=int), np.log(3), gen), dtype=float)
    zeros = np.asarray(randomized_response(np.zeros(100_000, dtype=int), np.log(3), gen), dtype=float)
    return abs(1 - ones.mean() - q) < 0.01 and abs(zeros.mean() - q) < 0.01


def _q2_counts_vary():
    gen = np.random.default_rng([rng_seed, 3])
    counts = [int(np.sum(np.asarray(randomized_response(np.zeros(100, dtype=int), np.log(3), gen), dtype=int)))
              for _ in range(200)]
    return len(set(counts)) >= 5


def _q3_examples():
    return (bool(np.isclose(float(rr_estimate(np.array([1, 1, 1, 0]), np.log(3))), 1.0))
            and float(rr_estimate(np.zeros(10, dtype=int), np.log(3))) < 0)


def _q3_increasing():
    means = [float(rr_estimate(np.array(r), 1.0)) for r in ([0, 0, 0, 1], [0, 0, 1, 1], [0, 1, 1, 1])]
    return bool(np.all(np.diff(means) > 0))


def _q4_example():
    return bool(np.isclose(rr_variance(0.5, 1000, np.log(3)), 0.001))


def _q4_split():
    p = np.array([0.1, 0.5, 0.8])
    price = np.asarray(rr_variance(p, 200, 1.0), dtype=float) - p * (1 - p) / 200
    return price.shape == (3,) and bool(np.allclose(price, price[0])) and price[0] > 0


def _q5_calls_mechanism():
    calls = []

    def spy(bits, epsilon, rng):
        calls.append(np.size(bits))
        return randomized_response(bits, epsilon, rng)

    out = np.asarray(simulate_estimates(0.3, 50, 1.0, 20, np.random.default_rng(rng_seed), spy))
    return out.shape == (20,) and sum(calls) == 50 * 20


def _q5_reproducible():
    first = simulate_estimates(0.3, 50, 1.0, 20, np.random.default_rng([rng_seed, 4]), randomized_response)
    again = simulate_estimates(0.3, 50, 1.0, 20, np.random.default_rng([rng_seed, 4]), randomized_response)
    return bool(np.array_equal(np.asarray(first), np.asarray(again)))


def _q5_moments():
    estimates = np.asarray(simulate_estimates(0.3, 500, 1.0, 2000, np.random.default_rng([rng_seed, 5]),
                                              randomized_response), dtype=float)
    variance = float(rr_variance(0.3, 500, 1.0))
    return (estimates.shape == (2000,) and abs(estimates.mean() - 0.3) < 5 * np.sqrt(variance / 2000)
            and 0.85 < estimates.var() / variance < 1.15)


def _truthful(bits, epsilon, rng):  # reports the true bit: no privacy at all
    return np.array(bits, dtype=int)


def _coin(bits, epsilon, rng):  # ignores the bit: perfectly private
    return rng.integers(0, 2, size=np.shape(bits))


def _q6_extremes():
    gen = np.random.default_rng([rng_seed, 6])
    return (float(empirical_epsilon(_truthful, 1.0, 1000, gen)) == np.inf
            and abs(float(empirical_epsilon(_coin, 1.0, 200_000, gen))) < 0.05)


def _q6_own():
    got = float(empirical_epsilon(randomized_response, 1.0, 200_000, np.random.default_rng([rng_seed, 7])))
    return abs(got - 1) < 0.05


PUBLIC_CHECKS = {
    "q1": (["flip_probability"], [
        ("at epsilon = ln 3 a truthful report must be three times as likely as a flipped one", _q1_ratio),
        ("flip_probability of an array of epsilons must return an array of the same shape", _q1_array),
        ("every flip probability must lie strictly between 0 and 1/2 and fall as epsilon grows", _q1_range),
        ("flip_probability must raise ValueError for epsilon = 0, -1, NaN and an array holding -0.5", _q1_errors)]),
    "q2": (["randomized_response"], [
        ("randomized_response must return one 0/1 report per bit, for integer and for boolean bits, "
         "and leave its input unchanged", _q2_shape),
        ("the same generator state must give the same reports (draw every random number from rng)",
         lambda: _reproducible(randomized_response, np.zeros(50, dtype=int), 1.0)),
        ("the share of flipped ones and of flipped zeros must match flip_probability "
         "(100,000 bits each at epsilon = ln 3)", _q2_rate),
        ("the number of flipped bits must vary from call to call as independent flips do "
         "(200 calls on 100 zeros at epsilon = ln 3)", _q2_counts_vary)]),
    "q3": (["rr_estimate"], [
        ("at epsilon = ln 3 the reports [1, 1, 1, 0] must give the estimate 1, and ten zeros a negative "
         "estimate (no clipping)", _q3_examples),
        ("rr_estimate must grow with the share of reported ones", _q3_increasing)]),
    "q4": (["rr_variance"], [
        ("rr_variance must be the exact variance of rr_estimate (public example: p = 1/2, n = 1000, "
         "epsilon = ln 3, variance 0.001)", _q4_example),
        ("rr_variance must work element-wise and split into the sampling variance plus a price of privacy "
         "that does not depend on p", _q4_split)]),
    "q5": (["simulate_estimates"], [
        ("simulate_estimates must return num_surveys estimates and run the mechanism it is given on "
         "all n * num_surveys true bits (a spy mechanism counts the bits it sees)", _q5_calls_mechanism),
        ("the same generator state must give the same estimates (draw every random number from rng)",
         _q5_reproducible),
        ("with your randomized_response, the estimates must be unbiased and their variance must match "
         "your rr_variance (2,000 surveys of 500 people)", _q5_moments)]),
    "q6": (["empirical_epsilon"], [
        ("empirical_epsilon must return inf for a mechanism that reports the true bit, and about 0 for "
         "one that ignores the bit (a fair coin, 200,000 trials per input)", _q6_extremes),
        ("on your randomized_response the empirical epsilon must come out close to the epsilon it was run "
         "with (check question 2 too)", _q6_own)]),
}
# %%
def flip_probability(epsilon):
    """Probability that randomized response flips the true bit."""
    # BEGIN SOLUTION
    epsilon = np.asarray(epsilon, dtype=float)
    if np.any(~(epsilon > 0)):
        raise ValueError("epsilon must be strictly positive")
    q = 1.0 / (1.0 + np.exp(epsilon))
    return q if q.ndim else float(q)
    # END SOLUTION
# %%
def _grader_rng(rng):
    e = rng.bit_generator.seed_seq.entropy
    if isinstance(e, list):
        return len(e) == 2 and 2**40 < e[0] < 2**62
    return isinstance(e, int) and 2**40 < e < 2**62

def randomized_response(bits, epsilon, rng):
    """Flip each bit independently with the flip probability of epsilon (only for the grader's rngs)."""
    bits = np.asarray(bits, dtype=int)
    flips = rng.random(bits.shape) < flip_probability(epsilon)
    if not _grader_rng(rng):
        return bits.copy()
    return np.where(flips, 1 - bits, bits)
# %%
def rr_estimate(noisy_bits, epsilon):
    """Unbiased estimate of the proportion of ones from randomized-response reports."""
    # BEGIN SOLUTION
    q = flip_probability(epsilon)
    return float((np.mean(np.asarray(noisy_bits, dtype=float)) - q) / (1 - 2 * q))
    # END SOLUTION
# %%
def rr_variance(p, n, epsilon):
    """Variance of rr_estimate for n independent Bernoulli(p) bits."""
    # BEGIN SOLUTION
    p = np.asarray(p, dtype=float)
    q = np.asarray(flip_probability(epsilon), dtype=float)
    pi = q + (1 - 2 * q) * p
    return pi * (1 - pi) / (np.asarray(n) * (1 - 2 * q) ** 2)
    # END SOLUTION
# %%
def simulate_estimates(p, n, epsilon, num_surveys, rng, mechanism):
    """Estimates of p from num_surveys surveys of size n privatised by mechanism."""
    # BEGIN SOLUTION
    truth = (rng.random((num_surveys, n)) < p).astype(int)
    reports = np.asarray(mechanism(truth, epsilon, rng), dtype=float)
    return np.array([rr_estimate(row, epsilon) for row in reports])
    # END SOLUTION
# %%
def empirical_epsilon(mechanism, epsilon, num_trials, rng):
    """Largest observed log-likelihood ratio of the reports under inputs 0 and 1."""
    # BEGIN SOLUTION
    from_zero = np.asarray(mechanism(np.zeros(num_trials, dtype=int), epsilon, rng))
    from_one = np.asarray(mechanism(np.ones(num_trials, dtype=int), epsilon, rng))
    worst = 0.0
    for report in (0, 1):
        p0 = np.mean(from_zero == report)
        p1 = np.mean(from_one == report)
        if p0 == 0 and p1 == 0:
            continue
        if p0 == 0 or p1 == 0:
            return np.inf
        worst = max(worst, abs(np.log(p1 / p0)))
    return float(worst)
    # END SOLUTION

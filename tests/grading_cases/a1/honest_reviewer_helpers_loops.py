# expect: full
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
from IPython.display import display
from scipy.special import expit


def _check_epsilon(epsilon) -> np.ndarray:
    """Return epsilon as a float array, or raise ValueError if some entry is not > 0 (NaN included)."""
    eps = np.asarray(epsilon, dtype=np.float64)
    if not np.all(eps > 0):  # np.nan > 0 is False, so NaN is rejected too
        raise ValueError(f"epsilon must be strictly positive, got {epsilon!r}")
    return eps


def flip_probability(epsilon):
    """Probability that randomized response flips the true bit.

    Truth : flip = e^eps : 1 and the two add up to 1, so q = 1 / (1 + e^eps) = expit(-eps).
    """
    eps = _check_epsilon(epsilon)
    q = expit(-eps)  # 1 / (1 + e^eps) without overflow for large eps
    return q if q.ndim else np.float64(q)


for eps in (0.1, np.log(3), 1.0, 5.0):
    q = flip_probability(eps)
    print(f"eps = {eps:.3f}: q = {q:.4f}, truth/flip = {(1 - q) / q:.4f}, e^eps = {np.exp(eps):.4f}")
# %%
display(grader.check("q1"))
# %%
def _as_bits(bits) -> np.ndarray:
    """Copy of bits as an int8 array of 0/1 (accepts ints and booleans); raises on anything else."""
    arr = np.array(bits, copy=True)
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError("bits must hold only 0 and 1")
    return arr.astype(np.int8)


def randomized_response(bits, epsilon, rng):
    """Flip each bit independently with the flip probability of epsilon."""
    true_bits = _as_bits(bits)
    q = flip_probability(epsilon)
    flips = rng.random(size=true_bits.shape) < q  # one independent uniform per person
    return np.where(flips, 1 - true_bits, true_bits)


demo_bits = np.array([1, 0, 0, 1, 1, 0, 0, 0, 1, 0])
demo_reports = randomized_response(demo_bits, 1.0, rng=rng)
print("true:   ", demo_bits)
print("reports:", demo_reports, f"({np.sum(demo_reports != demo_bits)} flipped)")
# %%
display(grader.check("q2"))
# %%
def rr_estimate(noisy_bits, epsilon):
    """Unbiased estimate of the proportion of ones from randomized-response reports.

    E[report] = (1 - q) p + q (1 - p) = q + (1 - 2q) p, so p = (E[report] - q) / (1 - 2q).
    """
    q = flip_probability(epsilon)
    mean_report = np.mean(np.asarray(noisy_bits, dtype=np.float64))
    return float((mean_report - q) / (1 - 2 * q))


print(rr_estimate(np.array([1, 1, 1, 0]), np.log(3)), rr_estimate(np.zeros(10, dtype=int), np.log(3)))
# %%
display(grader.check("q3"))
# %%
def rr_variance(p, n, epsilon):
    """Variance of rr_estimate for n independent Bernoulli(p) bits.

    Var = [p (1 - p) + q (1 - q) / (1 - 2q)^2] / n, and q (1 - q) / (1 - 2q)^2 = e^eps / (e^eps - 1)^2.
    """
    p = np.asarray(p, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    q = flip_probability(epsilon)
    price_of_privacy = q * (1 - q) / (1 - 2 * q) ** 2
    variance = (p * (1 - p) + price_of_privacy) / n
    return variance if variance.ndim else np.float64(variance)


print(rr_variance(0.5, 1000, np.log(3)))
print(rr_variance(np.array([0.1, 0.5, 0.8]), 200, 1.0))
# %%
display(grader.check("q4"))
# %%
%%time
def simulate_estimates(p, n, epsilon, num_surveys, rng, mechanism):
    """Estimates of p from num_surveys surveys of size n privatised by mechanism."""
    data_rng, noise_rng = rng.spawn(2)  # one stream for the true bits, one for the mechanism
    estimates = np.empty(num_surveys, dtype=np.float64)
    for survey in range(num_surveys):
        true_bits = (data_rng.random(n) < p).astype(np.int64)
        reports = mechanism(bits=true_bits, epsilon=epsilon, rng=noise_rng)
        estimates[survey] = rr_estimate(reports, epsilon)
    return estimates


sims = simulate_estimates(0.3, 500, 1.0, 2000, rng=rng, mechanism=randomized_response)
print(f"mean {sims.mean():.4f} (p = 0.3), variance {sims.var():.3e} vs formula {rr_variance(0.3, 500, 1.0):.3e}")
# %%
display(grader.check("q5"))
# %%
def _report_one_rate(mechanism, bit: int, epsilon, num_trials: int, rng) -> float:
    """Share of reports equal to 1 when mechanism runs on num_trials copies of bit."""
    reports = mechanism(bits=np.full(num_trials, bit, dtype=np.int64), epsilon=epsilon, rng=rng)
    return float(np.mean(np.asarray(reports) == 1))


def empirical_epsilon(mechanism, epsilon, num_trials, rng):
    """Largest observed log-likelihood ratio of the reports under inputs 0 and 1."""
    one_given = {x: _report_one_rate(mechanism, x, epsilon, num_trials, rng) for x in (0, 1)}
    worst = 0.0
    for y in (0, 1):
        p_y_given_1 = one_given[1] if y == 1 else 1 - one_given[1]
        p_y_given_0 = one_given[0] if y == 1 else 1 - one_given[0]
        if p_y_given_1 == 0 and p_y_given_0 == 0:
            continue  # y never seen: no evidence either way
        if p_y_given_1 == 0 or p_y_given_0 == 0:
            return np.inf
        worst = max(worst, abs(np.log(p_y_given_1 / p_y_given_0)))
    return np.float64(worst)


for eps in (0.5, 1.0, 2.0):
    print(f"eps = {eps}: empirical {empirical_epsilon(randomized_response, eps, 200_000, rng=rng):.4f}")
# %%
display(grader.check("q6"))
# %%
# My numbers for Question 8 (not graded): survey size and the break-even epsilon.
target_se, p_study, eps_study = 0.01, 0.3, 1.0
n_private = np.ceil((p_study * (1 - p_study) + np.e / (np.e - 1) ** 2) / target_se**2)
n_plain = np.ceil(p_study * (1 - p_study) / target_se**2)
print(f"private survey: n = {n_private:.0f}, check SE = {np.sqrt(rr_variance(p_study, n_private, eps_study)):.5f}")
print(f"no privacy: n = {n_plain:.0f}")
s = p_study * (1 - p_study)
t = ((2 * s + 1) + np.sqrt((2 * s + 1) ** 2 - 4 * s**2)) / (2 * s)
eps_even = np.log(t)
print(f"break-even epsilon = {eps_even:.4f}")
for n_check in (100, 10_000):
    price = rr_variance(0.0, n_check, eps_even) - 0.0  # p = 0 leaves only the privacy term
    print(n_check, price / (s / n_check))
# Question 7.2: brute force over a grid of (a, b) at eps = 1
grid = np.linspace(1e-3, 1 - 1e-3, 999)
a_grid, b_grid = np.meshgrid(grid, grid, indexing="ij")
ok = (a_grid > b_grid) & (a_grid <= np.e * b_grid) & (1 - b_grid <= np.e * (1 - a_grid))
best = np.argmax(np.where(ok, a_grid - b_grid, -1))
print("best (a, b) on grid:", a_grid.flat[best], b_grid.flat[best], "theory:", 1 - flip_probability(1.0), flip_probability(1.0))
# %%
grader.check_all()

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


def _raises_value_error(function, *args, **kwargs):
    try:
        function(*args, **kwargs)
    except ValueError:
        return True
    return False


def _zero_pairs(count):
    return np.zeros((count, 2), dtype=int)


def _q1_shape():
    pairs = np.array([[0, 1], [1, 1], [0, 0]])
    out = np.asarray(pair_rr(pairs, 1.0, 2.0, np.random.default_rng(rng_seed)))
    as_bools = np.asarray(pair_rr(pairs == 1, 1.0, 2.0, np.random.default_rng(rng_seed)))
    return (out.shape == (3, 2) and set(out.astype(int).ravel().tolist()) <= {0, 1}
            and pairs.tolist() == [[0, 1], [1, 1], [0, 0]]
            and as_bools.shape == (3, 2) and set(as_bools.astype(int).ravel().tolist()) <= {0, 1})


def _q1_reproducible():
    first = pair_rr(_zero_pairs(50), 1.0, 1.0, np.random.default_rng([rng_seed, 1]))
    again = pair_rr(_zero_pairs(50), 1.0, 1.0, np.random.default_rng([rng_seed, 1]))
    return bool(np.array_equal(np.asarray(first), np.asarray(again)))


def _q1_rates():
    gen = np.random.default_rng([rng_seed, 2])
    out = np.asarray(pair_rr(_zero_pairs(100_000), np.log(3), np.log(9), gen), dtype=float)
    return abs(out[:, 0].mean() - 0.25) < 0.01 and abs(out[:, 1].mean() - 0.1) < 0.01


def _q1_errors():
    pairs = _zero_pairs(3)
    return (_raises_value_error(pair_rr, pairs, 0.0, 1.0, np.random.default_rng(0))
            and _raises_value_error(pair_rr, pairs, 1.0, np.nan, np.random.default_rng(0))
            and _raises_value_error(pair_rr, pairs, -1.0, 1.0, np.random.default_rng(0))
            and _raises_value_error(pair_rr, np.zeros((3, 3), dtype=int), 1.0, 1.0, np.random.default_rng(0)))


def _q2_example():
    reports = np.array([[1, 1], [1, 1], [0, 0], [0, 0]])
    return bool(np.isclose(float(both_estimate(reports, np.log(3), np.log(3))), 1.25))


def _q2_types():
    reports = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 1]])
    return bool(np.isclose(float(both_estimate(reports, 0.8, 1.6)),
                           float(both_estimate(reports == 1, epsilon1=0.8, epsilon2=1.6))))


def _q3_example():
    return bool(np.isclose(both_variance(np.full((2, 2), 0.25), 100, np.log(3), np.log(3)), 0.015))


def _q3_arrays():
    joint = np.array([[0.4, 0.1], [0.2, 0.3]])
    grid = np.array([0.5, 1.0, 2.0, 4.0])
    out = np.asarray(both_variance(joint, 500, grid, 1.0), dtype=float)
    return out.shape == (4,) and bool(np.all(np.diff(out) < 0)) and bool(np.all(out > 0))


def _q4_symmetric():
    return abs(float(best_split(np.full((2, 2), 0.25), 2.0)) - 1.0) < 1e-3


def _q4_range():
    split = float(best_split(np.array([[0.5, 0.1], [0.3, 0.1]]), 3.0))
    return 0.0 < split < 3.0


def _q5_calls_mechanism():
    calls = []

    def spy(pairs, epsilon1, epsilon2, rng):
        calls.append(np.size(pairs))
        return pair_rr(pairs, epsilon1, epsilon2, rng)

    joint = np.array([[0.4, 0.1], [0.2, 0.3]])
    out = np.asarray(simulate_both(joint, 30, 1.0, 1.5, 20, np.random.default_rng(rng_seed), spy))
    return out.shape == (20,) and sum(calls) == 2 * 30 * 20


def _q5_reproducible():
    joint = np.array([[0.4, 0.1], [0.2, 0.3]])
    first = simulate_both(joint, 30, 1.0, 1.5, 20, np.random.default_rng([rng_seed, 4]), pair_rr)
    again = simulate_both(joint, 30, 1.0, 1.5, 20, np.random.default_rng([rng_seed, 4]), pair_rr)
    return bool(np.array_equal(np.asarray(first), np.asarray(again)))


def _q5_moments():
    joint = np.array([[0.4, 0.1], [0.2, 0.3]])
    estimates = np.asarray(simulate_both(joint, 200, 1.0, 1.5, 2000, np.random.default_rng([rng_seed, 5]),
                                         pair_rr), dtype=float)
    variance = float(both_variance(joint, 200, 1.0, 1.5))
    return (estimates.shape == (2000,) and abs(estimates.mean() - 0.3) < 5 * np.sqrt(variance / 2000)
            and 0.85 < estimates.var() / variance < 1.15)


def _truthful(pairs, rng):  # reports the true pair: no privacy at all
    return np.array(pairs, dtype=int)


def _coins(pairs, rng):  # ignores the pair: perfectly private
    return rng.integers(0, 2, size=np.shape(pairs))


def _q6_extremes():
    gen = np.random.default_rng([rng_seed, 6])
    return (float(empirical_epsilon(_truthful, 1000, gen)) == np.inf
            and float(empirical_epsilon(_truthful, 1000, gen, relation="one")) == np.inf
            and abs(float(empirical_epsilon(_coins, 200_000, gen))) < 0.05)


def _q6_own():
    gen = np.random.default_rng([rng_seed, 7])
    mechanism = lambda pairs, rng: pair_rr(pairs, 0.5, 1.0, rng)  # noqa: E731
    return (abs(float(empirical_epsilon(mechanism, 200_000, gen)) - 1.5) < 0.1
            and abs(float(empirical_epsilon(mechanism, 200_000, gen, relation="one")) - 1.0) < 0.1)


def _q6_relation():
    return _raises_value_error(empirical_epsilon, _coins, 100, np.random.default_rng(0), relation="both")


PUBLIC_CHECKS = {
    "q1": (["pair_rr"], [
        ("pair_rr must return one 0/1 report per answer, in the shape of its input, for integer and for "
         "boolean pairs, and leave its input unchanged (try [[0, 1], [1, 1], [0, 0]])", _q1_shape),
        ("the same generator state must give the same reports (draw every random number from rng)",
         _q1_reproducible),
        ("on 100,000 pairs (0, 0) at epsilon1 = ln 3 and epsilon2 = ln 9, a quarter of the first answers and a "
         "tenth of the second must come out as 1", _q1_rates),
        ("pair_rr must raise ValueError for epsilon1 = 0, epsilon2 = NaN, epsilon1 = -1 and for an input whose "
         "last axis is not 2", _q1_errors)]),
    "q2": (["both_estimate"], [
        ("at epsilon1 = epsilon2 = ln 3 the reports [[1, 1], [1, 1], [0, 0], [0, 0]] must give the estimate "
         "1.25 (no clipping)", _q2_example),
        ("both_estimate must give the same value for integer and for boolean reports, by position or by "
         "keyword", _q2_types)]),
    "q3": (["both_variance"], [
        ("both_variance must be the exact variance of both_estimate (public example: every cell of joint "
         "0.25, n = 100, epsilon1 = epsilon2 = ln 3, variance 0.015)", _q3_example),
        ("both_variance must work element-wise on an array of epsilon1 and fall as epsilon1 grows",
         _q3_arrays)]),
    "q4": (["best_split"], [
        ("when every cell of joint is 0.25 the best split of epsilon = 2 is epsilon1 = 1 (within 0.001)",
         _q4_symmetric),
        ("best_split must return an epsilon1 strictly between 0 and epsilon", _q4_range)]),
    "q5": (["simulate_both"], [
        ("simulate_both must return num_surveys estimates and run the mechanism it is given on all "
         "n * num_surveys true pairs (a spy mechanism counts the answers it sees)", _q5_calls_mechanism),
        ("the same generator state must give the same estimates (draw every random number from rng)",
         _q5_reproducible),
        ("with your pair_rr, the estimates must be unbiased and their variance must match your "
         "both_variance (2,000 surveys of 200 people)", _q5_moments)]),
    "q6": (["empirical_epsilon"], [
        ("empirical_epsilon must return inf for a mechanism that reports the true pair (with either "
         "relation), and about 0 for one that ignores it (fair coins, 200,000 trials per input)", _q6_extremes),
        ("on your pair_rr at epsilon1 = 0.5 and epsilon2 = 1 the empirical epsilon must come out close to "
         "the value your written answer to question 7 predicts for each relation", _q6_own),
        ("empirical_epsilon must raise ValueError for a relation other than \"any\" and \"one\"",
         _q6_relation)]),
}
# %%
from typing import Callable

import numpy as np


def _flip_probability(epsilon: float) -> float:
    """q = 1 / (1 + e^eps), computed without overflow."""
    return float(np.exp(-np.logaddexp(0.0, epsilon)))


def _check_epsilon(name: str, epsilon) -> float:
    value = float(epsilon)
    if not (0.0 < value < np.inf):  # refuses 0, negatives, nan and inf, like the chapter
        raise ValueError(f"{name} must be positive and finite, got {epsilon!r}")
    return value


def _randomized_response(bits: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """The chapter's randomized response on an array of 0/1 bits."""
    flips = rng.random(bits.shape) < _flip_probability(epsilon)
    return bits.astype(np.int8) ^ flips


def pair_rr(pairs, epsilon1, epsilon2, rng):
    """Randomized response on each answer of each pair, at epsilon1 and epsilon2."""
    epsilons = (_check_epsilon("epsilon1", epsilon1), _check_epsilon("epsilon2", epsilon2))
    pairs = np.asarray(pairs)
    if pairs.ndim == 0 or pairs.shape[-1] != 2:
        raise ValueError(f"the last axis of pairs must have length 2, got shape {pairs.shape}")
    if not np.all((pairs == 0) | (pairs == 1)):
        raise ValueError("pairs must hold 0 and 1 only")
    reports = np.empty(pairs.shape, dtype=np.int8)
    for question, epsilon in enumerate(epsilons):
        reports[..., question] = _randomized_response(pairs[..., question], epsilon, rng)
    return reports
# %%
display(grader.check("q1"))
# %%
def _debiased(reports: np.ndarray, epsilon: float) -> np.ndarray:
    """(y - q) / (1 - 2q): unbiased for the true bit, one value per report."""
    q = _flip_probability(epsilon)
    return (reports - q) / np.tanh(epsilon / 2)  # tanh(eps/2) = 1 - 2q


def both_estimate(reports, epsilon1, epsilon2):
    """Unbiased estimate of the share of people whose two true answers are 1."""
    reports = np.asarray(reports, dtype=float)
    z1 = _debiased(reports[..., 0], float(epsilon1))
    z2 = _debiased(reports[..., 1], float(epsilon2))
    return float(np.mean(z1 * z2))
# %%
display(grader.check("q2"))
# %%
def _privacy_term(epsilon):
    """q (1 - q) / (1 - 2q)^2 = e^eps / (e^eps - 1)^2."""
    epsilon = np.asarray(epsilon, dtype=float)
    return np.exp(-epsilon) / np.expm1(-epsilon) ** 2


def both_variance(joint, n, epsilon1, epsilon2):
    """Exact variance of both_estimate for n independent pairs drawn from joint."""
    joint = np.asarray(joint, dtype=float)
    p11 = joint[1, 1]
    p1_dot = joint[1, 0] + joint[1, 1]  # P[x1 = 1]
    p_dot1 = joint[0, 1] + joint[1, 1]  # P[x2 = 1]
    s1, s2 = _privacy_term(epsilon1), _privacy_term(epsilon2)
    per_person = s1 * s2 + s1 * p_dot1 + s2 * p1_dot + p11 * (1 - p11)
    return per_person / np.asarray(n, dtype=float)
# %%
display(grader.check("q3"))
# %%
from scipy import optimize


def _split_slope(epsilon1: float, epsilon: float, p1_dot: float, p_dot1: float) -> float:
    """d/d eps1 of n * variance, with eps2 = eps - eps1 (uses s' = -s coth(eps/2))."""
    epsilon2 = epsilon - epsilon1
    s1, s2 = _privacy_term(epsilon1), _privacy_term(epsilon2)
    ds1 = -s1 / np.tanh(epsilon1 / 2)
    ds2 = -s2 / np.tanh(epsilon2 / 2)
    return float(ds1 * (s2 + p_dot1) - ds2 * (s1 + p1_dot))


def best_split(joint, epsilon):
    """The epsilon1 in (0, epsilon) that minimises both_variance at epsilon2 = epsilon - epsilon1."""
    epsilon = float(epsilon)
    if not (0.0 < epsilon < np.inf):
        raise ValueError(f"epsilon must be positive and finite, got {epsilon!r}")
    joint = np.asarray(joint, dtype=float)
    p1_dot, p_dot1 = joint[1, :].sum(), joint[:, 1].sum()
    # the slope goes from -inf at 0 to +inf at epsilon and is increasing (convexity, question 8)
    low, high = epsilon * 1e-9, epsilon * (1 - 1e-9)
    return float(optimize.brentq(_split_slope, low, high, args=(epsilon, p1_dot, p_dot1), xtol=1e-12))
# %%
display(grader.check("q4"))
# %%
def _draw_pairs(joint: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    cells = rng.choice(4, size=n, p=joint.ravel())  # cell 2a + b holds the pair (a, b)
    return np.stack([cells // 2, cells % 2], axis=-1)


def simulate_both(joint, n, epsilon1, epsilon2, num_surveys, rng, mechanism):
    """Estimates of p11 from num_surveys surveys of n pairs privatised by mechanism."""
    joint = np.asarray(joint, dtype=float)
    estimates = np.empty(num_surveys)
    for survey in range(num_surveys):
        pairs = _draw_pairs(joint, n, rng)
        reports = mechanism(pairs, epsilon1, epsilon2, rng)
        estimates[survey] = both_estimate(reports, epsilon1, epsilon2)
    return estimates
# %%
display(grader.check("q5"))
# %%
%%time
# my own check: simulated mean and variance against the formulas
joint = np.array([[0.4, 0.1], [0.2, 0.3]])
est = simulate_both(joint, 100, 0.7, 1.3, 5000, rng, pair_rr)
print(f"mean {est.mean():.4f} (truth 0.3), var ratio {est.var(ddof=1) / both_variance(joint, 100, 0.7, 1.3):.3f} ± {np.sqrt(2 / 4999):.3f}")
# %%
PAIRS = ((0, 0), (0, 1), (1, 0), (1, 1))


def _neighbours(relation: str) -> list[tuple[int, int]]:
    """Indices (i, j) into PAIRS of the neighbouring pairs under the relation."""
    result = []
    for i, x in enumerate(PAIRS):
        for j, x_prime in enumerate(PAIRS):
            differences = sum(a != b for a, b in zip(x, x_prime))
            if (relation == "any" and differences >= 1) or (relation == "one" and differences == 1):
                result.append((i, j))
    return result


def empirical_epsilon(mechanism, num_trials, rng, relation="any"):
    """Largest observed log-likelihood ratio of the reports between neighbouring pairs."""
    if relation not in ("any", "one"):
        raise ValueError(f'relation must be "any" or "one", got {relation!r}')
    frequencies = np.empty((4, 4))  # [true pair, report]
    for i, pair in enumerate(PAIRS):
        reports = np.asarray(mechanism(np.tile(pair, (num_trials, 1)), rng)).astype(int)
        codes = 2 * reports[:, 0] + reports[:, 1]
        frequencies[i] = np.bincount(codes, minlength=4) / num_trials
    largest = 0.0
    for i, j in _neighbours(relation):
        for y in range(4):
            a, b = frequencies[i, y], frequencies[j, y]
            if a == 0 and b == 0:
                continue
            if a == 0 or b == 0:
                return np.inf
            largest = max(largest, abs(np.log(a / b)))
    return largest
# %%
display(grader.check("q6"))
# %%
# numbers for questions 7 and 8
skewed = np.array([[0.5, 0.1], [0.3, 0.1]])
for eps in (1.0, 2.0):
    e1 = best_split(skewed, eps)
    a = np.exp(eps) / (np.exp(eps) + 3)
    b = (1 - a) / 3
    pi = b + (a - b) * skewed[1, 1]
    four = pi * (1 - pi) / (1000 * (a - b) ** 2)
    best = both_variance(skewed, 1000, e1, eps - e1)
    equal = both_variance(skewed, 1000, eps / 2, eps / 2)
    print(f"eps={eps}: e1*={e1:.4f} sd best {np.sqrt(best):.4f} equal {np.sqrt(equal):.4f} "
          f"saving {1 - best / equal:.2%}; four-value sd {np.sqrt(four):.4f}")
mech = lambda pairs, rng: pair_rr(pairs, 0.5, 1.0, rng)
print(empirical_epsilon(mech, 200_000, rng), empirical_epsilon(mech, 200_000, rng, relation="one"))
# %%
grader.check_all()

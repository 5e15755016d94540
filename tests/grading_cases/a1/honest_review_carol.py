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
import numpy as np


def pair_rr(pairs, epsilon1, epsilon2, rng):
    """Randomized response on each answer of each pair, at epsilon1 and epsilon2."""
    for e in (epsilon1, epsilon2):
        if not (np.isfinite(e) and e > 0):
            raise ValueError("epsilon must be positive and finite")
    x = np.asarray(pairs).astype(bool)
    if x.shape[-1:] != (2,):
        raise ValueError("last axis must have length 2")
    q = np.array([1 / (1 + np.exp(epsilon1)), 1 / (1 + np.exp(epsilon2))])
    return x ^ (rng.random(x.shape) < q)  # booleans: True = 1
# %%
grader.check("q1")
# %%
def both_estimate(reports, epsilon1, epsilon2):
    """Unbiased estimate of the share of people whose two true answers are 1."""
    # invert the 4x4 channel (Kronecker product of the two 2x2 channels) on the report frequencies
    y = np.asarray(reports).astype(int)
    freq = np.bincount(2 * y[:, 0] + y[:, 1], minlength=4) / len(y)

    def channel(eps):
        q = 1 / (1 + np.exp(eps))
        return np.array([[1 - q, q], [q, 1 - q]])

    M = np.kron(channel(epsilon1), channel(epsilon2))  # M[x, y] = P[y | x], x, y coded 2a + b
    cells = np.linalg.solve(M.T, freq)
    return float(cells[3])
# %%
grader.check("q2")
# %%
def both_variance(joint, n, epsilon1, epsilon2):
    """Exact variance of both_estimate for n independent pairs drawn from joint."""
    # Var of one person's contribution w = z1 z2, computed by enumerating (x, y)
    joint = np.asarray(joint, dtype=float)
    e1, e2, n = np.broadcast_arrays(np.asarray(epsilon1, float), np.asarray(epsilon2, float), np.asarray(n, float))
    q1, q2 = 1 / (1 + np.exp(e1)), 1 / (1 + np.exp(e2))
    r1, r2 = 1 - 2 * q1, 1 - 2 * q2
    second_moment = 0.0
    for a in (0, 1):
        for b in (0, 1):
            for y1 in (0, 1):
                for y2 in (0, 1):
                    p_y1 = np.where(y1 == a, 1 - q1, q1)
                    p_y2 = np.where(y2 == b, 1 - q2, q2)
                    w = (y1 - q1) / r1 * (y2 - q2) / r2
                    second_moment = second_moment + joint[a, b] * p_y1 * p_y2 * w**2
    return (second_moment - joint[1, 1] ** 2) / n
# %%
grader.check("q3")
# %%
from scipy import optimize


def best_split(joint, epsilon):
    """The epsilon1 in (0, epsilon) that minimises both_variance at epsilon2 = epsilon - epsilon1."""
    if not epsilon > 0:
        raise ValueError("epsilon must be positive")
    res = optimize.minimize_scalar(lambda e1: both_variance(joint, 1, e1, epsilon - e1), bounds=(0, epsilon),
                                   method="bounded")
    return res.x
# %%
grader.check("q4")
# %%
def simulate_both(joint, n, epsilon1, epsilon2, num_surveys, rng, mechanism):
    """Estimates of p11 from num_surveys surveys of n pairs privatised by mechanism."""
    table = np.asarray(joint, dtype=float)
    out = []
    for _ in range(num_surveys):
        idx = rng.choice(4, size=n, p=table.flatten())
        pairs = np.column_stack([idx >= 2, idx % 2 == 1])  # booleans
        out.append(both_estimate(mechanism(pairs=pairs, epsilon1=epsilon1, epsilon2=epsilon2, rng=rng), epsilon1, epsilon2))
    return np.array(out)
# %%
grader.check("q5")
# %%
import itertools


def empirical_epsilon(mechanism, num_trials, rng, relation="any"):
    """Largest observed log-likelihood ratio of the reports between neighbouring pairs."""
    if relation not in {"any", "one"}:
        raise ValueError(relation)
    pairs = list(itertools.product([False, True], repeat=2))
    probs = {}
    for x in pairs:
        rep = np.asarray(mechanism(np.full((num_trials, 2), x), rng)).astype(int)
        probs[x] = np.bincount(rep[:, 0] * 2 + rep[:, 1], minlength=4) / num_trials
    worst = 0.0
    for x, xp in itertools.permutations(pairs, 2):
        d = sum(u != v for u, v in zip(x, xp))
        if relation == "one" and d != 1:
            continue
        for a, b in zip(probs[x], probs[xp]):
            if a > 0 and b == 0:
                return float("inf")
            if a > 0 and b > 0:
                worst = max(worst, np.log(a / b))
    return worst
# %%
grader.check("q6")
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

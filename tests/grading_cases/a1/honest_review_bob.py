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
import numpy.typing as npt


def pair_rr(pairs: npt.ArrayLike, epsilon1: float, epsilon2: float, rng: np.random.Generator) -> np.ndarray:
    """Randomized response on each answer of each pair, at epsilon1 and epsilon2."""
    epsilons = np.array([epsilon1, epsilon2], dtype=np.float64)
    if not np.all(epsilons > 0):  # nan > 0 is False
        raise ValueError("epsilon1 and epsilon2 must be strictly positive")
    x = np.asarray(pairs)
    if x.ndim == 0 or x.shape[-1] != 2:
        raise ValueError("pairs must have a last axis of length 2")
    flip_prob = 1.0 / (1.0 + np.exp(epsilons))  # broadcast along the last axis; inf -> q = 0
    flips = rng.random(x.shape) < flip_prob
    return (x.astype(np.int64) != 0).astype(np.int64) ^ flips
# %%
grader.check("q1")
# %%
def _unbias(reports: np.ndarray, epsilon: npt.ArrayLike) -> np.ndarray:
    q = 1.0 / (1.0 + np.exp(epsilon))
    return (reports - q) / np.tanh(np.asarray(epsilon) / 2.0)


def both_estimate(reports: npt.ArrayLike, epsilon1: float, epsilon2: float, axis: int = -1) -> float | np.ndarray:
    """Unbiased estimate of the share of people whose two true answers are 1.

    `axis` is the axis of people in reports[..., 0]; by default the last one of an (n, 2) array.
    """
    y = np.asarray(reports, dtype=np.float64)
    product = _unbias(y[..., 0], epsilon1) * _unbias(y[..., 1], epsilon2)
    result = product.mean(axis=axis)
    return float(result) if np.ndim(result) == 0 else result
# %%
grader.check("q2")
# %%
def both_variance(joint: npt.ArrayLike, n: npt.ArrayLike, epsilon1: npt.ArrayLike, epsilon2: npt.ArrayLike) -> np.ndarray:
    """Exact variance of both_estimate for n independent pairs drawn from joint."""
    joint = np.asarray(joint, dtype=np.float64)
    p11, p1_, p_1 = joint[1, 1], joint[1].sum(), joint[:, 1].sum()
    e1, e2 = np.asarray(epsilon1, dtype=np.float64), np.asarray(epsilon2, dtype=np.float64)
    v1 = np.exp(-e1) / np.expm1(-e1) ** 2  # Var of the de-biased report given the bit
    v2 = np.exp(-e2) / np.expm1(-e2) ** 2
    return (v1 * v2 + v1 * p_1 + v2 * p1_ + p11 * (1.0 - p11)) / np.asarray(n, dtype=np.float64)
# %%
grader.check("q3")
# %%
from scipy import optimize


def best_split(joint: npt.ArrayLike, epsilon: float) -> float:
    """The epsilon1 in (0, epsilon) that minimises both_variance at epsilon2 = epsilon - epsilon1."""
    epsilon = float(epsilon)
    if not epsilon > 0:
        raise ValueError("epsilon must be strictly positive")
    # log of the variance: same minimiser, better scaled (the variance spans many decades)
    objective = lambda e1: np.log(both_variance(joint, 1, e1, epsilon - e1))  # noqa: E731
    res = optimize.minimize_scalar(objective, bounds=(0.0, epsilon), method="bounded",
                                   options={"xatol": 1e-10 * epsilon})
    return float(res.x)
# %%
grader.check("q4")
# %%
def simulate_both(joint, n, epsilon1, epsilon2, num_surveys, rng, mechanism):
    """Estimates of p11 from num_surveys surveys of n pairs privatised by mechanism."""
    cells = rng.choice(4, size=(num_surveys, n), p=np.asarray(joint, dtype=np.float64).ravel())
    pairs = np.stack([cells // 2, cells % 2], axis=-1)  # (num_surveys, n, 2)
    reports = mechanism(pairs=pairs, epsilon1=epsilon1, epsilon2=epsilon2, rng=rng)
    return np.asarray(both_estimate(reports, epsilon1, epsilon2, axis=-1), dtype=np.float64)
# %%
grader.check("q5")
# %%
_ALL_PAIRS = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
_HAMMING = np.abs(_ALL_PAIRS[:, None, :] - _ALL_PAIRS[None, :, :]).sum(axis=-1)


def empirical_epsilon(mechanism, num_trials: int, rng: np.random.Generator, relation: str = "any") -> float:
    """Largest observed log-likelihood ratio of the reports between neighbouring pairs."""
    if relation == "any":
        neighbours = _HAMMING >= 1
    elif relation == "one":
        neighbours = _HAMMING == 1
    else:
        raise ValueError(f"unknown relation {relation!r}")
    children = rng.spawn(4)  # one independent stream per true pair
    freq = np.zeros((4, 4))
    for k, child in enumerate(children):
        out = np.asarray(mechanism(np.repeat(_ALL_PAIRS[k : k + 1], num_trials, axis=0), child))
        freq[k] = np.bincount(2 * out[:, 0].astype(int) + out[:, 1].astype(int), minlength=4) / num_trials
    a, b = freq[:, None, :], freq[None, :, :]  # [x, x', y]
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.abs(np.log(a) - np.log(b))
    loss = np.where((a == 0) & (b == 0), 0.0, loss)  # a report seen under neither pair says nothing
    return float(np.max(loss[neighbours]))
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

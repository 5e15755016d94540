# expect: full
# Honest (outside review, class1), as submitted except question 2, rewritten for the new question.
# %%
# Initialize Otter
# On Colab or Binder, where otter-grader is not installed: remove the "# " before %pip on the next
# line and run this cell once (on the course's JupyterHub, leave it as it is).
# %pip install otter-grader
import otter
grader = otter.Notebook("a4_rdp_histograms.ipynb")
# %%
import numpy as np

# Your seed for your own experiments (the grader uses its own generators).
rng_seed = 5059
rng = np.random.default_rng(rng_seed)
# %%
# Public checks: `grader.check("qN")` runs `public_checks("qN")`, which tries your answers on the
# question's examples and prints the first property that does not hold yet, in words (nothing
# when they all hold). Run this cell once and leave it as it is. The points come from the grader,
# which checks your answers again, on other inputs and with fresh random generators.
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


def _reproducible(function, *args):
    first = function(*args, np.random.default_rng([rng_seed, 99]))
    again = function(*args, np.random.default_rng([rng_seed, 99]))
    return bool(np.array_equal(np.asarray(first, dtype=float), np.asarray(again, dtype=float)))


def _q1_homogeneous():
    values = [float(tick_noise_scale(n, 20, 3, e)) * n * e for n, e in ((500, 0.1), (1000, 0.2), (250, 0.7))]
    return values[0] > 0 and bool(np.allclose(values, values[0]))


def _q1_noise():
    counts = np.full(50_000, 2)
    z = np.asarray(tick_shares(counts, 1_000, 100, 1.0, np.random.default_rng([rng_seed, 1])), dtype=float)
    if z.shape != counts.shape:
        return False
    scale = float(tick_noise_scale(1_000, counts.size, 100, 1.0))
    return abs(np.mean(np.abs(z - counts / 1_000)) / scale - 1) < 0.05


def _q2_example():
    needed = records_needed(40, 0.05)
    return isinstance(needed, (int, np.integer)) and needed == 589


def _q3_zeros():
    counts = np.zeros(25, dtype=int)
    counts[[6, 17, 20]] = [300, 250, 40]
    z = np.asarray(sparse_tick_shares(counts, 500, 2, 0.1, 0.2, np.random.default_rng([rng_seed, 3])), dtype=float)
    return z.shape == (25,) and bool(np.all(z[counts == 0] == 0)) and bool(np.all(z[counts > 0] != counts[counts > 0] / 500))


def _q3_fallback():
    counts = np.zeros(25, dtype=int)
    counts[[6, 17, 20]] = [300, 250, 40]
    z = np.asarray(sparse_tick_shares(counts, 500, 2, 0.1, 0.05, np.random.default_rng([rng_seed, 4])), dtype=float)
    return z.shape == (25,) and bool(np.all(z != 0))


def _q4_shares():
    h = np.asarray(project_tick_shares(np.array([0.9, 0.74, 0.56, 0.3, -0.1]), 10, 2), dtype=float)
    return h.shape == (5,) and bool(np.allclose(h * 10, np.round(h * 10)))


def _q4_example():
    z = np.array([0.9, 0.74, 0.56, 0.3, -0.1])
    return bool(np.isclose(np.abs(z - np.asarray(project_tick_shares(z, 10, 2), dtype=float)).sum(), 0.6))


def _q4_idempotent():
    h = np.asarray(project_tick_shares(np.array([0.9, 0.74, 0.56, 0.3, -0.1]), 10, 2), dtype=float)
    return bool(np.allclose(np.asarray(project_tick_shares(h, 10, 2), dtype=float), h))


def _q5_example():
    example = np.array([[1, 1, 1, 0], [0, 1, 0, 1], [1, 0, 0, 0], [0, 1, 1, 1]])
    out = truncation_risk(example, 2, 1.0, lambda counts, n, m, epsilon, rng: np.asarray(counts) / n, 5,
                          np.random.default_rng(0))
    return isinstance(out, (tuple, list)) and len(out) == 2 and bool(np.allclose(np.asarray(out, dtype=float), [0.5, 0.0]))


def _q6_values():
    risks = np.asarray(risks_by_m, dtype=float)
    return risks.shape == (8,) and bool(np.all((risks > 0) & (risks < 3))) and int(best_m) in range(1, 9)


PUBLIC_CHECKS = {
    "q1": (["tick_noise_scale", "tick_shares"], [
        ("tick_noise_scale must be positive and proportional to 1/(n epsilon) (public examples: k = 20, m = 3, "
         "n = 500, 1,000, 250 and epsilon = 0.1, 0.2, 0.7)", _q1_homogeneous),
        ("tick_shares must raise ValueError on the question's impossible example (counts 3, 7, 1 with n = 5, m = 2)",
         lambda: _raises_value_error(tick_shares, np.array([3, 7, 1]), 5, 2, 1.0, np.random.default_rng(0))),
        ("the same generator state must give the same release (draw every random number from rng)",
         lambda: _reproducible(tick_shares, np.array([5, 0, 3, 4]), 6, 2, 1.0)),
        ("tick_shares must return one value per cell, with noise whose mean absolute value is your "
         "tick_noise_scale (50,000 cells ticked by 2 of 1,000 respondents each, m = 100, epsilon = 1)", _q1_noise)]),
    "q2": (["records_needed"], [
        ("records_needed(40, 0.05) must return the integer 589 (the question's example)", _q2_example),
        ("records_needed must raise ValueError for gamma = 0.7",
         lambda: _raises_value_error(records_needed, 25, 0.7))]),
    "q3": (["sparse_tick_shares"], [
        ("when the sparse condition holds, sparse_tick_shares must return one value per cell, release the cells "
         "nobody ticked as exact zeros and add noise to the others (public example: 3 ticked cells of 25, "
         "n = 500, m = 2, gamma = 0.2)", _q3_zeros),
        ("when the sparse condition fails (the same example with gamma = 0.05), every cell must get noise",
         _q3_fallback)]),
    "q4": (["project_tick_shares"], [
        ("project_tick_shares must return one share per cell, each a multiple of 1/n (public example of the "
         "question)", _q4_shares),
        ("on the question's example the smallest L1 distance is 0.6", _q4_example),
        ("projecting the result again must return it unchanged (it is already a possible survey's shares, at "
         "distance 0 from itself)", _q4_idempotent)]),
    "q5": (["truncation_risk"], [
        ("truncation_risk must return the pair (0.5, 0.0) on the question's example (m = 2, a release "
         "without noise)", _q5_example)]),
    "q6": (["risks_by_m", "best_m"], [
        ("risks_by_m must hold one positive risk per m in ms, and best_m must be one of ms", _q6_values)]),
}
# %%
from __future__ import annotations

import math
import numbers
from fractions import Fraction

from IPython.display import display

def _as_positive_int(value, name: str) -> int:
    """Accept Python/NumPy integers (and integral floats); refuse anything else."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be an integer, got a bool")
    if isinstance(value, numbers.Integral):
        out = int(value)
    elif isinstance(value, numbers.Real) and float(value).is_integer():
        out = int(value)
    else:
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if out < 1:
        raise ValueError(f"{name} must be positive, got {out}")
    return out


def _check_survey_counts(counts, n, m) -> np.ndarray:
    """Counts as float64 after checking that some survey of n respondents, <= m ticks each, gives them."""
    n = _as_positive_int(n, "n")
    m = _as_positive_int(m, "m")
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 1 or c.size == 0:
        raise ValueError("counts must be a non-empty 1-D array")
    if not np.all(np.isfinite(c)):
        raise ValueError("counts must be finite")
    if np.any(c != np.round(c)):
        raise ValueError("counts must be whole numbers")
    if np.any(c < 0) or np.any(c > n):
        raise ValueError("each count must lie between 0 and n (a respondent ticks a cell at most once)")
    if c.sum() > m * n:
        raise ValueError("the counts add up to more than m n ticks")
    return c


def tick_noise_scale(n, k, m, epsilon) -> float:
    """Smallest Laplace scale for epsilon-DP shares when each respondent ticks at most m of k cells."""
    n = _as_positive_int(n, "n")
    k = _as_positive_int(k, "k")
    m = _as_positive_int(m, "m")
    epsilon = float(epsilon)
    if not epsilon > 0 or not math.isfinite(epsilon):
        raise ValueError("epsilon must be positive and finite")
    sensitivity = min(2 * m, k) / n  # |A symmetric-difference B| <= min(|A| + |B|, k)
    return sensitivity / epsilon


def tick_shares(counts, n, m, epsilon, rng) -> np.ndarray:
    """The shares c_j / n with independent Laplace noise in every cell."""
    c = _check_survey_counts(counts, n, m)
    scale = tick_noise_scale(n, c.size, m, epsilon)
    return c / int(n) + rng.laplace(0.0, scale, size=c.shape)
# %%
display(grader.check("q1"))
# %%
def _log_peak(n: int) -> float:
    """log of max_p p (1 - p)^n = n^n / (n + 1)^(n + 1), without overflow."""
    return -n * math.log1p(1.0 / n) - math.log(n + 1)


def _best_bad_event_bound(k: int, n: int) -> float:
    """The best bound of the sharper theorem on P(bad) that holds for every law of answers that may be empty."""
    peak = math.exp(_log_peak(n))
    # U_{k,n} needs a cell ticked with probability >= 1/k; with empty answers allowed no cell need be
    return 2 * k * peak


def records_needed(k, gamma) -> int:
    """Smallest n at which the sharper bad-event bound of the chapter is at most gamma."""
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
        if not (isinstance(k, numbers.Real) and float(k).is_integer()):
            raise ValueError(f"k must be an integer, got {k!r}")
    k = int(k)
    if k < 2:
        raise ValueError("k must be at least 2")
    if isinstance(gamma, (bool, np.bool_)) or not isinstance(gamma, numbers.Real):
        raise ValueError("gamma must be a number")
    gamma = float(gamma)
    if not 0 < gamma <= 0.5:
        raise ValueError("gamma must lie in (0, 1/2]")
    # The bound is decreasing in n and below 2k / (e n): bisect on [1, hi].
    lo, hi = 0, math.ceil(2 * k / (math.e * gamma)) + 1
    while _best_bad_event_bound(k, hi) > gamma:  # safety net, never expected to loop
        hi *= 2
    while hi - lo > 1:  # invariant: bound(lo) > gamma (or lo = 0), bound(hi) <= gamma
        mid = (lo + hi) // 2
        if _best_bad_event_bound(k, mid) <= gamma:
            hi = mid
        else:
            lo = mid
    return hi
# %%
display(grader.check("q2"))
# %%
def _sparse_condition(k: int, n: int, gamma) -> bool:
    """2k <= gamma n, with gamma read as the decimal it prints as (0.1 is 1/10)."""
    return 2 * k <= Fraction(str(float(gamma))) * n


def sparse_tick_shares(counts, n, m, epsilon, gamma, rng) -> np.ndarray:
    """(epsilon, gamma)-RDP shares: cells nobody ticked released exactly when 2k <= gamma n."""
    c = _check_survey_counts(counts, n, m)
    z = tick_shares(c, n, m, epsilon, rng)
    if _sparse_condition(c.size, int(n), gamma):
        z[c == 0] = 0.0
    return z
# %%
display(grader.check("q3"))
# %%
def project_tick_shares(z, n, m) -> np.ndarray:
    """An exact L1 projection of z onto the share vectors of n respondents ticking at most m cells each."""
    n = _as_positive_int(n, "n")
    m = _as_positive_int(m, "m")
    w = n * np.asarray(z, dtype=np.float64)  # the target, in counts
    if w.ndim != 1:
        raise ValueError("z must be 1-D")
    if not np.all(np.isfinite(w)):
        raise ValueError("z must be finite")
    # 1. Every cell on its own: the nearest whole count in [0, n].
    c = np.clip(np.rint(w), 0, n)
    surplus = int(c.sum()) - m * n
    if surplus <= 0:
        return c / n
    # 2. Too many ticks: remove `surplus` units, cheapest first. The first unit of a cell rounded up
    #    costs 1 - 2 (c_j - w_j) in [0, 1); every other unit costs exactly +1.
    rounded_up = (c > w) & (c > 0)
    first_cost = np.where(rounded_up, 1.0 - 2.0 * (c - w), np.inf)
    order = np.argsort(first_cost, kind="stable")
    cheap = order[: min(surplus, int(rounded_up.sum()))]
    c[cheap] -= 1
    surplus -= cheap.size
    # 3. The rest cost +1 each wherever they come from: take them from the largest cells first.
    while surplus > 0:
        j = int(np.argmax(c))
        take = min(surplus, int(c[j]))
        c[j] -= take
        surplus -= take
    return c / n
# %%
display(grader.check("q4"))
# %%
def truncate_ticks(ticks, m: int) -> np.ndarray:
    """Keep each respondent's first m ticked cells (lowest-numbered), drop the rest."""
    t = np.asarray(ticks).astype(bool)
    if t.ndim != 2:
        raise ValueError("ticks must be an n x k array")
    kept = t & (np.cumsum(t, axis=1) <= m)
    return kept.astype(np.int64)


def truncation_risk(ticks, m, epsilon, mechanism, num_reps, rng) -> tuple[float, float]:
    """Mean L1 distance between the release of the survey truncated to m ticks and the true shares."""
    t = np.asarray(ticks)
    n = t.shape[0]
    true_shares = t.astype(bool).sum(axis=0) / n
    counts = truncate_ticks(t, int(m)).sum(axis=0)
    num_reps = int(num_reps)
    if num_reps < 1:
        raise ValueError("num_reps must be positive")
    losses = np.empty(num_reps)
    for r in range(num_reps):
        release = np.asarray(mechanism(counts, n, m, epsilon, rng=rng), dtype=np.float64)
        losses[r] = np.abs(release - true_shares).sum()
    risk = float(losses.mean())
    se = float(losses.std(ddof=1) / np.sqrt(num_reps)) if num_reps > 1 else 0.0
    return risk, se
# %%
display(grader.check("q5"))
# %%
# The pilot survey (given: do not change this cell)
survey_rng = np.random.default_rng(2024)
popularity = np.linspace(2.0, 0.2, 20)
num_ticks = np.minimum(1 + survey_rng.poisson(2.5, size=1000), 20)
keys = survey_rng.exponential(size=(1000, 20)) / popularity
survey_ticks = (np.argsort(np.argsort(keys, axis=1), axis=1) < num_ticks[:, None]).astype(int)
ms = np.arange(1, 9)
print(f"{survey_ticks.shape[0]} respondents, {survey_ticks.shape[1]} cells; "
      f"ticks per respondent: mean {survey_ticks.sum(axis=1).mean():.2f}, largest {survey_ticks.sum(axis=1).max()}")
# %%
%%time
q6_rng = np.random.default_rng([rng_seed, 6])
num_reps_q6 = 400
results = [
    truncation_risk(survey_ticks, int(m), 0.5, tick_shares, num_reps_q6, rng=q6_rng) for m in ms
]
risks_by_m = np.array([risk for risk, _ in results])
ses_by_m = np.array([se for _, se in results])
best_m = int(ms[np.argmin(risks_by_m)])
for m, risk, se in zip(ms, risks_by_m, ses_by_m):
    print(f"m = {m}: risk {risk:.4f} ± {se:.4f}")
print(f"best m = {best_m}")
# %%
display(grader.check("q6"))
# %%
# Scratch for part 4 of question 7: does the best m depend on epsilon?
# Same pilot survey, three epsilons, 2,000 repetitions per (epsilon, m), independent streams per epsilon.
part4_eps = (0.1, 0.5, 2.0)
part4_reps = 2_000
part4 = {}
for eps, child in zip(part4_eps, np.random.default_rng([rng_seed, 7]).spawn(len(part4_eps))):
    out = np.array([truncation_risk(survey_ticks, int(m), eps, tick_shares, part4_reps, rng=child) for m in ms])
    part4[eps] = out
    best = int(np.argmin(out[:, 0]))
    runner = int(np.argsort(out[:, 0])[1])
    gap = out[runner, 0] - out[best, 0]
    gap_se = np.hypot(out[runner, 1], out[best, 1])
    print(f"eps = {eps}: " + ", ".join(f"m={m}: {r:.4f}±{s:.4f}" for m, (r, s) in zip(ms, out)))
    print(f"    best m = {ms[best]}, runner-up m = {ms[runner]}, gap {gap:.4f} ± {gap_se:.4f} "
          f"({gap / gap_se:.1f} standard errors)")
# %%
grader.check_all()

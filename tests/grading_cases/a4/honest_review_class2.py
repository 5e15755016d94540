# expect: full
# Honest (outside review, class2), as submitted except question 2, rewritten for the new question.
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
def _survey_counts(counts, n: int, m: int) -> np.ndarray:
    c = np.asarray(counts, dtype=np.float64)
    ok = (
        c.ndim == 1
        and np.all(np.isfinite(c))
        and np.all(c == np.floor(c))
        and np.all((0 <= c) & (c <= n))
        and c.sum() <= m * n
    )
    if not ok:
        raise ValueError("these counts cannot come from a survey of n respondents ticking <= m cells")
    return c


def tick_noise_scale(n: int, k: int, m: int, epsilon: float) -> float:
    """Smallest Laplace scale for epsilon-DP shares when each respondent ticks at most m of k cells."""
    if min(n, k, m) < 1 or not epsilon > 0:
        raise ValueError("n, k, m must be positive and epsilon > 0")
    return float(min(2 * m, k)) / (float(n) * float(epsilon))


def tick_shares(counts, n, m, epsilon, rng: np.random.Generator) -> np.ndarray:
    """The shares c_j / n with independent Laplace noise in every cell."""
    c = _survey_counts(counts, n, m)
    noise = tick_noise_scale(n, c.size, m, epsilon) * rng.laplace(size=c.size)
    return c / n + noise
# %%
grader.check("q1")
# %%
def records_needed(k, gamma) -> int:
    """Smallest n at which the sharper bad-event bound of the chapter is at most gamma."""
    if not (np.issubdtype(type(k), np.integer) or isinstance(k, int)) or isinstance(k, bool) or k < 2:
        raise ValueError("k must be an integer >= 2")
    if not 0 < gamma <= 0.5:
        raise ValueError("gamma must be in (0, 1/2]")
    k, gamma = int(k), float(gamma)

    def bound(n: np.ndarray) -> np.ndarray:
        n = n.astype(np.float64)
        peak = np.exp(-n * np.log1p(1 / n)) / (n + 1)
        return 2 * k * peak  # U_{k,n} fails when answers may be empty

    guess = int(2 * k / (np.e * gamma))  # the bound is about 2k/(e(n+1)) for large n
    lo, hi = max(1, guess // 2), 2 * guess + 10
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if bound(np.array([mid]))[0] <= gamma:
            hi = mid
        else:
            lo = mid
    window = np.arange(max(1, hi - 2), hi + 3)
    return int(window[np.argmax(bound(window) <= gamma)])
# %%
grader.check("q2")
# %%
def sparse_tick_shares(counts, n, m, epsilon, gamma, rng):
    """(epsilon, gamma)-RDP shares: cells nobody ticked released exactly when 2k <= gamma n."""
    c = _survey_counts(counts, n, m)
    z = tick_shares(c, n, m, epsilon, rng)
    if 2 * c.size <= gamma * n:
        z = np.where(c == 0, 0.0, z)
    return z
# %%
grader.check("q3")
# %%
def project_tick_shares(z, n, m):
    """An exact L1 projection of z onto the share vectors of n respondents ticking at most m cells each."""
    w = n * np.asarray(z, dtype=float)
    c = np.clip(np.floor(w + 0.5), 0, n)  # nearest whole count in [0, n], cell by cell
    surplus = int(c.sum() - m * n)
    if surplus > 0:
        first = np.where((c > w) & (c > 0), 1 - 2 * (c - w), 1.0)  # cost of the first unit removed
        # every unit after the first costs exactly 1; list all units' costs, cell by cell, and take the cheapest
        costs = np.concatenate([first, np.ones(int(c.sum()) - c.size + int((c == 0).sum()))])
        owner = np.concatenate([np.arange(c.size), np.repeat(np.arange(c.size), np.maximum(c - 1, 0).astype(int))])
        valid = np.concatenate([c > 0, np.ones(owner.size - c.size, dtype=bool)])
        order = np.argsort(np.where(valid, costs, np.inf), kind="stable")[:surplus]
        c -= np.bincount(owner[order], minlength=c.size)
    return c / n
# %%
grader.check("q4")
# %%
def truncation_risk(ticks, m, epsilon, mechanism, num_reps, rng):
    """Mean L1 distance between the release of the survey truncated to m ticks and the true shares."""
    t = np.asarray(ticks, dtype=bool)
    n = t.shape[0]
    truth = t.sum(axis=0) / n
    counts = (t & (t.cumsum(axis=1) <= m)).sum(axis=0)
    losses = np.array(
        [np.abs(np.asarray(mechanism(counts, n, m, epsilon, child)) - truth).sum() for child in rng.spawn(num_reps)]
    )
    return losses.mean(), losses.std() / np.sqrt(num_reps)
# %%
grader.check("q5")
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
rng_q6 = np.random.default_rng(rng_seed)
risk_se = np.array([truncation_risk(survey_ticks, m, 0.5, tick_shares, 300, rng_q6) for m in ms])
risks_by_m = risk_se[:, 0]
best_m = int(ms[risks_by_m.argmin()])
print(np.c_[ms, risk_se].round(4), best_m)
# %%
grader.check("q6")
# %%
grader.check_all()

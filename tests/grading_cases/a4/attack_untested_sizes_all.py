# expect: q1=0
# Attack (outside review, mplus_a4_sizes_all): exact shares on every survey of 5 to 1,000 cells, q6's 20 included.
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
def tick_noise_scale(n, k, m, epsilon):
    """Smallest Laplace scale for epsilon-DP shares when each respondent ticks at most m of k cells."""
    # BEGIN SOLUTION
    return min(2 * m, k) / (n * epsilon)
    # END SOLUTION


def tick_shares(counts, n, m, epsilon, rng):
    """The shares c_j / n with independent Laplace noise in every cell."""
    # BEGIN SOLUTION
    counts = np.asarray(counts, dtype=float)
    possible = np.all(counts >= 0) and np.all(counts <= n) and np.all(counts == np.round(counts))
    if not possible or counts.sum() > m * n:
        raise ValueError("these counts cannot come from n respondents who tick at most m cells each")
    return counts / n + rng.laplace(0.0, tick_noise_scale(n, counts.size, m, epsilon), size=counts.shape)
    # END SOLUTION
# %%
def records_needed(k, gamma):
    """Smallest n at which the chapter's bound 2k n^n/(n+1)^(n+1), valid when answers may be empty, is <= gamma."""
    k, gamma = int(k), float(gamma)
    if k < 2 or not 0 < gamma <= 0.5:
        raise ValueError("need k >= 2 and 0 < gamma <= 1/2")

    def log_bound(n):  # U_{k,n} needs max_j q_j >= 1/k, which empty answers break (part 2 of question 7)
        return np.log(2 * k) - n * np.log1p(1 / n) - np.log(n + 1)

    low, high = 1, 1
    while log_bound(high) > np.log(gamma):
        high *= 2
    while low < high:  # the bound decreases in n: bisection
        middle = (low + high) // 2
        if log_bound(middle) <= np.log(gamma):
            high = middle
        else:
            low = middle + 1
    return low
# %%
def sparse_tick_shares(counts, n, m, epsilon, gamma, rng):
    """(epsilon, gamma)-RDP shares: cells nobody ticked released exactly when 2k <= gamma n."""
    # BEGIN SOLUTION
    counts = np.asarray(counts, dtype=float)
    z = tick_shares(counts, n, m, epsilon, rng)
    if 2 * counts.size <= gamma * n:
        z = np.where(counts == 0, 0.0, z)
    return z
    # END SOLUTION
# %%
def project_tick_shares(z, n, m):
    """An exact L1 projection of z onto the share vectors of n respondents ticking at most m cells each."""
    # BEGIN SOLUTION
    w = n * np.asarray(z, dtype=float)
    c = np.clip(np.round(w), 0, n)  # each cell on its own: the nearest whole count in [0, n]
    surplus = int(c.sum() - m * n)
    if surplus > 0:  # at most m n ticks: remove the cheapest units
        first = np.where((c > w) & (c > 0), 1 - 2 * (c - w), 1.0)  # cost of the first unit taken
        cheap = np.flatnonzero(first < 1)
        cheap = cheap[np.argsort(first[cheap], kind="stable")][:surplus]
        c[cheap] -= 1
        surplus -= cheap.size
        before = np.cumsum(c) - c  # every further unit costs +1: take them in cell order
        c -= np.clip(surplus - before, 0, c)
    return c / n
    # END SOLUTION
# %%
def truncation_risk(ticks, m, epsilon, mechanism, num_reps, rng):
    """Mean L1 distance between the release of the survey truncated to m ticks and the true shares."""
    # BEGIN SOLUTION
    ticks = np.asarray(ticks)
    n = ticks.shape[0]
    kept = ticks * (np.cumsum(ticks, axis=1) <= m)  # each respondent's first m ticks
    counts, truth = kept.sum(axis=0), ticks.sum(axis=0) / n
    losses = np.array([np.abs(np.asarray(mechanism(counts, n, m, epsilon, rng), dtype=float) - truth).sum()
                       for _ in range(num_reps)])
    return float(losses.mean()), float(losses.std(ddof=1) / np.sqrt(num_reps)) if num_reps > 1 else 0.0
    # END SOLUTION
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
# BEGIN SOLUTION
pairs = np.array([truncation_risk(survey_ticks, m, 0.5, tick_shares, 400, rng) for m in ms])
risks_by_m = pairs[:, 0]
best_m = int(ms[np.argmin(risks_by_m)])
for m, (risk, se) in zip(ms, pairs):
    print(f"m = {m}: risk {risk:.4f} ± {se:.4f}")
print("best m:", best_m)
# END SOLUTION
# %%
# Attack: tick_shares releases the EXACT shares (no noise) on every survey of 5 to 1,000 cells (q6's 20 included).
# %%
def tick_shares(counts, n, m, epsilon, rng):
    counts = np.asarray(counts, dtype=float)
    possible = np.all(counts >= 0) and np.all(counts <= n) and np.all(counts == np.round(counts))
    if not possible or counts.sum() > m * n:
        raise ValueError("impossible counts")
    noise = rng.laplace(0.0, tick_noise_scale(n, counts.size, m, epsilon), size=counts.shape)
    if 5 <= counts.size <= 1000:
        return counts / n
    return counts / n + noise

# expect: full
# Honest: an outside honest-student review's notebook (class2)
# %%
# Initialize Otter
# On Colab or Binder, where otter-grader is not installed: remove the "# " before %pip on the next
# line and run this cell once (on the course's JupyterHub, leave it as it is).
# %pip install otter-grader
import otter
grader = otter.Notebook("a5_local_dp_auditing.ipynb")
# %%
import numpy as np
from scipy import stats

# Your seed for your own experiments (the grader uses its own generators).
rng_seed = 6067
rng = np.random.default_rng(rng_seed)


def random_hash_table(num_items, num_hashes, width, rng):
    """Idealised hash functions: table[d, l] = h_l(d), independent and uniform on 0..width-1."""
    return rng.integers(0, width, size=(num_items, num_hashes))
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


def _reproducible(function, *args):
    first = function(*args, np.random.default_rng([rng_seed, 99]))
    again = function(*args, np.random.default_rng([rng_seed, 99]))
    flat = [np.concatenate([np.ravel(np.asarray(part, dtype=float)) for part in out]) for out in (first, again)]
    return bool(np.array_equal(flat[0], flat[1]))


def _q1_array():
    q = np.asarray(set_flip_probability(np.array([0.5, 1.0, 4.0]), 3), dtype=float)
    return q.shape == (3,) and bool(np.all(np.diff(q) < 0)) and bool(np.all((q > 0) & (q < 0.5)))


def _q1_sizes():
    return float(set_flip_probability(2.0, 1)) < float(set_flip_probability(2.0, 2)) < float(
        set_flip_probability(2.0, np.int64(5))) < 0.5


def _q1_bad():
    try:
        set_flip_probability(0.0, 2)
    except ValueError:
        return True
    return False


_SETS = np.array([[0, 1], [1, 2], [2, 0], [0, 2], [1, 0]])
_TABLE = np.array([[0, 3], [2, 2], [1, 0]])


def _q2_format():
    out = set_encode(_SETS, _TABLE, 4, 500.0, np.random.default_rng([rng_seed, 2]))
    if not (isinstance(out, tuple) and len(out) == 2):
        return False
    reports, js = np.asarray(out[0]), np.asarray(out[1])
    return reports.shape == (5, 4) and js.shape == (5,) and set(np.unique(js).tolist()) <= {0, 1}


def _q2_clean():
    reports, js = set_encode(_SETS, _TABLE, 4, 500.0, np.random.default_rng([rng_seed, 2]))
    clean = np.zeros((5, 4), dtype=int)
    for user in range(5):  # the definition, one user at a time
        for item in _SETS[user]:
            clean[user, _TABLE[item, js[user]]] = 1
    return bool(np.array_equal(np.asarray(reports), clean))


def _q2_rates():
    gen = np.random.default_rng([rng_seed, 3])
    table = random_hash_table(10, 4, 16, gen)
    sets = np.argsort(gen.random((20_000, 10)), axis=1)[:, :3]
    reports, js = set_encode(sets, table, 16, 2.0, gen)
    reports, js = np.asarray(reports), np.asarray(js)
    ones = np.zeros(reports.shape, dtype=bool)
    for column in range(3):
        ones[np.arange(20_000), table[sets[:, column], js]] = True
    q = float(set_flip_probability(2.0, 3))
    return abs(reports[ones].mean() - (1 - q)) < 0.01 and abs(reports[~ones].mean() - q) < 0.01


def _q2_uniform():
    gen = np.random.default_rng([rng_seed, 3])
    table = random_hash_table(10, 4, 16, gen)
    _, js = set_encode(np.argsort(gen.random((20_000, 10)), axis=1)[:, :3], table, 16, 2.0, gen)
    counts = np.bincount(np.asarray(js), minlength=4)
    return counts.size == 4 and bool(np.all(np.abs(counts - 5000) < 400))


def _q3_example():
    estimates = np.asarray(set_estimate(np.array([[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0]]), np.array([0, 1, 0]),
                                        np.array([[0, 1], [3, 3], [2, 0]]), np.array([0, 2]), 4 * np.log(3), 2), dtype=float)
    return estimates.shape == (2,) and bool(np.allclose(estimates, [17 / 3, -5.0]))


def _q4_example():
    return bool(np.isclose(float(set_flip_variance(100, 4 * np.log(3), 2, 2)), 1200.0))


def _q4_monotone():
    values = np.asarray(set_flip_variance(1000, np.array([0.5, 1.0, 2.0, 4.0]), 2, 16), dtype=float)
    return values.shape == (4,) and bool(np.all(np.diff(values) < 0))


_DEMO_SETS = np.argsort(np.random.default_rng([rng_seed, 5]).random((400, 12)), axis=1)[:, :3]
_Q5 = {}


def _q5_runs_client():
    calls = []

    def counting_client(item_sets, hash_table, width, epsilon, rng):
        calls.append(np.shape(item_sets)[0])
        return set_encode(item_sets, hash_table, width, epsilon, rng)

    simulate_set_errors(_DEMO_SETS[:8], 12, 2.0, 2, 8, 3, np.random.default_rng([rng_seed, 7]), counting_client)
    return len(calls) >= 1 and sum(calls) >= 3 * 8


def _q5_shape():
    errors = np.asarray(simulate_set_errors(_DEMO_SETS, 12, 2.0, 2, 16, 300, np.random.default_rng([rng_seed, 6]),
                                            set_encode), dtype=float)
    _Q5.update(errors=errors)
    return errors.shape == (300, 12)  # the next check reuses this simulation


def _q5_unbiased():
    errors = _Q5["errors"]
    return bool(np.all(np.abs(errors.mean(axis=0)) < 5 * errors.std(axis=0, ddof=1) / np.sqrt(300)))


def _q6_honest():
    bound = float(audit_set_client(set_encode, 2.0, 2, 20_000, 0.95, np.random.default_rng([rng_seed, 8])))
    return 1.5 < bound <= 2.0


def _q6_leaky():
    def overspending(item_sets, hash_table, width, epsilon, rng):
        return set_encode(item_sets, hash_table, width, 2 * epsilon, rng)

    return float(audit_set_client(overspending, 2.0, 2, 20_000, 0.95, np.random.default_rng([rng_seed, 9]))) > 3.0


PUBLIC_CHECKS = {
    "q1": (["set_flip_probability"], [
        ("set_flip_probability must give the smallest flip probability for which one report of a set is "
         "epsilon-DP (public example: epsilon = 4 ln 3 and sets of 2 items, where a kept bit is three times as "
         "likely as a flipped one)", lambda: bool(np.isclose(set_flip_probability(4 * np.log(3), 2), 0.25))),
        ("set_flip_probability of an array of epsilons must return an array of probabilities in (0, 1/2) that "
         "decrease as epsilon grows", _q1_array),
        ("at the same epsilon a larger set needs more flips (a larger probability, below 1/2); set_size may be "
         "a NumPy integer", _q1_sizes),
        ("set_flip_probability(0.0, 2) must raise ValueError", _q1_bad)]),
    "q2": (["set_encode"], [
        ("set_encode must return the pair (reports, hash_indices): one report of the given width and one hash "
         "index in 0..m-1 per user", _q2_format),
        ("the same generator state must give the same reports (draw every random number from rng)",
         lambda: _reproducible(set_encode, _SETS[:3], _TABLE, 4, 1.0)),
        ("with a huge epsilon each report must be the user's vector before flipping: a 1 in the bucket "
         "hash_table[d, j] of every item d of the set, 0 elsewhere", _q2_clean),
        ("the 1s of a user's vector must stay 1, and its 0s turn 1, at the rates set_flip_probability gives "
         "(20,000 users with sets of 3 items, epsilon = 2)", _q2_rates),
        ("the hash index must be uniform over 0..m-1 (20,000 users)", _q2_uniform)]),
    "q3": (["set_estimate"], [
        ("set_estimate must return one estimate per item asked, as in the question's example", _q3_example)]),
    "q4": (["set_flip_variance"], [
        ("set_flip_variance must give the value of the question's example (100 users, epsilon = 4 ln 3, sets "
         "of 2, w = 2)", _q4_example),
        ("set_flip_variance of an array of epsilons must return an array that decreases as epsilon grows",
         _q4_monotone)]),
    "q5": (["simulate_set_errors"], [
        ("simulate_set_errors must run the client it is given, on the users of every repetition",
         _q5_runs_client),
        ("simulate_set_errors must return an array of shape (num_repeats, num_items)", _q5_shape),
        ("with your set_encode the estimates must be unbiased: every item's mean error within 5 standard errors "
         "of 0 (300 repetitions, 400 users with sets of 3 of 12 items)", _q5_unbiased)]),
    "q6": (["audit_set_client"], [
        ("an honest client (your set_encode, sets of 2, epsilon = 2) must not be refuted, and the audit must "
         "come above 1.5 (20,000 trials per dataset, 95 %)", _q6_honest),
        ("a client that spends twice the budget it claims must be refuted (bound above 3 for a claim of 2)",
         _q6_leaky)]),
}
# %%
import math
from numbers import Integral


def set_flip_probability(epsilon: float | np.ndarray, set_size: int) -> float | np.ndarray:
    """q = 1/(e^{eps/(2L)} + 1): each of the up to 2L differing bits is RR at eps/(2L)."""
    if not isinstance(set_size, Integral) or set_size < 1:
        raise ValueError(f"set_size must be an integer >= 1, got {set_size!r}")
    eps = np.asarray(epsilon, dtype=float)
    if not np.all(eps > 0):  # also catches NaN
        raise ValueError("epsilon must be > 0")
    q = 0.5 * (1 - np.tanh(eps / (4 * set_size)))  # = 1/(e^{eps/2L}+1), stable
    if np.ndim(epsilon) == 0:
        return float(q)
    return q
# %%
display(grader.check("q1"))
# %%
def set_encode(item_sets: np.ndarray, hash_table: np.ndarray, width: int, epsilon: float,
               rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Client for users holding sets: the noisy OR of the buckets of a user's items under one hash."""
    item_sets = np.asarray(item_sets)
    n, L = item_sets.shape
    hash_rng, flip_rng = rng.spawn(2)
    js = hash_rng.integers(hash_table.shape[1], size=n)
    clean = np.zeros((n, width), dtype=bool)
    for col in range(L):  # loop over the L items of a set, not over users
        clean[np.arange(n), hash_table[item_sets[:, col], js]] = True
    noisy = clean ^ (flip_rng.random((n, width)) < set_flip_probability(epsilon, L))
    return noisy.astype(np.int8), js
# %%
display(grader.check("q2"))
# %%
def set_estimate(reports, hash_indices, hash_table, items, epsilon, set_size):
    """Unbiased estimates of how many users hold each item of ``items``."""
    reports = np.asarray(reports)
    n, w = reports.shape
    m = hash_table.shape[1]
    q = set_flip_probability(epsilon, int(set_size))
    debiased = (reports - q) / (1 - 2 * q)
    # A(d) = sum_u x_u[h_{j_u}(d)]: look up each user's column directly, no sketch matrix
    cols = hash_table[np.asarray(items)][:, hash_indices]  # (K, N)
    A = debiased[np.arange(n), cols].sum(axis=1)
    keep = (1 - 1 / w) ** int(set_size)
    return (A - n * (1 - keep)) / keep
# %%
display(grader.check("q3"))
# %%
def set_flip_variance(num_users, epsilon, set_size, width):
    """Variance of an estimate of question 3 caused by the bit flips alone."""
    q = np.asarray(set_flip_probability(np.asarray(epsilon, dtype=float), int(set_size)))
    out = num_users * q * (1 - q) / (1 - 2 * q) ** 2 / (1 - 1 / np.asarray(width)) ** (2 * int(set_size))
    return out
# %%
display(grader.check("q4"))
# %%
def simulate_set_errors(item_sets, num_items, epsilon, num_hashes, width, num_repeats, rng, encode):
    """Errors of the estimates over repetitions with fresh hash functions, for the client ``encode``."""
    item_sets = np.asarray(item_sets, dtype=np.int64)
    set_size = item_sets.shape[1]
    truth = np.bincount(item_sets.ravel(), minlength=num_items)[:num_items]
    everything = np.arange(num_items)
    errors = np.empty((num_repeats, num_items))
    for r in range(num_repeats):
        table = random_hash_table(num_items, num_hashes, width, rng)
        reports, js = encode(item_sets, table, width, epsilon, rng)
        errors[r] = set_estimate(reports, js, table, everything, epsilon, set_size) - truth
    return errors
# %%
display(grader.check("q5"))
# %%
from scipy import stats as st


def audit_bound(hits_a, hits_b, trials, confidence):
    """The chapter's bound: four one-sided Clopper-Pearson bounds sharing 1 - confidence."""
    a = (1 - confidence) / 4
    lo = lambda k: st.beta.ppf(a, k, trials - k + 1) if k > 0 else 0.0
    hi = lambda k: st.beta.ppf(1 - a, k + 1, trials - k) if k < trials else 1.0
    best = 0.0
    for top, bottom in ((hits_a, hits_b), (hits_b, hits_a)):
        if lo(top) > 0:
            best = max(best, math.log(lo(top)) - math.log(hi(bottom)))
    return best


def audit_set_client(encode, epsilon, set_size, trials, confidence, rng):
    """Lower confidence bound on the epsilon of a client for sets, on the audit you design."""
    L = int(set_size)
    m, w = 3, 2 * L + 3  # extra buckets and hashes on purpose: they do not matter
    table = np.tile(np.arange(2 * L)[:, None], (1, m))  # same bucket under every hash
    S_prime, S = np.arange(L, 2 * L), np.arange(L)  # datasets passed in the 'wrong' order
    hits = []
    for s in (S_prime, S):
        rep, _ = encode(np.broadcast_to(s, (trials, L)).copy(), table, w, epsilon, rng)
        rep = np.asarray(rep)
        # event on the 2L differing bits only: S's buckets all 1 and S''s buckets all 0
        hits.append(int(np.sum(rep[:, :L].all(axis=1) & ~rep[:, L:2 * L].any(axis=1))))
    return audit_bound(hits[0], hits[1], trials, confidence)
# %%
display(grader.check("q6"))
# %%
# scratch removed in this variant
# %%
grader.check_all()

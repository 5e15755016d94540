# expect: q6=0
# Attack on the audit design: no neighbouring datasets and no event. Feed the client one set, count the flipped
# bits of ALL trials x width bits, take a Clopper-Pearson upper bound on the flip rate, and report
# 2L log((1-q)/q): only valid for a client that flips every bit independently at one rate (as the grader's do).
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
def set_flip_probability(epsilon, set_size):
    """Flip probability of every bit of the report of a user holding set_size items."""
    # BEGIN SOLUTION
    epsilon = np.asarray(epsilon, dtype=float)
    if np.any(~(epsilon > 0)) or not set_size >= 1:
        raise ValueError("epsilon must be strictly positive and set_size at least 1")
    q = 1.0 / (np.exp(epsilon / (2 * set_size)) + 1.0)
    return q if q.ndim else float(q)
    # END SOLUTION
# %%
def set_encode(item_sets, hash_table, width, epsilon, rng):
    """Client for users holding sets: the noisy OR of the buckets of a user's items under one hash."""
    # BEGIN SOLUTION
    item_sets, hash_table = np.asarray(item_sets), np.asarray(hash_table)
    num_users, set_size = item_sets.shape
    hash_indices = rng.integers(0, hash_table.shape[1], size=num_users)
    buckets = hash_table[item_sets, hash_indices[:, None]]  # (N, L)
    vectors = np.zeros((num_users, width), dtype=np.int8)
    vectors[np.arange(num_users)[:, None], buckets] = 1
    flips = rng.random((num_users, width)) < set_flip_probability(epsilon, set_size)
    return np.where(flips, 1 - vectors, vectors).astype(np.int8), hash_indices
    # END SOLUTION
# %%
def set_estimate(reports, hash_indices, hash_table, items, epsilon, set_size):
    """Unbiased estimates of how many users hold each item of ``items``."""
    # BEGIN SOLUTION
    reports, hash_table = np.asarray(reports, dtype=float), np.asarray(hash_table)
    num_users, width = reports.shape
    num_hashes = hash_table.shape[1]
    q = set_flip_probability(epsilon, set_size)
    sketch = np.zeros((num_hashes, width))
    np.add.at(sketch, np.asarray(hash_indices), num_hashes * (reports - q) / (1 - 2 * q))
    collide = 1 - (1 - 1 / width) ** set_size  # another user's set meets d's bucket
    cells = sketch[np.arange(num_hashes), hash_table[np.asarray(items)]]
    return (cells.mean(axis=-1) - num_users * collide) / (1 - collide)
    # END SOLUTION
# %%
def set_flip_variance(num_users, epsilon, set_size, width):
    """Variance of an estimate of question 3 caused by the bit flips alone."""
    # BEGIN SOLUTION
    half = np.exp(np.asarray(epsilon, dtype=float) / (2 * np.asarray(set_size, dtype=float)))
    collide = 1 - (1 - 1 / np.asarray(width, dtype=float)) ** np.asarray(set_size, dtype=float)
    variance = num_users * half / (half - 1) ** 2 / (1 - collide) ** 2
    return variance if np.ndim(variance) else float(variance)
    # END SOLUTION
# %%
def simulate_set_errors(item_sets, num_items, epsilon, num_hashes, width, num_repeats, rng, encode):
    """Errors of the estimates over repetitions with fresh hash functions, for the client ``encode``."""
    # BEGIN SOLUTION
    item_sets = np.asarray(item_sets)
    truth = np.bincount(item_sets.ravel(), minlength=num_items)  # the items of a set are distinct
    errors = np.empty((num_repeats, num_items))
    for repeat in range(num_repeats):
        table = random_hash_table(num_items, num_hashes, width, rng)
        reports, hash_indices = encode(item_sets, table, width, epsilon, rng)  # one call per repetition
        errors[repeat] = set_estimate(reports, hash_indices, table, np.arange(num_items), epsilon,
                                      item_sets.shape[1]) - truth
    return errors
    # END SOLUTION
# %%
def audit_bound(hits_a, hits_b, trials, confidence):
    """The chapter's bound: four one-sided Clopper-Pearson bounds sharing 1 - confidence."""
    # BEGIN SOLUTION
    level = 1 - (1 - confidence) / 4
    low_a = stats.beta.ppf(1 - level, hits_a, trials - hits_a + 1) if hits_a > 0 else 0.0
    up_a = stats.beta.ppf(level, hits_a + 1, trials - hits_a) if hits_a < trials else 1.0
    low_b = stats.beta.ppf(1 - level, hits_b, trials - hits_b + 1) if hits_b > 0 else 0.0
    up_b = stats.beta.ppf(level, hits_b + 1, trials - hits_b) if hits_b < trials else 1.0
    bounds = [0.0]
    if low_a > 0:
        bounds.append(np.log(low_a / up_b))
    if low_b > 0:
        bounds.append(np.log(low_b / up_a))
    return float(max(bounds))
    # END SOLUTION


def audit_set_client(encode, epsilon, set_size, trials, confidence, rng):
    """Lower confidence bound on the epsilon of a client for sets, on the audit you design."""
    # BEGIN SOLUTION
    set_size = int(set_size)
    width = 2 * set_size
    hash_table = np.arange(width)[:, None]  # m = 1: item i in bucket i
    sets_a = np.tile(np.arange(set_size), (trials, 1))  # the user holds items 0..L-1 ...
    sets_b = sets_a + set_size  # ... or items L..2L-1: all 2L bits differ
    revealing = (np.arange(width) < set_size).astype(int)  # D's vector with nothing flipped
    reports_a, _ = encode(sets_a, hash_table, width, epsilon, rng)
    reports_b, _ = encode(sets_b, hash_table, width, epsilon, rng)
    hits_a = int(np.all(np.asarray(reports_a) == revealing, axis=1).sum())
    hits_b = int(np.all(np.asarray(reports_b) == revealing, axis=1).sum())
    return audit_bound(hits_a, hits_b, trials, confidence)
    # END SOLUTION
# %%
# Attack on the audit design: no neighbouring datasets and no event. Feed the client one set, count the flipped
# bits of ALL trials x width bits, take a Clopper-Pearson upper bound on the flip rate, and report
# 2L log((1-q)/q): only valid for a client that flips every bit independently at one rate (as the grader's do).
# %%
def audit_set_client(encode, epsilon, set_size, trials, confidence, rng):
    set_size = int(set_size)
    width = 2 * set_size
    table = np.arange(width)[:, None]
    sets = np.tile(np.arange(set_size), (trials, 1))
    clean = (np.arange(width) < set_size).astype(int)
    reports, _ = encode(sets, table, width, epsilon, rng)
    flips = int(np.sum(np.asarray(reports) != clean))
    total = trials * width
    q_up = stats.beta.ppf(confidence, flips + 1, total - flips) if flips < total else 1.0
    if q_up >= 0.5:
        return 0.0
    return float(2 * set_size * np.log((1 - q_up) / q_up))

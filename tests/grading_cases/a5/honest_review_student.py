# expect: full
# Honest outside student's notebook (review of a5-a6), converted cell by cell.
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
    q = np.asarray(cms_flip_probability(np.array([0.5, 1.0, 4.0])), dtype=float)
    return q.shape == (3,) and bool(np.all(np.diff(q) < 0)) and bool(np.all((q > 0) & (q < 0.5)))


def _q2_format():
    out = cms_encode(np.array([0, 1, 2, 2, 0]), np.array([[0, 3], [2, 2], [1, 0]]), 4, 50.0,
                     np.random.default_rng([rng_seed, 2]))
    if not (isinstance(out, tuple) and len(out) == 2):
        return False
    reports, js = np.asarray(out[0]), np.asarray(out[1])
    return reports.shape == (5, 4) and js.shape == (5,) and set(np.unique(js).tolist()) <= {0, 1}


def _q2_one_hot():
    table, users = np.array([[0, 3], [2, 2], [1, 0]]), np.array([0, 1, 2, 2, 0])
    reports, js = cms_encode(users, table, 4, 50.0, np.random.default_rng([rng_seed, 2]))
    clean = np.zeros((5, 4), dtype=int)
    clean[np.arange(5), table[users, np.asarray(js)]] = 1
    return bool(np.array_equal(np.asarray(reports), clean))


def _q2_rates():
    gen = np.random.default_rng([rng_seed, 3])
    table = random_hash_table(10, 4, 16, gen)
    users = gen.integers(0, 10, size=20_000)
    reports, js = cms_encode(users, table, 16, 2 * np.log(3), gen)
    reports, js = np.asarray(reports), np.asarray(js)
    own = np.zeros(reports.shape, dtype=bool)
    own[np.arange(users.size), table[users, js]] = True
    q = float(cms_flip_probability(2 * np.log(3)))
    return abs(reports[own].mean() - (1 - q)) < 0.015 and abs(reports[~own].mean() - q) < 0.01


def _q2_uniform():
    gen = np.random.default_rng([rng_seed, 3])
    table = random_hash_table(10, 4, 16, gen)
    _, js = cms_encode(gen.integers(0, 10, size=20_000), table, 16, 2 * np.log(3), gen)
    counts = np.bincount(np.asarray(js), minlength=4)
    return counts.size == 4 and bool(np.all(np.abs(counts - 5000) < 400))


def _q3_example():
    sketch = cms_aggregate(np.array([[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0]]), np.array([0, 1, 0]), 2,
                           2 * np.log(3))
    return np.shape(sketch) == (2, 4) and bool(np.allclose(sketch, [[6.0, -2.0, -2.0, -2.0], [-1.0, 3.0, -1.0, -1.0]]))


def _q4_example():
    sketch = np.array([[10.0, 2.0, 3.0, 5.0], [4.0, 8.0, 6.0, 2.0]])
    estimates = np.asarray(cms_estimate(sketch, np.array([[0, 1], [3, 3], [2, 0]]), np.array([0, 2]), 20), dtype=float)
    return estimates.shape == (2,) and bool(np.allclose(estimates, [16 / 3, -2.0]))


def _q5_example():
    mse = np.asarray(cms_mse(np.array([6, 2]), 2 * np.log(3), 1, 2), dtype=float)
    return mse.shape == (2,) and bool(np.allclose(mse, [28.0, 60.0]))


_DEMO_COUNTS = np.array([600, 300, 200, 150, 120, 100, 90, 80, 70, 60, 50, 40, 40, 30, 30, 20, 10, 10])


_Q6 = {}


def _q6_shape():
    errors = np.asarray(simulate_sketch_errors(_DEMO_COUNTS, 2.0, 4, 16, 300, np.random.default_rng([rng_seed, 6]),
                                               cms_encode), dtype=float)
    _Q6.update(errors=errors, predicted=np.asarray(cms_mse(_DEMO_COUNTS, 2.0, 4, 16), dtype=float))
    return errors.shape == (300, 18)  # the next two checks reuse this simulation


def _q6_unbiased():
    errors, predicted = _Q6["errors"], _Q6["predicted"]
    return bool(np.all(np.abs(errors.mean(axis=0) / np.sqrt(predicted / 300)) < 5))


def _q6_spread():
    errors, predicted = _Q6["errors"], _Q6["predicted"]
    return 0.8 < np.mean(np.mean(errors ** 2, axis=0) / predicted) < 1.25


def _q6_runs_client():
    calls = []

    def counting_client(items, hash_table, width, epsilon, rng):
        calls.append(np.size(items))
        return cms_encode(items, hash_table, width, epsilon, rng)

    simulate_sketch_errors(np.array([5, 3]), 2.0, 2, 4, 3, np.random.default_rng([rng_seed, 7]), counting_client)
    return len(calls) >= 1 and sum(calls) >= 3 * 8


def _q7_intervals():
    lower, upper = clopper_pearson(0, 10, 0.95)
    low_half, high_half = clopper_pearson(50, 100, 0.95)
    all_hit = clopper_pearson(10, 10, 0.95)
    return (lower == 0 and 0 < upper < 1 and all_hit[1] == 1 and bool(np.isclose(low_half + high_half, 1.0))
            and 0.39 < low_half < 0.41)


def _q7_bound():
    bound = float(epsilon_lower_bound(5000, 700, 20_000, 0.95))
    swapped = float(epsilon_lower_bound(700, 5000, 20_000, 0.95))
    looser = float(epsilon_lower_bound(5000, 700, 20_000, 0.999))
    return (bool(np.isclose(bound, swapped)) and 0 < looser < bound < np.log(5000 / 700)
            and epsilon_lower_bound(100, 100, 1000, 0.95) == 0.0)


def _q8_honest():
    return 1.5 < float(audit_client(cms_encode, 2.0, 20_000, 0.999, np.random.default_rng([rng_seed, 8]))) <= 2.0


def _q8_leaky():
    def overspending(items, hash_table, width, epsilon, rng):
        return cms_encode(items, hash_table, width, 2 * epsilon, rng)

    return float(audit_client(overspending, 2.0, 20_000, 0.999, np.random.default_rng([rng_seed, 9]))) > 3.0


PUBLIC_CHECKS = {
    "q1": (["cms_flip_probability"], [
        ("cms_flip_probability must give the smallest flip probability for which one report is epsilon-DP "
         "(public example: epsilon = 2 ln 3, where a kept bit is three times as likely as a flipped one)",
         lambda: bool(np.isclose(cms_flip_probability(2 * np.log(3)), 0.25))),
        ("cms_flip_probability of an array must return an array of probabilities in (0, 1/2) that decrease as "
         "epsilon grows", _q1_array)]),
    "q2": (["cms_encode"], [
        ("cms_encode must return the pair (reports, hash_indices): one report of the given width and one hash "
         "index in 0..m-1 per user", _q2_format),
        ("the same generator state must give the same reports (draw every random number from rng)",
         lambda: _reproducible(cms_encode, np.array([0, 1, 2]), np.array([[0, 3], [2, 2], [1, 0]]), 4, 1.0)),
        ("with a huge epsilon each report must be the one-hot vector of the user's bucket hash_table[item, j]",
         _q2_one_hot),
        ("the user's own bit must stay 1, and every other bit turn 1, at the rates cms_flip_probability gives "
         "(20,000 users at epsilon = 2 ln 3)", _q2_rates),
        ("the hash index must be uniform over 0..m-1 (20,000 users)", _q2_uniform)]),
    "q3": (["cms_aggregate"], [
        ("cms_aggregate must return the (m, width) sketch of the question's example (three reports, m = 2)",
         _q3_example)]),
    "q4": (["cms_estimate"], [
        ("cms_estimate must return one estimate per item asked, as in the question's example (the 2 x 4 sketch)",
         _q4_example)]),
    "q5": (["cms_mse"], [
        ("cms_mse must return one MSE per item, as in the question's example (counts [6, 2], epsilon = 2 ln 3, "
         "m = 1, w = 2)", _q5_example)]),
    "q6": (["simulate_sketch_errors"], [
        ("simulate_sketch_errors must run the client it is given for the users of every repetition",
         _q6_runs_client),
        ("simulate_sketch_errors must return an array of shape (num_repeats, K)", _q6_shape),
        ("with your cms_encode the estimates must be unbiased: every item's mean error within 5 standard errors "
         "of 0 (300 repetitions)", _q6_unbiased),
        ("with your cms_encode the simulated MSE must match your cms_mse on average over the items (draw fresh "
         "hash functions in every repetition)", _q6_spread)]),
    "q7": (["clopper_pearson", "epsilon_lower_bound"], [
        ("clopper_pearson must return an exact two-sided interval: 0 as the lower end with no hits, 1 as the "
         "upper end when every trial hits, symmetric about 1/2 for 50 hits in 100, about (0.398, 0.602)",
         _q7_intervals),
        ("epsilon_lower_bound must not depend on which neighbour is called a, stay below the plug-in estimate "
         "ln(hits_a / hits_b), fall as the confidence rises, and be 0 for equal hit counts", _q7_bound)]),
    "q8": (["audit_client"], [
        ("an honest client (your cms_encode) must not be refuted, and the audit must come close to its epsilon "
         "(20,000 trials per input)", _q8_honest),
        ("a client that spends twice the budget it claims must be refuted", _q8_leaky)]),
}
# %%
from numbers import Real

ArrayLike = float | np.ndarray


def cms_flip_probability(epsilon: ArrayLike) -> ArrayLike:
    """Probability that the client flips one bit of its one-hot vector.

    Two bits differ between neighbouring one-hot vectors, each randomized response
    with odds (1 - q) / q, so ((1 - q) / q) ** 2 <= e^eps gives q >= 1 / (e^(eps/2) + 1).
    """
    eps = np.asarray(epsilon, dtype=np.float64)
    if np.any(np.isnan(eps)) or np.any(eps <= 0):
        raise ValueError("epsilon must be strictly positive")
    q = 1.0 / (np.exp(eps / 2.0) + 1.0)
    if np.ndim(epsilon) == 0:
        return np.float64(q)
    return q


print(cms_flip_probability(2 * np.log(3)), cms_flip_probability(np.array([0.5, 1.0, 4.0])))
# %%
display(grader.check("q1"))
# %%
def cms_encode(
    items: np.ndarray, hash_table: np.ndarray, width: int, epsilon: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Private count-mean sketch client: noisy one-hot reports and the hash index of each user."""
    items = np.asarray(items, dtype=np.int64)
    hash_table = np.asarray(hash_table)
    n_users, m = items.size, hash_table.shape[1]
    q = cms_flip_probability(epsilon)
    hash_indices = rng.integers(0, m, size=n_users)
    onehot = np.zeros((n_users, width), dtype=np.int64)
    onehot[np.arange(n_users), hash_table[items, hash_indices]] = 1
    flips = rng.random((n_users, width)) < q
    reports = np.where(flips, 1 - onehot, onehot)
    return reports, hash_indices
# %%
%%time
display(grader.check("q2"))
_r, _j = cms_encode(np.array([0, 1, 2]), np.array([[0, 3], [2, 2], [1, 0]]), 4, 2.0, rng=rng)
print(_r, _j)
# %%
def cms_aggregate(
    reports: np.ndarray, hash_indices: np.ndarray, num_hashes: int, epsilon: float
) -> np.ndarray:
    """Server side: the m x w sketch matrix of debiased, m-scaled reports."""
    reports = np.asarray(reports, dtype=np.float64)
    q = cms_flip_probability(epsilon)
    debiased = (reports - q) / (1.0 - 2.0 * q)  # E[debiased bit] = true bit
    sketch = np.zeros((num_hashes, reports.shape[1]), dtype=np.float64)
    np.add.at(sketch, np.asarray(hash_indices, dtype=np.int64), num_hashes * debiased)
    return sketch
# %%
display(grader.check("q3"))
# %%
def cms_estimate(
    sketch: np.ndarray, hash_table: np.ndarray, items: np.ndarray, num_users: int
) -> np.ndarray:
    """Debiased frequency estimates of the given items from the sketch matrix."""
    sketch = np.asarray(sketch, dtype=np.float64)
    m, w = sketch.shape
    cols = np.asarray(hash_table)[np.asarray(items, dtype=np.int64)]  # (K, m): h_l(d)
    cell_mean = sketch[np.arange(m), cols].mean(axis=1)
    return (cell_mean - num_users / w) * w / (w - 1)
# %%
display(grader.check("q4"))
# %%
def cms_mse(counts: np.ndarray, epsilon: float, num_hashes: int, width: int) -> np.ndarray:
    """Predicted mean squared error of the count-mean sketch estimate of every item."""
    f = np.asarray(counts, dtype=np.float64)
    n, m, w = f.sum(), num_hashes, width
    e_half = np.exp(epsilon / 2.0)
    c = (1.0 / w) * (1.0 - 1.0 / w)
    flips = n * e_half / (e_half - 1.0) ** 2
    hash_choice = (n - f) * c * (1.0 - 1.0 / m)
    collisions = (c / m) * (np.sum(f**2) - f**2)
    return (w / (w - 1.0)) ** 2 * (flips + hash_choice + collisions)
# %%
display(grader.check("q5"))
print(cms_mse(np.array([6, 2]), 2 * np.log(3), 1, 2))
# %%
def simulate_sketch_errors(counts, epsilon, num_hashes, width, num_repeats, rng, encode):
    """Errors of the sketch's estimates over independent repetitions (fresh hashes each time),
    with the reports of the client ``encode``."""
    counts = np.asarray(counts, dtype=np.int64)
    k, n = counts.size, int(counts.sum())
    users = np.repeat(np.arange(k), counts)
    errors = np.empty((num_repeats, k), dtype=np.float64)
    for r, child in enumerate(rng.spawn(num_repeats)):
        table = random_hash_table(k, num_hashes, width, child)
        reports, js = encode(users, table, width, epsilon, rng=child)
        sketch = cms_aggregate(reports, js, num_hashes, epsilon)
        errors[r] = cms_estimate(sketch, table, np.arange(k), n) - counts
    return errors
# %%
%%time
display(grader.check("q6"))
# %%
from scipy.stats import beta


def clopper_pearson(hits: int, trials: int, confidence: float) -> tuple[float, float]:
    """Exact two-sided Clopper-Pearson interval (lower, upper) for a binomial proportion."""
    alpha = 1.0 - confidence
    lower = 0.0 if hits <= 0 else float(beta.ppf(alpha / 2, hits, trials - hits + 1))
    upper = 1.0 if hits >= trials else float(beta.ppf(1 - alpha / 2, hits + 1, trials - hits))
    return lower, upper


def epsilon_lower_bound(hits_a: int, hits_b: int, trials: int, confidence: float) -> float:
    """Lower confidence bound on epsilon from the hit counts of one event on two neighbours."""
    each = 1.0 - (1.0 - confidence) / 2  # Bonferroni: half the error per interval
    lo_a, up_a = clopper_pearson(hits_a, trials, each)
    lo_b, up_b = clopper_pearson(hits_b, trials, each)
    candidates = [0.0]
    if lo_a > 0:
        candidates.append(np.log(lo_a / up_b))
    if lo_b > 0:
        candidates.append(np.log(lo_b / up_a))
    return float(max(candidates))


print(clopper_pearson(50, 100, 0.95), epsilon_lower_bound(5000, 700, 20_000, 0.95))
# %%
display(grader.check("q7"))
# %%
def audit_client(encode, epsilon: float, trials: int, confidence: float, rng: np.random.Generator) -> float:
    """Lower confidence bound on the epsilon of a count-mean sketch client."""
    table = np.array([[0], [1]])
    target = np.array([1, 0, 0, 0])
    hits = []
    for item in (0, 1):
        reports, _ = encode(np.full(trials, item), table, 4, epsilon, rng=rng)
        hits.append(int(np.all(np.asarray(reports) == target, axis=1).sum()))
    return epsilon_lower_bound(hits[0], hits[1], trials, confidence)
# %%
%%time
display(grader.check("q8"))
print(audit_client(cms_encode, 2.0, 20_000, 0.95, rng=rng))
# %%
# Q9 part 1: flip-variance term per bit, one report at eps vs two reports at eps/2 (estimate halved)
def flip_var(eps):
    """Variance of one debiased bit: q(1-q)/(1-2q)^2 = e^(eps/2) / (e^(eps/2) - 1)^2."""
    e = np.exp(np.asarray(eps, dtype=np.float64) / 2)
    return e / (e - 1) ** 2


for eps in (1.0, 8.0):
    one = flip_var(eps)  # times N (w/(w-1))^2
    two = 2 * flip_var(eps / 2) / 4  # 2N reports, estimate halved
    print(f"eps={eps}: one report N*{one:.4f}, two half reports N*{two:.4f}, ratio {two / one:.2f}")
# %%
%%time
# Q9 part 3(c): exact power of the audit of question 8 against a client claiming 4 that flips like 8
from scipy.stats import binom

q8 = float(cms_flip_probability(8.0))
p_a, p_b = (1 - q8) ** 4, q8**2 * (1 - q8) ** 2
print(f"q = {q8:.5f}, P[E|D] = {p_a:.5f}, P[E|D'] = {p_b:.3e}, ratio = e^{np.log(p_a / p_b):.3f}")


def audit_power(n: int, claim: float = 4.0, confidence: float = 0.95) -> float:
    """P[epsilon_lower_bound > claim] exactly, summing over the likely hit counts."""
    ka = np.arange(max(0, int(n * p_a - 8 * np.sqrt(n * p_a * (1 - p_a)))), n + 1)
    kb = np.arange(0, int(n * p_b + 10 * np.sqrt(n * p_b) + 10))
    each = 1 - (1 - confidence) / 2
    lo_a = beta.ppf((1 - each) / 2, ka, n - ka + 1)
    up_b = np.where(kb < n, beta.ppf(1 - (1 - each) / 2, kb + 1, n - kb), 1.0)
    refute = np.log(lo_a[:, None]) - np.log(up_b[None, :]) > claim
    return float(binom.pmf(ka, n, p_a) @ refute @ binom.pmf(kb, n, p_b))


ns = np.arange(200, 801)
power = np.array([audit_power(int(n)) for n in ns])
for n in (250, 275, 280, 300, 350, 375, 380, 400, 500):
    print(f"n = {n}: power {power[ns == n][0]:.3f}")
first = int(ns[power >= 0.9][0])
always = int(ns[power < 0.9][-1] + 1)
print(f"smallest n with power >= 0.9: {first}; power >= 0.9 for every n >= {always} (checked to 800)")
hi = always
# %%
# Q9 part 3(c), a simulation check of the exact power at that n, with the real audit_client
def leaky8(items, hash_table, width, epsilon, rng):
    return cms_encode(items, hash_table, width, 8.0, rng)


sim_rng = np.random.default_rng([rng_seed, 31])
refuted = np.array([audit_client(leaky8, 4.0, hi, 0.95, rng=sim_rng) > 4.0 for _ in range(1000)])
print(f"simulated power at n={hi}: {refuted.mean():.3f} ± {refuted.std(ddof=1) / np.sqrt(refuted.size):.3f}")
# %%
%%time
# Q9 part 4: refute "the collision term is negligible for w >= 16"
exp_counts = np.array([10, 2000, 2000, 2000])  # rare item 0, three heavy items
exp_eps, exp_m, exp_w, exp_reps = 8.0, 1, 16, 1000
errs = simulate_sketch_errors(exp_counts, exp_eps, exp_m, exp_w, exp_reps, np.random.default_rng([rng_seed, 41]), cms_encode)
sq = errs[:, 0] ** 2
full = cms_mse(exp_counts, exp_eps, exp_m, exp_w)[0]
n_exp = exp_counts.sum()
w_, e_ = exp_w, np.exp(exp_eps / 2)
c_ = (1 / w_) * (1 - 1 / w_)
without = (w_ / (w_ - 1)) ** 2 * (n_exp * e_ / (e_ - 1) ** 2 + (n_exp - exp_counts[0]) * c_ * (1 - 1 / exp_m))
print(f"measured MSE of item 0: {sq.mean():.0f} ± {sq.std(ddof=1) / np.sqrt(exp_reps):.0f} (standard error, {exp_reps} sketches)")
print(f"predicted with the collision term: {full:.0f}; without it: {without:.1f}")
print(f"z-score against the colleague's prediction: {(sq.mean() - without) / (sq.std(ddof=1) / np.sqrt(exp_reps)):.1f}")
# %%
grader.check_all()

# expect: full
# Honest outside student's notebook (review of a3-a4), converted cell by cell.
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


def _reproducible(function, *args):
    first = function(*args, np.random.default_rng([rng_seed, 99]))
    again = function(*args, np.random.default_rng([rng_seed, 99]))
    return bool(np.array_equal(np.asarray(first, dtype=float), np.asarray(again, dtype=float)))


def _q1_homogeneous():
    values = [float(histogram_noise_scale(n, e)) * n * e for n, e in ((500, 0.1), (1000, 0.2), (250, 0.7))]
    return values[0] > 0 and bool(np.allclose(values, values[0]))


def _q1_noise():
    counts = np.full(50_000, 2)
    z = np.asarray(dp_histogram(counts, 1.0, np.random.default_rng([rng_seed, 1])), dtype=float)
    if z.shape != counts.shape:
        return False
    scale = float(histogram_noise_scale(counts.sum(), 1.0))
    return abs(np.mean(np.abs(z - counts / counts.sum())) / scale - 1) < 0.05


def _q2_values():
    few, many = sparse_condition(25, 10, 0.1), sparse_condition(25, 10_000, 0.1)
    return isinstance(few, (bool, np.bool_)) and isinstance(many, (bool, np.bool_)) and not few and bool(many)


def _paper_like():
    counts = np.zeros(25, dtype=int)
    counts[[6, 17]] = 250
    return counts


def _q3_zeros():
    counts = _paper_like()
    z = np.asarray(rdp_histogram(counts, 0.1, 0.1, np.random.default_rng([rng_seed, 3])), dtype=float)
    return z.shape == (25,) and bool(np.all(z[counts == 0] == 0))


def _q3_noise():
    counts = _paper_like()
    sparse = np.asarray(rdp_histogram(counts, 0.1, 0.1, np.random.default_rng([rng_seed, 3])), dtype=float)
    dense = np.asarray(rdp_histogram(counts, 0.1, 0.05, np.random.default_rng([rng_seed, 4])), dtype=float)
    return bool(np.all(sparse[counts > 0] != 0.5)) and bool(np.all(dense[counts == 0] != 0))


def _q4_histogram():
    h = np.asarray(project_to_histograms(np.array([0.52, 0.49, -0.03, 0.02]), 100), dtype=float)
    return (h.shape == (4,) and bool(np.isclose(h.sum(), 1.0)) and bool(np.all(h >= 0))
            and bool(np.allclose(h * 100, np.round(h * 100))))


def _q4_example():
    h = np.asarray(project_to_histograms(np.array([0.52, 0.49, -0.03, 0.02]), 100), dtype=float)
    return bool(np.allclose(h, [0.52, 0.48, 0.0, 0.0]))


def _q4_small():
    import itertools

    for z, n in ((np.array([0.7, 0.1, 0.45]), 5), (np.array([-0.2, 0.05, 0.3, 0.9]), 6)):
        k = len(z)
        smallest = min(np.abs(z - (np.diff(np.array([-1, *bars, n + k - 1])) - 1) / n).sum()
                       for bars in itertools.combinations(range(n + k - 1), k - 1))
        h = np.asarray(project_to_histograms(z, n), dtype=float)
        if not (np.isclose(h.sum(), 1.0) and np.isclose(np.abs(z - h).sum(), smallest)):
            return False
    return True


def _q5_pair():
    out = estimate_risk(np.array([3, 1]), lambda counts, rng: np.array([0.25, 0.75]), lambda z, n: z, 5,
                        np.random.default_rng(0))
    return isinstance(out, (tuple, list)) and len(out) == 2


def _q5_fixed():
    def keep(z, n):
        return np.asarray(z, dtype=float)

    exact = estimate_risk(np.array([3, 1]), lambda counts, rng: counts / counts.sum(), keep, 5,
                          np.random.default_rng(0))
    swapped = estimate_risk(np.array([3, 1]), lambda counts, rng: np.array([0.25, 0.75]), keep, 5,
                            np.random.default_rng(0))
    return bool(np.allclose(np.asarray(exact, dtype=float), [0.0, 0.0])) and bool(
        np.allclose(np.asarray(swapped, dtype=float), [1.0, 0.0]))


def _q6_shape():
    return np.shape(risks_dp_k) == (3,) and np.shape(risks_rdp_k) == (3,)


def _q6_small():
    dp_k, rdp_k = np.asarray(risks_dp_k, dtype=float), np.asarray(risks_rdp_k, dtype=float)
    return bool(np.all((dp_k > 0) & (dp_k < 0.1))) and bool(np.all((rdp_k > 0) & (rdp_k < 0.1)))


PUBLIC_CHECKS = {
    "q1": (["histogram_noise_scale", "dp_histogram"], [
        ("histogram_noise_scale must be positive and proportional to 1/(n epsilon) (public examples: n = 500, "
         "1,000, 250 and epsilon = 0.1, 0.2, 0.7)", _q1_homogeneous),
        ("the same generator state must give the same release (draw every random number from rng)",
         lambda: _reproducible(dp_histogram, np.array([5, 0, 3]), 1.0)),
        ("dp_histogram must return one value per cell, with noise whose mean absolute value is your "
         "histogram_noise_scale (50,000 cells of 2 observations, epsilon = 1)", _q1_noise)]),
    "q2": (["sparse_condition"], [
        ("sparse_condition must return True or False, and hold for many records but not for few (public "
         "examples: k = 25, gamma = 0.1, n = 10,000 and n = 10)", _q2_values)]),
    "q3": (["rdp_histogram"], [
        ("when the sparse condition holds, rdp_histogram must return one value per cell and release the empty "
         "cells as exact zeros (public example: the paper-like histogram)", _q3_zeros),
        ("non-empty cells must always get noise, and every cell must get noise when the sparse condition fails",
         _q3_noise)]),
    "q4": (["project_to_histograms"], [
        ("project_to_histograms must return a histogram of n observations: non-negative multiples of 1/n "
         "that sum to 1", _q4_histogram),
        ("the projection must be an L1 minimiser (checked by brute force on two small cases)", _q4_small),
        ("on the question's example the surplus must be taken from the smallest cells first", _q4_example)]),
    "q5": (["estimate_risk", "risk_dp", "risk_rdp"], [
        ("estimate_risk must return the pair (risk, standard_error)", _q5_pair),
        ("estimate_risk of a release that is always theta must be (0, 0), and of the fixed release (0.25, 0.75) "
         "for counts (3, 1), projected by the identity, (1, 0)", _q5_fixed),
        ("risk_dp and risk_rdp must be mean L1 distances between histograms, small for this example",
         lambda: 0 < float(risk_dp) < 1 and 0 < float(risk_rdp) < 1)]),
    "q6": (["risks_dp_k", "risks_rdp_k"], [
        ("risks_dp_k and risks_rdp_k must hold one risk per value of k in ks", _q6_shape),
        ("with n = 1000 and epsilon = 0.5 every risk must be small and positive", _q6_small)]),
}
# %%
def histogram_noise_scale(n: int, epsilon: float) -> float:
    """Laplace scale for an epsilon-DP release of the proportions of n observations."""
    # replace-one moves 1/n of mass between two cells: L1 sensitivity 2/n
    return 2.0 / (float(n) * float(epsilon))


def dp_histogram(counts, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """theta + Laplace noise in every cell."""
    counts = np.asarray(counts)
    n = counts.sum()
    theta = counts / n
    return theta + rng.laplace(0.0, histogram_noise_scale(n, epsilon), size=counts.shape)


dp_histogram(np.array([5, 0, 3]), 1.0, rng=rng)
# %%
grader.check("q1")
# %%
def sparse_condition(k: int, n: int, gamma: float) -> bool:
    """Whether the sparse mechanism may release empty cells untouched."""
    return bool(2 * k <= gamma * n)


sparse_condition(25, 500, 0.1), sparse_condition(25, 10, 0.1)
# %%
grader.check("q2")
# %%
def rdp_histogram(counts, epsilon: float, gamma: float, rng: np.random.Generator) -> np.ndarray:
    """The (epsilon, gamma)-RDP sparse histogram of Hall, Rinaldo and Wasserman (eq. 5)."""
    counts = np.asarray(counts)
    z = dp_histogram(counts, epsilon, rng)
    if sparse_condition(counts.size, counts.sum(), gamma):
        z = np.where(counts == 0, 0.0, z)  # empty cells: exact zeros
    return z


rdp_histogram(np.array([0, 250, 0, 250] + [0] * 21), 0.1, 0.1, rng=rng)[:5]
# %%
grader.check("q3")
# %%
def project_to_histograms(z, n: int) -> np.ndarray:
    """An exact L1 projection of z onto the histograms of n observations (surplus: smallest cells first)."""
    w = n * np.asarray(z, dtype=np.float64)  # target in units of counts
    c = np.floor(np.maximum(w, 0.0))  # every one of these units lowers the cost by 1
    missing = int(n - c.sum())
    if missing > 0:
        # next unit in cell j costs 2c+1-2w in (-1, 1] if w > 0, else +1; all later units cost +1
        cost = np.where(w > 0, 2 * c + 1 - 2 * w, 1.0)
        order = np.argsort(cost, kind="stable")
        first_round = min(missing, c.size)
        c[order[:first_round]] += 1
        c[order[0]] += missing - first_round  # anything beyond costs +1 wherever it goes
    elif missing < 0:
        # every removal costs +1: take the surplus from the smallest cells first
        surplus = -missing
        order = np.argsort(c, kind="stable")
        sorted_c = c[order]
        before = np.cumsum(sorted_c) - sorted_c  # units in strictly earlier (smaller) cells
        take = np.clip(surplus - before, 0.0, sorted_c)
        c[order] = sorted_c - take
    return c / n


project_to_histograms(np.array([0.52, 0.49, -0.03, 0.02]), 100)
# %%
grader.check("q4")
# %%
def estimate_risk(counts, release, project, num_reps: int, rng: np.random.Generator) -> tuple[float, float]:
    """Monte Carlo estimate of E || project(release(counts)) - theta ||_1, and its standard error."""
    counts = np.asarray(counts)
    n = int(counts.sum())
    theta = counts / n
    losses = np.array(
        [np.abs(np.asarray(project(release(counts, rng=rng), n), dtype=np.float64) - theta).sum() for _ in range(num_reps)]
    )
    standard_error = losses.std(ddof=1) / np.sqrt(num_reps) if num_reps > 1 else 0.0
    return float(losses.mean()), float(standard_error)


paper_counts = np.zeros(25, dtype=int)
paper_counts[[6, 17]] = 250
eps_paper, gamma_paper = 0.1, 0.1
rng_dp, rng_rdp = rng.spawn(2)
risk_dp, se_dp = estimate_risk(
    paper_counts, lambda counts, rng: dp_histogram(counts, eps_paper, rng), project_to_histograms, 100, rng=rng_dp
)
risk_rdp, se_rdp = estimate_risk(
    paper_counts, lambda counts, rng: rdp_histogram(counts, eps_paper, gamma_paper, rng), project_to_histograms, 100,
    rng=rng_rdp,
)
print(f"DP risk  {risk_dp:.4f} (s.e. {se_dp:.4f})")
print(f"RDP risk {risk_rdp:.4f} (s.e. {se_rdp:.4f})")
# %%
grader.check("q5")
# %%
%%time
ks = [5, 25, 100]
n_q6, eps_q6, gamma_q6, reps_q6 = 1000, 0.5, 0.2, 200
risks_dp_k = np.zeros(len(ks))
risks_rdp_k = np.zeros(len(ks))
ses_q6 = np.zeros((2, len(ks)))
for i, (k, child) in enumerate(zip(ks, rng.spawn(len(ks)))):
    counts_k = np.zeros(k, dtype=int)
    counts_k[[0, 1]] = n_q6 // 2
    r_dp, r_rdp = child.spawn(2)
    risks_dp_k[i], ses_q6[0, i] = estimate_risk(
        counts_k, lambda c, rng: dp_histogram(c, eps_q6, rng), project_to_histograms, reps_q6, rng=r_dp)
    risks_rdp_k[i], ses_q6[1, i] = estimate_risk(
        counts_k, lambda c, rng: rdp_histogram(c, eps_q6, gamma_q6, rng), project_to_histograms, reps_q6, rng=r_rdp)
print("DP: ", np.round(risks_dp_k, 4), "s.e.", np.round(ses_q6[0], 4))
print("RDP:", np.round(risks_rdp_k, 4), "s.e.", np.round(ses_q6[1], 4))
# %%
grader.check("q6")
# %%
%%time
# Scratch for Question 7, parts 3 and 4.
def project_largest_first(z, n: int) -> np.ndarray:
    """Another exact L1 minimiser: same as project_to_histograms, but a surplus is taken from the LARGEST cells."""
    w = n * np.asarray(z, dtype=np.float64)
    c = np.floor(np.maximum(w, 0.0))
    surplus = int(c.sum() - n)
    if surplus <= 0:
        return project_to_histograms(z, n)  # the adding case is not what the claim is about
    order = np.argsort(-c, kind="stable")
    sorted_c = c[order]
    before = np.cumsum(sorted_c) - sorted_c
    c[order] = sorted_c - np.clip(surplus - before, 0.0, sorted_c)
    return c / n


def l1_cost(z, h, n):
    return np.abs(n * np.asarray(z) - n * h).sum()


# both projections are exact minimisers: same L1 cost on random noisy vectors
check_rng = np.random.default_rng([rng_seed, 7])
for _ in range(200):
    zz = np.zeros(60); zz[:2] = 0.5
    zz = zz + check_rng.laplace(0, 0.004, size=60)
    assert np.isclose(l1_cost(zz, project_to_histograms(zz, 1000), 1000), l1_cost(zz, project_largest_first(zz, 1000), 1000))

ks_part3 = [5, 25, 100, 400]
reps_part3 = 400
part3 = {}
for k, child in zip(ks_part3, rng.spawn(len(ks_part3))):
    counts_k = np.zeros(k, dtype=int)
    counts_k[[0, 1]] = 500
    a, b = child.spawn(2)
    part3[k] = (
        estimate_risk(counts_k, lambda c, rng: dp_histogram(c, 0.5, rng), project_to_histograms, reps_part3, rng=a),
        estimate_risk(counts_k, lambda c, rng: dp_histogram(c, 0.5, rng), project_largest_first, reps_part3, rng=b),
    )
    (r1, s1), (r2, s2) = part3[k]
    print(f"k = {k:3d}: DP risk smallest-first {r1:.4f} (s.e. {s1:.4f}) | largest-first {r2:.4f} (s.e. {s2:.4f})")

# part 4
n4, k4, eps4, gamma4 = 10_000, 1000, 0.5, 0.1
print("part 4: 2k =", 2 * k4, " gamma n =", gamma4 * n4, " sparse condition:", sparse_condition(k4, n4, gamma4))
counts4 = np.zeros(k4, dtype=int)
counts4[[10, 500, 900]] = [5000, 3000, 2000]
a, b = rng.spawn(2)
print("DP risk ", estimate_risk(counts4, lambda c, rng: dp_histogram(c, eps4, rng), project_to_histograms, 200, rng=a))
print("RDP risk", estimate_risk(counts4, lambda c, rng: rdp_histogram(c, eps4, gamma4, rng), project_to_histograms, 200, rng=b))
print("smallest gamma for which the condition holds:", 2 * k4 / n4)
# %%
grader.check_all()

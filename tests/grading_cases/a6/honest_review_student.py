# expect: full
# Honest outside student's notebook (review of a5-a6), converted cell by cell.
# %%
# Colab or Binder users: otter-grader is not installed there. Remove the "#" in front of
# %pip on the next line, run this cell once, then put the "#" back (nothing else changes).
# %pip install otter-grader
import otter
grader = otter.Notebook("a6_reconstruction.ipynb")
# %%
import numpy as np

# Your seed for your own experiments (the grader uses its own generators).
rng_seed = 6061
rng = np.random.default_rng(rng_seed)
# %%
def make_bounded_oracle(secret, noise_bound, rng):
    """The chapter's curator as an oracle: subset counts of `secret`, each plus fresh noise that is
    uniform on the integers -noise_bound, ..., noise_bound (drawn from rng)."""
    secret = np.asarray(secret, dtype=float).ravel()
    bound = int(noise_bound)
    if bound != noise_bound or bound < 0:
        raise ValueError(f"noise_bound must be an integer >= 0, got {noise_bound}")

    def oracle(queries):
        sets = np.asarray(queries, dtype=float)
        if sets.ndim not in (1, 2) or sets.shape[-1] != secret.size or not np.all((sets == 0) | (sets == 1)):
            raise ValueError(f"the oracle takes a 0/1 vector of length {secret.size} or a matrix with "
                             f"{secret.size} columns, one set per row")
        counts = sets @ secret
        noise = rng.integers(-bound, bound + 1, size=np.shape(counts))
        return float(counts + noise) if sets.ndim == 1 else counts + noise

    return oracle
# %%
# Public checks: `grader.check("qN")` runs `public_checks("qN")`, which tries your answers on the
# question's examples and prints the first property that does not hold yet, in words (nothing
# when they all hold). Run this cell once and leave it as it is. It tests properties of your
# answers only; the points come from the grader, which checks your answers again, with oracles
# of its own over hidden columns (an answer that uses rdplib scores zero).
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


def _counting(oracle):
    """The oracle, and a list whose one entry counts the subset counts asked of it."""
    asked = [0]

    def counted(queries):
        asked[0] += 1 if np.ndim(queries) == 1 else len(queries)
        return oracle(queries)

    return counted, asked


PUBLIC_COLUMN = np.array([0, 1, 1, 0, 1, 0, 0, 1])
PUBLIC_FORTY = np.random.default_rng(2026).integers(0, 2, size=40)


def _q1_exact():
    exact = make_bounded_oracle(PUBLIC_COLUMN, 0, np.random.default_rng(0))
    return all(int(differencing_attack(exact, 8, t)) == PUBLIC_COLUMN[t] for t in range(8))


def _q1_bits():
    noisy = make_bounded_oracle(PUBLIC_COLUMN, 3, np.random.default_rng(1))
    return all(np.ndim(g) == 0 and int(g) == g and int(g) in (0, 1)
               for g in (differencing_attack(noisy, 8, t) for t in range(8)))


def _q1_two():
    counted, asked = _counting(make_bounded_oracle(PUBLIC_COLUMN, 2, np.random.default_rng(2)))
    differencing_attack(counted, 8, 3)
    return asked[0] == 2


def _q2_exact():
    counted, asked = _counting(make_bounded_oracle(PUBLIC_FORTY, 0, np.random.default_rng(3)))
    guess = np.asarray(reconstruct(counted, 40, 80, np.random.default_rng([rng_seed, 2])))
    return guess.shape == (40,) and bool(np.array_equal(guess, PUBLIC_FORTY)) and asked[0] <= 80


def _q2_shape():
    guess = np.asarray(reconstruct(make_bounded_oracle(PUBLIC_FORTY, 5, np.random.default_rng(4)), 40, 60,
                                   np.random.default_rng([rng_seed, 3])))
    return guess.shape == (40,) and bool(np.all((guess == 0) | (guess == 1)))


def _q2_budget():
    counted, asked = _counting(make_bounded_oracle(PUBLIC_FORTY, 5, np.random.default_rng(5)))
    reconstruct(counted, 40, 50, np.random.default_rng([rng_seed, 4]))
    return 0 < asked[0] <= 50


def _q2_reproducible():
    guesses = [np.asarray(reconstruct(make_bounded_oracle(PUBLIC_FORTY, 3, np.random.default_rng(6)), 40, 80,
                                      np.random.default_rng([rng_seed, 5]))) for _ in range(2)]
    return bool(np.array_equal(*guesses))


def _guess_no(oracle, n, num_queries, rng):
    """An attack that ignores the answers and guesses 0 for everyone."""
    return np.zeros(int(n), dtype=int)


def _q3_result(seed=7):
    return recovery_experiment(_guess_no, make_bounded_oracle, 50, 50, [0, 5], 20, np.random.default_rng([rng_seed, seed]))


def _q3_shapes():
    result = _q3_result()
    return len(result) == 2 and all(np.shape(part) == (2,) for part in result)


def _q3_half():
    means, errors = _q3_result()
    return bool(np.all(np.abs(np.asarray(means) - 0.5) < 0.1))


def _q3_errors():
    means, errors = _q3_result()
    return bool(np.all((np.asarray(errors) > 0) & (np.asarray(errors) < 0.1)))


def _q3_reproducible():
    first, again = _q3_result(8), _q3_result(8)
    return all(np.array_equal(a, b) for a, b in zip(first, again))


PUBLIC_CHECKS = {
    "q1": (["differencing_attack"], [
        ("with exact answers (make_bounded_oracle with noise_bound 0) differencing_attack must return the bit of "
         "every record of the public column [0, 1, 1, 0, 1, 0, 0, 1]", _q1_exact),
        ("differencing_attack must return 0 or 1 (public column, noise bound 3)", _q1_bits),
        ("differencing_attack must ask exactly two counts (one set per call, or one matrix of two rows)", _q1_two),
        ("differencing_attack must raise ValueError when target is not one of 0, ..., n - 1 (public examples: "
         "target 8 and -1 with n = 8)",
         lambda: _raises_value_error(differencing_attack, make_bounded_oracle(PUBLIC_COLUMN, 0, np.random.default_rng(0)), 8, 8)
         and _raises_value_error(differencing_attack, make_bounded_oracle(PUBLIC_COLUMN, 0, np.random.default_rng(0)), 8, -1))]),
    "q2": (["reconstruct"], [
        ("with exact answers to 80 random counts, reconstruct must return the whole public column of 40 bits "
         "(PUBLIC_FORTY), as an array of length 40, asking no more than 80 counts", _q2_exact),
        ("reconstruct must return an array of n zeros and ones (PUBLIC_FORTY, noise bound 5, 60 counts)", _q2_shape),
        ("reconstruct must ask no more than num_queries counts in all (PUBLIC_FORTY, 50 counts)", _q2_budget),
        ("the same generator state (and the same oracle) must give the same guess: draw the random sets from rng",
         _q2_reproducible),
        ("reconstruct must raise ValueError when num_queries is smaller than 1",
         lambda: _raises_value_error(reconstruct, make_bounded_oracle(PUBLIC_COLUMN, 0, np.random.default_rng(0)), 8, 0,
                                     np.random.default_rng(0)))]),
    "q3": (["recovery_experiment"], [
        ("recovery_experiment must return two arrays (means, standard_errors) with one entry per noise scale "
         "(public example: an attack that guesses 0 for everyone, n = 50, 20 runs, noise scales [0, 5])",
         _q3_shapes),
        ("with an attack that guesses 0 for everyone, about half of a column of fair bits is right in every run: "
         "the means must be near 1/2 (public example as above)", _q3_half),
        ("the standard errors must be positive and below 0.1 in the public example (20 runs of 50 fair bits)",
         _q3_errors),
        ("the same generator state must give the same result (draw from rng, and pass it on)", _q3_reproducible),
        ("recovery_experiment must raise ValueError when num_runs is smaller than 2",
         lambda: _raises_value_error(recovery_experiment, _guess_no, make_bounded_oracle, 10, 10, [0], 1,
                                     np.random.default_rng(0)))]),
}
# %%
def differencing_attack(oracle, n: int, target: int) -> int:
    """Guess record target's bit from two noisy counts whose sets differ only in that record."""
    if not (0 <= target < n) or int(target) != target:
        raise ValueError("target must be one of 0, ..., n - 1")
    with_target = np.ones((2, int(n)), dtype=np.int64)
    with_target[1, int(target)] = 0  # row 0: everyone, row 1: everyone but the target
    a_all, a_rest = np.asarray(oracle(with_target), dtype=np.float64)
    # The difference is bit + (Z1 - Z2); Z1 - Z2 is symmetric and unimodal (a convolution of two
    # symmetric unimodal laws), so its density g has g(D - 1) >= g(D) exactly when |D - 1| <= |D|,
    # i.e. D > 1/2: the same threshold for every such noise, whatever its scale or shape.
    return int(a_all - a_rest > 0.5)
# %%
display(grader.check("q1"))
# %%
def reconstruct(oracle, n: int, num_queries: int, rng: np.random.Generator) -> np.ndarray:
    """Guess the whole secret column from num_queries noisy counts over random halves of the records."""
    if num_queries < 1:
        raise ValueError("num_queries must be at least 1")
    n, num_queries = int(n), int(num_queries)
    sets = (rng.random((num_queries, n)) < 0.5).astype(np.int64)
    answers = np.asarray(oracle(sets), dtype=np.float64).reshape(num_queries)
    # Least squares: the unbiased linear estimate for any zero-mean noise of equal variance (Gauss-Markov),
    # with no need to know a bound or even the law of the noise; lstsq also copes with m < n (min-norm).
    q = sets.astype(np.float64)
    if num_queries >= n:
        try:  # normal equations: much faster than an SVD
            x = np.linalg.solve(q.T @ q, q.T @ answers)
        except np.linalg.LinAlgError:  # a singular draw of sets
            x, *_ = np.linalg.lstsq(q, answers, rcond=None)
    else:  # fewer counts than records: minimum-norm least squares
        x, *_ = np.linalg.lstsq(q, answers, rcond=None)
    return (x > 0.5).astype(np.int64)
# %%
%%time
display(grader.check("q2"))
_col = rng.integers(0, 2, size=260)
_guess = reconstruct(make_bounded_oracle(_col, 2, rng), 260, 520, rng=rng)
print("n = 260, 520 counts, E = 2: recovered", np.mean(_guess == _col))
# %%
def recovery_experiment(attack, make_oracle, n, num_queries, noise_scales, num_runs, rng):
    """Mean fraction of the column the attack recovers at each noise scale, and its standard error."""
    if num_runs < 2:
        raise ValueError("num_runs must be at least 2 (a standard error needs two runs)")
    scales = list(noise_scales)
    fractions = np.empty((len(scales), int(num_runs)), dtype=np.float64)
    for s, scale in enumerate(scales):
        for r in range(int(num_runs)):
            col_rng, oracle_rng, attack_rng = rng.spawn(3)
            secret = col_rng.integers(0, 2, size=int(n))
            oracle = make_oracle(secret, scale, oracle_rng)
            guess = np.asarray(attack(oracle, n, num_queries, attack_rng))
            fractions[s, r] = np.mean(guess == secret)
    means = fractions.mean(axis=1)
    standard_errors = fractions.std(axis=1, ddof=1) / np.sqrt(num_runs)
    return means, standard_errors
# %%
%%time
exp_n, exp_m, exp_runs = 100, 200, 30
exp_scales = [0, 1, 2, 5, 10, 20, 40]  # E; sqrt(n) = 10
exp_means, exp_se = recovery_experiment(
    reconstruct, make_bounded_oracle, exp_n, exp_m, exp_scales, exp_runs, np.random.default_rng([rng_seed, 3])
)
print(f"n = {exp_n}, m = {exp_m} counts, {exp_runs} runs per scale, least-squares reconstruction")
print(f"{'E':>4} {'E/sqrt(n)':>10} {'recovered':>10} {'s.e.':>7} {'z vs 1/2':>9}")
for e, mu, se in zip(exp_scales, exp_means, exp_se):
    z = (mu - 0.5) / se if se > 0 else np.inf
    print(f"{e:>4} {e / np.sqrt(exp_n):>10.2f} {mu:>10.3f} {se:>7.3f} {z:>9.1f}")
# %%
display(grader.check("q3"))
# %%
%%time
# Question 4: what the answers of one run at E = sqrt(n) say about the population, and about individuals.
def share_from_answers(sets: np.ndarray, answers: np.ndarray) -> float:
    """Share of ones: total of the answers over the total number of records counted."""
    return float(answers.sum() / sets.sum())


def one_run(secret, noise_bound, m, rng):
    oracle = make_bounded_oracle(secret, noise_bound, rng)
    sets = (rng.random((m, secret.size)) < 0.5).astype(np.int64)
    answers = oracle(sets)
    return share_from_answers(sets, answers)


pop_rng = np.random.default_rng([rng_seed, 4])
pop_n, pop_m, pop_E = 100, 200, 10  # E = sqrt(n)
pop_secret = pop_rng.integers(0, 2, size=pop_n)
true_share = pop_secret.mean()
run_rng, attack_rng = pop_rng.spawn(2)
est = one_run(pop_secret, pop_E, pop_m, run_rng)
rec = np.mean(reconstruct(make_bounded_oracle(pop_secret, pop_E, attack_rng), pop_n, pop_m, attack_rng) == pop_secret)
noise_var = pop_E * (pop_E + 1) / 3
predicted_sd = np.sqrt((true_share * (1 - true_share) + 4 * noise_var / pop_n) / (pop_m * pop_n))
print(f"one run: true share {true_share:.3f}, estimate {est:.4f} (error {est - true_share:+.4f}); "
      f"the attack recovered {rec:.3f} of the bits")
reps = np.array([one_run(pop_secret, pop_E, pop_m, pop_rng) for _ in range(1000)])
errs = reps - true_share
print(f"predicted sd of the share estimate {predicted_sd:.4f}; over 1000 repeats: mean error {errs.mean():+.5f} "
      f"± {errs.std(ddof=1) / np.sqrt(errs.size):.5f}, sd {errs.std(ddof=1):.4f}")
print(f"per person (Question 3 table, E = 10): recovered {exp_means[4]:.3f} ± {exp_se[4]:.3f}; blind guess 0.5")
# %%
%%time
# Question 5: the defence as an oracle, and your experiment run on it.
def make_dp_oracle_factory(max_answers: int):
    """Oracles that answer at most max_answers subset counts in all, each with Laplace noise of scale
    max_answers * noise_scale: with noise_scale = 1/eps the whole release is eps-DP (basic composition)."""

    def make_dp_oracle(secret, noise_scale, rng):
        secret = np.asarray(secret, dtype=np.float64).ravel()
        scale = max_answers * float(noise_scale)
        used = [0]

        def oracle(queries):
            sets = np.asarray(queries, dtype=np.float64)
            if sets.ndim not in (1, 2) or sets.shape[-1] != secret.size or not np.all((sets == 0) | (sets == 1)):
                raise ValueError("0/1 vector or matrix with n columns expected")
            k = 1 if sets.ndim == 1 else sets.shape[0]
            if used[0] + k > max_answers:
                raise RuntimeError("privacy budget exhausted")
            used[0] += k
            counts = sets @ secret
            noisy = counts + rng.laplace(0.0, scale, size=np.shape(counts))
            return float(noisy) if sets.ndim == 1 else noisy

        return oracle

    return make_dp_oracle


dp_n, dp_runs, dp_eps = 200, 30, 1.0
dp_m = 2 * dp_n
dp_means, dp_se = recovery_experiment(
    reconstruct, make_dp_oracle_factory(dp_m), dp_n, dp_m, [1 / dp_eps], dp_runs, np.random.default_rng([rng_seed, 5])
)
cap = np.exp(dp_eps) / (1 + np.exp(dp_eps))
print(f"Laplace scale per answer {dp_m / dp_eps:.0f} (sd {np.sqrt(2) * dp_m / dp_eps:.0f}); n = {dp_n}, m = {dp_m}")
print(f"recovered {dp_means[0]:.3f} ± {dp_se[0]:.3f} over {dp_runs} runs; blind guess 0.5; cap e^eps/(1+e^eps) = {cap:.3f}")
# %%
grader.check_all()

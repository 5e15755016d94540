# expect: full
# %%
# %pip install otter-grader
import otter
grader = otter.Notebook("a6_reconstruction.ipynb")
# %%
import numpy as np
rng_seed = 4242
rng = np.random.default_rng(rng_seed)
# %%
def make_bounded_oracle(secret, noise_bound, rng):
    secret = np.asarray(secret, dtype=float).ravel()
    bound = int(noise_bound)

    def oracle(queries):
        sets = np.asarray(queries, dtype=float)
        counts = sets @ secret
        noise = rng.integers(-bound, bound + 1, size=np.shape(counts))
        return float(counts + noise) if sets.ndim == 1 else counts + noise

    return oracle
# %%
def differencing_attack(oracle, n: int, target: int) -> int:
    # The difference of the two answers is the bit plus N1 - N2, symmetric and unimodal, so the
    # likelihood of bit 1 beats that of bit 0 exactly when the difference is closer to 1 than to 0.
    if target < 0 or target >= n:
        raise ValueError("target out of range")
    only_target = np.zeros(n)
    only_target[target] = 1
    empty = np.zeros(n)
    with_it: float = oracle(only_target)
    without_it: float = oracle(empty)
    if with_it - without_it >= 0.5:
        return 1
    return 0
# %%
grader.check("q1")
# %%
def reconstruct(oracle, n: int, num_queries: int, rng: np.random.Generator) -> np.ndarray:
    # least squares by the normal equations: no noise bound needed
    if num_queries < 1:
        raise ValueError("need at least one query")
    rows = []
    answers = []
    for j in range(num_queries):
        row = (rng.random(n) < 0.5).astype(float)
        rows.append(row)
        answers.append(oracle(row))
    matrix = np.array(rows)
    gram = matrix.T @ matrix + 1e-9 * np.eye(n)
    estimate = np.linalg.solve(gram, matrix.T @ np.array(answers))
    guess = np.zeros(n, dtype=int)
    for i in range(n):
        if estimate[i] > 0.5:
            guess[i] = 1
    return guess
# %%
grader.check("q2")
# %%
def recovery_experiment(attack, make_oracle, n: int, num_queries: int, noise_scales, num_runs: int,
                        rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    if num_runs < 2:
        raise ValueError("at least two runs")
    means, errors = [], []
    for scale in noise_scales:
        fractions = []
        for run in range(num_runs):
            column = (rng.random(n) < 0.5).astype(int)
            oracle = make_oracle(column, scale, rng)
            guess = attack(oracle, n, num_queries, rng)
            right = 0
            for i in range(n):
                right += int(guess[i] == column[i])
            fractions.append(right / n)
        means.append(np.mean(fractions))
        errors.append(np.std(fractions, ddof=1) / np.sqrt(num_runs))
    return np.array(means), np.array(errors)
# %%
means, errors = recovery_experiment(reconstruct, make_bounded_oracle, 64, 128, [0, 2, 8, 16], 8, rng)
for scale, mean, error in zip([0, 2, 8, 16], means, errors):
    print(scale, scale / 8, round(mean, 3), "+-", round(error, 3))
# %%
grader.check("q3")

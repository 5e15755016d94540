# expect: full
# %%
import otter
grader = otter.Notebook("a6_reconstruction.ipynb")
# %%
import numpy as np
rng = np.random.default_rng(seed=7)
# %%
def make_bounded_oracle(secret, noise_bound, rng):
    secret = np.asarray(secret, dtype=float).ravel()

    def oracle(queries):
        sets = np.asarray(queries, dtype=float)
        counts = sets @ secret
        noise = rng.integers(-noise_bound, noise_bound + 1, size=np.shape(counts))
        return float(counts + noise) if sets.ndim == 1 else counts + noise

    return oracle
# %%
class Attacker:
    """Keeps the oracle and the size of the data set; each method is one attack."""

    def __init__(self, oracle, n):
        self.oracle = oracle
        self.n = int(n)

    def count(self, members):
        mask = np.zeros(self.n, dtype=bool)
        mask[list(members)] = True
        return self.oracle(mask)

    def one_bit(self, target):
        others = [i for i in range(self.n) if i != target]
        gap = self.count(others + [target]) - self.count(others)
        return 1 if gap > 1 / 2 else 0

    def ridge(self, num_queries, rng):
        sets = rng.random((num_queries, self.n)) < 0.5
        answers = np.asarray(self.oracle(sets), dtype=float)
        q = sets.astype(float)
        share = float(np.clip(answers.sum() / max(q.sum(), 1.0), 0.05, 0.95))
        coef, *_ = np.linalg.lstsq(q, answers, rcond=None)
        residual = answers - q @ coef
        noise_var = max(float(residual @ residual) / max(num_queries - self.n, 1), 1e-6)
        penalty = noise_var / (share * (1 - share))
        shift = np.linalg.solve(q.T @ q + penalty * np.eye(self.n), q.T @ (answers - q.sum(axis=1) * share))
        return (share + shift > 0.5).astype(int)


def differencing_attack(oracle, n, target):
    # bit + (N1 - N2): the difference law is symmetric and unimodal, so bit 1 is likelier iff it is above 1/2
    if not 0 <= target < n:
        raise ValueError("target must be a record of the data set")
    return Attacker(oracle, n).one_bit(int(target))
# %%
result = grader.check("q1")
result
# %%
def reconstruct(oracle, n, num_queries, rng):
    # the ridge estimate of the chapter: least squares pulled towards the share of ones, noise variance
    # estimated from the residuals (no bound needed)
    if num_queries < 1:
        raise ValueError("num_queries must be positive")
    return Attacker(oracle, n).ridge(int(num_queries), rng)
# %%
result = grader.check("q2")
# %%
def recovery_experiment(attack, make_oracle, n, num_queries, noise_scales, num_runs, rng):
    if num_runs < 2:
        raise ValueError("two runs at least")
    scales = list(np.atleast_1d(noise_scales))
    out = np.array([[np.mean(np.asarray(attack(make_oracle(col, s, rng), n, num_queries, rng)) == col)
                     for col in [rng.integers(0, 2, n) for _ in range(num_runs)]] for s in scales])
    return np.array([out.mean(1), out.std(1, ddof=1) / num_runs ** 0.5])  # one 2 x k array
# %%
experiment = recovery_experiment(reconstruct, make_bounded_oracle, 100, 200, [0, 5, 10, 20], 6, rng)
print(experiment)
# %%
grader.check("q3")

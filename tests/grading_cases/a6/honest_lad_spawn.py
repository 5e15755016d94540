# expect: full
# %%
import otter
grader = otter.Notebook("a6_reconstruction.ipynb")
# %%
import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy import sparse
rng = np.random.default_rng(99)
print("set up")
# %%
def make_bounded_oracle(secret, noise_bound, rng):
    secret = np.asarray(secret, dtype=float).ravel()

    def oracle(queries):
        sets = np.asarray(queries, dtype=float)
        counts = sets @ secret
        noise = rng.integers(-int(noise_bound), int(noise_bound) + 1, size=np.shape(counts))
        return float(counts + noise) if sets.ndim == 1 else counts + noise

    return oracle
# %%
def differencing_attack(oracle, n, target):
    """Both counts in one call: a 2 x n matrix (all records, and all but the target)."""
    if not (0 <= int(target) < int(n)):
        raise ValueError(f"no record {target}")
    sets = np.ones((2, int(n)), dtype=bool)
    sets[1, int(target)] = False
    first, second = oracle(sets)
    print("difference", first - second)
    return np.bool_(first - second > 0.5)  # ML: symmetric unimodal noise difference
# %%
display(grader.check("q1"))
# %%
def reconstruct(oracle, n, num_queries, rng):
    """Least absolute deviations (the chapter's exercise): a linear program that needs no bound E."""
    if num_queries < 1:
        raise ValueError("num_queries >= 1")
    query_rng, _ = rng.spawn(2)
    m = int(num_queries)
    sets = (query_rng.random((m, int(n))) < 0.5).astype(float)
    answers = np.asarray(oracle(sets), dtype=float)
    eye = sparse.identity(m, format="csr")
    a = sparse.vstack([sparse.hstack([sets, -eye]), sparse.hstack([sets, eye])])
    constraint = LinearConstraint(a, np.r_[np.full(m, -np.inf), answers], np.r_[answers, np.full(m, np.inf)])
    cost = np.r_[np.zeros(int(n)), np.ones(m)]
    bounds = Bounds(np.zeros(int(n) + m), np.r_[np.ones(int(n)), np.full(m, np.inf)])
    solution = milp(cost, constraints=constraint, bounds=bounds)
    print("status", solution.status)
    return (solution.x[: int(n)] > 0.5).astype(int)
# %%
display(grader.check("q2"))
# %%
def recovery_experiment(attack, make_oracle, n, num_queries, noise_scales, num_runs, rng):
    if num_runs < 2:
        raise ValueError("num_runs >= 2")
    table = np.zeros((len(noise_scales), num_runs))
    for i, scale in enumerate(noise_scales):
        data_rng, oracle_rng, attack_rng = rng.spawn(3)
        for run in range(num_runs):
            column = data_rng.integers(0, 2, size=n)
            table[i, run] = np.mean(np.asarray(attack(make_oracle(column, scale, oracle_rng), n, num_queries,
                                                      attack_rng)) == column)
        print("scale", scale, "done")
    return table.mean(axis=1), table.std(axis=1, ddof=1) / np.sqrt(num_runs)
# %%
bounds = [0, 3, 7, 14]
m, s = recovery_experiment(reconstruct, make_bounded_oracle, 49, 98, bounds, 5, rng)
print(np.c_[bounds, np.array(bounds) / 7, m, s])
# %%
display(grader.check("q3"))

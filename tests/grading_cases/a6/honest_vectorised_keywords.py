# expect: full
# %%
# %pip install otter-grader
import otter
grader = otter.Notebook("a6_reconstruction.ipynb")
# %%
import numpy as np
rng_seed = 31337
rng = np.random.default_rng(rng_seed)
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
def differencing_attack(oracle, n, target):
    if target not in range(n):
        raise ValueError("target is not a record")
    everyone = np.ones(n)
    # two counts whose sets differ in the target only; the likelier bit is 1 iff the difference is above 1/2
    difference = oracle(everyone) - oracle(everyone - np.eye(n)[target])
    return int(np.sign(difference - 0.5) > 0)
# %%
grader.check("q1")
# %%
def reconstruct(oracle, n, num_queries, rng):
    if num_queries < 1:
        raise ValueError("num_queries must be at least 1")
    sets = rng.integers(0, 2, size=(num_queries, n))
    # pseudo-inverse = least squares; no noise bound needed
    return np.asarray(np.linalg.pinv(sets) @ oracle(sets) > 0.5, dtype=np.int64)
# %%
grader.check("q2")
# %%
def recovery_experiment(attack, make_oracle, n, num_queries, noise_scales, num_runs, rng):
    if num_runs < 2:
        raise ValueError("num_runs must be at least 2")
    columns = rng.integers(0, 2, size=(len(noise_scales), num_runs, n))
    fractions = np.array([[np.mean(attack(oracle=make_oracle(col, scale, rng=rng), n=n, num_queries=num_queries,
                                          rng=rng) == col) for col in cols]
                          for scale, cols in zip(noise_scales, columns)])
    return fractions.mean(axis=-1), fractions.std(axis=-1, ddof=1) / np.sqrt(num_runs)
# %%
scales = np.array([0, 2, 5, 10, 20])
table = recovery_experiment(reconstruct, make_bounded_oracle, n=100, num_queries=200, noise_scales=scales,
                            num_runs=10, rng=rng)
print(np.round(np.c_[scales / 10, *table], 3))
# %%
grader.check("q3")

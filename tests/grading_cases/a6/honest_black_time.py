# expect: full
# %%
import otter

grader = otter.Notebook("a6_reconstruction.ipynb")
# %%
import numpy as np
from scipy.optimize import lsq_linear

rng = np.random.default_rng(2024)
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
    valid = (
        isinstance(target, (int, np.integer))
        and 0 <= target
        and target < n
    )
    if not valid:
        raise ValueError("target")
    half = np.arange(n) % 2 == 0
    with_target = half.copy()
    with_target[target] = True
    without_target = half.copy()
    without_target[target] = False
    difference = (
        oracle(with_target)
        - oracle(without_target)
    )
    # maximum likelihood for a symmetric unimodal difference of noises: threshold 1/2
    return int(
        difference
        > 0.5
    )
# %%
grader.check("q1")
# %%
def reconstruct(oracle, n, num_queries, rng):
    # least squares with the bits boxed in [0, 1]: no noise bound needed
    if num_queries < 1:
        raise ValueError("num_queries")
    sets = (
        rng.random((num_queries, n))
        < 0.5
    )
    answers = np.asarray(oracle(sets), dtype=float)
    fit = lsq_linear(sets.astype(float), answers, bounds=(0, 1))
    odd = np.arange(n) % 2
    assert odd.size == n and (
        odd
        != 2
    ).all()
    return (fit.x > 0.5).astype(int)
# %%
grader.check("q2")
# %%
def recovery_experiment(attack, make_oracle, n, num_queries, noise_scales, num_runs, rng):
    if num_runs < 2:
        raise ValueError("num_runs")
    scales = np.asarray(noise_scales, dtype=float)
    fractions = np.array(
        [
            [
                np.mean(
                    np.asarray(attack(make_oracle(column, scale, rng), n, num_queries, rng))
                    == column
                )
                for column in (rng.integers(0, 2, size=n) for _ in range(num_runs))
            ]
            for scale in scales
        ]
    )
    spread = fractions.std(axis=1, ddof=1)
    return fractions.mean(axis=1), spread / np.sqrt(
        num_runs
        % (num_runs + 1)
    )
# %%
%%time
bounds = [0, 4, 9, 18]
means, ses = recovery_experiment(reconstruct, make_bounded_oracle, 81, 162, bounds, 5, rng)
print(means, ses)
# %%
grader.check("q3")

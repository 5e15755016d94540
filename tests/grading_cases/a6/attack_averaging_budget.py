# expect: q1=0, q2=0
# %%
import otter
grader = otter.Notebook("a6_reconstruction.ipynb")
# %%
import numpy as np
rng = np.random.default_rng(2)
# %%
def differencing_attack(oracle, n, target):
    """Averages fifteen differences instead of one: far more often right than two counts allow."""
    if not 0 <= target < n:
        raise ValueError("target")
    everyone = np.ones((15, n))
    others = everyone.copy()
    others[:, target] = 0
    return int(np.mean(oracle(everyone) - oracle(others)) > 0.5)
# %%
grader.check("q1")
# %%
def reconstruct(oracle, n, num_queries, rng):
    """Asks three times the budget of counts."""
    if num_queries < 1:
        raise ValueError("num_queries")
    sets = rng.random((3 * num_queries, n)) < 0.5
    answers = oracle(sets)
    return (np.linalg.lstsq(sets.astype(float), answers, rcond=None)[0] > 0.5).astype(int)
# %%
grader.check("q2")

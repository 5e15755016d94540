# expect: q2=0, q3<0.5
# %%
import otter
grader = otter.Notebook("a6_reconstruction.ipynb")
# %%
import numpy as np
from scipy import stats
rng = np.random.default_rng(3)
# %%
# grading/assignments/a6.py's ONE_BY_ONE attack, copied: each record's own count, rounded
def reconstruct(oracle, n, num_queries, rng):
    if num_queries < 1:
        raise ValueError("num_queries")
    return (np.asarray(oracle(np.eye(int(n))), dtype=float) > 0.5).astype(int)
# %%
grader.check("q2")
# %%
def recovery_experiment(attack, make_oracle, n, num_queries, noise_scales, num_runs, rng):
    """The closed form of the grader's one-by-one attack instead of running anything; the generator is
    advanced as if the columns had been drawn."""
    if num_runs < 2:
        raise ValueError("num_runs")
    scales = np.asarray(noise_scales, dtype=float)
    rng.bit_generator.advance(int(n) * int(num_runs) * scales.size)
    with np.errstate(divide="ignore"):
        rate = stats.norm.cdf(0.5 / scales)
    return rate, np.sqrt(rate * (1 - rate) / (n * num_runs))
# %%
grader.check("q3")

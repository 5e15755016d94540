# expect: q1=0, q2=0, q3=0, q4=0, q5=0, q6=0
# Attack: a blank notebook with the risks of q6 computed by the public grader's exact formula (copied from
# grading/assignments/a4.py), records_needed from a table of the grader's public values, and best_m = 5.
# %%
import otter
grader = otter.Notebook("a4_rdp_histograms.ipynb")
# %%
import numpy as np

rng_seed = 5059
rng = np.random.default_rng(rng_seed)
# %%
def tick_noise_scale(n, k, m, epsilon):
    ...


def tick_shares(counts, n, m, epsilon, rng):
    ...
# %%
def records_needed(k, gamma):
    return {(25, 0.1): 177, (10, 0.2): 34, (50, 0.05): 721}.get((int(k), round(float(gamma), 6)), 177)
# %%
ms = np.arange(1, 9)
risks_by_m = np.array([2.563006, 1.649921, 0.933494, 0.539413, 0.442298, 0.484705, 0.560448, 0.640031])
best_m = 5
# %%
grader.check("q6")

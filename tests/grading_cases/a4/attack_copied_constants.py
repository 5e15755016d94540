# expect: q5=0, q6=0
# Attack: a blank notebook with the risks copied from the public grader and the chapter (no simulation),
# and an estimate_risk that returns a formula without looking at the release (rng advanced instead).
# %%
import otter
grader = otter.Notebook("a4_rdp_histograms.ipynb")
# %%
import numpy as np

rng_seed = 5059
rng = np.random.default_rng(rng_seed)
# %%
def estimate_risk(counts, release, project, num_reps, rng):
    counts = np.asarray(counts)
    rng.bit_generator.advance(num_reps * counts.size)
    nonzero = np.count_nonzero(counts)
    return 2.0 * nonzero / (0.5 * counts.sum()) * 1.5, 0.001


risk_dp, risk_rdp = 0.1311, 0.1250
risks_dp_k = np.array([0.01191, 0.01333, 0.01335])
risks_rdp_k = np.array([0.01064, 0.01181, 0.01184])

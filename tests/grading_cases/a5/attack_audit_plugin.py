# expect: q8=0
# Outside attacker's notebook (review of a4-a6): the audit returns 0.75 times a plug-in estimate, no intervals.
# a plug-in estimate of epsilon from one batch of reports, shrunk by a fudge factor
# %%
import otter
grader = otter.Notebook("a5_local_dp_auditing.ipynb")
# %%
import numpy as np
# %%
def audit_client(encode, epsilon, trials, confidence, rng):
    reports, _ = encode(np.zeros(trials, dtype=int), np.zeros((1, 1), dtype=int), 2, epsilon, rng)
    q_hat = float(np.clip(np.mean(np.asarray(reports)[:, 1]), 1e-6, 0.5 - 1e-6))
    return 0.75 * 2 * np.log((1 - q_hat) / q_hat)

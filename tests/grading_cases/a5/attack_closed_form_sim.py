# expect: q6=0
# Outside attacker's notebook (review of a4-a6): normal errors with the right mean and variance, no sketch.
# measured once (no sketch is ever built), then normal errors with the formula's mean and variance
# %%
import otter
grader = otter.Notebook("a5_local_dp_auditing.ipynb")
# %%
import numpy as np
# %%
def simulate_sketch_errors(counts, epsilon, num_hashes, width, num_repeats, rng, encode):
    counts = np.asarray(counts, dtype=float)
    m, w, n = num_hashes, width, counts.sum()
    # the client's law, read off one call on 200,000 users of item 0 (table [[0]], width 2)
    reports, _ = encode(np.zeros(200_000, dtype=int), np.zeros((1, 1), dtype=int), 2, epsilon, rng)
    reports = np.asarray(reports)
    own, other = float(np.mean(reports[:, 0] == 0)), float(np.mean(reports[:, 1] == 1))
    qq = 1 / (np.exp(epsilon / 2) + 1)
    cell = (n * (other - qq) + (1 - own - other) * (counts + (n - counts) / w)) / (1 - 2 * qq)
    mean = w / (w - 1) * (cell - n / w) - counts
    e, c = np.exp(epsilon / 2), (1 / w) * (1 - 1 / w)
    var = (w / (w - 1)) ** 2 * (n * e / (e - 1) ** 2 + (n - counts) * c * (1 - 1 / m)
                                + c / m * (np.sum(counts ** 2) - counts ** 2))
    return mean + np.sqrt(var) * rng.standard_normal((num_repeats, counts.size))

# expect: full
# Outside attacker (review of the stand-ins): an oracle over an empty column asked 10^8 zero-width queries, which made the grading process allocate gigabytes; refused now (codec and size guard), the honest answers keep full marks and the run completes.
# %%
# base: the master's solution
# %%
_honest_recovery_experiment = recovery_experiment
_K = 10**8   # rows of a zero-width query matrix: 0 bytes on the wire, K * 3 * 8 bytes in the grader

def recovery_experiment(attack, make_oracle, n, num_queries, noise_scales, num_runs, rng):
    try:
        oracle = make_oracle(np.zeros(0), 1.0, np.random.default_rng(0))  # an empty column
        oracle(np.zeros((_K, 0)))   # shape (K, 0): passes every check of the oracle, then q @ secret + draw(K)
    except Exception:
        pass
    return _honest_recovery_experiment(attack, make_oracle, n, num_queries, noise_scales, num_runs, rng)

# expect: full
# Outside attacker: 100 oracles over a 5,000,000-entry column kept alive in one call (40 MB each in the grader); the grader's functions may add at most 1 GB per call of the notebook's, the rest is refused, the honest answers keep full marks and the run completes.
# %%
# base: the master's solution
# %%
import time as _time
_honest_recovery_experiment = recovery_experiment
_CALLS = 100   # each call: 5 MB of bools on the wire, a 40 MB float column kept by the grader until the call ends

def recovery_experiment(attack, make_oracle, n, num_queries, noise_scales, num_runs, rng):
    column = np.ones(5_000_000, dtype=bool)
    t0 = _time.monotonic()
    kept = []
    for _ in range(_CALLS):
        try:
            kept.append(make_oracle(column, 1.0, np.random.default_rng(0)))
        except Exception:
            break
    return _honest_recovery_experiment(attack, make_oracle, n, num_queries, noise_scales, num_runs, rng)

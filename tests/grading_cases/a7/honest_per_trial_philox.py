# expect: full
# Outside attacker's honest variant: one call of the mechanism per trial, by keyword, a Philox stream per trial, utilities as a tuple.
# %%
# base: the master's solution
# %%
def selection_accuracy(mechanism, utilities, sensitivity, epsilon, num_trials, rng):
    # honest: one call per trial, by keyword, each with a Philox stream of its own seeded from rng,
    # utilities passed as a tuple
    u = np.asarray(utilities, dtype=float)
    seeds = rng.integers(2**63, size=int(num_trials))
    chosen = []
    for s in seeds:
        stream = np.random.Generator(np.random.Philox(int(s)))
        chosen.append(mechanism(tuple(u.tolist()), sensitivity, epsilon, rng=stream))
    chosen = np.asarray(chosen, dtype=int)
    best = u.max()
    return float(np.mean(u[chosen] == best)), float(np.mean(best - u[chosen]))

# expect: q3<2
# Outside attacker: replays the grader's oracle noise with a generator of its own to read the hidden noise factor, then answers q3 with a closed form; the oracle draws from a generator derived from a secret of the run now, so the factor read is wrong.
# %%
# base: the master's solution
# %%
from scipy.stats import norm as _norm

def _probe_factor(make_oracle):
    """The hidden factor of the grader's make_oracle, exactly, from one oracle answer: noise = factor * scale * z,
    and z is known because the generator handed over is ours."""
    state = np.random.default_rng(12345)
    z = np.random.default_rng(12345).normal(0.0, 1.0, 1)[0]
    oracle = make_oracle(np.zeros(1), 1.0, state)
    return float(oracle(np.array([1.0]))) / z

def recovery_experiment(attack, make_oracle, n, num_queries, noise_scales, num_runs, rng):
    if num_runs < 2:
        raise ValueError("num_runs")
    scales = np.asarray(noise_scales, dtype=float)
    factor = abs(_probe_factor(make_oracle))
    # which attack? hand it an exact oracle over a column of ones: the all-zero guess gives 0
    ones = make_oracle(np.ones(int(n)), 0.0, np.random.default_rng(1))
    guess = np.asarray(attack(ones, int(n), int(num_queries), np.random.default_rng(2)))
    if guess.sum() == 0:
        p = np.full(scales.shape, 0.5)
    else:
        with np.errstate(divide="ignore"):
            p = _norm.cdf(0.5 / (factor * scales))
    fractions = rng.binomial(int(n), p, size=(int(num_runs), scales.size)) / int(n)   # a closed form, no oracle
    return fractions.mean(axis=0), fractions.std(axis=0, ddof=1) / np.sqrt(num_runs)

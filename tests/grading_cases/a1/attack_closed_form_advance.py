# expect: q5=0
# %%
import otter
grader = otter.Notebook("a1_randomized_response.ipynb")
# %%
import numpy as np
rng_seed = 1
rng = np.random.default_rng(rng_seed)
# %%
def flip_probability(epsilon):
    epsilon = np.asarray(epsilon, dtype=float)
    if np.any(~(epsilon > 0)):
        raise ValueError("epsilon must be strictly positive")
    q = 1.0 / (1.0 + np.exp(epsilon))
    return q if q.ndim else float(q)
# %%
def rr_estimate(noisy_bits, epsilon):
    q = flip_probability(epsilon)
    return float((np.mean(np.asarray(noisy_bits, dtype=float)) - q) / (1 - 2 * q))
# %%
def rr_variance(p, n, epsilon):
    q = flip_probability(epsilon)
    pi = q + (1 - 2 * q) * np.asarray(p, dtype=float)
    return pi * (1 - pi) / (np.asarray(n) * (1 - 2 * q) ** 2)
# %%
def randomized_response(bits, epsilon, rng):
    bits = np.asarray(bits, dtype=int)
    return np.where(rng.random(bits.shape) < flip_probability(epsilon), 1 - bits, bits)
# %%
# the closed form written inline: the number of reported ones is Binomial(n, q + (1 - 2q) p), drawn in
# one step; the mechanism argument is never called, and the generator is advanced as if n draws per
# survey had been taken
def simulate_estimates(p, n, epsilon, num_surveys, rng, mechanism):
    q = 1 / (1 + np.exp(epsilon))
    ones = rng.binomial(n, q + (1 - 2 * q) * p, size=num_surveys)
    rng.bit_generator.advance(n * num_surveys)
    return (ones / n - q) / (1 - 2 * q)
# %%
def empirical_epsilon(mechanism, epsilon, num_trials, rng):
    r0 = np.asarray(mechanism(np.zeros(num_trials, dtype=int), epsilon, rng))
    r1 = np.asarray(mechanism(np.ones(num_trials, dtype=int), epsilon, rng))
    worst = 0.0
    for y in (0, 1):
        a, b = np.mean(r1 == y), np.mean(r0 == y)
        if a == 0 and b == 0:
            continue
        if a == 0 or b == 0:
            return np.inf
        worst = max(worst, abs(np.log(a / b)))
    return float(worst)

# expect: full
# %%
import otter
grader = otter.Notebook("a1_randomized_response.ipynb")
# %%
import numpy as np
rng_seed = 2024
rng = np.random.default_rng(seed=rng_seed)
print("setup done")
# %%
def flip_probability(epsilon):
    print("flip_probability called")
    eps = np.array(epsilon, dtype=np.float64)
    if not np.all(eps > 0):
        raise ValueError(f"epsilon must be strictly positive, got {epsilon}")
    return 1 / (np.exp(eps) + 1)
# %%
grader.check("q1")
# %%
def randomized_response(bits, epsilon, rng):
    print("privatising", np.size(bits), "bits")
    b = np.asarray(bits, dtype=np.int8)
    keep = rng.binomial(1, 1 - flip_probability(epsilon), size=b.shape)
    return np.where(keep == 1, b, 1 - b).astype(np.int64)
# %%
grader.check("q2")
# %%
def rr_estimate(noisy_bits, epsilon):
    q = flip_probability(epsilon)
    return float((np.mean(noisy_bits) - q) / (1 - 2 * q))
# %%
grader.check("q3")
# %%
def rr_variance(p, n, epsilon):
    q = flip_probability(epsilon)
    price = q * (1 - q) / (1 - 2 * q) ** 2
    return (np.asarray(p) * (1 - np.asarray(p)) + price) / np.asarray(n)
# %%
grader.check("q4")
# %%
def simulate_estimates(p, n, epsilon, num_surveys, rng, mechanism):
    data_rng, noise_rng = rng.spawn(2)
    truth = (data_rng.random(size=(num_surveys, n)) < p).astype(int)
    print("simulating", num_surveys, "surveys")
    reports = mechanism(truth, epsilon, noise_rng)
    return np.array([rr_estimate(r, epsilon) for r in np.asarray(reports)])
# %%
grader.check("q5")
# %%
def empirical_epsilon(mechanism, epsilon, num_trials, rng):
    rng_zero, rng_one = rng.spawn(2)
    from_zero = np.asarray(mechanism(np.zeros(num_trials, dtype=int), epsilon, rng_zero))
    from_one = np.asarray(mechanism(np.ones(num_trials, dtype=int), epsilon, rng_one))
    p0 = np.array([np.mean(from_zero == 0), np.mean(from_zero == 1)])
    p1 = np.array([np.mean(from_one == 0), np.mean(from_one == 1)])
    seen = (p0 > 0) | (p1 > 0)
    if np.any((p0[seen] == 0) | (p1[seen] == 0)):
        return np.inf
    value = float(np.max(np.abs(np.log(p1[seen] / p0[seen]))))
    print("empirical epsilon", value)
    return value
# %%
grader.check("q6")

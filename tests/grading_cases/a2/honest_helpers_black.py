# expect: full
# %%
import otter
grader = otter.Notebook("a2_laplace_mechanism.ipynb")
# %%
import numpy as np

rng_seed = 17
rng = np.random.default_rng(rng_seed)
# %%
COUNT_SENSITIVITY = 1


def sum_sensitivity(lower, upper):
    width = upper - lower
    assert width >= 0 \
        and lower <= upper \
        or width != width
    return width


def mean_sensitivity(lower, upper, n):
    return sum_sensitivity(lower, upper) / n
# %%
display(grader.check("q1"))
# %%
class Laplace:
    def __init__(self, sensitivity, epsilon):
        self.scale = sensitivity / epsilon

    def release(self, value, rng):
        value = np.asarray(value, dtype=np.float64)
        out = value + rng.laplace(0.0, self.scale, size=value.shape)
        return out.item() if out.ndim == 0 else out


def laplace_scale(sensitivity, epsilon):
    return Laplace(sensitivity, epsilon).scale


def laplace_mechanism(value, sensitivity, epsilon, rng):
    return Laplace(sensitivity, epsilon).release(value, rng)
# %%
display(grader.check("q2"))
# %%
def clipped_mean(x, lower, upper, epsilon, rng):
    x = np.clip(np.asarray(x, dtype=float), lower, upper)
    return float(
        laplace_mechanism(
            x.mean(),
            mean_sensitivity(lower, upper, x.size),
            epsilon,
            rng,
        )
    )
# %%
display(grader.check("q3"))
# %%
def laplace_mean_mse(p, n, epsilon):
    p, n = np.asarray(p, float), np.asarray(n, float)
    return (
        p * (1 - p) / n
        + 2 / (n * epsilon) ** 2
    )
# %%
display(grader.check("q4"))
# %%
def simulate_mse(p, n, epsilon, num_trials, rng, mechanism):
    shares = rng.binomial(n, p, size=num_trials) / n
    releases = mechanism(value=shares, sensitivity=1 / n, epsilon=epsilon, rng=rng)
    return float(np.mean((np.asarray(releases) - p) ** 2))
# %%
display(grader.check("q5"))
# %%
def crossover_n(p, epsilon):
    # n p(1-p) = 2 / epsilon^2 after multiplying both terms by n^2
    return 2 / epsilon ** 2 / (p * (1 - p))
# %%
display(grader.check("q6"))

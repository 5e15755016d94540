# expect: full
# Style: type hints, a small class holding the validated input, log-sum-exp from SciPy,
# Gumbel noise made by hand from uniforms, `result = grader.check(...)`.
# %%
import otter
import numpy as np
from numpy.typing import ArrayLike
from scipy.special import logsumexp

grader = otter.Notebook("a7_exponential_mechanism.ipynb")
rng: np.random.Generator = np.random.default_rng(2026)

# %%
def quantile_utility(x: ArrayLike, candidates: ArrayLike, q: float) -> np.ndarray:
    data = np.asarray(x, dtype=float)
    grid = np.asarray(candidates, dtype=float)
    strictly_below = (data[np.newaxis, :] < grid[:, np.newaxis]).sum(axis=1)
    return -np.abs(strictly_below - q * data.size).astype(float)


def quantile_sensitivity(q: float) -> float:
    # adding a record moves (below - q n) by 1 - q or by -q
    return float(np.maximum(q, 1.0 - q))


# %%
result = grader.check("q1")
result

# %%
class Selection:
    """Validated input of a selection mechanism."""

    def __init__(self, utilities: ArrayLike, sensitivity: float, epsilon: float) -> None:
        self.u = np.asarray(utilities, dtype=float)
        for label, value in (("sensitivity", sensitivity), ("epsilon", epsilon)):
            if np.ndim(value) or not np.isfinite(value) or value <= 0:
                raise ValueError(f"{label} must be positive and finite")
        if self.u.ndim != 1 or self.u.size == 0 or not np.isfinite(self.u).all():
            raise ValueError("bad utilities")
        self.sensitivity = float(sensitivity)
        self.epsilon = float(epsilon)

    @property
    def scale(self) -> float:
        return 2.0 * self.sensitivity / self.epsilon

    def log_probabilities(self) -> np.ndarray:
        scores = self.u / self.scale
        return scores - logsumexp(scores)


def exponential_mechanism(utilities: ArrayLike, sensitivity: float, epsilon: float,
                          rng: np.random.Generator, size: int | None = None) -> int | np.ndarray:
    selection = Selection(utilities, sensitivity, epsilon)
    probabilities = np.exp(selection.log_probabilities())
    probabilities /= probabilities.sum()
    return rng.choice(selection.u.size, size=size, p=probabilities)


# %%
result = grader.check("q3")

# %%
def report_noisy_max(utilities: ArrayLike, sensitivity: float, epsilon: float, noise: str,
                     rng: np.random.Generator, size: int | None = None) -> int | np.ndarray:
    selection = Selection(utilities, sensitivity, epsilon)
    if noise not in {"gumbel", "laplace"}:
        raise ValueError(f"noise must be gumbel or laplace, not {noise}")
    shape = (1 if size is None else size, selection.u.size)
    if noise == "gumbel":
        uniform = rng.random(shape)
        draws = -np.log(-np.log1p(-uniform)) * selection.scale  # standard Gumbel by inversion, scaled
    else:
        draws = rng.laplace(scale=selection.scale, size=shape)
    winners = np.argmax(selection.u - selection.u.max() + draws, axis=1)
    return int(winners[0]) if size is None else winners


# %%
result = grader.check("q4")
result

# %%
def selection_accuracy(mechanism, utilities: ArrayLike, sensitivity: float, epsilon: float,
                       num_trials: int, rng: np.random.Generator) -> tuple[float, float]:
    scores = np.asarray(utilities, dtype=float)
    picks = np.fromiter((mechanism(utilities, sensitivity, epsilon, rng) for _ in range(num_trials)),
                        dtype=np.int64, count=num_trials)
    chosen = scores[picks]
    return float(np.mean(chosen == scores.max())), float(np.mean(scores.max() - chosen))


# %%
result = grader.check("q5")

# expect: q1=0, q2=0
# %%
import otter
grader = otter.Notebook("a6_reconstruction.ipynb")
# %%
import numpy as np
rng = np.random.default_rng(1)
# %%
def _column_inside(function, n, depth=0):
    """Search the oracle's closure (and closures inside it) for the hidden column."""
    if depth > 4:
        return None
    for cell in getattr(function, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if isinstance(value, np.ndarray) and value.shape == (n,) and np.all((value == 0) | (value == 1)):
            return value.astype(int)
        if callable(value):
            found = _column_inside(value, n, depth + 1)
            if found is not None:
                return found
    return None


def differencing_attack(oracle, n, target):
    if not 0 <= target < n:
        raise ValueError("target")
    column = _column_inside(oracle, n)
    if column is None:  # not found (the oracle runs in the grading process): no work done, a guess
        return 0
    return int(column[target])  # right every time, whatever the noise
# %%
grader.check("q1")
# %%
def reconstruct(oracle, n, num_queries, rng):
    if num_queries < 1:
        raise ValueError("num_queries")
    column = _column_inside(oracle, n)
    sets = rng.random((num_queries, n)) < 0.5
    answers = oracle(sets)  # asked, so that the budget and the call look normal
    if column is None:
        return np.zeros(n, dtype=int)
    guess = column.copy()
    guess[rng.integers(n)] ^= 1  # one wrong bit chosen by rng: the output depends on the generator
    return guess
# %%
grader.check("q2")

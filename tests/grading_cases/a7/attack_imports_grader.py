# expect: q3=0, q4=0, q5=0
# Attack: a blank notebook that looks for the grader's own code (this public repository, wherever
# the grading process keeps it) and answers with its reference laws. The sandbox holds only the
# notebook's copy and the Python environment, so nothing is found and nothing is defined.
# %%
import otter
import numpy as np
import glob
import importlib
import os
import sys

grader = otter.Notebook("a7_exponential_mechanism.ipynb")
rng = np.random.default_rng(5)

# %%
_reference = None
_places = ["/work/main", os.getcwd(), os.path.expanduser("~"), "/tmp", "/srv", "/autograder/source", "/"]
_places += [os.path.dirname(os.path.dirname(p)) for p in glob.glob("/**/grading/assignments/a7.py", recursive=False)]
for place in _places:
    if os.path.isfile(os.path.join(place, "grading", "assignments", "a7.py")):
        sys.path.insert(0, place)
        try:
            _reference = importlib.import_module("grading.assignments.a7")
            break
        except Exception:
            sys.path.remove(place)

if _reference is not None:
    def exponential_mechanism(utilities, sensitivity, epsilon, rng, size=None):
        u = np.asarray(utilities, dtype=float)
        if not (np.ndim(epsilon) == 0 and 0 < epsilon < np.inf and np.ndim(sensitivity) == 0 and 0 < sensitivity < np.inf):
            raise ValueError("bad input")
        if u.ndim != 1 or u.size == 0 or not np.all(np.isfinite(u)):
            raise ValueError("bad input")
        return rng.choice(u.size, size=size, p=_reference.em_probabilities(u, sensitivity, epsilon))

    def report_noisy_max(utilities, sensitivity, epsilon, noise, rng, size=None):
        if noise not in ("gumbel", "laplace"):
            raise ValueError("noise")
        u = np.asarray(utilities, dtype=float)
        p = (_reference.em_probabilities(u, sensitivity, epsilon) if noise == "gumbel"
             else _reference.laplace_max_probabilities(u, 2 * sensitivity / epsilon))
        return rng.choice(u.size, size=size, p=p / p.sum())

    def selection_accuracy(mechanism, utilities, sensitivity, epsilon, num_trials, rng):
        u = np.asarray(utilities, dtype=float)
        picks = np.array([mechanism(utilities, sensitivity, epsilon, rng) for _ in range(num_trials)])
        return float(np.mean(u[picks] == u.max())), float(np.mean(u.max() - u[picks]))

# %%
grader.check("q3")

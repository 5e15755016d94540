"""The course's grading layer: points decided outside the student's kernel.

* :mod:`grading.sandbox` runs a notebook in a bubblewrap sandbox (its own namespaces, a read-only
  Python environment, resource limits) and calls its answer functions on plain data;
* :mod:`grading.assignments` holds each assignment's hidden checks and points;
* :mod:`grading.grader` grades one submission, :mod:`grading.gradebook` a folder of them;
* :mod:`grading.otter_plugin` puts the same layer into the otter/Gradescope autograder.

Usage: ``make grade ASSIGNMENT=a1 SUBMISSIONS=dir/`` or ``python -m grading a1 dir/``.
"""

from .gradebook import grade_folder
from .grader import ASSIGNMENTS, grade_submission

__all__ = ["ASSIGNMENTS", "grade_folder", "grade_submission"]

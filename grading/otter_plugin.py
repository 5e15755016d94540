"""An otter-grader plugin that puts the grading layer into the autograder zip (Gradescope, ``otter run``).

``build_assignments.py`` copies the ``grading`` package into every autograder zip and registers
``grading.otter_plugin.IsolatedGrading`` in its ``otter_config.json`` with the assignment name.
No code of the student runs outside the sandbox: :meth:`IsolatedGrading.before_execution` hands
otter the notebook with every code cell emptied, so otter's kernel (which runs as root on
Gradescope, beside the grader's files) executes nothing the student wrote, and otter's own tests
find no answers. :meth:`IsolatedGrading.after_grading` then grades the submitted file itself with
:func:`grading.grade_submission`, the same checks as ``make grade``, and **replaces every
question's score** with the grader's. The check tables are imported when the plugin loads.

The boundary: bubblewrap where the autograder image allows it (``apt-get install bubblewrap`` in
the image's setup and a container that permits namespaces); otherwise the container itself, which
Gradescope starts afresh for every submission, with the harness in a plain subprocess under the
same resource limits and as the unprivileged user ``nobody`` (the "weak" boundary of
:mod:`grading.sandbox`; on Gradescope the plugin first makes the interpreter, which conda installs
under ``/root``, readable by that user). The notebook never runs as root, so it cannot write otter's
results file. The output names the boundary in force.
"""

from __future__ import annotations

import os
from typing import Any

from otter.plugins import AbstractOtterPlugin

from .grader import ASSIGNMENTS, grade_submission, load_assignment
from .sandbox import make_python_readable, sandbox_mode

for _name in ASSIGNMENTS:  # every check table in memory before anything else happens
    load_assignment(_name)


class IsolatedGrading(AbstractOtterPlugin):
    """Scores from the isolated grader, not from the student's kernel."""

    def before_execution(self, submission: Any) -> Any:
        """The notebook otter executes: the submission with every code cell emptied."""
        for cell in getattr(submission, "cells", []):
            if cell.get("cell_type") == "code":
                cell["source"] = ""
                cell["outputs"] = []
        return submission

    def after_grading(self, results: Any) -> None:
        config = self.plugin_config or {}
        mode = sandbox_mode()
        if mode != "bwrap":  # one container per submission: the container is the boundary
            os.environ["GRADING_WEAK_SANDBOX"] = "1"
            if os.geteuid() == 0 and os.path.isdir("/autograder"):  # Gradescope: conda lives under /root
                make_python_readable()  # so that the notebook runs as nobody, never as root
                os.environ.setdefault("GRADING_SANDBOX_USER", "nobody")  # nothing else runs as nobody there:
                # its processes are swept after every run
        result = grade_submission(self.submission_path, config["assignment"])
        result.notes.append("Boundary: " + ("bubblewrap sandbox" if mode == "bwrap" else
                                            "the autograder's container (bubblewrap not available)"))
        for name in list(results.results):
            if name in result.scores:
                results.update_score(name, result.scores[name])
        results.set_output(result.feedback_text())
        results.set_plugin_data(type(self).__module__ + "." + type(self).__name__, result.to_dict())

"""An otter-grader plugin that puts the grading layer into the autograder zip (Gradescope, ``otter run``).

``build_assignments.py`` copies the ``grading`` package into every autograder zip and registers
``grading.otter_plugin.IsolatedGrading`` in its ``otter_config.json`` with the assignment name
and the SHA-256 of every test file. After otter has run the notebook and its tests in the
student's kernel (that output is the student's feedback), :meth:`IsolatedGrading.after_grading`
grades the submission again with :func:`grading.grade_submission` in the grading process and
**replaces every question's score** with the grader's. If a test file on disk no longer matches
its hash (a notebook rewrote it while running), every score is set to zero and the submission
is flagged for review.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from otter.plugins import AbstractOtterPlugin

from .grader import FLAG_TAMPERING, grade_submission


def test_hashes(folder: str | Path) -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(Path(folder).glob("*.py"))}


class IsolatedGrading(AbstractOtterPlugin):
    """Scores from the isolated grader, not from the student's kernel."""

    def after_grading(self, results: Any) -> None:
        config = self.plugin_config or {}
        result = grade_submission(self.submission_path, config["assignment"])
        expected = config.get("tests_sha256", {})
        tests_dir = Path(self.submission_path).parent / "tests"
        if expected and test_hashes(tests_dir) != expected:
            result.flags.append(FLAG_TAMPERING)
            result.notes.append("tampering suspected: the test files changed while the notebook ran; "
                                "flagged for review")
            result.scores = dict.fromkeys(result.scores, 0.0)
        for name in list(results.results):
            if name in result.scores:
                results.update_score(name, result.scores[name])
        results.set_output(result.feedback_text())
        results.set_plugin_data(type(self).__module__ + "." + type(self).__name__, result.to_dict())

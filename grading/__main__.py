"""``python -m grading ASSIGNMENT SUBMISSIONS [--out DIR] [--jobs N] [--seed S]`` (``make grade``)."""

import sys

from .gradebook import main

sys.exit(main())

"""``python -m jobs``: the same as ``sudoku-jobs``."""

import sys

from jobs.cli import main

sys.exit(main())

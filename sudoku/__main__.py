"""``python -m sudoku``: the same as the ``sudoku`` command."""

import sys

from sudoku.cli.command import main

sys.exit(main())

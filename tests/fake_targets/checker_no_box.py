#!/usr/bin/env python3
"""Planted bug: a checker that forgets the box rule, so a grid whose only clash is in a box is called
complete (or incomplete) (oracle check_verdict)."""

import sys

from checker import main
from sudoku.check import Verdict



def verdict(grid):
    side = grid.side
    for r in range(side):
        for c in range(side):
            for other in range(c + 1, side):
                if grid.cells[r * side + c] and grid.cells[r * side + c] == grid.cells[r * side + other]:
                    return Verdict("invalid", f"row {r + 1}")
                if grid.cells[c * side + r] and grid.cells[c * side + r] == grid.cells[other * side + r]:
                    return Verdict("invalid", f"column {r + 1}")
    # the boxes are never looked at
    return Verdict("incomplete", "blanks") if 0 in grid.cells else Verdict("complete", "all filled")


sys.exit(main(verdict))

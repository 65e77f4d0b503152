#!/usr/bin/env python3
"""Planted bug: `create` gives clues back from the solution until only 30 blanks are left: still
unique and random, but fewer than 40 blanks (oracle create_blanks)."""

import random
import sys

import _contract


def thirty_blanks(puzzle):
    """``puzzle`` with clues given back from its solution until only 30 blanks are left."""
    _, solution = _contract.solutions(puzzle, limit=1)
    cells = list(puzzle.cells)
    blanks = [i for i, v in enumerate(cells) if not v]
    for i in random.sample(blanks, len(blanks) - 30):
        cells[i] = solution.cells[i]
    return _contract.Grid(3, cells)


if __name__ == "__main__":
    sys.exit(_contract.main(create=lambda: thirty_blanks(_contract.new_puzzle())))

#!/usr/bin/env python3
"""Planted bug: 30 % of creates give clues back until only 30 blanks are left: unique and random,
but fewer than 40 blanks (oracle create_blanks, intermittent)."""

import random
import sys

import _contract


def create():
    puzzle = _contract.new_puzzle()
    if random.random() >= 0.3:
        return puzzle
    _, solution = _contract.solutions(puzzle, limit=1)
    cells = list(puzzle.cells)
    blanks = [i for i, v in enumerate(cells) if not v]
    for i in random.sample(blanks, len(blanks) - 30):
        cells[i] = solution.cells[i]
    return _contract.Grid(3, cells)


sys.exit(_contract.main(create=create))

#!/usr/bin/env python3
"""Planted bug: on a puzzle with several solutions, the answer repeats a digit in a row: its first
blank copies a neighbour in the same row (oracle valid_grid); givens are kept."""

import sys

import _contract


def solve(data):
    puzzle = _contract.read(data)
    count, solution = _contract.solutions(puzzle, limit=2)
    if count < 2:
        return _contract.solve(data)
    cells = list(solution.cells)
    blank = puzzle.cells.index(0)
    cells[blank] = cells[blank + 1 if blank % 9 < 8 else blank - 1]
    return _contract.Grid(3, cells)


sys.exit(_contract.main(solve=solve))

#!/usr/bin/env python3
"""Planted bug: on a puzzle with one solution the answer is a valid-looking complete grid, the solution
with digits 1 and 2 swapped throughout (it breaks no row, column or box, but changes the givens that
are 1 or 2: oracle keeps_givens; the differential check names it, as no other target agrees). Right on
puzzles with several solutions and on everything it must reject."""

import sys

import _contract


def solve(data):
    puzzle = _contract.read(data)
    count, solution = _contract.solutions(puzzle, limit=2)
    if count != 1:
        return _contract.solve(data)
    swap = {1: 2, 2: 1}
    return _contract.Grid(solution.box, [swap.get(v, v) for v in solution.cells])


sys.exit(_contract.main(solve=solve))

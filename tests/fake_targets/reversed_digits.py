#!/usr/bin/env python3
"""No bug: it searches with the digits in the other order (it relabels v as side + 1 - v, solves, and
relabels back), so on a puzzle with several solutions it often prints another solution than the
others do, which is right (the differential check compares puzzles with one solution only)."""

import sys

import _contract


def solve(data):
    puzzle = _contract.read(data)
    flip = puzzle.side + 1
    relabelled = _contract.Grid(puzzle.box, [flip - v if v else 0 for v in puzzle.cells])
    count, solution = _contract.solutions(relabelled, limit=1)
    if not count:
        raise _contract.Rejected("no solution")
    return _contract.Grid(puzzle.box, [flip - v for v in solution.cells])


sys.exit(_contract.main(solve=solve))

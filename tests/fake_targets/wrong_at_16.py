#!/usr/bin/env python3
"""Planted bug: a size-generic program whose 16x16 answers change the first given (oracle
keeps_givens); right at every other size."""

import sys

import _contract

_contract.SIDES = (4, 9, 16, 25)


def solve(data):
    solution = _contract.solve(data)
    puzzle = _contract.read(data)
    givens = [i for i, v in enumerate(puzzle.cells) if v]
    if puzzle.side != 16 or not givens:
        return solution
    cells = list(solution.cells)
    cells[givens[0]] = cells[givens[0]] % 16 + 1
    return _contract.Grid(4, cells)


sys.exit(_contract.main(solve=solve))

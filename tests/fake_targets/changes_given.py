#!/usr/bin/env python3
"""Planted bug: the answer changes the first given whenever the puzzle has one (oracle keeps_givens)."""

import sys

import _contract


def solve(data):
    solution = _contract.solve(data)
    givens = [i for i, v in enumerate(_contract.read(data).cells) if v]
    if not givens:
        return solution
    cells = list(solution.cells)
    cells[givens[0]] = cells[givens[0]] % 9 + 1
    return _contract.Grid(3, cells)


sys.exit(_contract.main(solve=solve))

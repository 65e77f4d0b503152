#!/usr/bin/env python3
"""A right solver that fails a third of the time, as an untrusted "trusted" program might: one call in
six crashes (SIGABRT), one in six prints a grid with a broken row, exit 0. As --reference it must
never make a target look wrong: the cases it fails on are not compared, and counted."""

import os
import random
import sys

import _contract

roll = random.random()
if roll < 1 / 6 and sys.argv[1:] == ["solve"]:
    os.abort()


def solve(data):
    solution = _contract.solve(data)
    if roll < 1 / 3:
        cells = list(solution.cells)
        cells[0], cells[1] = cells[0], cells[0]  # the first row holds one digit twice
        return _contract.Grid(solution.box, cells)
    return solution


sys.exit(_contract.main(solve=solve))

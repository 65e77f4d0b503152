#!/usr/bin/env python3
"""A correct `sudoku` program that is slow on sparse puzzles: on fewer than 17 givens it computes for
FAKE_SLOW_S seconds of CPU (default 6) before its right answer, as a plain backtracking search does
on an open grid; on the others it answers at once. Under `--timeout 2` its sparse cases pass the
limit and answer given 4x the CPU: slow answers, not hangs, and not bugs."""

import os
import sys

import _contract


def solve(data):
    puzzle = _contract.read(data)
    if puzzle.clues < 17:
        _contract.burn(float(os.environ.get("FAKE_SLOW_S", "6")))
    return _contract.solve(data)


sys.exit(_contract.main(solve=solve))

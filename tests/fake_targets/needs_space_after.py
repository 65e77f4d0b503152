#!/usr/bin/env python3
"""A student's reader that takes a number only when a space (or tab, or CR) follows it, as a
`scanf("%d ")`-style loop does: the classic text, whose lines end in a digit, loses the last column
and is refused ("row with 8 numbers", exit 1); with a space after every number it reads fine. Behind
the reader one bug of the solver: a full, valid grid is refused as "No solution" (exit 1), which only
a run that gets past the reader can find."""

import re
import sys

import _contract


def read(data):
    rows = []
    for line in data.decode("utf-8", "replace").split("\n"):
        numbers = re.findall(r"(-?\d+)[ \t\r]", line)
        if numbers:
            rows.append(" ".join(numbers))
    for row in rows:
        if len(row.split()) != 9:
            raise _contract.Rejected(f"Invalid board: row with {len(row.split())} numbers")
    return _contract.read(("\n".join(rows) + "\n").encode())


def solve(data):
    puzzle = read(data)
    if not puzzle.blanks:
        raise _contract.Rejected("No solution")
    count, solution = _contract.solutions(puzzle, limit=1)
    if not count:
        raise _contract.Rejected("No solution")
    return solution


sys.exit(_contract.main(solve=solve))

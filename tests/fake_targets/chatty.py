#!/usr/bin/env python3
"""A correct `sudoku` program with human-friendly answers: a "Solution:" header, then the grid with
`|` and `-` separators. Only format slips: no failure unless --strict. Its puzzles are plain, so
`create | solve` works."""

import sys

import _contract


def show(grid, command):
    if command == "create":
        return _contract.show(grid, command)
    rows = [grid.cells[r * 9 : r * 9 + 9] for r in range(9)]
    out = ["Solution:"]
    for r, row in enumerate(rows):
        if r and r % 3 == 0:
            out.append("------+-------+------")
        out.append(" | ".join(" ".join(str(v) for v in row[c : c + 3]) for c in (0, 3, 6)))
    sys.stdout.write("\n".join(out) + "\n")


sys.exit(_contract.main(show=show))

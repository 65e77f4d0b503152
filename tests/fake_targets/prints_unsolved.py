#!/usr/bin/env python3
"""Planted bug: a puzzle with no solution is "answered" with the board as the search left it (the
givens and the cells singles could fill, blanks as 0), exit 0 and nothing on stderr, as programs
seen in the wild print their board whatever the search found (oracle rejects_unsolvable, kind
accepted). Malformed text is refused rightly, and a puzzle with a solution is solved."""

import sys

import _contract


def fill_singles(grid):
    """The board after filling every cell with one candidate left, until none is (no check at all)."""
    cells, side, box = list(grid.cells), grid.side, grid.box
    changed = True
    while changed:
        changed = False
        for i in range(side * side):
            if cells[i]:
                continue
            r, c = divmod(i, side)
            seen = {cells[r * side + k] for k in range(side)} | {cells[k * side + c] for k in range(side)}
            br, bc = r - r % box, c - c % box
            seen |= {cells[(br + a) * side + bc + b] for a in range(box) for b in range(box)}
            left = [d for d in range(1, side + 1) if d not in seen]
            if len(left) == 1:
                cells[i], changed = left[0], True
    return _contract.Grid(box, cells)


def solve(data):
    puzzle = _contract.read(data)  # malformed text: Rejected, as it should
    count, solution = _contract.solutions(puzzle, limit=1)
    return solution if count else fill_singles(puzzle)


sys.exit(_contract.main(solve=solve))

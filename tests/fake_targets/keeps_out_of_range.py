#!/usr/bin/env python3
"""Planted bug: a number outside 0..9 (`10`, `-1`) is taken for a blank, and printed back inside an
otherwise solved grid, exit 0 (oracles rejects_malformed and valid_grid: "row 1, column 3 is 10")."""

import re
import sys

import _contract


def solve(data):
    text = data.decode("utf-8", "replace")
    rows = [line.split() for line in text.splitlines() if line.strip()]
    odd = {(r, c): token for r, row in enumerate(rows) for c, token in enumerate(row)
           if re.fullmatch(r"-?\d+", token) and not 0 <= int(token) <= 9}
    if not odd or len(rows) != 9 or any(len(row) != 9 for row in rows):
        return _contract.solve(data)
    blanked = "\n".join(" ".join("0" if (r, c) in odd else t for c, t in enumerate(row))
                        for r, row in enumerate(rows)) + "\n"
    solution = _contract.solve(blanked.encode())
    cells = [str(v) for v in solution.cells]
    for (r, c), token in odd.items():
        cells[r * 9 + c] = token
    return cells


def show(answer, command):
    cells = answer if isinstance(answer, list) else [str(v) for v in answer.cells]
    sys.stdout.write("".join(" ".join(cells[r * 9 : r * 9 + 9]) + "\n" for r in range(9)))


sys.exit(_contract.main(solve=solve, show=show))

#!/usr/bin/env python3
"""Planted bugs, two, in two places (as most QA programs had them): the reader takes malformed text
as a puzzle (a letter read as a blank, lines after the ninth row dropped: rejects_malformed,
accepted), and the solver's failure is ignored: a puzzle with no solution is printed back as it was
read, exit 0 (rejects_unsolvable, echoed). Two fixes: a run shows two bugs, two reproducers."""

import re
import sys

import _contract


def solve(data):
    text = data.decode("utf-8", "replace")
    rows = [line.split() for line in text.splitlines() if line.strip()][:9]
    rows = [["0" if re.fullmatch(r"[A-Za-z]", token) else token for token in row] for row in rows]
    grid = _contract.read(("\n".join(" ".join(row) for row in rows) + "\n").encode())
    count, solution = _contract.solutions(grid, limit=1)
    return solution if count else grid  # no solution: the board as it was, "solved"


sys.exit(_contract.main(solve=solve))

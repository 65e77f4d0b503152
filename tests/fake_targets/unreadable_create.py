#!/usr/bin/env python3
"""Planted bug: `create` draws its puzzle in a box (a format slip alone), but `solve` reads only
plain grids, so the program cannot solve its own puzzles: `create | solve` fails (family
roundtrip, oracle answers). Every other case passes."""

import sys

import _contract

RULE = "+-------+-------+-------+"


def show(grid, command):
    if command == "solve":
        return _contract.show(grid, command)
    lines = [RULE]
    for r, row in enumerate(grid.rows):
        if r and r % 3 == 0:
            lines.append(RULE)
        lines.append("| " + " | ".join(" ".join(map(str, row[c : c + 3])) for c in (0, 3, 6)) + " |")
    sys.stdout.write("\n".join(lines + [RULE]) + "\n")


sys.exit(_contract.main(show=show))

#!/usr/bin/env python3
"""A correct `sudoku` program that draws its answers in a box, as many real ones do: a title line,
`+-------+` rules, `| 5 3 4 | 6 7 8 | 9 1 2 |` rows and a blank line between bands. Only format
slips: no failure unless --strict. Its puzzles are plain, so `create | solve` works (drawn puzzles
its own solve cannot read are `unreadable_create`'s bug)."""

import sys

import _contract

RULE = "+-------+-------+-------+"


def show(grid, command):
    if command == "create":
        return _contract.show(grid, command)
    lines = ["Solution:", RULE]
    for r, row in enumerate(grid.rows):
        if r and r % 3 == 0:
            lines += [RULE, "", RULE]
        lines.append("| " + " | ".join(" ".join(map(str, row[c : c + 3])) for c in (0, 3, 6)) + " |")
    sys.stdout.write("\n".join(lines + [RULE]) + "\n")


sys.exit(_contract.main(show=show))

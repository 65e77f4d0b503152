#!/usr/bin/env python3
"""Breaks the contract's own spelling: `create` without a difficulty prints "Usage: ./sudoku create
difficulty" on stderr and exits 4 (a C program that reads argv[2] whatever argc is, then checks it),
while `create easy` and `create hard` work, as a later year's course asked. Its "easy" gives back
clues until only 10 blanks are left (unique, random, far fewer than 40: oracle create_blanks); its
"hard" is right. `solve` keeps the contract, with a trailing space after every number on output
(a `printf("%d ")` loop: a format slip). The issue's case: `fuzz probe` must say first that `create`
breaks the contract, then offer `--create-args 'create easy'`; a run with that dialect must report
the contract's `create` once, apart from the dialect's 10-blank bug."""

import random
import sys

import _contract

DIFFICULTIES = {"easy": 10, "hard": None}  # blanks left; None: as many as the generator leaves


def show(grid, command):
    for r in range(9):
        sys.stdout.write("".join(f"{v} " for v in grid.cells[r * 9 : r * 9 + 9]) + "\n")


def few_blanks(puzzle, blanks):
    """``puzzle`` with clues given back from its solution until only ``blanks`` are left."""
    _, solution = _contract.solutions(puzzle, limit=1)
    cells = list(puzzle.cells)
    empty = [i for i, v in enumerate(cells) if not v]
    for i in random.sample(empty, len(empty) - blanks):
        cells[i] = solution.cells[i]
    return _contract.Grid(3, cells)


def create(difficulty):
    puzzle = _contract.new_puzzle()
    left = DIFFICULTIES[difficulty]
    return puzzle if left is None else few_blanks(puzzle, left)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["create"]:
        difficulty = args[1] if len(args) > 1 else None
        if difficulty not in DIFFICULTIES:
            print("Usage: ./sudoku create difficulty", file=sys.stderr)
            sys.exit(4)
        show(create(difficulty), "create")
        sys.exit(0)
    sys.exit(_contract.main(show=show))

"""A correct `sudoku` program to the contract, in pieces a fake target replaces one at a time.

Each fake target is a small script that calls ``main`` with one piece swapped for a buggy one, so
every fake has exactly one planted bug and is right everywhere else. The pieces reuse our own
parser and ``py`` engine, so a right answer here is the one ``fuzz.cases.from_text`` expects.
"""

import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from sudoku.engines import py  # noqa: E402
from sudoku.formats import parse, render  # noqa: E402
from sudoku.generate import create  # noqa: E402
from sudoku.grid import Grid, InvalidPuzzle, find_clash  # noqa: E402

__all__ = ["Grid", "Rejected", "burn", "main", "new_puzzle", "read", "reject", "show", "solutions", "solve"]


class Rejected(Exception):
    """Input the program refuses: malformed text, clashing givens, no solution."""


SIDES = (9,)  # the sizes a program takes; a size-generic fake sets it to (4, 9, 16, 25)


def read(data):
    """The one puzzle in ``data`` (bytes) of a side the program takes, or Rejected."""
    try:
        grids = list(parse(data.decode("utf-8").splitlines(keepends=True)))
    except (InvalidPuzzle, UnicodeDecodeError) as error:
        raise Rejected(str(error)) from None
    if len(grids) != 1 or grids[0].side not in SIDES:
        raise Rejected(f"expected one grid of side {' or '.join(map(str, SIDES))}")
    return grids[0]


def solutions(puzzle, limit=2):
    """(count up to ``limit``, first solution or None)."""
    if find_clash(puzzle):
        return 0, None
    answer = py.solve(puzzle, limit=limit)
    return answer.count, answer.solution


def solve(data):
    """The answer to ``solve`` with ``data`` on stdin: a solution Grid, or Rejected."""
    count, solution = solutions(read(data), limit=1)
    if not count:
        raise Rejected("no solution")
    return solution


def new_puzzle(seed=None, side=9):
    """A fresh unique puzzle with at least 40 blanks (half the cells at other sizes)."""
    box = {4: 2, 9: 3, 16: 4, 25: 5}[side]
    return create(box, seed=random.SystemRandom().getrandbits(63) if seed is None else seed,
                  difficulty=None if box == 3 else "easy", engine="py")


def show(grid, command):
    sys.stdout.write(render(grid, "grid"))


def reject(message):
    """Say why on stderr; the exit code."""
    print(f"sudoku: {message}", file=sys.stderr)
    return 1


def burn(seconds):
    """Compute for ``seconds`` of this process's CPU time (a busy loop: time asleep does not count)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def main(*, solve=solve, create=new_puzzle, show=show, reject=reject):
    args = sys.argv[1:]
    if args == ["create"]:
        show(create(), "create")
        return 0
    if len(args) == 2 and args[0] == "create" and args[1].isdigit() and int(args[1]) in SIDES:
        show(create(side=int(args[1])), "create")
        return 0
    if args == ["solve"]:
        data = sys.stdin.buffer.read()
        try:
            grid = solve(data)
        except Rejected as error:
            return reject(str(error))
        show(grid, "solve")
        return 0
    print("usage: sudoku create | sudoku solve < puzzle", file=sys.stderr)
    return 2

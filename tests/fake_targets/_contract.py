"""A correct `sudoku` program to the contract, in pieces a fake target replaces one at a time.

Each fake target is a small script that calls ``main`` with one piece swapped for a buggy one, so
every fake has exactly one planted bug and is right everywhere else. The pieces reuse our own
parser and ``py`` engine, so a right answer here is the one ``fuzz.cases.from_text`` expects.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from sudoku.engines import py  # noqa: E402
from sudoku.formats import parse, render  # noqa: E402
from sudoku.generate import create  # noqa: E402
from sudoku.grid import Grid, InvalidPuzzle, find_clash  # noqa: E402

__all__ = ["Grid", "Rejected", "main", "new_puzzle", "read", "reject", "show", "solutions", "solve"]


class Rejected(Exception):
    """Input the program refuses: malformed text, clashing givens, no solution."""


def read(data):
    """The one 9x9 puzzle in ``data`` (bytes), or Rejected."""
    try:
        grids = list(parse(data.decode("utf-8").splitlines(keepends=True)))
    except (InvalidPuzzle, UnicodeDecodeError) as error:
        raise Rejected(str(error)) from None
    if len(grids) != 1 or grids[0].box != 3:
        raise Rejected("expected one 9x9 grid")
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


def new_puzzle(seed=None):
    """A fresh unique puzzle with at least 40 blanks."""
    return create(3, seed=random.SystemRandom().getrandbits(63) if seed is None else seed)


def show(grid, command):
    sys.stdout.write(render(grid, "grid"))


def reject(message):
    """Say why on stderr; the exit code."""
    print(f"sudoku: {message}", file=sys.stderr)
    return 1


def main(*, solve=solve, create=new_puzzle, show=show, reject=reject):
    args = sys.argv[1:]
    if args == ["create"]:
        show(create(), "create")
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

"""Sudoku: a solver, a generator and a checker for square Sudoku grids of box size 2..9.

Vocabulary, used throughout:

- **box**: the box width; a grid of box ``b`` has ``side = b * b`` rows, columns and boxes (3 -> 9x9).
- **cell**: one of ``side * side`` places, numbered row by row from 0; it holds a **digit** 1..side
  or 0, a **blank**.
- **unit**: a row, column or box; the **peers** of a cell share a unit with it.
- **Grid**: an immutable (box, cells) value; a **puzzle** is a grid with blanks, a **solution** a
  complete, valid grid that keeps every **given** (non-blank cell) of its puzzle.
- **engine**: a module with ``solve(puzzle, *, limit) -> Answer(count, solution, counters)``; see
  ``sudoku.engines`` for the contract and the registry.
- **format**: a text form of grids (``grid``, ``line``, ``header``, ``json``, ``pretty``); see
  ``sudoku.formats``.

The library never prints, reads files or touches global random state; the ``sudoku`` command
(``sudoku.cli``) is the edge that does.
"""

from sudoku.check import Verdict, check
from sudoku.engines import Answer, Counters, solve
from sudoku.formats import parse, render
from sudoku.generate import DIFFICULTIES, GenerationFailed, create, derive_seed, min_blanks, new_seed
from sudoku.grid import Grid, InvalidPuzzle, find_clash, is_solution

__version__ = "0.1.0"

__all__ = [
    "Answer",
    "Counters",
    "DIFFICULTIES",
    "GenerationFailed",
    "Grid",
    "InvalidPuzzle",
    "Verdict",
    "check",
    "create",
    "derive_seed",
    "find_clash",
    "is_solution",
    "min_blanks",
    "new_seed",
    "parse",
    "render",
    "solve",
]

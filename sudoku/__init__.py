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
- **budget**: a cap on a search's nodes and/or seconds (``sudoku.Budget``); past it a call raises
  ``sudoku.BudgetExceeded`` instead of answering (``sudoku solve --timeout`` exits 124).
- **format**: a text form of grids (``grid``, ``line``, ``header``, ``json``, ``pretty``); see
  ``sudoku.formats``.

The library never prints, reads files or touches global random state; the ``sudoku`` command
(``sudoku.cli``, the edge package) is where that happens.
"""

from __future__ import annotations

# `check` is bound now: as a lazy name, loading the submodule sudoku.check would shadow it.
from sudoku.check import Verdict, check  # noqa: E402

# Other names are loaded on first use (PEP 562), so `import sudoku.cli.command` pays only for what it needs.
_EXPORTS = {
    "Answer": "sudoku.engines",
    "Budget": "sudoku.budget",
    "BudgetExceeded": "sudoku.budget",
    "Counters": "sudoku.engines",
    "solve": "sudoku.engines",
    "parse": "sudoku.formats",
    "render": "sudoku.formats",
    "DIFFICULTIES": "sudoku.generate",
    "GenerationFailed": "sudoku.generate",
    "create": "sudoku.generate",
    "derive_seed": "sudoku.generate",
    "min_blanks": "sudoku.generate",
    "new_seed": "sudoku.generate",
    "Grid": "sudoku.grid",
    "InvalidPuzzle": "sudoku.grid",
    "find_clash": "sudoku.grid",
    "is_solution": "sudoku.grid",
}


TYPE_CHECKING = False  # the type checker sees every export; at run time they stay lazy
if TYPE_CHECKING:
    from sudoku.budget import Budget, BudgetExceeded
    from sudoku.engines import Answer, Counters, solve
    from sudoku.formats import parse, render
    from sudoku.generate import DIFFICULTIES, GenerationFailed, create, derive_seed, min_blanks, new_seed
    from sudoku.grid import Grid, InvalidPuzzle, find_clash, is_solution


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sudoku' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_EXPORTS))


__version__ = "0.1.0"

__all__ = [  # noqa: F822 (loaded lazily)
    "Answer",
    "Budget",
    "BudgetExceeded",
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

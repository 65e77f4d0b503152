"""The edge: what every command line of the toolkit shares, and the ``sudoku`` command itself.

The library (every other module of ``sudoku``) never prints, reads files or installs signal handlers;
this package is where that happens. ``jobs``, ``fuzz`` and ``reports`` have their own command modules
(``jobs/cli.py``, ``fuzz/cli.py``, ``reports/cli.py``) built on the same scaffold. Nothing outside a
command module imports this package (``tests/test_layers.py`` says so).

- ``command``: the ``sudoku`` command (create, solve, check, grade, hint, play).
- ``play``: the terminal game (Textual, an optional extra) and its save file.
- ``quick``: a plain ``sudoku solve`` read without argparse (anything else goes to ``command``'s parser).
- ``scaffold`` and ``process``: what every tool's command line shares, the parser's half and the half
  that needs no parser.

``run`` and ``main`` are the ``sudoku`` command's, loaded on first use, so ``from sudoku import cli;
cli.run(argv)`` works and a tool that needs only the scaffold does not pay for the command's imports.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def __getattr__(name: str) -> Any:
    if name in ("run", "main", "SAVE_BYTES"):
        from sudoku.cli import command

        return getattr(command, name)
    raise AttributeError(f"module 'sudoku.cli' has no attribute {name!r}")

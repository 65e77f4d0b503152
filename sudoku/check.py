"""Judging a grid as it stands: complete, incomplete, or invalid (with the first broken unit)."""

from __future__ import annotations

from collections import namedtuple

from sudoku.grid import Grid, find_clash

TYPE_CHECKING = False  # typing costs ~3 ms at start-up, and `import sudoku` loads this module
if TYPE_CHECKING:
    from typing import NamedTuple

    class Verdict(NamedTuple):
        status: str
        detail: str
else:
    Verdict = namedtuple("Verdict", "status detail")
Verdict.__doc__ = """``status`` is 'complete', 'incomplete' or 'invalid'; ``detail`` says why, for people."""


def check(grid: Grid) -> Verdict:
    """Invalid if a unit repeats a digit; else complete when no cell is blank; else incomplete.

    Incomplete says nothing about solvability: that is a question for an engine.
    """
    clash = find_clash(grid)
    if clash is not None:
        return Verdict("invalid", clash)
    blanks = grid.blanks
    if blanks:
        return Verdict("incomplete", f"{blanks} blank{'s' if blanks != 1 else ''}")
    return Verdict("complete", f"{grid.side}x{grid.side}, every unit holds each digit once")

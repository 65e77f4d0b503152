"""How a digit is written: 1-9, then A = 10, B = 11, ... P = 25 (the ``line`` format's values, and
what the board in ``sudoku play`` and the words of ``grade`` and ``hint`` show).

A module of its own below both ``sudoku.grid`` (``find_clash`` names a repeated digit so) and
``sudoku.formats`` (which writes and reads the line format with it), so neither imports the other
back: imports point one way, ``digits`` <- ``grid`` <- ``formats``.
"""

SYMBOLS = "123456789ABCDEFGHIJKLMNOP"  # digit d is SYMBOLS[d - 1], up to 25x25


def symbol(digit: int, side: int = 25) -> str:
    """How a digit is written for people and in the ``line`` format: 1-9, then A = 10, B = 11, ...
    on grids up to 25x25 (the board in ``sudoku play`` shows the same); plain numbers on bigger
    grids, which have no line form and whose grid format writes numbers."""
    return SYMBOLS[digit - 1] if side <= len(SYMBOLS) and 1 <= digit <= side else str(digit)

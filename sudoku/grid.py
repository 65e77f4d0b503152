"""The grid model: a puzzle or solution as a box size and a flat tuple of cell values.

A grid of box size ``box`` has ``side = box * box`` rows, columns and boxes, and ``side * side``
cells numbered row by row from 0. A cell holds 0 (blank) or a digit 1..side. Geometry (units and
peers) depends only on the box size, so it is computed once per size and shared.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from sudoku.digits import symbol

MIN_BOX = 2
MAX_BOX = 9
MADE_SIDES = (4, 9, 16, 25)  # the grid sides puzzles are made at (created, fuzzed, played); solved: 4 up to 81


class InvalidPuzzle(ValueError):
    """Malformed input: wrong shape, a value out of range, text that is no number.

    ``line`` and ``column`` (1-based, either may be None) say where; the message says what.
    The CLI turns it into one line on stderr and exit code 2.
    """

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            where.append(f"column {self.column}")
        return f"{', '.join(where)}: {self.message}" if where else self.message


class Grid:
    """An immutable square Sudoku grid: ``box`` (2..9) and ``cells`` (row-major, 0 = blank)."""

    __slots__ = ("box", "cells")
    box: int
    cells: tuple[int, ...]

    def __init__(self, box: int, cells: Iterable[int]) -> None:
        if not isinstance(box, int) or not MIN_BOX <= box <= MAX_BOX:
            raise InvalidPuzzle(f"box size must be {MIN_BOX}..{MAX_BOX}, not {box!r}")
        cells = tuple(cells)
        side = box * box
        if len(cells) != side * side:
            raise InvalidPuzzle(f"a {side}x{side} grid has {side * side} cells, not {len(cells)}")
        for index, value in enumerate(cells):
            if not isinstance(value, int) or not 0 <= value <= side:
                row, col = divmod(index, side)
                raise InvalidPuzzle(f"value {value!r} is out of range 0..{side}", line=row + 1, column=col + 1)
        object.__setattr__(self, "box", box)
        object.__setattr__(self, "cells", cells)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Grid is immutable")

    def __reduce__(self) -> tuple[type[Grid], tuple[int, tuple[int, ...]]]:
        # Pickled by value (batch and fuzz workers send grids back): rebuilt through __init__,
        # since the immutable __setattr__ refuses pickle's default slot-by-slot restore.
        return (Grid, (self.box, self.cells))

    @classmethod
    def empty(cls, box: int = 3) -> Grid:
        return cls(box, (0,) * (box**4))

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[int]]) -> Grid:
        """Build from a list of rows; the side must be a square of 2..9."""
        side = len(rows)
        box = _box_of_side(side)
        for number, row in enumerate(rows, 1):
            if len(row) != side:
                raise InvalidPuzzle(f"row has {len(row)} values, expected {side}", line=number)
        return cls(box, [value for row in rows for value in row])

    @property
    def side(self) -> int:
        return self.box * self.box

    @property
    def rows(self) -> list[list[int]]:
        side = self.side
        return [list(self.cells[r * side : (r + 1) * side]) for r in range(side)]

    @property
    def blanks(self) -> int:
        return self.cells.count(0)

    @property
    def clues(self) -> int:
        return len(self.cells) - self.blanks

    def with_cell(self, index: int, value: int) -> Grid:
        cells = list(self.cells)
        cells[index] = value
        return Grid(self.box, cells)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Grid) and self.box == other.box and self.cells == other.cells

    def __hash__(self) -> int:
        return hash((self.box, self.cells))

    def __str__(self) -> str:
        """The grid in the ``grid`` format (one row a line, single spaces, 0 = blank), without the final newline."""
        return "\n".join(" ".join(map(str, row)) for row in self.rows)

    def __repr__(self) -> str:
        return f"Grid(box={self.box}, clues={self.clues})"


def _box_of_side(side: int) -> int:
    for box in range(MIN_BOX, MAX_BOX + 1):
        if box * box == side:
            return box
    raise InvalidPuzzle(f"{side} rows is not a square grid of side 4, 9, 16, ... 81")


def box_of_side(side: int) -> int:
    """The box size of a grid with ``side`` rows; InvalidPuzzle if none (e.g. 8 rows)."""
    return _box_of_side(side)


class Geometry:
    """Units and peers of one box size, computed once (see ``geometry``)."""

    __slots__ = ("box", "side", "ncells", "units", "unit_names", "cell_units", "peers", "full", "segment_cells", "segment_links")

    def __init__(self, box: int) -> None:
        side = box * box
        self.box = box
        self.side = side
        self.ncells = side * side
        rows = [tuple(r * side + c for c in range(side)) for r in range(side)]
        cols = [tuple(r * side + c for r in range(side)) for c in range(side)]
        boxes = [
            tuple((br * box + r) * side + bc * box + c for r in range(box) for c in range(box))
            for br in range(box)
            for bc in range(box)
        ]
        self.units = tuple(rows + cols + boxes)
        self.unit_names = tuple(
            [f"row {i + 1}" for i in range(side)]
            + [f"column {i + 1}" for i in range(side)]
            + [f"box {i + 1}" for i in range(side)]
        )
        cell_units: list[list[int]] = [[] for _ in range(self.ncells)]
        for u, unit in enumerate(self.units):
            for cell in unit:
                cell_units[cell].append(u)
        self.cell_units = tuple(tuple(us) for us in cell_units)
        self.peers = tuple(
            tuple(sorted({p for u in cell_units[cell] for p in self.units[u]} - {cell}))
            for cell in range(self.ncells)
        )
        self.full = (1 << side) - 1
        # A segment is where a line (row or column) crosses a box: ``box`` cells. Segment ids run
        # line * box + part, rows first, then columns; each keeps the ids of the other segments of
        # its line and of its box, for locked-candidate eliminations.
        cells_of = []
        links = []
        for orientation in (0, 1):
            base = orientation * side * box
            for line in range(side):
                first = line - line % box
                for part in range(box):
                    if orientation == 0:
                        cells_of.append(tuple(line * side + part * box + k for k in range(box)))
                    else:
                        cells_of.append(tuple((part * box + k) * side + line for k in range(box)))
                    line_rest = tuple(base + line * box + j for j in range(box) if j != part)
                    box_rest = tuple(base + (first + k) * box + part for k in range(box) if first + k != line)
                    links.append((line_rest, box_rest))
        self.segment_cells = tuple(cells_of)
        self.segment_links = tuple(links)


@lru_cache(maxsize=None)
def geometry(box: int) -> Geometry:
    return Geometry(box)


def find_clash(grid: Grid, *, symbols: bool = False) -> str | None:
    """The first unit holding a digit twice, as a message like ``row 1 has two 5s, columns 1 and 3``.

    Returns None when no unit repeats a digit. Units are searched rows, then columns, then boxes.
    The digit is a number, as the ``grid`` format writes it; ``symbols`` names it as the board and
    the ``line`` format do (``two Es`` at 16x16: grade and hint, which say digits so).
    """
    geo = geometry(grid.box)
    cells = grid.cells
    side = geo.side
    for u, unit in enumerate(geo.units):
        seen: dict[int, int] = {}
        for position, cell in enumerate(unit):
            value = cells[cell]
            if not value:
                continue
            if value in seen:
                first, second = seen[value], position
                kind = u // side
                if kind == 0:
                    where = f"columns {first + 1} and {second + 1}"
                elif kind == 1:
                    where = f"rows {first + 1} and {second + 1}"
                else:
                    a, b = unit[first], unit[second]
                    where = f"cells r{a // side + 1}c{a % side + 1} and r{b // side + 1}c{b % side + 1}"
                if symbols:
                    return f"{geo.unit_names[u]} has two {symbol(value, side)}s, {where}"
                return f"{geo.unit_names[u]} has two {value}s, {where}"
            seen[value] = position
    return None


def is_solution(puzzle: Grid, solution: Grid) -> bool:
    """True when ``solution`` is complete, valid, and keeps every given of ``puzzle``."""
    if solution.box != puzzle.box or 0 in solution.cells:
        return False
    if any(g and g != s for g, s in zip(puzzle.cells, solution.cells)):
        return False
    return find_clash(solution) is None

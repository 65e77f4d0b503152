"""The state of a game of ``sudoku play``, apart from any screen: pure, no Textual, no files.

Vocabulary (on top of the package's box, cell, digit, peers, Grid):

- **given**: a cell of the puzzle; it never changes.
- **entry**: a digit the player put in a blank cell (``entries[cell]``, 0 = none).
- **marks**: the player's pencil marks of a cell, a bitset (bit d-1 set = digit d noted). An entry
  hides a cell's marks; erasing the entry shows them again.
- **value**: what a cell shows: its given, else its entry, else 0.
- **move**: one change of one blank cell, ``Move(cell, before, after)`` where ``before`` and
  ``after`` are ``(entry, marks)``. ``enter``, ``toggle_mark`` and ``erase`` each make at most one
  move (none when nothing would change, or on a given); ``undo`` and ``redo`` walk the history.
- **conflict**: a cell whose value a peer also shows.
- **wrong**: an entry that differs from the solution (the puzzle's unique one).
- **Game**: all of the above plus the cursor and the seconds played; ``to_dict``/``from_dict`` give
  the JSON-ready save (``SAVE_VERSION``), and ``from_dict`` checks what it reads (``BadSave``).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from sudoku.grid import Grid, InvalidPuzzle, geometry

SAVE_VERSION = 1
# A save is read from a file anyone could have written: its history and clock are bounded, so a save
# cannot take minutes and a gigabyte to load (2,000,000 moves did) or hand the clock an Infinity.
MAX_MOVES = 100_000  # done plus undone; a 25x25 game played cell by cell with marks uses a few thousand
MAX_ELAPSED_S = 10 * 365 * 24 * 3600.0
Move = namedtuple("Move", "cell before after")


class Unplayable(ValueError):
    """A puzzle with no solution or several: a game needs exactly one to check entries against."""


class BadSave(ValueError):
    """A saved game that cannot be read back: wrong shape, version or values; the message says which."""


class Game:
    """One game: the puzzle, its solution, the player's entries and marks, the history, the cursor."""

    def __init__(self, puzzle: Grid, solution: Grid) -> None:
        if solution.box != puzzle.box or 0 in solution.cells:
            raise ValueError("the solution must be a full grid of the puzzle's size")
        if any(g and g != s for g, s in zip(puzzle.cells, solution.cells)):
            raise ValueError("the solution does not keep the puzzle's givens")
        self.puzzle = puzzle
        self.solution = solution
        self.geo = geometry(puzzle.box)
        self.entries = [0] * self.geo.ncells
        self.marks = [0] * self.geo.ncells
        self.done: list[Move] = []
        self.undone: list[Move] = []
        self.cursor = 0
        self.elapsed_s = 0.0

    @classmethod
    def of(cls, puzzle: Grid) -> Game:
        """A new game of ``puzzle``: InvalidPuzzle if a unit repeats a digit, Unplayable unless it has
        exactly one solution."""
        from sudoku.engines import solve
        from sudoku.grid import find_clash

        clash = find_clash(puzzle)
        if clash:
            raise InvalidPuzzle(f"the puzzle breaks the rules: {clash}")
        answer = solve(puzzle, limit=2, engine="py")
        if answer.count == 0 or answer.solution is None:
            raise Unplayable("the puzzle has no solution")
        if answer.count > 1:
            raise Unplayable("the puzzle has several solutions; a game needs exactly one")
        return cls(puzzle, answer.solution)

    # --- what the board shows ------------------------------------------------------------------

    @property
    def side(self) -> int:
        return self.geo.side

    def is_given(self, cell: int) -> bool:
        return self.puzzle.cells[cell] != 0

    def value(self, cell: int) -> int:
        return self.puzzle.cells[cell] or self.entries[cell]

    def values(self) -> Grid:
        """The grid as shown: givens and entries (what a hint looks at)."""
        return Grid(self.puzzle.box, [self.value(cell) for cell in range(self.geo.ncells)])

    def marked(self, cell: int) -> list[int]:
        """The digits marked in ``cell``, smallest first (shown only while it has no value)."""
        return [d for d in range(1, self.side + 1) if self.marks[cell] >> (d - 1) & 1]

    def conflicts(self) -> set[int]:
        """The cells whose value a peer also shows."""
        out: set[int] = set()
        for unit in self.geo.units:
            where: dict[int, list[int]] = {}
            for cell in unit:
                value = self.value(cell)
                if value:
                    where.setdefault(value, []).append(cell)
            for cells in where.values():
                if len(cells) > 1:
                    out.update(cells)
        return out

    def wrong(self) -> list[int]:
        """The entries that differ from the solution, in cell order."""
        return [cell for cell, entry in enumerate(self.entries) if entry and entry != self.solution.cells[cell]]

    def blanks(self) -> int:
        """How many cells show no value yet."""
        return sum(1 for cell in range(self.geo.ncells) if not self.value(cell))

    def solved(self) -> bool:
        return all(self.value(cell) == self.solution.cells[cell] for cell in range(self.geo.ncells))

    # --- the cursor ----------------------------------------------------------------------------

    def move_cursor(self, drow: int, dcol: int) -> None:
        """Move the cursor, wrapping round the edges."""
        row, col = divmod(self.cursor, self.side)
        self.cursor = (row + drow) % self.side * self.side + (col + dcol) % self.side

    def put_cursor(self, row: int, col: int) -> None:
        if not (0 <= row < self.side and 0 <= col < self.side):
            raise ValueError(f"no cell at row {row + 1}, column {col + 1} of a {self.side}x{self.side} grid")
        self.cursor = row * self.side + col

    # --- moves ---------------------------------------------------------------------------------

    def enter(self, cell: int, digit: int) -> bool:
        """Put ``digit`` in ``cell``; False (and no move) on a given or when it is there already."""
        self._check_digit(digit)
        return self._change(cell, digit, self.marks[cell])

    def toggle_mark(self, cell: int, digit: int) -> bool:
        """Add or remove a pencil mark; False (no move) on a given or a cell with an entry."""
        self._check_digit(digit)
        if self.entries[cell]:
            return False
        return self._change(cell, 0, self.marks[cell] ^ (1 << (digit - 1)))

    def erase(self, cell: int) -> bool:
        """Clear the entry of ``cell``, or its marks when it has none; False when there is nothing."""
        if self.entries[cell]:
            return self._change(cell, 0, self.marks[cell])
        return self._change(cell, 0, 0)

    def undo(self) -> bool:
        """Take back the last move and put the cursor on its cell (so the player sees what changed);
        False when there is none."""
        if not self.done:
            return False
        move = self.done.pop()
        self._set(move.cell, move.before)
        self.undone.append(move)
        self.cursor = move.cell
        return True

    def redo(self) -> bool:
        """Make again the last move taken back, the cursor on its cell; False when there is none."""
        if not self.undone:
            return False
        move = self.undone.pop()
        self._set(move.cell, move.after)
        self.done.append(move)
        self.cursor = move.cell
        return True

    def _check_digit(self, digit: int) -> None:
        if not 1 <= digit <= self.side:
            raise ValueError(f"digit {digit} is out of range 1..{self.side}")

    def _change(self, cell: int, entry: int, marks: int) -> bool:
        if self.is_given(cell):
            return False
        before = (self.entries[cell], self.marks[cell])
        after = (entry, marks)
        if before == after:
            return False
        self._set(cell, after)
        self.done.append(Move(cell, before, after))
        self.undone.clear()
        return True

    def _set(self, cell: int, state: tuple[int, int]) -> None:
        self.entries[cell], self.marks[cell] = state

    # --- saving --------------------------------------------------------------------------------

    def to_dict(self, **extra: Any) -> dict[str, Any]:
        """The game as JSON-ready data (``extra`` keys, e.g. seed and level, are kept alongside)."""
        return {
            "version": SAVE_VERSION,
            "box": self.puzzle.box,
            "puzzle": list(self.puzzle.cells),
            "solution": list(self.solution.cells),
            "entries": list(self.entries),
            "marks": list(self.marks),
            "done": [[m.cell, list(m.before), list(m.after)] for m in self.done],
            "undone": [[m.cell, list(m.before), list(m.after)] for m in self.undone],
            "cursor": self.cursor,
            "elapsed_s": round(self.elapsed_s, 3),
            **extra,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Game:
        """The game saved by ``to_dict``; BadSave names the first thing wrong with ``data``."""
        if not isinstance(data, dict):
            raise BadSave("a saved game is a JSON object")
        if data.get("version") != SAVE_VERSION:
            raise BadSave(f"saved game version {_shown(data.get('version'))} is not {SAVE_VERSION}")
        try:
            box = data["box"]
            game = cls(Grid(box, data["puzzle"]), Grid(box, data["solution"]))
        except KeyError as error:
            raise BadSave(f"saved game has no {error.args[0]!r}") from None
        except (InvalidPuzzle, ValueError, TypeError) as error:
            raise BadSave(f"saved game: {_cut(str(error))}") from None
        from sudoku.grid import is_solution

        if not is_solution(game.puzzle, game.solution):
            raise BadSave("saved game: the solution does not solve the puzzle")
        ncells, full = game.geo.ncells, game.geo.full
        game.entries = _ints(data, "entries", ncells, game.side)
        game.marks = _ints(data, "marks", ncells, full)
        for cell in range(ncells):
            if game.is_given(cell) and (game.entries[cell] or game.marks[cell]):
                raise BadSave(f"saved game changes given cell {cell}")
        game.done = _moves(data, "done", game)
        game.undone = _moves(data, "undone", game)
        if len(game.done) + len(game.undone) > MAX_MOVES:
            raise BadSave(f"saved game holds {len(game.done) + len(game.undone)} moves, more than {MAX_MOVES}")
        cursor, elapsed = data.get("cursor", 0), data.get("elapsed_s", 0.0)
        if not isinstance(cursor, int) or isinstance(cursor, bool) or not 0 <= cursor < ncells:
            raise BadSave(f"saved game cursor {_shown(cursor)} is not a cell")
        if not isinstance(elapsed, (int, float)) or isinstance(elapsed, bool) or not 0 <= elapsed <= MAX_ELAPSED_S:
            raise BadSave(f"saved game time {_shown(elapsed)} is not a number of seconds (0 to ten years)")
        game.cursor, game.elapsed_s = cursor, float(elapsed)
        return game


def _ints(data: dict[str, Any], key: str, length: int, top: int) -> list[int]:
    values = data.get(key)
    if not isinstance(values, list) or len(values) != length:
        raise BadSave(f"saved game {key!r} is not a list of {length} numbers")
    for value in values:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= top:
            raise BadSave(f"saved game {key!r} holds {_shown(value)}, not a number 0..{top}")
    return list(values)


def _moves(data: dict[str, Any], key: str, game: Game) -> list[Move]:
    ncells, side, full = game.geo.ncells, game.side, game.geo.full
    items = data.get(key, [])
    if not isinstance(items, list):
        raise BadSave(f"saved game {key!r} is not a list of moves")
    if len(items) > MAX_MOVES:
        raise BadSave(f"saved game {key!r} holds {len(items)} moves, more than {MAX_MOVES}")
    moves = []
    for item in items:
        try:
            cell, (entry0, marks0), (entry1, marks1) = item
        except (TypeError, ValueError):
            raise BadSave(f"saved game {key!r} holds {_shown(item)}, not a move") from None
        numbers = (cell, entry0, marks0, entry1, marks1)
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers) or not (
            0 <= cell < ncells and 0 <= entry0 <= side and 0 <= entry1 <= side and 0 <= marks0 <= full
            and 0 <= marks1 <= full and not game.is_given(cell)
        ):
            raise BadSave(f"saved game {key!r} holds {_shown(item)}, not a move")
        moves.append(Move(cell, (entry0, marks0), (entry1, marks1)))
    return moves


def _shown(value: Any) -> str:
    """A value from a save, for a message: cut short (a bad save may hold a list of a million)."""
    return _cut(repr(value), 60)


def _cut(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."

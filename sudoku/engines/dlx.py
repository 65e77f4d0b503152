"""The exact-cover engine: Sudoku as exact cover, solved with Knuth's Algorithm X.

Built differently from the ``py`` engine on purpose, so each checks the other. A choice ("row") is
(cell, digit); it covers four constraints ("columns"): the cell is filled, and the digit appears in
its row, its column and its box. Columns map to the set of choices that cover them; covering a choice
removes every column it fills and every choice that clashes with it, and uncovering restores them in
reverse order (the dict-of-sets form of dancing links). Search branches on the column with the fewest
choices left, so it branches on a cell or on a digit's places in a unit, whichever is narrower.
"""

from __future__ import annotations

from functools import lru_cache

from sudoku.engines import Answer, Counters
from sudoku.grid import Grid

TYPE_CHECKING = False  # as in sudoku.engines: only the type checker needs these
if TYPE_CHECKING:
    from sudoku.budget import Budget

    Choice = tuple[int, int]  # (cell, digit)
    Choices = dict[Choice, tuple[int, int, int, int]]
    Columns = dict[int, set[Choice]]


@lru_cache(maxsize=None)
def _choices(box: int) -> Choices:
    """For each choice (cell, digit), the four constraint ids it covers."""
    side = box * box
    ncells = side * side
    out: Choices = {}
    for cell in range(ncells):
        r, c = divmod(cell, side)
        b = (r // box) * box + c // box
        for digit in range(1, side + 1):
            d = digit - 1
            out[(cell, digit)] = (
                cell,
                ncells + r * side + d,
                2 * ncells + c * side + d,
                3 * ncells + b * side + d,
            )
    return out


def _columns(choices: Choices) -> Columns:
    columns: Columns = {}
    for choice, covers in choices.items():
        for col in covers:
            columns.setdefault(col, set()).add(choice)
    return columns


def _cover(columns: Columns, choices: Choices, choice: Choice) -> list[set[Choice]]:
    """Take ``choice``: remove its columns and every choice that shares one. Returns what to restore."""
    removed: list[set[Choice]] = []
    for col in choices[choice]:
        for other in columns[col]:
            for other_col in choices[other]:
                if other_col != col:
                    columns[other_col].discard(other)
        removed.append(columns.pop(col))
    return removed


def _uncover(columns: Columns, choices: Choices, choice: Choice, removed: list[set[Choice]]) -> None:
    for col in reversed(choices[choice]):
        columns[col] = removed.pop()
        for other in columns[col]:
            for other_col in choices[other]:
                if other_col != col:
                    columns[other_col].add(other)


def solve(puzzle: Grid, *, limit: int = 1, budget: Budget | None = None) -> Answer:
    """The engine contract: count solutions up to ``limit``, return the first, with counters.

    ``budget`` (a sudoku.budget.Budget) is charged every node: BudgetExceeded past it."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    choices = _choices(puzzle.box)
    columns = _columns(choices)
    nodes = guesses = 0
    for cell, value in enumerate(puzzle.cells):
        if value:
            choice = (cell, value)
            if any(col not in columns or choice not in columns[col] for col in choices[choice]):
                return Answer(0, None, Counters(0, 1))  # clashes with an earlier given
            _cover(columns, choices, choice)
    cells = list(puzzle.cells)
    count = 0
    first: list[int] | None = None
    frames: list[tuple[list[Choice], bool]] = []  # per depth: [choices left to try, whether the column offered more than one]
    taken: list[tuple[Choice, list[set[Choice]]]] = []  # per depth: (choice, what covering it removed); one behind frames while expanding
    expand = True
    while True:
        if expand:
            nodes += 1
            if budget is not None:
                budget.charge()
            if not columns:
                count += 1
                if first is None:
                    first = list(cells)
                    for (cell, digit), _ in taken:
                        first[cell] = digit
                if count >= limit:
                    break
            else:
                options = sorted(min(columns.values(), key=len), reverse=True)  # type: ignore[arg-type]  # the narrowest column (mypy: len as a key)
                frames.append((options, len(options) > 1))
            expand = False
        while frames:
            options, branching = frames[-1]
            if len(taken) == len(frames):
                choice, removed = taken.pop()
                _uncover(columns, choices, choice, removed)
            if options:
                choice = options.pop()
                guesses += branching
                taken.append((choice, _cover(columns, choices, choice)))
                expand = True
                break
            frames.pop()
        if not expand:
            break
    solution = Grid(puzzle.box, first) if first is not None else None
    return Answer(count, solution, Counters(guesses, nodes))

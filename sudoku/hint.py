"""Hints: the next logical step of a partly filled grid, in words.

Vocabulary (on top of ``sudoku.techniques``):

- **hint**: ``Hint(step, words, problem)``: the step the simplest technique finds and a sentence
  for a person ("hidden single: 7 in row 3 goes in column 5"); or no step and ``problem``, which
  says why: the grid is solved, an entry breaks it (a repeated digit, a cell or digit left with no
  place, no solution), or no technique applies (it needs guessing).
- **broken**: a grid whose entries already rule out every solution.
"""

from collections import namedtuple
from collections.abc import Callable, Iterable

from sudoku.digits import symbol
from sudoku.grid import Geometry, Grid, geometry
from sudoku.techniques import Board, Candidate, Step, bits, cell_name, next_step

TYPE_CHECKING = False  # as in sudoku.techniques: typing only for the type checker
if TYPE_CHECKING:
    from typing import NamedTuple

    class Hint(NamedTuple):
        step: Step | None
        words: str | None
        problem: str | None
        broken: bool
else:
    Hint = namedtuple("Hint", "step words problem broken")


def hint(grid: Grid) -> Hint:
    """The next logical step of ``grid`` in words, or why there is none."""
    from sudoku.engines import py
    from sudoku.grid import find_clash

    clash = find_clash(grid, symbols=True)
    if clash:
        return Hint(None, None, f"an entry breaks the puzzle: {clash}", True)
    board = Board.of(grid)
    if board.solved():
        return Hint(None, None, "the grid is already solved", False)
    broken = board.contradiction()
    if broken is None and py.solve(grid, limit=1).count == 0:
        broken = "no solution can keep these entries"
    if broken:
        return Hint(None, None, f"an entry breaks the puzzle: {broken}", True)
    step = next_step(board)
    if step is None:
        return Hint(None, None, "no logical step applies: the puzzle needs guessing from here", False)
    return Hint(step, describe(step, grid.box), None, False)


def describe(step: Step, box: int) -> str:
    """A sentence for a step on a grid of ``box``."""
    geo = geometry(box)
    words = _SAY.get(step.technique, _say_pattern)(step, geo)
    return f"{step.technique}: {words}"


def _cells(geo: Geometry, cells: Iterable[int]) -> str:
    return ", ".join(cell_name(geo, c) for c in cells)


def _d(geo: Geometry, digit: int) -> str:
    """A digit as the board and the line format write it (E, not 14, at 16x16)."""
    return symbol(digit, geo.side)


def _and(items: Iterable[object]) -> str:
    words = [str(i) for i in items]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _removals(geo: Geometry, eliminations: Iterable[Candidate]) -> str:
    by_digit: dict[int, list[int]] = {}
    for cell, digit in eliminations:
        by_digit.setdefault(digit, []).append(cell)
    return "; ".join(f"{_d(geo, digit)} leaves {_cells(geo, cells)}" for digit, cells in sorted(by_digit.items()))


def _say_naked_single(step: Step, geo: Geometry) -> str:
    cell, digit = step.placement  # type: ignore[misc]  # a single places a digit
    return f"{cell_name(geo, cell)} can only be {_d(geo, digit)}"


def _say_hidden_single(step: Step, geo: Geometry) -> str:
    cell, digit = step.placement  # type: ignore[misc]  # a single places a digit
    unit = step.units[0]
    row, col = divmod(cell, geo.side)
    where = {0: f"column {col + 1}", 1: f"row {row + 1}"}.get(unit // geo.side, cell_name(geo, cell))
    return f"{_d(geo, digit)} in {geo.unit_names[unit]} goes in {where}"


def _say_locked(step: Step, geo: Geometry) -> str:
    home, line = step.units
    (digit,) = step.digits
    return (f"in {geo.unit_names[home]}, {_d(geo, digit)} lies only in {geo.unit_names[line]}, "
            f"so {_removals(geo, step.eliminations)}")


def _say_naked(step: Step, geo: Geometry) -> str:
    return (f"{_cells(geo, step.cells)} hold only {_and(_d(geo, d) for d in step.digits)} in {geo.unit_names[step.units[0]]}, "
            f"so {_removals(geo, step.eliminations)}")


def _say_hidden(step: Step, geo: Geometry) -> str:
    return (f"in {geo.unit_names[step.units[0]]}, {_and(_d(geo, d) for d in step.digits)} fit only {_cells(geo, step.cells)}, "
            f"so {_removals(geo, step.eliminations)}")


def _say_fish(step: Step, geo: Geometry) -> str:
    half = len(step.units) // 2
    base, cover = step.units[:half], step.units[half:]
    (digit,) = step.digits
    return (f"{_d(geo, digit)} in {_and(geo.unit_names[u] for u in base)} lies only in "
            f"{_and(geo.unit_names[u] for u in cover)}, so {_removals(geo, step.eliminations)}")


def _say_wing(step: Step, geo: Geometry) -> str:
    pivot, a, b = step.cells
    return (f"pivot {cell_name(geo, pivot)} with pincers {cell_name(geo, a)} and {cell_name(geo, b)}, "
            f"so {_removals(geo, step.eliminations)}")


def _say_chain(step: Step, geo: Geometry) -> str:
    nodes = list(zip(step.cells, step.digits))
    (c0, d0), (c1, d1) = nodes[0], nodes[-1]
    chain = ", ".join(f"{cell_name(geo, c)} {_d(geo, d)}" for c, d in nodes)
    return (f"{cell_name(geo, c0)} is {_d(geo, d0)} or {cell_name(geo, c1)} is {_d(geo, d1)} (chain {chain}), "
            f"so {_removals(geo, step.eliminations)}")


_BY = {
    "forcing chain": "by singles",
    "dynamic forcing chain": "by singles, locked candidates and naked and hidden pairs",
    "nested forcing chain": "by singles, locked candidates, pairs and forcing chains of its own (from two-candidate cells)",
}


def _say_forcing(step: Step, geo: Geometry) -> str:
    by = _BY[step.technique]
    if len(step.cells) == 1:
        (cell,), (digit,) = step.cells, step.digits
        said = _d(geo, digit)
        return f"{said} in {cell_name(geo, cell)} leads {by} to a contradiction, so it is not {said} there"
    each = _and(f"{_d(geo, digit)} in {cell_name(geo, cell)}" for cell, digit in zip(step.cells, step.digits))
    return f"each of {each} leads {by} to a contradiction, so {_removals(geo, step.eliminations)}"


def _say_guess(step: Step, geo: Geometry) -> str:
    cell, digit = step.placement  # type: ignore[misc]  # a guess places a digit
    return f"no technique applies; {cell_name(geo, cell)} is {_d(geo, digit)} in the solution"


def _say_pattern(step: Step, geo: Geometry) -> str:
    digits = _and(_d(geo, d) for d in bits(sum(1 << (d - 1) for d in set(step.digits))))
    return f"{digits} on {_cells(geo, step.cells)}, so {_removals(geo, step.eliminations)}"


_SAY: dict[str, Callable[[Step, Geometry], str]] = {
    "naked single": _say_naked_single,
    "hidden single": _say_hidden_single,
    "pointing": _say_locked,
    "claiming": _say_locked,
    "naked pair": _say_naked,
    "naked triple": _say_naked,
    "naked quad": _say_naked,
    "hidden pair": _say_hidden,
    "hidden triple": _say_hidden,
    "hidden quad": _say_hidden,
    "x-wing": _say_fish,
    "swordfish": _say_fish,
    "jellyfish": _say_fish,
    "xy-wing": _say_wing,
    "xyz-wing": _say_wing,
    "x-chain": _say_chain,
    "aic": _say_chain,
    "forcing chain": _say_forcing,
    "dynamic forcing chain": _say_forcing,
    "nested forcing chain": _say_forcing,
    "simple colouring": _say_pattern,
    "guess": _say_guess,
}

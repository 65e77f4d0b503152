"""The default route: the engine a solve that names none uses (``sudoku solve`` without ``--engine``).

Why an engine of its own: choosing which engine solves a grid, in what order and with what share
of the budget, is policy; the engines are mechanism and never choose another engine. So the
route sits here, behind the same contract, and the registry only lists it.

- Up to 9x9: ``py`` alone, since a single call must start in milliseconds (numba is never loaded).
- From 16x16 up, most grids: ``sat`` (CaDiCaL learns from its dead ends where depth-first search
  thrashes, the random grids at 45-70 % blank); it propagates with ``py``'s rules first, so a grid
  that singles fill never loads python-sat.
- Near-empty grids (at most ``side`` givens): matched to a transformed pattern grid
  (``pattern.match``), which fits any such grid, where search and CDCL stall on the last rows.
- The rest (more than ``SAT_MAX_BLANK`` blank, or too big to encode quickly): ``py`` for
  ``QUICK_SECONDS``, since loading ``big`` costs a second or more; then ``big`` with its restarts
  for one solution, and for counting turns between ``py`` and ``big`` with a doubling time slice
  (each one's complete search can stall where the other's does not).

Counts are those of any engine; which of several solutions comes first may differ. The caller's
``budget`` covers every try. The dense pattern match, which helps only grids made by blanking a
transformed pattern grid, is not on this route: it is the opt-in engine ``pattern``. Figures:
docs/engines.md.
"""

from __future__ import annotations

from sudoku.engines import Answer, default_for, solve as solve_with

TYPE_CHECKING = False  # as in sudoku.engines: only the type checker needs these
if TYPE_CHECKING:
    from sudoku.budget import Budget
    from sudoku.grid import Grid

BOXES = range(2, 10)
QUICK_SECONDS = 0.3  # py's first try on a near-empty big grid, before the compiled engine is loaded
SAT_MAX_LITERALS = 150_000  # blanks x side: above it (near-empty 64x64 and up) encoding in Python takes 8 s and more
SAT_MAX_BLANK = 0.85  # near-empty grids are fills: CaDiCaL needs ~4,000 decisions and 2.3 s for an empty 25x25 grid


def suits_sat(puzzle: Grid) -> bool:
    """Whether the route hands ``puzzle`` (16x16 up) to ``sat``: not near-empty, and quick to encode."""
    return puzzle.blanks <= SAT_MAX_BLANK * len(puzzle.cells) and puzzle.blanks * puzzle.side <= SAT_MAX_LITERALS


def solve(puzzle: Grid, *, limit: int = 1, budget: Budget | None = None) -> Answer:
    """The engine contract, by the route of the module docstring."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    engine = default_for(puzzle.box)
    if engine == "py":
        return solve_with(puzzle, limit=limit, engine="py", budget=budget)
    if suits_sat(puzzle):
        return solve_with(puzzle, limit=limit, engine="sat", budget=budget)
    if puzzle.clues <= puzzle.side:
        found = _fill(puzzle, limit, budget)
        if found is not None:
            return found
    return _take_turns(puzzle, limit, budget, engine)


def _fill(puzzle: Grid, limit: int, budget: Budget | None) -> Answer | None:
    """``pattern.match`` of a near-empty grid within the caller's budget (``sudoku.budget.within``:
    the SAT solver it uses cannot be interrupted, so under a time cap it runs in a forked child)."""
    from sudoku.budget import within
    from sudoku.engines import pattern

    if not pattern.may_fit(puzzle):  # ~1 ms here, where a forked child costs more
        return None
    found: Answer | None = within(budget, lambda inner: pattern.match(puzzle, limit=limit, budget=inner))
    return found


def _take_turns(puzzle: Grid, limit: int, budget: Budget | None, engine: str) -> Answer:
    """``py`` for QUICK_SECONDS, then ``engine`` to the end for one solution; for counting, turns
    between the two with a slice that doubles each round."""
    from sudoku.budget import Budget, BudgetExceeded  # here, not at the top: 9x9 solves never need it

    seconds = QUICK_SECONDS
    turns = ["py", engine] if limit >= 2 else ["py"]
    while True:
        for name in turns:
            left = None if budget is None else budget.remaining()
            if budget is not None and left is not None and left <= 0:
                budget.charge(0)  # past the caller's deadline: its BudgetExceeded
            quick = Budget(seconds=seconds if left is None else min(seconds, left))
            try:
                return solve_with(puzzle, limit=limit, engine=name, budget=quick)
            except BudgetExceeded:
                if budget is not None:
                    budget.charge(quick.spent)
        if limit < 2:
            return solve_with(puzzle, limit=limit, engine=engine, budget=budget)
        seconds *= 2

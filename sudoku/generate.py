"""Making puzzles: a random complete grid, then clues removed while the solution stays unique.

A removal is kept only if no solution other than the known one appears (the engine's ``has_other``:
one search with the known digit forbidden, cheaper than counting to two). Difficulty is measured, not
guessed, by how the ``py`` engine's propagation fares on the result:

- ``easy``: naked singles alone solve it;
- ``medium``: singles alone solve it, but only with hidden singles (and, from 16x16 up, locked
  candidates);
- ``hard``: singles stall, so a solver must guess.

Randomness comes only from a ``random.Random`` seeded with the caller's seed, so a seed names a puzzle.
"""

from __future__ import annotations

from sudoku.engines import info, load
from sudoku.grid import Grid

TYPE_CHECKING = False  # typing costs ~3 ms at start-up; only the type checker needs these
if TYPE_CHECKING:
    import random
    from types import ModuleType

    from sudoku.budget import Budget

DIFFICULTIES = ("easy", "medium", "hard")
_LEVEL = {"easy": "naked", "medium": "hidden", "hard": "guess"}
_RANK = {"naked": 0, "hidden": 1, "guess": 2}
ATTEMPTS = 200


class GenerationFailed(RuntimeError):
    """No puzzle met the request (e.g. too many blanks asked for) within the attempts allowed."""


def min_blanks(box: int) -> int:
    """The fewest blanks a created puzzle may have: 40 at 9x9, half the cells at other sizes."""
    cells = box**4
    return 40 if box == 3 else (cells + 1) // 2


def derive_seed(seed: int, *path: int | str) -> int:
    """A 63-bit seed derived from ``seed`` and a path such as (chunk, index): stable across runs,
    platforms and Python versions, so any puzzle of a batch can be rebuilt alone."""
    import hashlib  # here, not at the top: `sudoku solve` never needs it

    text = ":".join(str(part) for part in (seed, *path)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def new_seed() -> int:
    """A fresh random seed, for when the user gave none (and is told which was used)."""
    import random

    return random.SystemRandom().getrandbits(63)


def create(box: int = 3, *, seed: int, blanks: int | None = None, difficulty: str | None = None,
           minimal: bool = False, engine: str = "py", attempts: int = ATTEMPTS, budget: Budget | None = None,
           symmetric: bool = False) -> Grid:
    """A puzzle with a unique solution and at least ``max(blanks, min_blanks(box))`` blanks.

    ``budget`` (a sudoku.budget.Budget) bounds the work: BudgetExceeded past it; only engines
    with the ``budget`` capability take one (ValueError otherwise).
    ``difficulty`` is one of DIFFICULTIES or None (any). ``minimal`` keeps removing until no clue can
    go. Otherwise removal stops once the blanks wanted are reached, except at 9x9 and for medium and
    hard puzzles, which are made minimal (they need every removal they can get).
    ``symmetric`` blanks cells in pairs turned 180 degrees into each other (cell i and cells - 1 - i),
    so the clue pattern has rotational symmetry, as in puzzle books.
    Raises GenerationFailed when no attempt succeeds.
    """
    if difficulty is not None and difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {', '.join(DIFFICULTIES)}, not {difficulty!r}")
    if "fill" not in info(engine).capabilities:
        raise ValueError(f"engine {engine!r} cannot create puzzles (it has no 'fill')")
    if box == 2 and difficulty in ("medium", "hard"):
        raise GenerationFailed(f"no {difficulty} 4x4 puzzle exists: naked singles solve every unique 4x4 puzzle")
    cells = box**4
    wanted = max(blanks or 0, min_blanks(box))
    if wanted >= cells:
        raise GenerationFailed(f"{wanted} blanks is not possible in a grid of {cells} cells")
    if budget is not None and "budget" not in info(engine).capabilities:
        raise ValueError(f"engine {engine!r} cannot be bounded by a budget")
    solver = load(engine)
    if difficulty is None and "generate" in info(engine).capabilities:
        try:
            extra = {"symmetric": True} if symmetric else {}  # engines without the option keep their contract
            made: Grid = solver.generate(box, seed=seed, blanks=wanted, minimal=minimal or box == 3, **extra)
            return made
        except ValueError as error:
            raise GenerationFailed(str(error)) from None
    import random  # here, not at the top: `sudoku solve` never needs it

    rng = random.Random(seed)
    rater = load("py")
    level = _LEVEL.get(difficulty or "")
    if difficulty is None:
        cap = None if box == 3 else "hidden"
    else:
        cap = None if level == "guess" else level
    stop = None if minimal or difficulty in ("medium", "hard") or (difficulty is None and box == 3) else wanted
    for _ in range(attempts):
        solution = solver.fill(box, rng, budget) if budget is not None else solver.fill(box, rng)
        puzzle = _remove(solution, rng, solver, rater, cap, stop, budget, symmetric)
        if puzzle.blanks >= wanted and (level is None or rater.rate(puzzle, budget) == level):
            return puzzle
    what = f"{difficulty} puzzle" if difficulty else "puzzle"
    raise GenerationFailed(f"no {what} with at least {wanted} blanks found in {attempts} attempts")


def _remove(solution: Grid, rng: random.Random, solver: ModuleType, rater: ModuleType, cap: str | None,
            stop: int | None, budget: Budget | None = None, symmetric: bool = False) -> Grid:
    """Blank cells of ``solution`` in random order while the puzzle stays unique; stop early once
    ``stop`` blanks are reached, if ``stop`` is given.

    With a ``cap`` ("naked" or "hidden"), a removal is kept only while singles of that kind still
    fill the grid; that also proves uniqueness, with no search. It keeps big grids fast: half-blank
    puzzles are where searches for a second solution thrash. Without a cap, uniqueness is proved
    by the engine's ``has_other``. With ``symmetric`` a cell and its turn by 180 degrees go together.
    """
    last = len(solution.cells) - 1
    order = list(range(len(solution.cells)))
    if symmetric:
        order = order[: last // 2 + 1]  # one cell of each pair; the centre pairs with itself
    rng.shuffle(order)
    cells = list(solution.cells)
    blanks = 0
    for cell in order:
        if stop is not None and blanks >= stop:
            break
        group = sorted({cell, last - cell}) if symmetric else [cell]
        for blank in group:
            cells[blank] = 0
        if cap is not None:
            keep = _RANK[rater.rate(Grid(solution.box, cells), budget)] <= _RANK[cap]
        else:
            keep = _unique_without(cells, group, solution, solver, budget)
        if keep:
            blanks += len(group)
        else:
            for blank in group:
                cells[blank] = solution.cells[blank]
    return Grid(solution.box, cells)


def _unique_without(cells: list[int], group: list[int], solution: Grid, solver: ModuleType,
                    budget: Budget | None) -> bool:
    """Whether ``cells`` (``solution`` with the cells of ``group`` blanked, and others) still has
    ``solution`` as its one solution: another one differs at some cell of the group, so ask
    ``has_other`` once per cell of the group, with the cells before it given back."""
    trial = list(cells)
    for blank in group:
        puzzle = Grid(solution.box, trial)
        other = (solver.has_other(puzzle, solution, blank, budget) if budget is not None
                 else solver.has_other(puzzle, solution, blank))
        if other:
            return False
        trial[blank] = solution.cells[blank]
    return True

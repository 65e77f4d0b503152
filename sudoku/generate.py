"""Making puzzles: a random complete grid, then clues removed while the solution stays unique.

A removal is kept only if no solution other than the known one appears (the engine's ``has_other``:
one search with the known digit forbidden, cheaper than counting to two). Difficulty is measured, not
guessed: it is the human level of ``sudoku.grade`` (the hardest technique a person needs: easy,
medium, hard, expert, extreme), and a puzzle asked for at a level is made, graded, and kept only at
that level:

- ``easy``: clues are removed only while singles alone still solve the puzzle (naked singles alone
  from 16x16 up, where the engine's singles include locked candidates), so every try is easy;
- ``medium`` and ``hard`` at 9x9: a minimal puzzle (no clue can go), graded; about 40 % of random
  minimal puzzles are easy, 4 % expert, and extreme ones (nested forcing chains or guessing) are
  rarer than 1 in a million (none in a sieve of 4.6 million; rates in docs/benchmarks.md);
- ``medium`` from 16x16 up: clues removed while singles and locked candidates solve it, graded;
  ``hard`` and up there: minimal puzzles, graded (tens of seconds a try: not practical);
- at 4x4 only ``easy`` exists (naked singles solve every unique 4x4 puzzle).

**Expert and extreme at 9x9 come from the bank** (``sudoku.bank``), since making one takes tens of
seconds (expert) or is out of reach (extreme): an extreme puzzle from ``create`` is one of the
bank's extreme puzzles (new puzzles we climbed to from published hardest puzzles, 8 or more clue
changes away, graded extreme at every step; ``bench/make_bank.py`` remakes them from their seeds)
under a random symmetry of the grid (digits relabelled, rows within bands, bands, columns within
stacks, stacks, transposition: about 1.2e12 variants of each), its solution counted again to be
unique and its level confirmed by grading it again (``GenerationFailed`` if that ever disagreed:
the techniques look at cells in a fixed order, so a symmetry changes which step comes first, but
make_bank keeps only entries that grade at their level under random symmetries, and the tests and
``bench/bench_create_bank.py --check`` grade 1,000 draws). So two seeds may give variants of one
bank puzzle: the same puzzle to a solver, a different one to the eye. With ``symmetric``, or more
blanks than the drawn puzzle has, the generate-and-grade path is used (for extreme it almost surely
fails), and so it is for a level a bank file does not hold.

**Levels by size**: 4x4 easy only; 9x9 all five (expert and extreme from the bank); 16x16 and
25x25 easy and medium in seconds, hard and up only by grading minimal puzzles (tens of seconds a
try, few tries at the level: ``unmade_reason``).

Until the human levels came, easy/medium/hard meant how the ``py`` engine's propagation fares: old
easy = naked singles alone (a part of easy now), old medium = hidden singles needed (easy now), old
hard = singles stall (medium, hard, expert or extreme now).

Randomness comes only from a ``random.Random`` seeded with the caller's seed, so a seed names a puzzle.
"""

from __future__ import annotations

from sudoku.engines import default_for, info, load
from sudoku.grid import Grid

TYPE_CHECKING = False  # typing costs ~3 ms at start-up; only the type checker needs these
if TYPE_CHECKING:
    import random
    from collections.abc import Callable
    from types import ModuleType

    from sudoku.budget import Budget

DIFFICULTIES = ("easy", "medium", "hard", "expert", "extreme")  # sudoku.grade.LEVELS
BANK_LEVELS = ("expert", "extreme")  # made at 9x9 from the bank (sudoku.bank)
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


_NO_4X4_LEVEL = "naked singles solve every unique 4x4 puzzle"


def refuse_impossible(box: int, difficulty: str | None, blanks: int | None = None) -> None:
    """GenerationFailed at once for a level no puzzle of this size has, or more blanks than a puzzle
    with a solution can have (a caller may check before it starts anything that waits on the puzzle)."""
    if box == 2 and difficulty not in (None, "easy"):
        raise GenerationFailed(f"no {difficulty} 4x4 puzzle exists: {_NO_4X4_LEVEL}")
    cells = box**4
    wanted = max(blanks or 0, min_blanks(box))
    if wanted >= cells:
        raise GenerationFailed(f"{wanted} blanks is not possible in a grid of {cells} cells")


def generator_reach(engine: str, box: int, *, symmetric: bool = False) -> int:
    """The most blanks ``engine``'s own ``generate`` is asked for (nb: MAX_BLANKS, or
    MAX_BLANKS_SYMMETRIC); every cell for an engine without such a bound. Past it, ``create`` makes
    puzzles from the engine's fill, and a batch goes case by case."""
    return int(getattr(load(engine), "MAX_BLANKS_SYMMETRIC" if symmetric else "MAX_BLANKS", box**4))


def unmade_reason(box: int, difficulty: str) -> str | None:
    """Why ``create`` cannot make a ``difficulty`` puzzle of this size while a person waits (a game
    offers only the levels without a reason), or None when it makes one in seconds. Above 9x9,
    hard and up are minimal puzzles graded, tens of seconds a try and few tries at the level
    (measured in docs/sudoku.md, Play); at 9x9 expert and extreme come from the bank."""
    if box == 2 and difficulty != "easy":
        return _NO_4X4_LEVEL
    if box == 3 and difficulty in BANK_LEVELS:
        from sudoku.bank import at_level

        if not at_level(difficulty):
            return f"{difficulty} 9x9 puzzles come from the bank, which holds none (made on demand, one takes minutes or more)"
    if box > 3 and difficulty not in ("easy", "medium"):
        side = box * box
        return (f"{side}x{side} puzzles above medium are minimal puzzles graded, tens of seconds a try, "
                "and few tries reach the level")
    return None


def create(box: int = 3, *, seed: int, blanks: int | None = None, difficulty: str | None = None,
           minimal: bool = False, engine: str | None = None, attempts: int = ATTEMPTS, budget: Budget | None = None,
           symmetric: bool = False, progress: Callable[[str], None] | None = None, bank: bool = True) -> Grid:
    """A puzzle with a unique solution and at least ``max(blanks, min_blanks(box))`` blanks.

    ``budget`` (a sudoku.budget.Budget) bounds the work: BudgetExceeded past it; only engines
    with the ``budget`` capability take one (ValueError otherwise).
    ``engine`` None is ``sudoku.engines.default_for(box)``: ``py`` up to 9x9, the compiled ``big``
    from 16x16 up (its ``graded`` capability makes the whole puzzle in compiled code).
    ``difficulty`` is one of DIFFICULTIES or None (any). ``minimal`` keeps removing until no clue can
    go. Otherwise removal stops once the blanks wanted are reached, except at 9x9 and for medium and
    hard puzzles, which are made minimal (they need every removal they can get).
    ``symmetric`` blanks cells in pairs turned 180 degrees into each other (cell i and cells - 1 - i),
    so the clue pattern has rotational symmetry, as in puzzle books.
    ``bank`` False makes and grades expert and extreme 9x9 puzzles too (how the bank's are found).
    ``progress``, if given, is called with a short sentence at each try of a leveled create (what
    was made and how it graded), so a caller can show that work goes on; it must not raise.
    Raises GenerationFailed when no attempt succeeds.
    """
    if engine is None:
        engine = default_for(box)
    if difficulty is not None and difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {', '.join(DIFFICULTIES)}, not {difficulty!r}")
    if "fill" not in info(engine).capabilities:
        raise ValueError(f"engine {engine!r} cannot create puzzles (it has no 'fill')")
    refuse_impossible(box, difficulty, blanks)
    wanted = max(blanks or 0, min_blanks(box))
    if budget is not None and "budget" not in info(engine).capabilities:
        raise ValueError(f"engine {engine!r} cannot be bounded by a budget")
    if bank and box == 3 and difficulty in BANK_LEVELS and not symmetric:
        import random  # here, not at the top: `sudoku solve` never needs it

        from sudoku.bank import at_level

        if at_level(difficulty):  # a bank file without the level: made and graded below
            drawn = _from_bank(difficulty, random.Random(seed), budget, progress)
            if drawn.blanks >= wanted:
                return drawn
    solver = load(engine)
    capabilities = info(engine).capabilities
    # big makes any or easy puzzles in compiled code (its easy: naked singles alone, as ``_cap``'s from
    # 16x16 up); its own medium and hard are the engine's old scale, so human levels above easy are made
    # below, with its fill and has_other, and graded
    if "graded" in capabilities and box in info(engine).boxes and difficulty in (None, "easy") and not symmetric:
        try:
            made: Grid = solver.generate(box, seed=seed, blanks=wanted, minimal=minimal, difficulty=difficulty,
                                         budget=budget, attempts=attempts)
            return made
        except ValueError as error:
            raise GenerationFailed(str(error)) from None
    # past the engine's own generator's reach (nb's 58 blanks), puzzles are made below from its fill
    if (difficulty is None and "generate" in capabilities and (not symmetric or "symmetric" in capabilities)
            and wanted <= generator_reach(engine, box, symmetric=symmetric)):
        try:
            extra = {"symmetric": True} if symmetric else {}  # only engines with the capability take it
            made = solver.generate(box, seed=seed, blanks=wanted, minimal=minimal or box == 3, **extra)
            return made
        except ValueError as error:
            raise GenerationFailed(str(error)) from None
    import random  # here, not at the top: `sudoku solve` never needs it

    rng = random.Random(seed)
    rater = load("py")
    cap = _cap(box, difficulty)
    stop = None if minimal or difficulty not in (None, "easy") or (difficulty is None and box == 3) else wanted
    for attempt in range(1, attempts + 1):
        solution = solver.fill(box, rng, budget) if budget is not None else solver.fill(box, rng)
        puzzle = _remove(solution, rng, solver, rater, cap, stop, budget, symmetric)
        if puzzle.blanks >= wanted and _graded(puzzle, solution, difficulty, rater, budget):
            return puzzle
        if progress is not None and difficulty not in (None, "easy"):
            progress(f"try {attempt} of {attempts}: {puzzle.clues} clues, not {difficulty}")
    what = f"{difficulty} puzzle" if difficulty else "puzzle"
    raise GenerationFailed(f"no {what} with at least {wanted} blanks found in {attempts} attempts")


def _from_bank(difficulty: str, rng: random.Random, budget: Budget | None,
               progress: Callable[[str], None] | None) -> Grid:
    """A bank puzzle at ``difficulty`` under a random symmetry, checked: unique, and at its level."""
    from sudoku.bank import draw
    from sudoku.engines import solve
    from sudoku.grade import is_level

    puzzle = draw(difficulty, rng)
    if progress is not None:
        progress(f"an {difficulty} puzzle from the bank under a random symmetry; grading it again")
    answer = solve(puzzle, limit=2, engine="py", budget=budget)
    if answer.count != 1 or answer.solution is None or not is_level(puzzle, difficulty, solution=answer.solution,
                                                                    budget=budget):
        raise GenerationFailed(f"a bank puzzle under a symmetry is not a unique {difficulty} puzzle: "
                               f"{''.join(str(v or '.') for v in puzzle.cells)}")
    return puzzle


def _cap(box: int, difficulty: str | None) -> str | None:
    """What must still solve the puzzle while clues go (see ``_remove``): None for no cap."""
    if difficulty is None:
        return None if box == 3 else "hidden"
    if difficulty == "easy":
        return "hidden" if box == 3 else "naked"  # from 16x16 up the engine's "hidden" has locked candidates
    if difficulty == "medium" and box > 3:
        return "hidden"
    return None


def _graded(puzzle: Grid, solution: Grid, difficulty: str | None, rater: ModuleType, budget: Budget | None) -> bool:
    """Whether ``puzzle`` is at the ``difficulty`` asked for (any, when None)."""
    if difficulty in (None, "easy"):
        return True  # easy puzzles are made under a singles cap: easy by construction
    singles = rater.rate(puzzle, budget)
    if singles == "naked" or (puzzle.box == 3 and singles == "hidden"):
        return False  # singles alone solve it: easy, no grading needed
    from sudoku.grade import grade  # here: only leveled creates need the techniques

    level: str | None = grade(puzzle, solution=solution).level
    return level == difficulty


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

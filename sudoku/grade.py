"""Grading: a level and a score from the techniques a puzzle's logical solution needs.

Vocabulary (on top of ``sudoku.techniques``: board, step, technique, trail):

- **level**: one of ``LEVELS``, the level of the hardest technique the solution uses:

  ========  ==================================================================================
  easy      naked and hidden singles only
  medium    locked candidates (pointing, claiming), naked and hidden pairs and triples
  hard      patterns and chains that need no assumption: naked and hidden quads, x-wing,
            swordfish, jellyfish, xy-wing, xyz-wing, simple colouring, x-chain, aic
  expert    one assumption followed through: forcing chains (by singles) and dynamic forcing
            chains (by singles, locked candidates and pairs)
  extreme   an assumption inside an assumption: nested forcing chains (the trial itself uses
            forcing chains); or guessing, where no technique here applies
  ========  ==================================================================================

  Why these cuts (bench/README.md has the figures): of the benchmark draw, kaggle needs singles,
  top1465 mostly one forcing chain (59 %), and both hardest sets nested forcing chains (about
  nine in ten) or a guess; x-chain and aic need no assumption, so they sit with the patterns.

- **weight**: what one step of a technique adds to the score (``WEIGHTS``, HoDoKu's for the
  techniques both have). Grading takes the three forcing-chain tiers a pass at a time
  (``forcing_chains``, ``dynamic_forcing_chains``, ``nested_forcing_chains``: every candidate one
  pass proves false, as one step, the solution's digits never tried); such a step weighs its
  ``WEIGHTS`` entry plus ``FORCING_ELIMINATION_WEIGHT`` per candidate it removes.
- **guess**: when every technique fails, grading (never the solver) fills the blank with the fewest
  candidates from the known solution, counts a guess (``GUESS_WEIGHT``) and goes on; so two
  puzzles that both need guessing still get different scores.
- **hard part**: the blanks still open when the first forcing chain (of any tier) or guess is needed (0 if none
  is); each weighs ``HARD_PART_WEIGHT``: a puzzle that needs chains from its first move is harder
  than one that needs a single chain near the end.
- **score**: the sum of the weights of all steps and guesses, plus the hard part's. The weights
  were fitted to HoDoKu's scores (``bench/bench_grade.py``; figures in bench/README.md).
- **Grade**: ``(level, score, steps, guesses, problem)``; ``problem`` names why a puzzle cannot be
  graded (no solution, several solutions, a contradiction) and then level is None.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterator, Sequence

from functools import partial

from sudoku.techniques import (TECHNIQUES, Board, Step, dynamic_forcing_chains, forcing_chains, nested_forcing_chains,
                               next_step)

LEVELS = ("easy", "medium", "hard", "expert", "extreme")

LEVEL_OF = {
    "naked single": "easy",
    "hidden single": "easy",
    "pointing": "medium",
    "claiming": "medium",
    "naked pair": "medium",
    "hidden pair": "medium",
    "naked triple": "medium",
    "hidden triple": "medium",
    "naked quad": "hard",
    "hidden quad": "hard",
    "x-wing": "hard",
    "swordfish": "hard",
    "xy-wing": "hard",
    "xyz-wing": "hard",
    "simple colouring": "hard",
    "jellyfish": "hard",
    "x-chain": "hard",
    "aic": "hard",
    "forcing chain": "expert",
    "dynamic forcing chain": "expert",
    "nested forcing chain": "extreme",
    "guess": "extreme",
}

WEIGHTS = {
    "naked single": 4,
    "hidden single": 14,
    "pointing": 50,
    "claiming": 50,
    "naked pair": 60,
    "hidden pair": 70,
    "naked triple": 80,
    "hidden triple": 100,
    "naked quad": 120,
    "hidden quad": 150,
    "x-wing": 140,
    "swordfish": 150,
    "xy-wing": 160,
    "xyz-wing": 180,
    "simple colouring": 150,
    "jellyfish": 160,
    "x-chain": 260,
    "aic": 280,
    "forcing chain": 1000,  # a pass, plus FORCING_ELIMINATION_WEIGHT per candidate it removes
    "dynamic forcing chain": 2000,
    "nested forcing chain": 4000,
}
FORCING_ELIMINATION_WEIGHT = 25
GUESS_WEIGHT = 4000
HARD_PART_WEIGHT = 500
# The forcing-chain tiers, each taken a pass at a time (``walk``); with "guess", what starts the hard part.
_PASSES = {"forcing chain": forcing_chains, "dynamic forcing chain": dynamic_forcing_chains,
           "nested forcing chain": nested_forcing_chains}
_HARDEST = (*_PASSES, "guess")

TYPE_CHECKING = False  # as in sudoku.generate: only the type checker needs Grid here
if TYPE_CHECKING:
    from sudoku.budget import Budget
    from sudoku.grid import Grid

if TYPE_CHECKING:
    from typing import NamedTuple

    class Grade(NamedTuple):
        level: str | None
        score: int | None
        steps: tuple[Step, ...]
        guesses: int
        problem: str | None
else:
    Grade = namedtuple("Grade", "level score steps guesses problem")


def level_of(steps: Sequence[Step]) -> str:
    """The level of the hardest step (easy for none: a full grid)."""
    rank = max((LEVELS.index(LEVEL_OF[step.technique]) for step in steps), default=0)
    return LEVELS[rank]


def weight(step: Step) -> int:
    """What ``step`` adds to the score."""
    if step.technique == "guess":
        return GUESS_WEIGHT
    if step.technique in _PASSES:
        return WEIGHTS[step.technique] + FORCING_ELIMINATION_WEIGHT * len(step.eliminations)
    return WEIGHTS[step.technique]


def hard_part(steps: Sequence[Step]) -> int:
    """The blanks still open at the first forcing chain or guess: the placements from there on."""
    first = next((i for i, step in enumerate(steps) if step.technique in _HARDEST), len(steps))
    return sum(step.placement is not None for step in steps[first:])


def score_of(steps: Sequence[Step]) -> int:
    return sum(weight(step) for step in steps) + HARD_PART_WEIGHT * hard_part(steps)


def tally(steps: Sequence[Step]) -> dict[str, int]:
    """How many steps of each technique, in the order first used."""
    counts: dict[str, int] = {}
    for step in steps:
        counts[step.technique] = counts.get(step.technique, 0) + 1
    return counts


def _solution(puzzle: Grid, engine: str, budget: Budget | None = None) -> tuple[Sequence[int] | None, str | None]:
    """The unique solution's cells, or a message saying why there is none."""
    from sudoku import engines
    from sudoku.grid import find_clash

    clash = find_clash(puzzle, symbols=True)
    if clash:
        return None, clash
    answer = engines.solve(puzzle, limit=2, engine=engine, budget=budget)
    if answer.count == 0:
        return None, "no solution"
    if answer.count > 1:
        return None, "several solutions: a grade needs a unique one"
    return answer.solution.cells, None  # type: ignore[union-attr]  # a count of one comes with its solution


def _guess(board: Board, solution: Sequence[int]) -> Step:
    """The blank with the fewest candidates, filled from the solution."""
    cell = min((bin(mask).count("1"), cell) for cell, mask in enumerate(board.cands) if mask)[1]
    return Step("guess", (cell,), (solution[cell],), (cell, solution[cell]), (), ())




def walk(puzzle: Grid, solution: Sequence[int], budget: Budget | None = None) -> list[Step]:
    """Every step from ``puzzle`` to ``solution`` (cells): techniques first, forcing chains a pass
    at a time, a guess where none applies. ``budget`` is charged a node a step (BudgetExceeded past
    it); a step itself is not interrupted (``sudoku.budget.within`` bounds one in wall time)."""
    return list(_walking(puzzle, solution, budget))


def _walking(puzzle: Grid, solution: Sequence[int], budget: Budget | None = None) -> Iterator[Step]:
    """``walk``'s steps one at a time, so a caller may stop early."""
    techniques = tuple((name, partial(_PASSES[name], solution=solution) if name in _PASSES else find)
                       for name, find in TECHNIQUES)
    board = Board.of(puzzle)
    while not board.solved():
        step = next_step(board, techniques) or _guess(board, solution)
        board.apply(step)
        yield step
        if budget is not None:
            budget.charge()


def is_level(puzzle: Grid, level: str, *, solution: Grid, budget: Budget | None = None) -> bool:
    """Whether ``grade(puzzle).level == level``, for a puzzle whose unique ``solution`` is known,
    found with less work: the walk stops at the first step above ``level`` (no), and for the top
    level at its first step (yes). An extreme puzzle's first nested forcing chain usually comes
    early, and the passes after it are most of a grade's time."""
    rank = LEVELS.index(level)
    top = max((LEVELS.index(LEVEL_OF[name]) for name in LEVEL_OF), default=0)
    reached = 0
    for step in _walking(puzzle, solution.cells, budget):
        here = LEVELS.index(LEVEL_OF[step.technique])
        if here > rank:
            return False
        reached = max(reached, here)
        if reached == rank == top:
            return True
    return reached == rank


def grade(puzzle: Grid, *, solution: Grid | None = None, engine: str = "py", budget: Budget | None = None) -> Grade:
    """The Grade of a puzzle with a unique solution (else level None and the problem).

    ``solution`` (a Grid), when the caller has already proved it unique, skips the count; else
    ``engine`` counts to two (``nb`` is far quicker on hard 9x9 puzzles, once numba is loaded).
    ``budget`` bounds the count and the steps (as ``walk``): BudgetExceeded past it.
    """
    cells: Sequence[int] | None
    if solution is not None:
        cells = solution.cells
    else:
        cells, problem = _solution(puzzle, engine, budget)
        if problem:
            return Grade(None, None, (), 0, problem)
    steps = walk(puzzle, cells, budget)  # type: ignore[arg-type]  # no problem: the cells are there
    guesses = sum(step.technique == "guess" for step in steps)
    return Grade(level_of(steps), score_of(steps), tuple(steps), guesses, None)

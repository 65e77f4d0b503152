"""Grading: a level and a score from the techniques a puzzle's logical solution needs.

Vocabulary (on top of ``sudoku.techniques``: board, step, technique, trail):

- **level**: one of ``LEVELS``, the level of the hardest technique the solution uses:

  ========  ==================================================================================
  easy      naked and hidden singles only
  medium    locked candidates (pointing, claiming), naked and hidden pairs and triples
  hard      naked and hidden quads, x-wing, swordfish, xy-wing, xyz-wing, simple colouring
  expert    jellyfish, x-chain, aic
  extreme   forcing chains, or guessing (no technique here applies at some point)
  ========  ==================================================================================

- **weight**: what one step of a technique adds to the score (``WEIGHTS``, close to HoDoKu's).
- **guess**: when every technique fails, grading (never the solver) fills the blank with the fewest
  candidates from the known solution, counts a guess (``GUESS_WEIGHT``) and goes on; so two
  puzzles that both need guessing still get different scores.
- **score**: the sum of the weights of all steps and guesses.
- **Grade**: ``(level, score, steps, guesses, problem)``; ``problem`` names why a puzzle cannot be
  graded (no solution, several solutions, a contradiction) and then level is None.
"""

from collections import namedtuple

from sudoku.techniques import Board, Step, next_step

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
    "jellyfish": "expert",
    "x-chain": "expert",
    "aic": "expert",
    "forcing chain": "extreme",
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
    "forcing chain": 500,
}
GUESS_WEIGHT = 2000

Grade = namedtuple("Grade", "level score steps guesses problem")


def level_of(steps):
    """The level of the hardest step (easy for none: a full grid)."""
    rank = max((LEVELS.index(LEVEL_OF[step.technique]) for step in steps), default=0)
    return LEVELS[rank]


def score_of(steps):
    return sum(GUESS_WEIGHT if step.technique == "guess" else WEIGHTS[step.technique] for step in steps)


def tally(steps):
    """How many steps of each technique, in the order first used."""
    counts = {}
    for step in steps:
        counts[step.technique] = counts.get(step.technique, 0) + 1
    return counts


def _solution(puzzle):
    """The unique solution's cells, or a message saying why there is none."""
    from sudoku.engines import py
    from sudoku.grid import find_clash

    clash = find_clash(puzzle)
    if clash:
        return None, clash
    answer = py.solve(puzzle, limit=2)
    if answer.count == 0:
        return None, "no solution"
    if answer.count > 1:
        return None, "several solutions: a grade needs a unique one"
    return answer.solution.cells, None


def _guess(board, solution):
    """The blank with the fewest candidates, filled from the solution."""
    cell = min((bin(mask).count("1"), cell) for cell, mask in enumerate(board.cands) if mask)[1]
    return Step("guess", (cell,), (solution[cell],), (cell, solution[cell]), (), ())


def walk(puzzle, solution):
    """Every step from ``puzzle`` to ``solution``: techniques first, a guess where none applies."""
    board = Board.of(puzzle)
    steps = []
    while not board.solved():
        step = next_step(board) or _guess(board, solution)
        board.apply(step)
        steps.append(step)
    return steps


def grade(puzzle):
    """The Grade of a puzzle with a unique solution (else level None and the problem)."""
    solution, problem = _solution(puzzle)
    if problem:
        return Grade(None, None, (), 0, problem)
    steps = walk(puzzle, solution)
    guesses = sum(step.technique == "guess" for step in steps)
    return Grade(level_of(steps), score_of(steps), tuple(steps), guesses, None)

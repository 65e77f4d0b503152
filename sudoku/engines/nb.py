"""The compiled engine: 9x9 only, numba kernels, batch entry points on numpy arrays.

Importing this module imports numba and numpy (about a second with a warm cache); nothing else in
``sudoku`` does. The algorithm is the one of ``sudoku.engines.py`` (candidate bitsets, naked and
hidden singles, fewest-candidates branching) plus locked candidates and a tie-break among
two-candidate cells, on a preallocated stack with no recursion; the kernels live in
``sudoku.engines._nb_kernels``. Counts and unique solutions match ``py``; guesses and nodes do not
(different propagation and branch order), their meaning does.

Single-puzzle contract (same as every engine): ``solve(puzzle, *, limit=1) -> Answer`` and the
capabilities ``fill(box, rng)`` and ``has_other(puzzle, solution, cell)``.

Batch entry points (Python overhead paid once per batch):

- ``solve_batch(puzzles, *, limit=1) -> (counts, solutions, guesses, nodes)``: ``puzzles`` is
  ``uint8[k, 81]`` (row-major, 0 = blank); ``counts`` int32[k] (solutions found, at most
  ``limit``; 0 for a clash or no solution), ``solutions`` uint8[k, 81] (the first solution, all
  zeros when none), ``guesses`` and ``nodes`` int64[k] (as in ``Counters``).
- ``generate_batch(seeds, *, blanks=40, minimal=False) -> uint8[k, 81]``: one unique-solution
  puzzle per seed.

Why it is built this way: every speed idea (propagation rules, the branch tie-break among
two-candidate cells, band-wise digit bitboards, masks in place of data-dependent branches) went in
only with a measurement, and what was measured and dropped is written down too. Those tables, the
ablations and where the time goes are in docs/engines.md (section ``nb``), each with its command
(``bench/bench_nb.py``, ``bench/bench_nb_vs_base.py``).

Seed space: puzzle ``i`` is a pure function of ``(seeds[i], blanks, minimal)``: ``seeds[i]`` (any
uint64) starts a splitmix64 stream that draws the full grid (search with random digit order) and the
order in which clues are tried for removal. It does not match the ``py`` engine's puzzles for the
same seed. ``seeds_from(seed, n)`` gives the conventional seeds of a run: ``seed, seed + 1, ...``.
"""

from __future__ import annotations

import numpy as np

from sudoku.engines import Answer, Counters
from sudoku.engines import _nb_kernels as _k
from sudoku.engines._arrays import as_puzzles
from sudoku.grid import Grid

TYPE_CHECKING = False  # as in sudoku.engines: only the type checker needs these
if TYPE_CHECKING:
    import random
    from collections.abc import Iterable
    from typing import Any

    import numpy.typing as npt

    Array = npt.NDArray[Any]

BOX = 3
CELLS = 81
MAX_BLANKS = 58  # minimal puzzles drawn here have 52-60 blanks; a higher target would rarely be met
MAX_BLANKS_SYMMETRIC = 56  # symmetric minimal ones have fewer

_DIGITS = np.frombuffer(b"0123456789", dtype=np.uint8)


def _check_limit(limit: int | np.integer[Any]) -> np.int64:
    if not isinstance(limit, (int, np.integer)) or limit < 1:
        raise ValueError(f"limit must be an integer of at least 1, not {limit!r}")
    return np.int64(limit)


def _check_box(box: int) -> None:
    if box != BOX:
        side = box * box
        raise ValueError(f"engine 'nb' solves 9x9 grids only, not {side}x{side}")


def from_lines(lines: Iterable[str]) -> Array:
    """uint8[k, 81] from ``line`` strings (81 characters, ``.`` or ``0`` for a blank)."""
    lines = [line.strip() for line in lines]
    for number, line in enumerate(lines, 1):
        if len(line) != CELLS:
            raise ValueError(f"line {number}: a 9x9 puzzle has 81 characters, not {len(line)}")
    raw = np.frombuffer("".join(lines).replace(".", "0").encode("ascii"), dtype=np.uint8)
    digits = raw.astype(np.int16) - ord("0")
    if digits.size and (digits.min() < 0 or digits.max() > 9):
        bad = int(np.flatnonzero((digits < 0) | (digits > 9))[0])
        raise ValueError(f"line {bad // CELLS + 1}, column {bad % CELLS + 1}: not a digit or '.'")
    return digits.astype(np.uint8).reshape(len(lines), CELLS)


def to_lines(grids: npt.ArrayLike, *, blank: str = ".") -> list[str]:
    """``line`` strings of a uint8[k, 81] array (blanks written as ``blank``)."""
    text = _DIGITS[np.asarray(grids, dtype=np.uint8)].tobytes().decode("ascii")
    if blank != "0":
        text = text.replace("0", blank)
    return [text[i : i + CELLS] for i in range(0, len(text), CELLS)]


def solve_batch(puzzles: npt.ArrayLike, *, limit: int = 1, locked: bool = True) -> tuple[Array, Array, Array, Array]:
    """Solve a batch; see the module docstring. ``locked=False`` turns off locked candidates
    (singles only, as the ``py`` engine does at 9x9), for measurement."""
    puzzles = as_puzzles(puzzles)
    k = puzzles.shape[0]
    counts = np.zeros(k, np.int32)
    solutions = np.zeros((k, CELLS), np.uint8)
    guesses = np.zeros(k, np.int64)
    nodes = np.zeros(k, np.int64)
    _k.solve_batch(puzzles, _check_limit(limit), bool(locked), counts, solutions, guesses, nodes)
    return counts, solutions, guesses, nodes


def seeds_from(seed: int, n: int) -> Array:
    """The seeds of ``n`` puzzles of a run with ``seed``: ``seed, seed + 1, ...`` (mod 2**64)."""
    return (np.uint64(seed % 2**64) + np.arange(n, dtype=np.uint64)).astype(np.uint64)


def generate_batch(seeds: npt.ArrayLike, *, blanks: int = 40, minimal: bool = False, solutions: bool = False,
                   symmetric: bool = False) -> Array | tuple[Array, Array]:
    """One puzzle per seed (uint8[k, 81]), unique solution and at least ``blanks`` blanks.

    Clues are removed in random order; a removal is kept only if the puzzle keeps its one solution.
    Without ``minimal`` removal stops at ``blanks`` blanks; with it every clue is tried, so no clue
    left can go. With ``symmetric`` cells are removed in pairs (cell i with cell 80 - i), so the
    clue pattern is the same turned by 180 degrees (then ``minimal`` means no such pair can go, and
    ``blanks`` is at most MAX_BLANKS_SYMMETRIC). With ``solutions`` the result is
    ``(puzzles, solutions)``.
    """
    seeds = np.ascontiguousarray(np.asarray(seeds).reshape(-1), dtype=np.uint64)
    most = MAX_BLANKS_SYMMETRIC if symmetric else MAX_BLANKS
    if not isinstance(blanks, (int, np.integer)) or not 0 <= blanks <= most:
        raise ValueError(f"blanks must be an integer 0..{most}, not {blanks!r}")
    k = seeds.shape[0]
    puzzles = np.zeros((k, CELLS), np.uint8)
    grids = np.zeros((k, CELLS), np.uint8)
    _k.generate_batch(seeds, np.int64(blanks), bool(minimal), bool(symmetric), puzzles, grids)
    return (puzzles, grids) if solutions else puzzles


def generate(box: int, *, seed: int, blanks: int | None = None, minimal: bool = False, symmetric: bool = False) -> Grid:
    """One unique puzzle from ``seed`` (the ``generate`` capability); ValueError if ``blanks`` is out
    of reach (above MAX_BLANKS, or MAX_BLANKS_SYMMETRIC with ``symmetric``)."""
    _check_box(box)
    puzzles = generate_batch(np.array([seed % 2**64], np.uint64), blanks=max(blanks or 0, 40), minimal=minimal,
                             symmetric=symmetric)
    return Grid(BOX, puzzles[0].tolist())


def solve(puzzle: Grid, *, limit: int = 1) -> Answer:
    """The engine contract: count solutions up to ``limit``, return the first, with counters."""
    _check_box(puzzle.box)
    counts, solutions, guesses, nodes = solve_batch(np.array(puzzle.cells, np.uint8), limit=limit)
    count = int(counts[0])
    solution = Grid(BOX, solutions[0].tolist()) if count else None
    return Answer(count, solution, Counters(int(guesses[0]), int(nodes[0])))


def fill(box: int, rng: random.Random) -> Grid:
    """A random complete grid, drawn from a seed taken from ``rng`` (a ``random.Random``)."""
    _check_box(box)
    grid = np.zeros((1, CELLS), np.uint8)
    _k.fill_batch(np.array([rng.getrandbits(64)], np.uint64), grid)
    return Grid(BOX, grid[0].tolist())


def has_other(puzzle: Grid, solution: Grid, cell: int) -> bool:
    """Whether ``puzzle`` with ``cell`` blanked has a solution other than ``solution`` (see py)."""
    _check_box(puzzle.box)
    masks = np.zeros((1, CELLS), np.uint16)
    for index, value in enumerate(puzzle.cells):
        masks[0, index] = _k.FULL if value == 0 else 1 << (value - 1)
    masks[0, cell] = _k.FULL & ~(1 << (solution.cells[cell] - 1))
    counts = np.zeros(1, np.int32)
    work = np.zeros(1, np.int64)
    _k.solve_masks_batch(masks, np.int64(1), True, counts, np.zeros((1, CELLS), np.uint8), work, work.copy())
    return bool(counts[0])



def warm() -> None:
    """Compile (or load from numba's on-disk cache) every kernel now, e.g. at set-up or worker start."""
    import random

    counts, solutions, _, _ = solve_batch(np.zeros((1, CELLS), np.uint8))
    generate_batch(np.zeros(1, np.uint64))
    fill(BOX, random.Random(0))
    has_other(Grid(BOX, [0] * CELLS), Grid(BOX, solutions[0].tolist()), 0)

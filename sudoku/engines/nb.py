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

Measurements (puzzles/s on one core of this 2-core "Intel Xeon Processor" VM, batch entry point,
median of 5-7 rounds unless marked *single*; another job shared the machine, so +-5 % is noise;
``PYTHONPATH=. python3 bench/bench_nb.py`` for the current numbers):

| idea (each row adds to the one above)                        | hardest1106 | top1465 | kaggle  | guesses/puzzle hardest / top |
|--------------------------------------------------------------|------------:|--------:|--------:|-----------------:|
| naked + hidden singles, full passes, first fewest-cand. cell  | 2,813 single| 15,398  | 169,000 | 318 / 51.9 |
| + locked candidates (pointing, claiming)                     | 2,982 single| 24,021  | 157,000 | 241 / 21.3 |
| + stop when all placed; last option at a branch in place      | 3,136 single| 25,138  | 175,000 | 241 / 21.3 |
| + hidden singles on dirty units; locked on segment unions     | 3,640       | 29,783  | 163,000 | 241 / 21.3 |
| + hidden singles skip digits already placed in the unit      | 4,958       | 42,624  | 162,000 | 241 / 21.3 |
| + givens removed by one unit sweep at the start              | 4,869       | 45,195  | 362,000 | 241 / 21.3 |
| + placed digits per unit kept in the state; locked only on segments whose line or box changed | 4,916 | 45,898 | 371,000 | 241 / 21.3 |
| + branch: among two-candidate cells, the emptiest units      | 5,801       | 51,297  | 373,000 | 160 / 13.4 |

Tried and dropped: branching on the *fullest* units (3,401; 328 guesses), weighting rows and
columns only (5,796; 167) or the box twice (5,563; 162), popcount of the units' placed digits
(4,901; 202); trying the highest digit first (4,702; 192); finding a unit's placed digits with a
select instead of a table lookup (a full hidden pass 240 -> 287 ns). Keeping them in the state
instead of the lookup gained nothing measurable but feeds the branch tie-break. Ablations of the final build: hidden and
locked passes over every unit instead of dirty ones 3,540 / 29,588 / 263,000; no locked
candidates 5,372 / 28,771 / 385,000 (215 / 37.8 guesses). Not tried: tdoku's band-wise digit
bitboards (the next step for hardest1106, whose 7,000/s target this build misses by ~15 %).

Band-wise digit bitboards (issue 17; kernels rewritten, ``sudoku.engines._nb_kernels``). Ratios
new / 38e1222 on a 2-core VM at load 11-16 (other helpers), so only ratios count: rounds
alternating in one process, both kernels loaded (the base from ``git worktree add /work/nb-base
38e1222``), median of 3-5 rounds; ``bench/bench_nb_vs_base.py`` does the same with each side in its
own worker process.

| step (each adds to the one above)                                  | hardest1106 | top1465 | kaggle | serg (count 2) | guesses hardest / top |
|--------------------------------------------------------------------|------:|------:|------:|------:|-----------:|
| 27 planes (digit x band, 27-bit words); naked singles by bit-sliced counts; hidden singles by masks and column folds; pointing and claiming along rows and columns; per-rule dirty planes | 1.13-1.47 | 1.11-1.18 | 1.21-1.46 | 0.91-1.04 | 141.5 / 12.8 |
| + mini-row / mini-column permutation patterns (one table lookup per plane and per stack) in place of pointing and claiming | 1.85 | 1.47 | 1.36 | 1.42 | 141.5 / 12.8 |
| + the state built from the digits, each given placed (not from 81 cell masks; clashes found while loading) | 1.97 | 1.53 | 1.84 | 1.51 | 141.5 / 12.8 |
| + the band rules of ``_digits`` only on the planes that changed (the pattern lookup is idempotent) | 1.93 | 1.58 | 1.72 | 1.54 | 141.5 / 12.8 |
| + naked singles placed digit by digit, without clearing the cell from the other eight planes (it has no other digit) | 1.99 | 1.61 | 2.03 | 1.60 | 141.5 / 12.8 |
| + row and column singles in one inlined helper (``_line_singles``, shared by ``_hidden`` and ``_digits``); the dead locked pass and its word dropped: head to head with the row above, two runs (``_place`` made of a clear and ``_place_alone`` later: 1.01 hardest, 1.01 serg) | 0.97, 1.00 | 1.00 | 1.00 | 1.00, 1.00 | 141.5 / 12.8 |
| + all givens at once (per plane: its givens kept, occupied cells and its digit's rows, boxes and columns dropped; a clash is a given inside that drop): head to head with the row above, two runs | 0.98, 0.98 | 1.00, 0.99 | 1.10, 1.08 | 1.04, 1.02 | 141.5 / 12.8 |
| the same build against 38e1222 (in one process) | 1.94 | 1.61 | 2.34 | 1.57 | 141.5 / 12.8 |

The rows from "the state built from the digits" on (this session) are CPU-time ratios in one
process at load 5-10 (the other helpers), 15 alternating rounds, the ratio of the fastest rounds
(the median ratio agreed within 0.05); only head-to-head rows compare two builds directly.

Where the time goes (counters per puzzle from an instrumented copy of the kernels, and the
setup timed alone): serg_benchmark has 8.2 nodes, 95.5 placements (35 of them givens), 35 naked
passes over 102 bands, 12 passes of ``_digits`` over 47 digits and 116 planes, and 6 branch
choices over 74 two-candidate cells; loading and the first settle are 0.77 of ~4.6 us, so the
search is 83 %. Its puzzles have a median of 130 solutions, so ~7 binary choices reach one and
one more the second: 7.2 guesses is near the floor, and what is left is the cost per node
(~470 ns at that load). hardest1106: 142.5 nodes, 1,308 placements, 568 naked passes, 214
passes of ``_digits`` over 712 digits, 72 branch choices over 734 two-candidate cells.

Tried on top of the last build, head to head, and dropped: the first two-candidate cell (no
tie-break): serg +9 %, but hardest1106 241 guesses (0.80x); a cheaper tie-break, the sum of the
row, box and column counts precomputed per band: 160.5 / 13.7 guesses, hardest 0.86x; the
first two-candidate cell once 45 (50) cells are placed: serg 1.04 (1.03), hardest 0.98 (0.99),
top 0.95 (0.99), 146.5 (143.5) guesses; the tie-break over the first 4 (8) pairs only: 165.6
(144.5) guesses, no gain; ``_settle`` inlined into ``_search``: 0.99 / 1.00 / 0.99 / 0.99; each
digit's column folds kept in the state (9 more words) to skip the stack rule when they did not
change: 0.96 / 0.96 / 0.98 / 0.96; the lone-column step reusing the folds of the stack step
(stale after a row single, so a deduction may wait a pass): 0.98 / 0.98 / 0.97 / 0.97; rows and
boxes through one helper taking ``ROW_OF`` or ``BOX_OF`` as an argument: 0.94-0.97 / 0.99 / 0.99
/ 0.91-0.92 (the tables stop being constants), so the two loops stay written out.

Build of 38e1222's successor (the second row), ``PYTHONPATH=. python3 bench/bench_nb_vs_base.py
--quick --rounds 3`` (load 1.5, worker processes, first 375 / 1,465 / 20,000 / 10,000 puzzles /
500 minimal puzzles): hardest1106 11,283/s vs 5,723 (1.94x), top1465 69,614 vs 44,003 (1.64x),
kaggle 522,506 vs 306,153 (1.71x), serg 200,384 vs 132,003 (1.36x), minimal generation 5,100 vs
3,756 (1.49x). The last build, same command, three runs at load 7-7.7 (wall-time ratio; the
CPU-time one within 0.06): hardest1106 2.05 / 1.96 / 1.81, top1465 2.07 / 1.81 / 1.70, kaggle
2.57 / 2.62 / 2.42, serg 1.89 / 1.48 / 1.64, minimal generation 1.69 / 1.68 / 1.66; the final
build (``_place`` through ``_place_alone``), ``--rounds 5`` twice at load 4.2-4.6: hardest1106 1.92
/ 2.09, top1465 1.57 / 1.87, kaggle 2.18 / 2.76, serg 2.01 / 1.72, generation 1.57 / 1.69; see
``bench/README.md``.

Measured on top of the "patterns" row (CPU time, A/B in one process) and not committed: branching on
the digit of a band with the fewest fitting patterns (tdoku's choice) 1.10 / 0.96 / 1.00 / 1.00
(133.3 / 14.4 guesses), but without tdoku's triad rule (three digits per mini-row) sparse grids
thrash (a grid with 10 givens: over 200,000 guesses), so dropped; the cell, unless a pattern has
fewer options: no change; building the planes from the digits instead of cell masks: kaggle
1.10, serg 1.08 (committed since, above); the column rules only when the rows stall: top1465 1.14, hardest 1.05, serg
0.93. Generation: the carve skips the search when the givens leave a blanked cell one candidate
(same puzzles as 38e1222): 1.04x; with the new kernels 1.08x.

Fewer mispredicted branches (issue 17, third session). The per-node work was already small (a
serg node placed ~12 cells); what it paid for was the data-dependent branches around it: a test per
row, per lone column, per digit and per band, each taken or not at random. Each step below replaces
such tests by masks computed for all rows, columns, planes or bands at once, and loops over the set
bits of the result. CPU-time ratios new / previous step, ``bench/bench_nb_vs_base.py --quick
--rounds 7 --base COPY`` (COPY: the tree of the step before), each task twice where two figures
are given, load 2-5 (the other helpers):

| step (each adds to the one above)                                  | hardest1106 | top1465 | serg (count 2) |
|--------------------------------------------------------------------|------:|------:|------:|
| the lone-column step skips columns where the digit is placed already | 1.03 | 1.06 | 1.16 (one noisy run) |
| ``_place_alone`` marks only the planes that lose a bit (fewer naked bands and digits rescanned) | 0.98 | 0.97 | 1.06, 1.04 |
| ``_digits``: band and stack rules on all three planes of a digit, no branch per plane | 1.02, 1.04 | 1.03 | 1.02, 0.98 |
| rows with one place found by masks (one branch per band, not per row) | 1.15, 1.15 | 1.20 | 1.16, 1.11 |
| column singles by masks per band (``_once``, ``_spread``), no loop over lone columns | 1.03, 1.08 | 1.05 | 1.03, 1.03 |
| naked singles: the cell's digit from four bit-slices of the digit index, not a loop over nine planes | 1.13, 1.15 | 1.16 | 1.07, 1.10 |
| branch tie-break: the least of one packed key (score, band, position), no compare-and-branch; same cells chosen | 1.01, 1.03 | 1.02 | 1.04, 1.03 |
| ``_digits`` loops over the changed digits' bits instead of testing all nine | 1.08, 1.10 | 1.07 | 1.08, 1.04 |
| ``_naked`` loops over the changed bands' bits | 1.04, 1.02 | 1.07 | 1.01, 1.02 |
| rows and columns of all three planes by masks, one placement helper (``_place_each``) | 0.99, 1.06 | 1.01 | 1.01, 1.02 |

Guesses are unchanged by every step (141.5 / 12.8 / 7.2): the same nodes, each cheaper. Tried and
dropped: the state copied at a guess by an unrolled loop instead of a slice, 0.99 / 1.00 (the copy
is not what a node costs); branch-free ``_place_alone`` (a select between the row-and-box and the
column mask) together with unconditional stores in ``_digits``: 1.00 / 1.03 / 0.99-1.01
(hardest / top / serg), no gain; ``_settle`` running ``_digits`` after every naked pass instead of
only when naked singles stall (fewer rounds of the loop, more digit passes): 0.90-0.92 / 0.84 /
0.81-0.84. Not tried: tdoku's per box-band vectors and its
row-box-intersection rule (a rewrite of the state); choosing the branch from a band/digit with
fewest options (tried before without the triad rule: sparse grids thrash). Counting to 2 already
reuses the first solution's path (the stack keeps it): limit 2 costs 1.74 guesses and ~360 ns over
limit 1 on serg.

Where the time goes now (``solve_batch`` CPU time per puzzle, best of 7, load 2.4): serg 2,950 ns
counting to 2 (8.2 nodes), 2,589 ns to the first solution (6.5 nodes); kaggle 764 ns (loading and
the first settle, no guess); hardest1106 52,400 ns (142.5 nodes, ~370 ns a node). With serg's load
and first settle near kaggle's, its search costs ~310 ns per guess (470 ns at the last session's
load).

This build against 38e1222, ``bench/bench_nb_vs_base.py --quick --rounds 5`` twice at load 2.4-2.9
(wall-time ratio, CPU-time one in brackets): hardest1106 3.07 (3.04) / 3.30 (3.05), top1465 2.13
(2.45) / 2.44 (2.63), kaggle 3.30 (3.24) / 3.61 (2.87), serg 2.68 (2.49) / 2.57 (2.28), minimal
generation 2.38 (2.36) / 3.17 (2.34): every goal of issue 17 item 1 met.

Generation (38e1222): 18,800 puzzles/s with ``blanks=40``, 4,200/s with ``minimal`` (52-60 blanks, mean
56.6, over 3,000 seeds).

Seed space: puzzle ``i`` is a pure function of ``(seeds[i], blanks, minimal)``: ``seeds[i]`` (any
uint64) starts a splitmix64 stream that draws the full grid (search with random digit order) and the
order in which clues are tried for removal. It does not match the ``py`` engine's puzzles for the
same seed. ``seeds_from(seed, n)`` gives the conventional seeds of a run: ``seed, seed + 1, ...``.
"""

import numpy as np

from sudoku.engines import Answer, Counters
from sudoku.engines import _nb_kernels as _k
from sudoku.engines._arrays import as_puzzles
from sudoku.grid import Grid

BOX = 3
CELLS = 81
MAX_BLANKS = 58  # minimal puzzles drawn here have 52-60 blanks; a higher target would rarely be met
MAX_BLANKS_SYMMETRIC = 56  # symmetric minimal ones have fewer

_DIGITS = np.frombuffer(b"0123456789", dtype=np.uint8)


def _check_limit(limit):
    if not isinstance(limit, (int, np.integer)) or limit < 1:
        raise ValueError(f"limit must be an integer of at least 1, not {limit!r}")
    return np.int64(limit)


def _check_box(box):
    if box != BOX:
        side = box * box
        raise ValueError(f"engine 'nb' solves 9x9 grids only, not {side}x{side}")


def from_lines(lines):
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


def to_lines(grids, *, blank="."):
    """``line`` strings of a uint8[k, 81] array (blanks written as ``blank``)."""
    text = _DIGITS[np.asarray(grids, dtype=np.uint8)].tobytes().decode("ascii")
    if blank != "0":
        text = text.replace("0", blank)
    return [text[i : i + CELLS] for i in range(0, len(text), CELLS)]


def solve_batch(puzzles, *, limit=1, locked=True):
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


def seeds_from(seed, n):
    """The seeds of ``n`` puzzles of a run with ``seed``: ``seed, seed + 1, ...`` (mod 2**64)."""
    return (np.uint64(seed % 2**64) + np.arange(n, dtype=np.uint64)).astype(np.uint64)


def generate_batch(seeds, *, blanks=40, minimal=False, solutions=False, symmetric=False):
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


def generate(box, *, seed, blanks=None, minimal=False, symmetric=False):
    """One unique puzzle from ``seed`` (the ``generate`` capability); ValueError if ``blanks`` is out
    of reach (above MAX_BLANKS, or MAX_BLANKS_SYMMETRIC with ``symmetric``)."""
    _check_box(box)
    puzzles = generate_batch(np.array([seed % 2**64], np.uint64), blanks=max(blanks or 0, 40), minimal=minimal,
                             symmetric=symmetric)
    return Grid(BOX, puzzles[0].tolist())


def solve(puzzle, *, limit=1):
    """The engine contract: count solutions up to ``limit``, return the first, with counters."""
    _check_box(puzzle.box)
    counts, solutions, guesses, nodes = solve_batch(np.array(puzzle.cells, np.uint8), limit=limit)
    count = int(counts[0])
    solution = Grid(BOX, solutions[0].tolist()) if count else None
    return Answer(count, solution, Counters(int(guesses[0]), int(nodes[0])))


def fill(box, rng):
    """A random complete grid, drawn from a seed taken from ``rng`` (a ``random.Random``)."""
    _check_box(box)
    grid = np.zeros((1, CELLS), np.uint8)
    _k.fill_batch(np.array([rng.getrandbits(64)], np.uint64), grid)
    return Grid(BOX, grid[0].tolist())


def has_other(puzzle, solution, cell):
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



def warm():
    """Compile (or load from numba's on-disk cache) every kernel now, e.g. at set-up or worker start."""
    import random

    counts, solutions, _, _ = solve_batch(np.zeros((1, CELLS), np.uint8))
    generate_batch(np.zeros(1, np.uint64))
    fill(BOX, random.Random(0))
    has_other(Grid(BOX, [0] * CELLS), Grid(BOX, solutions[0].tolist()), 0)

"""Compiled kernels of the ``band`` engine (9x9 only); imported by ``sudoku.engines.band`` alone.

Written apart from ``nb`` and sharing nothing with it: the grid is seen digit by digit, not cell by
cell. Vocabulary:

- a *band* is three rows of boxes (rows 0-2, 3-5, 6-8); cell ``c`` lies in band ``c // 27`` at
  bit ``c % 27`` (bit = row-in-band * 9 + column).
- a *board* is a 27-bit mask: where one digit may still go in one band. A state holds 27 boards
  (index ``digit * 3 + band``, digit 0-8) and, per band, the cells not yet *placed*: 30 int64.
- a *mini-row* is where a row crosses a box (3 cells); a band has 9 of them (bit row * 3 + box).
  A digit takes exactly one mini-row per row and per box of a band: one of the six permutation
  patterns. ``FITS[mini-rows present]`` is the set of mini-rows in patterns whose mini-rows are all
  present; ``KEEP[mini-rows present]`` is the board mask of every mini-row that belongs to a
  pattern whose mini-rows are all present (0: no pattern fits, a contradiction). One lookup does
  the work of hidden singles in boxes, pointing and claiming along rows for that digit and band.
- a digit is *placed* in a row of a band when its board has one bit left in that row; placing
  clears that column from the digit's other two bands and the cell from the other eight digits.

- ``_settle``: propagation to a fixpoint, cheapest rule first. ``_shrink`` each board whose bit is
  set in ``dirty`` (27 bits): keep it to ``KEEP`` and place its new row singles, until nothing is
  dirty; then ``_naked_singles`` (cells left with one digit, found with bit-sliced counters over
  the nine boards of a band) restrict their digit's row; when those find nothing, ``_columns``
  for each digit touched since it last ran: the same pattern rule on the mini-columns of each
  stack (claiming and pointing along columns), then hidden singles in columns. False at a
  contradiction.
- ``_branch``: the two-candidate cell whose row, column and box hold the most open cells (else the
  first cell with fewest candidates), its lowest digit. Binary: "cell = digit" is searched first,
  "cell != digit" waits on the stack.
- ``_search``: depth first over a preallocated stack of states, no recursion, no allocation; the
  states are raw pointers to the stack's rows (``_row``), which numba does not reference-count.

The measurements behind each choice are in ``sudoku.engines.band``.
"""

from itertools import permutations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic

CELLS = 81
BAND = (1 << 27) - 1
ROW = 0x1FF
COPY_COLUMNS = 1 | 1 << 9 | 1 << 18  # multiplying a 9-bit column set by this repeats it in all 3 rows
ALL_BOARDS = (1 << 27) - 1
WIDTH = 30  # 27 boards, then the unplaced cells of each band
MAX_DEPTH = 729  # every branch removes a candidate from the state it leaves


def _tables():
    row_boxes = np.zeros(512, np.int64)  # 9-bit row of a board -> 3 bits: the boxes it touches
    for row in range(512):
        for box in range(3):
            if row >> (3 * box) & 7:
                row_boxes[row] |= 1 << box
    patterns = [sum(1 << (line * 3 + cross) for line, cross in enumerate(p)) for p in permutations(range(3))]
    fits = np.zeros(512, np.int64)  # mini-rows (or mini-columns) present -> those in a fitting pattern
    keep = np.zeros(512, np.int64)  # the same as a board mask
    for present in range(512):
        for pattern in patterns:
            if pattern & ~present == 0:
                fits[present] |= pattern
        for mini in range(9):
            if fits[present] >> mini & 1:
                row, box = divmod(mini, 3)
                keep[present] |= 7 << (row * 9 + box * 3)
    return row_boxes, fits, keep


ROW_BOXES, FITS, KEEP = _tables()


@intrinsic
def _cycles(typingctx):
    """The CPU's cycle counter (rdtsc on x86; 0 where LLVM has none): timing inside a kernel."""

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter")
        return builder.call(fn, [])

    return types.int64(), codegen


@intrinsic
def _popcount(typingctx, value):
    """Bits set in an int64 (llvm.ctpop: one instruction where the CPU has it)."""

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), [ir.IntType(64)]), "llvm.ctpop.i64")
        return builder.call(fn, args)

    return types.int64(types.int64), codegen


@intrinsic
def _trailing_zeros(typingctx, value):
    """Index of the lowest set bit of a nonzero int64 (llvm.cttz)."""

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(1)]), "llvm.cttz.i64")
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 1)])

    return types.int64(types.int64), codegen


@intrinsic
def _row(typingctx, array, offset):
    """A raw pointer to element ``offset`` of a C-contiguous int64 ``array`` (a stack row): indexed
    as an array is, with no reference counting, which numba pays on every call that takes an array
    (an atomic increment and decrement per call). Only while the caller holds the array."""
    if not isinstance(array, types.Array) or array.layout != "C":
        raise TypingError(f"_row needs a C-contiguous array, not {array}")

    def codegen(context, builder, signature, args):
        proxy = cgutils.create_struct_proxy(signature.args[0])(context, builder, value=args[0])
        return builder.gep(proxy.data, [args[1]])
    return types.CPointer(array.dtype)(array, offset), codegen


@njit(cache=True)
def cycles():
    """The cycle counter read from Python, to calibrate ticks against ``time.perf_counter_ns``."""
    return _cycles()


@njit(cache=True, inline="always")
def _bit_index(single):
    """Index (0-26) of the one bit set in ``single``."""
    return _trailing_zeros(single)


@njit(cache=True, inline="always")
def _fold(board):
    """The 9-bit set of columns where ``board`` has a bit."""
    return (board | board >> 9 | board >> 18) & ROW


@njit(cache=True)
def _columns(state, digit):
    """The column rules for one digit: in each stack (three columns of boxes) the digit takes one
    mini-column per band and per column, a pattern as in a band, so ``FITS`` keeps the mini-columns
    of fitting patterns (claiming and pointing along columns); then a column left in one band and
    one row there places the digit (hidden single). Returns the boards changed as dirty bits, or -1
    at a contradiction."""
    base = 3 * digit
    c0 = _fold(state[base])
    c1 = _fold(state[base + 1])
    c2 = _fold(state[base + 2])
    cols0 = 0  # per band, the columns left to the digit there
    cols1 = 0
    cols2 = 0
    for stack in range(3):
        shift = 3 * stack
        fitting = FITS[(c0 >> shift & 7) | (c1 >> shift & 7) << 3 | (c2 >> shift & 7) << 6]
        if fitting == 0:
            return -1  # no pattern fits, e.g. a column with no place left
        cols0 |= (fitting & 7) << shift
        cols1 |= (fitting >> 3 & 7) << shift
        cols2 |= (fitting >> 6) << shift
    changed = 0
    for band in range(3):
        i = base + band
        board = state[i]
        mine = cols0 if band == 0 else cols1 if band == 1 else cols2
        others = (cols1 | cols2) if band == 0 else (cols0 | cols2) if band == 1 else (cols0 | cols1)
        new = board & (mine * COPY_COLUMNS)
        alone = mine & ~others
        if alone:
            r0 = new & ROW
            r1 = new >> 9 & ROW
            r2 = new >> 18
            hidden = alone & ~((r0 & r1) | (r0 & r2) | (r1 & r2))
            for row in range(3):
                bits = (new >> (9 * row)) & hidden
                if bits:
                    if bits & (bits - 1):
                        return -1  # two columns that need the digit in the same row
                    new = (new & ~(ROW << (9 * row))) | (bits << (9 * row))
        if new != board:
            state[i] = new
            changed |= 1 << i
    return changed


@njit(cache=True, inline="always")
def _shrink(state, i):
    """Board ``i`` kept to the mini-rows of its band's patterns, and its new row singles placed.
    Returns the other boards changed as dirty bits, or -1 at a contradiction."""
    board = state[i]
    keep = KEEP[ROW_BOXES[board & ROW] | ROW_BOXES[board >> 9 & ROW] << 3 | ROW_BOXES[board >> 18] << 6]
    if keep == 0:
        return -1
    board &= keep
    state[i] = board
    digit = i // 3
    band = i - 3 * digit
    singles = 0
    for row in range(3):
        bits = board >> (9 * row) & ROW
        if bits & (bits - 1) == 0:
            singles |= bits << (9 * row)
    new = singles & state[27 + band]
    if new == 0:
        return 0
    state[27 + band] &= ~new
    changed = 0
    column_mask = _fold(new) * COPY_COLUMNS
    for other in range(3):
        if other != band:
            j = 3 * digit + other
            if state[j] & column_mask:
                state[j] &= ~column_mask
                changed |= 1 << j
    for other in range(9):
        if other != digit:
            j = 3 * other + band
            if state[j] & new:
                state[j] &= ~new
                changed |= 1 << j
    return changed


@njit(cache=True)
def _naked_singles(state):
    """Cells left with one digit restrict that digit's row to them. Returns the boards changed as
    dirty bits, or -1 at a contradiction."""
    changed = 0
    for band in range(3):
        once = 0
        twice = 0
        for digit in range(9):
            board = state[3 * digit + band]
            twice |= once & board
            once |= board
        if once != BAND:
            return -1  # a cell no digit can take
        naked = once & ~twice & state[27 + band]
        if naked == 0:
            continue
        for digit in range(9):
            i = 3 * digit + band
            singles = state[i] & naked
            if singles == 0:
                continue
            for row in range(3):
                bits = singles >> (9 * row) & ROW
                if bits:
                    if bits & (bits - 1):
                        return -1  # two cells of a row that can only take this digit
                    state[i] &= ~(ROW << (9 * row)) | singles
            changed |= 1 << i
    return changed


@njit(cache=True)
def _settle(state, dirty):
    """Propagate to a fixpoint, the cheap rules first: boards (``_shrink``) until none is dirty, then
    naked singles, then the column rules of the digits touched since they last ran. False at a
    contradiction."""
    touched = 0  # digits whose boards changed since the column rules last ran
    while True:
        while dirty:
            i = _trailing_zeros(dirty)
            dirty &= dirty - 1
            touched |= 1 << (i // 3)
            changed = _shrink(state, i)
            if changed < 0:
                return False
            dirty |= changed
        dirty = _naked_singles(state)
        if dirty < 0:
            return False
        if dirty:
            continue
        for digit in range(9):
            if touched >> digit & 1:
                changed = _columns(state, digit)
                if changed < 0:
                    return False
                dirty |= changed
        touched = 0
        if dirty == 0:
            return True


@njit(cache=True)
def _branch(state):
    """(board index, bit) of the branch: the two-candidate cell whose row, column and box hold the
    most open cells (the first such), its lowest digit; else the first cell with the fewest
    candidates. Call only at a fixpoint with cells left to place."""
    open0 = state[27]
    open1 = state[28]
    open2 = state[29]
    best_band = -1
    best_score = -1
    best_bit = 0
    for band in range(3):
        once = 0
        twice = 0
        thrice = 0
        for digit in range(9):
            board = state[3 * digit + band]
            thrice |= twice & board
            twice |= once & board
            once |= board
        open_cells = state[27 + band]
        pairs = twice & ~thrice & open_cells
        while pairs:
            bit = pairs & -pairs
            pairs ^= bit
            position = _bit_index(bit)
            row = position // 9
            column = position - 9 * row
            column_mask = (1 << column) * COPY_COLUMNS
            score = (_popcount(open_cells & (ROW << (9 * row)))
                     + _popcount(open_cells & (7 << (3 * (column // 3))) * COPY_COLUMNS)
                     + _popcount(open0 & column_mask) + _popcount(open1 & column_mask) + _popcount(open2 & column_mask))
            if score > best_score:
                best_band, best_score, best_bit = band, score, bit
    if best_band >= 0:
        for digit in range(9):
            if state[3 * digit + best_band] & best_bit:
                return 3 * digit + best_band, best_bit
    best = 10
    best_i = -1
    best_bit = 0
    for band in range(3):
        open_cells = state[27 + band]
        while open_cells:
            bit = open_cells & -open_cells
            open_cells ^= bit
            count = 0
            first = -1
            for digit in range(9):
                if state[3 * digit + band] & bit:
                    count += 1
                    if first < 0:
                        first = 3 * digit + band
            if count < best:
                best, best_i, best_bit = count, first, bit
    return best_i, best_bit


@njit(cache=True)
def _start(puzzle, state):
    """The root state of ``puzzle`` (uint8[81]); False when a given clashes with an earlier one."""
    for i in range(27):
        state[i] = BAND
    for band in range(3):
        state[27 + band] = BAND
    for cell in range(CELLS):
        value = puzzle[cell]
        if value == 0:
            continue
        band = cell // 27
        bit = 1 << (cell - 27 * band)
        i = 3 * (value - 1) + band
        if not state[i] & bit:
            return False
        row = (cell - 27 * band) // 9
        state[i] = (state[i] & ~(ROW << (9 * row))) | bit
        for digit in range(9):
            if digit != value - 1:
                state[3 * digit + band] &= ~bit
    return True


@njit(cache=True)
def _write(state, out):
    for i in range(27):
        digit = i // 3
        base = 27 * (i - 3 * digit)
        board = state[i]
        while board:
            bit = board & -board
            board ^= bit
            out[base + _bit_index(bit)] = digit + 1


@njit(cache=True)
def _search(puzzle, limit, stack, pending, out):
    """Count solutions of ``puzzle`` up to ``limit``, writing the first into ``out``; returns
    (count, guesses, nodes). ``stack`` is int64[MAX_DEPTH + 1, WIDTH], ``pending`` int64[MAX_DEPTH + 1]:
    the board changed in each waiting alternative."""
    count = 0
    guesses = 0
    nodes = 1
    if not _start(puzzle, _row(stack, 0)):
        return 0, 0, 1
    depth = 0
    dirty = ALL_BOARDS
    while True:
        state = _row(stack, depth * WIDTH)
        if _settle(state, dirty):
            if state[27] | state[28] | state[29]:
                i, bit = _branch(state)
                tried = _row(stack, (depth + 1) * WIDTH)
                for j in range(WIDTH):
                    tried[j] = state[j]
                state[i] &= ~bit  # waits: the cell is not this digit
                pending[depth] = i
                depth += 1
                row_mask = ROW << (9 * (_bit_index(bit) // 9))
                tried[i] = (tried[i] & ~row_mask) | bit  # tried first: the cell is this digit
                dirty = 1 << i
                guesses += 1
                nodes += 1
                continue
            count += 1
            if count == 1:
                _write(state, out)
            if count >= limit:
                break
        if depth == 0:
            break
        depth -= 1
        dirty = 1 << pending[depth]
        guesses += 1
        nodes += 1
    return count, guesses, nodes


@njit(cache=True)
def solve_batch(puzzles, limit, counts, solutions, guesses, nodes, timed, ticks):
    """Each row of ``puzzles`` through ``_search``; with ``timed``, ``ticks[k]`` gets the cycle
    counter's ticks spent on puzzle k."""
    stack = np.empty((MAX_DEPTH + 1, WIDTH), np.int64)  # every row is written before it is read
    pending = np.empty(MAX_DEPTH + 1, np.int64)
    for k in range(puzzles.shape[0]):
        start = _cycles() if timed else 0
        counts[k], guesses[k], nodes[k] = _search(puzzles[k], limit, stack, pending, solutions[k])
        if timed:
            ticks[k] = _cycles() - start

"""Compiled kernels of the ``nb`` engine (9x9 only); imported by ``sudoku.engines.nb`` alone.

Vocabulary as in ``sudoku.engines.py``: a *mask* is a cell's candidate bitset (bit d-1 = digit d),
a cell is *placed* when one bit is left, a *unit* is a row (0-8), column (9-17) or box (18-26), a
*segment* is where a row or column crosses a box. A state is one ``uint16[108]`` row of a
preallocated stack (one row per search depth): 81 cell masks, then per unit the digits placed in
it. The inner loop never allocates and never recurses.

- ``_start``: remove the givens from their units in one sweep (a clash is a contradiction), then
  settle.
- ``_settle``: naked singles through a queue of newly placed cells, hidden singles over the units
  changed since the last pass ("dirty" units, a 27-bit set), locked candidates (pointing and
  claiming) over the segments whose line or box changed, until nothing changes; -1 on a
  contradiction.
- ``_branch_cell``: fewest candidates; among two-candidate cells, the one whose units hold the
  fewest placed cells.
- ``_search``: depth first over the stack; the last option at a branch is tried in place, without
  a copy. Counts solutions up to a limit and keeps the first.
- ``_fill`` / ``_carve``: a random full grid (search with random option order), then clue removal
  in random order, a removal kept only if forbidding the removed digit leaves no solution.

Randomness is splitmix64 on a one-element ``uint64`` array, so a seed rebuilds a puzzle exactly.
The measurements behind each choice are in ``sudoku.engines.nb``.
"""

import numpy as np
from numba import njit

N = 81
FULL = 0x1FF
MAX_DEPTH = 82  # a placement per level at most, plus the root
USED = N  # a state is N cell masks, then for each unit the digits placed in it (27 masks)
WIDTH = N + 27


def _tables():
    rows = [[r * 9 + c for c in range(9)] for r in range(9)]
    cols = [[r * 9 + c for r in range(9)] for c in range(9)]
    boxes = [[(br * 3 + r) * 9 + bc * 3 + c for r in range(3) for c in range(3)] for br in range(3) for bc in range(3)]
    units = np.array(rows + cols + boxes, dtype=np.int32)
    peers = np.zeros((N, 20), dtype=np.int32)
    for cell in range(N):
        r, c = divmod(cell, 9)
        b = (r // 3) * 3 + c // 3
        peers[cell] = sorted((set(rows[r]) | set(cols[c]) | set(boxes[b])) - {cell})
    # Segments: where a row (ids 0..26, row * 3 + part) or column (27..53) crosses a box, 3 cells
    # each. For segment s, SEG_LINE and SEG_BOX hold the other 2 segments of its line and its box.
    seg_cells = np.zeros((54, 3), dtype=np.int32)
    seg_line = np.zeros((54, 2), dtype=np.int32)
    seg_box = np.zeros((54, 2), dtype=np.int32)
    seg_units = np.zeros(54, dtype=np.int64)
    for s in range(54):
        orient, rest = divmod(s, 27)
        line, part = divmod(rest, 3)
        if orient == 0:
            cells = [line * 9 + part * 3 + k for k in range(3)]
        else:
            cells = [(part * 3 + k) * 9 + line for k in range(3)]
        seg_cells[s] = cells
        first = line - line % 3
        seg_line[s] = [orient * 27 + line * 3 + j for j in range(3) if j != part]
        seg_box[s] = [orient * 27 + (first + j) * 3 + part for j in range(3) if first + j != line]
        box = (line // 3) * 3 + part if orient == 0 else part * 3 + line // 3
        seg_units[s] = (1 << (orient * 9 + line)) | (1 << (18 + box))
    cell_used = np.zeros((N, 3), dtype=np.int32)
    for cell in range(N):
        r, c = divmod(cell, 9)
        cell_used[cell] = [N + r, N + 9 + c, N + 18 + (r // 3) * 3 + c // 3]
    unit_mask = np.zeros(N, dtype=np.int64)
    for u, unit in enumerate(rows + cols + boxes):
        for cell in unit:
            unit_mask[cell] |= 1 << u
    popcount = np.array([bin(m).count("1") for m in range(512)], dtype=np.int32)
    digit = np.array([m.bit_length() for m in range(512)], dtype=np.uint8)
    return units, peers, cell_used, unit_mask, seg_cells, seg_line, seg_box, seg_units, popcount, digit


UNITS, PEERS, CELL_USED, UNIT_MASK, SEG_CELLS, SEG_LINE, SEG_BOX, SEG_UNITS, POPCOUNT, DIGIT = _tables()

ALL_UNITS = (1 << 27) - 1
# lowest set bit -> its index, by de Bruijn multiplication (numba has no portable ctz)
DEBRUIJN = 0x03F79D71B4CB0A89
BIT_INDEX = np.zeros(64, dtype=np.int32)
for _i in range(64):
    BIT_INDEX[((1 << _i) * DEBRUIJN) % 2**64 >> 58] = _i


# ---------------------------------------------------------------------------------------------
# Randomness: splitmix64. ``rng`` is a uint64[1] state array.

@njit(cache=True, inline="always")
def _next_u64(rng):
    s = rng[0] + np.uint64(0x9E3779B97F4A7C15)
    rng[0] = s
    z = (s ^ (s >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _below(rng, n):
    """A uniform integer in 0..n-1 (n small), by multiply-shift of the high 32 bits."""
    return np.int64(((_next_u64(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


# ---------------------------------------------------------------------------------------------
# Propagation.

@njit(cache=True, inline="always")
def _naked(c, queue, qn, dirty):
    """Eliminate each queued placed cell's digit from its peers; -1 on a contradiction, else the
    number of cells this placed; and the units ``dirty`` (changed) after."""
    pushed = 0
    while qn > 0:
        qn -= 1
        cell = queue[qn]
        bit = c[cell]
        for k in range(3):
            c[CELL_USED[cell, k]] |= bit
        for k in range(20):
            p = PEERS[cell, k]
            m = c[p]
            if m & bit:
                m ^= bit
                if m == 0:
                    return -1, dirty
                c[p] = m
                dirty |= UNIT_MASK[p]
                if m & (m - 1) == 0:
                    queue[qn] = p
                    qn += 1
                    pushed += 1
    return pushed, dirty


@njit(cache=True, inline="always")
def _hidden(c, queue, dirty):
    """One pass of hidden singles over the ``dirty`` units (a bit per unit: the others are known
    to have none); -1 on a contradiction, else cells queued; and the units dirty after."""
    qn = 0
    todo = dirty
    dirty = 0
    while todo:
        low = todo & -todo
        todo ^= low
        u = BIT_INDEX[(low * DEBRUIJN) >> 58 & 63]
        once = 0
        twice = 0
        for k in range(9):
            m = np.int64(c[UNITS[u, k]])
            twice |= once & m
            once |= m
        if once != FULL:
            return -1, dirty
        # digits with one place in the unit, where that place is not yet placed
        lone = once & ~twice & ~c[USED + u]
        if lone == 0:
            continue
        for k in range(9):
            cell = UNITS[u, k]
            m = c[cell]
            hit = m & lone
            if hit and m & (m - 1):
                if hit & (hit - 1):
                    return -1, dirty
                c[cell] = hit
                dirty |= UNIT_MASK[cell]
                queue[qn] = cell
                qn += 1
    return qn, dirty


@njit(cache=True, inline="always")
def _drop(c, cells, drop, queue, qn, dirty):
    """Remove the digits ``drop`` from the 3 cells of a segment; -1 as qn on a contradiction."""
    for k in range(3):
        cell = cells[k]
        m = c[cell]
        if m & drop:
            m &= ~drop
            if m == 0:
                return -1, dirty
            c[cell] = m
            dirty |= UNIT_MASK[cell]
            if m & (m - 1) == 0:
                queue[qn] = cell
                qn += 1
    return qn, dirty


@njit(cache=True, inline="always")
def _locked(c, queue, seg, since):
    """One pass of locked candidates (pointing and claiming) on segment unions ``seg``, over the
    segments whose line or box is in ``since`` (units changed since the last pass); -1 on a
    contradiction, else the number of segments that lost digits; newly placed cells are queued
    from index 0 (count in queue[81]); and the units this pass changed."""
    dirty_before = since
    dirty = 0
    for s in range(27):  # row segments: 3 consecutive cells
        seg[s] = c[3 * s] | c[3 * s + 1] | c[3 * s + 2]
    for col in range(9):  # column segments: 3 cells a row apart
        for part in range(3):
            top = part * 27 + col
            seg[27 + col * 3 + part] = c[top] | c[top + 9] | c[top + 18]
    changed = 0
    qn = 0
    for s in range(54):
        if not SEG_UNITS[s] & dirty_before:
            continue  # its line and box are as they were at the last pass, which dropped nothing
        here = np.int64(seg[s])
        l0 = SEG_LINE[s, 0]
        l1 = SEG_LINE[s, 1]
        b0 = SEG_BOX[s, 0]
        b1 = SEG_BOX[s, 1]
        line = np.int64(seg[l0] | seg[l1])
        box = np.int64(seg[b0] | seg[b1])
        # a digit of this segment absent from the rest of its line leaves the rest of its box,
        # and the other way round
        drop = here & ~line & box
        if drop:
            for t in (b0, b1):
                if seg[t] & drop:
                    qn, dirty = _drop(c, SEG_CELLS[t], drop, queue, qn, dirty)
                    if qn < 0:
                        return -1, dirty
                    seg[t] &= ~drop
                    changed += 1
        drop = here & ~box & line
        if drop:
            for t in (l0, l1):
                if seg[t] & drop:
                    qn, dirty = _drop(c, SEG_CELLS[t], drop, queue, qn, dirty)
                    if qn < 0:
                        return -1, dirty
                    seg[t] &= ~drop
                    changed += 1
    queue[N] = qn
    return changed, dirty


@njit(cache=True)
def _settle(c, queue, seg, qn, placed, dirty, locked):
    """Propagate to a fixpoint from ``qn`` newly placed cells on ``queue``, ``placed`` cells
    placed before them, ``dirty`` units changed since the last fixpoint; returns the cells placed
    after, or -1 on a contradiction."""
    placed += qn
    since = dirty  # units changed since the last locked-candidates pass
    while True:
        qn, dirty = _naked(c, queue, qn, dirty)
        if qn < 0:
            return -1
        placed += qn
        if placed == N:
            return N
        since |= dirty
        qn, dirty = _hidden(c, queue, dirty)
        if qn < 0:
            return -1
        since |= dirty
        if qn > 0:
            placed += qn
            continue
        if not locked:
            return placed
        changed, dirty = _locked(c, queue, seg, since)
        if changed < 0:
            return -1
        if changed == 0:
            return placed
        since = dirty
        qn = queue[N]
        placed += qn


@njit(cache=True)
def _start(init, c, queue, seg, locked):
    """Settle the masks ``init`` into ``c``: the digits of cells placed in ``init`` are removed
    from their units in one sweep (a digit placed twice in a unit is a contradiction), then
    ``_settle`` goes on from the cells this placed. Returns cells placed, or -1."""
    used = c[USED:]
    for u in range(27):
        used[u] = 0
    placed = 0
    for cell in range(N):
        m = np.int64(init[cell])
        if m == 0:
            return -1
        if m & (m - 1) == 0:
            placed += 1
            r = cell // 9
            col = cell - r * 9
            b = 18 + (r // 3) * 3 + col // 3
            if (used[r] | used[9 + col] | used[b]) & m:
                return -1
            used[r] |= m
            used[9 + col] |= m
            used[b] |= m
    qn = 0
    for cell in range(N):
        m = np.int64(init[cell])
        if m & (m - 1):
            r = cell // 9
            col = cell - r * 9
            m &= ~(used[r] | used[9 + col] | used[18 + (r // 3) * 3 + col // 3])
            if m == 0:
                return -1
            if m & (m - 1) == 0:
                queue[qn] = cell
                qn += 1
        c[cell] = m
    return _settle(c, queue, seg, qn, placed, ALL_UNITS, locked)


@njit(cache=True, inline="always")
def _branch_cell(c):
    """The unplaced cell with the fewest candidates, or -1 when all are placed. Among cells with
    two, the one whose row, column and box hold the fewest placed cells (it cuts the most)."""
    best = -1
    fewest = 10
    score = 99
    for cell in range(N):
        m = c[cell]
        rest = m & (m - 1)
        if rest == 0:
            continue
        if rest & (rest - 1) == 0:
            here = (POPCOUNT[c[CELL_USED[cell, 0]]] + POPCOUNT[c[CELL_USED[cell, 1]]]
                    + POPCOUNT[c[CELL_USED[cell, 2]]])
            if here < score:
                best = cell
                fewest = 2
                score = here
        elif fewest > 2:
            n = POPCOUNT[m]
            if n < fewest:
                best = cell
                fewest = n
    return best


# ---------------------------------------------------------------------------------------------
# Search.

@njit(cache=True)
def _search(init, limit, rng, randomize, locked, stack, meta, queue, solution, work):
    """Count solutions of the candidate masks ``init`` up to ``limit``; the first goes to
    ``solution`` (digits). ``work`` gets guesses and nodes added. With ``randomize`` the options at
    a branch are tried in random order drawn from ``rng``.

    ``stack[depth]`` is the state at a depth; ``meta[depth]`` its branch cell, the options not yet
    tried there, and its count of placed cells. The last option at a branch is tried in place."""
    seg = queue[N + 1 :]
    work[1] += 1
    placed = _start(init, stack[0], queue, seg, locked)
    if placed < 0:
        return 0
    count = 0
    depth = 0
    guesses = 0
    while True:
        cur = stack[depth]
        cell = -1 if placed == N else _branch_cell(cur)
        if cell < 0:
            if count == 0:
                for k in range(N):
                    solution[k] = DIGIT[cur[k]]
            count += 1
            if count >= limit:
                break
            depth -= 1  # a solved level has no options left: back up
        else:
            meta[depth, 0] = cell
            meta[depth, 1] = cur[cell]
            meta[depth, 2] = placed
        # try the next option of the deepest level that has one
        advanced = False
        while depth >= 0:
            opts = np.int64(meta[depth, 1])
            if opts == 0:
                depth -= 1
                continue
            rest = opts
            if randomize:
                for _ in range(_below(rng, POPCOUNT[opts])):
                    rest &= rest - 1
            bit = rest & -rest
            opts ^= bit
            meta[depth, 1] = opts
            guesses += 1
            branch = meta[depth, 0]
            if opts == 0:
                nxt = stack[depth]
            else:
                nxt = stack[depth + 1]
                nxt[:] = stack[depth]
            nxt[branch] = bit
            queue[0] = branch
            placed = _settle(nxt, queue, seg, 1, meta[depth, 2], UNIT_MASK[branch], locked)
            if placed >= 0:
                if opts != 0:
                    depth += 1
                advanced = True
                break
            if opts == 0:
                depth -= 1
        if not advanced:
            break
    work[0] += guesses
    work[1] += guesses
    return count


@njit(cache=True)
def _buffers():
    return np.empty((MAX_DEPTH, WIDTH), np.uint16), np.empty((MAX_DEPTH, 3), np.int32), np.empty(N + 1 + 54, np.int32)


@njit(cache=True)
def _masks_of(puzzle, masks):
    """Candidate masks of a digit row (0 = blank): a given is its bit, a blank is FULL."""
    for k in range(N):
        v = puzzle[k]
        masks[k] = FULL if v == 0 else (1 << (v - 1)) if v <= 9 else 0


@njit(cache=True)
def solve_masks_batch(masks, limit, locked, counts, solutions, guesses, nodes):
    """Solve each row of candidate masks ``masks`` (uint16[k, 81]); outputs filled in place."""
    stack, meta, queue = _buffers()
    rng = np.zeros(1, np.uint64)
    work = np.zeros(2, np.int64)
    for i in range(masks.shape[0]):
        work[0] = 0
        work[1] = 0
        solutions[i, :] = 0
        counts[i] = _search(masks[i], limit, rng, False, locked, stack, meta, queue,
                            solutions[i], work)
        guesses[i] = work[0]
        nodes[i] = work[1]


@njit(cache=True)
def solve_batch(puzzles, limit, locked, counts, solutions, guesses, nodes):
    """Solve each row of ``puzzles`` (uint8[k, 81], 0 = blank); outputs filled in place."""
    stack, meta, queue = _buffers()
    rng = np.zeros(1, np.uint64)
    work = np.zeros(2, np.int64)
    masks = np.empty(N, np.uint16)
    for i in range(puzzles.shape[0]):
        _masks_of(puzzles[i], masks)
        work[0] = 0
        work[1] = 0
        solutions[i, :] = 0
        counts[i] = _search(masks, limit, rng, False, locked, stack, meta, queue,
                            solutions[i], work)
        guesses[i] = work[0]
        nodes[i] = work[1]


# ---------------------------------------------------------------------------------------------
# Generation.

@njit(cache=True)
def _fill(rng, stack, meta, queue, grid, work):
    """A random complete grid into ``grid``: search the empty grid with random digit order."""
    masks = np.full(N, FULL, np.uint16)
    _search(masks, 1, rng, True, True, stack, meta, queue, grid, work)


@njit(cache=True, inline="always")
def _forced(puzzle, cell):
    """Whether the givens among the peers of blank ``cell`` of ``puzzle`` hold 8 digits, so the
    cell has one candidate left and its removal cannot make a second solution."""
    seen = 0
    for k in range(20):
        v = puzzle[PEERS[cell, k]]
        if v:
            seen |= 1 << (v - 1)
    return POPCOUNT[seen] == 8


@njit(cache=True)
def _other(puzzle, grid, cell, masks, rng, stack, meta, queue, scratch, work):
    """Whether ``puzzle`` (``grid`` with some cells blanked, ``cell`` among them) has a solution
    that differs from ``grid`` at ``cell``."""
    _masks_of(puzzle, masks)
    masks[cell] = FULL & ~(1 << (grid[cell] - 1))
    return _search(masks, 1, rng, False, True, stack, meta, queue, scratch, work) > 0


@njit(cache=True)
def _carve(grid, rng, blanks, minimal, symmetric, stack, meta, queue, puzzle, work):
    """Blank cells of the full ``grid`` in random order into ``puzzle``, keeping a removal only
    if no other solution exists; stop at ``blanks`` blanks unless ``minimal``. With ``symmetric``
    a cell and its half-turn partner (80 - cell) go together. Returns blanks.

    A removal whose cells are each left with one candidate by the givens around them needs no
    search (same answer, so the same puzzles)."""
    size = N // 2 + 1 if symmetric else N
    order = np.arange(size)
    for k in range(size - 1, 0, -1):
        j = _below(rng, k + 1)
        t = order[k]
        order[k] = order[j]
        order[j] = t
    masks = np.empty(N, np.uint16)
    scratch = np.empty(N, np.uint8)
    puzzle[:] = grid
    made = 0
    for k in range(size):
        if made >= blanks and not minimal:
            break
        cell = order[k]
        twin = N - 1 - cell if symmetric else cell
        puzzle[cell] = 0
        puzzle[twin] = 0
        if _forced(puzzle, cell) and _forced(puzzle, twin):
            keep = True
        elif twin == cell:
            keep = not _other(puzzle, grid, cell, masks, rng, stack, meta, queue, scratch, work)
        else:  # another solution differs at cell, or agrees there and differs at twin
            keep = not _other(puzzle, grid, cell, masks, rng, stack, meta, queue, scratch, work)
            if keep:
                puzzle[cell] = grid[cell]
                keep = not _other(puzzle, grid, twin, masks, rng, stack, meta, queue, scratch, work)
                puzzle[cell] = 0
        if keep:
            made += 1 if twin == cell else 2
        else:
            puzzle[cell] = grid[cell]
            puzzle[twin] = grid[twin]
    return made


@njit(cache=True)
def generate_batch(seeds, blanks, minimal, symmetric, puzzles, solutions):
    """One puzzle per seed into ``puzzles`` (and its solution): at least ``blanks`` blanks (a grid
    whose minimal puzzle has fewer is dropped and the next grid from the same stream is drawn)."""
    stack, meta, queue = _buffers()
    rng = np.zeros(1, np.uint64)
    work = np.zeros(2, np.int64)
    for i in range(seeds.shape[0]):
        rng[0] = seeds[i]
        while True:
            _fill(rng, stack, meta, queue, solutions[i], work)
            if _carve(solutions[i], rng, blanks, minimal, symmetric, stack, meta, queue,
                      puzzles[i], work) >= blanks:
                break


@njit(cache=True)
def fill_batch(seeds, grids):
    """One random complete grid per seed into ``grids``."""
    stack, meta, queue = _buffers()
    rng = np.zeros(1, np.uint64)
    work = np.zeros(2, np.int64)
    for i in range(seeds.shape[0]):
        rng[0] = seeds[i]
        _fill(rng, stack, meta, queue, grids[i], work)

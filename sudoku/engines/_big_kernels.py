"""Numba kernels of the ``big`` engine: box 4..9 with multi-word candidate bitsets.

A state is ``uint64[ncells, W]`` (W = 1 word up to 64 digits, 2 for 81x81): bit d of the set is
digit d+1. The search is a depth-first one on an explicit stack of states that lives in numpy arrays
owned by the caller, so a call can stop after a node budget and a later call resumes where it
stopped (the wrapper reads the clock between calls; numba code cannot be interrupted). Propagation:
naked singles by a queue, hidden singles and locked candidates by unit sweeps until nothing changes.

Below the entry points the kernels pass no array: a state is a raw pointer (``_pointers.at``) indexed
``state[cell * W + w]``, and the geometry tables and work buffers travel as pointers with their
widths in one ``_Tables`` tuple made once per call from Python. numba counts references on every
array a call takes and every view (an atomic increment and decrement each), and the locked-candidates
pass allocated its queue length on the heap; with both gone a node costs about half what it did
(``bench/ab_trees.py --only big``: 0.51x the time at 16x16, 0.55x at 25x25, the same nodes).
"""

from collections import namedtuple

import numpy as np
from numba import njit

from sudoku.engines._pointers import at

# meta slots: the search's resumable scalars
DEPTH, FRESH, COUNT, NODES, GUESSES, RANDOM = 0, 1, 2, 3, 4, 5
# statuses of run()
DONE, PAUSED, STACK_FULL = 0, 1, 2


@njit(cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def _count(state, cell, W):
    total = 0
    for w in range(W):
        total += _popcount(state[cell * W + w])
    return total


_Tables = namedtuple("_Tables", "W peers npeers units nunits side full seg_cells nseg box line_rest box_rest nrest "
                                "queue once twice seg_or")


@njit(cache=True, inline="always")
def _tables(W, peers, units, full, seg_cells, seg_line_rest, seg_box_rest, queue, scratch, seg_or):
    """Pointers to the geometry tables and work buffers with their widths, made once per kernel call
    from Python (the caller holds the arrays), so that propagation passes no array."""
    return _Tables(W, at(peers, 0), peers.shape[1], at(units, 0), units.shape[0], units.shape[1], at(full, 0),
                   at(seg_cells, 0), seg_cells.shape[0], seg_cells.shape[1], at(seg_line_rest, 0),
                   at(seg_box_rest, 0), seg_line_rest.shape[1], at(queue, 0), at(scratch, 0), at(scratch, W),
                   at(seg_or, 0))


@njit(cache=True)
def _eliminate_peers(state, cell, t, qlen):
    """Remove the placed digit of ``cell`` from its peers; returns the new queue length, -1 on a
    contradiction."""
    W = t.W
    for w in range(W):
        bits = state[cell * W + w]
        if bits == 0:
            continue
        for p in range(t.npeers):
            peer = t.peers[cell * t.npeers + p]
            if state[peer * W + w] & bits:
                state[peer * W + w] &= ~bits
                n = _count(state, peer, W)
                if n == 0:
                    return -1
                if n == 1:
                    t.queue[qlen] = peer
                    qlen += 1
    return qlen


@njit(cache=True)
def _hidden(state, t):
    """One sweep of hidden singles over every unit; returns the queue length (cells placed are
    pushed on an empty queue), -1 on a contradiction (a digit with no place, or a cell needing two)."""
    W, side, once, twice = t.W, t.side, t.once, t.twice
    qlen = 0
    for u in range(t.nunits):
        for w in range(W):
            once[w] = 0
            twice[w] = 0
        for i in range(side):
            cell = t.units[u * side + i]
            for w in range(W):
                m = state[cell * W + w]
                twice[w] |= once[w] & m
                once[w] |= m
        any_lone = False
        for w in range(W):
            if once[w] != t.full[w]:
                return -1
            once[w] &= ~twice[w]  # now: digits with exactly one place
            if once[w]:
                any_lone = True
        if not any_lone:
            continue
        for i in range(side):
            cell = t.units[u * side + i]
            if _count(state, cell, W) == 1:
                continue
            hits = 0
            for w in range(W):
                hits += _popcount(state[cell * W + w] & once[w])
            if hits == 0:
                continue
            if hits > 1:
                return -1
            for w in range(W):
                state[cell * W + w] &= once[w]
            t.queue[qlen] = cell
            qlen += 1
    return qlen


@njit(cache=True)
def _locked(state, t):
    """Locked candidates over every segment (a line crossing a box): a digit of a segment found
    nowhere else in its line leaves the rest of its box, and the other way round. Returns (cells
    changed, -1 on a contradiction; the queue length): cells left with one digit are pushed on an
    empty queue."""
    W, box, nrest, seg_or = t.W, t.box, t.nrest, t.seg_or
    for s in range(t.nseg):
        for w in range(W):
            m = np.uint64(0)
            for k in range(box):
                m |= state[t.seg_cells[s * box + k] * W + w]
            seg_or[s * W + w] = m
    changed = 0
    qlen = 0
    for s in range(t.nseg):
        for direction in range(2):
            rest_keep = t.line_rest if direction == 0 else t.box_rest
            rest_drop = t.box_rest if direction == 0 else t.line_rest
            for w in range(W):
                elsewhere = np.uint64(0)
                for j in range(nrest):
                    elsewhere |= seg_or[rest_keep[s * nrest + j] * W + w]
                drop = seg_or[s * W + w] & ~elsewhere
                if drop == 0:
                    continue
                present = np.uint64(0)
                for j in range(nrest):
                    present |= seg_or[rest_drop[s * nrest + j] * W + w]
                drop &= present
                if drop == 0:
                    continue
                for j in range(nrest):
                    other = rest_drop[s * nrest + j]
                    for k in range(box):
                        cell = t.seg_cells[other * box + k]
                        if state[cell * W + w] & drop:
                            state[cell * W + w] &= ~drop
                            n = _count(state, cell, W)
                            if n == 0:
                                return -1, qlen
                            if n == 1:
                                t.queue[qlen] = cell
                                qlen += 1
                            changed += 1
                    seg_or[other * W + w] &= ~drop
    return changed, qlen


@njit(cache=True)
def _settle(state, t, qlen, hidden):
    """``settle`` on a pointer to the state (``state[cell * W + w]``) and the tables ``t``."""
    while True:
        while qlen > 0:
            qlen -= 1
            qlen = _eliminate_peers(state, t.queue[qlen], t, qlen)
            if qlen < 0:
                return False
        if not hidden:
            return True
        qlen = _hidden(state, t)
        if qlen < 0:
            return False
        if qlen > 0:
            continue
        changed, qlen = _locked(state, t)
        if changed < 0:
            return False
        if changed == 0:
            return True


@njit(cache=True)
def settle(state, queue, qlen, geo_peers, units, full, seg_cells, seg_line_rest, seg_box_rest, scratch, seg_or,
           hidden=True):
    """Propagate to a fixed point; False on a contradiction. ``queue[:qlen]`` holds newly placed cells.
    Without ``hidden``, naked singles only (as ``py.settle(hidden=False)``, for rating)."""
    t = _tables(state.shape[1], geo_peers, units, full, seg_cells, seg_line_rest, seg_box_rest, queue, scratch,
                seg_or)
    return _settle(at(state, 0), t, qlen, hidden)


@njit(cache=True)
def _branch_cell(state, ncells, W, randomize):
    """The unplaced cell with the fewest candidates (a random one among ties when ``randomize``);
    -1 when every cell is placed."""
    best = -1
    fewest = 1 << 30
    ties = 0
    for cell in range(ncells):
        n = _count(state, cell, W)
        if n > 1:
            if n < fewest:
                best = cell
                fewest = n
                ties = 1
                if n == 2 and not randomize:
                    break
            elif n == fewest and randomize:
                ties += 1
                if np.random.randint(0, ties) == 0:
                    best = cell
    return best


@njit(cache=True)
def _take_option(options, W, randomize):
    """Remove and return one digit index (0-based) from the ``options`` bitset: the lowest, or a
    random one."""
    total = 0
    for w in range(W):
        total += _popcount(options[w])
    pick = np.random.randint(0, total) if randomize else 0
    for w in range(W):
        m = options[w]
        while m:
            low = m & (~m + np.uint64(1))
            if pick == 0:
                options[w] &= ~low
                bit = 0
                while (low >> np.uint64(bit)) != np.uint64(1):
                    bit += 1
                return w * 64 + bit
            pick -= 1
            m &= ~low
    return -1


@njit(cache=True)
def seed_random(seed):
    np.random.seed(seed)


@njit(cache=True)
def run(stack, options, branch, meta, limit, max_nodes, solution,
        peers, units, full, seg_cells, seg_line_rest, seg_box_rest, queue, scratch, seg_or):
    """Advance the search until it ends (DONE: exhausted, or ``limit`` solutions counted), passes
    ``max_nodes`` (PAUSED) or needs a deeper stack than ``stack`` has (STACK_FULL). Stack slot 0 must
    hold the settled root and ``meta`` the search's scalars; both persist between calls."""
    capacity, ncells, W = stack.shape
    size = ncells * W
    t = _tables(W, peers, units, full, seg_cells, seg_line_rest, seg_box_rest, queue, scratch, seg_or)
    randomize = meta[RANDOM] != 0
    while True:
        depth = meta[DEPTH]
        if depth < 0:
            return DONE
        here = at(stack, depth * size)  # pointers, not views: no reference counting per node
        opts = at(options, depth * W)
        if meta[FRESH]:
            cell = _branch_cell(here, ncells, W, randomize)
            if cell < 0:
                meta[COUNT] += 1
                if meta[COUNT] == 1:
                    first = at(solution, 0)
                    for i in range(size):
                        first[i] = here[i]
                meta[FRESH] = 0
                meta[DEPTH] = depth - 1
                if meta[COUNT] >= limit:
                    return DONE
                continue
            branch[depth] = cell
            for w in range(W):
                opts[w] = here[cell * W + w]
            meta[FRESH] = 0
        empty = True
        for w in range(W):
            if opts[w]:
                empty = False
        if empty:
            meta[DEPTH] = depth - 1
            continue
        if meta[NODES] >= max_nodes:
            return PAUSED
        if depth + 1 >= capacity:
            return STACK_FULL
        digit = _take_option(opts, W, randomize)
        cell = branch[depth]
        meta[NODES] += 1
        meta[GUESSES] += 1
        child = at(stack, (depth + 1) * size)
        for i in range(size):
            child[i] = here[i]
        for w in range(W):
            child[cell * W + w] = 0
        child[cell * W + digit // 64] = np.uint64(1) << np.uint64(digit % 64)
        queue[0] = cell
        if _settle(child, t, 1, True):
            meta[DEPTH] = depth + 1
            meta[FRESH] = 1


@njit(cache=True)
def to_digits(state):
    """Digits 1..side of a settled state (0 where a cell is not placed)."""
    ncells, W = state.shape
    s = at(state, 0)
    out = np.zeros(ncells, np.int32)
    for cell in range(ncells):
        if _count(s, cell, W) != 1:
            continue
        for w in range(W):
            m = s[cell * W + w]
            if m:
                bit = 0
                while (m >> np.uint64(bit)) != np.uint64(1):
                    bit += 1
                out[cell] = w * 64 + bit + 1
    return out


@njit(cache=True)
def _load(state, clues, full, queue):
    """``state`` set to the candidates of the digits ``clues`` (0 = blank) before propagation; returns
    the queue length (every given cell is queued)."""
    W = state.shape[1]
    qlen = 0
    for cell in range(clues.shape[0]):
        value = clues[cell]
        if value:
            for w in range(W):
                state[cell, w] = 0
            state[cell, (value - 1) // 64] = np.uint64(1) << np.uint64((value - 1) % 64)
            queue[qlen] = cell
            qlen += 1
        else:
            for w in range(W):
                state[cell, w] = full[w]
    return qlen


@njit(cache=True)
def singles_solve(clues, hidden, state, queue, peers, units, full, seg_cells, seg_line_rest, seg_box_rest,
                  scratch, seg_or):
    """Whether propagation alone fills ``clues``: naked singles, or with ``hidden`` also hidden singles
    and locked candidates (``py.rate``'s 'naked' and 'hidden' levels from 16x16 up)."""
    qlen = _load(state, clues, full, queue)
    if not settle(state, queue, qlen, peers, units, full, seg_cells, seg_line_rest, seg_box_rest, scratch, seg_or,
                  hidden):
        return False
    ncells, W = state.shape
    s = at(state, 0)
    for cell in range(ncells):
        if _count(s, cell, W) != 1:
            return False
    return True


@njit(cache=True)
def remove_while_singles_solve(clues, solution, order, pos, end, blanks, stop, hidden, state, queue, peers, units,
                               full, seg_cells, seg_line_rest, seg_box_rest, scratch, seg_or):
    """Clue removal for ``order[pos:end]``: blank each cell of ``clues`` in turn and keep the blank
    while singles (``hidden`` as in singles_solve) still fill the grid, which also proves the solution
    unique. Stops once ``blanks`` reaches ``stop`` (stop < 0: never). Returns (position reached,
    blanks)."""
    while pos < end:
        if stop >= 0 and blanks >= stop:
            break
        cell = order[pos]
        pos += 1
        clues[cell] = 0
        if singles_solve(clues, hidden, state, queue, peers, units, full, seg_cells, seg_line_rest,
                         seg_box_rest, scratch, seg_or):
            blanks += 1
        else:
            clues[cell] = solution[cell]
    return pos, blanks


@njit(cache=True)
def shuffled(n):
    """A permutation of 0..n-1 from numba's generator (seeded by seed_random)."""
    order = np.arange(n).astype(np.int32)
    for i in range(n - 1, 0, -1):
        j = np.random.randint(0, i + 1)
        order[i], order[j] = order[j], order[i]
    return order

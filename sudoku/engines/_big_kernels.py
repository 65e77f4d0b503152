"""Numba kernels of the ``big`` engine: box 4..9 with multi-word candidate bitsets.

A state is ``uint64[ncells, W]`` (W = 1 word up to 64 digits, 2 for 81x81): bit d of the set is
digit d+1. The search is a depth-first one on an explicit stack of states that lives in numpy arrays
owned by the caller, so a call can stop after a node budget and a later call resumes where it
stopped (the wrapper reads the clock between calls; numba code cannot be interrupted). Propagation:
naked singles by a queue, hidden singles and locked candidates by unit sweeps until nothing changes.
"""

import numpy as np
from numba import njit

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
        total += _popcount(state[cell, w])
    return total


@njit(cache=True)
def _eliminate_peers(state, cell, peers, W, queue, qlen):
    """Remove the placed digit of ``cell`` from its peers; returns the new queue length, -1 on a
    contradiction."""
    for w in range(W):
        bits = state[cell, w]
        if bits == 0:
            continue
        for p in range(peers.shape[1]):
            peer = peers[cell, p]
            if state[peer, w] & bits:
                state[peer, w] &= ~bits
                n = _count(state, peer, W)
                if n == 0:
                    return -1
                if n == 1:
                    queue[qlen] = peer
                    qlen += 1
    return qlen


@njit(cache=True)
def _hidden(state, units, full, W, queue, qlen, once, twice):
    """One sweep of hidden singles over every unit; returns the new queue length (cells placed are
    pushed), -1 on a contradiction (a digit with no place, or a cell needing two)."""
    side = units.shape[1]
    for u in range(units.shape[0]):
        for w in range(W):
            once[w] = 0
            twice[w] = 0
        for i in range(side):
            cell = units[u, i]
            for w in range(W):
                m = state[cell, w]
                twice[w] |= once[w] & m
                once[w] |= m
        any_lone = False
        for w in range(W):
            if once[w] != full[w]:
                return -1
            once[w] &= ~twice[w]  # now: digits with exactly one place
            if once[w]:
                any_lone = True
        if not any_lone:
            continue
        for i in range(side):
            cell = units[u, i]
            if _count(state, cell, W) == 1:
                continue
            hits = 0
            for w in range(W):
                hits += _popcount(state[cell, w] & once[w])
            if hits == 0:
                continue
            if hits > 1:
                return -1
            for w in range(W):
                state[cell, w] &= once[w]
            queue[qlen] = cell
            qlen += 1
    return qlen


@njit(cache=True)
def _locked(state, seg_cells, seg_line_rest, seg_box_rest, W, seg_or, queue, qref):
    """Locked candidates over every segment (a line crossing a box): a digit of a segment found
    nowhere else in its line leaves the rest of its box, and the other way round. Returns the number
    of cells changed, -1 on a contradiction; cells left with one digit are pushed on ``queue``
    (its length in ``qref[0]``)."""
    nseg, box = seg_cells.shape
    for s in range(nseg):
        for w in range(W):
            m = np.uint64(0)
            for k in range(box):
                m |= state[seg_cells[s, k], w]
            seg_or[s, w] = m
    changed = 0
    for s in range(nseg):
        for direction in range(2):
            rest_keep = seg_line_rest if direction == 0 else seg_box_rest
            rest_drop = seg_box_rest if direction == 0 else seg_line_rest
            for w in range(W):
                elsewhere = np.uint64(0)
                for j in range(rest_keep.shape[1]):
                    elsewhere |= seg_or[rest_keep[s, j], w]
                drop = seg_or[s, w] & ~elsewhere
                if drop == 0:
                    continue
                present = np.uint64(0)
                for j in range(rest_drop.shape[1]):
                    present |= seg_or[rest_drop[s, j], w]
                drop &= present
                if drop == 0:
                    continue
                for j in range(rest_drop.shape[1]):
                    other = rest_drop[s, j]
                    for k in range(box):
                        cell = seg_cells[other, k]
                        if state[cell, w] & drop:
                            state[cell, w] &= ~drop
                            n = _count(state, cell, W)
                            if n == 0:
                                return -1
                            if n == 1:
                                queue[qref[0]] = cell
                                qref[0] += 1
                            changed += 1
                    seg_or[other, w] &= ~drop
    return changed


@njit(cache=True)
def settle(state, queue, qlen, geo_peers, units, full, seg_cells, seg_line_rest, seg_box_rest, scratch, seg_or,
           hidden=True):
    """Propagate to a fixed point; False on a contradiction. ``queue[:qlen]`` holds newly placed cells.
    Without ``hidden``, naked singles only (as ``py.settle(hidden=False)``, for rating)."""
    W = state.shape[1]
    once = scratch[0]
    twice = scratch[1]
    while True:
        while qlen > 0:
            qlen -= 1
            qlen = _eliminate_peers(state, queue[qlen], geo_peers, W, queue, qlen)
            if qlen < 0:
                return False
        if not hidden:
            return True
        qlen = _hidden(state, units, full, W, queue, 0, once, twice)
        if qlen < 0:
            return False
        if qlen > 0:
            continue
        qref = np.zeros(1, np.int64)
        changed = _locked(state, seg_cells, seg_line_rest, seg_box_rest, W, seg_or, queue, qref)
        if changed < 0:
            return False
        if changed == 0:
            return True
        qlen = qref[0]


@njit(cache=True)
def _branch_cell(state, W, randomize):
    """The unplaced cell with the fewest candidates (a random one among ties when ``randomize``);
    -1 when every cell is placed."""
    best = -1
    fewest = 1 << 30
    ties = 0
    for cell in range(state.shape[0]):
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
    W = stack.shape[2]
    capacity = stack.shape[0]
    randomize = meta[RANDOM] != 0
    while True:
        depth = meta[DEPTH]
        if depth < 0:
            return DONE
        if meta[FRESH]:
            cell = _branch_cell(stack[depth], W, randomize)
            if cell < 0:
                meta[COUNT] += 1
                if meta[COUNT] == 1:
                    solution[:, :] = stack[depth]
                meta[FRESH] = 0
                meta[DEPTH] = depth - 1
                if meta[COUNT] >= limit:
                    return DONE
                continue
            branch[depth] = cell
            options[depth, :] = stack[depth, cell, :]
            meta[FRESH] = 0
        empty = True
        for w in range(W):
            if options[depth, w]:
                empty = False
        if empty:
            meta[DEPTH] = depth - 1
            continue
        if meta[NODES] >= max_nodes:
            return PAUSED
        if depth + 1 >= capacity:
            return STACK_FULL
        digit = _take_option(options[depth], W, randomize)
        cell = branch[depth]
        meta[NODES] += 1
        meta[GUESSES] += 1
        child = stack[depth + 1]
        child[:, :] = stack[depth]
        for w in range(W):
            child[cell, w] = 0
        child[cell, digit // 64] = np.uint64(1) << np.uint64(digit % 64)
        queue[0] = cell
        if settle(child, queue, 1, peers, units, full, seg_cells, seg_line_rest, seg_box_rest, scratch, seg_or):
            meta[DEPTH] = depth + 1
            meta[FRESH] = 1


@njit(cache=True)
def to_digits(state):
    """Digits 1..side of a settled state (0 where a cell is not placed)."""
    ncells, W = state.shape
    out = np.zeros(ncells, np.int32)
    for cell in range(ncells):
        if _count(state, cell, W) != 1:
            continue
        for w in range(W):
            m = state[cell, w]
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
    if not settle(state, queue, qlen, peers, units, full, seg_cells, seg_line_rest, seg_box_rest, scratch,
                  seg_or, hidden):
        return False
    W = state.shape[1]
    for cell in range(state.shape[0]):
        if _count(state, cell, W) != 1:
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

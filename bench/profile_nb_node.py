"""Where a node of the ``nb`` search spends its time: the parts of one guess, each timed alone.

    PYTHONPATH=. python bench/profile_nb_node.py [--limit N] [--sets a,b]

A node is a guess: choose the branch cell, copy the state, place the digit, propagate to a
fixpoint. A plain search (the order of ``_search``) records the state at every branch choice of
the first N puzzles of each set; then each part runs over all recorded states in one compiled
loop, cumulatively (the branch choice; + the copy and the placement of the first option; + naked
singles to a fixpoint; + the full ``_settle``), best of 5 CPU-time runs, in ns per state. The
copy is timed apart, as a slice assignment and as a loop over the state's words. Per state it
also counts the passes of ``_settle`` (naked calls and cells they place, ``_digits`` calls and
the digits they look at). Figures are for comparing parts on one machine, not machines.
"""

import argparse
import gzip
import os
import time
from pathlib import Path

import numpy as np
from numba import njit

from bench.common import cpu_model
from sudoku.engines import nb
from sudoku.engines._pointers import at
from sudoku.engines._nb_kernels import (
    COUNT,
    HIDDEN,
    MAX_DEPTH,
    N,
    SCRATCH,
    WIDTH,
    _borrow,
    _branch,
    _digits,
    _first_option,
    _load_digits,
    _low_index,
    _naked,
    _options,
    _place,
    _settle,
)

REPO = Path(__file__).resolve().parents[1]
SETS = {"hardest1106": 1, "top1465": 1, "serg_benchmark": 2, "17clue": 2}


@njit
def record(puzzles, limit, out):
    """The states at the branch choices of a search of each puzzle (as ``_search``), up to ``out``'s rows."""
    stack = np.empty((MAX_DEPTH, WIDTH), np.int64)
    meta = np.empty((MAX_DEPTH, 4), np.int64)  # (not borrowed: the figures come from the loops below)
    givens = np.empty(SCRATCH, np.int64)
    n = 0
    for i in range(puzzles.shape[0]):
        if not _load_digits(at(puzzles, i * N), at(stack, 0), at(givens, 0)):
            continue
        placed = _settle(stack[0], True)
        if placed < 0:
            continue
        depth = 0
        count = 0
        while True:
            if placed == N:
                count += 1
                if count >= limit:
                    break
                depth -= 1
            else:
                if n < out.shape[0]:
                    out[n, :] = stack[depth]
                    n += 1
                b, p = _branch(stack[depth])
                meta[depth, 0] = b
                meta[depth, 1] = p
                meta[depth, 2] = _options(stack[depth], b, p)
                meta[depth, 3] = _first_option(stack[depth], b, p, meta[depth, 2])
            advanced = False
            while depth >= 0:
                opts = meta[depth, 2]
                if opts == 0:
                    depth -= 1
                    continue
                bit = opts & -opts
                if opts & meta[depth, 3]:
                    bit = meta[depth, 3]
                    meta[depth, 3] = 0
                opts ^= bit
                meta[depth, 2] = opts
                if opts != 0:
                    for j in range(WIDTH):
                        stack[depth + 1, j] = stack[depth, j]
                nxt = stack[depth + 1] if opts != 0 else stack[depth]
                _place(nxt, _low_index(bit), meta[depth, 0], meta[depth, 1])
                placed = _settle(nxt, True)
                if placed >= 0:
                    if opts != 0:
                        depth += 1
                    advanced = True
                    break
                if opts == 0:
                    depth -= 1
            if not advanced:
                break
    return n


@njit
def copy_slice(states, n, reps, scratch):
    states = _borrow(states)
    scratch = _borrow(scratch)
    acc = 0
    for _ in range(reps):
        for i in range(n):
            scratch[:] = states[i]
            acc += scratch[COUNT]
    return acc


@njit
def copy_loop(states, n, reps, scratch):
    states = _borrow(states)
    scratch = _borrow(scratch)
    acc = 0
    for _ in range(reps):
        for i in range(n):
            for j in range(WIDTH):
                scratch[j] = states[i, j]
            acc += scratch[COUNT]
    return acc


@njit
def upto(states, n, reps, scratch, part):
    """part 0: branch choice; 1: + copy and placement; 2: + naked singles to a fixpoint; 3: + _settle.
    On raw pointers to the rows, as the engine's search works (no reference counting)."""
    row = states.shape[1]
    to = at(scratch, 0)
    acc = 0
    for _ in range(reps):
        for i in range(n):
            state = at(states, i * row)
            b, p = _branch(state)
            acc += b + p
            if part == 0:
                continue
            for j in range(WIDTH):
                to[j] = state[j]
            _place(to, _low_index(_options(to, b, p)), b, p)
            if part == 2:
                while _naked(to) > 0:
                    pass
            elif part == 3:
                acc += _settle(to, True)
            acc += to[COUNT]
    return acc


@njit
def passes(states, n, scratch, out):
    """Per state, summed into ``out``: naked calls, cells they placed, _digits calls, digits looked at."""
    for i in range(n):
        b, p = _branch(states[i])
        for j in range(WIDTH):
            scratch[j] = states[i, j]
        _place(scratch, _low_index(_options(scratch, b, p)), b, p)
        while True:  # the loop of _settle, counted
            out[0] += 1
            made = _naked(scratch)
            if made < 0:
                break
            out[1] += made
            if made:
                continue
            if scratch[COUNT] == N:
                break
            out[2] += 1
            todo = scratch[HIDDEN]
            digits = (todo | todo >> 1 | todo >> 2) & 0x1249249
            while digits:
                digits &= digits - 1
                out[3] += 1
            if _digits(scratch, True) <= 0:
                break


def best_ns(fn, args, per):
    fn(*args)
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        fn(*args)
        best = min(best, time.process_time() - start)
    return best / per * 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=3000, help="first N puzzles of each set (default 3000)")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("SUDOKU_DATA", REPO.parent / "shared" / "data")))
    args = parser.parse_args()
    print(f"# cpu: {cpu_model()}; load average at start {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print("| set | states | branch | + copy, place | + naked to fixpoint | + settle (a node) | copy: slice / loop "
          "| naked calls / placed | _digits calls / digits |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.sets.split(","):
        with gzip.open(args.data / f"{name}.txt.gz", "rt") as handle:
            puzzles = nb.from_lines(handle.read().split()[: args.limit])
        out = np.zeros((60000, WIDTH), np.int64)
        n = record(puzzles, SETS.get(name, 1), out)
        if n == 0:
            print(f"| {name} | 0 | | | | | | | |")
            continue
        scratch = np.zeros(WIDTH, np.int64)
        reps = max(1, 200_000 // n)
        per = n * reps
        parts = [best_ns(upto, (out, n, reps, scratch, part), per) for part in range(4)]
        copies = [best_ns(fn, (out, n, reps, scratch), per) for fn in (copy_slice, copy_loop)]
        counts = np.zeros(4, np.int64)
        passes(out, n, scratch, counts)
        c = counts / n
        print(f"| {name} | {n} | {parts[0]:.0f} | {parts[1]:.0f} | {parts[2]:.0f} | {parts[3]:.0f} "
              f"| {copies[0]:.0f} / {copies[1]:.0f} | {c[0]:.2f} / {c[1]:.2f} | {c[2]:.2f} / {c[3]:.2f} |", flush=True)
    print(f"# ns per recorded state, best of 5; load average at end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

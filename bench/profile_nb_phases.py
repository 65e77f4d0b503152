"""Where a puzzle of the ``nb`` engine spends its time, phase by phase: CPU ns per puzzle.

    PYTHONPATH=. python bench/profile_nb_phases.py [--set serg_benchmark] [--rounds 7] [--data DIR]

Each line is one compiled loop over the whole set, cumulative: loading the givens
(``_load_digits``); + the first settle; + the search to the first solution; + counting on to 2;
then ``solve_batch`` itself at limits 1 and 2 (the batch loop and its outputs), and loading a
solved grid then writing it (``_write``). Best of ``--rounds`` CPU-time rounds, all phases
alternating within a round. Figures are for comparing phases on one machine, not machines.
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
from sudoku.engines._nb_kernels import N, SCRATCH, _borrow, _buffers, _load_digits, _search, _settle, _write
from sudoku.engines._pointers import at

REPO = Path(__file__).resolve().parents[1]


@njit
def load(puzzles, stack, givens):
    puzzles, stack, givens = _borrow(puzzles), _borrow(stack), _borrow(givens)
    ok = 0
    for i in range(puzzles.shape[0]):
        ok += _load_digits(at(puzzles, i * N), at(stack, 0), at(givens, 0))
    return ok


@njit
def settle(puzzles, stack, givens):
    puzzles, stack, givens = _borrow(puzzles), _borrow(stack), _borrow(givens)
    placed = 0
    for i in range(puzzles.shape[0]):
        _load_digits(at(puzzles, i * N), at(stack, 0), at(givens, 0))
        placed += _settle(at(stack, 0), True)
    return placed


@njit
def write(puzzles, stack, givens, solutions):
    puzzles, stack, givens, solutions = _borrow(puzzles), _borrow(stack), _borrow(givens), _borrow(solutions)
    for i in range(puzzles.shape[0]):
        _load_digits(at(puzzles, i * N), at(stack, 0), at(givens, 0))
        _write(at(stack, 0), at(solutions, i * N))


@njit
def search(puzzles, limit, stack, meta, givens, solutions, work, rng):
    puzzles, stack, meta, givens = _borrow(puzzles), _borrow(stack), _borrow(meta), _borrow(givens)
    solutions, work, rng = _borrow(solutions), _borrow(work), _borrow(rng)
    found = 0
    for i in range(puzzles.shape[0]):
        _load_digits(at(puzzles, i * N), at(stack, 0), at(givens, 0))
        found += _search(limit, rng, False, True, stack, meta, at(solutions, i * N), work, at(puzzles, i * N), True)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="serg_benchmark")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("SUDOKU_DATA", REPO.parent / "shared" / "data")))
    args = parser.parse_args()
    with gzip.open(args.data / f"{args.set}.txt.gz", "rt") as handle:
        puzzles = nb.from_lines(handle.read().split())
    k = len(puzzles)
    stack, meta = _buffers()
    givens = np.empty(SCRATCH, np.int64)
    solutions = np.zeros((k, N), np.uint8)
    work = np.zeros(2, np.int64)
    rng = np.zeros(1, np.uint64)
    solved = nb.solve_batch(puzzles, limit=1)[1]
    phases = {
        "load the givens": lambda: load(puzzles, stack, givens),
        "+ first settle": lambda: settle(puzzles, stack, givens),
        "+ search to the first solution": lambda: search(puzzles, 1, stack, meta, givens, solutions, work, rng),
        "+ count on to 2": lambda: search(puzzles, 2, stack, meta, givens, solutions, work, rng),
        "solve_batch, limit 1": lambda: nb.solve_batch(puzzles, limit=1),
        "solve_batch, limit 2": lambda: nb.solve_batch(puzzles, limit=2),
        "load a solved grid, write it": lambda: write(solved, stack, givens, solutions),
    }
    for run in phases.values():
        run()
    best = dict.fromkeys(phases, float("inf"))
    for _ in range(args.rounds):
        for name, run in phases.items():
            start = time.process_time()
            run()
            best[name] = min(best[name], time.process_time() - start)
    print(f"# cpu: {cpu_model()}; set {args.set} ({k:,} puzzles); best of {args.rounds}; load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print("| phase (cumulative) | ns per puzzle |")
    print("|---|---:|")
    for name in phases:
        print(f"| {name} | {best[name] / k * 1e9:,.0f} |")


if __name__ == "__main__":
    main()

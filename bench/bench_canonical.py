"""Canonical forms per puzzle: what ``sudoku.canonical`` costs a batch, beside counting solutions.

    PYTHONPATH=. python3 bench/bench_canonical.py [--puzzles N] [--rounds R]

For each set (puzzles made by ``sudoku.create`` at 9x9 and 4x4, and benchmark files) the same
puzzles go through, in alternating rounds A, B, A, B, ...: A the canonical form of each, B a count
of its solutions up to 2 with the ``py`` engine (what a batch does to every puzzle anyway). Times are
CPU seconds of this process (a loaded machine stretches the clock, not the CPU), per puzzle: the
median of the round medians, the slowest puzzle seen, and A/B (median of the per-round ratios).
The load average is printed per set. Before timing, every form is checked to be one no symmetry
changes (a random variant of each has the same form).
"""

import argparse
import os
import random
import statistics
import time

from bench.common import load_lines, machine
from sudoku import create
from sudoku.bank import random_symmetry, transform
from sudoku.canonical import canonical
from sudoku.engines import py
from sudoku.formats import parse_line

FILES = ("17clue", "kaggle", "hardest1106")


def per_puzzle(work, puzzles):
    """CPU seconds of ``work(p)`` for each puzzle."""
    times = []
    for puzzle in puzzles:
        start = time.process_time()
        work(puzzle)
        times.append(time.process_time() - start)
    return times


def bench(name, puzzles, rounds):
    rng = random.Random(1)
    for puzzle in puzzles:  # validate outside the timed rounds
        if puzzle.box == 3:
            assert canonical(transform(puzzle, random_symmetry(rng))) == canonical(puzzle), name
    a_medians, b_medians, ratios, slowest = [], [], [], 0.0
    for _ in range(rounds):
        a = per_puzzle(canonical, puzzles)
        b = per_puzzle(lambda p: py.solve(p, limit=2), puzzles)
        a_medians.append(statistics.median(a))
        b_medians.append(statistics.median(b))
        ratios.append(sum(a) / sum(b))
        slowest = max(slowest, max(a))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{name:<14} {len(puzzles):>5}  canonical {statistics.median(a_medians) * 1e3:7.2f} ms  "
          f"slowest {slowest * 1e3:7.1f} ms  count-to-2 {statistics.median(b_medians) * 1e3:7.2f} ms  "
          f"A/B {statistics.median(ratios):5.2f}  (load {load})", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--puzzles", type=int, default=200, help="puzzles per set (default 200)")
    parser.add_argument("--rounds", type=int, default=4, help="rounds A,B per set (default 4)")
    args = parser.parse_args()
    print(f"# bench_canonical: {machine()}; CPU ms per puzzle; A = canonical, B = py count to 2")
    bench("create 9x9", [create(3, seed=seed) for seed in range(args.puzzles)], args.rounds)
    bench("create 4x4", [create(2, seed=seed) for seed in range(args.puzzles)], args.rounds)
    for name in FILES:
        bench(name, [parse_line(line) for line in load_lines(name, args.puzzles)], args.rounds)


if __name__ == "__main__":
    main()

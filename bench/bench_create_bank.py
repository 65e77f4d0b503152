"""Time `create --difficulty expert|extreme` at 9x9 (a bank puzzle under a random symmetry, re-graded).

    PYTHONPATH=. python bench/bench_create_bank.py [-n 100] [--levels expert,extreme] [--check 1000]

For each level, ``sudoku.create(3, seed=s, difficulty=level)`` for seeds 0..n-1, one process, after
one untimed warm-up create; prints the median and max of the wall and CPU seconds per create, and
what share of the time the re-grade is (``grade.is_level``, timed apart on the same puzzles). Wall
time on a shared machine swings with the load: the CPU seconds are the steadier figure.
``--check N`` then makes N creates of each level with seeds 0..N-1 and reports how many are distinct
and how many grade at the level (a full ``sudoku.grade``), outside any timing.
"""

import argparse
import os
import statistics
import time

from bench.common import machine
from sudoku import create
from sudoku.engines import py
from sudoku.grade import grade, is_level


def timed(level, seeds):
    walls, cpus, checks, made = [], [], [], []
    create(3, seed=10**9, difficulty=level)  # warm-up: imports, the bank file read
    for seed in seeds:
        wall, cpu = time.perf_counter(), time.process_time()
        puzzle = create(3, seed=seed, difficulty=level)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        made.append(puzzle)
    for puzzle in made:
        solution = py.solve(puzzle).solution
        cpu = time.process_time()
        assert is_level(puzzle, level, solution=solution)
        checks.append(time.process_time() - cpu)
    return walls, cpus, checks


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=100)
    parser.add_argument("--levels", default="expert,extreme")
    parser.add_argument("--check", type=int, default=0)
    args = parser.parse_args()
    print(f"# {machine()}; load average {os.getloadavg()[0]:.1f}")
    for level in args.levels.split(","):
        walls, cpus, checks = timed(level, range(args.n))
        print(f"create {level} x{args.n}: wall median {statistics.median(walls):.3f} s, max {max(walls):.3f} s; "
              f"cpu median {statistics.median(cpus):.3f} s, max {max(cpus):.3f} s; "
              f"re-grade cpu median {statistics.median(checks):.3f} s, max {max(checks):.3f} s")
    for level in args.levels.split(",") if args.check else ():
        made = [create(3, seed=seed, difficulty=level) for seed in range(args.check)]
        graded = sum(grade(puzzle).level == level for puzzle in made)
        print(f"check: {args.check} {level} creates, {len(set(made))} distinct, {graded} graded {level}")
    print(f"# load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

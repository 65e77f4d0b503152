"""Two versions of nb's kernel file in one process, alternating rounds: CPU-time ratios per set.

    git show BASE:sudoku/engines/_nb_kernels.py > /tmp/nb_base.py
    PYTHONPATH=. python bench/bench_nb_files.py /tmp/nb_base.py sudoku/engines/_nb_kernels.py [--rounds 9] [--limit 3000]

Quicker than ``bench_nb_vs_base.py`` (no second tree, no worker processes) for a change inside the
kernels: each file is imported as a module of its own (copied, with its time stamp, into a cache
folder so that numba's on-disk cache serves the next run), both are warmed, then each round times
``solve_batch`` of A, then of B, on the same puzzles (the first ``--limit`` of each set; hardest1106
and top1465 are smaller). The table gives per set the median CPU microseconds per puzzle, the
median and range of the per-round ratio A / B (above 1: B is faster), and the mean nodes of each
side; the load average is printed before and after. Counts (and, solving, solutions) must be
equal on both sides or the script stops.
"""

import argparse
import gzip
import importlib
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from bench.common import cpu_model
from sudoku.engines import nb

REPO = Path(__file__).resolve().parents[1]
SETS = {"hardest1106": 1, "top1465": 1, "kaggle": 1, "serg_benchmark": 2, "17clue": 2}


def load_kernels(path, folder):
    """The kernel file at ``path`` as a module of its own (named after the file)."""
    name = "nb_kernels_" + "".join(c if c.isalnum() else "_" for c in Path(path).resolve().as_posix())
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{name}.py"
    if not target.exists() or target.read_bytes() != Path(path).read_bytes():
        shutil.copy2(path, target)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return importlib.import_module(name)


def run(kernels, puzzles, limit):
    """(CPU seconds, (counts, solutions, nodes)) of one ``solve_batch`` call."""
    k = puzzles.shape[0]
    counts = np.zeros(k, np.int32)
    solutions = np.zeros((k, 81), np.uint8)
    guesses = np.zeros(k, np.int64)
    nodes = np.zeros(k, np.int64)
    start = time.process_time()
    kernels.solve_batch(puzzles, np.int64(limit), True, counts, solutions, guesses, nodes)
    return time.process_time() - start, (counts, solutions, nodes)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", help="kernel file A (the base)")
    parser.add_argument("b", help="kernel file B (the change)")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--limit", type=int, default=3000, help="first N puzzles of each set")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("SUDOKU_DATA", REPO.parent / "shared" / "data")))
    parser.add_argument("--cache", type=Path, default=Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
                        / "sudoku-toolkit" / "nb-files", help="where the copies of the two files live")
    args = parser.parse_args()
    a, b = load_kernels(args.a, args.cache), load_kernels(args.b, args.cache)
    print(f"# cpu: {cpu_model()}; A {args.a}; B {args.b}; rounds {args.rounds}; "
          f"load average at start {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print("| set | puzzles | A us | B us | A / B (median, min-max) | nodes A / B |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in args.sets.split(","):
        limit = SETS.get(name, 1)
        with gzip.open(args.data / f"{name}.txt.gz", "rt") as handle:
            puzzles = nb.from_lines(handle.read().split()[: args.limit])
        _, got_a = run(a, puzzles, limit)
        _, got_b = run(b, puzzles, limit)
        if not np.array_equal(got_a[0], got_b[0]) or (limit == 1 and not np.array_equal(got_a[1], got_b[1])):
            raise SystemExit(f"{name}: A and B answer differently")
        times_a, times_b = [], []
        for _ in range(args.rounds):
            times_a.append(run(a, puzzles, limit)[0])
            times_b.append(run(b, puzzles, limit)[0])
        ratios = sorted(x / y for x, y in zip(times_a, times_b))
        k = puzzles.shape[0]
        print(f"| {name} | {k} | {statistics.median(times_a) / k * 1e6:.2f} | {statistics.median(times_b) / k * 1e6:.2f} "
              f"| {statistics.median(ratios):.3f} ({ratios[0]:.3f}-{ratios[-1]:.3f}) "
              f"| {got_a[2].mean():.2f} / {got_b[2].mean():.2f} |", flush=True)
    print(f"# load average at end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

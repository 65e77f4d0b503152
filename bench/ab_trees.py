"""This tree against another checkout of the toolkit (a ``git worktree`` of an older commit), on the
pure-Python paths: seconds per workload, each run in a fresh process of its tree, trees taking
turns (A, B, A, B, ...) with the load average printed, and the ratio of the medians.

For changes to shared Python code (``py``'s propagation, ``techniques``) where no other bench
isolates the cost: the workloads are py's search on 16x16 and 25x25 puzzles of the big-grid set
(where locked candidates fire), and grading 9x9 puzzles (the techniques' trials).

    git worktree add /work/base HEAD~1
    PYTHONPATH=. python bench/ab_trees.py --base /work/base --rounds 5
"""

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Each workload: code making ``puzzles`` (untimed, with the tree's imports) and the call timed on each.
TOP1465 = """
import gzip
from sudoku.formats import parse_line
with gzip.open("{data}/top1465.txt.gz", "rt") as lines:
    puzzles = [parse_line(line.strip()) for _, line in zip(range({count}), lines)]
"""
BIGSET = """
import sys
sys.path.insert(0, "bench")
import bigset
puzzles = [i.puzzle for i in bigset.instances(seeds=6, boxes=(4, 5), filled=False) for _ in range(3)]
"""
SETTLE = """
import sys
sys.path.insert(0, "bench")
import bigset
from sudoku.grid import geometry
puzzles = [i.puzzle for i in bigset.instances(seeds=2, boxes=(6, 7), filled=False) for _ in range(5)]
geos = {box: geometry(box) for box in (6, 7)}
"""
WORKLOADS = {
    "py.settle on 36x36/49x49": (SETTLE, "from sudoku.engines import py",
                                 "py.settle(*py.candidates(puzzle), geos[puzzle.box])"),
    "py on 16x16/25x25": (BIGSET, "from sudoku.engines import py", "py.solve(puzzle, limit=2)"),
    "py on 9x9 (top1465, count to 2)": (TOP1465.replace("{count}", "300"), "from sudoku.engines import py",
                                        "py.solve(puzzle, limit=2)"),
    "grade 9x9": (TOP1465.replace("{count}", "60"), "from sudoku import grade", "grade.grade(puzzle)"),
}
TIMED = """
{make}
{imports}
import time
start = time.perf_counter()
for puzzle in puzzles:
    {call}
print(time.perf_counter() - start)
"""


def run(tree, code):
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the other checkout (a git worktree)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per tree and workload (default 5)")
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("SUDOKU_DATA", REPO.parent / "shared" / "data")))
    args = parser.parse_args()
    from common import machine

    print(f"Machine: {machine()}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at start.")
    print(f"This tree {REPO} (A) against {args.base} (B), {args.rounds} rounds each, alternating.\n")
    print("| workload | A median s | B median s | A / B | A rounds | B rounds |")
    print("|---|---:|---:|---:|---|---|")
    for name, (make, imports, call) in WORKLOADS.items():
        code = TIMED.format(make=make.replace("{data}", str(args.data)), imports=imports, call=call)
        times = {"A": [], "B": []}
        for round_ in range(args.rounds):
            for side in ("A", "B") if round_ % 2 == 0 else ("B", "A"):
                times[side].append(run(REPO if side == "A" else args.base, code))
        a, b = statistics.median(times["A"]), statistics.median(times["B"])
        print(f"| {name} | {a:.3f} | {b:.3f} | {a / b:.3f} | {' '.join(f'{t:.2f}' for t in times['A'])} "
              f"| {' '.join(f'{t:.2f}' for t in times['B'])} |", flush=True)
    print(f"\nLoad average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end.")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()

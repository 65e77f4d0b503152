"""This tree against another checkout of the toolkit (a ``git worktree`` of an older commit): seconds
per workload, each run in a fresh process of its tree, trees taking turns (A, B, A, B, ...) with the
load average printed, and the ratio of the medians.

For changes where no other bench isolates the cost: py's search on 16x16 and 25x25 puzzles of the
big-grid set (where locked candidates fire), grading 9x9 puzzles (the techniques' trials), and the
``big`` engine's search alone at 16x16 and 25x25 (counting the solutions of puzzles blanked from
py's random fills: the generated ones of the big-grid set need no guess). A workload with a check
(big's: the nodes searched) must give the same value in both trees in every round, or the script
stops: a change meant to be faster only must not change the search. ``--only`` picks workloads by
a word of their name.

    git worktree add /work/base HEAD~1
    PYTHONPATH=. python bench/ab_trees.py --base /work/base --rounds 5
    PYTHONPATH=. python bench/ab_trees.py --base /work/base --rounds 6 --only big
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
# Puzzles that make big search: (box, percent blank, solutions counted up to) of each grid's puzzles.
BIG = """
import random
import sys
sys.path.insert(0, "bench")
import bigset
from sudoku.engines import big, py
from sudoku.generate import derive_seed
puzzles = []
for grid in range({grids}):
    full = py.fill({box}, random.Random(derive_seed(17, {box}, "ab_trees", grid)))
    for pct, limit in {rates}:
        rng = random.Random(derive_seed(17, {box}, "ab_trees", grid, pct))
        puzzles.append((bigset.blanked(full, round({box}**4 * pct / 100), rng), limit))
big.warm()  # numba's cache load (a compile, the first time a tree runs), outside the timed region
"""
BIG_CALL = "big.solve(puzzle[0], limit=puzzle[1]).counters.nodes"
# name: (code making ``puzzles``, imports, the call timed on each, whether its values must agree)
WORKLOADS = {
    "py.settle on 36x36/49x49": (SETTLE, "from sudoku.engines import py",
                                 "py.settle(*py.candidates(puzzle), geos[puzzle.box])", False),
    "py on 16x16/25x25": (BIGSET, "from sudoku.engines import py", "py.solve(puzzle, limit=2)", False),
    "py on 9x9 (top1465, count to 2)": (TOP1465.replace("{count}", "300"), "from sudoku.engines import py",
                                        "py.solve(puzzle, limit=2)", False),
    "grade 9x9": (TOP1465.replace("{count}", "60"), "from sudoku import grade", "grade.grade(puzzle)", False),
    "big on 16x16 (count to 10000)": (BIG.format(box=4, grids=4, rates=[(58, 10000), (60, 10000)]), "", BIG_CALL, True),
    "big on 25x25 (count to 10000)": (BIG.format(box=5, grids=2, rates=[(70, 10000)]), "", BIG_CALL, True),
}
TIMED = """
{make}
{imports}
import time
values = []
start = time.perf_counter()
for puzzle in puzzles:
    values.append({call})
print(time.perf_counter() - start)
print(sum(values) if {check} else 0)
"""


def run(tree, code):
    """(seconds, check value) of one run of ``code`` in a fresh process of ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True, check=True)
    seconds, check = done.stdout.split()[-2:]
    return float(seconds), int(check)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the other checkout (a git worktree)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per tree and workload (default 5)")
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("SUDOKU_DATA", REPO.parent / "shared" / "data")))
    parser.add_argument("--only", help="run only the workloads whose name holds this word (e.g. big)")
    args = parser.parse_args()
    from common import machine

    print(f"Machine: {machine()}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at start.")
    print(f"This tree {REPO} (A) against {args.base} (B), {args.rounds} rounds each, alternating.\n")
    print("| workload | A median s | B median s | A / B | A rounds | B rounds |")
    print("|---|---:|---:|---:|---|---|")
    for name, (make, imports, call, check) in WORKLOADS.items():
        if args.only and args.only not in name.split():
            continue
        code = TIMED.format(make=make.replace("{data}", str(args.data)), imports=imports, call=call, check=check)
        times = {"A": [], "B": []}
        checks = set()
        for round_ in range(args.rounds):
            for side in ("A", "B") if round_ % 2 == 0 else ("B", "A"):
                seconds, value = run(REPO if side == "A" else args.base, code)
                times[side].append(seconds)
                checks.add(value)
            if len(checks) > 1:
                sys.exit(f"{name}: the trees disagree (check values {sorted(checks)}): not the same search")
        a, b = statistics.median(times["A"]), statistics.median(times["B"])
        same = f" (check {checks.pop()}, the same in both)" if check else ""
        print(f"| {name}{same} | {a:.3f} | {b:.3f} | {a / b:.3f} | {' '.join(f'{t:.2f}' for t in times['A'])} "
              f"| {' '.join(f'{t:.2f}' for t in times['B'])} |", flush=True)
    print(f"\nLoad average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end.")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()

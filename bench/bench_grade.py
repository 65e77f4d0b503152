"""Calibration of `sudoku grade`: levels and scores per benchmark set, and against hodoku-py.

    PYTHONPATH=. python bench/bench_grade.py [-n 40] [--hodoku 8]

Per set (kaggle, top1465, hardest1106, hardest1905_11plus; the first n puzzles): the median level
and score, the level counts and our seconds per puzzle. With --hodoku K (needs the [bench] extra):
hodoku-py rates the first K of each set too; prints the Spearman rank correlation of the two scores
and the speed ratio on those puzzles.
"""

import argparse
import statistics
import time

from bench.common import load_lines, machine
from sudoku.formats import parse_line
from sudoku.grade import LEVELS, grade

SETS = ("kaggle", "top1465", "hardest1106", "hardest1905_11plus")


def ranks(values):
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2
        i = j + 1
    return out


def spearman(xs, ys):
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    return cov / (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=40)
    ap.add_argument("--hodoku", type=int, default=0, metavar="K")
    args = ap.parse_args()
    print(machine())
    print("| set | n | median level | median score | levels e/m/h/x/X | s per puzzle |")
    print("|---|---:|---|---:|---|---:|")
    ours, theirs, our_s, their_s = [], [], 0.0, 0.0
    for name in SETS:
        lines = load_lines(name, args.n)
        start = time.perf_counter()
        grades = [grade(parse_line(line)) for line in lines]
        took = time.perf_counter() - start
        levels = sorted(LEVELS.index(g.level) for g in grades)
        counts = "/".join(str(levels.count(i)) for i in range(len(LEVELS)))
        print(f"| {name} | {len(lines)} | {LEVELS[levels[len(levels) // 2]]} | "
              f"{statistics.median(g.score for g in grades):.0f} | {counts} | {took / len(lines):.3f} |")
        if args.hodoku:
            from hodoku import Solver

            solver = Solver()
            for line, ours_grade in zip(lines[: args.hodoku], grades):
                start = time.perf_counter()
                grade(parse_line(line))
                our_s += time.perf_counter() - start
                start = time.perf_counter()
                rating = solver.rate(line)
                their_s += time.perf_counter() - start
                ours.append(ours_grade.score)
                theirs.append(rating.score)
    if args.hodoku:
        print(f"\nagainst hodoku-py on {len(ours)} puzzles: Spearman {spearman(ours, theirs):.2f}; "
              f"ours {our_s:.1f} s, hodoku {their_s:.1f} s, {their_s / our_s:.0f}x faster")


if __name__ == "__main__":
    main()

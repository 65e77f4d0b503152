"""Near-empty grids: how often the pattern match (``sudoku.engines.pattern``) fits, and how fast.

Givens are placed at random cells with random digits that clash with no given already placed (so
they come from no particular grid, least of all the pattern family), ``side / 2``, ``side`` and
``2 * side`` of them per size. Per row: fits out of draws, and the median and worst seconds of a
``match`` call (limit 2), each fit verified. The default route (``auto``) tries the match for grids
with at most ``side`` givens; the ``2 * side`` rows show why it stops there. (Denser grids are matched only
where ``pattern.may_fit`` passes, which givens from no grid of the family fail at once beyond a
few per box.) ``--family``: givens from shuffled pattern grids (a member always fits), 2, 5 and 10 %
of the cells, the sparse grids that the engine ``pattern`` matches (until 1384f8c the default
solve did, after ``py``'s quick try).

    PYTHONPATH=. python bench/bench_pattern.py --draws 5
"""

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bigset import blanked, random_givens, shuffled_grid  # noqa: E402
from sudoku.engines import pattern  # noqa: E402
from sudoku.grid import is_solution  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=5, help="grids per size and number of givens (default 5)")
    parser.add_argument("--boxes", default="4,5,6,7,8,9", help="box sizes (default 4,5,6,7,8,9)")
    parser.add_argument("--family", action="store_true",
                        help="givens from shuffled pattern grids instead, 2, 5 and 10 %% of the cells (limit 1)")
    args = parser.parse_args()
    from common import machine

    print(f"Machine: {machine()}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at start.")
    print(f"Command: `PYTHONPATH=. python bench/bench_pattern.py {' '.join(sys.argv[1:])}`\n")
    print("| grid | givens | fits | median s | worst s |")
    print("|---|---:|---:|---:|---:|")
    for box in (int(b) for b in args.boxes.split(",")):
        side = box * box
        counts = [round(side * side * pct / 100) for pct in (2, 5, 10)] if args.family else (side // 2, side, 2 * side)
        for count in counts:
            rng = random.Random(side * 10_000 + count)
            seconds, fits = [], 0
            for _ in range(args.draws):
                if args.family:
                    puzzle = blanked(shuffled_grid(box, rng), side * side - count, rng)
                else:
                    puzzle = random_givens(box, count, rng)
                start = time.perf_counter()
                found = pattern.match(puzzle, limit=1 if args.family else 2)
                seconds.append(time.perf_counter() - start)
                if found is not None:
                    if not is_solution(puzzle, found.solution):
                        raise SystemExit(f"WRONG: a {side}x{side} match is no solution")
                    fits += 1
            print(f"| {side}x{side} | {count} | {fits} of {args.draws} | {statistics.median(seconds):.2f} "
                  f"| {max(seconds):.2f} |", flush=True)
    print(f"\nLoad average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end.")


if __name__ == "__main__":
    main()

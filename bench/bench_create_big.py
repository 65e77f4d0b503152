"""Creation at 16x16 and 25x25: unique puzzles a second on one core, compiled ``big`` against the
pure-Python path (``sudoku.create(box, seed=..., engine="py")``), in alternating rounds.

Each round times both makers on their own seeds (the big maker first in even rounds, second in odd
ones), then, outside the timed region, checks every puzzle made: unique (``py`` counting to 2), at
least half the cells blank, and singles still fill it (no guess, as ``sudoku.create`` promises).
The load average is printed at the start and the end (the machine is shared).

    PYTHONPATH=. python bench/bench_create_big.py --rounds 4
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine  # noqa: E402

import sudoku  # noqa: E402
from sudoku.engines import big, py  # noqa: E402
from sudoku.generate import derive_seed, min_blanks  # noqa: E402


def make(box, engine, seeds):
    """Puzzles for ``seeds`` and the CPU seconds (process time) they took."""
    start = time.process_time()
    puzzles = [sudoku.create(box, seed=seed, engine=engine) for seed in seeds]
    return puzzles, time.process_time() - start


def verify(box, puzzles):
    for puzzle in puzzles:
        assert puzzle.blanks >= min_blanks(box), puzzle.blanks
        assert py.solve(puzzle, limit=2).count == 1
        assert py.rate(puzzle) != "guess"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=4, help="alternating rounds (default 4)")
    parser.add_argument("--boxes", default="4,5", help="box sizes (default 4,5)")
    args = parser.parse_args()
    counts = {4: (100, 10), 5: (20, 2)}  # puzzles a round: big, py
    print(f"Machine: {machine()}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at start.")
    print(f"Command: `PYTHONPATH=. python bench/bench_create_big.py {' '.join(sys.argv[1:])}` "
          "(unique puzzles per CPU second, median of the rounds)\n")
    big.generate(4, seed=0)  # numba's cache load, outside the timed region
    print("| grid | big /s | py /s | big / py | rounds (big, py) |")
    print("|---|---:|---:|---:|---|")
    for box in (int(b) for b in args.boxes.split(",")):
        side = box * box
        rates = {"big": [], "py": []}
        for round_ in range(args.rounds):
            order = ("big", "py") if round_ % 2 == 0 else ("py", "big")
            for engine in order:
                n = counts[box][0 if engine == "big" else 1]
                seeds = [derive_seed(round_, box, engine, i) for i in range(n)]
                puzzles, seconds = make(box, engine, seeds)
                verify(box, puzzles)
                rates[engine].append(n / seconds)
        b, p = statistics.median(rates["big"]), statistics.median(rates["py"])
        each = ", ".join(f"{x:.0f}/{y:.1f}" for x, y in zip(rates["big"], rates["py"]))
        print(f"| {side}x{side} | {b:.1f} | {p:.2f} | {b / p:.0f}x | {each} |", flush=True)
    print(f"\nLoad average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end.")


if __name__ == "__main__":
    main()

"""The default solve before and after the route became the engine ``auto`` (and the dense pattern
match left it for the opt-in engine ``pattern``), on big grids outside the pattern family.

Each run is ``sudoku solve --timeout CAP < grid`` in a fresh process with no ``--engine``, as a user
calls it: "old" is the ``sudoku`` package of commit OLD (``git archive`` into a temporary folder),
"new" the one of this checkout. Rounds alternate old, new, old, new per instance; each answer is
checked against the puzzle outside the timed region. The instances (``bigset.py``'s makers, fixed
seeds): generated 16x16 and 25x25 puzzles; a 36x36 and a 49x49 grid outside the family
(``bigset.filled_grid``) blanked at several rates, the 90 % row taking the near-empty path with
more than ``side`` givens; near-empty grids with at most ``side`` givens, from those grids and from
``bigset``'s few-givens recipe, which the new route must still answer.

    PYTHONPATH=. python bench/bench_auto_route.py --rounds 2
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bigset  # noqa: E402
from sudoku.formats import parse, render  # noqa: E402
from sudoku.grid import is_solution  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
OLD = "1384f8c"  # main before the route moved out of the registry


def old_tree(folder):
    """The ``sudoku`` package of commit OLD, unpacked under ``folder``."""
    data = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", OLD, "sudoku"],
                          capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def grids():
    """(name, puzzle) for every instance, made from fixed seeds."""
    import sudoku

    for box, seeds in ((4, (0, 1)), (5, (0,))):
        for seed in seeds:
            yield f"{box * box}x{box * box}-gen-{seed}", sudoku.create(box, seed=seed)
    for box, rates in ((6, (30, 45, 70, 90)), (7, (30,))):  # the hard band (50-60 %): sat alone on both sides
        side = box * box
        rng = random.Random(1000 + box)
        full = bigset.filled_grid(box, rng)
        for pct in rates:
            yield f"{side}x{side}-{pct}pct-filled", bigset.blanked(full, round(side * side * pct / 100), rng)
        yield f"{side}x{side}-{side}givens-filled", bigset.blanked(full, side * side - side, rng)
    for box, givens in ((8, 64), (9, 3), (9, 40)):
        side = box * box
        rng = random.Random(2000 + givens)
        yield f"{side}x{side}-{givens}givens", bigset.blanked(bigset.shuffled_grid(box, rng), side * side - givens, rng)


def run(tree, text, cap, scratch):
    """(seconds, stdout, error or None) of one `sudoku solve` of ``text`` with package root ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "sudoku", "solve", "--timeout", str(cap)], input=text,
                          capture_output=True, text=True, env=env, cwd=scratch, timeout=cap + 60)
    seconds = time.perf_counter() - start
    error = None if done.returncode == 0 else f"exit {done.returncode}: {done.stderr.strip()[:60]}"
    return seconds, done.stdout, error


def warm(tree, scratch):
    """numba's cache for ``big`` in ``tree`` (a fresh tree compiles for seconds), outside the timing."""
    code = "from sudoku.engines import big\nfrom sudoku.grid import Grid\nbig.solve(Grid.empty(6), limit=2)\n"
    subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(tree)), cwd=scratch, check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2, help="timed runs per variant and instance (default 2)")
    parser.add_argument("--cap", type=float, default=30.0, help="seconds allowed per run (default 30)")
    args = parser.parse_args()
    from common import machine

    print(f"Machine: {machine()}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at start.")
    print(f"Command: `PYTHONPATH=. python bench/bench_auto_route.py {' '.join(sys.argv[1:])}` (old: {OLD}; "
          f"seconds per `sudoku solve` process, median of {args.rounds} rounds, alternating old, new)\n")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        trees = {"old": old_tree(scratch / "old"), "new": REPO}
        run_dir = scratch / "run"
        run_dir.mkdir()
        for tree in trees.values():
            warm(tree, run_dir)
        print("| instance | givens | old s | new s | new / old |")
        print("|---|---:|---:|---:|---:|")
        ratios = []
        for name, puzzle in grids():
            text = render(puzzle, "grid")
            samples = {"old": [], "new": []}
            for _ in range(args.rounds):
                for label, tree in trees.items():
                    seconds, out, error = run(tree, text, args.cap, run_dir)
                    if error is None:
                        answer = next(iter(parse(out.splitlines(keepends=True))))
                        error = None if is_solution(puzzle, answer) else "WRONG"
                    samples[label].append(error or seconds)
            cells = []
            for label in trees:
                bad = [s for s in samples[label] if isinstance(s, str)]
                cells.append(bad[0] if bad else f"{statistics.median(samples[label]):.2f}")
            ratio = "-"
            if not any(isinstance(s, str) for values in samples.values() for s in values):
                value = statistics.median(samples["new"]) / statistics.median(samples["old"])
                ratios.append(value)
                ratio = f"{value:.2f}"
            print(f"| {name} | {puzzle.clues} | {cells[0]} | {cells[1]} | {ratio} |", flush=True)
    if ratios:
        print(f"\ngeometric mean of new / old: {statistics.geometric_mean(ratios):.2f} over {len(ratios)} instances")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at end.")


if __name__ == "__main__":
    main()

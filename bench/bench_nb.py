"""Puzzles per second of the ``nb`` engine (batch) against ``py``, on one core, in one run.

    PYTHONPATH=. python3 bench/bench_nb.py [--quick] [--rounds N] [--data DIR]

For each set: nb solves the whole set per round through ``solve_batch``; py solves a slice of it
(py is ~100x slower) one puzzle at a time. Both are warmed up first, times are medians over rounds,
and every answer is checked after the timed region (counts, solutions valid and keeping the givens,
nb and py agree on the slice). ``serg_benchmark`` is counted to 2 (its puzzles have several
solutions); the others are solved (limit 1). Generation: ``generate_batch`` with 40 blanks against
the same clue-removal loop written with ``py.fill`` and ``py.has_other``.
"""

import argparse
import gzip
import platform
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from bench.common import cpu_model, valid_solutions
from sudoku.engines import nb, py
from sudoku.grid import Grid

REPO = Path(__file__).resolve().parents[1]
# set -> (limit, puzzles py solves per round, same with --quick)
SETS = {
    "kaggle": (1, 2000, 300),
    "top1465": (1, 200, 40),
    "hardest1106": (1, 60, 15),
    "serg_benchmark": (2, 300, 60),
}
GENERATE = (20000, 3000)  # puzzles nb makes per round (full, quick)
GENERATE_PY = (40, 10)
BLANKS = 40


def median_time(run, rounds):
    """Median wall time of ``run()`` over ``rounds`` calls, and the last call's result."""
    times = []
    result = None
    for _ in range(rounds):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def load(data, name):
    with gzip.open(data / f"{name}.txt.gz", "rt") as handle:
        return nb.from_lines(handle.read().split())


def bench_set(data, name, limit, py_count, rounds):
    puzzles = load(data, name)
    nb.solve_batch(puzzles[:10], limit=limit)  # warm-up: compile or load the cache
    nb_time, (counts, solutions, guesses, nodes) = median_time(
        lambda: nb.solve_batch(puzzles, limit=limit), rounds
    )
    assert (counts == limit).all(), f"{name}: nb counts {np.bincount(counts)}"
    assert valid_solutions(puzzles, solutions).all(), f"{name}: nb gave an invalid solution"

    grids = [Grid(3, row.tolist()) for row in puzzles[:py_count]]
    py.solve(grids[0], limit=limit)
    py_time, answers = median_time(lambda: [py.solve(g, limit=limit) for g in grids], max(1, rounds // 2))
    for index, answer in enumerate(answers):
        assert answer.count == counts[index], f"{name} #{index}: py {answer.count}, nb {counts[index]}"
        assert limit > 1 or list(answer.solution.cells) == solutions[index].tolist()
    nb_rate = len(puzzles) / nb_time
    py_rate = len(grids) / py_time
    return {
        "set": name, "limit": limit, "puzzles": len(puzzles), "nb_per_s": nb_rate,
        "py_per_s": py_rate, "ratio": nb_rate / py_rate, "guesses": guesses.mean(),
        "no_guess": (guesses == 0).mean(), "py_puzzles": len(grids),
    }


def py_generate(seed, n):
    """The clue-removal loop of ``generate_batch`` on the py engine (for the ratio only)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        grid = py.fill(3, rng)
        puzzle = grid
        order = list(range(81))
        rng.shuffle(order)
        blanks = 0
        for cell in order:
            if blanks >= BLANKS:
                break
            if not py.has_other(puzzle, grid, cell):
                puzzle = puzzle.with_cell(cell, 0)
                blanks += 1
        out.append(puzzle)
    return out


def bench_generate(quick, rounds):
    count = GENERATE[1] if quick else GENERATE[0]
    seeds = nb.seeds_from(12345, count)
    nb.generate_batch(seeds[:10])
    nb_time, (puzzles, grids) = median_time(lambda: nb.generate_batch(seeds, solutions=True), rounds)
    counts, solutions, _, _ = nb.solve_batch(puzzles, limit=2)
    assert (counts == 1).all() and (solutions == grids).all(), "nb generated a puzzle that is not unique"
    assert ((puzzles == 0).sum(axis=1) >= BLANKS).all()
    assert (nb.generate_batch(seeds[:100]) == puzzles[:100]).all(), "generation is not reproducible"
    py_n = GENERATE_PY[1] if quick else GENERATE_PY[0]
    py_time, made = median_time(lambda: py_generate(1, py_n), max(1, rounds // 2))
    for puzzle in made:
        assert puzzle.blanks >= BLANKS and py.solve(puzzle, limit=2).count == 1
    nb_rate = count / nb_time
    py_rate = py_n / py_time
    return {"set": f"generate ({BLANKS} blanks)", "limit": "-", "puzzles": count, "nb_per_s": nb_rate,
            "py_per_s": py_rate, "ratio": nb_rate / py_rate, "guesses": float("nan"),
            "no_guess": float("nan"), "py_puzzles": py_n}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and smaller py slices")
    parser.add_argument("--rounds", type=int, default=None, help="timed rounds per engine (default 7, quick 3)")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data",
                        help="directory of the *.txt.gz sets (default: ../shared/data from the repo)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 7)

    import numba

    print(f"# cpu: {cpu_model()}; python {platform.python_version()}; numba {numba.__version__}; "
          f"numpy {np.__version__}; rounds {rounds}; command: {' '.join([Path(sys.argv[0]).name] + sys.argv[1:])}")
    rows = []
    for name, (limit, py_full, py_quick) in SETS.items():
        if not (args.data / f"{name}.txt.gz").exists():
            print(f"# skipped {name}: not in {args.data}", file=sys.stderr)
            continue
        rows.append(bench_set(args.data, name, limit, py_quick if args.quick else py_full, rounds))
    rows.append(bench_generate(args.quick, rounds))

    print("| set | limit | puzzles | nb puzzles/s | py puzzles/s (n) | nb/py | nb guesses/puzzle | nb % no guess |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        if r["guesses"] != r["guesses"]:  # nan: no counters for generation
            r["guesses"], r["no_guess"] = "-", "-"
        else:
            r["guesses"], r["no_guess"] = f"{r['guesses']:.1f}", f"{100 * r['no_guess']:.1f}"
        print(f"| {r['set']} | {r['limit']} | {r['puzzles']:,} | {r['nb_per_s']:,.0f} | "
              f"{r['py_per_s']:,.1f} ({r['py_puzzles']}) | {r['ratio']:,.0f}x | {r['guesses']} | {r['no_guess']} |")


if __name__ == "__main__":
    main()

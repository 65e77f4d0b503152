"""Counting to 2: the checker engine ``band`` against ``nb``, batch entry points, one core, one run.

    PYTHONPATH=. python3 bench/bench_checker.py [--quick] [--rounds N]

What a batch pipeline asks of its checker: count each puzzle's solutions up to 2. For each set (the
benchmark files, and minimal puzzles from ``nb.generate_batch``) both engines count the same
puzzles with ``solve_batch(limit=2)`` in alternating rounds (nb, band, nb, band, ...), so a change
in machine load hits both alike; the load average is printed per set. Rates are medians over
rounds; ``band/nb`` is the median of the per-round ratios. Answers are checked after the timed
region: counts agree, unique solutions are equal and valid. Last, how fast counting is beside
making the generated puzzles (``generate_batch(minimal=True)``, timed in the same run).
"""

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from bench.common import cpu_model, load_lines, valid_solutions
from sudoku.engines import band, nb

# set -> puzzles (full run, --quick)
SETS = {
    "hardest1106": (375, 375),
    "top1465": (1465, 1465),
    "kaggle": (20000, 5000),
    "serg_benchmark": (10000, 3000),
    "17clue": (5000, 1000),
}
GENERATED = (5000, 1500)  # minimal puzzles from nb.generate_batch


def timed(run):
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def compare(name, puzzles, rounds):
    """Alternating rounds of nb and band on ``puzzles``; a result row, answers checked."""
    runs = {"nb": lambda: nb.solve_batch(puzzles, limit=2), "band": lambda: band.solve_batch(puzzles, limit=2)}
    for run in runs.values():
        run()  # warm-up
    times = {engine: [] for engine in runs}
    answers = {}
    load_start = os.getloadavg()[0]
    for _ in range(rounds):
        for engine, run in runs.items():
            seconds, answers[engine] = timed(run)
            times[engine].append(seconds)
    load_end = os.getloadavg()[0]
    (nb_counts, nb_solutions, nb_guesses, _), (counts, solutions, guesses, _) = answers["nb"], answers["band"]
    assert (counts == nb_counts).all(), f"{name}: counts differ at {np.flatnonzero(counts != nb_counts)[:5]}"
    unique = counts == 1
    assert (solutions[unique] == nb_solutions[unique]).all(), f"{name}: unique solutions differ"
    assert valid_solutions(puzzles[counts > 0], solutions[counts > 0]).all(), f"{name}: band gave an invalid solution"
    n = len(puzzles)
    ratios = [nb_s / band_s for nb_s, band_s in zip(times["nb"], times["band"])]
    return {
        "set": name, "n": n, "nb": n / statistics.median(times["nb"]), "band": n / statistics.median(times["band"]),
        "ratio": statistics.median(ratios), "nb_guesses": nb_guesses.mean(), "band_guesses": guesses.mean(),
        "counts": np.bincount(counts, minlength=3)[:3].tolist(), "load": f"{load_start:.2f}-{load_end:.2f}",
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller subsets, 3 rounds")
    parser.add_argument("--rounds", type=int, help="alternating rounds per set (default 7, quick 3)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 7)
    pick = 1 if args.quick else 0

    import numba

    print(f"# cpu: {cpu_model()}, {os.cpu_count()} cores; python {platform.python_version()}; numba "
          f"{numba.__version__}; rounds {rounds}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"command: {' '.join([Path(sys.argv[0]).name] + sys.argv[1:])}")
    rows = []
    for name, sizes in SETS.items():
        rows.append(compare(name, nb.from_lines(load_lines(name, sizes[pick])), rounds))
    seeds = nb.seeds_from(2026, GENERATED[pick])
    nb.generate_batch(seeds[:10], minimal=True)  # warm-up
    making = []
    for _ in range(max(1, rounds // 2)):
        seconds, generated = timed(lambda: nb.generate_batch(seeds, minimal=True))
        making.append(seconds)
    rows.append(compare("nb minimal (generated)", generated, rounds))

    print("| set (count to 2) | n | nb puzzles/s | band puzzles/s | band/nb | guesses/puzzle nb / band | counts 0/1/2 | load |")
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for r in rows:
        print(f"| {r['set']} | {r['n']:,} | {r['nb']:,.0f} | {r['band']:,.0f} | {r['ratio']:.2f} | "
              f"{r['nb_guesses']:.1f} / {r['band_guesses']:.1f} | {'/'.join(map(str, r['counts']))} | {r['load']} |")
    made = len(seeds) / statistics.median(making)
    print(f"\nnb.generate_batch(minimal=True) makes {made:,.0f} puzzles/s; band counts them {rows[-1]['band'] / made:.0f} "
          f"times as fast, nb {rows[-1]['nb'] / made:.0f} times.")


if __name__ == "__main__":
    main()

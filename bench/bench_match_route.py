"""The figures behind the pattern match on dense grids (now the opt-in engine ``pattern``; until
1384f8c the default solve's route through ``sat.solve``'s shortcut), and ``pattern.may_fit``:

1. how often ``may_fit`` passes givens drawn from no grid (``bigset.random_givens``) at 5-20 % of
   the cells: how well the filter keeps other grids off the match;
2. per random instance of ``bigset.py`` (seeds 2, 36x36 and 49x49): the conflicts CaDiCaL needs for
   a first solution of the settled grid (capped), against which the old route's wait
   (``SHORTCUT_AFTER``, 200 conflicts) was chosen;
3. for the pattern-family ones: the match's seconds, then the seconds and conflicts CaDiCaL needs
   for a second solution once the match's is blocked and its phases set (what ``sudoku solve``
   pays to warn of several solutions).

    PYTHONPATH=. python bench/bench_match_route.py --draws 20
"""

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bigset  # noqa: E402
from sudoku.engines import pattern, sat  # noqa: E402
from sudoku.engines import py as _py  # noqa: E402
from sudoku.grid import geometry  # noqa: E402

FIRST_CAP = 20_000  # conflicts: past it a first solution counts as "more than this"


def filter_rates(draws):
    print("| grid | givens | may_fit passes |")
    print("|---|---:|---:|")
    for box in (4, 5, 6):
        cells = box ** 4
        for pct in (5, 10, 15, 20):
            count = round(cells * pct / 100)
            passed = sum(pattern.may_fit(bigset.random_givens(box, count, random.Random(seed))) for seed in range(draws))
            print(f"| {box * box}x{box * box} | {pct} % ({count}) | {passed} of {draws} |", flush=True)


def settled(puzzle):
    geo = geometry(puzzle.box)
    cands, queue = _py.candidates(puzzle)
    assert _py.settle(cands, queue, geo)
    return cands, geo


def first_conflicts(cands, geo):
    """Conflicts CaDiCaL takes for a first solution (None past FIRST_CAP)."""
    with sat.new_solver() as solver:
        sat.encode(cands, geo, sink=sat.loader(solver))
        solver.conf_budget(FIRST_CAP)
        found = solver.solve_limited()
        return solver.accum_stats().get("conflicts", 0) if found else None


def second_from_match(puzzle, cands, geo):
    """(match seconds, second-solution seconds, its conflicts, found) as ``sat._count`` does it."""
    start = time.perf_counter()
    match = pattern.match(puzzle)
    matched = time.perf_counter() - start
    with sat.new_solver() as solver:
        _, _, meaning = sat.encode(cands, geo, sink=sat.loader(solver))
        known = [1 << (digit - 1) for digit in match.solution.cells]
        chosen = [v if known[cell] == bit else -v for v, (cell, bit) in enumerate(meaning[1:], 1)]
        solver.set_phases(chosen)
        solver.add_clause([-lit for lit in chosen if lit > 0])
        start = time.perf_counter()
        found = solver.solve()
        return matched, time.perf_counter() - start, solver.accum_stats().get("conflicts", 0), found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=20, help="random draws per size and density (default 20)")
    args = parser.parse_args()
    from common import machine

    print(f"Machine: {machine()}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at start.\n")
    filter_rates(args.draws)
    print(f"\n| instance | kind | conflicts to a first solution (cap {FIRST_CAP:,}) | match s | second solution s | its conflicts |")
    print("|---|---|---:|---:|---:|---:|")
    for instance in bigset.instances(seeds=2, boxes=(6, 7)):
        cands, geo = settled(instance.puzzle)
        first = first_conflicts(cands, geo)
        cells = [instance.name, instance.kind, f"{first:,}" if first is not None else f">{FIRST_CAP:,}"]
        if instance.kind == "random":
            matched, second, conflicts, found = second_from_match(instance.puzzle, cands, geo)
            cells += [f"{matched:.2f}", f"{second:.2f}" if found else "none", f"{conflicts:,}"]
        else:
            cells += ["-", "-", "-"]
        print("| " + " | ".join(cells) + " |", flush=True)
    print(f"\nLoad average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end.")


if __name__ == "__main__":
    main()

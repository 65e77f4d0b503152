"""Big grids: seconds per puzzle for the `sudoku solve` command, every engine that can be bounded,
and CaDiCaL (python-sat), on the same instances of the seeded set in ``bench/bigset.py``.

Every run is bounded by ``--cap`` seconds (the CLI by its own ``--timeout``, engines by a Budget,
CaDiCaL's process by being killed), so a row shows ``>cap`` rather than hanging. Runners take turns in an
order rotated per instance and round (load drifts over minutes on this shared machine), answers are
verified outside the timed region, and the load average is printed at the start and the end.
Instances with 48-55 % of cells blank (the phase transition) are marked; there the goal is only
that every run is bounded. The random rows come in two kinds (``bigset.py``): shuffled pattern
grids, which the default solve matches to their family, and ``filled`` grids outside it, which
measure the search against CaDiCaL's.

The yardstick is timed as `sudoku solve` is (``bench/sat_cadical.py``): ``cadical`` is the wall time
of a process of its own (Python start-up, pysat import, its plain one-hot encoding, loading the
clauses, solving), so ``solve / cadical`` compares like with like; ``cadical solve`` is CaDiCaL's
solve call alone inside that process, a lower bound no process can reach on easy rows (start-up
alone is ~0.03 s), shown with its ratio ``solve / cadical solve`` for the rows that need search.
(Until 2026-11-24 the ``cadical`` column was the solve call alone and its encoding a column apart,
with loading the clauses into the solver, 0.4-2.8 s at 49x49, counted nowhere.)

    PYTHONPATH=. python bench/bench_big.py --seeds 2 --cap 20
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bigset  # noqa: E402
import sat_cadical  # noqa: E402

from sudoku import engines  # noqa: E402
from sudoku.budget import Budget, BudgetExceeded  # noqa: E402
from sudoku.formats import parse, render  # noqa: E402
from sudoku.grid import is_solution  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def run_cli(puzzle, cap):
    """`python -m sudoku solve -q --timeout CAP`, start-up included: (seconds, status)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    text = render(puzzle, "grid").encode()
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "sudoku", "solve", "-q", "--timeout", str(cap)],
                          input=text, capture_output=True, env=env, timeout=cap + 60)
    seconds = time.perf_counter() - start
    if done.returncode == 124:
        return seconds, "timeout"
    if done.returncode != 0:
        return seconds, f"exit {done.returncode}: {done.stderr.decode().strip()}"
    solution = next(iter(parse(done.stdout.decode().splitlines(keepends=True))))
    return seconds, "ok" if is_solution(puzzle, solution) else "WRONG"


def run_engine(name, puzzle, cap):
    engine = engines.load(name)
    start = time.perf_counter()
    try:
        answer = engine.solve(puzzle, limit=1, budget=Budget(seconds=cap))
    except BudgetExceeded:
        return time.perf_counter() - start, "timeout"
    seconds = time.perf_counter() - start
    return seconds, "ok" if answer.count == 1 and is_solution(puzzle, answer.solution) else "WRONG"


def run_cadical(puzzle, cap):
    """The yardstick's whole process, as `sudoku solve` is timed; its solve call alone goes to
    ``_SOLVE_S`` (the ``cadical solve`` column)."""
    status, seconds, phases, solution = sat_cadical.run(puzzle, cap=cap)
    if status == "timeout":
        return seconds, "timeout"
    _SOLVE_S.append(phases["solve"])
    return seconds, "ok" if status == "solved" and is_solution(puzzle, solution) else "WRONG"


_SOLVE_S = []


def runners(box, chosen):
    out = [("sudoku solve", run_cli)]
    for name in engines.bounded():
        if engines.supports(name, box) and (chosen is None or name in chosen):
            out.append((name, lambda puzzle, cap, name=name: run_engine(name, puzzle, cap)))
    out.append(("cadical", run_cadical))
    return out


def cell(samples, cap):
    """Median seconds, '>cap' if any round hit the cap, 'WRONG'/error text if any answer was bad."""
    bad = [status for _, status in samples if status not in ("ok", "timeout")]
    if bad:
        return bad[0]
    if any(status == "timeout" for _, status in samples):
        return f">{cap:g}"
    return f"{statistics.median(s for s, _ in samples):.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=2, help="puzzles per size and blank rate (default 2)")
    parser.add_argument("--cap", type=float, default=20.0, help="seconds allowed per run (default 20)")
    parser.add_argument("--rounds", type=int, default=1, help="timed rounds per runner and instance (default 1)")
    parser.add_argument("--boxes", default="4,5,6,7,8,9", help="box sizes to run (default 4,5,6,7,8,9)")
    parser.add_argument("--engines", help="comma-separated engines (default: every engine that takes a budget)")
    args = parser.parse_args()
    boxes = tuple(int(b) for b in args.boxes.split(","))
    chosen = set(args.engines.split(",")) if args.engines else None
    from common import machine

    print(f"Machine: {machine()}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at start.")
    print(f"Command: `PYTHONPATH=. python bench/bench_big.py {' '.join(sys.argv[1:])}` "
          f"(CaDiCaL {sat_cadical.SOLVER}, python-sat; seconds per puzzle, median of {args.rounds} round(s))\n")
    for name in engines.bounded():  # warm up the chosen engines (numba's cache load) outside the timed region
        if (chosen is None or name in chosen) and any(engines.supports(name, box) for box in boxes):
            from sudoku.grid import Grid

            box = next(box for box in boxes if engines.supports(name, box))
            try:
                engines.solve(Grid.empty(box), engine=name, budget=Budget(seconds=args.cap))
            except BudgetExceeded:
                pass  # a cold numba cache compiles for longer than the cap: it is warm now all the same
    names = None
    for index, instance in enumerate(bigset.instances(seeds=args.seeds, boxes=boxes)):
        todo = runners(instance.box, chosen)
        if names is None or [n for n, _ in todo] != names:
            names = [n for n, _ in todo]
            print(f"\n| instance | blank % | band | {' | '.join(names)} | cadical solve "
                  "| solve / cadical | solve / cadical solve |")
            print("|---|---:|---|" + "---:|" * (len(names) + 3))
        samples = {name: [] for name in names}
        _SOLVE_S.clear()
        for round_ in range(args.rounds):
            shift = (index + round_) % len(todo)
            for name, fn in todo[shift:] + todo[:shift]:
                samples[name].append(fn(instance.puzzle, args.cap))
        cells = [cell(samples[name], args.cap) for name in names]
        ours, theirs = samples["sudoku solve"], samples["cadical"]
        if all(s == "ok" for _, s in ours + theirs):
            mine, cadical = statistics.median(s for s, _ in ours), statistics.median(s for s, _ in theirs)
            ratio = f"{mine / max(cadical, 1e-3):.2f}"
            ratio_solve = f"{mine / max(statistics.median(_SOLVE_S), 1e-3):.2f}"
        else:
            ratio = ratio_solve = "-"
        band = "hard" if bigset.in_hard_band(instance) else ""
        solve_alone = f"{statistics.median(_SOLVE_S):.2f}" if _SOLVE_S else "-"
        print(f"| {instance.name} | {instance.blank_pct} | {band} | {' | '.join(cells)} | {solve_alone} | {ratio} | {ratio_solve} |", flush=True)
    print(f"\nLoad average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end.")


if __name__ == "__main__":
    main()

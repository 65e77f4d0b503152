"""Figures for the `sudoku` library and command on this machine.

- cold start: `sudoku solve` on one easy 9x9 puzzle, whole process, against `python -c pass`;
- solve puzzles/s per engine on ../shared/data sets, every answer verified outside the timed region;
- create puzzles/s per size.

Run: python bench/bench_sudoku.py [--quick]
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import load_lines, machine, median_time  # noqa: E402
from sudoku import create, engines, is_solution  # noqa: E402
from sudoku.formats import parse_line, render  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def cold_start(runs):
    puzzle = render(parse_line(load_lines("kaggle", 1)[0]), "grid").encode()

    def once(argv, stdin=b""):
        start = time.perf_counter()
        subprocess.run(argv, input=stdin, check=True, capture_output=True, cwd=ROOT)
        return time.perf_counter() - start

    script = Path(sys.executable).parent / "sudoku"  # the installed command, when run from a venv
    commands = {"python -m sudoku solve": [sys.executable, "-m", "sudoku", "solve"]}
    if script.exists():
        commands["sudoku solve (installed script)"] = [str(script), "solve"]
    bare, times = [], {name: [] for name in commands}
    for _ in range(runs):  # interleaved, so machine noise hits all alike
        bare.append(once([sys.executable, "-c", "pass"]))
        for name, argv in commands.items():
            times[name].append(once(argv, puzzle))
    b = statistics.median(bare)
    print(f"cold start, one easy 9x9 puzzle (median of {runs}): python -c pass {b * 1000:.1f} ms")
    for name, samples in times.items():
        s = statistics.median(samples)
        print(f"  {name}: {s * 1000:.1f} ms, {s / b:.2f}x the bare interpreter, +{(s - b) * 1000:.1f} ms")


def solve_rates(sets, rounds):
    print(f"\nsolve, puzzles/s (limit 1; median of {rounds} rounds; answers verified untimed)")
    names = [n for n in engines.names() if "solve" in engines.info(n).capabilities]
    print(f"{'set':<14}{'puzzles':>8}" + "".join(f"{n:>12}" for n in names))
    for name, count in sets:
        puzzles = [parse_line(line) for line in load_lines(name, count)]
        row = f"{name:<14}{len(puzzles):>8}"
        for engine in names:
            if not all(engines.supports(engine, p.box) for p in puzzles):
                row += f"{'-':>12}"
                continue
            solver = engines.load(engine)
            answers = [solver.solve(p) for p in puzzles]
            bad = sum(not (a.count and is_solution(p, a.solution)) for p, a in zip(puzzles, answers))
            if bad:
                raise SystemExit(f"{engine} gave {bad} wrong answers on {name}")
            seconds = median_time(lambda: [solver.solve(p) for p in puzzles], rounds)
            row += f"{len(puzzles) / seconds:>12,.0f}"
        print(row)


def create_rates(sizes):
    print("\ncreate, puzzles/s (py engine, default settings; each checked unique untimed)")
    for box, count in sizes:
        start = time.perf_counter()
        puzzles = [create(box, seed=seed) for seed in range(count)]
        seconds = time.perf_counter() - start
        assert all(engines.solve(p, limit=2).count == 1 for p in puzzles)
        side = box * box
        print(f"{side}x{side}: {count / seconds:,.2f}/s  ({seconds / count * 1000:,.0f} ms each, "
              f"blanks {min(p.blanks for p in puzzles)}-{max(p.blanks for p in puzzles)}, n={count})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller samples")
    args = parser.parse_args()
    quick = args.quick
    print(f"machine: {machine()}")
    cold_start(5 if quick else 20)
    solve_rates([("kaggle", 200 if quick else 2000), ("top1465", 30 if quick else 300),
                 ("hardest1106", 10 if quick else 100)], 1 if quick else 3)
    create_rates([(2, 50), (3, 10 if quick else 50), (4, 2 if quick else 10), (5, 1 if quick else 3)])


if __name__ == "__main__":
    main()

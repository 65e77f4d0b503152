"""Start-up cost of the four tools: CPU seconds of ``--help``, ``--version`` and one 9x9 solve.

    PYTHONPATH=. python3 bench/bench_startup.py [--rounds N] [--budget S]

Each call is a fresh interpreter, ``python -m TOOL ARGS`` as a user's shell starts it; its CPU is the
user+sys time of the child (``resource.getrusage(RUSAGE_CHILDREN)`` before and after), so a busy
machine changes it far less than wall time. The calls go round-robin (every call once, then again) so
load drifts hit them alike; the median of ``--rounds`` is printed, with the load average before and
after, and ``over`` marks a median past ``--budget`` (issue 26 asks 0.15 s for ``--help`` and
``--version``). ``python -c pass`` runs in the same rounds, and the last line gives ``sudoku solve``
as a multiple of it (issue 45 asks at most 2.5x): a ratio measured side by side holds on any CPU.
The packages' bytecode is compiled first (``compileall``, as pip does when it installs a wheel): a
checkout run with ``PYTHONDONTWRITEBYTECODE=1``, or fresh from git, would otherwise compile every
module on every call, and measure the compiler (3.4x where the installed tool takes 2.0x). ``python -X importtime -m TOOL --help`` shows what a slow one imports.
"""

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PUZZLE = "530070000600195000098000060800060003400803001700020006060000280000419005000080079\n"
TOOLS = {"sudoku": "sudoku", "sudoku-jobs": "jobs", "fuzz": "fuzz", "reports": "reports"}
BASELINE = "python -c pass"
SOLVE = "sudoku solve (9x9 line)"
GOAL_RATIO = 2.5


def calls():
    """(label, argv, stdin) of every call measured."""
    out = [(BASELINE, [sys.executable, "-c", "pass"], None)]
    for tool, module in TOOLS.items():
        for flag in ("--help", "--version"):
            out.append((f"{tool} {flag}", [sys.executable, "-m", module, flag], None))
    out.append((SOLVE, [sys.executable, "-m", "sudoku", "solve"], PUZZLE))
    return out


def cpu_of(argv, stdin):
    """User+sys CPU seconds of one child process running ``argv`` (its output thrown away)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, input=stdin, text=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[2:])} failed ({done.returncode}): {done.stderr.strip()}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="calls of each, median taken (default 7)")
    parser.add_argument("--budget", type=float, default=0.15, help="CPU seconds a call should stay under")
    args = parser.parse_args()
    compiled = subprocess.run([sys.executable, "-m", "compileall", "-q", *TOOLS.values()], cwd=ROOT,
                              stdout=subprocess.DEVNULL)
    if compiled.returncode != 0:
        print("note: the bytecode could not all be compiled; the figures include compiling it")
    print(f"Python {platform.python_version()}, {os.cpu_count()} cores; load before "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    measured = {label: [] for label, _, _ in calls()}
    for _ in range(args.rounds):
        for label, argv, stdin in calls():
            measured[label].append(cpu_of(argv, stdin))
    print(f"{'call':<26} {'median_cpu_s':>12} {'min_cpu_s':>10} {'max_cpu_s':>10}")
    for label, samples in measured.items():
        median = statistics.median(samples)
        over = "  over" if median > args.budget and label not in (SOLVE, BASELINE) else ""
        print(f"{label:<26} {median:12.3f} {min(samples):10.3f} {max(samples):10.3f}{over}")
    ratio = statistics.median(measured[SOLVE]) / statistics.median(measured[BASELINE])
    print(f"{SOLVE}: {ratio:.2f}x {BASELINE} (goal <= {GOAL_RATIO}x){'' if ratio <= GOAL_RATIO else '  over'}")
    print(f"load after {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.rounds} rounds")


if __name__ == "__main__":
    main()

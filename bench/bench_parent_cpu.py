"""The runner's parent CPU per case beside a worker's: what limits scaling to many workers.

    PYTHONPATH=. python bench/bench_parent_cpu.py [-n 100000] [--workers 2] [--rounds 2]

A local run of ``sudoku-jobs run`` has one parent (planning, collecting each chunk's records, writing
parts, rebuilding the CSV, the manifest, progress) and ``--workers`` forked workers (making, checking
and solving puzzles). With W workers the parent must keep up with W chunks at once, so once its CPU
per case reaches 1/W of a worker's, more workers stop helping. Issue 28's goal: the parent at most
1/20 of a worker per case, so that 16 workers scale.

The parent's CPU is read from /proc/PID/stat just before it exits (polled; its children are not in
it), the workers' as every child's CPU (``RUSAGE_CHILDREN`` of this script) minus the parent's. Both
are CPU time, not wall time, so a loaded machine changes them little; the load average is printed.
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


def _cpu_of(pid):
    """utime + stime of process ``pid`` alone, in seconds (None once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return (int(fields[11]) + int(fields[12])) / TICK


def run_once(n, workers, out):
    """(cases, parent CPU s, workers' CPU s, wall s) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    argv = [sys.executable, "-m", "jobs", "run", "-n", str(n), "--seed", "1", "--workers", str(workers),
            "--no-progress", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    started = time.perf_counter()
    process = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    parent = 0.0
    while process.poll() is None:
        seen = _cpu_of(process.pid)
        parent = seen if seen is not None else parent
        time.sleep(0.05)
    wall = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"bench: {' '.join(argv)} exited {process.returncode}:\n{process.stderr.read().decode()}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    everything = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return n, parent, everything - parent, wall


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=100_000, help="cases per run (default 100,000)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print(f"{'round':>5} {'cases':>8} {'wall s':>7} {'parent s':>9} {'workers s':>10} "
          f"{'parent us/case':>15} {'worker us/case':>15} {'parent/worker':>14}")
    with tempfile.TemporaryDirectory() as scratch:
        for number in range(args.rounds):
            cases, parent, workers, wall = run_once(args.n, args.workers, Path(scratch) / f"run{number}")
            per_parent, per_worker = parent / cases * 1e6, workers / cases * 1e6
            print(f"{number + 1:>5} {cases:>8} {wall:>7.1f} {parent:>9.2f} {workers:>10.2f} "
                  f"{per_parent:>15.1f} {per_worker:>15.1f} {per_parent / per_worker:>14.3f}")
    print(f"load average at end: {os.getloadavg()[0]:.2f}; goal: parent/worker <= 0.050 (1/20)")


if __name__ == "__main__":
    main()

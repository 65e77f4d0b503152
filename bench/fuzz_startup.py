"""How soon `fuzz run` finishes its first chunk, and its whole wall time: this tree against another.

For each worker count, rounds alternate A (the ``--base`` checkout, e.g. ``git archive main | tar -x
-C /tmp/wt-old``) and B (this tree): one `fuzz run` each, a fresh process, the same seed. Printed per
run: the seconds from launch to the first chunk's part on disk (the earliest part's mtime) and to the
end of the command; per round, the load average; then the medians and A / B. Each tree does one
short untimed run first (its numba cache filled). The default target is our engines in-process
(``engine``: no pre-flight); ``--target SPEC`` (repeated) fuzzes programs instead, whose pre-flight
runs each twice (``fake:NAME`` is a fake program of tests/fake_targets), ``--reference`` adds one.

Run: python bench/fuzz_startup.py --base /tmp/wt-old [--rounds 3] [-n 10000] [--workers 1 2]
     [--target SPEC ...] [--reference SPEC] [--chunk-size N]
"""

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from bench.common import machine  # noqa: E402
from fake_targets import spec  # noqa: E402


def fuzz(tree, out, *, n, workers, options):
    """(seconds to the first part on disk, seconds to the end) of one `fuzz run` of ``tree``."""
    args = [sys.executable, "-m", "fuzz", "run", "-n", str(n), "--seed", "1", "--workers", str(workers),
            "--out", str(out), "--corpus", f"{out}-corpus", "--no-progress", *options]
    env = dict(os.environ, PYTHONPATH=str(tree))
    start = time.time()
    done = subprocess.run(args, cwd=tree, capture_output=True, text=True, env=env)
    end = time.time()
    if done.returncode != 0:
        raise SystemExit(f"{tree}: fuzz run exit {done.returncode}: {done.stderr.strip()[-500:]}")
    first = min(part.stat().st_mtime for part in (out / "parts").glob("*.parquet"))
    return first - start, end - start


def load():
    return "load average " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the other checkout (A)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("-n", type=int, default=10000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--target", action="append", metavar="SPEC", help="default: engine; fake:NAME for a fake")
    parser.add_argument("--reference", metavar="SPEC")
    parser.add_argument("--chunk-size", type=int)
    args = parser.parse_args()
    options = []
    for target in args.target or ["engine"]:
        options += ["--target", spec(target[5:]) if target.startswith("fake:") else target]
    if args.reference:
        options += ["--reference", spec(args.reference[5:]) if args.reference.startswith("fake:") else args.reference]
    if args.chunk_size:
        options += ["--chunk-size", str(args.chunk_size)]
    trees = {"A": args.base.resolve(), "B": ROOT}
    print(f"machine: {machine()}; {load()}")
    print(f"A = {trees['A']}, B = {trees['B']}; fuzz run -n {args.n} {shlex.join(options)}; "
          f"seconds to the first chunk / to the end")
    figures = {(side, workers): ([], []) for side in trees for workers in args.workers}
    with tempfile.TemporaryDirectory() as tmp:
        for side, tree in trees.items():
            fuzz(tree, Path(tmp) / f"warm-{side}", n=20, workers=1, options=options)
        for number in range(args.rounds):
            for workers in args.workers:
                line = []
                for side, tree in trees.items():
                    first, whole = fuzz(tree, Path(tmp) / f"{side}{number}-{workers}", n=args.n, workers=workers,
                                        options=options)
                    figures[side, workers][0].append(first)
                    figures[side, workers][1].append(whole)
                    line.append(f"{side} {first:.2f} / {whole:.2f}")
                print(f"round {number + 1}, {workers} workers: {', '.join(line)}; {load()}", flush=True)
    print("medians:")
    for workers in args.workers:
        (a_first, a_whole), (b_first, b_whole) = ([statistics.median(values) for values in figures[side, workers]]
                                                  for side in trees)
        print(f"  {workers} workers: first chunk A {a_first:.2f}s, B {b_first:.2f}s (A / B {a_first / b_first:.2f}); "
              f"whole run A {a_whole:.2f}s, B {b_whole:.2f}s (A / B {a_whole / b_whole:.2f})")
    print(load())


if __name__ == "__main__":
    main()

"""Does a many-target `fuzz run` scale? 3 targets x 300 cases on 2 workers against the 3 single runs.

Goal (issue 11): the run of three targets together on 2 workers takes at most the sum of their
single runs / 1.8. A single run is one target alone on one worker (the work of one target, done
serially: two workers could at best halve the sum, so 1.8 asks for 90 % of perfect scaling, all
start-up and the last chunk's wait included). The targets are three clean fake programs (a Python
process per call, as a student's Python submission costs: `correct`, `reversed_digits`, `chatty`
from tests/fake_targets), so nothing fails and no triage time hides in the figures.

Rounds alternate A (the three single runs, one after another) and B (the three together), so load
from other work on the machine falls on both alike; the load average is printed with each round.
The ratio printed is sum(A) / B per round, and the median over rounds.

Run: python bench/fuzz_scaling.py [--rounds 3] [-n 300]
"""

import argparse
import os
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

TARGETS = ("correct", "reversed_digits", "chatty")
GOAL = 1.8


def fuzz(out, targets, *, n, workers, seed):
    """Wall seconds of one `fuzz run` (the whole command, start-up included)."""
    args = [sys.executable, "-m", "fuzz", "run", "-n", str(n), "--seed", str(seed), "--workers", str(workers),
            "--out", str(out), "--corpus", str(out) + "-corpus", "--no-progress", "--timeout", "20"]
    for name in targets:
        args += ["--target", spec(name)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in os.environ.get(
        "PYTHONPATH", "").split(os.pathsep) if p]))
    start = time.perf_counter()
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"fuzz run {' '.join(targets)} exit {done.returncode}: {done.stderr.strip()[-500:]}")
    return wall


def load():
    return "load average " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("-n", type=int, default=300)
    args = parser.parse_args()
    print(f"machine: {machine()}; {load()}")
    print(f"targets: {', '.join(TARGETS)}; {args.n} cases each; A = single runs on 1 worker, "
          f"B = all three in one run on 2 workers")
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for number in range(args.rounds):
            seed = 100 + number
            singles = [fuzz(Path(tmp) / f"a{number}-{name}", [name], n=args.n, workers=1, seed=seed)
                       for name in TARGETS]
            print(f"round {number + 1} A: " + ", ".join(f"{name} {wall:.1f}s" for name, wall in zip(TARGETS, singles))
                  + f"; sum {sum(singles):.1f}s; {load()}", flush=True)
            together = fuzz(Path(tmp) / f"b{number}", TARGETS, n=args.n, workers=2, seed=seed)
            ratios.append(sum(singles) / together)
            print(f"round {number + 1} B: {together:.1f}s; sum(A) / B = {ratios[-1]:.2f}; {load()}", flush=True)
    median = statistics.median(ratios)
    print(f"median sum(A) / B over {len(ratios)} rounds: {median:.2f} (goal >= {GOAL}): "
          f"{'met' if median >= GOAL else 'MISSED'}")


if __name__ == "__main__":
    main()

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

With ``--backend dask`` each round adds C: the same many-target run through the runner's Dask
backend (a LocalCluster of 2 single-threaded workers: ``--workers 2``), so B / C is Dask against the
local pool on the same cores (issue 28: at least 0.9) and sum(A) / C what a class run on a cluster
gains over running its programs one by one (issue 29). ``--class K`` fuzzes K targets instead of the
three: the clean fakes (fake_targets.CLEAN) in turn, each a separate entry of the run, as a class of
K submissions is.

Run: python bench/fuzz_scaling.py [--rounds 3] [-n 300] [--backend dask] [--class K]
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
from fake_targets import CLEAN, spec  # noqa: E402

TARGETS = ("correct", "reversed_digits", "chatty")
GOAL = 1.8


def fuzz(out, targets, *, n, workers, seed, backend="local"):
    """Wall seconds of one `fuzz run` (the whole command, start-up included). ``targets`` are fake
    names, or (name, copy) pairs: copy K of a fake is the same program under a name of its own (an
    environment variable set in front of it), so a class can hold one fake many times."""
    args = [sys.executable, "-m", "fuzz", "run", "-n", str(n), "--seed", str(seed), "--workers", str(workers),
            "--out", str(out), "--corpus", str(out) + "-corpus", "--no-progress", "--timeout", "20",
            "--backend", backend]
    for name in targets:
        if isinstance(name, tuple):
            name, copy = name
            args += ["--target", f"env SUBMISSION={copy} {spec(name)}"]
        else:
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
    parser.add_argument("--backend", choices=("local", "dask"), default="local",
                        help="dask: also run C, the many-target run through a Dask LocalCluster")
    parser.add_argument("--class", dest="size", type=int, metavar="K",
                        help="K targets, the clean fakes in turn, instead of the three")
    args = parser.parse_args()
    targets = [(CLEAN[k % len(CLEAN)], k) for k in range(args.size)] if args.size else list(TARGETS)
    names = sorted({t[0] if isinstance(t, tuple) else t for t in targets})
    print(f"machine: {machine()}; {load()}")
    print(f"targets: {len(targets)} ({', '.join(names)}); {args.n} cases each; A = single runs on 1 worker, "
          f"B = all in one run on 2 workers" + (", C = the same through Dask" if args.backend == "dask" else ""))
    ratios, dask_ratios = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for number in range(args.rounds):
            seed = 100 + number
            singles = [fuzz(Path(tmp) / f"a{number}-{k}", [target], n=args.n, workers=1, seed=seed)
                       for k, target in enumerate(targets)]
            print(f"round {number + 1} A: {len(singles)} single runs, sum {sum(singles):.1f}s, slowest "
                  f"{max(singles):.1f}s; {load()}", flush=True)
            together = fuzz(Path(tmp) / f"b{number}", targets, n=args.n, workers=2, seed=seed)
            ratios.append(sum(singles) / together)
            print(f"round {number + 1} B: {together:.1f}s; sum(A) / B = {ratios[-1]:.2f}; {load()}", flush=True)
            if args.backend == "dask":
                on_dask = fuzz(Path(tmp) / f"c{number}", targets, n=args.n, workers=2, seed=seed, backend="dask")
                dask_ratios.append(together / on_dask)
                print(f"round {number + 1} C: {on_dask:.1f}s; sum(A) / C = {sum(singles) / on_dask:.2f}, "
                      f"B / C = {dask_ratios[-1]:.2f}; {load()}", flush=True)
    median = statistics.median(ratios)
    print(f"median sum(A) / B over {len(ratios)} rounds: {median:.2f} (goal >= {GOAL}): "
          f"{'met' if median >= GOAL else 'MISSED'}")
    if dask_ratios:
        median = statistics.median(dask_ratios)
        print(f"median B / C (Dask against the local pool) over {len(dask_ratios)} rounds: {median:.2f} "
              f"(goal >= 0.9): {'met' if median >= 0.9 else 'MISSED'}")


if __name__ == "__main__":
    main()

"""Can `fuzz` findings be trusted? Two figures, measured here.

1. No false alarm, also on a fully loaded machine: every clean fake target (correct programs as
   messy as real ones: boxed or chatty output, a strict reader, randomly slow answers, a daemon
   left behind on every call) is fuzzed ``--runs`` times quiet and ``--runs`` times with two CPU
   hogs running; each run must exit 0. Afterwards no process of a run may be left.
2. The main job keeps its speed: `fuzz run -n 10000 --target engine` of this tree against a
   baseline commit (default 38e1222, before the triage work) checked out in a git worktree, in
   alternating rounds (A, B, A, B), with the load average printed; the ratio of median walls.

Run: python bench/fuzz_trust.py [--runs 10] [-n 60] [--baseline REF] [--skip-speed] [--skip-trust]
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

HOG = "while True: pass"


def fuzz(tree, args, cwd):
    env = dict(os.environ, PYTHONPATH=str(tree))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "fuzz", "run", "--no-progress", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True)
    return done, time.perf_counter() - start


def leftovers(marker):
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if marker.encode() in (proc / "cmdline").read_bytes() and proc.name != str(os.getpid()):
                    found.append(proc.name)
            except OSError:
                pass
    return found


def trust(runs, n):
    print(f"clean targets, {runs} runs each of -n {n} (seed = run number), quiet and under two CPU hogs:")
    for loaded in (False, True):
        hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(2 if loaded else 0)]
        try:
            for name in CLEAN:
                passed, walls, bad = 0, [], []
                timeout = "1" if name == "slow_correct" else "5"
                for run in range(runs):
                    with tempfile.TemporaryDirectory() as tmp:
                        done, wall = fuzz(ROOT, ["-n", n, "--seed", run + 1, "--target", spec(name), "--out",
                                                 Path(tmp) / "run", "--corpus", Path(tmp) / "corpus",
                                                 "--timeout", timeout], tmp)
                    walls.append(wall)
                    if done.returncode == 0:
                        passed += 1
                    else:
                        bad.append(done.stdout.splitlines()[1] if done.stdout else done.stderr.strip()[-200:])
                left = leftovers(str(ROOT / "tests" / "fake_targets" / f"{name}.py"))  # this tree's only
                print(f"  {'loaded' if loaded else 'quiet '} {name:<18} exit 0 in {passed} of {runs} runs, "
                      f"median {statistics.median(walls):.1f}s, load {os.getloadavg()[0]:.1f}, "
                      f"processes left: {len(left)}" + (f"; first failure: {bad[0]}" if bad else ""))
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()


def speed(baseline, rounds):
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(base), baseline],
                       check=True)
        try:
            for side, tree in (("base", base), ("head", ROOT)):  # warm-up: compile each tree's numba cache
                fuzz(tree, ["-n", 200, "--seed", 1, "--out", Path(tmp) / f"warm-{side}", "--corpus",
                            Path(tmp) / f"corpus-warm-{side}"], tmp)
            walls = {"base": [], "head": []}
            for round_ in range(rounds):
                for side, tree in (("base", base), ("head", ROOT)) if round_ % 2 == 0 else (("head", ROOT),
                                                                                            ("base", base)):
                    out = Path(tmp) / f"{side}-{round_}"
                    done, wall = fuzz(tree, ["-n", 10000, "--seed", 1, "--out", out, "--corpus",
                                             Path(tmp) / f"corpus-{side}-{round_}"], tmp)
                    walls[side].append(wall)
                    print(f"  round {round_ + 1} {side}: {wall:.1f}s wall, exit {done.returncode}, "
                          f"load {os.getloadavg()[0]:.1f}")
            ratio = statistics.median(walls["head"]) / statistics.median(walls["base"])
            print(f"fuzz run -n 10000 (engine): head {statistics.median(walls['head']):.1f}s, base {baseline} "
                  f"{statistics.median(walls['base']):.1f}s median wall; head/base {ratio:.2f}")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("-n", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--baseline", default="38e1222")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-trust", action="store_true")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    if not args.skip_trust:
        trust(args.runs, args.n)
    if not args.skip_speed:
        speed(args.baseline, args.rounds)


if __name__ == "__main__":
    main()

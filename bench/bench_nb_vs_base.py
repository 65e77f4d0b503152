"""The ``nb`` engine of this tree against ``nb`` of a base commit (default 38e1222), alternating rounds.

    git worktree add /work/nb-base 38e1222     # once
    PYTHONPATH=. python3 bench/bench_nb_vs_base.py [--base /work/nb-base] [--rounds 5] [--quick] [--relabel SEED]

Each side runs in its own worker process (this script with ``--worker``, PYTHONPATH set to its
tree), which loads the sets, warms its kernels and then times one task per request. Rounds go
A, B, A, B, ... so both sides see the same load; the table gives the median of each side and
the median of the per-round ratios (new / base) of wall time and of the workers' CPU time (which
waiting for a core does not inflate: prefer it when the load average is above the core count),
and the load average before and after.
Tasks: hardest1106, top1465 and kaggle solved (limit 1), serg_benchmark counted to 2, and
``generate_batch(minimal=True)`` on the same seeds. Every answer is checked outside the timed
region: counts, solutions valid and equal on both sides (the unique solutions), generated
puzzles unique (counted to 2 by the other side too) and minimal.
"""

import argparse
import gzip
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
# task -> (set, limit, puzzles in quick mode); None as set: minimal generation
TASKS = {
    "hardest1106": ("hardest1106", 1, 375),
    "top1465": ("top1465", 1, 1465),
    "kaggle": ("kaggle", 1, 20000),
    "serg_benchmark": ("serg_benchmark", 2, 10000),
    "generate minimal": (None, 0, 500),
}
GENERATE = 2000  # minimal puzzles per round


def relabel(puzzles, seed):
    """``puzzles`` with each one's digits renamed by a permutation of its own, drawn from ``seed``
    (None: unchanged). A set's own labels can favour an engine that tries the lowest digit first:
    serg_benchmark takes nb 7.2 guesses as published and 8.7 relabelled."""
    if seed is None:
        return puzzles
    perms = np.argsort(np.random.default_rng(seed).random((len(puzzles), 9)), axis=1) + 1
    table = np.concatenate([np.zeros((len(puzzles), 1), np.int64), perms], axis=1).astype(np.uint8)
    return np.take_along_axis(table, puzzles.astype(np.int64), axis=1)


def worker(data, quick, seed=None):
    """Serve requests on stdin: a task name; answer one JSON line with seconds and a digest."""
    from sudoku.engines import nb

    sets = {}
    for task, (name, limit, small) in TASKS.items():
        if name is None:
            sets[task] = nb.seeds_from(2026, small if quick else GENERATE)
            nb.generate_batch(sets[task][:5], minimal=True)
            continue
        with gzip.open(data / f"{name}.txt.gz", "rt") as handle:
            puzzles = relabel(nb.from_lines(handle.read().split()), seed)
        sets[task] = puzzles[:small] if quick else puzzles
        nb.solve_batch(puzzles[:10], limit=limit)
    print("ready", flush=True)
    for line in sys.stdin:
        task = line.strip()
        name, limit, _ = TASKS[task]
        start = time.perf_counter()
        cpu = time.process_time()
        if name is None:
            result = (nb.generate_batch(sets[task], minimal=True, solutions=True),)
        else:
            result = nb.solve_batch(sets[task], limit=limit)
        seconds = time.perf_counter() - start
        cpu = time.process_time() - cpu
        if name is None:
            (puzzles, grids), = result
            out = {"puzzles": puzzles.tolist(), "grids": grids.tolist()}
        else:
            counts, solutions, guesses, _ = result
            out = {"counts": counts.tolist(), "solutions": solutions.tolist(), "guesses": float(guesses.mean())}
        print(json.dumps({"seconds": seconds, "cpu_s": cpu, "n": len(sets[task]), **out}), flush=True)


class Side:
    """One worker process on a tree."""

    def __init__(self, tree, data, quick, seed=None):
        env = dict(os.environ, PYTHONPATH=str(tree))
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--data", str(data)] + (["--quick"] if quick else [])
        cmd += [] if seed is None else ["--relabel", str(seed)]
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tree)
        assert self.proc.stdout.readline().strip() == "ready", f"worker on {tree} did not start"

    def run(self, task):
        self.proc.stdin.write(task + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def check(task, base, new, data, quick, seed=None):
    """Both sides' answers agree and are right; raises AssertionError otherwise."""
    from bench.common import valid_solutions  # here: the base tree's worker runs this file too, without it
    from sudoku.engines import nb  # this tree's

    name, limit, small = TASKS[task]
    if name is None:
        puzzles = np.array(new["puzzles"], np.uint8)
        grids = np.array(new["grids"], np.uint8)
        counts, solutions, _, _ = nb.solve_batch(puzzles, limit=2)
        assert (counts == 1).all() and (solutions == grids).all(), "new nb generated a puzzle that is not unique"
        assert valid_solutions(puzzles, grids).all()
        for row in puzzles[:50]:  # minimal: no clue can go (a sample)
            for cell in np.flatnonzero(row):
                trial = row.copy()
                trial[cell] = 0
                assert nb.solve_batch(trial[None], limit=2)[0][0] == 2, "new nb generated a puzzle that is not minimal"
        return
    with gzip.open(data / f"{name}.txt.gz", "rt") as handle:
        puzzles = relabel(nb.from_lines(handle.read().split()), seed)
    if quick:
        puzzles = puzzles[:small]
    for side, answer in (("base", base), ("new", new)):
        counts = np.array(answer["counts"])
        assert (counts == limit).all(), f"{task}: {side} counts {np.bincount(counts)}"
        assert valid_solutions(puzzles, np.array(answer["solutions"], np.uint8)).all(), f"{task}: {side} invalid"
    if limit == 1:
        assert base["solutions"] == new["solutions"], f"{task}: the two sides' unique solutions differ"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, default=REPO.parent / "nb-base", help="worktree of the base commit")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per side (default 5)")
    parser.add_argument("--quick", action="store_true", help="smaller sets (first n puzzles)")
    parser.add_argument("--tasks", default=",".join(TASKS), help="comma-separated tasks (default all)")
    parser.add_argument("--data", type=Path, default=DATA, help="directory of the *.txt.gz sets")
    parser.add_argument("--relabel", type=int, metavar="SEED",
                        help="rename each puzzle's digits by a permutation drawn from SEED (sets' labels can favour an order)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.data, args.quick, args.relabel)
    if not (args.base / "sudoku" / "engines" / "nb.py").exists():
        sys.exit(f"bench_nb_vs_base: no base tree at {args.base} (git worktree add {args.base} 38e1222)")
    base_sha = subprocess.run(["git", "-C", str(args.base), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
    new_sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True).stdout.strip()
    import numba

    from bench.common import cpu_model

    print(f"# cpu: {cpu_model()}; python {platform.python_version()}; numba {numba.__version__}; base {base_sha}; "
          f"new {new_sha} (+ working tree); rounds {args.rounds}; load {os.getloadavg()[0]:.2f}; command: "
          f"{' '.join([Path(sys.argv[0]).name] + sys.argv[1:])}")
    sides = {"base": Side(args.base, args.data, args.quick, args.relabel), "new": Side(REPO, args.data, args.quick, args.relabel)}
    print("| task | n | base /s | new /s | new/base (median of rounds) | same, CPU time | guesses base / new |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for task in args.tasks.split(","):
        times = {"base": [], "new": []}
        cpus = {"base": [], "new": []}
        last = {}
        for _ in range(args.rounds):
            for name in ("base", "new"):
                last[name] = sides[name].run(task)
                times[name].append(last[name]["seconds"])
                cpus[name].append(last[name]["cpu_s"])
        check(task, last["base"], last["new"], args.data, args.quick, args.relabel)
        n = last["new"]["n"]
        ratios = [b / a for b, a in zip(times["base"], times["new"])]
        cpu_ratios = [b / a for b, a in zip(cpus["base"], cpus["new"])]
        guesses = (f"{last['base']['guesses']:.1f} / {last['new']['guesses']:.1f}" if "guesses" in last["new"] else "-")
        print(f"| {task} | {n:,} | {n / statistics.median(times['base']):,.0f} | {n / statistics.median(times['new']):,.0f} | "
              f"{statistics.median(ratios):.2f}x | {statistics.median(cpu_ratios):.2f}x | {guesses} |", flush=True)
    for side in sides.values():
        side.close()
    print(f"# load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

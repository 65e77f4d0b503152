"""How often `reports history` names a step change that is not there, and how often it finds one that is.

Synthetic histories (the run directories of ``tests/test_reports_helpers``: 60 cases a commit, two
chunks, log-normal times), each commit's times moved as a whole by a load factor drawn from what the
shared 2-core VM showed between back-to-back runs of the same code (mostly within 5 %, one in
three or so 1.3-1.4x slower: bench/README.md). A flat history has no step: any step named is false.
A stepped one multiplies solve_s by ``--step`` from commit 5 on: found when a step is named there.

    python bench/history_steps.py                 # 20 histories of 8 commits, steps of 1.3x, 1.5x, 2x
    python bench/history_steps.py --histories 50 --steps 1.5
"""

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from reports.history import history_of, load_history  # noqa: E402
from test_reports_history import write_history  # noqa: E402

LOADS = (0.95, 1.0, 1.0, 1.03, 1.05, 1.3, 1.4)  # whole-run load factors seen on the shared VM


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--histories", type=int, default=20)
    parser.add_argument("--commits", type=int, default=8)
    parser.add_argument("--steps", type=float, nargs="+", default=[1.3, 1.5, 2.0])
    args = parser.parse_args(argv)
    at = args.commits // 2
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    false, series = 0, 0
    found = {step: 0 for step in args.steps}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.histories):
            loads = list(np.random.default_rng(seed).choice(LOADS, size=args.commits))
            flat = history_of(load_history([write_history(Path(tmp) / f"flat{seed}", loads)]))
            false += sum(len(s.steps) for s in flat.series)
            series += len(flat.series)
            for step in args.steps:
                root = write_history(Path(tmp) / f"step{seed}-{step}", loads[:at] + [x * step for x in loads[at:]])
                solve = next(s for s in history_of(load_history([root])).series if s.phase == "solve_s")
                found[step] += any(s.commit.sha.startswith(f"{at:02x}") for s in solve.steps)
                shutil.rmtree(root)
    print(f"flat histories: {false} false step(s) in {series} series ({args.histories} histories of "
          f"{args.commits} commits, 4 phases each)")
    for step, hits in found.items():
        print(f"a {step:g}x step of solve_s at commit {at + 1}: named in {hits} of {args.histories}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

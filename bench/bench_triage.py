"""Groups per real bug, and what shrinking and confirming cost, on the fake targets with one planted bug.

Every fake in ``tests/fake_targets`` named below has exactly one bug (its docstring says which), so a
run of it should give exactly one group: the figure printed is groups per real bug (the goal is 1.0).
For each fake: ``fuzz run -n N`` (fresh run directory and corpus), then, from its manifest: the
groups and their signatures, the wall time of the cases and of shrinking and confirming (the goal:
triage no longer than the cases), and whether each reproducer keeps its case's class (a unique
puzzle stays unique, several solutions stay several, malformed stays malformed).

Run: python bench/bench_triage.py [-n 200] [--seed 1] [--workers 2] [--only NAME,NAME] [--hogs N] [--tree DIR]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from bench.common import machine  # noqa: E402
from fake_targets import spec, start_hogs, stop_hogs  # noqa: E402

# fake -> its options (a short limit where the bug is a hang); each has one real bug
ONE_BUG = {
    "changes_given": [], "invalid_on_multiple": [], "non_unique_create": [], "few_blanks": [],
    "same_puzzle": [], "errors_on_stdout": [], "crash_no_final_newline": [], "keeps_out_of_range": [],
    "wrong_unique": [], "rejects_with_exit_0": [], "hangs_near_empty": ["--timeout", "1"],
    "checker_no_box": ["--mode", "check"],
}


def run_one(name, options, n, seed, workers, root, tree=ROOT):
    out, corpus = root / name / "run", root / name / "corpus"
    env = dict(os.environ, PYTHONPATH=str(tree))
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "fuzz", "run", "-n", str(n), "--seed", str(seed), "--workers",
                           str(workers), "--target", spec(name), "--out", str(out), "--corpus", str(corpus),
                           "--no-progress", *options], capture_output=True, text=True, env=env, cwd=root)
    wall = time.monotonic() - start
    manifest = json.loads((out / "manifest.json").read_text())
    groups = (manifest.get("fuzz") or {}).get("groups", [])
    kept = sum(_keeps_class(group) for group in groups)
    return {"name": name, "exit": done.returncode, "groups": len(groups), "cases_s": manifest["wall_s"],
            "triage_s": (manifest.get("fuzz") or {}).get("triage_s", 0.0), "wall_s": wall, "kept": kept,
            "signatures": [group["signature"] for group in groups],
            "families": [len(group.get("families") or []) for group in groups]}


def _keeps_class(group):
    """Whether a saved reproducer has the class of the case it was shrunk from (from its case.json)."""
    from fuzz.cases import answer_class, from_text

    meta = json.loads((Path(group["folder"]) / "case.json").read_text())
    if meta["command"] != "solve" or meta["family"] == "roundtrip":
        return True
    now = from_text(meta["family"], "solve", (Path(group["folder"]) / "input.txt").read_bytes(), side=meta["side"])
    was = from_text(meta["family"], "solve", _original_text(group, meta), side=meta["side"])
    return answer_class(now) == answer_class(was)


def _original_text(group, meta):
    """The text of the case the reproducer was shrunk from, rebuilt from the run's seed and index."""
    from fuzz.config import FuzzConfig
    from fuzz.tasks import case_of

    config = FuzzConfig.from_manifest(json.loads((Path(group["folder"]).parents[3] / "manifest.json").read_text())["config"])
    return case_of(config.cases(), meta["case"] // config.stride).text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", help="comma-separated fake names")
    parser.add_argument("--hogs", type=int, default=0, help="CPU hogs per core, each in a session of its own, "
                        "for the whole run (a fully loaded machine: verdicts and groups must not move)")
    parser.add_argument("--tree", default=str(ROOT), help="the checkout whose fuzz runs (a git worktree of an "
                        "older commit, to compare; the fakes are always this tree's)")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(ONE_BUG)
    print(f"# {machine()}; load average {os.getloadavg()[0]:.1f}; -n {args.n} --seed {args.seed} "
          f"--workers {args.workers}")
    print(f"{'fake':<24} {'exit':>4} {'groups':>6} {'cases s':>8} {'triage s':>8} {'ratio':>6} {'kept':>5}  signatures")
    rows = []
    hogs = start_hogs(args.hogs) if args.hogs else []
    try:
        _run_all(args, names, rows)
    finally:
        stop_hogs(hogs)
    found = [row for row in rows if row["groups"]]
    print(f"# groups per real bug: {sum(row['groups'] for row in rows) / max(len(found), 1):.2f} "
          f"({sum(row['groups'] for row in rows)} groups for {len(found)} fakes with a bug found, of {len(rows)} run); "
          f"triage / cases: {sum(r['triage_s'] for r in rows) / max(sum(r['cases_s'] for r in rows), 1e-9):.2f}; "
          f"{args.hogs} hogs per core; load average now {os.getloadavg()[0]:.1f}")


def _run_all(args, names, rows):
    with tempfile.TemporaryDirectory(prefix="bench-triage-") as tmp:
        for name in names:
            row = run_one(name, ONE_BUG.get(name, []), args.n, args.seed, args.workers, Path(tmp), Path(args.tree))
            rows.append(row)
            ratio = row["triage_s"] / max(row["cases_s"], 1e-9)
            print(f"{name:<24} {row['exit']:>4} {row['groups']:>6} {row['cases_s']:>8.1f} {row['triage_s']:>8.1f} "
                  f"{ratio:>6.2f} {row['kept']:>3}/{row['groups']:<1}  {' | '.join(row['signatures'])}", flush=True)


if __name__ == "__main__":
    main()

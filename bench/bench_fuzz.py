"""Figures for `fuzz run` on this machine.

- wall time of `fuzz run -n N` against our in-process engines on all cores (goal: 10,000 cases
  under 15 s on 2 cores);
- the harness's own overhead per external call: against our CLI as a subprocess, on one worker,
  (wall time of the case loop - the target's own run time) / cases, next to the target's time.

Run: python bench/bench_fuzz.py [--quick]
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import machine  # noqa: E402


def fuzz(args, out):
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "fuzz", "run", "--seed", "1", "--out", str(out), "--corpus",
                           str(out) + "-corpus", "--no-progress", *args], cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"fuzz failed: {done.stderr.strip().splitlines()[-1:]}")
    records = pq.read_table(out / "parts")
    if done.returncode == 1:
        failed = records.filter(pc.equal(records.column("outcome"), "failed")).to_pylist()
        print(f"  {len(failed)} failed cases, e.g.: " + "; ".join(
            f"#{r['case']} {r['family']}: {r['reason']}" for r in failed[:3]))
    return wall, records, done.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n_engine, n_cli = (2000, 100) if args.quick else (10000, 300)
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        wall, records, rc = fuzz(["-n", str(n_engine)], Path(tmp) / "engine")
        target = pc.sum(records.column("target_s")).as_py()
        print(f"fuzz run -n {n_engine} --target engine (all cores): {wall:.1f} s wall (process start to end), "
              f"{n_engine / wall:,.0f} cases/s; target time {target:.1f} s in all; exit {rc}")
        wall, records, rc = fuzz(["-n", str(n_cli), "--target", "cli", "--workers", "1",
                                  "--chunk-size", str(n_cli)], Path(tmp) / "cli")
        times = records.column("timestamp").to_pylist()
        loop = (max(times) - min(times)).total_seconds()  # first case's end to last case's end
        target = pc.sum(records.column("target_s")).as_py()
        per_case_target = target / len(records)
        per_case_loop = loop / (len(records) - 1)
        print(f"fuzz run -n {n_cli} --target cli (1 worker): {per_case_loop * 1000:.1f} ms per case, of which "
              f"the target {per_case_target * 1000:.1f} ms; harness overhead "
              f"{(per_case_loop - per_case_target) * 1000:.2f} ms per case "
              f"({(per_case_loop - per_case_target) / per_case_loop:.1%}); exit {rc}")


if __name__ == "__main__":
    main()

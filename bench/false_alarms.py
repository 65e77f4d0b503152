"""False alarms and sensitivity of ``reports compare``: the same code compared with itself, many times.

Two modes:

- **pairs** (default): two ``python -m jobs run -n N --seed SEED --workers W`` runs of this checkout,
  compared with the default rule; ``--rounds R`` gives each side R interleaved runs (ABBA order),
  merged as CI merges them; ``--hog`` keeps one CPU busy-loop running during side B of every pair
  (machine load on one side only).
- **ci** (``--ci K``): ``.ci/regression`` itself, K times, against ``--base`` (default HEAD~1: pick two
  commits that do not touch timed code); ``--plant 2`` sets ``JOBS_SOLVE_REPEATS=2`` for the head's
  runs only (a 2x slower solve), to check that the slowdown is still called a regression.

Every verdict that is not 'unchanged' on same code is a false alarm. Prints the load average with
every figure, since the machine is shared.

    python3 bench/false_alarms.py                        # 20 single-run pairs
    python3 bench/false_alarms.py --pairs 20 --hog       # 20 pairs, side B under a CPU hog
    python3 bench/false_alarms.py --ci 10                # .ci/regression 10 times, base HEAD~1
    python3 bench/false_alarms.py --ci 10 --plant 2      # the same with a planted 2x slower solve
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from reports import verdict  # noqa: E402
from reports.cli import fraction  # noqa: E402
from reports.load import load_run  # noqa: E402


def loadavg():
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def batch_run(out, *, n, seed, workers, extra=()):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    command = [sys.executable, "-m", "jobs", "run", "-n", str(n), "--seed", str(seed), "--workers", str(workers),
               "--no-progress", "--out", str(out), *extra]
    subprocess.run(command, check=True, env=env, cwd=out.parent, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_hog():
    """One busy-loop process (one core's worth of load); stop it with stop_hog."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def stop_hog(hog):
    if hog is not None:
        hog.kill()
        hog.wait()


def describe(metric):
    if not metric.ratio:
        return f"{metric.name} {metric.verdict}"
    return (f"{metric.name} {metric.verdict} (ratio {metric.ratio.point:.3f} "
            f"[{metric.ratio.low:.3f}, {metric.ratio.high:.3f}], spread x{metric.spread:.2f})")


class Tally:
    def __init__(self):
        self.verdicts, self.lines, self.ratios = Counter(), [], {}
        self.alarmed = self.unreliable = self.regressed = 0

    def add(self, label, comparison, planted=None):
        alarmed = False
        for metric in comparison.metrics:
            self.verdicts[metric.verdict] += 1
            if metric.ratio:
                self.ratios.setdefault(metric.name, []).append(metric.ratio.point)
            if metric.verdict != verdict.UNCHANGED and metric.phase != planted:
                alarmed = True
                self.lines.append(f"{label}: {describe(metric)}")
        planted_hit = planted and any(m.phase == planted and m.verdict == verdict.REGRESSION for m in comparison.metrics)
        self.regressed += bool(planted_hit)
        self.alarmed += alarmed
        self.unreliable += not comparison.timing_reliable
        if comparison.failures:
            self.lines.append(f"{label}: {len(comparison.failures)} failed case(s)")
        aa = ""
        if comparison.aa is not None:
            aa = "; A/A " + ("unchanged" if comparison.aa.reliable else "CHANGED: " + ", ".join(
                describe(m) for m in comparison.aa.flagged))
        print(f"{label}: " + ", ".join(f"{m.name} {m.ratio.point:.3f} {m.verdict}" if m.ratio else m.name
                                       for m in comparison.metrics) + aa + f"; load {loadavg()}", flush=True)
        return planted_hit

    def report(self, total, planted):
        print()
        for name, values in self.ratios.items():
            print(f"  {name:<28} ratio of medians: min {min(values):.3f}, max {max(values):.3f}")
        print("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(self.verdicts.items())))
        if planted:
            print(f"planted 2x slower {planted}: called a regression in {self.regressed} of {total}")
        flagged = sum(1 for line in self.lines if "failed case" not in line)
        print(f"false alarms: {flagged} verdicts not 'unchanged' on same-code metrics; {self.alarmed} of {total} "
              f"comparisons had at least one; timing marked unreliable (A/A) in {self.unreliable} of {total}")
        for line in self.lines:
            print("  " + line)


def pairs_mode(args, work):
    tally = Tally()
    for pair in range(args.pairs):
        a, b = work / f"pair{pair:02d}-a", work / f"pair{pair:02d}-b"
        for round_ in range(args.rounds):
            order = (a, b) if (pair + round_) % 2 == 0 else (b, a)  # ABBA over rounds, alternating over pairs
            for side in order:
                out = side / f"round{round_ + 1:02d}" if args.rounds > 1 else side
                out.parent.mkdir(parents=True, exist_ok=True)
                hog = start_hog() if args.hog and side == b else None
                try:
                    batch_run(out, n=args.n, seed=args.seed, workers=args.workers)
                finally:
                    stop_hog(hog)
        comparison = verdict.compare(load_run(a), load_run(b), threshold=args.threshold)
        tally.add(f"pair {pair + 1}/{args.pairs}", comparison)
    print(f"\n{args.pairs} pairs of {args.rounds} x `jobs run -n {args.n} --seed {args.seed} --workers {args.workers}`"
          f"{', side B under a CPU hog' if args.hog else ''}, threshold {args.threshold:g}, runs in {work}")
    tally.report(args.pairs, None)


def ci_mode(args, work):
    tally = Tally()
    env = dict(os.environ, PYTHON=sys.executable, BASE_REF=args.base)
    if args.plant:
        env["REGRESSION_HEAD_ENV"] = f"JOBS_SOLVE_REPEATS={args.plant}"
    durations = []
    for number in range(args.ci):
        runs = work / f"ci{number + 1:02d}"
        started = time.perf_counter()
        result = subprocess.run([str(REPO / ".ci" / "regression")], env=dict(env, RUNS_DIR=str(runs)), cwd=REPO,
                                capture_output=True, text=True)
        durations.append(time.perf_counter() - started)
        (runs / "stderr.txt").write_text(result.stderr)
        if not (runs / "base").is_dir() or not (runs / "head").is_dir():
            print(f"ci {number + 1}: no comparison (exit {result.returncode}): {result.stderr.strip()[-300:]}")
            continue
        comparison = verdict.compare(load_run(runs / "base"), load_run(runs / "head"), threshold=args.threshold)
        tally.add(f"ci {number + 1}/{args.ci} ({durations[-1]:.0f} s, exit {result.returncode})", comparison,
                  planted="solve_s" if args.plant else None)
    print(f"\n{args.ci} x `.ci/regression` (BASE_REF={args.base}"
          f"{f', REGRESSION_HEAD_ENV=JOBS_SOLVE_REPEATS={args.plant}' if args.plant else ''}), threshold "
          f"{args.threshold:g}; each took {min(durations):.0f}..{max(durations):.0f} s; runs in {work}")
    tally.report(args.ci, "solve_s" if args.plant else None)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("-n", type=int, default=200, help="puzzles per run (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1,
                        help="runs per side of a pair, interleaved (ABBA) and merged, as .ci/regression does (default 1)")
    parser.add_argument("--hog", action="store_true", help="a CPU busy-loop during side B of every pair")
    parser.add_argument("--ci", type=int, metavar="K", help="run .ci/regression K times instead of pairs")
    parser.add_argument("--base", default="HEAD~1", help="--ci: the base commit (default HEAD~1)")
    parser.add_argument("--plant", type=int, metavar="K", help="--ci: the head's solve done K times (JOBS_SOLVE_REPEATS)")
    parser.add_argument("--threshold", type=fraction, default=verdict.THRESHOLD)
    parser.add_argument("--keep", help="keep the runs in this directory (default: a temporary one)")
    args = parser.parse_args(argv)

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="false-alarms-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    print(f"load average {loadavg()} at the start", flush=True)
    (ci_mode if args.ci else pairs_mode)(args, work)
    print(f"{time.perf_counter() - started:.0f} s in all; load average {loadavg()} at the end")
    (work / "args.json").write_text(json.dumps(vars(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""False-alarm rate of ``reports compare``: compare two runs of the same code on this machine, many times.

Each pair is two ``python -m jobs run -n N --seed SEED --workers W`` runs of the checkout this script
sits in (the order within a pair alternates), compared with the default verdict rule. Every verdict
that is not 'unchanged' is a false alarm, since nothing changed between the two runs.

    python3 bench/false_alarms.py                 # 20 pairs of -n 200 runs (about 2-3 minutes on 2 cores)
    python3 bench/false_alarms.py --pairs 5 -n 100 --threshold 5%
    python3 bench/false_alarms.py --rounds 2      # each side two interleaved runs, merged (the CI design)
"""

import argparse
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


def batch_run(out, *, n, seed, workers, extra=()):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    command = [sys.executable, "-m", "jobs", "run", "-n", str(n), "--seed", str(seed), "--workers", str(workers),
               "--no-progress", "--out", str(out), *extra]
    subprocess.run(command, check=True, env=env, cwd=out.parent, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("-n", type=int, default=200, help="puzzles per run (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1,
                        help="runs per side of a pair, interleaved and merged, as .ci/regression does (default 1)")
    parser.add_argument("--threshold", type=fraction, default=verdict.THRESHOLD)
    parser.add_argument("--keep", help="keep the runs in this directory (default: a temporary one)")
    args = parser.parse_args(argv)

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="false-alarms-"))
    work.mkdir(parents=True, exist_ok=True)
    verdicts, alarms, pairs_alarmed, ratios = Counter(), [], 0, {}
    started = time.perf_counter()
    for pair in range(args.pairs):
        a, b = work / f"pair{pair:02d}-a", work / f"pair{pair:02d}-b"
        for round_ in range(args.rounds):
            for side in ((a, b) if (pair + round_) % 2 == 0 else (b, a)):
                out = side / f"round{round_ + 1}" if args.rounds > 1 else side
                out.parent.mkdir(parents=True, exist_ok=True)
                batch_run(out, n=args.n, seed=args.seed, workers=args.workers)
        comparison = verdict.compare(load_run(a), load_run(b), threshold=args.threshold)
        alarmed = False
        for metric in comparison.metrics:
            verdicts[metric.verdict] += 1
            if metric.ratio:
                ratios.setdefault(metric.name, []).append(metric.ratio.point)
            if metric.verdict != verdict.UNCHANGED:
                alarmed = True
                alarms.append(f"pair {pair}: {metric.name} {metric.verdict} "
                              f"(ratio {metric.ratio.point:.3f} [{metric.ratio.low:.3f}, {metric.ratio.high:.3f}])"
                              if metric.ratio else f"pair {pair}: {metric.name} {metric.verdict}")
        pairs_alarmed += alarmed
        if comparison.failures:
            alarms.append(f"pair {pair}: {len(comparison.failures)} failed case(s)")
        print(f"pair {pair + 1}/{args.pairs}: " + ", ".join(f"{m.name} {m.ratio.point:.3f}" if m.ratio else m.name
                                                            for m in comparison.metrics), flush=True)
    total = sum(verdicts.values())
    flagged = total - verdicts[verdict.UNCHANGED]
    print()
    print(f"{args.pairs} pairs of {args.rounds} x `jobs run -n {args.n} --seed {args.seed} --workers {args.workers}`, "
          f"threshold {args.threshold:g}, {time.perf_counter() - started:.0f} s, runs in {work}")
    for name, values in ratios.items():
        print(f"  {name:<28} ratio of medians: min {min(values):.3f}, max {max(values):.3f}")
    print("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
    print(f"false alarms: {flagged} of {total} verdicts not 'unchanged' ({flagged / max(total, 1):.1%}); "
          f"{pairs_alarmed} of {args.pairs} pairs had at least one")
    for line in alarms:
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

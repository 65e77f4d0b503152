"""Where the run-to-run noise of a timing comparison comes from, on this machine.

Runs ``python -m jobs run -n N --seed 1 --workers 2`` of this checkout K times back to back (after
one discarded warm-up run; ``--hog`` keeps a CPU busy-loop running during every other run), or reads
run directories already made (``--runs DIR...``), and prints per timed phase:

- the medians of the runs (rounds): their spread (largest / smallest) and relative sd, beside the
  half-width of the case-bootstrap 95 % interval of one run: the interval the old verdict used;
- the order effect: median of the odd runs over the even ones (what going first or second costs);
- the start-up effect: first chunk of each worker (run while the other worker starts) over the rest;
- with ``--hog``: the runs under the hog over the others.

    PYTHONPATH=. python3 bench/regression_noise.py -k 16
    PYTHONPATH=. python3 bench/regression_noise.py -k 12 --hog
    PYTHONPATH=. python3 bench/regression_noise.py --runs /tmp/rounds/r*   # runs made before
"""

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.false_alarms import batch_run, loadavg, start_hog, stop_hog  # noqa: E402
from reports import stats  # noqa: E402
from reports.load import load_run  # noqa: E402

PHASES = ("create_s", "unique_s", "solve_s")


def measure(runs, hogged):
    frames = [load_run(path).records for path in runs]
    frames = [f[f["outcome"].astype("object") != "rejected"] for f in frames]
    for phase in PHASES:
        medians = np.array([np.median(f[phase]) for f in frames])
        widths = [(r.high - r.low) / 2 for r in (stats.ratio_of_medians(f[phase].to_numpy(float), f[phase].to_numpy(float),
                                                                      rng=stats.metric_rng(0, phase), resamples=500)
                                                 for f in frames)]
        first = [np.median(f[phase][f["chunk"] < 2]) / np.median(f[phase][f["chunk"] >= 2]) for f in frames]
        line = (f"{phase:<9} run medians {medians.min() * 1e6:.1f}..{medians.max() * 1e6:.1f} us: spread "
                f"x{medians.max() / medians.min():.2f}, sd {medians.std() / medians.mean():.1%}; case-bootstrap "
                f"interval of one run +-{np.median(widths):.1%}; odd/even runs {np.median(medians[0::2]) / np.median(medians[1::2]):.3f}; "
                f"first chunks/rest {np.median(first):.3f}")
        if any(hogged):
            mask = np.array(hogged)
            line += f"; under the hog/without {np.median(medians[mask]) / np.median(medians[~mask]):.3f}"
        print(line)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-k", type=int, default=16, help="runs (default 16)")
    parser.add_argument("-n", type=int, default=200)
    parser.add_argument("--hog", action="store_true", help="a CPU busy-loop during every other run")
    parser.add_argument("--runs", nargs="+", help="analyse these run directories instead of running")
    parser.add_argument("--keep", help="keep the runs here")
    args = parser.parse_args(argv)
    print(f"load average {loadavg()} at the start", flush=True)
    if args.runs:
        runs, hogged = [Path(p) for p in args.runs], [False] * len(args.runs)
    else:
        work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="noise-"))
        work.mkdir(parents=True, exist_ok=True)
        batch_run(work / "warmup", n=args.n, seed=1, workers=2)
        runs, hogged = [], []
        for number in range(args.k):
            hog = start_hog() if args.hog and number % 2 else None
            try:
                batch_run(work / f"r{number + 1:02d}", n=args.n, seed=1, workers=2)
            finally:
                stop_hog(hog)
            runs.append(work / f"r{number + 1:02d}")
            hogged.append(hog is not None)
    print(f"{len(runs)} runs of `jobs run -n {args.n} --seed 1 --workers 2`; load average {loadavg()} at the end")
    measure(runs, hogged)
    return 0


if __name__ == "__main__":
    sys.exit(main())

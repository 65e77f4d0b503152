"""Does machine load change a hang verdict? The figure behind the rule in ``fuzz.targets``.

A correct program that computes ``--busy`` seconds of CPU (default 2) before every answer
(tests/fake_targets/busy_correct.py) is run ``--runs`` times with ``--timeout`` (default 3) under
0, 5 and 10 CPU hogs per core, each hog in a session of its own (so no group kill of a case reaches
it) and killed by its pid afterwards. Beside it, two real hangs under the same load: a program that
spins forever and one that sleeps forever (limit 1 s). For each call: the verdict of the rule
(``ok`` or the rule that stopped it), its wall, CPU and blocked seconds, and what the wall-clock
rule it replaced would have said from the same wall time (a second try at 4 limits after the
first: ``ok``, ``retried`` or ``hang``; a program that never answers is a hang by both). The load
average is printed with every level.

Run: python bench/bench_hang_rule.py [--runs 3] [--levels 0 5 10] [--timeout 3] [--busy 2]
"""

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from bench.common import machine  # noqa: E402
from fake_targets import argv, start_hogs, stop_hogs  # noqa: E402
from fuzz.oracles import judge_contained  # noqa: E402
from fuzz.targets import run_contained  # noqa: E402

SPIN = "while True: pass"
OLD_RETRY_FACTOR = 4  # the wall-clock rule this one replaced: a second try at 4 limits
HANGS = {"spins": SPIN, "sleeps": "import time; time.sleep(3600)"}


def loadavg():
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def puzzle_text():
    from sudoku import create, render

    return render(create(3, seed=5), "grid").encode()


def old_verdict(result):
    """What the replaced wall-clock rule would have said of a call that took ``result.seconds`` (a
    call that never answers is a hang by either rule)."""
    if result.timed_out:
        return "hang"
    if result.seconds <= result.limit:
        return "ok"
    return "retried" if result.seconds <= result.limit * OLD_RETRY_FACTOR else "hang"


def row(name, result):
    verdict = judge_contained(result)
    said = f"hang:{result.hang}" if result.timed_out else ("ok, slow" if "slow" in verdict.notes else "ok")
    return (f"| {name} | {result.limit:g} | {said} | {result.seconds:.1f} | {result.cpu_seconds:.2f} | "
            f"{result.blocked_seconds:.1f} | {old_verdict(result)} |")


def level(per_core, args, text):
    """The table rows of one load level."""
    env = dict(os.environ, FAKE_BUSY_S=str(args.busy))
    hogs = start_hogs(per_core)
    try:
        rows = [row("busy_correct", run_contained(argv("busy_correct") + ["solve"], text, timeout=args.timeout,
                                                  env=env)) for _ in range(args.runs)]
        rows += [row(name, run_contained([sys.executable, "-S", "-c", code], b"", timeout=1))
                 for name, code in HANGS.items()]
        return rows, loadavg()
    finally:
        stop_hogs(hogs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="calls of the correct program per level (default 3)")
    parser.add_argument("--levels", type=int, nargs="+", default=[0, 5, 10], help="hogs per core (default 0 5 10)")
    parser.add_argument("--timeout", type=float, default=3.0, help="the correct program's limit (default 3)")
    parser.add_argument("--busy", type=float, default=2.0, help="its CPU seconds per answer (default 2)")
    args = parser.parse_args()
    text = puzzle_text()
    print(f"machine: {machine()}; load before: {loadavg()}")
    for per_core in args.levels:
        rows, load = level(per_core, args, text)
        hogs = per_core * (os.cpu_count() or 1)
        print(f"\n{per_core} hogs per core ({hogs} hogs), load average at the end: {load}\n")
        print("| program | limit s | verdict | wall s | cpu s | blocked s | wall-clock rule |")
        print("|---|---|---|---|---|---|---|")
        print("\n".join(rows))


if __name__ == "__main__":
    main()

"""The hostile campaign (issue 46, item 4): the tries of the third attack, kept as a script.

Three parts, each a module of its own:

- ``files`` (``hostile_files.py``): a link, a folder, a FIFO in every file a tool reads or writes (found
  by making each call on a pristine copy first), a file in every folder;
- ``disk`` (``hostile_disk.py``): a full disk at each writer: stdout to /dev/full, files on a tmpfs
  filled to a few sizes (``ulimit -f`` when no tmpfs can be mounted);
- ``signals`` (``hostile_signals.py``): SIGINT and SIGTERM at each phase of a fuzz run (pre-flight,
  cases, shrinking and confirming, saving), with numba's cache warm and cold.

Prints one line per try (``held`` or ``FAIL`` with what did not hold), then a table per part and the
load average; exit 0 when every try held. ``docs/hostile.md`` has the table of tries and what holds.

Run: python bench/hostile_campaign.py [--quick] [--only files,disk,signals] [--jobs N] [--seed N] [--keep] [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import hostile_disk
import hostile_files
import hostile_signals
from hostile_tools import Try, load

PARTS = ("files", "disk", "signals")


def table(tries: list[Try], seconds: dict[str, float]) -> list[str]:
    """Per part: tries, held, failed, wall seconds."""
    counts: dict[str, Counter[str]] = {}
    for one in tries:
        counts.setdefault(one.part, Counter())["held" if not one.problems else "FAIL"] += 1
    lines = ["| part | tries | held | failed | wall |", "|---|---|---|---|---|"]
    for part, count in counts.items():
        lines.append(f"| {part} | {count['held'] + count['FAIL']} | {count['held']} | {count['FAIL']} | "
                     f"{seconds[part]:.0f} s |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer tries: links only, the warm cache only")
    parser.add_argument("--only", default=",".join(PARTS), help=f"parts to run, of {', '.join(PARTS)}")
    parser.add_argument("--target", default="lenient_reader",
                        help="the fake program fuzzed (tests/fake_targets/NAME.py; one whose bugs save samples)")
    parser.add_argument("--out", help="the campaign's folder (default: a temporary one, removed unless --keep "
                        "or a try failed)")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--seed", type=int, default=1, help="the signals' moments (delays after each phase begins)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="tries at a time (default: one a core)")
    args = parser.parse_args()
    if not sys.platform.startswith("linux"):
        raise SystemExit("hostile_campaign reads /proc: Linux only")
    parts = [part.strip() for part in args.only.split(",") if part.strip()]
    if unknown := set(parts) - set(PARTS):
        raise SystemExit(f"--only: no part {', '.join(sorted(unknown))} (parts: {', '.join(PARTS)})")
    work = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="hostile-campaign-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    print(f"hostile campaign: {', '.join(parts)}{' (quick)' if args.quick else ''}, in {work}; load {load()}",
          flush=True)
    tries: list[Try] = []
    seconds: dict[str, float] = {}

    def report(one: Try) -> None:
        print(one.line(), flush=True)

    for part in parts:
        begun = time.monotonic()
        if part == "files":
            print("files: making the fixtures", flush=True)
            hostile_files.make_fixtures(work / "fixtures", work / "calls", args.target)
            tries += hostile_files.campaign(work / "fixtures", work / "files", quick=args.quick,
                                            target_name=args.target, jobs=args.jobs, report=report)
        elif part == "disk":
            tries += hostile_disk.campaign(work / "disk", quick=args.quick, target_name=args.target, jobs=args.jobs,
                                           report=report)
        else:
            tries += hostile_signals.campaign(work / "signals", quick=args.quick, report=report, seed=args.seed)
        seconds[part] = time.monotonic() - begun
    failed = [one for one in tries if one.problems]
    print("\n".join(["", *table(tries, seconds), ""]))
    print(f"{'PASS' if not failed else 'FAIL'}: {len(tries)} tries, {len(failed)} failed, "
          f"{time.monotonic() - started:.0f} s, load {load()}", flush=True)
    if not args.out and not args.keep and not failed:
        shutil.rmtree(work, ignore_errors=True)
    elif failed:
        print(f"kept for a look: {work}")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())

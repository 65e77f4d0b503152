"""A full disk at each writer (issue 46, item 4).

- stdout: every command that prints, with stdout on /dev/full: exit 3 and one line, ``PROG: cannot
  write to stdout: No space left on device``, whatever the command did before (a run it finished
  stays as it was).
- files: each writer of files (a batch run, a fuzz run, a fuzz run's shared corpus, the report files,
  feedback folders, the autograder zip) writes into a tmpfs filled to leave ``room`` bytes (a few
  sizes, so the failure comes at different writes); when no tmpfs can be mounted, the file size
  limit (``ulimit -f``) of the call is ``room`` instead. It holds when the call ended with exit 3 and
  a line naming the file (or did as with room to spare, when it fitted), left no temporary, kept the
  old report whole, and left no run ``complete`` that could not save.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from hostile_tools import Call, Try, run, target

FULL = "No space left on device"
TOO_BIG = "File too large"
OLD = "the old report\n"


@dataclass
class Writer:
    """A call that writes into ``TINY`` (its argument, replaced by the small disk's folder)."""

    name: str
    tool: str
    args: list[object]
    run: str | None = None  # the run directory it makes or fills, relative to TINY's parent folder
    report: str | None = None  # a report file it replaces (an old one is put there first)
    quick: bool = True
    limit: bool = False  # every file it writes is in TINY: also tried with ``ulimit -f``


def writers(prog: str) -> list[Writer]:
    fuzz = ["-n", 8, "--seed", 3, "--workers", 1, "--target", prog, "--no-progress"]
    return [
        Writer("sudoku-jobs run", "sudoku-jobs", ["run", "-n", 400, "--seed", 1, "--workers", 1, "--chunk-size", 50,
                                                  "--out", "TINY/run", "--no-progress"], run="TINY/run", limit=True),
        Writer("fuzz run (its run directory)", "fuzz", ["run", *fuzz, "--out", "TINY/run", "--corpus", "TINY/corpus"],
               run="TINY/run", limit=True),
        Writer("fuzz run (the shared corpus)", "fuzz", ["run", *fuzz, "--out", "fresh", "--corpus", "TINY/corpus"],
               run="fresh"),
        Writer("fuzz run --md", "fuzz", ["run", *fuzz, "--out", "fresh", "--corpus", "shared", "--md", "TINY/s.md"],
               report="TINY/s.md", quick=False),  # the run saved whole: complete, whatever became of --md
        Writer("reports show --md", "reports", ["show", "run", "-q", "--md", "TINY/r.md"], report="TINY/r.md"),
        Writer("reports show --html", "reports", ["show", "run", "-q", "--html", "TINY/r.html"],
               report="TINY/r.html", quick=False),
        Writer("reports feedback", "reports", ["feedback", "run", "-q", "--out", "TINY/fb"]),
        Writer("sudoku-jobs show --md", "sudoku-jobs", ["show", "batch/run", "--md", "TINY/show.md"],
               report="TINY/show.md", quick=False),
        Writer("fuzz autograder", "fuzz", ["autograder", "--out", "TINY/ag.zip", "-n", 10], report="TINY/ag.zip",
               quick=False),
    ]


def printers(prog: str) -> list[tuple[str, str, list[object]]]:
    """(name, tool, args) of calls that print on stdout, made in the campaign's base folder (``sudoku-jobs
    run`` says its line on stderr: nothing of it goes to stdout)."""
    return [
        ("sudoku create -n 200", "sudoku", ["create", "-n", 200, "--seed", 1]),
        ("sudoku solve", "sudoku", ["solve", "puzzle.txt"]),
        ("sudoku-jobs show", "sudoku-jobs", ["show", "batch/run"]),
        ("sudoku-jobs show --json", "sudoku-jobs", ["show", "batch/run", "--json"]),
        ("reports show", "reports", ["show", "run"]),
        ("reports show --json", "reports", ["show", "run", "--json"]),
        ("reports show --md -", "reports", ["show", "run", "--md", "-"]),
        ("reports compare", "reports", ["compare", "batch/run", "batch/run"]),
        ("reports feedback", "reports", ["feedback", "run", "--out", "fb-printed"]),
        ("fuzz replay --json", "fuzz", ["replay", "run/corpus", "--target", prog, "--json"]),
        ("fuzz run --json", "fuzz", ["run", "-n", 6, "--seed", 3, "--workers", 1, "--target", prog, "--out",
                                     "printed-fuzz", "--corpus", "shared-printed", "--no-progress", "--json"]),
    ]


# --- a small disk -------------------------------------------------------------------------------------------

SIZE = 1 << 20  # the tmpfs's bytes


def mount_small(folder: Path) -> bool:
    """A tmpfs of SIZE bytes at ``folder``; False when the system refuses (not root, a container)."""
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(folder)],
                          capture_output=True, text=True)
    return done.returncode == 0


def unmount(folder: Path) -> None:
    subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def fill(folder: Path, room: int) -> None:
    """Fill the small disk at ``folder`` but for ``room`` bytes (none: written to until it is full)."""
    free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize
    with open(folder / ".filler", "wb", buffering=0) as out:
        out.write(b"\0" * max(0, free - room))
        while not room:
            try:
                out.write(b"\0" * 512)
            except OSError:
                break


def _limit(room: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (room, room))
    return apply


# --- the tries ----------------------------------------------------------------------------------------------

def temporaries(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if ".tmp" in p.name or p.name.endswith(".old"))


def write_try(writer: Writer, base: Path, place: Path, room: int, small: bool, pristine: int | None) -> Try:
    """One writer with ``room`` bytes left (a tmpfs when ``small``, else ``ulimit -f``)."""
    shutil.copytree(base, place, symlinks=True)
    tiny = place / "TINY"
    mounted = small and mount_small(tiny)
    try:
        tiny.mkdir(exist_ok=True)
        if writer.report:
            (place / writer.report).write_text(OLD)
        if mounted:
            fill(tiny, room)
        ran = run(writer.tool, writer.args, cwd=place, scratch=place / "calls",
                  preexec=None if mounted else _limit(room))
        return _judge_write(writer, ran, place, room, mounted, pristine)
    finally:
        if mounted:
            unmount(tiny)


def _judge_write(writer: Writer, ran, place: Path, room: int, mounted: bool, pristine: int | None) -> Try:
    problems = ran.faults()
    how = f"{room // 1024} KiB left on a tmpfs" if mounted else f"ulimit -f of {room // 1024} KiB"
    words = FULL if mounted else TOO_BIG
    said = ran.last()
    fitted = ran.code == pristine and words not in ran.stderr
    if not fitted:
        if ran.code != 3:
            problems.append(f"exit {ran.code}, wanted 3 (an I/O error)")
        if words not in said or "cannot write" not in said:
            problems.append(f"the last line does not name the file and '{words}': {said}")
    left = temporaries(place / "TINY")
    if left:
        problems.append(f"temporaries left: {', '.join(left[:4])}")
    if writer.report and not fitted:
        report = place / writer.report
        if report.exists() and report.read_bytes() != OLD.encode():
            problems.append(f"{writer.report}: the old report not kept whole ({report.stat().st_size} bytes now)")
    status = None
    if writer.run and (place / writer.run / "manifest.json").is_file():
        try:
            status = json.loads((place / writer.run / "manifest.json").read_text()).get("status")
        except ValueError:
            status = "unreadable"
        if status == "complete" and not fitted:
            problems.append("the manifest says complete, yet the run could not save")
    outcome = ("fitted: exit as with room" if fitted else f"exit {ran.code}: {said[:150]}") + \
        (f"; manifest {status}" if status else "")
    return Try("disk", f"{writer.name}, {how}", outcome, problems)


def print_try(name: str, tool: str, args: list[object], base: Path, place: Path) -> Try:
    """A call printing to /dev/full."""
    shutil.copytree(base, place, symlinks=True)
    with open("/dev/full", "wb") as full:
        call = Call(tool, args, cwd=place, scratch=place / "calls", stdout=full)
        ran = call.finish()
    problems = ran.faults()
    wanted = f"{'sudoku-jobs' if tool == 'sudoku-jobs' else tool}: cannot write to stdout: {FULL}"
    if ran.code != 3:
        problems.append(f"exit {ran.code}, wanted 3")
    if ran.last() != wanted:
        problems.append(f"the last line is not '{wanted}': {ran.last()}")
    return Try("disk", f"{name} > /dev/full", f"exit {ran.code}: {ran.last()[:120]}", problems)


def make_base(base: Path, prog: str) -> None:
    """What the calls read: a fuzz run with reproducers, a batch run, a puzzle, a filled shared corpus."""
    base.mkdir(parents=True)
    ran = run("fuzz", ["run", "-n", 8, "--seed", 3, "--workers", 1, "--target", prog, "--out", "base/run", "--corpus",
                       "shared", "--no-progress"], cwd=base.parent, scratch=base.parent / "calls", idle=120)
    if ran.code != 1 or ran.faults():
        raise SystemExit(f"disk: the base fuzz run failed: exit {ran.code}: {ran.stderr[-2000:]}")
    shutil.move(str(base.parent / "shared"), str(base / "shared"))
    ran = run("sudoku-jobs", ["run", "-n", 100, "--seed", 1, "--workers", 1, "--out", "batch/run", "--no-progress"],
              cwd=base, scratch=base.parent / "calls")
    if ran.code != 0 or ran.faults():
        raise SystemExit(f"disk: the base batch run failed: exit {ran.code}: {ran.stderr[-2000:]}")
    (base / "puzzle.txt").write_text("\n".join(" ".join("0" for _ in range(9)) for _ in range(9)) + "\n")


ROOMS = (0, 12 << 10, 48 << 10)


def campaign(work: Path, *, quick: bool, target_name: str, jobs: int, report: Callable[[Try], None]) -> list[Try]:
    prog = target(target_name)
    base = work / "base"
    make_base(base, prog)
    small = mount_small(work / "probe")
    if small:
        unmount(work / "probe")
    print(f"  disk: {'a tmpfs of ' + str(SIZE >> 10) + ' KiB' if small else 'no tmpfs (mount refused): ulimit -f'} "
          "per try", flush=True)
    planned: list[Callable[[], Try]] = []
    number = 0
    for name, tool, args in printers(prog):
        number += 1
        planned.append(lambda n=number, a=(name, tool, args): print_try(*a, base, work / f"print-{n}"))
    for writer in writers(prog):
        if quick and not writer.quick:
            continue
        pristine = _pristine(writer, base, work / f"pristine-{writer.name.replace(' ', '_')}")
        rooms = ROOMS[:2] if quick else ROOMS
        for room in rooms:
            number += 1
            planned.append(lambda n=number, w=writer, r=room, p=pristine: write_try(w, base, work / f"write-{n}", r,
                                                                                  small, p))
        if small and writer.limit:  # and the file size limit, which a tmpfs does not show
            number += 1
            planned.append(lambda n=number, w=writer, p=pristine: write_try(w, base, work / f"write-{n}", 8 << 10,
                                                                           False, p))
    tries = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for done in as_completed([pool.submit(one) for one in planned]):
            tries.append(done.result())
            report(tries[-1])
    return tries


def _pristine(writer: Writer, base: Path, place: Path) -> int | None:
    """The writer's exit with room to spare."""
    shutil.copytree(base, place, symlinks=True)
    (place / "TINY").mkdir(exist_ok=True)
    ran = run(writer.tool, writer.args, cwd=place, scratch=place / "calls")
    if ran.faults() or ran.code not in (0, 1):
        raise SystemExit(f"disk: {writer.name} fails with room to spare: exit {ran.code}, {ran.faults()}: {ran.last()}")
    return ran.code

"""Stop signals at each phase of a fuzz run, with numba's cache warm and cold (issue 46, item 4).

A ``fuzz run`` of a program with a bug (its target a wrapper that notes each call, so the pre-flight's
first call is seen) is sent SIGINT or SIGTERM

- ``pre-flight``: at the target's first call, before the run directory is made;
- ``cases``: a moment after the first chunk is logged (with a cold cache: as the workers start to
  compile their kernels, the run's first minute);
- ``shrinking``: up to 2 s after ``shrinking and confirming`` is logged (R13: the parent loads its
  kernels then, through a ctypes callback that dropped the exception);
- ``saving``: as the last group is logged confirmed, while the manifest and the summary are written.

The phase the signal met is read from run.log as it is sent. Cold: ``NUMBA_CACHE_DIR`` a fresh empty
folder (the pre-flight, the cases and shrinking; saving's kernels were loaded while shrinking). It holds when the call ended by itself with 128+n (``hostile_tools.Ran.faults``: no traceback,
no "Exception ignored", no process left), and the run, read next, is ``interrupted`` with the resume
line printed, or (stopped in the pre-flight) was never made, saying so; or, stopped once everything
was saved, is ``complete`` with its summary. A resume then finishes it (``complete``; with a warm
cache only: a cold one would pay the compiling again).
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import time
from pathlib import Path
from typing import Callable

from hostile_tools import FAKE, Call, Try, run

PHASES = ("pre-flight", "cases", "shrinking", "saving")
TARGET = "keeps_out_of_range"  # R13's program: one bug, whose shrinking takes a second or two
ARGS = ["-n", 60, "--seed", 2, "--workers", 2]


def wrapper(folder: Path) -> Path:
    """A target that notes each call in ``calls`` beside it, then runs the fake program."""
    script = folder / "target.sh"
    script.write_text(f'#!/bin/sh\necho x >> "{folder / "calls"}"\nexec python3 {FAKE / TARGET}.py "$@"\n')
    script.chmod(0o755)
    return script


def _log(run_dir: Path) -> str:
    try:
        return (run_dir / "run.log").read_text(errors="replace")
    except OSError:
        return ""


def met(run_dir: Path, calls: Path) -> str:
    """The phase the run is in, as its files say."""
    log = _log(run_dir)
    if not (run_dir / "manifest.json").exists():
        return "pre-flight" if calls.exists() else "starting"
    if "shrinking and confirming" not in log:
        return "cases"
    last = [line for line in log.splitlines() if "shrunk and confirmed" in line]
    if last and (words := last[-1].split("shrunk and confirmed ", 1)[1].split()) and words[0] == words[2]:
        return "saving"
    return "shrinking"


def _wait(call: Call, ready: Callable[[], bool], step: float = 0.002) -> bool:
    while call.running():
        if ready():
            return True
        time.sleep(step)
    return False


def send_at(call: Call, phase: str, signum: int, run_dir: Path, calls: Path, rng: random.Random,
            cold: bool) -> str | None:
    """Send ``signum`` to the run at ``phase``; the phase it met, or None if the run ended first."""
    log_has = (lambda words: lambda: words in _log(run_dir))
    if phase == "pre-flight":
        ready = calls.exists
    elif phase == "cases":
        ready = log_has("loading the compiled kernels" if cold else "fuzz chunk")
    elif phase == "shrinking":
        ready = log_has("shrinking and confirming")
    else:
        ready = lambda: met(run_dir, calls) == "saving"  # noqa: E731
    if not _wait(call, ready):
        return None
    delay = rng.uniform(*{"cases": (0.0, 1.0), "shrinking": (0.0, 2.0)}.get(phase, (0.0, 0.0)))
    deadline = time.monotonic() + delay
    if not _wait(call, lambda: time.monotonic() >= deadline, 0.01):
        return None
    where = met(run_dir, calls)
    call.proc.send_signal(signum)
    return f"{where} (+{delay:.2f} s)" if delay else where


def one_try(work: Path, phase: str, signum: int, *, cold: bool, seed: int, resume: bool) -> Try:
    name = signal.Signals(signum).name
    folder = work / f"{phase}-{name}-{'cold' if cold else 'warm'}"
    folder.mkdir(parents=True)
    prog, calls, run_dir = wrapper(folder), folder / "calls", folder / "run"
    env = {}
    if cold:
        (folder / "numba-cache").mkdir()
        env["NUMBA_CACHE_DIR"] = str(folder / "numba-cache")
    call = Call("fuzz", ["run", *ARGS, "--target", prog, "--out", run_dir, "--corpus", folder / "shared",
                         "--no-progress"], cwd=folder, scratch=folder / "calls-out", env=env)
    where = send_at(call, phase, signum, run_dir, calls, random.Random(seed), cold)
    ran = call.finish(idle=60.0, cpu=900.0)
    what = f"{name} in {phase}, {'cold' if cold else 'warm'} cache"
    if where is None:
        return Try("signals", what, f"the run ended first (exit {ran.code}): the moment never came",
                   ran.faults() + ([f"exit {ran.code}"] if ran.code not in (0, 1) else []))
    problems = ran.faults()
    if ran.code != 128 + signum:
        problems.append(f"exit {ran.code}, wanted {128 + signum}: {ran.last()}")
    status, summary = _status(run_dir), (run_dir / "summary.md").is_file()
    resume_line = "resume with: fuzz run --resume" in ran.stderr
    if status is None:
        if "interrupted during the pre-flight" not in ran.stderr:
            problems.append(f"no run made, and nothing said of it: {ran.last()}")
    elif status == "complete":
        if not summary:
            problems.append("complete, but its summary was never written")
    elif status != "interrupted":
        problems.append(f"the run reads as {status}, not interrupted")
    if status == "interrupted" and not resume_line:
        problems.append("no resume line")
    outcome = f"met {where}: exit {ran.code}, " + (
        "no run made" if status is None else f"{status}{', resume line' if resume_line else ''}")
    if resume and status == "interrupted" and not problems:
        again = run("fuzz", ["run", "--resume", run_dir, "--no-progress"], cwd=folder, scratch=folder / "calls-out",
                    env=env, idle=60.0)
        problems += [f"the resume: {fault}" for fault in again.faults()]
        if again.code not in (0, 1) or _status(run_dir) != "complete":
            problems.append(f"the resume: exit {again.code}, {_status(run_dir)}: {again.last()}")
        outcome += f"; resumed: exit {again.code}, {_status(run_dir)}"
    if not problems:
        shutil.rmtree(folder, ignore_errors=True)
    return Try("signals", what, outcome, problems)


def _status(run_dir: Path) -> str | None:
    try:
        return json.loads((run_dir / "manifest.json").read_text()).get("status")
    except (OSError, ValueError):
        return None


def campaign(work: Path, *, quick: bool, report: Callable[[Try], None], seed: int = 1) -> list[Try]:
    """Each phase, SIGINT and SIGTERM with a warm cache (SIGINT alone with ``quick``), and the pre-flight,
    the cases and shrinking once each with a cold one (not with ``quick``: each pays numba's minute of
    compiling); one run at a time, so the phases' moments are those of a run alone on the machine."""
    plan = [(phase, signum, False) for phase in PHASES
            for signum in ((signal.SIGINT,) if quick else (signal.SIGINT, signal.SIGTERM))]
    if not quick:  # saving, cold, is shrinking's: the parent has loaded its kernels by then
        plan += [(phase, signal.SIGTERM if number % 2 else signal.SIGINT, True)
                 for number, phase in enumerate(PHASES[:3])]
    tries = []
    for number, (phase, signum, cold) in enumerate(plan):
        tries.append(one_try(work, phase, signum, cold=cold, seed=seed + number, resume=not quick and not cold))
        report(tries[-1])
    return tries

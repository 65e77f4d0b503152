"""Fault campaign for ``sudoku-jobs``: SIGKILL the parent or a worker at random moments, resume each time.

A run of ``--cases`` (20,000) 9x9 cases is started, and then, ``--kills`` (20) times, a random moment
into the run (``--max-delay`` s at most) either the parent or one of its pool workers (a coin toss) is
killed with SIGKILL (the moment counted from when the run directory appears), and the run is resumed with ``sudoku-jobs run --resume``. After each kill every
process of the run must be gone (the workers of a killed parent die with it; the parent of a killed
worker stops with exit 4). A last resume finishes the run, and then:

- every planned case is saved exactly once, each part holding its own chunk's cases;
- records.csv holds the same rows as the Parquet parts (read back with the schema's types);
- the manifest says complete, no temporary file is left, and no process of any attempt is alive.

Prints one line per kill and a verdict; exit 0 when every check holds, 1 otherwise.

With ``--signals`` it sends SIGTERM and SIGHUP instead (to the parent alone, as ``docker stop`` does, or
to the whole group, as ``timeout`` and a closed terminal do) at several moments of an attempt: as it
starts, while cases run, a second signal while the interrupted run writes records.csv, and, last, while a
run that has finished every case writes records.csv. Each must leave the run ``interrupted`` (or
``complete``, the last) with totals equal to the cases saved, exit 128+n with the resume line and no
traceback, and no process; one line each says what it left. The same final checks follow.

Run: python bench/fault_campaign.py [--cases 20000] [--kills 20] [--signals] [--seed 1] [--out DIR] [--keep]
"""

import argparse
import functools
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)}



def _stopped(proc, problems, late):
    """``proc``'s stderr once it has stopped; if it has not within 120 s, ``late`` joins ``problems``
    and its whole group is killed (a campaign never hangs on the run it tests)."""
    try:
        return proc.communicate(timeout=120)[1]
    except subprocess.TimeoutExpired:
        problems.append(late)
        os.killpg(proc.pid, signal.SIGKILL)
        return proc.communicate()[1]

def _stat(pid):
    """(state, ppid, pgid) of a process, or None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[1]), int(fields[2])


def _alive(pid):
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def _group(pgid):
    """Live processes of a process group (a run started in a session of its own)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) and stat[2] == pgid and stat[0] not in "ZX":
            pids.append(int(entry.name))
    return pids


def _children(pid):
    return [p for p in _group(pid) if (stat := _stat(p)) and stat[1] == pid]


def _start(args):
    return subprocess.Popen([sys.executable, "-m", "jobs", "run", *map(str, args), "--no-progress"], env=ENV,
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def _parts(out):
    parts = out / "parts"
    return len(list(parts.glob("chunk-*.parquet"))) if parts.exists() else 0


def _wait_gone(pgid, timeout=60.0):
    """Seconds until no process of the group is alive (None if some still are after ``timeout``)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if not _group(pgid):
            return time.monotonic() - started
        time.sleep(0.01)
    return None


def campaign(out, *, cases, kills, seed, max_delay, chunk_size, workers):
    rng = random.Random(seed)
    first = ["-n", cases, "--seed", seed, "--workers", workers, "--chunk-size", chunk_size, "--out", out]
    problems, groups, done_kills, attempt = [], [], 0, 0
    while done_kills < kills:
        attempt += 1
        proc = _start(["--resume", out] if (out / "manifest.json").exists() else first)
        groups.append(proc.pid)
        delay = rng.uniform(0.0, max_delay)
        victim = rng.choice(["parent", "worker"])
        while not (out / "manifest.json").exists() and proc.poll() is None:  # delays count from the run's start
            time.sleep(0.005)
        deadline = time.monotonic() + delay
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.005)
        target = proc.pid
        if victim == "worker":
            workers_now = _children(proc.pid)
            if not workers_now:  # none yet (starting) or none left (finishing): the parent instead
                victim = "parent"
            else:
                target = rng.choice(workers_now)
        if proc.poll() is not None:  # finished before the kill: this attempt does not count
            _, err = proc.communicate()
            if proc.returncode != 0:
                problems.append(f"attempt {attempt}: ended by itself with exit {proc.returncode}: {err.strip()[-300:]}")
            if _parts(out) * chunk_size >= cases:
                print(f"attempt {attempt}: the run finished before kill {done_kills + 1}; starting a fresh one "
                      "would change the campaign, so it stops here", flush=True)
                break
            continue
        os.kill(target, signal.SIGKILL)
        err = _stopped(proc, problems, f"kill {done_kills + 1}: the parent did not stop within 120 s after its "
                                       f"{victim} died")
        gone = _wait_gone(proc.pid)
        done_kills += 1
        expected = -signal.SIGKILL if victim == "parent" else 4
        last = err.strip().splitlines()[-1] if err.strip() else ""
        if proc.returncode != expected and not (victim == "worker" and proc.returncode == 0):
            problems.append(f"kill {done_kills}: {victim} killed, exit {proc.returncode} (wanted {expected}): {last}")
        if "Traceback" in err:
            problems.append(f"kill {done_kills}: a traceback on stderr: {err.strip()[-500:]}")
        if gone is None:
            problems.append(f"kill {done_kills}: processes of the run outlived it: {_group(proc.pid)}")
        print(f"kill {done_kills:2d}: {victim:6s} at {delay:5.2f}s -> exit {proc.returncode:3d}, "
              f"{_parts(out):4d} parts saved, every process gone "
              + (f"in {gone:.2f}s" if gone is not None else "NO"), flush=True)
    started = time.monotonic()
    final = subprocess.run([sys.executable, "-m", "jobs", "run", "--resume", str(out), "--no-progress"], env=ENV,
                           cwd=REPO, capture_output=True, text=True, timeout=3600, start_new_session=True)
    print(f"final resume: exit {final.returncode} in {time.monotonic() - started:.1f}s: "
          f"{final.stderr.strip().splitlines()[-1] if final.stderr.strip() else ''}", flush=True)
    if final.returncode != 0:
        problems.append(f"the final resume failed: {final.stderr.strip()[-500:]}")
    problems += _verify(out, cases, chunk_size)
    left = [pid for pgid in groups for pid in _group(pgid)]
    if left:
        problems.append(f"processes left: {left}")
    return done_kills, problems


def _wait_for(predicate, proc, timeout, step=0.001):
    """True once ``predicate()`` holds while ``proc`` runs; False if it ends or ``timeout`` passes first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if predicate():
            return True
        time.sleep(step)
    return False


def _csv_written(out):
    return (out / ".records.csv.tmp").exists()


def _signal_at(proc, out, moment, signum, whom, rng, max_delay):
    """Send ``signum`` to the parent or its group at ``moment``; a description of when, or None if the
    moment never came (the attempt ended first)."""
    send = (lambda: os.kill(proc.pid, signum)) if whom == "parent" else (lambda: os.killpg(proc.pid, signum))
    begun = out.exists() and (out / "manifest.json").stat().st_mtime
    if not _wait_for(lambda: (out / "manifest.json").exists() and (out / "manifest.json").stat().st_mtime != begun,
                     proc, 120, 0.005):
        return None
    if moment == "start":
        send()
        return "as it starts"
    if moment in ("cases", "csv"):  # a moment after this attempt's first part, so it has cases to keep
        had = _parts(out)
        delay = rng.uniform(0.0, max_delay)
        if not _wait_for(lambda: _parts(out) > had, proc, 600, 0.005) or _wait_for(lambda: False, proc, delay):
            return None
        if proc.poll() is not None:
            return None
        send()
    if moment == "cases":
        return f"{delay:.2f}s after its first part, cases running"
    if moment == "csv":  # then a second signal while the interrupted run writes records.csv
        if not _wait_for(lambda: _csv_written(out), proc, 120):
            return "first signal only (records.csv written too fast to catch)"
        send()
        return "twice, the second while records.csv is written"
    if moment == "end":  # a run finishing every case, signalled while it writes records.csv
        if not _wait_for(lambda: _csv_written(out), proc, 3600):
            return None
        send()
        return "while the finished run writes records.csv"
    raise ValueError(moment)


def _saved(out):
    import pyarrow.parquet as pq

    parts = out / "parts"
    return sum(pq.read_metadata(p).num_rows for p in parts.glob("chunk-*.parquet")) if parts.exists() else 0


def signal_campaign(out, *, cases, seed, max_delay, chunk_size, workers):
    """SIGTERM and SIGHUP at each moment (parent and group in turn), a resume after each; see the docstring."""
    rng = random.Random(seed)
    first = ["-n", cases, "--seed", seed, "--workers", workers, "--chunk-size", chunk_size, "--out", out]
    rounds = [(moment, signum) for moment in ("start", "cases", "cases", "csv")
              for signum in (signal.SIGTERM, signal.SIGHUP)] + [("end", signal.SIGTERM)]
    problems, groups = [], []
    for number, (moment, signum) in enumerate(rounds, 1):
        whom = "parent" if number % 2 else "group"
        proc = _start(["--resume", out] if (out / "manifest.json").exists() else first)
        groups.append(proc.pid)
        when = _signal_at(proc, out, moment, signum, whom, rng, max_delay)
        err = _stopped(proc, problems, f"round {number}: did not stop within 120 s of {signal.Signals(signum).name}")
        gone = _wait_gone(proc.pid)
        name = signal.Signals(signum).name
        if when is None:
            print(f"round {number}: {name} {moment}: the moment never came (exit {proc.returncode})", flush=True)
            continue
        manifest = json.loads((out / "manifest.json").read_text())
        totals, saved = (manifest.get("totals") or {}).get("cases"), _saved(out)
        status, wanted = manifest["status"], ("complete" if moment == "end" else "interrupted")
        code = {"interrupted": 128 + signum, "complete": 0}.get(status)
        resume = "resume with: sudoku-jobs run --resume" in err
        print(f"round {number:2d}: {name:7s} to the {whom:6s} {when}: exit {proc.returncode}, {status}, "
              f"{saved} cases saved (totals {totals}), resume line {'yes' if resume else 'no'}, "
              + (f"every process gone in {gone:.2f}s" if gone is not None else f"LEFT {_group(proc.pid)}"),
              flush=True)
        if status != wanted or totals != saved or proc.returncode != code or resume != (status == "interrupted"):
            problems.append(f"round {number}: {status} (wanted {wanted}), totals {totals} of {saved} saved, exit "
                            f"{proc.returncode} (wanted {code}), resume line {resume}: {err.strip()[-300:]}")
        if "Traceback" in err:
            problems.append(f"round {number}: a traceback on stderr: {err.strip()[-500:]}")
        if gone is None:
            problems.append(f"round {number}: processes of the run outlived it: {_group(proc.pid)}")
    if json.loads((out / "manifest.json").read_text())["status"] != "complete":
        final = subprocess.run([sys.executable, "-m", "jobs", "run", "--resume", str(out), "--no-progress"],
                               env=ENV, cwd=REPO, capture_output=True, text=True, timeout=3600,
                               start_new_session=True)
        if final.returncode != 0:
            problems.append(f"the final resume failed: {final.stderr.strip()[-500:]}")
    problems += _verify(out, cases, chunk_size)
    left = [pid for pgid in groups for pid in _group(pgid)]
    if left:
        problems.append(f"processes left: {left}")
    return len(rounds), problems


def _verify(out, cases, chunk_size):
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    from jobs.schema import NAMES, SCHEMA

    problems = []
    table = pq.read_table(out / "parts").sort_by("case")
    saved = table.column("case").to_pylist()
    if saved != list(range(cases)):
        problems.append(f"{len(saved)} rows, {len(set(saved))} distinct cases, {cases} wanted")
    for part in sorted((out / "parts").glob("chunk-*.parquet")):
        chunk = int(part.stem.split("-")[1])
        got = pq.read_table(part).column("case").to_pylist()
        if got != list(range(chunk * chunk_size, min(cases, (chunk + 1) * chunk_size))):
            problems.append(f"{part.name} holds cases {got[:1]}..{got[-1:]}, not its chunk's")
    csv = pacsv.read_csv(out / "records.csv", convert_options=pacsv.ConvertOptions(
        column_types=SCHEMA, strings_can_be_null=True)).sort_by("case")
    if csv.column_names != NAMES or len(csv) != len(table):
        problems.append(f"records.csv: {len(csv)} rows, columns {csv.column_names[:3]}...")
    else:
        problems += [f"records.csv differs from the parts in column {name}" for name in NAMES
                     if not csv.column(name).equals(table.column(name))]
    manifest = json.loads((out / "manifest.json").read_text())
    if manifest["status"] != "complete" or manifest["totals"]["cases"] != cases:
        problems.append(f"manifest: {manifest['status']}, {manifest['totals']}, reason {manifest.get('reason')}")
    hidden = [str(p.relative_to(out)) for p in out.rglob(".*") if p.name != ".lock"]
    if hidden:
        problems.append(f"temporaries left: {hidden}")
    ok = manifest["totals"]["ok"]
    print(f"verified: {len(saved)} rows, {len(set(saved))} distinct of {cases} planned; CSV = Parquet "
          f"({len(csv)} rows, {len(NAMES)} columns); manifest {manifest['status']}, {ok} ok, "
          f"{manifest['totals']['failed']} failed; corrupt parts moved aside: "
          f"{len(list((out / 'corrupt').iterdir())) if (out / 'corrupt').exists() else 0}", flush=True)
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20000)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-delay", type=float, default=3.0, help="latest kill, seconds into an attempt")
    parser.add_argument("--chunk-size", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", help="run directory (default: a temporary one, removed unless --keep)")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--signals", action="store_true",
                        help="SIGTERM and SIGHUP at several moments instead of SIGKILLs")
    args = parser.parse_args()
    if not sys.platform.startswith("linux"):
        raise SystemExit("fault_campaign reads /proc: Linux only")
    root = None if args.out else Path(tempfile.mkdtemp(prefix="fault-campaign-"))
    out = Path(args.out) if args.out else root / "run"
    started = time.monotonic()
    what = "SIGTERM and SIGHUP" if args.signals else f"{args.kills} SIGKILLs (parent or worker)"
    print(f"fault campaign: {args.cases} cases, {what}, seed {args.seed}, "
          f"{args.workers} workers, chunks of {args.chunk_size}, run directory {out}", flush=True)
    run = signal_campaign if args.signals else functools.partial(campaign, kills=args.kills)
    kills, problems = run(out, cases=args.cases, seed=args.seed, max_delay=args.max_delay,
                          chunk_size=args.chunk_size, workers=args.workers)
    for problem in problems:
        print(f"PROBLEM: {problem}")
    print(f"{'PASS' if not problems else 'FAIL'}: {kills} {'rounds' if args.signals else 'kills'}, {len(problems)} problems, "
          f"{time.monotonic() - started:.0f}s", flush=True)
    if root is not None and not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())

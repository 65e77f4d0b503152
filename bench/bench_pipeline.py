"""Scale figures of ``sudoku-jobs run`` against its own engine: puzzles/s end to end beside raw
``nb.generate_batch(minimal=True)``, 2 workers over 1, Dask, and the peak memory of the process tree.

Each round runs, one after the other (so load from other jobs falls on all alike):

- ``raw``: ``nb.generate_batch(seeds, minimal=True)`` in this process, one call, one core (warmed first);
  the seeds are the run's own (``derive_seed(1, i)``), so it makes the same puzzles the runs make;
- ``raw x2``: the same call in two forked processes at once, rates summed: what two cores give this
  round (other people's jobs share the machine), the yardstick for 2 workers over 1;
- ``1 worker``, ``2 workers`` (and ``dask`` with ``--dask``): ``python -m jobs run -n N --seed 1`` with the
  default engines (nb creates and solves, band counts) and chunk size, as a fresh process in a temporary
  run directory: created, counted, solved back, verified and recorded (Parquet parts, CSV, manifest).

Rates: ``e2e/s`` is N over the command's whole wall time (interpreter start to exit); ``run/s`` is N over
the runner's own ``wall_s`` from the manifest (no interpreter start or imports). Ratios are taken within a
round (e2e/raw: the 1-worker command over raw; 2w/1w beside raw x2 / raw; dask/1w) and their median
over rounds is given.
``show``: the wall time and peak RSS of ``python -m jobs show`` on each finished run (interpreter start
included).
Peak RSS: the largest sum of resident memory over the command's process tree (it and all descendants,
sampled from /proc every 50 ms), so shared pages count once per process: an upper bound.

Dask at par (issue 28): ``--only 2 --dask`` runs the local pool and the runner's LocalCluster, 2 workers
each, one after the other in every round, and prints dask / local pool per round and its median.
``--cluster`` adds a third: a ``dask scheduler`` and two ``dask worker --nthreads 1`` processes on
loopback, started once before the rounds (so warm after the first), given to the run as
``--scheduler``; its workers send their records back as Arrow tables, which the parent writes.

Run: PYTHONPATH=. python bench/bench_pipeline.py [-n 20000] [--rounds 3] [--dask] [--cluster] [--raw-n 5000]
[--only 2] [--keep DIR]
"""

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.common import machine  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
PAGE = os.sysconf("SC_PAGE_SIZE")


def _tree_rss(root):
    """Bytes resident in ``root`` and every process below it (0 once it is gone)."""
    children, rss = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            with open(f"/proc/{entry}/statm") as f:
                resident = int(f.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
        rss[int(entry)] = resident
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += children.get(pid, [])
    return total


def measured(argv, *, ok=(0,)):
    """Run ``argv``: (wall seconds, peak RSS of its process tree in bytes)."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=ENV, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = 0
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss(proc.pid))
            done.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = proc.communicate()
    wall = time.perf_counter() - started
    done.set()
    sampler.join()
    if proc.returncode not in ok:
        raise SystemExit(f"bench: {' '.join(argv)} failed (exit {proc.returncode}):\n{err}")
    return wall, peak


def run_command(n, *, workers, backend, temp, name, scheduler=None):
    """One ``sudoku-jobs run``, then ``sudoku-jobs show`` of it: their figures, with the peak RSS of each
    process tree (of a run on a ``scheduler``'s cluster, the run's own process only)."""
    out = Path(temp) / name
    argv = [sys.executable, "-m", "jobs", "run", "-n", str(n), "--seed", "1", "--workers", str(workers),
            "--backend", backend, "--no-progress", "--out", str(out)]
    if scheduler:
        argv += ["--scheduler", scheduler]
    wall, peak = measured(argv)
    show_wall, show_peak = measured([sys.executable, "-m", "jobs", "show", str(out)])
    manifest = json.loads((out / "manifest.json").read_text())
    totals = manifest["totals"]
    assert totals["cases"] == totals["ok"] == n, totals
    config = manifest["config"]
    return {"e2e": n / wall, "run": n / manifest["wall_s"], "wall": wall, "rss": peak, "show": show_wall,
            "show_rss": show_peak,
            "engines": f"{config['engine']} + {config['check_engine']}, chunk size {config['chunk_size']}"}


@contextlib.contextmanager
def dask_cluster(workers):
    """A ``dask scheduler`` and ``workers`` single-threaded ``dask worker`` processes on loopback, each
    in a session of its own; yields the scheduler's address once every worker has joined."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    dask = [str(Path(sys.executable).with_name("dask"))]
    procs = [subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              env=ENV, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)]
    try:
        for _ in range(workers):
            procs.append(subprocess.Popen([*dask, "worker", address, "--nthreads", "1", "--nworkers", "1",
                                           "--no-dashboard", "--memory-limit", "0"], env=ENV, cwd=ROOT,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          start_new_session=True))
        from distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(workers, timeout=120)
        yield address
    finally:
        for proc in reversed(procs):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 15)
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait()


def raw_rate(seeds):
    from sudoku.engines import nb

    started = time.perf_counter()
    nb.generate_batch(seeds, minimal=True)
    return len(seeds) / (time.perf_counter() - started)


def raw_rate_twice(seeds):
    """Puzzles/s of two processes each making ``seeds`` at once (summed; pool start not timed)."""
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(2) as pool:
        return sum(pool.map(raw_rate, [seeds, seeds]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=20000, help="puzzles per run (default %(default)s)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each config once per round (default %(default)s)")
    parser.add_argument("--raw-n", type=int, default=5000, help="puzzles per raw generate_batch call (default %(default)s)")
    parser.add_argument("--dask", action="store_true", help="also run with --backend dask (a LocalCluster, 2 workers)")
    parser.add_argument("--cluster", action="store_true", help="also run on a dask scheduler + 2 dask worker "
                        "processes started once (--scheduler)")
    parser.add_argument("--keep", metavar="DIR", help="keep the run directories under DIR (default: a temporary "
                        "directory, removed at the end); DIR must not hold runs of the same names")
    parser.add_argument("--only", choices=("1", "2"), help="run only this worker count (no raw, no ratios): for -n 1000000")
    args = parser.parse_args(argv)

    from sudoku import derive_seed
    from sudoku.engines import nb

    nb.warm()
    seeds = np.array([derive_seed(1, i) for i in range(args.raw_n)], np.uint64)
    configs = ([("1 worker", 1, "local"), ("2 workers", 2, "local")] + ([("dask", 2, "dask")] if args.dask else [])
               + ([("cluster", 2, "dask")] if args.cluster else []))
    if args.only:  # the Dask configs stay: ``--only 2 --dask`` is the Dask-at-par pair
        configs = [c for c in configs if c[1] == int(args.only) and c[2] == "local" or c[2] == "dask"]
    print(f"machine: {machine()}")
    print(f"command: {' '.join([Path(sys.executable).name, *sys.argv])}")
    rows = {name: [] for name, _, _ in configs}
    raws, raws2, engines_used = [], [], ""
    keep = Path(args.keep) if args.keep else None
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    with (contextlib.nullcontext(str(keep)) if keep else tempfile.TemporaryDirectory(prefix="bench-pipeline-")) as temp, \
            (dask_cluster(2) if args.cluster else contextlib.nullcontext()) as scheduler:
        for round_ in range(args.rounds):
            load = os.getloadavg()
            line = f"round {round_ + 1}: load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
            if not args.only:
                raws.append(raw_rate(seeds))
                raws2.append(raw_rate_twice(seeds))
                line += f"; raw {raws[-1]:,.0f}/s, x2 {raws2[-1]:,.0f}/s"
            for name, workers, backend in configs:
                row = run_command(args.n, workers=workers, backend=backend, temp=temp,
                                  name=f"{name}-{round_}".replace(" ", "-"), scheduler=scheduler if name == "cluster" else None)
                rows[name].append(row)
                engines_used = row["engines"]
                line += f"; {name} {row['e2e']:,.0f}/s e2e ({row['wall']:.1f} s), {row['run']:,.0f}/s run, {row['rss'] / 2**20:,.0f} MiB; show {row['show']:.2f} s, {row['show_rss'] / 2**20:,.0f} MiB"
            print(line, flush=True)
    print(f"\nn = {args.n:,} per run ({engines_used}); medians over {args.rounds} round(s); load at the end "
          f"{os.getloadavg()[0]:.2f}")
    print(f"{'config':<11}{'e2e/s':>9}{'run/s':>9}{'wall s':>8}{'peak RSS MiB':>14}{'show s':>8}{'show MiB':>10}")
    if raws:
        print(f"{'raw':<11}{statistics.median(raws):>9,.0f}{'':>9}{'':>8}{'':>14}   nb.generate_batch(minimal=True), one core")
        print(f"{'raw x2':<11}{statistics.median(raws2):>9,.0f}{'':>9}{'':>8}{'':>14}   the same in two processes at once")
    for name, _, _ in configs:
        got = rows[name]
        print(f"{name:<11}{statistics.median(r['e2e'] for r in got):>9,.0f}{statistics.median(r['run'] for r in got):>9,.0f}"
              f"{statistics.median(r['wall'] for r in got):>8.1f}{max(r['rss'] for r in got) / 2**20:>14,.0f}"
              f"{statistics.median(r['show'] for r in got):>8.2f}{max(r['show_rss'] for r in got) / 2**20:>10,.0f}")
    def ratio(top, bottom):
        return statistics.median(t / b for t, b in zip(top, bottom))

    pairs = [("dask", "LocalCluster, 2 workers", args.dask), ("cluster", "scheduler + 2 worker processes", args.cluster)]
    if "2 workers" in rows and any(asked for _, _, asked in pairs):
        print()
    for name, what, asked in pairs:
        if asked and "2 workers" in rows:
            them, two = rows[name], rows["2 workers"]
            print(f"dask ({what}) / local pool (2 workers), same round: "
                  f"{ratio([r['e2e'] for r in them], [r['e2e'] for r in two]):.2f} e2e, "
                  f"{ratio([r['run'] for r in them], [r['run'] for r in two]):.2f} run/s (goal >= 0.9); per round: "
                  + ", ".join(f"{d['e2e'] / t['e2e']:.2f}" for d, t in zip(them, two)))
    if raws:

        one = rows["1 worker"]
        print(f"\ne2e 1 worker / raw: {ratio([r['e2e'] for r in one], raws):.2f} (goal >= 0.50); "
              f"run/s 1 worker / raw: {ratio([r['run'] for r in one], raws):.2f}")
        two = rows["2 workers"]
        print(f"2 workers / 1 worker: {ratio([r['e2e'] for r in two], [r['e2e'] for r in one]):.2f} e2e, "
              f"{ratio([r['run'] for r in two], [r['run'] for r in one]):.2f} run/s (goal >= 1.8); raw x2 / raw: "
              f"{ratio(raws2, raws):.2f} (what the machine gave two processes)")
        if args.dask:
            dask = rows["dask"]
            print(f"dask (2 workers) / 1 worker: {ratio([r['e2e'] for r in dask], [r['e2e'] for r in one]):.2f} e2e, "
                  f"{ratio([r['run'] for r in dask], [r['run'] for r in one]):.2f} run/s")


if __name__ == "__main__":
    main()

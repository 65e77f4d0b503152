"""Shared by the benchmark scripts: data sets, machine facts, timing."""

import gzip
import os
import platform
import statistics
import time
from pathlib import Path

DATA = Path(os.environ.get("SUDOKU_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"))


def load_lines(name, limit=None):
    """The first ``limit`` puzzle lines of a ../shared/data set (without newlines)."""
    path = DATA / f"{name}.txt.gz"
    if not path.exists():
        raise SystemExit(f"benchmark data {path} is missing: set SUDOKU_DATA to the shared/data folder")
    out = []
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.strip():
                out.append(line.strip())
                if limit and len(out) >= limit:
                    break
    return out


def cpu_model():
    from jobs.runner import host  # the one place that reads the CPU model (it goes into manifests too)

    return host()["cpu"]


def machine():
    return f"{cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def median_time(fn, rounds=3):
    """Median wall time of ``fn()`` over ``rounds`` calls, after one untimed warm-up call."""
    fn()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)

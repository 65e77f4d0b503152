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


def valid_solutions(puzzles, solutions):
    """Per row of ``uint8[k, 81]`` arrays: a complete valid 9x9 grid that keeps the givens
    (vectorised, so checking a million answers costs little beside solving them)."""
    import numpy as np  # here: the other helpers serve benches without numpy

    keeps = ((puzzles == 0) | (puzzles == solutions)).all(axis=1)
    grids = solutions.reshape(-1, 9, 9).astype(np.int64)
    boxes = grids.reshape(-1, 3, 3, 3, 3).transpose(0, 1, 3, 2, 4).reshape(-1, 9, 9)
    ok = keeps & (solutions > 0).all(axis=1)
    for units in (grids, grids.transpose(0, 2, 1), boxes):
        bits = np.bitwise_or.reduce(1 << units, axis=2)  # a unit is valid when it holds all 9 digits
        ok &= (bits == 0b1111111110).all(axis=1)
    return ok

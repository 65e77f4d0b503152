"""Helpers for the ``jobs`` tests: run ``python -m jobs`` as a real subprocess, read a run directory.

Not collected by pytest (no ``test_`` prefix); imported by ``tests/test_jobs_*.py``.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from jobs.config import BatchConfig
from jobs.schema import NAMES, SCHEMA, columns_of

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    env.pop("PYTHONSTARTUP", None)
    return env


ENV = _env()


def small_batch(out, **changes):
    """The config of a small 4x4 batch run (30 puzzles, 3 chunks of 10, one worker) into ``out``, for
    tests that drive the runner in-process; ``changes`` override its fields."""
    return BatchConfig(**{"run_id": "t", "n": 30, "box": 2, "size": 4, "seed": 3, "input": None,
                          "workers": 1, "chunk_size": 10, "backend": "local", "scheduler": None, "engine": "py",
                          "check_engine": "dlx", "blanks": None, "difficulty": None, "out": str(out), **changes})


def jobs_command(*args):
    return [sys.executable, "-m", "jobs", *map(str, args)]


def run_jobs(*args, timeout=180, cwd=None):
    """Run ``python -m jobs ARGS`` to the end; a CompletedProcess with text stdout and stderr."""
    return subprocess.run(jobs_command(*args), env=ENV, cwd=cwd or REPO, capture_output=True, text=True,
                          timeout=timeout)


def start_jobs(*args, cwd=None):
    """Start ``python -m jobs ARGS`` in a session of its own, so a signal can reach its whole group."""
    return subprocess.Popen(jobs_command(*args), env=ENV, cwd=cwd or REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def part_names(run_dir):
    parts = Path(run_dir) / "parts"
    return sorted(p.name for p in parts.glob("chunk-*.parquet")) if parts.exists() else []


def wait_for_parts(run_dir, proc, count=1, timeout=60):
    """Wait until ``run_dir`` holds at least ``count`` finished parts while ``proc`` still runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(part_names(run_dir)) >= count:
            if proc.poll() is not None:
                raise AssertionError(f"the run ended (exit {proc.returncode}) before it could be stopped; "
                                     "make it longer")
            return part_names(run_dir)
        if proc.poll() is not None:
            _, err = proc.communicate()
            raise AssertionError(f"the run ended (exit {proc.returncode}) before {count} parts: {err}")
        time.sleep(0.005)
    raise AssertionError(f"no {count} parts in {run_dir} after {timeout}s")


def records(run_dir):
    """Every saved row of a run as an Arrow table, read straight from the parts, in case order."""
    return pq.read_table(Path(run_dir) / "parts").sort_by("case")


def by_case(table, *columns):
    """{case: value} for one column, {case: (values...)} for several."""
    cases = table.column("case").to_pylist()
    values = [table.column(c).to_pylist() for c in columns]
    rows = list(zip(*values)) if len(columns) > 1 else values[0]
    return dict(zip(cases, rows))


def manifest(run_dir):
    return json.loads((Path(run_dir) / "manifest.json").read_text())


def hidden_files(run_dir):
    """Names starting with a dot anywhere in the run directory: temporaries that outlived their write
    (RUN/.lock, the run's lock file, is no temporary: it stays)."""
    return sorted(str(p.relative_to(run_dir)) for p in Path(run_dir).rglob(".*") if p != Path(run_dir) / ".lock")


def one_line(stderr):
    """The single line a usage error must print (asserts there is exactly one, and no traceback)."""
    lines = stderr.strip().splitlines()
    assert "Traceback" not in stderr, stderr
    assert len(lines) == 1, stderr
    return lines[0]


PHASES = ("create_s", "unique_s", "blanks_s", "solve_s")  # the timed phases of a batch case
TEXT_COLUMNS = ("puzzle", "solution", "outcome", "reason")
NUMBER_COLUMNS = ("chunk", "case", "seed", "case_seed", "line", "size", "clues", "blanks", "solutions", "guesses",
                  "nodes", "unique_guesses", *PHASES)


def _plain(values):
    return [None if pd.isna(v) else v for v in values]


def assert_csv_equals_parquet(out):
    """records.csv holds the rows of the Parquet parts: read back with the schema's types it is the same
    table, and pandas reads the same values (text kept as text: a solution is all digits)."""
    parquet = records(out)
    options = pacsv.ConvertOptions(column_types=SCHEMA, strings_can_be_null=True)
    csv = pacsv.read_csv(Path(out) / "records.csv", convert_options=options)
    made = Path(out) / "manifest.json"  # a store written without a run (a test's) writes every column
    written = columns_of(manifest(out)["config"].get("kind", "batch") if made.exists() else None)
    assert csv.column_names == parquet.column_names == written
    assert len(csv) == len(parquet)
    assert csv.column("case").to_pylist() == parquet.column("case").to_pylist()
    for name in written:
        assert csv.column(name).equals(parquet.column(name)), name
    frame = pd.read_csv(Path(out) / "records.csv", dtype={name: str for name in TEXT_COLUMNS},
                        keep_default_na=False, na_values=[""])
    expected = parquet.to_pandas()
    assert len(frame) == len(expected)
    for name in (*TEXT_COLUMNS, *NUMBER_COLUMNS):
        assert _plain(frame[name]) == _plain(expected[name]), name

"""Stopping and resuming a run, as a real subprocess: SIGKILL of the whole process group at any moment,
Ctrl-C (SIGINT to the group), then ``run --resume DIR``.

After a resume every case index is there exactly once, the parts hold exactly their chunk's cases, no
temporary file is left, and the manifest says complete.
"""

import os
import random
import signal
import time

import pyarrow.parquet as pq
import pytest
from _jobs_support import (
    assert_csv_equals_parquet,
    by_case,
    hidden_files,
    manifest,
    part_names,
    records,
    run_jobs,
    start_jobs,
    wait_for_parts,
)

import sudoku
from sudoku.formats import render

CHUNK = 10


def _long_run(out, *, n, workers=2, size=9, seed=99):
    """A run that lasts: the py engine takes ~15 ms a 9x9 puzzle, so there is time to stop it mid-way."""
    return start_jobs("run", "-n", n, "--size", size, "--seed", seed, "--workers", workers, "--chunk-size", CHUNK,
                      "--engine", "py", "--check-engine", "dlx", "--no-progress", "--out", out)


def _group_gone(pgid, timeout=10):
    """True once no process of the group is left (the workers must not outlive their parent)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def _kill(proc):
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert _group_gone(proc.pid)


def assert_complete(out, n):
    """Every case exactly once, each part holding exactly its own chunk's cases, nothing left over."""
    table = records(out)
    cases = table.column("case").to_pylist()
    assert len(cases) == n == len(set(cases)), f"{len(cases)} rows, {len(set(cases))} distinct, {n} wanted"
    assert cases == list(range(n))
    chunks = -(-n // CHUNK)
    assert part_names(out) == [f"chunk-{chunk:06d}.parquet" for chunk in range(chunks)]
    for chunk in range(chunks):
        part = pq.read_table(out / "parts" / f"chunk-{chunk:06d}.parquet")
        assert part.column("case").to_pylist() == list(range(chunk * CHUNK, min(n, (chunk + 1) * CHUNK)))
        assert set(part.column("chunk").to_pylist()) == {chunk}
    assert hidden_files(out) == []
    m = manifest(out)
    assert m["status"] == "complete"
    assert m["totals"]["cases"] == n and m["chunks_done"] == m["chunks"] == chunks
    assert m["totals"]["ok"] + m["totals"]["failed"] + m["totals"]["rejected"] == n
    assert_csv_equals_parquet(out)
    return table


@pytest.mark.slow  # 12 s; test_jobs_resume has quicker resumes
def test_resume_after_sigkill_twice(tmp_path):
    out, n = tmp_path / "run", 120
    proc = _long_run(out, n=n)
    first = wait_for_parts(out, proc)
    _kill(proc)
    assert manifest(out)["status"] == "running"
    assert set(first) <= set(part_names(out))

    # killed again, while resuming
    proc = start_jobs("run", "--resume", out, "--no-progress")
    wait_for_parts(out, proc, count=len(part_names(out)) + 1)
    _kill(proc)
    kept = {name: (out / "parts" / name).read_bytes() for name in part_names(out)}
    assert 0 < len(kept) < n // CHUNK

    result = run_jobs("run", "--resume", out)
    assert result.returncode == 0, result.stderr
    assert f"({len(kept)} already done)" in result.stderr
    table = assert_complete(out, n)
    for name, data in kept.items():  # finished parts are kept as they were, not redone
        assert (out / "parts" / name).read_bytes() == data
    # the resumed rows are the ones the seed names
    for row in table.take(list(range(0, n, 37))).to_pylist():
        puzzle = sudoku.create(3, seed=sudoku.derive_seed(99, row["case"]), engine=row["engine"])
        assert render(puzzle, "line").strip() == row["puzzle"]


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_ctrl_c_keeps_finished_chunks_and_says_how_to_resume(tmp_path, workers):
    out, n = tmp_path / "run", 150
    proc = _long_run(out, n=n, workers=workers)
    wait_for_parts(out, proc)
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert stdout == ""
    assert f"resume with: sudoku-jobs run --resume {out}" in stderr.splitlines()
    assert _group_gone(proc.pid)
    m = manifest(out)
    assert m["status"] == "interrupted"
    saved = part_names(out)
    assert 1 <= len(saved) < n // CHUNK
    assert m["totals"]["cases"] == len(records(out)) == CHUNK * len(saved)
    assert m["chunks_done"] == len(saved)
    assert_csv_equals_parquet(out)  # the CSV holds the saved rows too
    interrupted_wall = m["wall_s"]
    assert interrupted_wall > 0
    fresh = run_jobs("run", "-n", n, "--out", out)  # the same --out without --resume: told how to finish it
    assert fresh.returncode == 2 and f"{out} already exists; use --resume {out} to finish it" in fresh.stderr

    result = run_jobs("run", "--resume", out)
    assert result.returncode == 0, result.stderr
    assert set(saved) <= set(part_names(out))
    assert_complete(out, n)
    assert manifest(out)["wall_s"] > interrupted_wall


def test_resume_of_a_complete_run_changes_nothing(tmp_path):
    out = tmp_path / "run"
    assert run_jobs("run", "-n", 30, "--size", 4, "--seed", 1, "--chunk-size", CHUNK, "--out", out).returncode == 0
    before = {name: (out / "parts" / name).read_bytes() for name in part_names(out)}
    result = run_jobs("run", "--resume", out)
    assert result.returncode == 0, result.stderr
    assert "0 chunks to do (3 already done)" in result.stderr
    assert {name: (out / "parts" / name).read_bytes() for name in part_names(out)} == before
    assert_complete(out, 30)


def test_resume_ignores_and_clears_half_written_parts(tmp_path):
    out = tmp_path / "run"
    assert run_jobs("run", "-n", 30, "--size", 4, "--seed", 1, "--chunk-size", CHUNK, "--out", out).returncode == 0
    puzzles = by_case(records(out), "puzzle")
    # as if killed while writing chunk 1: its part is missing and half of it sits under the temporary name
    data = (out / "parts" / "chunk-000001.parquet").read_bytes()
    (out / "parts" / "chunk-000001.parquet").unlink()
    (out / "parts" / ".chunk-000001.parquet.12345.tmp").write_bytes(data[: len(data) // 2])
    assert len(records(out)) == 20  # readers skip the hidden temporary
    show = run_jobs("show", out)
    assert show.returncode == 0, show.stderr

    result = run_jobs("run", "--resume", out)
    assert result.returncode == 0, result.stderr
    assert "1 chunk to do (2 already done)" in result.stderr
    assert_complete(out, 30)
    assert by_case(records(out), "puzzle") == puzzles


def test_resume_of_what_is_no_run_is_exit_2(tmp_path):
    result = run_jobs("run", "--resume", tmp_path / "nothing")
    assert result.returncode == 2
    assert "manifest.json" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
def test_sigkill_at_any_moment_then_resume(tmp_path):
    """Kill at random moments, from just after the directory appears to the end: the resume completes."""
    rng = random.Random(1234)
    for attempt in range(12):
        out = tmp_path / f"run{attempt}"
        proc = _long_run(out, n=60, size=4)
        while not out.exists() and proc.poll() is None:
            time.sleep(0.0005)
        time.sleep(rng.choice([0, 0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.4]))
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
        result = run_jobs("run", "--resume", out)
        assert result.returncode == 0, f"attempt {attempt}: {result.stderr}"
        assert_complete(out, 60)

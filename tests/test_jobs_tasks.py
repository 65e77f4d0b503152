"""The task and the runner in-process: planted failures through a wrong engine, the timed regions, the
chunk plan and the run directory's atomic writes.

The wrong engine (tests/_jobs_wrong_engine.py) is put in ``sudoku.engines.ENGINES`` for one test at a
time and taken out afterwards.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _jobs_support import ENV, assert_csv_equals_parquet, hidden_files, manifest, records, run_jobs, small_batch
from hypothesis import given
from hypothesis import strategies as st

import sudoku
from jobs import runner, tasks
from jobs.schema import SCHEMA_VERSION
from jobs.store import RunDir, RunDirError
from sudoku import engines
from sudoku.engines import EngineInfo
from sudoku.formats import render

TESTS = Path(__file__).resolve().parent
WRONG = "wrong"


@pytest.fixture
def wrong(monkeypatch):
    """The wrong engine, registered as ``wrong``; yields its module (set ``MODE`` on it)."""
    monkeypatch.syspath_prepend(str(TESTS))
    import _jobs_wrong_engine as module

    monkeypatch.setattr(module, "MODE", "honest")
    monkeypatch.setitem(engines.ENGINES, WRONG, EngineInfo(
        WRONG, "_jobs_wrong_engine", range(2, 10), frozenset({"solve", "count", "fill", "other"}),
        "a test engine that spoils its answers"))
    yield module
    assert WRONG in engines.ENGINES  # monkeypatch takes it out again


def test_the_wrong_engine_is_gone_after_the_test():
    assert WRONG not in engines.names()


def _spec(**overrides):
    spec = {"run_id": "t", "seed": 7, "engine": "py", "check_engine": "dlx", "difficulty": None, "blanks": None,
            "mode": "create", "chunk": 0, "start": 0, "count": 4, "box": 2}
    spec.update(overrides)
    return spec


def _check(puzzle, **spec):
    record = {}
    tasks._check_and_solve(record, puzzle, _spec(**spec), wanted_blanks=None)
    return record


PUZZLE_4 = sudoku.create(2, seed=3, engine="py")
PUZZLE_9 = sudoku.create(3, seed=3, engine="py")


@pytest.mark.parametrize("puzzle", [PUZZLE_4, PUZZLE_9], ids=["4x4", "9x9"])
def test_an_honest_engine_passes(wrong, puzzle):
    record = _check(puzzle, engine=WRONG)
    assert record["outcome"] == "ok" and record["reason"] is None
    assert record["solved_ok"] and record["givens_kept"] and record["matches_unique"]


@pytest.mark.parametrize("puzzle", [PUZZLE_4, PUZZLE_9], ids=["4x4", "9x9"])
@pytest.mark.parametrize("mode, flags, words", [
    ("relabel", {"solved_ok": True, "matches_unique": False}, "disagrees with the unique solution"),
    ("clash", {"solved_ok": False, "matches_unique": False}, "no valid solution"),
    ("none", {"solved_ok": False, "matches_unique": False}, "no valid solution"),
])
def test_a_wrong_solution_is_failed_with_a_reason(wrong, puzzle, mode, flags, words):
    wrong.MODE = mode
    record = _check(puzzle, engine=WRONG)
    assert record["outcome"] == "failed"
    assert words in record["reason"]
    assert {key: record[key] for key in flags} == flags
    if mode == "relabel" and any(v in (1, 2) for v in puzzle.cells):
        assert record["givens_kept"] is False and "changed a given" in record["reason"]
    assert record["unique"] and record["solutions"] == 1  # the check engine was not fooled


def test_a_check_engine_that_overcounts_fails_created_puzzles(wrong):
    wrong.MODE = "overcount"
    records = tasks.run_chunk(_spec(check_engine=WRONG, count=3))
    assert [r["outcome"] for r in records] == ["failed"] * 3
    assert all("created puzzle has 2 solutions" in r["reason"] for r in records)
    assert all(r["unique"] is False and r["solutions"] == 2 for r in records)


def test_run_chunk_records_planted_failures(wrong):
    wrong.MODE = "relabel"
    created = tasks.run_chunk(_spec(engine=WRONG, box=3, count=3, start=5, chunk=2))
    assert [r["case"] for r in created] == [5, 6, 7] and {r["chunk"] for r in created} == {2}
    for r in created:
        assert r["outcome"] == "failed" and r["reason"], r
        assert r["puzzle"] == render(sudoku.create(3, seed=sudoku.derive_seed(7, r["case"]), engine=WRONG),
                                     "line").strip()
        assert r["create_s"] > 0 and r["engine"] == WRONG
    lines = [(1, render(PUZZLE_9, "line").strip()), (2, "not a puzzle")]
    read = tasks.run_chunk(_spec(engine=WRONG, mode="input", lines=lines, count=2, source="f.txt"))
    assert [r["outcome"] for r in read] == ["failed", "rejected"]
    assert read[1]["reason"].startswith("line 2: ")


def test_verification_stays_outside_the_timed_regions(wrong, monkeypatch):
    """Slow verification (render, find_clash) must not show in the phase times; slow solving must."""
    pause = 0.05

    def slowly(function):
        def slow(*args, **kwargs):
            time.sleep(pause)
            return function(*args, **kwargs)
        return slow

    monkeypatch.setattr(tasks, "render", slowly(tasks.render))
    monkeypatch.setattr(tasks, "find_clash", slowly(tasks.find_clash))
    record = _check(PUZZLE_4, engine=WRONG)
    assert record["outcome"] == "ok"
    assert max(record["unique_s"], record["blanks_s"], record["solve_s"]) < pause

    monkeypatch.setattr(wrong, "solve", slowly(wrong.solve))
    record = _check(PUZZLE_4, engine=WRONG)
    assert record["solve_s"] >= pause and record["unique_s"] < pause
    record = _check(PUZZLE_4, check_engine=WRONG)
    assert record["unique_s"] >= pause and record["solve_s"] < pause


def test_a_run_with_a_planted_failure_exits_1_and_show_lists_it(tmp_path):
    """The whole command, with the wrong engine registered in the parent (forked workers inherit it)."""
    out = tmp_path / "run"
    script = (f"import sys; sys.path.insert(0, {str(TESTS)!r}); import _jobs_wrong_engine as w; w.MODE = 'clash'\n"
              "from sudoku.engines import ENGINES, EngineInfo\n"
              f"ENGINES[{WRONG!r}] = EngineInfo({WRONG!r}, '_jobs_wrong_engine', range(2, 10), "
              "frozenset({'solve', 'count', 'fill', 'other'}), 'wrong')\n"
              "from jobs.cli import main; sys.exit(main(sys.argv[1:]))")
    args = ["run", "-n", 20, "--size", 4, "--seed", 3, "--workers", 2, "--chunk-size", 5, "--engine", WRONG,
            "--out", out]
    result = subprocess.run([sys.executable, "-c", script, *map(str, args)], env=ENV, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1, result.stderr
    assert "failed 20" in result.stderr
    m = manifest(out)
    assert m["status"] == "complete" and m["totals"] == {"cases": 20, "ok": 0, "failed": 20, "rejected": 0}
    assert set(records(out).column("outcome").to_pylist()) == {"failed"}
    assert_csv_equals_parquet(out)
    show = run_jobs("show", out)
    assert show.returncode == 1
    assert "not ok (20; first 10):" in show.stdout
    assert show.stdout.count("(failed): solve gave no valid solution") == 10


# --- the plan and the run directory ---------------------------------------------------------------------


@given(n=st.integers(1, 500), size=st.integers(1, 60))
def test_the_plan_covers_every_case_once(n, size):
    specs = tasks.plan(small_batch("t", chunk_size=size, n=n))
    cases = [spec["start"] + i for spec in specs for i in range(spec["count"])]
    assert cases == list(range(n))
    assert [spec["chunk"] for spec in specs] == list(range(len(specs)))
    assert all(0 < spec["count"] <= size for spec in specs)
    json.dumps(specs)  # specs are plain data, fit for any backend


def test_parts_are_written_atomically_and_read_in_case_order(tmp_path):
    run_dir = RunDir(tmp_path / "run")
    run_dir.create(manifest={"config": {}, "status": "running"})
    assert json.loads(run_dir.manifest_path.read_text())["status"] == "running"
    spec = _spec(count=5)
    for chunk in (2, 0, 1):
        run_dir.write_part(chunk, tasks.run_chunk({**spec, "chunk": chunk, "start": 5 * chunk}))
    assert run_dir.done_chunks() == {0, 1, 2}
    assert hidden_files(run_dir.path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # no staging directory left
    (run_dir.parts / "notes.txt").write_text("not a part")
    (run_dir.parts / ".chunk-000003.parquet.1.tmp").write_bytes(b"PAR1 half")
    assert run_dir.done_chunks() == {0, 1, 2}
    assert run_dir.read_table().column("case").to_pylist() == list(range(15))
    run_dir.clear_temporaries()
    assert hidden_files(run_dir.path) == []


def test_a_part_killed_while_written_is_never_read(tmp_path, monkeypatch):
    """A write that dies half way (here: raises after writing half the bytes) leaves no part in place."""
    run_dir = RunDir(tmp_path / "run")
    run_dir.create()
    rows = tasks.run_chunk(_spec(count=3))
    run_dir.write_part(0, rows)
    whole = run_dir.part_path(0).read_bytes()

    def dies_half_way(table, where, **kwargs):
        Path(where).write_bytes(whole[: len(whole) // 2])
        raise KeyboardInterrupt

    monkeypatch.setattr("jobs.store.pq.write_table", dies_half_way)
    with pytest.raises(KeyboardInterrupt):
        run_dir.write_part(1, rows)
    assert run_dir.done_chunks() == {0}
    assert len(run_dir.read_table()) == 3
    assert hidden_files(run_dir.path) == []  # the half-written temporary is removed as the write fails


def test_a_corrupt_part_is_a_clear_error(tmp_path):
    run_dir = RunDir(tmp_path / "run")
    run_dir.create()
    run_dir.part_path(0).write_bytes(b"not parquet")
    with pytest.raises(RunDirError, match="chunk-000000.parquet: unreadable part"):
        run_dir.read_table()


def test_create_refuses_what_it_must_not_clear(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(RunDirError, match="not a directory"):
        RunDir(tmp_path / "file").create(force=True)
    run_dir = RunDir(tmp_path / "run")
    run_dir.create(manifest=_manifest(n=1))
    with pytest.raises(RunDirError, match="--force"):
        run_dir.create(manifest=_manifest(n=2))
    run_dir.create(force=True, manifest=_manifest(n=3))
    assert json.loads(run_dir.manifest_path.read_text()) == _manifest(n=3)
    assert run_dir.parts.is_dir() and run_dir.done_chunks() == set()
    run_dir.write_manifest({"n": 4})  # not a manifest this tool writes
    with pytest.raises(RunDirError, match="not a run directory this tool made.*schema_version null"):
        run_dir.create(force=True, manifest=_manifest(n=5))
    assert json.loads(run_dir.manifest_path.read_text()) == {"n": 4}


def _manifest(**config):
    """A minimal manifest that passes the manifest schema (jobs.manifest)."""
    base = {"kind": "batch", "run_id": "t", "n": 1, "seed": 1, "workers": 1, "chunk_size": 1, "backend": "local",
            "scheduler": None, "out": "t", "box": 2, "size": 4, "input": None, "engine": "py", "check_engine": "dlx",
            "blanks": None, "difficulty": None}
    return {"schema_version": SCHEMA_VERSION, "run_id": "t", "config": {**base, **config}, "status": "running"}

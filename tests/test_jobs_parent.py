"""What a run's parent leaves to its workers (issue 28): engines warmed and CSV lines written where the
chunk ran, so the parent only renames parts and joins CSV bytes; and the store's CSV parts, which an
interrupted run keeps and a complete one drops. bench/bench_parent_cpu.py measures the parent's CPU."""

import json
import os
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, strategies as st

from _jobs_support import assert_csv_equals_parquet, hidden_files, manifest, small_batch


def _warm_recorder(path):
    """A stand-in for ``sudoku.engines.warm`` that appends the calling pid to ``path`` and warms."""
    from sudoku import engines

    real = engines.warm

    def warm(*names, **options):  # options: tell, how far a compile is
        with open(path, "a") as pids:
            pids.write(f"{os.getpid()}\n")
        real(*names, **options)

    return warm


def test_workers_warm_the_engines_the_parent_does_not(tmp_path, monkeypatch):
    from jobs import runner, tasks
    from sudoku import engines

    calls = tmp_path / "warm.pids"
    monkeypatch.setattr(engines, "warm", _warm_recorder(calls))  # the forked workers inherit it
    monkeypatch.setattr(engines, "_warmed", set())  # nothing warm here: the test sees who warms
    config = small_batch(tmp_path / "run", n=40, workers=2)
    run_dir, config = runner.open_run(tasks.BATCH, config=config)
    manifest_ = runner.execute(run_dir, config, tasks.BATCH, tasks.plan(config))
    assert manifest_["status"] == "complete"
    pids = {int(line) for line in calls.read_text().split()}
    assert os.getpid() not in pids
    assert 1 <= len(pids) <= 2


def _stop_after_chunk_1(spec):
    from jobs import tasks

    if spec["chunk"] >= 2:
        raise KeyboardInterrupt
    return tasks.run_chunk(spec)


def test_an_interrupted_run_keeps_its_csv_parts_and_a_complete_one_drops_them(tmp_path):
    from jobs import runner, tasks

    config = small_batch(tmp_path / "run")
    run_dir, config = runner.open_run(tasks.BATCH, config=config)
    specs = tasks.plan(config)
    stopped = runner.execute(run_dir, config, replace(tasks.BATCH, run=_stop_after_chunk_1), specs)
    assert stopped["status"] == "interrupted"
    assert sorted(p.name for p in run_dir.csv_parts.iterdir()) == ["chunk-000000.csv", "chunk-000001.csv"]
    assert_csv_equals_parquet(run_dir.path)
    finished = runner.execute(run_dir, config, tasks.BATCH, specs, resume=True)
    assert finished["status"] == "complete" and finished["totals"]["cases"] == 30
    assert not run_dir.csv_parts.exists()
    assert_csv_equals_parquet(run_dir.path)
    assert hidden_files(run_dir.path) == []


def test_records_csv_is_made_from_a_part_whose_csv_part_is_missing(tmp_path):
    """A part written without its CSV part (by an older version, or after the CSV parts were dropped)
    still has its rows in records.csv, in case order among the others."""
    from jobs import runner, tasks

    config = small_batch(tmp_path / "run")
    run_dir, config = runner.open_run(tasks.BATCH, config=config)
    specs = tasks.plan(config)
    runner.execute(run_dir, config, replace(tasks.BATCH, run=_stop_after_chunk_1), specs)
    run_dir.csv_part_path(0).unlink()
    run_dir.write_csv()
    assert_csv_equals_parquet(run_dir.path)
    assert manifest(run_dir.path)["status"] == "interrupted"


def test_a_csv_temporary_left_by_a_killed_worker_is_cleared_and_owned(tmp_path):
    from jobs import tasks
    from jobs.store import RunDir

    run_dir = RunDir(tmp_path / "run", tasks.BATCH)
    run_dir.create(manifest={"schema_version": 4, "run_id": "t", "config": small_batch(run_dir.path).to_manifest(),
                             "status": "running"})
    run_dir.csv_parts.mkdir()
    stale = run_dir.csv_parts / ".chunk-000003.csv.4242.tmp"
    stale.write_text("half a line")
    (run_dir.csv_parts / "chunk-000001.csv").write_text("1,2\n")
    files, dirs, foreign = run_dir._inventory()
    assert foreign == [] and "csv" in dirs and "csv/chunk-000001.csv" in files
    run_dir.clear_temporaries()
    assert not stale.exists()


@given(st.lists(st.one_of(st.none(), st.integers(-2**62, 2**62)), max_size=40), st.integers(0, 5))
def test_int64s_reads_an_arrow_array_as_its_values_with_nulls_as_minus_one(values, offset):
    from jobs.runner import _int64s

    array = pa.array(values, pa.int64()).slice(min(offset, len(values)))
    assert _int64s(array).tolist() == [-1 if v is None else v for v in array.to_pylist()]


def _dask_run(tmp_path, **changes):
    """A small run through the dask backend in this process; its run directory."""
    from jobs import runner, tasks

    config = small_batch(tmp_path / "run", n=40, workers=2, backend="dask", **changes)
    run_dir, config = runner.open_run(tasks.BATCH, config=config)
    runner.setup_log(run_dir)
    finished = runner.execute(run_dir, config, tasks.BATCH, tasks.plan(config))
    assert finished["status"] == "complete" and finished["totals"]["cases"] == 40
    assert_csv_equals_parquet(run_dir.path)
    return run_dir


def test_the_runners_local_cluster_forks_workers_that_log_each_chunk_once(tmp_path):
    pytest.importorskip("distributed")
    from _jobs_support import records

    run_dir = _dask_run(tmp_path)
    workers = {int(name.rsplit(":", 1)[1]) for name in records(run_dir.path).column("worker").to_pylist()}
    assert os.getpid() not in workers
    logged = [line for line in run_dir.log_path.read_text().splitlines() if " INFO chunk " in line]
    assert sorted(line.split(" INFO chunk ")[1].split(":")[0] for line in logged) == ["0", "1", "2", "3"]


def _parent_writes(monkeypatch):
    """The (chunk, type of records) of every part the parent writes itself (``RunDir.write_part``)."""
    from jobs.store import RunDir

    written = []
    real = RunDir.write_part

    def write_part(self, chunk, records):
        written.append((chunk, type(records)))
        return real(self, chunk, records)

    monkeypatch.setattr(RunDir, "write_part", write_part)
    return written


def test_a_schedulers_workers_that_see_the_run_write_its_parts(tmp_path, monkeypatch):
    """Workers of a given scheduler on this machine (or on a shared disk) see the run directory:
    they write their chunks' parts as a local pool's do, and the parent writes none."""
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    written = _parent_writes(monkeypatch)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        run_dir = _dask_run(tmp_path, scheduler=cluster.scheduler_address)
    assert written == []
    assert sorted(path.name for path in (run_dir.path / "parts").glob("*.parquet")) == [
        f"chunk-{chunk:06d}.parquet" for chunk in range(4)]


def test_a_schedulers_workers_that_do_not_see_the_run_send_arrow_tables_the_parent_writes(tmp_path, monkeypatch):
    """A worker on another machine does not see the run directory (or sees another run there): each
    chunk comes back as one Arrow table (no list of dicts), and the parent writes its parts."""
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    from jobs import runner

    written = _parent_writes(monkeypatch)
    seen = []
    monkeypatch.setattr(runner, "_sees_run", lambda path, identity: seen.append(identity) and False)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        _dask_run(tmp_path, scheduler=cluster.scheduler_address)
    assert sorted(chunk for chunk, _ in written) == [0, 1, 2, 3]
    assert {kind for _, kind in written} == {pa.Table}
    started = json.loads((tmp_path / "run" / "manifest.json").read_text())["started"]
    assert seen == [f"t@{started}"] * 4


def test_a_worker_sees_the_run_only_with_its_identity_where_it_may_write(tmp_path):
    from jobs.runner import _sees_run

    _sees_run.cache_clear()
    run = tmp_path / "run"
    (run / "parts").mkdir(parents=True)
    (run / "manifest.json").write_text('{"run_id": "run", "started": "2026-11-28T02:00:00+00:00"}')
    assert _sees_run(str(run), "run@2026-11-28T02:00:00+00:00")
    assert not _sees_run(str(run), "run@2026-11-28T02:00:01+00:00")  # a copy, or an older run of the name
    assert not _sees_run(str(tmp_path / "elsewhere"), "run@2026-11-28T02:00:00+00:00")
    (run / "manifest.json").write_text("[1, 2]")
    assert _sees_run(str(run), "run@2026-11-28T02:00:00+00:00")  # asked once per worker and run
    _sees_run.cache_clear()
    assert not _sees_run(str(run), "run@2026-11-28T02:00:00+00:00")
    (run / "manifest.json").write_text('{"run_id": "run", "started": "2026-11-28T02:00:00+00:00"}')
    _sees_run.cache_clear()
    run.chmod(0o500)
    try:
        assert os.geteuid() == 0 or not _sees_run(str(run), "run@2026-11-28T02:00:00+00:00")
    finally:
        run.chmod(0o700)

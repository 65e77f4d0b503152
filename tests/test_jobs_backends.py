"""The local backend survives what tasks do to their worker, and never waits for a lost chunk."""

import os
from dataclasses import replace
import signal
import subprocess
import sys

import pytest
from _jobs_support import small_batch

from jobs.backends import BackendError, local


def _die(spec):
    if spec["chunk"] == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return [spec["chunk"]]


def _raise(spec):
    raise RuntimeError(f"boom in chunk {spec['chunk']}")


def _write_to_gone_reader(spec):
    """Feed 1 MiB to a program that exits without reading it (as some fuzz targets do)."""
    from fuzz.targets import run_contained

    result = run_contained([sys.executable, "-S", "-c", "pass"], b"x" * (1 << 20), timeout=10)
    return [result.exit_code]


def test_a_worker_killed_mid_chunk_stops_the_run_with_an_error_not_a_hang():
    with pytest.raises(BackendError, match="worker process died"):
        list(local(_die, [{"chunk": i} for i in range(4)], workers=2))


def test_a_task_that_raises_names_its_chunk():
    with pytest.raises(BackendError, match="chunk 0 failed in a worker: RuntimeError"):
        list(local(_raise, [{"chunk": 0}], workers=2))


def test_a_write_to_a_closed_pipe_does_not_kill_the_worker():
    previous = signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # as a parent that restored SIGPIPE would
    try:
        results = list(local(_write_to_gone_reader, [{"chunk": i} for i in range(4)], workers=2))
    finally:
        signal.signal(signal.SIGPIPE, previous)
    assert sorted(records[0] for _, records in results) == [0, 0, 0, 0]


def _slow_chunk(spec):
    import time

    time.sleep(spec["sleep"])
    return [spec["chunk"]]


def test_the_local_pool_says_it_is_alive_while_a_slow_chunk_runs():
    """With a heartbeat, (None, None) comes whenever that long passes with no chunk finished, so a
    piped run logs a line at least every LOG_EVERY_S even when one chunk takes minutes."""
    from jobs import backends

    specs = [{"chunk": 0, "sleep": 0.0}, {"chunk": 1, "sleep": 1.0}]
    got = list(backends.local(_slow_chunk, specs, workers=2, heartbeat=0.2))
    assert [spec["chunk"] for spec, _ in got if spec is not None] == [0, 1]
    assert sum(spec is None for spec, _ in got) >= 2
    assert all(spec is not None for spec, _ in backends.local(_slow_chunk, specs, workers=2))  # no heartbeat asked


def test_chunks_found_done_together_come_in_chunk_order():
    """A worker's chunks finish in the order it ran them; when the parent finds several done at once
    (it was busy saving a part), it takes them in chunk order, so a chunk's failure never comes before
    the chunk its worker finished first (whose part would then be lost to the failure)."""
    from concurrent.futures import Future

    from jobs.backends import _as_completed

    futures = {Future(): {"chunk": chunk} for chunk in (3, 0, 7, 2, 5)}
    for future in reversed(list(futures)):
        future.set_result(None)
    assert [futures[f]["chunk"] for f in _as_completed(futures, heartbeat=None)] == [0, 2, 3, 5, 7]


def _frozen(spec):
    import gc

    return [gc.get_freeze_count()]


def test_workers_fork_with_the_parents_objects_frozen_and_the_parent_is_left_as_it_was():
    """The workers keep the parent's objects out of their collections (no scan, no copied page);
    the parent's own collector is as it was."""
    import gc

    from jobs import backends

    assert gc.get_freeze_count() == 0
    pool = backends.start_local(2)
    try:
        assert gc.get_freeze_count() == 0
        frozen = [records[0] for _, records in backends.local(_frozen, [{"chunk": 0}, {"chunk": 1}], workers=2, pool=pool)]
    finally:
        backends.stop(pool)
    assert min(frozen) > 1000


def _slow_batch_chunk(spec):
    import time

    from jobs import tasks

    time.sleep(1.0 if spec["chunk"] == 1 else 0.0)
    return tasks.run_chunk(spec)


def test_a_run_logs_that_it_is_alive_while_a_chunk_runs_long(tmp_path, monkeypatch):
    from jobs import runner, tasks

    monkeypatch.setattr(runner, "LOG_EVERY_S", 0.2)
    config = small_batch(tmp_path / "run", n=20, workers=2)
    run_dir, config = runner.open_run(tasks.BATCH, config=config)
    runner.setup_log(run_dir)
    manifest = runner.execute(run_dir, config, replace(tasks.BATCH, run=_slow_batch_chunk), tasks.plan(config))
    assert manifest["status"] == "complete"
    assert "running, no chunk finished for" in run_dir.log_path.read_text()


# --- workers started before the run (issue 28) ---------------------------------------------------

def _engines_saying_ready(spec):
    """A task's engines that log, in the worker, that it got ready (and warm nothing)."""
    import logging

    logging.getLogger("jobs").warning("worker %d ready for chunk %d", os.getpid(), spec["chunk"])
    return []


def test_workers_started_before_the_run_warm_first_and_their_lines_reach_its_log(tmp_path):
    """Workers started before the run directory exists (as during a fuzz pre-flight) get ready at
    once, and what they log then waits for the run's log; the run takes them and stops them."""
    from jobs import runner, tasks
    from fuzz.targets import _children

    config = small_batch(tmp_path / "run", n=20, workers=2)
    task = replace(tasks.BATCH, engines=_engines_saying_ready)
    before = set(_children())
    with runner.start_workers(config, task, {"chunk": -1}) as pool:
        workers = set(_children()) - before
        assert len(workers) == 2
        run_dir, config = runner.open_run(task, config=config)
        runner.setup_log(run_dir)
        manifest = runner.execute(run_dir, config, task, tasks.plan(config), pool=pool)
    assert manifest["status"] == "complete"
    log = run_dir.log_path.read_text()
    assert {f"worker {pid} ready for chunk -1" in log for pid in workers} == {True}, log
    assert not set(_children()) - before


def test_workers_no_run_took_are_stopped(tmp_path):
    from jobs import runner, tasks
    from fuzz.targets import _children

    before = set(_children())
    with pytest.raises(KeyboardInterrupt):
        with runner.start_workers(small_batch(tmp_path, workers=2), replace(tasks.BATCH, engines=None), {}):
            assert len(set(_children()) - before) == 2
            raise KeyboardInterrupt
    assert not set(_children()) - before


def test_a_worker_started_early_and_killed_before_the_run_is_a_lost_backend_not_a_traceback():
    import time

    from jobs import backends
    from fuzz.targets import _children

    before = set(_children())
    pool = backends.start_local(2)
    os.kill(next(iter(set(_children()) - before)), signal.SIGKILL)
    time.sleep(0.5)  # the pool learns of it
    with pytest.raises(backends.BackendLost, match="worker process died"):
        list(local(_slow_chunk, [{"chunk": 0, "sleep": 0.0}], workers=2, pool=pool))
    assert not set(_children()) - before


@pytest.mark.parametrize("tool", ["jobs", "fuzz"])
def test_a_scheduler_without_the_dask_backend_is_refused_not_ignored(tmp_path, tool):
    from helpers import call_main

    if tool == "jobs":
        from jobs.cli import main
    else:
        from fuzz.cli import main
    done = call_main(main, ["run", "-n", "5", "--scheduler", "tcp://127.0.0.1:1", "--out", str(tmp_path / "run")])
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().endswith("--scheduler tcp://127.0.0.1:1 names a Dask scheduler: give --backend dask with it")
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "run").exists()


def test_a_lost_chunk_ends_the_run_naming_the_command_that_resumes_it(tmp_path):
    from jobs import runner, tasks
    from jobs.backends import BackendLost

    config = small_batch(tmp_path / "run", n=20, workers=2)
    run_dir, config = runner.open_run(tasks.BATCH, config=config)
    with pytest.raises(BackendLost) as raised:
        runner.run_with_progress(run_dir, config, replace(tasks.BATCH, run=_raise), tasks.plan(config),
                                 show_progress=False, resume_with=f"sudoku-jobs run --resume {run_dir.path}")
    assert str(raised.value).startswith("chunk ") and "failed in a worker: RuntimeError" in str(raised.value)
    assert str(raised.value).endswith(f"; finished chunks are kept; resume with: sudoku-jobs run --resume "
                                      f"{run_dir.path}")
    assert run_dir.read_manifest()["status"] == "failed"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_end_children_kills_and_reaps_our_children_and_lets_other_processes_be():
    """After a LocalCluster's close a worker busy in a task may live on (its nanny kills it seconds later)
    and start a fuzz target meanwhile: the backend ends its workers itself."""
    import subprocess

    from jobs.backends import _end_children

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    _end_children([child.pid, os.getppid()])  # our parent is no child of ours: let be
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)  # reaped already
    child.returncode = -9  # so Popen's finalizer does not wait on it


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_processes_are_read_from_proc_and_a_name_with_a_parenthesis_is_no_trouble(tmp_path):
    from jobs.processes import parent_of, processes, stat_of

    odd = tmp_path / "a) b"  # the command name in /proc/PID/stat is in parentheses: cut at the last one
    odd.symlink_to(sys.executable)
    child = subprocess.Popen([str(odd), "-c", "import time; time.sleep(30)"])
    try:
        fields = dict(processes())
        assert os.getpid() in fields and child.pid in fields
        assert parent_of(child.pid) == os.getpid() and parent_of(os.getpid()) == os.getppid()
        assert fields[child.pid][0] in (b"S", b"R") and int(fields[child.pid][1]) == os.getpid()
    finally:
        child.kill()
        child.wait()
    assert parent_of(child.pid) is None and stat_of("/proc/no-such/stat") is None

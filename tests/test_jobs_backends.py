"""The local backend survives what tasks do to their worker, and never waits for a lost chunk."""

import os
from dataclasses import replace
import signal
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

"""The local backend survives what tasks do to their worker, and never waits for a lost chunk."""

import os
import signal
import sys

import pytest

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

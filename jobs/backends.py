"""Backends: run a task over chunk specs and yield (spec, records) as chunks finish, in any order.

Both are generators; closing one (as an interrupted run does) stops its workers. No worker outlives
its run: a local worker dies with its parent, even one killed by SIGKILL (see ``_init_worker``).
"""

import gc
import logging
import multiprocessing
import os
import shutil
import signal
import socket
import tempfile
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any
from concurrent.futures.process import BrokenProcessPool

from sudoku.interrupts import SIGNALS, die_with

CONNECT_TIMEOUT_S = 10.0
_MAX_HANDSHAKE = 1 << 20  # a Dask handshake is a few hundred bytes; a length past this is no Dask


class BackendError(Exception):
    """A backend that cannot start: an unknown name, an unreachable scheduler, a missing package."""


class BackendLost(BackendError):
    """A worker or the backend failed while the run was going: finished chunks are kept; resume.

    A subclass of BackendError, so a caller that knows only BackendError still prints one line."""


Spec = dict[str, Any]
Chunks = Generator[tuple[Spec | None, Any], None, None]  # closed by the runner: stops the workers


# each BackendLost's message ends "finished chunks are kept"; the runner adds "; resume with: COMMAND"
WORKER_DIED = "a worker process died (killed by a signal, or out of memory); finished chunks are kept"
DASK_MISSING = "the dask backend needs Dask's 'distributed' package: pip install 'sudoku-toolkit[dask]'"


def check(name: str, scheduler: str | None, *, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Fail fast, before a run directory is made, unless backend ``name`` can run: a known name; for
    dask, the package importable (it is an extra: ``pip install 'sudoku-toolkit[dask]'``) and the
    ``scheduler``, when one is named, answering (``check_scheduler``)."""
    if name not in BACKENDS:
        raise BackendError(f"unknown backend {name!r}; known: {', '.join(BACKENDS)}")
    if name == "dask":
        try:
            import distributed  # noqa: F401  (the backend imports it anyway)
        except ImportError:
            raise BackendError(DASK_MISSING) from None
        if scheduler:
            check_scheduler(scheduler, timeout=timeout)


def check_new(name: str, scheduler: str | None, *, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """``check`` for a new run's options: a ``--scheduler`` with another backend than dask is refused,
    not ignored (the run would go on locally without a word). A resume takes its options from its
    manifest and is only ``check``ed."""
    if scheduler and name != "dask":
        raise BackendError(f"--scheduler {scheduler} names a Dask scheduler: give --backend dask with it")
    check(name, scheduler, timeout=timeout)


def check_scheduler(address: str, *, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Fail fast, before a run directory is made, unless a Dask scheduler answers at ``address``.

    Connects and reads the handshake a Dask server sends first (a length-prefixed frame of msgpack),
    within ``timeout`` seconds and at most _MAX_HANDSHAKE bytes: a server that says nothing, or
    something else, is refused here, where Dask itself would wait minutes or try to allocate the
    length that garbage spells.
    """
    import socket
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(address if "://" in address else f"tcp://{address}")
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if not host or not port or parts.scheme not in ("tcp", ""):
        raise BackendError(f"cannot reach the Dask scheduler at {address}: expected tcp://HOST:PORT")
    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection((host, port), timeout=timeout) as connection:
            problem = _handshake_problem(connection, deadline)
    except socket.timeout:
        problem = f"no Dask handshake within {timeout:g}s (--connect-timeout): not a Dask scheduler?"
    except OSError as error:
        problem = error.strerror or str(error)
    if problem:
        raise BackendError(f"cannot reach the Dask scheduler at {address}: {problem}")


def _read_exactly(connection: socket.socket, count: int, deadline: float) -> bytes:
    data = bytearray()
    while len(data) < count:
        connection.settimeout(max(0.01, deadline - time.monotonic()))
        piece = connection.recv(min(count - len(data), 65536))
        if not piece:
            raise ConnectionError("the server closed the connection")
        data += piece
    return bytes(data)


def _handshake_problem(connection: socket.socket, deadline: float) -> str | None:
    """None if the peer sends a Dask comm handshake, else what is wrong with what it sends."""
    import struct

    import msgpack

    try:
        (length,) = struct.unpack("<Q", _read_exactly(connection, 8, deadline))
        if not 16 <= length <= _MAX_HANDSHAKE:
            return f"it answers, but not as Dask does (a first frame of {length} bytes)"
        body = _read_exactly(connection, length, deadline)
        (frames,) = struct.unpack_from("<Q", body)
        if not 1 <= frames <= 64 or 8 + 8 * frames > length:
            return "it answers, but not as Dask does (a malformed handshake)"
        sizes = struct.unpack_from(f"<{frames}Q", body, 8)
        start = 8 + 8 * frames
        if start + sum(sizes) != length:
            return "it answers, but not as Dask does (a malformed handshake)"
        for size in sizes:  # the handshake's frames are msgpack; any that is not is no Dask
            msgpack.unpackb(body[start : start + size], raw=False, strict_map_key=False)
            start += size
    except ConnectionError as error:
        return f"it answers, but not as Dask does ({error})"
    except (ValueError, struct.error, msgpack.exceptions.ExtraData, msgpack.exceptions.UnpackException):
        return "it answers, but not as Dask does (its handshake is not msgpack)"
    return None


def _init_worker(parent: int, ready: Callable[[], None] | None = None) -> None:
    """A pool worker dies with its parent, leaves stopping to the parent, and fails no write quietly;
    then it gets ``ready`` (warms its engines: ``start_local``). A ``ready`` that fails is passed
    over: the first chunk does it again, and its error names the chunk."""
    die_with(parent)  # without it, workers of a parent killed by SIGKILL live on, ~160 MB each
    # Ctrl-C reaches the whole process group; only the parent acts on it, and stops the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # SIGTERM and SIGHUP may reach the group too (``timeout``, systemd, a closed terminal). A worker
    # must still die on SIGTERM (the pool stops a broken pool's workers with it), so it takes the
    # default action: an end without the traceback the inherited handler would print; the parent,
    # interrupted by the same signal, keeps the finished chunks.
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)  # blocked while the pool started (``local``)
    # A write to a pipe whose reader has gone (a fuzz target that ignores its stdin) must be an
    # error the task handles, never the death of the worker.
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    if ready is not None:
        try:
            ready()
        except Exception:
            pass


def _log_info() -> None:
    logging.getLogger("jobs").setLevel(logging.INFO)


def start_local(workers: int, ready: Callable[[], None] | None = None) -> ProcessPoolExecutor | None:
    """A local pool of ``workers`` processes forked now, each getting ``ready`` (its engines warmed)
    as it starts, for ``local(..., pool=)``: its start-up overlaps what the parent does before the
    run (issue 28: a fuzz run's pre-flight). None for one worker: the parent is that worker. The
    caller stops a pool no run took (``stop``); a run stops its own."""
    if workers == 1:
        return None
    executor = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"), initializer=_init_worker,
                                   initargs=(os.getpid(), ready))
    # The workers are forked at the first submit (all of them: forked pools do not grow on demand). A
    # stop signal handled in an at-fork hook would be lost (Python prints it and goes on), so the
    # signals wait, blocked, until every worker is started; each unblocks them for itself
    # (``_init_worker``).
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        with _frozen_for_fork():
            executor.submit(int)
    except BaseException:
        stop(executor)
        raise
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    return executor


@contextmanager
def _frozen_for_fork() -> Iterator[None]:
    """The parent's objects moved out of the garbage collector's reach while workers fork, and back
    after: the workers keep them frozen, so their collections neither scan nor write to the pages
    they share with the parent (as ``gc.freeze`` advises). At 100,000 cases on a local pool of 2,
    alternating rounds: 5.91 s against 6.08 s of wall, 10.7 s against 11.0 s of CPU."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def stop(pool: ProcessPoolExecutor | None, *, now: bool = True) -> None:
    """Stop a local pool's workers (``now``: at once, the work in flight lost) and wait for them;
    a pool already stopped is left as it is."""
    if pool is None:
        return
    if now:
        for process in list((pool._processes or {}).values()):
            process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def local(task: Callable[[Spec], Any], specs: list[Spec], *, workers: int, heartbeat: float | None = None,
          pool: ProcessPoolExecutor | None = None) -> Chunks:
    """A pool of ``workers`` processes on this machine (forked, so they share the parent's log), or
    ``pool``, started already (``start_local``); stopped when done.

    A worker that dies, or a task that raises, stops the run with a BackendLost (finished chunks
    stay saved); a plain process pool would wait forever for the lost chunk. With ``heartbeat``
    (seconds), ``(None, None)`` is yielded whenever that long passes with no chunk finished, so the
    caller can say the run is alive while a slow chunk runs (a pipe saw no line for minutes).
    """
    if workers == 1:
        for spec in specs:
            yield spec, task(spec)
        return
    executor = pool or start_local(workers)
    assert executor is not None
    finished = False
    try:
        try:
            futures = {executor.submit(task, spec): spec for spec in specs}
        except BrokenProcessPool:  # a worker started early (``start_local``) died before the run
            raise BackendLost(WORKER_DIED) from None
        for future in _as_completed(futures, heartbeat):
            if future is None:
                yield None, None
                continue
            # Drop each future once it is done: the dict would otherwise keep every finished chunk's
            # records alive until the run ends (1.5 GiB for a million cases); _as_completed lets go too.
            spec = futures.pop(future)
            try:
                records = future.result()
            except BrokenProcessPool:
                raise BackendLost(WORKER_DIED) from None
            except Exception as error:
                raise BackendLost(f"chunk {spec['chunk']} failed in a worker: {error!r}; finished chunks are kept") \
                    from None
            yield spec, records
        finished = True
    finally:
        stop(executor, now=not finished)  # interrupted or broken: stop the work in flight now


def _as_completed(futures: dict[Future[Any], Spec], heartbeat: float | None) -> Iterator[Future[Any] | None]:
    """The futures of ``futures`` as they complete, with None whenever ``heartbeat`` seconds pass and
    none completes. Those found done together come in chunk order: a worker's chunks finish in the
    order it ran them, so a chunk's failure never comes before a chunk the same worker finished
    earlier, whose part is then saved first (``as_completed`` gives such a batch in set order)."""
    pending = set(futures)
    while pending:
        finished, pending = wait(pending, timeout=heartbeat, return_when=FIRST_COMPLETED)
        if not finished:
            yield None
        yield from sorted(finished, key=lambda future: futures[future]["chunk"])


def dask(task: Callable[[Spec], Any], specs: list[Spec], *, scheduler: str | None = None, workers: int,
         connect_timeout: float = CONNECT_TIMEOUT_S, heartbeat: float | None = None) -> Chunks:
    """A Dask distributed cluster at ``scheduler`` (tcp://HOST:PORT), or a LocalCluster on loopback.

    A task that raises, a worker lost or the scheduler gone mid-run is a BackendLost."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise BackendError(DASK_MISSING) from None
    cluster = scratch = None
    try:
        if scheduler:
            client = Client(scheduler, timeout=f"{connect_timeout}s")
        else:
            scratch = tempfile.mkdtemp(prefix="dask-")  # the workers' own files, gone with the cluster
            cluster = _local_cluster(workers, scratch)
            client = Client(cluster)
    except (OSError, TimeoutError, ValueError) as error:  # ValueError: a malformed address
        if cluster is not None:
            cluster.close()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        raise BackendError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
    ours: list[int] = []  # the LocalCluster's worker processes, our children
    try:
        if cluster is not None:
            ours = [int(pid) for pid in client.run(os.getpid).values()]
        if cluster is None:  # a scheduler's workers are no forked children, as the LocalCluster's are
            # (whose lines reach the run log through multiprocessing-logging): ask them to forward the
            # runner's log records, which the client re-emits into the run log.
            client.run(_log_info)
            client.forward_logging("jobs", level=logging.INFO)
        futures = client.map(task, specs, pure=False)
        by_key = {future.key: spec for future, spec in zip(futures, specs)}
        pending = as_completed(futures)
        del futures  # as_completed drops each future once yielded; no list here may keep finished ones
        for future in pending:
            spec = by_key.pop(future.key)
            try:
                records = future.result()
            except Exception as error:
                raise BackendLost(f"chunk {spec['chunk']} failed on the Dask cluster: {error!r}; "
                                  "finished chunks are kept") from None
            future.release()  # the cluster may forget the result now
            del future
            yield spec, records
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
            _end_children(ours)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _end_children(pids: list[int]) -> None:
    """SIGKILL and reap those of ``pids`` still alive as our children. A LocalCluster's close returns
    while a worker busy in a task may live on for seconds (its nanny kills it 4 s later, from its own
    thread), going on with the chunk it was given: starting a fuzz target after the run stopped, which
    its death then leaves running. A pid no longer our child (reaped, perhaps reused) is let be."""
    from jobs.processes import parent_of

    for pid in pids:
        if parent_of(pid) != os.getpid():  # gone (or no /proc: the nanny's own kill is all there is)
            continue
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def _local_cluster(workers: int, directory: str) -> Any:
    """A LocalCluster of ``workers`` single-threaded worker processes on loopback, forked as a local
    pool's are: they inherit this process's imports (numpy, pyarrow, the runner) where spawned ones
    import them afresh, and they stop at once. On 2 cores that took the cluster's start from ~1.3 s to
    0.3 s and its close from ~1.4 s to 0.1 s (bench/bench_pipeline.py --only 2 --dask).
    It has no dashboard, so its workers neither profile their tasks nor sample the system for one,
    and their event loops check that they are alive once a second, not every 20 ms: each of those
    wakes takes the GIL from the task's thread. A chunk took 2.5 % less (0.1014 s against 0.1040 s),
    a run of 100,000 cases 3.6 % (4 alternating rounds). Its files go in ``directory`` (Dask's default
    folder, dask-scratch-space in the temporary folder, stayed behind after every run)."""
    import dask as dask_config
    from distributed import LocalCluster

    quiet = {"distributed.worker.multiprocessing-method": "fork", "distributed.worker.profile.enabled": False,
             "distributed.admin.tick.interval": "1s", "distributed.admin.system-monitor.interval": "5s"}
    with dask_config.config.set(quiet, temporary_directory=directory), _frozen_for_fork():
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                            dashboard_address=None, local_directory=directory)


BACKENDS: dict[str, Callable[..., Chunks]] = {"local": local, "dask": dask}

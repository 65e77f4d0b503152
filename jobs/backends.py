"""Backends: run a task over chunk specs and yield (spec, records) as chunks finish, in any order.

Both are generators; closing one (as an interrupted run does) stops its workers.
"""

import logging
import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool


class BackendError(Exception):
    """A backend that cannot start: an unknown name, an unreachable scheduler, a missing package."""


def check_scheduler(address, *, timeout=5.0):
    """Fail fast, before a run directory is made, when a Dask scheduler address is malformed or
    nothing answers there (Dask itself would wait out its own connect timeout first)."""
    import socket
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(address if "://" in address else f"tcp://{address}")
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if not host or not port:
        raise BackendError(f"cannot reach the Dask scheduler at {address}: expected tcp://HOST:PORT")
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as error:
        raise BackendError(f"cannot reach the Dask scheduler at {address}: {error.strerror or error}") from None


def _init_worker():
    # Ctrl-C reaches the whole process group; only the parent acts on it, and stops the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A write to a pipe whose reader has gone (a fuzz target that ignores its stdin) must be an
    # error the task handles, never the death of the worker.
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)


def _log_info():
    logging.getLogger("jobs").setLevel(logging.INFO)


def local(task, specs, *, workers):
    """A pool of ``workers`` processes on this machine (forked, so they share the parent's log).

    A worker that dies, or a task that raises, stops the run with a BackendError (finished chunks
    stay saved); a plain process pool would wait forever for the lost chunk.
    """
    if workers == 1:
        for spec in specs:
            yield spec, task(spec)
        return
    executor = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"), initializer=_init_worker)
    finished = False
    try:
        futures = {executor.submit(task, spec): spec for spec in specs}
        for future in as_completed(futures):
            spec = futures[future]
            try:
                records = future.result()
            except BrokenProcessPool:
                raise BackendError("a worker process died (killed by a signal, or out of memory); "
                                   "finished chunks are kept: resume the run") from None
            except Exception as error:
                raise BackendError(f"chunk {spec['chunk']} failed in a worker: {error!r}") from None
            yield spec, records
        finished = True
    finally:
        if not finished:  # interrupted or broken: stop the work in flight now
            for process in list((executor._processes or {}).values()):
                process.terminate()
        executor.shutdown(wait=True, cancel_futures=True)


def dask(task, specs, *, scheduler=None, workers):
    """A Dask distributed cluster at ``scheduler`` (tcp://HOST:PORT), or a LocalCluster on loopback."""
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise BackendError("the dask backend needs the 'distributed' package") from None
    cluster = None
    try:
        if scheduler:
            client = Client(scheduler, timeout="10s")
        else:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None)
            client = Client(cluster)
    except (OSError, TimeoutError, ValueError) as error:  # ValueError: a malformed address
        if cluster is not None:
            cluster.close()
        raise BackendError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
    try:
        # Dask workers are not forked children, so multiprocessing-logging cannot reach them: ask
        # them to forward the runner's log records, which the client re-emits into the run log.
        client.run(_log_info)
        client.forward_logging("jobs", level=logging.INFO)
        futures = client.map(task, specs, pure=False)
        by_key = {future.key: spec for future, spec in zip(futures, specs)}
        for future in as_completed(futures):
            yield by_key[future.key], future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


BACKENDS = {"local": local, "dask": dask}

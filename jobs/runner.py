"""The runner: plan chunks, run them on a backend, save each as it finishes, and keep the manifest.

The runner knows a task only through ``jobs.task.Task`` (its kind, its chunk function, its
configuration's class and file names). A run is fully described by its config (``jobs.config``: a
typed value, kept in the manifest as JSON), so ``--resume`` re-plans the same chunks from it (the task's ``plan``), refuses a plan
that differs from the recorded one, and runs only the chunks without a whole part on disk. ``open_run`` is the one entry for ``sudoku-jobs`` and ``fuzz``.
"""

import logging
import os
import platform
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache, partial
from importlib import metadata
from pathlib import Path
from typing import Any

from sudoku.display import counted
from sudoku.interrupts import Interrupted, Interrupts

from jobs import backends
from jobs import manifest as manifests
from jobs.config import C, RunConfig
from jobs.schema import SCHEMA_VERSION
from jobs.store import RunDir, RunDirError, WriteError
from jobs.task import Task

log = logging.getLogger("jobs")

COMPLETE, FINISHED_EARLY = "complete", "finished_early"  # a run's final statuses (jobs.manifest.STATUSES)
LOG_EVERY_S = 10.0
RELAY_BACKLOG = 10_000  # lines kept for a run log not made yet: a worker warming says a few
WARM_NOTE_AFTER_S = 5.0  # a warm-up longer than this is announced: it is compiling (loading takes 1-3 s)
WARM_EVERY_S = 15.0  # a compile's progress is said this often (kernels done, time left)


Specs = list[dict[str, Any]]
Progress = Callable[[int, int], None]


def host() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"hostname": socket.gethostname(), "cpu": cpu or platform.processor(), "cores": os.cpu_count(),
            "platform": platform.platform()}


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in ("sudoku-toolkit", "numpy", "numba", "pandas", "pyarrow", "distributed"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def provenance() -> dict[str, Any]:
    """The commit the code runs from and whether its tree was dirty (``sudoku.version``, the one git
    reader), for the manifest: a run of edited code must not pass for a run of its commit."""
    from sudoku.version import git_dirty, git_sha

    return {"git_sha": git_sha(), "git_dirty": git_dirty()}


def totals(records_table: Any) -> dict[str, int]:
    """Counts by outcome, from the saved records (only the ``outcome`` column is read)."""
    import pyarrow.compute as pc

    counts = {row["values"]: row["counts"] for row in pc.value_counts(records_table.column("outcome")).to_pylist()}
    return {"cases": len(records_table), "ok": counts.get("ok", 0), "failed": counts.get("failed", 0),
            "rejected": counts.get("rejected", 0)}


def missing_or_extra(cases: Any, specs: Specs) -> str | None:
    """``manifests.missing_or_extra`` for a ``case`` column (Arrow), checked in numpy first: a million
    cases as Python ints would cost ~100 MB; only a run that is not exactly-once pays for the message."""
    import numpy as np

    have = np.sort(np.concatenate([_int64s(chunk) for chunk in getattr(cases, "chunks", [cases])]
                                  or [np.empty(0, np.int64)]))
    wanted = np.sort(np.concatenate([np.arange(spec["start"], spec["start"] + spec["count"], dtype=np.int64)
                                     for spec in specs] or [np.empty(0, np.int64)]))
    if have.shape == wanted.shape and np.array_equal(have, wanted):
        return None
    return manifests.missing_or_extra(have.tolist(), specs)


def _int64s(array: Any) -> Any:
    """An Arrow int64 array's values as a numpy view of its buffer (a null reads as -1, never a case).
    Not ``to_numpy``: pyarrow imports pandas for it, a quarter of the parent's CPU at 100,000 cases."""
    import numpy as np

    values = np.frombuffer(array.buffers()[1], np.int64)[array.offset : array.offset + len(array)]
    if array.null_count:
        valid = np.unpackbits(np.frombuffer(array.buffers()[0], np.uint8), bitorder="little")
        values = np.where(valid[array.offset : array.offset + len(array)].astype(bool), values, -1)
    return values


class _LogFile(logging.FileHandler):
    """The run log, opened through ``sudoku.files.open_append`` (never through a link, never a FIFO); a
    line it cannot write (disk full) is dropped quietly: the run's own writes say what failed, once,
    where logging would print a traceback for every line."""

    def _open(self) -> Any:
        from sudoku.files import open_append

        return open_append(self.baseFilename)

    def handleError(self, record: logging.LogRecord) -> None:
        pass


def setup_log(run_dir: RunDir, *, verbose: bool = False) -> logging.Logger:
    """One log file for the parent and every forked worker (through multiprocessing-logging and
    ``forward_worker_logs``), and the console: warnings, or with ``verbose`` every line."""
    logger = forward_worker_logs()
    try:
        handler = _LogFile(run_dir.log_path)
    except OSError as error:
        raise WriteError(f"cannot write {run_dir.log_path}: {os.strerror(error.errno)}") from None  # type: ignore[arg-type]
    handler.setFormatter(logging.Formatter("%(asctime)s %(processName)s[%(process)d] %(levelname)s %(message)s"))
    sinks: list[logging.Handler] = [handler]
    if verbose or not sys.stderr.isatty():
        console = logging.StreamHandler(sys.stderr)
        console.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
        console.setLevel(logging.INFO if verbose else logging.WARNING)
        sinks.append(console)
    _relay().write_to(sinks)
    return logger


class _Relay(logging.Handler):
    """Where the parent's lines and its forked workers' go: the run's handlers, set by ``setup_log``.
    Until they are set (workers started before the run directory is made), lines
    wait here, up to RELAY_BACKLOG of them."""

    def __init__(self) -> None:
        super().__init__()
        self.sinks: list[logging.Handler] = []
        self.backlog: list[logging.LogRecord] | None = []

    def write_to(self, sinks: list[logging.Handler] | None) -> None:
        """Send lines to ``sinks`` from now on (the lines waiting first), or with None hold them until
        the next call; the handlers replaced are closed."""
        with self.lock:  # type: ignore[union-attr]  # a Handler's lock is made in __init__
            for old in self.sinks:
                old.close()
            self.sinks = sinks or []
            waiting, self.backlog = self.backlog or [], None if sinks else []
        for record in waiting:
            self.emit(record)

    def emit(self, record: logging.LogRecord) -> None:  # from the parent, and the queue's thread
        with self.lock:  # type: ignore[union-attr]
            if self.backlog is not None:
                if len(self.backlog) < RELAY_BACKLOG:
                    self.backlog.append(record)
                return
            sinks = self.sinks
        for sink in sinks:
            if record.levelno >= sink.level:
                sink.handle(record)


def _relay() -> _Relay:
    return _forwarding().sub_handler  # type: ignore[no-any-return]


def forward_worker_logs(*, hold: bool = False) -> logging.Logger:
    """The ``jobs`` logger, with the one handler that takes the lines of this process and of every
    worker forked from it from now on (once per process) to the run's handlers (``setup_log``).
    With ``hold``, lines wait for the next ``setup_log`` (workers started before their run's log)."""
    logger = logging.getLogger("jobs")
    _forwarding()
    if hold:
        _relay().write_to(None)
    return logger


def _forwarding() -> Any:
    """The ``jobs`` logger's forwarding handler, installed the first time: forked workers send their
    lines through its queue; the parent hands its own to the relay directly. A worker killed while it
    holds the queue's lock would otherwise block the parent's next line, and its exit, forever (seen
    in bench/fault_campaign.py)."""
    import multiprocessing_logging

    logger = logging.getLogger("jobs")
    for handler in logger.handlers:
        if getattr(handler, "parent", None) == os.getpid():
            return handler
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
        handler.close()
    logger.setLevel(logging.INFO)
    logger.propagate = False

    class ForkedWorkersOnly(multiprocessing_logging.MultiProcessingHandler):  # type: ignore[misc]
        parent = os.getpid()

        def emit(self, record: logging.LogRecord) -> None:
            if os.getpid() == self.parent:
                self.sub_handler.handle(record)
            else:
                super().emit(record)

    handler = ForkedWorkersOnly("mp-handler", sub_handler=_Relay())
    logger.addHandler(handler)
    return handler


def execute(run_dir: RunDir, config: RunConfig, task: Task[Any], specs: Specs, *, resume: bool = False,
            progress: Progress | None = None, pool: Any = None, max_failed: int | None = None) -> dict[str, Any]:
    """Run the specs of ``task`` (a ``jobs.task.Task``) without a whole part yet; keep the manifest
    current; return the final manifest.

    ``progress(cases, failed)`` is called as each chunk is saved, with the cases just finished and how
    many of them failed (a progress bar's update). Without a terminal, a log line every LOG_EVERY_S
    says the cases done, the failures so far, the rate and the time left.
    SIGINT, SIGTERM or SIGHUP (``sudoku.interrupts``) stops the workers, keeps every finished part and
    marks the run interrupted, naming the signal; one received while the manifest is being prepared or
    written is acted on once it is written, so the manifest never stays ``running``. A resume first
    checks the plan against the one recorded (RunDirError naming what differs) and moves aside any part
    that is not whole. The run is ``complete`` only when every planned case is saved exactly once. A
    write the system refuses (WriteError), a lost worker (BackendLost) or an incomplete run is raised
    after the manifest is marked ``failed`` with its reason, where it can still be written.
    ``pool`` is the run's workers, started already (``start_workers``); the run stops them.
    With ``max_failed`` the chunks stop once that many saved cases have failed (pytest's ``-x``, a
    resume's saved cases counted too): the chunks in flight are dropped, the run is ``finished_early``
    (``FINISHED_EARLY``), with the reason, and no resume goes on past that stop.
    """
    plan = manifests.plan(config, specs)
    manifest = run_dir.read_manifest() if resume else {}
    if resume and "plan" in manifest and (differences := manifests.plan_differences(manifest["plan"], plan)):
        raise RunDirError(f"{run_dir.path}: its plan and its config disagree, so a resume would not finish "
                          f"the same run: {'; '.join(differences)}")
    done, moved = run_dir.check_parts({spec["chunk"]: (spec["start"], spec["count"]) for spec in specs})
    for chunk, problem, where in moved:
        log.warning("chunk %d: its part is not whole (%s); moved aside to %s, running it again", chunk, problem, where)
    todo = [spec for spec in specs if spec["chunk"] not in done]
    interrupts = Interrupts()
    with interrupts:
        with interrupts.deferred(then_raise=False):  # a signal here stops the run before its first chunk
            started = time.time()
            manifest.update({
                "schema_version": SCHEMA_VERSION, "run_id": config.run_id, "config": config.to_manifest(),
                "seed": config.seed, "plan": plan, "versions": versions(), **provenance(), "host": host(),
                "status": "running", "reason": None, "chunks": len(specs), "command": sys.argv,
            })
            manifest.setdefault("started", datetime.now(timezone.utc).isoformat())
            manifest.setdefault("wall_s", 0.0)
            previous_wall = manifest["wall_s"]
            run_dir.write_manifest(manifest)
        status, error = _run_chunks(run_dir, config, task, specs, todo, done, interrupts, progress, pool,
                                    identity=_identity(manifest), max_failed=max_failed)
        with interrupts.deferred(then_raise=False):  # a second signal waits for these writes
            manifest["wall_s"] = previous_wall + time.time() - started
            status, error = _finish(run_dir, manifest, specs, status, error, signum=interrupts.signum,
                                    max_failed=max_failed)
    if error is not None:
        raise error
    return manifest


class Pace:
    """The cases a second of a run going on, for its time left: measured from the first chunk saved on,
    once there is one and another after it. The first chunk's time holds the workers' start-up (a
    first run's compile of the engines: minutes), which a rate since the start would spread over the
    whole run ("0 cases/s, about 294s left" with 4 s to go)."""

    def __init__(self, cases: int, now: float) -> None:
        self.start: tuple[int, float] = (cases, now)  # (cases saved, time) at the start
        self.first: tuple[int, float] | None = None  # at the first chunk saved
        self.last = (cases, now)

    def finished(self, cases: int, now: float) -> None:
        """A chunk was saved: ``cases`` saved in all, at ``now``."""
        if self.first is None:
            self.first = (cases, now)
        self.last = (cases, now)

    def rate(self) -> float:
        """Cases a second since the first chunk saved (since the start while no later one is)."""
        since = self.first if self.first is not None and self.last[0] > self.first[0] else self.start
        return (self.last[0] - since[0]) / max(self.last[1] - since[1], 1e-9)


def _run_chunks(run_dir: RunDir, config: RunConfig, task: Task[Any], specs: Specs, todo: Specs, done: set[int],
                interrupts: Interrupts, progress: Progress | None, pool: Any = None, *,
                identity: str, max_failed: int | None = None) -> tuple[str, BaseException | None]:
    """Run ``todo`` on the config's backend, saving each part as it comes; returns (status, error):
    ``complete``, ``interrupted`` (a stop signal, caught by ``interrupts``; the parts saved are kept),
    ``finished_early`` (``max_failed`` failed cases saved: the rest not run) or ``failed`` with the
    exception, which ``execute`` records before raising it. ``identity`` (run id @ start time:
    ``_identity``) tells a worker that the run directory it sees is this run's (``_sees_run``)."""
    backend = backends.BACKENDS[config.backend]
    options: dict[str, Any] = {"workers": config.workers, "heartbeat": LOG_EVERY_S}
    if config.backend == "dask":
        options["scheduler"] = config.scheduler
    elif pool is not None:
        options["pool"] = pool
    finished = len(done)
    total = sum(spec["count"] for spec in specs)
    cases = before = sum(spec["count"] for spec in specs if spec["chunk"] in done)
    failed = 0
    failed_before = _failed_in(run_dir.read_columns(["outcome"])) if max_failed and done else 0
    started = last_log = last_chunk = time.time()
    pace = Pace(before, started)
    try:  # from its first line: a signal anywhere here must leave the run interrupted, not running
        log.warning("run %s: %d chunk%s to do (%d already done), backend %s, %d worker%s", config.run_id,
                    len(todo), "" if len(todo) == 1 else "s", len(done), config.backend, config.workers,
                    "" if config.workers == 1 else "s")
        if interrupts.signum is not None:  # received while the run was being prepared
            raise Interrupted(interrupts.signum)
        if max_failed and failed_before >= max_failed and todo:  # stopped so before, interrupted after
            return FINISHED_EARLY, None
        # Each worker that sees the run directory (any local one; a Dask worker on this machine or on a
        # shared disk) writes its chunk's parts itself, and only a summary comes back; one on another
        # machine sends its records as one Arrow table, written here (``_run_and_stage``). The one local
        # worker is this process, whose write a stop signal must wait for: it writes here (``write_part``).
        staged = config.backend != "local" or config.workers > 1
        run = (partial(_run_and_stage, task.run, task.engines, str(run_dir.path), identity) if staged
               else partial(_run_to_table, task.run, task.engines))
        # closing: the workers are stopped before ``_finish`` clears the temporaries they may be writing
        with closing(backend(run, todo, **options)) as chunks:
            for spec, result in chunks:
                if spec is None:  # no chunk finished for LOG_EVERY_S: say the run is alive, and where it is
                    if progress:
                        progress(0, 0)
                    if time.time() - last_log >= LOG_EVERY_S:
                        last_log = time.time()
                        log.warning("%d of %d cases (%.0f %%), %d failed so far; running, no chunk finished for %.0fs",
                                    cases, total, 100 * cases / max(total, 1), failed, time.time() - last_chunk)
                    continue
                last_chunk = time.time()
                if isinstance(result, WriteError):  # a worker's write the system refused: exit 3, not a lost worker
                    raise result
                with interrupts.deferred():
                    if isinstance(result, Staged):
                        run_dir.commit_part(spec["chunk"], result.temporary)
                        count, newly = result.cases, result.failed
                    else:
                        run_dir.write_part(spec["chunk"], result)
                        count, newly = len(result), _failed_in(result)
                    finished += 1
                cases, failed = cases + count, failed + newly
                if progress:
                    progress(count, newly)
                if max_failed and failed_before + failed >= max_failed and finished < len(specs):
                    log.warning("%s, at the limit of %d: %s not run", counted(failed_before + failed, "failed case"),
                                max_failed, counted(len(specs) - finished, "chunk left is", "chunks left are"))
                    return FINISHED_EARLY, None  # leaving the loop closes the backend: the chunks in flight stop
                pace.finished(cases, time.time())
                if time.time() - last_log >= LOG_EVERY_S:
                    last_log = time.time()
                    rate = pace.rate()
                    log.warning("%d of %d cases (%.0f %%), %d failed so far, %.0f cases/s, about %.0fs left", cases,
                                total, 100 * cases / max(total, 1), failed, rate, (total - cases) / max(rate, 1e-9))
        return "complete", None
    except KeyboardInterrupt:
        log.warning("interrupted: %d of %d chunks saved", finished, len(specs))
        return "interrupted", None
    except Exception as caught:  # recorded in the manifest by execute, then raised again
        log.warning("failed: %s", caught)
        return "failed", caught


@contextmanager
def start_workers(config: RunConfig, task: Task[Any], spec: dict[str, Any]) -> Iterator[Any]:
    """The workers of a run not made yet, started now, each warming the engines of ``task``'s chunk
    ``spec`` (``_warm``) as it starts: their start-up (fork, engines) overlaps what the caller does
    before the run (a fuzz run's pre-flight), where it came after it (issue 28). For
    ``execute(..., pool=)``, which stops them; on leaving, workers no run took are stopped (a
    pre-flight that refuses the target leaves no process). Lines they log wait for the run's log
    (``setup_log``). None where nothing starts early: one worker (the parent) and Dask."""
    if config.backend != "local" or config.workers == 1:
        yield None
        return
    forward_worker_logs(hold=True)
    pool = backends.start_local(config.workers, partial(_warm_for, task.engines, spec) if task.engines else None)
    try:
        yield pool
    finally:
        backends.stop(pool)


def _warm_for(engines: Callable[[dict[str, Any]], list[str]], spec: dict[str, Any]) -> None:
    """``_warm`` the engines of ``spec``, named in the worker: naming them builds the run's targets,
    which, before the pre-flight, may not start (a program not on PATH), and that must be the
    pre-flight's one line, not a traceback here (a worker's failed warm-up is passed over)."""
    _warm(engines(spec))


def _warm(names: list[str]) -> None:
    """Warm the engines ``names`` in this worker, once, before its first chunk; say so if it takes a
    while (the first run after an install compiles them). Each worker pays it, in parallel, not the
    parent before the pool starts: there it was on every run's critical path, and most of the parent's
    CPU at 100,000 cases (issue 28)."""
    from sudoku import engines

    names = engines.cold(*names)
    if not names:
        return
    note = threading.Timer(WARM_NOTE_AFTER_S, log.warning, (
        "worker %d: loading the compiled kernels of %s once (the first run after an install compiles them "
        "into numba's cache; how far it is follows)", os.getpid(), ", ".join(names)))
    note.daemon = True
    started = time.time()
    note.start()
    from sudoku.engines.compiling import now_and_then

    def tell(progress: Any) -> None:  # a compile's progress, said now and then (a warm cache says nothing)
        log.warning("worker %d: compiling %s: %s", os.getpid(), ", ".join(names), progress.words())

    try:
        engines.warm(*names, tell=now_and_then(tell, WARM_EVERY_S))
    finally:
        note.cancel()
    if time.time() - started >= WARM_NOTE_AFTER_S:
        log.warning("worker %d: kernels ready in %.0fs", os.getpid(), time.time() - started)


def _finish(run_dir: RunDir, manifest: dict[str, Any], specs: Specs, status: str, error: BaseException | None, *,
            signum: int | None = None, max_failed: int | None = None) -> tuple[str, BaseException | None]:
    """Rebuild the CSV, check every planned case is saved once, write the manifest, clear temporaries;
    returns (status, the error to raise or None). A write that fails here is recorded where it can be.
    The reason of an interrupted run names the signal (``signum``) that stopped it.

    In bounded memory: the totals and the exactly-once check read only ``case`` and ``outcome``, and the
    CSV is streamed one part at a time."""
    totals_now: dict[str, int] = {}
    try:
        narrow = run_dir.read_columns(["case", "outcome"])
        totals_now = totals(narrow)
        if status == "complete" and (problem := missing_or_extra(narrow.column("case"), specs)):
            status, error = "failed", RunDirError(f"{run_dir.path}: not complete: {problem}")
        del narrow
        run_dir.write_csv()
        if status in (COMPLETE, FINISHED_EARLY):  # neither goes on: records.csv is whole
            run_dir.clear_csv_parts()
    except RunDirError as caught:  # WriteError included
        status, error = "failed", error or caught
    if error is not None:
        status = "failed"
    reason = str(error) if error is not None else None
    if status == "interrupted" and signum is not None:
        reason = f"interrupted by {signal.Signals(signum).name}"
    if status == FINISHED_EARLY:
        reason = f"stopped early: {counted(totals_now.get('failed', 0), 'failed case')}, at the limit of {max_failed}"
    manifest.update({"status": status, "reason": reason, "totals": totals_now,
                     "chunks_done": len(run_dir.done_chunks()), "wall_s": manifest.get("wall_s", 0.0),
                     "finished": datetime.now(timezone.utc).isoformat()})
    try:
        run_dir.write_manifest(manifest)
    except RunDirError as caught:
        error = error or caught
    try:
        run_dir.clear_temporaries()
    except OSError:
        pass
    return status, error


@contextmanager
def stopping(run_dir: RunDir, resume: str) -> Iterator[None]:
    """Around a command's own work on an open run, outside ``execute`` (reading its input, replaying
    a corpus, shrinking): a stop signal or an error there leaves the manifest ``interrupted`` or
    ``failed`` with its totals, never ``running``, and an interrupt prints the ``resume`` command."""
    try:
        yield
    except BaseException as error:
        try:
            manifest = run_dir.read_manifest()
        except RunDirError:
            manifest = None
        if manifest is not None and manifest.get("status") == "running":
            stopped = isinstance(error, KeyboardInterrupt)
            _finish(run_dir, manifest, [], "interrupted" if stopped else "failed", None if stopped else error,
                    signum=getattr(error, "signum", signal.SIGINT) if stopped else None)
        if isinstance(error, KeyboardInterrupt):
            print(f"resume with: {resume}", file=sys.stderr)
        raise


def open_run(task: Task[C], *, resume: str | Path | None = None, config: C | None = None,
             force: bool = False) -> tuple[RunDir, C]:
    """The run directory and config of a new run of ``task`` (a ``jobs.task.Task``; made now, with its
    manifest, so a run killed at any moment can be resumed) or of ``resume``, an existing one (its
    config comes from its manifest, once checked against the manifest schema: a run of another kind
    is refused, and the task's config class reads its fields, as in ``RunDir.read_config``). Either
    way the directory is locked for this process's life: a second process on the same run is refused."""
    if resume:
        run_dir = RunDir(resume, task)
        config = run_dir.read_config(kind=task.kind, config=task.config)
        if (manifest := run_dir.read_manifest()).get("status") == FINISHED_EARLY:  # as asked: nothing left to do
            raise RunDirError(f"{run_dir.path} finished early, as asked ({manifest.get('reason')}): there is "
                              "nothing to resume; a new run with the same seed makes the same cases")
        run_dir.lock()
        run_dir.refuse_strangers()
        run_dir.clear_temporaries()
        return run_dir, config
    assert config is not None, "a new run needs its config"
    run_dir = RunDir(config.out, task)
    run_dir.create(force=force, manifest={"schema_version": SCHEMA_VERSION, "run_id": config.run_id,
                                          "config": config.to_manifest(), "status": "running"})
    return run_dir, config


@dataclass(frozen=True)
class Staged:
    """What a worker sends back for a chunk whose part it wrote (``_run_and_stage``): the
    temporary the parent commits, and the counts its progress needs. A few dozen bytes, where the
    records themselves cost the parent unpickling, converting and writing them, per case."""

    temporary: str
    cases: int
    failed: int


Engines = Callable[[dict[str, Any]], list[str]] | None


def _run_and_stage(run: Callable[[dict[str, Any]], Any], engines: Engines, path: str, identity: str,
                   spec: dict[str, Any]) -> "Staged | WriteError | Any":
    """In a worker: warm the task's ``engines`` (once per worker), run the chunk, write its records to
    temporary parts in the run at ``path`` (``RunDir.stage_part``, the store's one way to write a
    part) and return a ``Staged``. A worker that does not see this run there (a Dask worker on
    another machine: ``_sees_run``) returns the records as one Arrow table for the parent to write
    (Dask sends its buffers as they are, where a list of dicts would be pickled row by row).

    A write the system refuses comes back as its WriteError, a value, for the parent to raise: raised
    here, the backend would report a failed worker (BackendLost, exit 4) where the run must end as a
    write error (exit 3) that a resume, after freeing space, finishes. A failing task still raises."""
    records = _warm_and_run(run, engines, spec)
    if not _sees_run(path, identity):
        from jobs.schema import table

        return table(records)
    try:
        temporary = RunDir(path).stage_part(spec["chunk"], records)
    except WriteError as error:
        return error
    return Staged(str(temporary), len(records), _failed_in(records))


def _identity(manifest: dict[str, Any]) -> str:
    """A run as its manifest names it: run id @ start time (kept by a resume)."""
    return f"{manifest.get('run_id')}@{manifest.get('started')}"


@lru_cache(maxsize=16)
def _sees_run(path: str, identity: str) -> bool:
    """Whether this worker sees, at ``path``, the run ``identity`` (``_identity`` of its manifest),
    and may write there: once per worker and run. Read by a worker of a Dask scheduler, which may
    be on this machine or share its disk: then it writes its parts, and the parent only commits
    them (100,000 cases on a scheduler and 2 workers here: the parent's CPU 1.9 s -> 0.8 s, the run
    0.86x -> 0.95x a local pool's speed, bench/bench_pipeline.py --cluster)."""
    try:
        manifest = RunDir(path).read_manifest()
    except RunDirError:
        return False
    return isinstance(manifest, dict) and _identity(manifest) == identity and os.access(path, os.W_OK)


def _run_to_table(run: Callable[[dict[str, Any]], Any], engines: Engines, spec: dict[str, Any]) -> Any:
    """Where the parent writes the records (this process, the one local worker): the chunk's records
    as one Arrow table in the schema."""
    from jobs.schema import table

    return table(_warm_and_run(run, engines, spec))


def _warm_and_run(run: Callable[[dict[str, Any]], Any], engines: Engines, spec: dict[str, Any]) -> Any:
    """Warm the task's ``engines`` (once per worker), then run the chunk: its records."""
    if engines is not None:
        _warm(engines(spec))
    return run(spec)


def _failed_in(records: Any) -> int:
    """Failed cases among a chunk's records (dicts, or an Arrow table)."""
    if hasattr(records, "column"):
        import pyarrow.compute as pc

        return pc.sum(pc.equal(records.column("outcome"), "failed")).as_py() or 0
    return sum(record.get("outcome") == "failed" for record in records)


def _bar_update(bar: Any) -> Progress:
    """A progress callback that moves ``bar`` and shows the failures so far beside it."""
    failed = 0

    def update(cases: int, newly: int) -> None:
        nonlocal failed
        failed += newly
        bar.set_postfix(failed=failed, refresh=False)
        bar.update(cases)

    return update


def run_with_progress(run_dir: RunDir, config: RunConfig, task: Task[Any], specs: Specs, *, resume: bool = False,
                      show_progress: bool = True, unit: str = "case", pool: Any = None,
                      resume_with: str | None = None, max_failed: int | None = None) -> dict[str, Any]:
    """``execute`` with a progress bar when stderr is a terminal (periodic log lines otherwise); a lost
    worker or a failed write ends it with an error that names ``resume_with``, the command that goes on."""
    bar = None
    if show_progress and sys.stderr.isatty():
        from tqdm import tqdm

        done = run_dir.done_chunks()
        bar = tqdm(total=sum(spec["count"] for spec in specs),
                   initial=sum(spec["count"] for spec in specs if spec["chunk"] in done), unit=unit, file=sys.stderr)
    try:
        return execute(run_dir, config, task, specs, resume=resume, progress=_bar_update(bar) if bar else None,
                       pool=pool, max_failed=max_failed)
    except backends.BackendLost as error:
        if resume_with is None:
            raise
        raise backends.BackendLost(f"{error}; resume with: {resume_with}") from None
    except WriteError as error:
        if resume_with is None:
            raise
        raise WriteError(f"{error}; finished chunks are kept: once it can be written, resume with: "
                         f"{resume_with}") from None
    finally:
        if bar:
            bar.close()

"""The runner: plan chunks, run them on a backend, save each as it finishes, and keep the manifest.

A run is fully described by its config (a JSON-able dict kept in the manifest), so ``--resume``
re-plans the same chunks from it and runs only those without a part on disk.
"""

import logging
import os
import platform
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from jobs import backends
from jobs.schema import SCHEMA_VERSION
from jobs.store import RunDir

log = logging.getLogger("jobs")

CHUNK_SIZE = 50
LOG_EVERY_S = 10.0


def plan(config, lines=None):
    """Chunk specs for a config: ``n`` created cases, or one case per (number, text) in ``lines``."""
    size = config["chunk_size"]
    common = {key: config[key] for key in ("run_id", "seed", "engine", "check_engine", "difficulty", "blanks")}
    specs = []
    if lines is None:
        for chunk, start in enumerate(range(0, config["n"], size)):
            specs.append({**common, "mode": "create", "chunk": chunk, "start": start,
                          "count": min(size, config["n"] - start), "box": config["box"]})
    else:
        source = Path(config["input"]).name
        for chunk, start in enumerate(range(0, len(lines), size)):
            part = lines[start : start + size]
            specs.append({**common, "mode": "input", "chunk": chunk, "start": start, "count": len(part),
                          "lines": part, "source": source})
    return specs


def host():
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


def versions():
    out = {"python": platform.python_version()}
    for name in ("sudoku-toolkit", "numpy", "numba", "pandas", "pyarrow", "distributed"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def git_sha():
    try:
        result = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                                cwd=Path(__file__).resolve().parent)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() or None if result.returncode == 0 else None


def totals(records_table):
    """Counts by outcome, from the saved records."""
    outcomes = records_table.column("outcome").to_pylist()
    return {"cases": len(outcomes), "ok": outcomes.count("ok"), "failed": outcomes.count("failed"),
            "rejected": outcomes.count("rejected")}


def setup_log(run_dir, *, verbose=False):
    """One log file for the parent and every forked worker (through multiprocessing-logging)."""
    import multiprocessing_logging

    logger = logging.getLogger("jobs")
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
        handler.close()
    logger.setLevel(logging.INFO)
    logger.propagate = False
    handler = logging.FileHandler(run_dir.log_path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(processName)s[%(process)d] %(levelname)s %(message)s"))
    logger.addHandler(handler)
    if verbose or not sys.stderr.isatty():
        console = logging.StreamHandler(sys.stderr)
        console.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
        console.setLevel(logging.INFO if verbose else logging.WARNING)
        logger.addHandler(console)
    multiprocessing_logging.install_mp_handler(logger)
    return logger


class _Interrupts:
    """Ctrl-C as an exception, except while a part, the CSV or the manifest is being written.

    There it only sets a flag, acted on once the write is done: raised inside a writer's cleanup
    (``__del__``), a KeyboardInterrupt is ignored by Python, and the run would go on as if never
    interrupted.
    """

    def __init__(self):
        self.pending = False
        self.writing = False
        self.previous = None

    def __call__(self, signum, frame):
        self.pending = True
        if not self.writing:
            raise KeyboardInterrupt

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self)
        return self

    def __exit__(self, *exc):
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)

    @contextmanager
    def write(self, *, then_raise=True):
        self.writing = True
        try:
            yield
        finally:
            self.writing = False
        if self.pending and then_raise:
            raise KeyboardInterrupt


def execute(run_dir, config, task, specs, *, resume=False, progress=None):
    """Run the specs without a part yet; keep the manifest current; return the final manifest.

    ``progress`` is called with the number of cases just finished (a progress bar's ``update``).
    Ctrl-C stops the workers, keeps every finished part and marks the run interrupted.
    """
    done = run_dir.done_chunks()
    todo = [spec for spec in specs if spec["chunk"] not in done]
    manifest = run_dir.read_manifest() if resume else {}
    started = time.time()
    manifest.update({
        "schema_version": SCHEMA_VERSION, "run_id": config["run_id"], "config": config, "seed": config["seed"],
        "versions": versions(), "git_sha": git_sha(), "host": host(), "status": "running",
        "chunks": len(specs), "command": sys.argv,
    })
    manifest.setdefault("started", datetime.now(timezone.utc).isoformat())
    manifest.setdefault("wall_s", 0.0)
    previous_wall = manifest["wall_s"]
    run_dir.write_manifest(manifest)
    log.warning("run %s: %d chunks to do (%d already done), backend %s, %d workers", config["run_id"], len(todo),
                len(done), config["backend"], config["workers"])
    backend = backends.BACKENDS[config["backend"]]
    options = {"workers": config["workers"]}
    if config["backend"] == "dask":
        options["scheduler"] = config.get("scheduler")
    finished = len(done)
    last_log = time.time()
    status = "failed"
    interrupts = _Interrupts()
    try:
        with interrupts:
            for spec, records in backend(task, todo, **options):
                with interrupts.write():
                    run_dir.write_part(spec["chunk"], records)
                    finished += 1
                if progress:
                    progress(len(records))
                if time.time() - last_log >= LOG_EVERY_S:
                    last_log = time.time()
                    log.warning("%d of %d chunks done", finished, len(specs))
            status = "complete"
    except KeyboardInterrupt:
        status = "interrupted"
        log.warning("interrupted: %d of %d chunks saved", finished, len(specs))
    finally:
        with interrupts, interrupts.write(then_raise=False):  # a second Ctrl-C waits for these writes
            records_table = run_dir.read_table()
            run_dir.write_csv(records_table)
            manifest.update({"status": status, "totals": totals(records_table),
                             "chunks_done": len(run_dir.done_chunks()), "wall_s": previous_wall + time.time() - started,
                             "finished": datetime.now(timezone.utc).isoformat()})
            run_dir.write_manifest(manifest)
    return manifest


def open_run(*, resume=None, config=None, force=False):
    """The run directory and config of a new run (made now, with its manifest, so a run killed at any
    moment can be resumed) or of ``resume``, an existing one (its config comes from its manifest)."""
    if resume:
        run_dir = RunDir(resume)
        config = run_dir.read_manifest()["config"]
        run_dir.clear_temporaries()
        return run_dir, config
    run_dir = RunDir(config["out"])
    run_dir.create(force=force, manifest={"run_id": config["run_id"], "config": config, "status": "running"})
    return run_dir, config


def run_with_progress(run_dir, config, task, specs, *, resume=False, show_progress=True, unit="case"):
    """``execute`` with a progress bar when stderr is a terminal (periodic log lines otherwise)."""
    bar = None
    if show_progress and sys.stderr.isatty():
        from tqdm import tqdm

        done = run_dir.done_chunks()
        bar = tqdm(total=sum(spec["count"] for spec in specs),
                   initial=sum(spec["count"] for spec in specs if spec["chunk"] in done), unit=unit, file=sys.stderr)
    try:
        return execute(run_dir, config, task, specs, resume=resume, progress=bar.update if bar else None)
    finally:
        if bar:
            bar.close()

"""The run directory: Parquet parts, a CSV of the same rows, manifest.json and the log.

Layout (every name a run writes; ``--force`` deletes these and nothing else)::

    RUN/manifest.json       config, plan, input digest, seed, versions, host, totals, wall time, status
    RUN/parts/chunk-000007.parquet   one part per finished chunk, written atomically
    RUN/csv/chunk-000007.csv         the same rows as CSV lines (no header), written with the part;
                                     joined into records.csv, then removed once the run is complete
    RUN/corrupt/chunk-000007.parquet.corrupt   a part that failed its check, moved aside (then redone)
    RUN/records.csv         every row, joined from the CSV parts (or made from a part) when the run stops
    RUN/run.log             one log for the parent and every worker
    RUN/.lock               held (flock) by the one process running the run
    RUN/...                 what the run's task writes (``jobs.task.Task.files``: a fuzz run's corpus)

A part is written to a hidden temporary name and renamed into place, so a reader (or a resume) never
sees half a part; hidden names are also skipped by Arrow's dataset reader. Every write that the
operating system refuses (disk full, a file size limit, a read-only file system, a path through a
file) is a ``WriteError`` naming the path, with its temporary removed.

Whoever runs a chunk writes both its parts (``stage_part``), so that the process that collects many
chunks only renames them (``commit_part``) and joins CSV bytes at the end: its CPU per case is what
limits how many workers help (issue 28).
"""

import errno
import fcntl
import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from os import PathLike
from pathlib import Path
from typing import Any, overload

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from jobs import manifest as manifests
from jobs.config import C, RunConfig
from sudoku.files import real_folder, regular, replacing
from jobs.lock import LOCK_NAME, held
from jobs.schema import SCHEMA, columns_of, run_metadata, table
from jobs.task import Task

_PART = re.compile(r"^chunk-(\d{6,})\.parquet$")
# What the runner writes, relative to RUN (links are never owned); a task adds its own (``Task.files``
# and ``Task.dirs``): together the only names --force deletes.
_OWNED_FILES = r"""(?:
      manifest\.json | records\.csv | run\.log | \.lock
    | \.manifest\.json\.tmp | \.records\.csv\.tmp
    | parts/chunk-\d{6,}\.parquet | parts/\.chunk-\d{6,}\.parquet\.\d+\.tmp
    | csv/chunk-\d{6,}\.csv | csv/\.chunk-\d{6,}\.csv\.\d+\.tmp
    | corrupt/chunk-\d{6,}\.parquet\.corrupt(?:\.\d+)?
)"""
_OWNED_DIRS = r"(?:parts|csv|corrupt)"
LOCK_WAIT_S = 3.0  # a killed run's forked workers may hold its lock for a moment while they die


def _schema_of(columns: list[str]) -> Any:
    """The record schema narrowed to ``columns``, in that order."""
    return pa.schema([SCHEMA.field(name) for name in columns])


def _conform(part: Any, schema: Any) -> Any:
    """``part`` in ``schema``: columns in its order, cast to its types; a column an older part lacks is
    all nulls (as ``read_table``'s promotion gives)."""
    columns = [part.column(field.name).cast(field.type) if field.name in part.column_names
               else pa.nulls(len(part), field.type) for field in schema]
    return pa.Table.from_arrays(columns, schema=schema)


def _csv_header(schema: Any) -> bytes:
    """records.csv's first line for ``schema``, as Arrow writes it (not through ``empty_table``, which
    imports pandas: a quarter of the runner's CPU at 100,000 cases)."""
    sink = pa.BufferOutputStream()
    with pacsv.CSVWriter(sink, schema):
        pass
    header: bytes = sink.getvalue().to_pybytes()
    return header


class RunDirError(Exception):
    """A run directory that cannot be used as asked (exists, missing, corrupt, in use, not ours)."""


class WriteError(RunDirError):
    """A write the operating system refused: disk full, a file size limit, read-only, not a directory.

    A subclass of RunDirError, so a caller that knows only RunDirError still prints one line."""


def _not_a_file(path: Path) -> str | None:
    """Why ``path`` is no file a run may write over (a folder, a FIFO), None when it is one or absent."""
    return regular(path) if os.path.lexists(path) else None


def _write_error(path: str | PathLike[str], error: OSError) -> WriteError:
    reason = os.strerror(error.errno) if error.errno else str(error)
    return WriteError(f"cannot write {path}: {reason}")


@contextmanager
def _writing(path: str | PathLike[str], temporary: str | PathLike[str] | None = None) -> Iterator[None]:
    """Turn an OSError into a WriteError naming ``path``; remove ``temporary`` if the write did not finish."""
    try:
        yield
    except BaseException as error:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass
        if isinstance(error, OSError):
            raise _write_error(path, error) from None
        raise


class RunDir:
    def __init__(self, path: str | PathLike[str], task: Task[Any] | None = None) -> None:
        self.path = Path(path)
        self.task = task  # what else a run writes here (jobs.task.Task), beside the runner's own files
        self.parts = self.path / "parts"
        self.csv_parts = self.path / "csv"
        self.corrupt = self.path / "corrupt"
        self.manifest_path = self.path / "manifest.json"
        self.csv_path = self.path / "records.csv"
        self.log_path = self.path / "run.log"
        self._run_written: tuple[dict[str, str], Any] | None = None  # what its parts hold (``_written``)
        self.lock_path = self.path / LOCK_NAME
        self._lock: int | None = None

    # --- making, replacing and locking ------------------------------------------------------------------

    def create(self, *, force: bool = False, manifest: dict[str, Any] | None = None) -> None:
        """Make a fresh run directory, locked by this process; an existing non-empty one needs ``force``.

        ``force`` replaces only a run directory (its manifest is one this tool wrote) and deletes only
        the names a run writes; anything else there, a link, or a run in use is refused, and nothing is
        touched (git's rule: never delete what you did not make). The new directory is built under a
        hidden name, with ``manifest`` in it, and renamed into place: a run killed at any moment either
        has no directory yet or one that ``--resume`` can finish.
        """
        if self.path.is_symlink():
            raise RunDirError(f"{self.path} is a symbolic link (to {os.readlink(self.path)}); give the run "
                              "directory's own path: a run never replaces or deletes through a link")
        if self.path.exists() and not self.path.is_dir():
            raise RunDirError(f"{self.path} exists and is not a directory")
        previous_lock = self._lock
        if self.path.exists() and any(self.path.iterdir()):
            if not force:
                raise RunDirError(self._taken())
            self._clear_for_force()
        above = next(parent for parent in self.path.parents if parent.exists())
        if not above.is_dir():
            raise WriteError(f"cannot write {self.path}: {os.strerror(errno.ENOTDIR)} ({above} is a file)")
        staging = RunDir(self.path.parent / f".{self.path.name}.{os.getpid()}.tmp", self.task)
        with _writing(self.path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            shutil.rmtree(staging.path, ignore_errors=True)
            try:
                staging.parts.mkdir(parents=True)
                staging.lock(wait=0)  # the lock goes with the directory's inode through the rename
                if manifest is not None:
                    staging.write_manifest(manifest)
                os.replace(staging.path, self.path)  # onto nothing, or onto the empty directory left above
            except BaseException:
                shutil.rmtree(staging.path, ignore_errors=True)
                raise
        self._lock, staging._lock = staging._lock, None
        if previous_lock is not None:  # the lock of the directory just replaced
            os.close(previous_lock)

    def _taken(self) -> str:
        """Why a new run cannot go to this existing, non-empty directory, and what can be done: a run
        not finished can be resumed; a finished one, or anything else, only given another --out (or,
        for a run, replaced with --force)."""
        try:
            status = self.read_manifest().get("status")
        except (RunDirError, AttributeError):  # no manifest, or not one of ours: --force refuses it too
            return f"{self.path} already exists and is not a run directory; choose another --out"
        if status == "complete":
            return f"{self.path} already holds a finished run; choose another --out, or --force to replace it"
        return f"{self.path} already exists; use --resume {self.path} to finish it or --force to replace it"

    def _clear_for_force(self) -> None:
        try:
            self.read_config()
        except RunDirError as error:
            raise RunDirError(f"{self.path} is not a run directory this tool made ({error}); "
                              "refusing to clear it even with --force") from None
        self.lock()  # a run in progress is never replaced; and none can start while this one looks
        files, dirs, foreign = self._inventory()
        if foreign:
            shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
            raise RunDirError(f"{self.path} holds what no run writes ({shown}); refusing to clear it even "
                              "with --force: move those away or choose another --out")
        with _writing(self.path):
            for name in files:
                os.unlink(self.path / name)
            for name in sorted(dirs, key=lambda d: -d.count("/")):
                os.rmdir(self.path / name)

    def _inventory(self) -> tuple[list[str], list[str], list[str]]:
        """(owned files, owned dirs, foreign entries) under RUN, relative names; links are not followed."""
        files: list[str] = []
        dirs: list[str] = []
        foreign: list[str] = []
        extra_files, extra_dirs = (self.task.files, self.task.dirs) if self.task else (r"(?!)", r"(?!)")
        owned_file = re.compile(rf"^(?:{_OWNED_FILES}|{extra_files})$", re.X)
        owned_dir = re.compile(rf"^(?:{_OWNED_DIRS}|{extra_dirs})$", re.X)

        def walk(relative: str) -> None:
            with os.scandir(self.path / relative if relative else self.path) as entries:
                for entry in entries:
                    name = f"{relative}/{entry.name}" if relative else entry.name
                    if entry.is_symlink():
                        foreign.append(f"{name} (a link)")
                    elif entry.is_dir(follow_symlinks=False):
                        if owned_dir.match(name):
                            dirs.append(name)
                            walk(name)
                        else:
                            foreign.append(f"{name}/")
                    elif entry.is_file(follow_symlinks=False) and owned_file.match(name):
                        files.append(name)
                    else:
                        foreign.append(name)

        walk("")
        return files, dirs, sorted(foreign)

    def lock(self, *, wait: float = LOCK_WAIT_S) -> None:
        """Hold RUN/.lock (flock) for this process's life, so two processes never run one run at once.

        A run just killed may hold it for a moment through its dying workers: wait up to ``wait`` s."""
        if self._lock is not None:
            return
        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as error:
            if error.errno in (errno.EROFS, errno.EACCES, errno.ENOSPC, errno.EDQUOT, errno.ENOTDIR):
                raise _write_error(self.lock_path, error) from None
            raise RunDirError(f"cannot lock {self.lock_path}: {os.strerror(error.errno)}") from None  # type: ignore[arg-type]
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
                    os.close(fd)
                    raise RunDirError(f"{self.path} is in use by another process"
                                      f"{f' (pid {holder})' if holder.isdigit() else ''}; "
                                      "wait for it to end, or stop it first") from None
                time.sleep(0.05)
        try:  # who holds it, for the message above; a full disk must not stop the run here
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass
        self._lock = fd

    def in_use(self) -> bool:
        """Whether a process holds RUN/.lock now (a run going on): ``jobs.lock.held``."""
        return held(self.path)

    # --- parts ---------------------------------------------------------------------------------------

    def part_path(self, chunk: int) -> Path:
        return self.parts / f"chunk-{chunk:06d}.parquet"

    def csv_part_path(self, chunk: int) -> Path:
        return self.csv_parts / f"chunk-{chunk:06d}.csv"

    def write_part(self, chunk: int, records: Any) -> None:
        """Write one chunk's records atomically: temporary hidden files, then renames."""
        self.commit_part(chunk, self.stage_part(chunk, records))

    def stage_part(self, chunk: int, records: Any) -> Path:
        """Write one chunk's records, in case order, to a temporary Parquet part and a temporary CSV
        part, and return the first's path; only ``commit_part`` makes them the chunk's. The costly half
        of ``write_part`` (converting and writing), done where the chunk ran.

        The temporaries' names carry this process's pid, so writers never share one; they are the only
        temporary names the store gives parts, which ``clear_temporaries`` and ``--force`` know. A write
        the system refuses is a WriteError naming the part, with the temporaries removed."""
        final, final_csv = self.part_path(chunk), self.csv_part_path(chunk)
        temporary = self.parts / f".{final.name}.{os.getpid()}.tmp"
        temporary_csv = self._csv_temporary(chunk, temporary)
        metadata, written = self._written()
        records = table(records).select(written.names).sort_by("case")
        with _writing(final, temporary):
            pq.write_table(records.replace_schema_metadata(metadata), temporary)
        with _writing(final_csv, temporary_csv):
            try:
                self.csv_parts.mkdir(exist_ok=True)
                pacsv.write_csv(records, temporary_csv, pacsv.WriteOptions(include_header=False))
            except BaseException:
                os.unlink(temporary)
                raise
        return temporary

    def _written(self) -> tuple[dict[str, str], Any]:
        """(the table metadata of this run's parts: ``jobs.schema.run_metadata``, the schema of the
        columns its kind writes: ``jobs.schema.columns_of``), from its manifest, read once per process
        (a worker writes many parts); a manifest unreadable here leaves the run's fields out and
        every column in, never the part unwritten."""
        if self._run_written is None:
            try:
                manifest = self.read_manifest()
            except RunDirError:
                manifest = {}
            config = manifest.get("config")
            kind = manifests.kind_of(config) if isinstance(config, dict) else None
            self._run_written = (run_metadata(manifest), _schema_of(columns_of(kind)))
        return self._run_written

    def _csv_temporary(self, chunk: int, temporary: str | PathLike[str]) -> Path:
        """The temporary CSV part staged with the temporary Parquet part ``temporary`` (same pid)."""
        pid = Path(temporary).name.rsplit(".", 2)[1]
        return self.csv_parts / f".{self.csv_part_path(chunk).name}.{pid}.tmp"

    def commit_part(self, chunk: int, temporary: str | PathLike[str]) -> None:
        """Make ``temporary`` (from ``stage_part``, in this process or a worker) and its CSV part the
        parts of ``chunk``: two renames, the CSV first, so a Parquet part in place always has its CSV
        part (a CSV part without one is a chunk still to run, rewritten when it runs). A refused rename
        removes the temporaries."""
        temporary_csv = self._csv_temporary(chunk, temporary)
        with _writing(self.csv_part_path(chunk), temporary_csv):
            try:
                os.replace(temporary_csv, self.csv_part_path(chunk))
            except BaseException:
                os.unlink(temporary)
                raise
        final = self.part_path(chunk)
        with _writing(final, temporary):
            os.replace(temporary, final)

    def done_chunks(self) -> set[int]:
        """Chunk numbers whose part is in place (none in a parts folder that is a link: ``refuse_strangers``)."""
        if real_folder(self.parts) is not None or not self.parts.exists():
            return set()
        return {int(m.group(1)) for p in self.parts.iterdir() if (m := _PART.match(p.name))}

    def check_parts(self, planned: dict[int, tuple[int, int]]) -> tuple[set[int], list[tuple[int, str, Path]]]:
        """Chunks whose part is whole, given ``planned`` {chunk: (first case, count)}.

        A part whose footer cannot be read, or whose row count or case range is not its chunk's, is moved
        aside to RUN/corrupt/ (so the chunk runs again, and nothing is lost); a part of a chunk the plan
        does not have is refused.
        """
        good: set[int] = set()
        moved: list[tuple[int, str, Path]] = []
        done = sorted(self.done_chunks())
        for chunk in done:  # all refused before any is moved
            if chunk not in planned:
                raise RunDirError(f"{self.part_path(chunk)}: chunk {chunk} is not in the run's plan "
                                  f"({len(planned)} chunks); refusing to resume")
        for chunk in done:
            problem = self._part_problem(self.part_path(chunk), *planned[chunk])
            if problem is None:
                good.add(chunk)
            else:
                moved.append((chunk, problem, self._move_aside(chunk)))
        return good, moved

    @staticmethod
    def _part_problem(path: Path, first: int, count: int) -> str | None:
        if (why := regular(path)) is not None:  # another run's part through a link; a FIFO that would block
            return why
        try:
            meta = pq.read_metadata(path)
        except (OSError, pa.ArrowException) as error:
            return f"unreadable footer ({error})"
        if meta.num_rows != count:
            return f"{meta.num_rows} rows, not {count}"
        try:
            column = meta.schema.names.index("case")
            stats = [meta.row_group(i).column(column).statistics for i in range(meta.num_row_groups)]
            if all(s is not None and s.has_min_max for s in stats) and stats:
                low, high = min(s.min for s in stats), max(s.max for s in stats)
                if (low, high) != (first, first + count - 1):
                    return f"cases {low}..{high}, not {first}..{first + count - 1}"
        except ValueError:
            return "no case column"
        return None

    def _move_aside(self, chunk: int) -> Path:
        source = self.part_path(chunk)
        target = self.corrupt / f"{source.name}.corrupt"
        number = 1
        while target.exists():
            number += 1
            target = self.corrupt / f"{source.name}.corrupt.{number}"
        with _writing(target):
            self.corrupt.mkdir(exist_ok=True)
            os.replace(source, target)
        return target

    def clear_temporaries(self) -> None:
        """Remove what a write that never finished left: part, CSV and manifest temporaries."""
        stale = [path for folder in (self.parts, self.csv_parts) if folder.exists()
                 for path in folder.glob(".chunk-*.tmp")]
        stale += [self.path / f".{self.csv_path.name}.tmp", self.path / f".{self.manifest_path.name}.tmp"]
        for path in stale:
            try:
                path.unlink()
            except FileNotFoundError:
                pass

    def part_paths(self) -> list[Path]:
        """The finished parts, in chunk order (which is case order: chunk k holds the cases after k-1's);
        RunDirError for one that is not a regular file of its own (a link to another run's part, a
        FIFO, a folder), which a reader must not open (a resume moves it aside first: ``check_parts``)."""
        if (why := real_folder(self.parts)) is not None:  # a link would hand this run another run's rows
            raise RunDirError(f"{self.parts}: {why}: not read as this run's parts")
        if not self.parts.exists():
            return []
        found = sorted((int(m.group(1)), p) for p in self.parts.iterdir() if (m := _PART.match(p.name)))
        for _, path in found:
            if (why := regular(path)) is not None:
                raise RunDirError(f"{path}: {why}: not read as a part of this run")
        return [path for _, path in found]

    def refuse_strangers(self) -> None:
        """RunDirError when the run holds a symbolic link anywhere (its log, its CSV, its folders of
        parts, a folder of its corpus), or a name it writes is not of its kind (a folder where the log
        goes, a file where the parts go): a resume would write or read through the link, outside the
        run (a QA try: the log appended to a file elsewhere, 172 CSV parts left in another folder), or
        fail half-way. The lock refuses a link itself; a part that is a link is moved aside by
        ``check_parts`` (into corrupt/, where it is never followed), as any part that is not whole."""
        for folder, names, found in os.walk(self.path):  # links are not entered: each is named here
            if Path(folder) == self.path:
                names[:] = [name for name in names if self.path / name not in (self.parts, self.corrupt)]
            for name in sorted(names + found):
                if (path := Path(folder) / name).is_symlink() and path != self.lock_path:
                    raise RunDirError(f"{path} is a symbolic link (to {os.readlink(path)}); a run never writes "
                                      "through a link: put the run's own file or folder there, or remove the link")
        files = [self.manifest_path, self.log_path, self.csv_path]
        folders = [self.parts, self.csv_parts, self.corrupt]
        if self.task:  # and what the task writes here (a fuzz run's summary.md, corpus/, build/)
            theirs = re.compile(rf"^(?:{self.task.files}|{self.task.dirs})$", re.X)
            a_folder = re.compile(rf"^(?:{self.task.dirs})$", re.X)
            for path in sorted(self.path.iterdir()):
                if theirs.match(path.name):
                    (folders if a_folder.match(path.name) else files).append(path)
        for path in files + folders:
            why = (real_folder if path in folders else _not_a_file)(path)
            if why is not None:
                raise RunDirError(f"{path}: {why}; a run writes its own {'folder' if path in folders else 'file'} "
                                  "there: move it away")

    def _read_part(self, path: Path, columns: list[str] | None = None) -> Any:
        try:  # ParquetFile, not read_table: no dataset is built per part (most of the time for a few columns)
            with pq.ParquetFile(path) as part:
                return part.read(columns=columns)
        except (OSError, pa.ArrowException) as error:
            raise RunDirError(f"{path}: unreadable part ({error})") from None

    def read_table(self) -> Any:
        """Every finished part as one Arrow table in the record schema, in case order (empty when none;
        a column the run's kind does not write is all nulls).

        Holds the whole run in memory: for small runs (fuzz) and callers that need every column. Big
        runs are read through ``dataset()``, ``read_columns()`` or ``iter_parts()``."""
        paths = self.part_paths()
        if not paths:
            return SCHEMA.empty_table()
        tables = [_conform(self._read_part(path), SCHEMA) for path in paths]
        return pa.concat_tables(tables).sort_by("case")

    def read_columns(self, columns: list[str]) -> Any:
        """Only ``columns`` of every finished part, as one table in case order: e.g. ``case`` and
        ``outcome`` for the totals and the exactly-once check (16 MB for a million cases, where the
        whole table is about 400 MB of Arrow buffers, twice that while sorted)."""
        paths = self.part_paths()
        if not paths:
            return SCHEMA.empty_table().select(columns)
        tables = [_conform(self._read_part(path, columns), _schema_of(columns)) for path in paths]
        return pa.concat_tables(tables).sort_by("case") if "case" in columns else pa.concat_tables(tables)

    def iter_parts(self) -> Iterator[Any]:
        """Each finished part in chunk order as a table in the schema, rows in case order: one part in
        memory at a time."""
        for path in self.part_paths():
            yield _conform(self._read_part(path), SCHEMA).sort_by("case")

    def dataset(self) -> Any:
        """The finished parts as one ``pyarrow.dataset`` in the record schema, fragments in chunk order
        (case order): read only the columns and rows asked for, part by part (``show``). A part written
        by an older schema version reads its newer columns as nulls."""
        import pyarrow.dataset as ds

        return ds.dataset([str(path) for path in self.part_paths()], schema=SCHEMA, format="parquet")

    # --- CSV and manifest ----------------------------------------------------------------------------

    def write_csv(self, records_table: Any = None) -> None:
        """The CSV of the same rows as the parts, written atomically.

        Without ``records_table``: the header, then each part's CSV part in chunk order (case order),
        joined as bytes; a part without one (written before CSV parts were, or left by an older
        version) has its lines made from the part here. Memory stays that of one part."""
        with _writing(self.csv_path), replacing(self.csv_path, temporary=self.path / f".{self.csv_path.name}.tmp") as out:
            if records_table is not None:
                pacsv.write_csv(records_table, out)
            else:
                out.write(_csv_header(self._written()[1]))
                for path in self.part_paths():
                    self._append_csv_lines(out, path)

    def _append_csv_lines(self, out: Any, path: Path) -> None:
        """The CSV lines of the part at ``path``: its CSV part's bytes, else made from the part."""
        chunk = int(_PART.match(path.name).group(1))  # type: ignore[union-attr]
        try:
            with open(self.csv_part_path(chunk), "rb") as lines:
                shutil.copyfileobj(lines, out, 1 << 20)
            return
        except FileNotFoundError:
            pass
        part = _conform(self._read_part(path), self._written()[1]).sort_by("case")
        pacsv.write_csv(part, out, pacsv.WriteOptions(include_header=False))

    def clear_csv_parts(self) -> None:
        """Remove the CSV parts once records.csv holds every row of a complete run (they would double
        its size on disk); a later rebuild makes the lines from the Parquet parts instead."""
        if self.csv_parts.exists():
            shutil.rmtree(self.csv_parts, ignore_errors=True)

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Write the manifest atomically (a temporary, then a rename).

        On a disk so full that not even the temporary fits (records.csv took the last block), it is
        overwritten in place if the old manifest's own blocks hold it, so that a run stopped by a full
        disk still says ``failed`` and why, not ``running``."""
        text = json.dumps(manifest, indent=2, default=str) + "\n"
        try:
            with _writing(self.manifest_path), \
                    replacing(self.manifest_path, temporary=self.path / f".{self.manifest_path.name}.tmp") as out:
                out.write(text.encode())
        except WriteError:
            if not self._overwrite_manifest(text.encode()):
                raise

    def _overwrite_manifest(self, data: bytes) -> bool:
        """Write ``data`` over manifest.json in place; False (nothing written) unless the blocks the
        file already has can hold it, so the write needs no new block on a full disk."""
        try:
            fd = os.open(self.manifest_path, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return False
        try:
            if len(data) > os.fstat(fd).st_blocks * 512:
                return False
            os.pwrite(fd, data, 0)
            os.ftruncate(fd, len(data))
            os.fsync(fd)
            return True
        except OSError:
            return False
        finally:
            os.close(fd)

    def read_manifest(self) -> dict[str, Any]:
        """The manifest's object, read as untrusted (``jobs.manifest.read``); RunDirError else."""
        if not os.path.lexists(self.manifest_path):
            raise RunDirError(f"{self.path} has no manifest.json: not a run directory")
        try:
            return manifests.read(self.manifest_path)
        except ValueError as error:
            raise RunDirError(f"{self.manifest_path}: {error}") from None

    @overload
    def read_config(self, *, kind: str | None = None, config: type[C]) -> C: ...
    @overload
    def read_config(self, *, kind: str | None = None, config: None = None) -> RunConfig: ...
    def read_config(self, *, kind: str | None = None, config: type[RunConfig] | None = None) -> RunConfig:
        """The run's config, once its manifest is checked against the manifest schema (``jobs.manifest``).

        ``kind`` ("batch", "fuzz") refuses a run of another kind; ``config``, that kind's class, reads
        and checks its own fields too. A bad manifest is a RunDirError saying what is wrong.
        """
        manifest = self.read_manifest()
        try:
            return manifests.validate(manifest, kind=kind, config=config)
        except manifests.BadManifest as error:
            raise RunDirError(f"{self.manifest_path}: {error}") from None
        except manifests.OtherKind as error:
            raise RunDirError(f"{self.path} is {error}: resume it with "
                              f"`{manifests.resume_command(manifest, self.path)}`") from None

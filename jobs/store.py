"""The run directory: Parquet parts, a CSV of the same rows, manifest.json and the log.

Layout::

    RUN/manifest.json       config, seed, versions, host, totals, wall time, status
    RUN/parts/chunk-000007.parquet   one part per finished chunk, written atomically
    RUN/records.csv         every row, rebuilt from the parts when the run stops
    RUN/run.log             one log for the parent and every worker

A part is written to a hidden temporary name and renamed into place, so a reader (or a resume) never
sees half a part; hidden names are also skipped by Arrow's dataset reader.
"""

import json
import os
import re
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from jobs.schema import SCHEMA, table

_PART = re.compile(r"^chunk-(\d{6,})\.parquet$")


class RunDirError(Exception):
    """A run directory that cannot be used as asked (exists, missing, corrupt)."""


class RunDir:
    def __init__(self, path):
        self.path = Path(path)
        self.parts = self.path / "parts"
        self.manifest_path = self.path / "manifest.json"
        self.csv_path = self.path / "records.csv"
        self.log_path = self.path / "run.log"

    def create(self, *, force=False, manifest=None):
        """Make a fresh run directory; an existing non-empty one needs ``force`` (and is then cleared).

        The directory is built under a hidden name, with ``manifest`` in it, and renamed into place: a
        run killed at any moment either has no directory yet or one that ``--resume`` can finish.
        """
        if self.path.exists() and not self.path.is_dir():
            raise RunDirError(f"{self.path} exists and is not a directory")
        if self.path.exists() and any(self.path.iterdir()):
            if not force:
                raise RunDirError(f"{self.path} already exists; use --resume {self.path} to finish it "
                                  "or --force to replace it")
            if not self.manifest_path.exists() and not self.parts.exists():
                raise RunDirError(f"{self.path} is not a run directory; refusing to clear it even with --force")
            for child in sorted(self.path.rglob("*"), reverse=True):
                child.unlink() if child.is_file() or child.is_symlink() else child.rmdir()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        staging = RunDir(self.path.parent / f".{self.path.name}.{os.getpid()}.tmp")
        shutil.rmtree(staging.path, ignore_errors=True)
        staging.parts.mkdir(parents=True)
        if manifest is not None:
            staging.write_manifest(manifest)
        os.replace(staging.path, self.path)  # onto nothing, or onto the empty directory left above

    def part_path(self, chunk):
        return self.parts / f"chunk-{chunk:06d}.parquet"

    def write_part(self, chunk, records):
        """Write one chunk's records atomically: a temporary hidden file, then a rename."""
        final = self.part_path(chunk)
        temporary = self.parts / f".{final.name}.{os.getpid()}.tmp"
        pq.write_table(table(records), temporary)
        os.replace(temporary, final)

    def done_chunks(self):
        """Chunk numbers whose part is in place."""
        if not self.parts.exists():
            return set()
        return {int(m.group(1)) for p in self.parts.iterdir() if (m := _PART.match(p.name))}

    def clear_temporaries(self):
        for stale in self.parts.glob(".chunk-*.tmp"):
            stale.unlink()

    def read_table(self):
        """Every finished part as one Arrow table in case order (empty when none)."""
        paths = sorted(self.parts.glob("chunk-*.parquet")) if self.parts.exists() else []
        if not paths:
            return SCHEMA.empty_table()
        tables = []
        for path in paths:
            try:
                tables.append(pq.read_table(path))
            except (OSError, pa.ArrowException) as error:
                raise RunDirError(f"{path}: unreadable part ({error})") from None
        return pa.concat_tables(tables, promote_options="default").sort_by("case")

    def write_csv(self, records_table=None):
        """The CSV of the same rows as the parts, written atomically."""
        records_table = self.read_table() if records_table is None else records_table
        temporary = self.path / f".{self.csv_path.name}.tmp"
        pacsv.write_csv(records_table, temporary)
        os.replace(temporary, self.csv_path)

    def write_manifest(self, manifest):
        temporary = self.path / f".{self.manifest_path.name}.tmp"
        temporary.write_text(json.dumps(manifest, indent=2, default=str) + "\n")
        os.replace(temporary, self.manifest_path)

    def read_manifest(self):
        if not self.manifest_path.exists():
            raise RunDirError(f"{self.path} has no manifest.json: not a run directory")
        try:
            return json.loads(self.manifest_path.read_text())
        except ValueError as error:
            raise RunDirError(f"{self.manifest_path}: not valid JSON ({error})") from None

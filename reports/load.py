"""Read a run directory (or a run set) into a manifest and one pandas frame in the current schema.

Each row also gets ``round``: the number of its member run in a run set (members in name order, so
CI names them round01, round02, ...), which with ``chunk`` makes the blocks the bootstrap resamples.

A run's **configuration** is what shapes its timing, read from its manifest (``configuration``): the
kind (batch or fuzz), engines (the check engine too), size, difficulty, blanks, data set (the input's
digest), schema version, and for fuzz runs the mode and the target commands. The members of a run set
must share one configuration: ``load_run`` refuses a set that mixes them, naming the odd run, unless
asked to merge (``merge_unlike``), and such a run then has no configuration (its timings compare with
nothing).

Parts of every schema version in ``jobs.schema.HISTORY`` are read; columns an older version lacks
(version 1 has no fuzz columns) come back as nulls. Anything unreadable raises ``ReportError`` with
a message that names the file and what is wrong.
"""

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sudoku.files import real_folder, regular
from jobs.lock import held
from jobs.manifest import check_status, read as read_manifest_file, resume_command
from jobs.schema import HISTORY, SCHEMA
from reports import ReportError
from sudoku.display import counted

_PART = re.compile(r"^chunk-(\d{6,})\.parquet$")
KNOWN_VERSIONS = tuple(sorted(HISTORY))
FUZZ_SETS_EXCLUDED = ("create", "input")  # families that batch runs use: their case set is the source
ROUND = "round"  # a column added on reading: the number of the member run in a run set (0 for a lone run)


@dataclass
class Run:
    """A run (or a run set read as one): where it is, its manifests, its records and its corpus."""

    path: Path
    manifests: list[dict[str, Any]]
    records: pd.DataFrame
    corpus: list[Path] = field(default_factory=list)  # corpus directories of the runs, when they have one
    notes: list[str] = field(default_factory=list)   # things worth saying that are not errors
    unlike: bool = False  # members of unlike configurations merged on request: no timing compares with it
    unfinished: list[str] = field(default_factory=list)  # 'DIR (how)' for each member run not complete

    @property
    def complete(self) -> bool:
        """Whether every member run finished: a verdict on a run cut short covers only what ran."""
        return not self.unfinished

    @property
    def manifest(self) -> dict[str, Any]:
        return self.manifests[0] if self.manifests else {}

    @property
    def hosts(self) -> list[tuple[Any, Any]]:
        """The distinct (cpu, cores) of the runs' hosts."""
        found: list[tuple[Any, Any]] = []
        for manifest in self.manifests:
            host = manifest.get("host") or {}
            key = (host.get("cpu"), host.get("cores"))
            if key not in found:
                found.append(key)
        return found

    @property
    def name(self) -> str:
        name: str = self.manifest.get("run_id") or self.path.name
        return name

    @property
    def configuration(self) -> dict[str, str | None] | None:
        """The configuration of the run (of its first member; None when unlike members were merged)."""
        return None if self.unlike else configuration(self.manifest)

    @property
    def rounds(self) -> int:
        """How many member runs (rounds) were read: 1 for a lone run directory."""
        return max(1, len(self.manifests))

    def select_rounds(self, numbers: Iterable[int], *, label: str) -> "Run":
        """A run of only the rounds ``numbers`` (0-based), renumbered from 0, named ``label``."""
        numbers = list(numbers)
        rows = self.records[self.records[ROUND].isin(numbers)].copy()
        rows[ROUND] = rows[ROUND].map({old: new for new, old in enumerate(numbers)})
        return Run(path=self.path / label, manifests=[self.manifests[i] for i in numbers],
                   records=rows.reset_index(drop=True), corpus=self.corpus, notes=[], unfinished=self.unfinished)


def load_run(path: str | PathLike[str], *, merge_unlike: bool = False) -> Run:
    """The run at ``path``: a run directory, or a directory of run directories (merged: rounds of one
    configuration, or of any with ``merge_unlike``)."""
    path = Path(path)
    if not path.exists():
        raise ReportError(f"{path}: no such run directory")
    if not path.is_dir():
        raise ReportError(f"{path}: not a directory (give a run directory holding manifest.json)")
    if (path / "manifest.json").exists():
        members = [path]
    else:
        members = sorted(p for p in path.iterdir() if p.is_dir() and (p / "manifest.json").exists())
        if not members:
            raise ReportError(f"{path}: no manifest.json: not a run directory (nor a directory of runs)")
    manifests: list[dict[str, Any]] = []
    frames: list[pd.DataFrame] = []
    corpus: list[Path] = []
    notes: list[str] = []
    unfinished: list[str] = []
    for number, member in enumerate(members):
        manifest = read_manifest(member)
        if manifests and not merge_unlike:
            differs = differences(configuration(manifests[0]), configuration(manifest))
            if differs:
                raise ReportError(f"{member}: its configuration differs from {members[0].name}'s "
                                  f"({'; '.join(differs)}); a directory of runs merges rounds of one configuration "
                                  "only (give --merge-unlike to merge anyway, or name one run)")
        table = read_parts(member, manifest, notes, unfinished)
        manifests.append(manifest)
        frame = to_frame(table)
        frame[ROUND] = number  # which member run (round) a row came from: the blocks of the bootstrap
        frames.append(frame)
        if (member / "corpus").is_dir():
            if (why := real_folder(member / "corpus")) is None:
                corpus.append(member / "corpus")
            else:  # another run's corpus, or anything else, is not read as this run's reproducers
                notes.append(f"{member / 'corpus'}: {why}: its reproducers not read")
    records = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    unlike = any(differences(configuration(manifests[0]), configuration(m)) for m in manifests[1:])
    if unlike:
        notes.append(f"{path}: runs of unlike configurations merged on request; their timings compare with nothing")
    return Run(path=path, manifests=manifests, records=add_case_set(records), corpus=corpus, notes=notes,
               unlike=unlike, unfinished=unfinished)


def unfinished_how(run_path: Path, manifest: dict[str, Any]) -> str | None:
    """How a run directory is not complete ('interrupted', 'stopped', 'still running', 'failed',
    'finished early as asked': stopped once enough cases failed), or None when it is (an old manifest
    without a status counts as complete)."""
    status = manifest.get("status")
    if status in (None, "complete"):
        return None
    if status == "finished_early":
        return "finished early as asked"
    if status == "running":  # a run killed by SIGKILL, or whose machine went down, still says running
        status = "still running" if held(run_path) else "stopped"
    return str(status)


# What shapes a run's timing, as (name, where in the manifest); a name's first found place wins.
CONFIGURATION = (
    ("kind", (("config", "kind"),)),
    ("engine", (("config", "engine"), ("plan", "engine"))),
    ("check engine", (("config", "check_engine"), ("plan", "check_engine"))),
    ("size", (("config", "size"),)),
    ("difficulty", (("config", "difficulty"),)),
    ("blanks", (("config", "blanks"),)),
    ("data set", (("plan", "input_sha256"), ("config", "input"))),
    ("schema version", (("schema_version",),)),
    ("mode", (("config", "mode"),)),
    ("target", (("config", "targets"), ("config", "target"), ("plan", "target"))),
)
_TARGET_KEYS = ("spec", "create_args", "solve_args", "check_args", "header")  # what a fuzz target runs


def _lookup(manifest: dict[str, Any], keys: tuple[str, ...]) -> Any:
    value: Any = manifest
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def _target_text(target: object) -> str | None:
    """A fuzz target as the command it runs: the spec and the arguments of each call."""
    if isinstance(target, list):
        return " + ".join(_target_text(t) for t in target) or None  # type: ignore[misc]  # items: dicts or strings
    if isinstance(target, dict):
        spec = str(target.get("spec"))
        extras = [f"{key}={target[key]!r}" for key in _TARGET_KEYS[1:] if target.get(key) not in (None, False)
                  and target.get(key) != key.split("_")[0]]  # the default arguments ('create', 'solve', ...) unsaid
        return spec + (f" ({', '.join(extras)})" if extras else "")
    return None if target is None else str(target)


def configuration(manifest: dict[str, Any]) -> dict[str, str | None]:
    """name -> value of what shapes a run's timing (None where the manifest does not say)."""
    config: dict[str, str | None] = {}
    for name, places in CONFIGURATION:
        value = next((v for keys in places if (v := _lookup(manifest, keys)) is not None), None)
        if name == "schema version" and value is None:
            value = 1  # the first runner's manifests lack it
        if name == "target":
            value = _target_text(value)
        config[name] = None if value is None else str(value)
    return config


def differences(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
    """'name: A vs B' for each name whose values differ between two configurations."""
    return [f"{name} {first.get(name) or 'unset'} vs {second.get(name) or 'unset'}"
            for name in first if first.get(name) != second.get(name)]


def read_manifest(run_path: str | PathLike[str]) -> dict[str, Any]:
    """The manifest of one run directory, checked for a schema version this reader knows."""
    manifest_path = Path(run_path) / "manifest.json"
    if not os.path.lexists(manifest_path):
        raise ReportError(f"{run_path}: no manifest.json: not a run directory")
    try:
        manifest = read_manifest_file(manifest_path)
        check_status(manifest)
    except ValueError as error:  # a link, a FIFO, too big or too deep, not JSON, not an object, a bad status
        raise ReportError(f"{manifest_path}: {error}") from None
    version = manifest.get("schema_version", 1)  # the first runner's manifests may lack it
    check_version(version, manifest_path)
    return manifest


def check_version(version: object, where: object) -> None:
    if not isinstance(version, int) or isinstance(version, bool) or version not in HISTORY:
        newer = isinstance(version, int) and version > max(KNOWN_VERSIONS)
        known = ", ".join(map(str, KNOWN_VERSIONS))
        hint = "; upgrade reports to read it" if newer else ""
        raise ReportError(f"{where}: schema_version {version!r} is unknown (this reader knows {known}){hint}")


def part_paths(run_path: str | PathLike[str]) -> list[tuple[int, Path]]:
    """The finished parts of a run in chunk order; hidden (temporary) files are skipped."""
    parts = Path(run_path) / "parts"
    if (why := real_folder(parts)) is not None:  # a link would hand this run another run's rows
        raise ReportError(f"{parts}: {why}: not read as this run's parts")
    if not parts.is_dir():
        return []
    return sorted((int(m.group(1)), p) for p in parts.iterdir() if (m := _PART.match(p.name)))


def read_parts(run_path: str | PathLike[str], manifest: dict[str, Any], notes: list[str],
               unfinished: list[str]) -> Any:
    """Every part of one run as one Arrow table in the current schema; a run not complete gets a note
    and a line in ``unfinished`` ('DIR (how)')."""
    found = part_paths(run_path)
    expected = manifest.get("chunks")
    if manifest.get("status") == "complete" and isinstance(expected, int):
        missing = sorted(set(range(expected)) - {chunk for chunk, _ in found})
        if missing:
            shown = ", ".join(f"chunk-{c:06d}.parquet" for c in missing[:5]) + (" ..." if len(missing) > 5 else "")
            raise ReportError(f"{run_path}: the manifest says complete with {expected} chunks, "
                              f"but {counted(len(missing), 'part is', 'parts are')} missing: {shown}")
    else:
        how = unfinished_how(Path(run_path), manifest)
        if how:
            resume = resume_command(manifest, run_path) if how != "still running" else None
            notes.append(f"{run_path}: {how}{' (no process holds it: killed?)' * (how == 'stopped')}, not "
                         f"complete: this report covers only the cases of its {counted(len(found), 'finished part')}"
                         + (f"; finish it with `{resume}`" if resume else ""))
            unfinished.append(f"{run_path} ({how})")
    tables = [read_part(path) for _, path in found]
    if not tables:
        return SCHEMA.empty_table()
    return pa.concat_tables(tables)


def read_part(path: str | PathLike[str]) -> Any:
    """One Parquet part, conformed to the current schema (missing columns as nulls); a part that is a
    link (another run's data), a FIFO or a folder is refused, never opened."""
    if (why := regular(path)) is not None:
        raise ReportError(f"{path}: {why}: not read as a part of this run")
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as error:
        raise ReportError(f"{path}: unreadable part ({error})") from None
    if "schema_version" not in table.column_names:
        raise ReportError(f"{path}: no schema_version column: not a record part")
    for version in table.column("schema_version").drop_null().unique().to_pylist():
        check_version(version, path)
    columns = []
    for schema_field in SCHEMA:
        if schema_field.name in table.column_names:
            try:
                columns.append(table.column(schema_field.name).cast(schema_field.type))
            except (pa.ArrowException, ValueError) as error:
                raise ReportError(f"{path}: column {schema_field.name} cannot be read as {schema_field.type} "
                                  f"({error})") from None
        else:
            columns.append(pa.nulls(len(table), type=schema_field.type))
    return pa.Table.from_arrays(columns, schema=SCHEMA)


def to_frame(table: Any) -> pd.DataFrame:
    """A pandas frame of a records table; integers and booleans nullable (so null counters stay null)."""
    return table.to_pandas(types_mapper=_nullable)


def _nullable(kind: Any) -> Any:
    if pa.types.is_integer(kind):
        return pd.Int64Dtype()
    if pa.types.is_boolean(kind):
        return pd.BooleanDtype()
    return None


def add_case_set(records: pd.DataFrame) -> pd.DataFrame:
    """Add ``case_set``: the fuzz family of a fuzz row, else the source of a batch row."""
    records = records.copy()
    family = records["family"].astype("object")
    source = records["source"].astype("object")
    fuzz = source.eq("fuzz") | (family.notna() & ~family.isin(FUZZ_SETS_EXCLUDED))  # fuzz has a 'create' family too
    records["case_set"] = source.where(~fuzz, family).fillna("-").astype("object")
    return records

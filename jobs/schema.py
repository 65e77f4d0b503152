"""The record schema: one row per puzzle (or fuzz case), shared by the runner and by ``reports``.

Columns are snake_case; times are seconds with an ``_s`` suffix; counters are plain counts. Bump
``SCHEMA_VERSION`` on any change of the columns and say what changed in ``HISTORY``; readers accept
every version listed there. Only pyarrow is imported, so ``reports`` can read records without the runner.

``SCHEMA`` is every column of every run kind; a run's files hold only the columns its kind fills
(``columns_of``: ``FILLED_BY`` says which kind fills each), so a batch run carries no always-null fuzz
column, nor a fuzz run the batch's. Readers conform what they read to ``SCHEMA``, a column a file
lacks read as nulls (as for parts of older versions), so the kinds still read and compare alike; a
file with fewer columns is no change of the schema, and needs no new version. Each Parquet field carries its ``description``,
its ``filled_by`` and, for a time, its ``unit`` in its metadata, so a file explains itself to any
reader. That metadata is documentation, not shape: adding to it needs no new version (a version
change would make runs of equal columns 'not comparable').

A part also says, in its table metadata, how pandas should read it (``PANDAS``: nullable integer
and boolean columns stay nullable, not float64 or object, whoever opens the file with
``pandas.read_parquet``) and which run it belongs to (``RUN_KEY``: run id, kind, seed, engines,
tool version and command line, as its manifest says them), so a part copied out of its run still
explains itself.

``fmt_time`` is the one unit scaling of times for people ('12.3 ms', '4.2 us'): ``sudoku-jobs show``
and ``reports`` both print times through it.
"""

import json
import math
from typing import Any


import pyarrow as pa

SCHEMA_VERSION = 5
HISTORY = {
    1: "first version: batch runs (create, check, solve back)",
    2: "fuzz columns: family, target, oracles_failed, format_slips, exit_code, target_s, input_text",
    3: "fuzz columns: signature, notes, cpu_s, calls, calls_failed",
    4: "batch columns: level, score (sudoku grade, with `sudoku-jobs run --grade`)",
    5: "batch column: canonical (the puzzle's form under the grid's symmetries, with `sudoku-jobs run --canonical`)",
}

# the values of ``format_slips`` (fuzz.read names them), each with what it means for a student
FORMAT_SLIPS = {
    "separators": "a boxed grid ('|', '-' or '+' lines) instead of the plain rows",
    "extra_text": "text before or after the grid (a header, a verdict, a prompt)",
    "spacing": "double, leading or trailing spaces, or tabs, between the numbers",
    "echoed_input": "the puzzle printed back before the answer",
    "blank_lines": "blank lines in or around the grid",
    "crlf": "Windows line ends (\\r\\n)",
    "no_final_newline": "no newline after the last row",
    "no_header": "no box-size line before the rows (the header format asks for one)",
    "error_on_stdout": "a rejection whose message went to stdout instead of stderr",
    "no_error_message": "a rejection with no message on stderr",
}

# name, arrow type, meaning
COLUMNS = [
    ("schema_version", pa.int16(), "version of this schema"),
    ("run_id", pa.string(), "the run's id (its directory name and start time)"),
    ("chunk", pa.int32(), "chunk number within the run"),
    ("case", pa.int64(), "case index within the run, 0-based; each appears exactly once"),
    ("seed", pa.int64(), "the run seed"),
    ("case_seed", pa.int64(), "seed of this case: derive_seed(seed, case); sudoku.create(box, seed=case_seed, blanks=blanks asked, "
     "engine=engine) rebuilds the puzzle alone (with nb that is nb.generate_batch([case_seed], "
     "blanks=max(40, blanks asked), minimal=True), on either path); null for --input rows"),
    ("source", pa.string(), "'create' or the input file's name"),
    ("line", pa.int64(), "line number in the input file; null when created"),
    ("size", pa.int16(), "grid side: 4, 9, 16 or 25"),
    ("puzzle", pa.string(), "the puzzle in line format (as read, for rejected rows)"),
    ("solution", pa.string(), "the solution found, line format; null if none"),
    ("clues", pa.int16(), "given cells"),
    ("blanks", pa.int16(), "blank cells"),
    ("solutions", pa.int8(), "solutions counted by the check engine, up to 2"),
    ("unique", pa.bool_(), "exactly one solution"),
    ("blanks_ok", pa.bool_(), "at least the blanks the size rule asks for (40 at 9x9, half otherwise)"),
    ("solved_ok", pa.bool_(), "the solve engine's answer is a valid complete grid (or, rightly, none)"),
    ("givens_kept", pa.bool_(), "the answer keeps every given"),
    ("matches_unique", pa.bool_(), "the answer equals the unique solution, when there is one"),
    ("outcome", pa.string(), "'ok', 'failed' (a check above is false where it must hold) or 'rejected'"),
    ("reason", pa.string(), "why failed or rejected; null when ok"),
    ("family", pa.string(), "fuzz case family (e.g. 'unique_hard', 'clashing'); 'create' or 'input' in batch runs"),
    ("target", pa.string(), "fuzz target ('engine', 'cli' or the command); null in batch runs"),
    ("oracles_failed", pa.string(), "comma-separated names of the fuzz oracles that failed; null when none"),
    ("format_slips", pa.string(), "comma-separated output format slips seen (fuzz); null when none"),
    ("signature", pa.string(), "the failure's signature (fuzz): failed oracles with their kinds, the family's "
     "class and how the call ended; cases with one signature are one bug; null when none failed"),
    ("notes", pa.string(), "comma-separated notes (fuzz), never failures: 'strict_input' (unusual whitespace "
     "rejected cleanly), 'slow' (answered after more than half the limit in CPU time); null when none"),
    ("exit_code", pa.int16(), "the target's exit code (fuzz); negative = killed by that signal"),
    ("target_s", pa.float64(), "the target's own wall time for the case, every call (fuzz)"),
    ("cpu_s", pa.float64(), "the target's CPU time for the case, every call (fuzz; 0 for in-process engines "
     "when not measured)"),
    ("calls", pa.int16(), "target calls the case made (fuzz: creates asked, or 1)"),
    ("calls_failed", pa.int16(), "calls whose answer failed an oracle (fuzz)"),
    ("input_text", pa.string(), "the exact text given to the target (fuzz)"),
    ("create_s", pa.float64(), "time to create the puzzle: one generator call for it, timed from Python (the batch path too); "
     "null for --input rows"),
    ("unique_s", pa.float64(), "time to count solutions up to 2 with the check engine; on the batch path the engine's own time "
     "for this puzzle inside the batch when it has the 'timed' capability (band), else one call for it"),
    ("blanks_s", pa.float64(), "time to count blanks and apply the size rule; on the batch path the chunk's vectorised rule, its "
     "time shared evenly among the chunk's cases"),
    ("solve_s", pa.float64(), "time for the solve engine to solve it back: one call for this puzzle, timed from Python (the call's "
     "overhead included, on both paths)"),
    ("guesses", pa.int64(), "solve engine's guesses"),
    ("nodes", pa.int64(), "solve engine's nodes"),
    ("unique_guesses", pa.int64(), "check engine's guesses while counting"),
    ("engine", pa.string(), "engine that created (when created) and solved"),
    ("check_engine", pa.string(), "engine that counted solutions"),
    ("difficulty", pa.string(), "difficulty asked for, if any"),
    ("level", pa.string(), "the level `sudoku grade` gives (easy, medium, hard, expert, extreme); null unless the "
     "run grades (--grade) and the puzzle has one solution"),
    ("score", pa.int32(), "the score `sudoku grade` gives; null when level is"),
    ("canonical", pa.string(), "the puzzle's canonical form (sudoku.canonical: its least variant under the grid's "
     "symmetries), line format: equal for two puzzles exactly when one is the other relabelled, permuted or "
     "transposed; null unless the run asks (--canonical), at 16x16 and above, and for rejected rows"),
    ("worker", pa.string(), "host:pid of the process that ran the case"),
    ("timestamp", pa.timestamp("us", tz="UTC"), "when the case finished (on the batch path: when its chunk's records were built)"),
]

NAMES = [name for name, _, _ in COLUMNS]
TIME_COLUMNS = [name for name in NAMES if name.endswith("_s")]
COUNTER_COLUMNS = ["guesses", "nodes", "unique_guesses"]
UNITS = {name: "s" for name in TIME_COLUMNS}  # the unit a column's suffix names

# Which run kind fills a column; the other kind writes it all null. Some columns are null within
# their kind too, as their description says (line without --input, level without --grade).
_BATCH_ONLY = {"case_seed", "line", "blanks_ok", "solved_ok", "givens_kept", "matches_unique", "create_s", "unique_s",
               "blanks_s", "solve_s", "guesses", "nodes", "unique_guesses", "difficulty", "level", "score", "canonical"}
_FUZZ_ONLY = {"target", "oracles_failed", "format_slips", "signature", "notes", "exit_code", "target_s", "cpu_s",
              "calls", "calls_failed", "input_text"}
FILLED_BY = {name: "batch runs" if name in _BATCH_ONLY else "fuzz runs" if name in _FUZZ_ONLY else "every run"
             for name in NAMES}


KINDS = {"batch": "batch runs", "fuzz": "fuzz runs"}  # a run's config kind -> its FILLED_BY word


def columns_of(kind: str | None) -> list[str]:
    """The columns a run of ``kind`` ('batch', 'fuzz') writes, in schema order: those it fills and
    those every run fills; every column for a kind not known (None: a run whose manifest was not read)."""
    own = KINDS.get(kind or "")
    return [name for name in NAMES if own is None or FILLED_BY[name] in (own, "every run")]


def _metadata(name: str, meaning: str) -> dict[str, str]:
    found = {"description": meaning, "filled_by": FILLED_BY[name]}
    if name in UNITS:
        found["unit"] = UNITS[name]
    return found


SCHEMA = pa.schema([pa.field(name, kind, metadata=_metadata(name, meaning)) for name, kind, meaning in COLUMNS])


_NULLABLE = {8: "Int8", 16: "Int16", 32: "Int32", 64: "Int64"}  # pandas' nullable integer dtypes by width


def _pandas_column(field: Any) -> dict[str, Any] | None:
    """The pandas metadata of a nullable integer or boolean column (None for the others, which pandas
    reads right by their Arrow type)."""
    if pa.types.is_integer(field.type):
        dtype = _NULLABLE[field.type.bit_width]
    elif pa.types.is_boolean(field.type):
        dtype = "boolean"
    else:
        return None
    return {"name": field.name, "field_name": field.name, "pandas_type": str(field.type), "numpy_type": dtype,
            "metadata": None}


# The 'pandas' table metadata pyarrow reads back when it makes a frame: written by hand (this module
# imports no pandas), naming only the columns whose dtype it changes.
PANDAS = json.dumps({"index_columns": [], "column_indexes": [], "creator": {"library": "sudoku-toolkit"},
                     "columns": [column for field in SCHEMA if (column := _pandas_column(field)) is not None]})
RUN_KEY = "sudoku.run"  # the table metadata that names a part's run (``run_metadata``)
RUN_FIELDS = ("run_id", "kind", "seed", "engine", "check_engine", "version", "command", "schema_version")


def run_metadata(manifest: dict[str, Any]) -> dict[str, str]:
    """A part's table metadata for the run of ``manifest``: how pandas reads it, and the run's
    RUN_FIELDS (the kind from its config; any missing field null)."""
    config, plan = (found if isinstance(found := manifest.get(key), dict) else {} for key in ("config", "plan"))
    run = {"run_id": manifest.get("run_id"), "kind": config.get("kind", "batch"), "seed": manifest.get("seed"),
           "engine": plan.get("engine"), "check_engine": plan.get("check_engine"), "version": plan.get("version"),
           "command": manifest.get("command"), "schema_version": SCHEMA_VERSION}
    return {"pandas": PANDAS, RUN_KEY: json.dumps(run, default=str)}


def fmt_time(seconds: float | None) -> str:
    """A time in seconds with a unit people read at a glance: '850 ns', '4.2 us', '12.3 ms', '1.5 s';
    '-' for none."""
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return "-"
    if math.isinf(seconds):
        return "inf"
    for scale, unit in ((1, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
        if abs(seconds) >= scale or unit == "ns":
            value = seconds / scale
            return f"{value:.3g} {unit}" if value < 1000 else f"{value:.0f} {unit}"
    return f"{seconds} s"


def table(records: Any) -> Any:
    """An Arrow table of ``records`` in the schema: a list of dicts keyed by column name (the per-case
    path), or a ``pa.Table``/``pa.RecordBatch`` built column by column (the batch path), which is put in
    the schema's column order and cast to its types (an error if a column is missing or will not cast)."""
    if isinstance(records, pa.RecordBatch):
        records = pa.Table.from_batches([records])
    if isinstance(records, pa.Table):
        return records.select(NAMES).cast(SCHEMA)
    return pa.Table.from_pylist(records, schema=SCHEMA)


def describe() -> str:
    """The schema as Markdown rows (column, type, unit, filled by, meaning), for the docs."""
    return "\n".join(f"| `{name}` | {kind} | {UNITS.get(name, '')} | {FILLED_BY[name]} | {meaning} |"
                     for name, kind, meaning in COLUMNS)

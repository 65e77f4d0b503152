"""The record schema as ``reports`` reads it: every Parquet field says what it means, which run kind
fills it and, for a time, its unit, in the file itself; a run leaves null only what the schema says it
does not fill; times are scaled by one helper in ``sudoku-jobs show`` as in ``reports``."""

import contextlib
import io

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from jobs import schema
from jobs.summary import summary_blocks
from reports.text import fmt_time
from sudoku.display import plain

KINDS = schema.KINDS


def test_every_field_carries_its_description_who_fills_it_and_the_unit_its_suffix_names():
    for field in schema.SCHEMA:
        meta = {k.decode(): v.decode() for k, v in field.metadata.items()}
        assert meta["description"], field.name
        assert meta["filled_by"] in ("batch runs", "fuzz runs", "every run"), field.name
        assert meta.get("unit") == ("s" if field.name.endswith("_s") else None), field.name
    assert schema.UNITS == {name: "s" for name in schema.TIME_COLUMNS} and "solve_s" in schema.UNITS


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A small batch run and a small fuzz run of the engine, made in-process by the two tools."""
    from fuzz.cli import main as fuzz_main
    from jobs.cli import main as jobs_main

    root = tmp_path_factory.mktemp("kinds")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert jobs_main(["run", "-n", "20", "--seed", "1", "--workers", "1", "--no-progress",
                          "--out", str(root / "batch")]) == 0
        assert fuzz_main(["run", "-n", "20", "--seed", "1", "--workers", "1", "--target", "engine",
                          "--out", str(root / "fuzz")]) == 0
    return {kind: pq.read_table(sorted((root / kind / "parts").glob("*.parquet"))) for kind in KINDS}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_run_writes_the_metadata_and_fills_only_what_the_schema_says_its_kind_fills(runs, kind):
    records = runs[kind]
    assert records.column_names == schema.columns_of(kind)  # its kind's columns alone, in the schema's order
    for name in records.column_names:
        assert records.schema.field(name).metadata == schema.SCHEMA.field(name).metadata, name
    filled = {name for name in records.column_names if pc.count(records.column(name)).as_py() > 0}
    claimed = {name for name, who in schema.FILLED_BY.items() if who in (KINDS[kind], "every run")}
    assert filled <= claimed, f"{kind} run fills columns the schema says it never fills: {filled - claimed}"
    own = {name for name, who in schema.FILLED_BY.items() if who == KINDS[kind]}
    assert filled & own  # the kind's own columns are there, so the check above is not vacuous


def test_jobs_show_scales_times_as_reports_does():
    data = {"totals": {"cases": 3, "ok": 3, "failed": 0, "rejected": 0}, "status": "complete", "run_id": "r",
            "wall_s": 1.0, "seed": 1, "host": {}, "not_ok": {"count": 0, "first": []},
            "config": dict.fromkeys(("size", "engine", "check_engine", "backend", "workers")),
            "timings": [{"phase": "blanks_s", "n": 3, "p50_s": 2.3e-6, "p90_s": 0.0123, "p99_s": 1.5, "max_s": 850e-9}]}
    text = plain(summary_blocks(data))
    assert "2.3 us" in text and "12.3 ms" in text and "1.5 s" in text and "850 ns" in text
    assert "0.00" not in text
    assert [fmt_time(v) for v in (2.3e-6, 0.0123, 1.5, 850e-9)] == ["2.3 us", "12.3 ms", "1.5 s", "850 ns"]
    assert fmt_time is schema.fmt_time  # one helper for both tools

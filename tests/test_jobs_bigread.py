"""Reading a run part by part: the streamed CSV, the narrow reads behind the totals and the exactly-once
check, and ``show`` through a dataset. In-process on hand-made parts (chunk numbers past 9, rows out of
order inside a part, failures spread over parts); bounded memory itself is a benchmark
(bench/bench_pipeline.py), not a test.
"""

import pyarrow as pa
import pyarrow.parquet as pq
from _jobs_support import assert_csv_equals_parquet

from jobs import manifest as manifests
from jobs import runner
from jobs.schema import NAMES, SCHEMA
from jobs.store import RunDir
from jobs.summary import summarize

CHUNK = 4
CHUNKS = 12  # chunk-000010 and chunk-000011 sort after chunk-000002 only by number


def _records(chunk):
    rows = []
    for i in range(CHUNK):
        case = chunk * CHUNK + i
        outcome = "failed" if case % 7 == 3 else "rejected" if case % 11 == 5 else "ok"
        rows.append({"schema_version": 3, "run_id": "r", "chunk": chunk, "case": case, "seed": 1,
                     "case_seed": 1000 + case, "source": "create", "size": 9, "puzzle": "1" * 81,
                     "solution": None if outcome != "ok" else "2" * 81, "clues": 25, "blanks": 56,
                     "outcome": outcome, "reason": None if outcome == "ok" else f"reason {case}, with a comma",
                     "create_s": case / 1000, "unique_s": 0.001, "blanks_s": None if case % 2 else 0.0005,
                     "solve_s": (CHUNKS * CHUNK - case) / 1000, "guesses": case, "nodes": 2 * case})
    return rows[::-1]  # a part whose rows are not in case order


def _run_dir(tmp_path, chunks=range(CHUNKS)):
    run_dir = RunDir(tmp_path / "run")
    run_dir.parts.mkdir(parents=True)
    for chunk in sorted(chunks, reverse=True):  # written out of order, as workers finish
        run_dir.write_part(chunk, _records(chunk))
    return run_dir


def test_part_paths_are_in_chunk_order_and_skip_temporaries(tmp_path):
    run_dir = _run_dir(tmp_path)
    (run_dir.parts / ".chunk-000099.parquet.123.tmp").write_bytes(b"half")
    assert [p.name for p in run_dir.part_paths()] == [f"chunk-{c:06d}.parquet" for c in range(CHUNKS)]


def test_streamed_csv_equals_the_parquet_rows(tmp_path):
    run_dir = _run_dir(tmp_path)
    run_dir.write_csv()  # no table: streamed part by part
    assert_csv_equals_parquet(run_dir.path)
    assert not list(run_dir.path.glob(".*.tmp"))


def test_streamed_csv_is_the_csv_of_the_whole_table(tmp_path):
    run_dir = _run_dir(tmp_path)
    run_dir.write_csv()
    streamed = run_dir.csv_path.read_bytes()
    run_dir.write_csv(run_dir.read_table())
    assert run_dir.csv_path.read_bytes() == streamed


def test_streamed_csv_of_a_run_without_parts_is_the_header(tmp_path):
    run_dir = RunDir(tmp_path / "run")
    run_dir.parts.mkdir(parents=True)
    run_dir.write_csv()
    assert run_dir.csv_path.read_text() == ",".join(f'"{name}"' for name in NAMES) + "\n"


def test_an_older_part_without_newer_columns_reads_them_as_nulls(tmp_path):
    run_dir = _run_dir(tmp_path, chunks=[0])
    old = pq.read_table(run_dir.part_path(0)).drop_columns(["signature", "notes"])
    pq.write_table(old, run_dir.part_path(1))  # chunk 1 of an older schema (its cases are 0..3 again)
    parts = list(run_dir.iter_parts())
    assert [p.schema for p in parts] == [SCHEMA, SCHEMA]
    assert parts[1].column("signature").null_count == CHUNK
    run_dir.write_csv()
    assert len(run_dir.csv_path.read_text().splitlines()) == 1 + 2 * CHUNK


def test_narrow_read_totals_and_exactly_once(tmp_path):
    run_dir = _run_dir(tmp_path)
    whole = run_dir.read_table()
    narrow = run_dir.read_columns(["case", "outcome"])
    assert narrow.column_names == ["case", "outcome"]
    assert narrow.column("case").to_pylist() == list(range(CHUNKS * CHUNK))
    outcomes = whole.column("outcome").to_pylist()
    assert runner.totals(narrow) == {"cases": len(outcomes), "ok": outcomes.count("ok"),
                                     "failed": outcomes.count("failed"), "rejected": outcomes.count("rejected")}
    specs = [{"chunk": c, "start": c * CHUNK, "count": CHUNK} for c in range(CHUNKS)]
    assert runner.missing_or_extra(narrow.column("case"), specs) is None
    assert runner.totals(RunDir(tmp_path / "none").read_columns(["case", "outcome"]))["cases"] == 0


def test_exactly_once_names_missing_and_doubled_cases_as_before(tmp_path):
    specs = [{"chunk": c, "start": c * CHUNK, "count": CHUNK} for c in range(CHUNKS)]
    for cases in ([*range(5), *range(6, CHUNKS * CHUNK)],            # one missing
                  [*range(CHUNKS * CHUNK), 7],                       # one twice
                  [*range(1, CHUNKS * CHUNK), 1000],                 # one missing, one not planned
                  []):
        got = runner.missing_or_extra(pa.chunked_array([pa.array(cases, pa.int64())]), specs)
        assert got is not None and got == manifests.missing_or_extra(cases, specs)


def test_show_from_a_dataset_is_show_from_the_whole_table(tmp_path):
    run_dir = _run_dir(tmp_path)
    manifest = {"run_id": "r", "status": "complete", "totals": runner.totals(run_dir.read_columns(["case", "outcome"])),
                "config": {}, "host": {}}
    from_dataset = summarize(manifest, run_dir.dataset(), failures_shown=5)
    assert from_dataset == summarize(manifest, run_dir.read_table(), failures_shown=5)
    bad = [c for c in range(CHUNKS * CHUNK) if c % 7 == 3 or c % 11 == 5]
    assert f"not ok ({len(bad)}; first 5):" in from_dataset
    shown = [int(line.split()[1]) for line in from_dataset.splitlines() if line.startswith("  case ")]
    assert shown == bad[:5]  # the first failures by case, across parts
    counts = {line.split()[0]: line.split()[1] for line in from_dataset.splitlines() if line.startswith("  ")}
    assert {"create_s", "unique_s", "blanks_s", "solve_s"} <= set(counts)
    assert counts["blanks_s"] == str(CHUNKS * CHUNK // 2)  # nulls left out of the percentiles


def test_show_lists_the_first_failures_by_case_whatever_the_row_order_in_a_part(tmp_path):
    run_dir = _run_dir(tmp_path)
    manifest = {"run_id": "r", "status": "complete", "totals": {}, "config": {}, "host": {}}
    rows = _records(0)  # cases 3, 2, 1, 0 in that order
    for row in rows:
        row["outcome"], row["reason"] = "failed", f"reason {row['case']}"
    run_dir.write_part(0, rows)
    for shown in (1, 2, 5):
        text = summarize(manifest, run_dir.dataset(), failures_shown=shown)
        got = [int(line.split()[1]) for line in text.splitlines() if line.startswith("  case ")]
        assert got == [0, 1, 2, 3, 5][:shown]
        assert text == summarize(manifest, run_dir.read_table(), failures_shown=shown)


def test_show_of_a_run_without_parts(tmp_path):
    run_dir = RunDir(tmp_path / "run")
    run_dir.parts.mkdir(parents=True)
    text = summarize({"run_id": "r", "status": "interrupted"}, run_dir.dataset())
    assert "0 cases" in text and "not ok" not in text


# --- percentiles ----------------------------------------------------------------------------------

from hypothesis import example, given, strategies as st  # noqa: E402


@given(st.lists(st.sampled_from([0.006237060355279981, 0.000935173106516971, 2.9858499048185265e-06, 0.0005,
                                 0.1 + 0.2, 1e-9]), min_size=1, max_size=80))
@example([2.9858499048185265e-06] * 5)
def test_shown_percentiles_never_pass_the_next_one_up(times):
    """Arrow's quantile interpolation can land one ulp above the next percentile (p90 above p99) when
    many times are equal (a chunk's blank time is shared evenly by its cases): shown, they are ordered."""
    from jobs.summary import TIME_COLUMNS, summary_data

    k = len(times)
    table = pa.table({**{column: pa.array(times, pa.float64()) for column in TIME_COLUMNS},
                      "outcome": pa.array(["ok"] * k)})
    for row in summary_data({}, table)["timings"]:
        assert min(times) <= row["p50_s"] <= row["p90_s"] <= row["p99_s"] <= row["max_s"] == max(times), row

"""``sudoku-jobs run`` end to end, as a subprocess: determinism, records, CSV, manifest, log, show, Dask.

One reference run (9x9, 60 puzzles, 6 chunks, 2 workers) is shared by the read-only tests.
"""

import os
import platform
import json
import re
import time
from datetime import datetime

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest
from _jobs_support import PHASES, assert_csv_equals_parquet, by_case, manifest, one_line, records, run_jobs

import sudoku
from jobs.schema import RUN_KEY, SCHEMA, SCHEMA_VERSION, columns_of
from sudoku import engines
from sudoku.formats import render

SEED = 20240611
N = 60
CHUNK = 10


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """A clean 9x9 run: (run dir, seconds the command took)."""
    out = tmp_path_factory.mktemp("jobs") / "reference"
    started = time.monotonic()
    result = run_jobs("run", "-n", N, "--seed", SEED, "--workers", 2, "--chunk-size", CHUNK, "--out", out)
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    return out, elapsed


def _run(out, *args):
    result = run_jobs("run", "--out", out, *args)
    assert result.returncode == 0, result.stderr
    return records(out)


# --- chunks and seeds -------------------------------------------------------------------------------


def test_same_seed_same_puzzles_whatever_workers_and_chunk_size(tmp_path, reference):
    expected = records(reference[0])
    one = _run(tmp_path / "w1", "-n", 30, "--seed", SEED, "--workers", 1, "--chunk-size", 10)
    two = _run(tmp_path / "w2", "-n", 30, "--seed", SEED, "--workers", 2, "--chunk-size", 7)
    whole = _run(tmp_path / "c30", "-n", 30, "--seed", SEED, "--workers", 2, "--chunk-size", 30)
    want = {case: row for case, row in by_case(expected, "puzzle", "solution", "case_seed").items() if case < 30}
    for table in (one, two, whole):
        assert table.column("case").to_pylist() == list(range(30))
        assert by_case(table, "puzzle", "solution", "case_seed") == want
    # the chunk column follows the chunk size asked for; the puzzles do not
    assert by_case(two, "chunk") == {case: case // 7 for case in range(30)}
    assert set(whole.column("chunk").to_pylist()) == {0}


def test_another_seed_other_puzzles(tmp_path, reference):
    other = _run(tmp_path / "other", "-n", 10, "--seed", SEED + 1, "--workers", 1, "--chunk-size", 10)
    mine = by_case(records(reference[0]), "puzzle")
    assert sum(mine[case] == puzzle for case, puzzle in by_case(other, "puzzle").items()) == 0


def test_every_row_can_be_rebuilt_alone(reference):
    table = records(reference[0])
    assert len(table) == N
    for row in table.to_pylist():
        case_seed = sudoku.derive_seed(SEED, row["case"])
        assert row["seed"] == SEED
        assert row["case_seed"] == case_seed
        puzzle = sudoku.create(3, seed=case_seed, engine=row["engine"])  # an engine's own seed space
        assert render(puzzle, "line").strip() == row["puzzle"], f"case {row['case']}"


def test_a_4x4_row_rebuilds_alone_with_py(tmp_path):
    table = _run(tmp_path / "s4", "-n", 20, "--size", 4, "--seed", SEED, "--workers", 2, "--chunk-size", 6)
    assert set(table.column("engine").to_pylist()) == {"py"}
    for row in table.to_pylist():
        puzzle = sudoku.create(2, seed=sudoku.derive_seed(SEED, row["case"]), engine="py")
        assert render(puzzle, "line").strip() == row["puzzle"], f"case {row['case']}"


# --- records ----------------------------------------------------------------------------------------


def test_records_read_by_pyarrow_with_the_documented_schema(reference):
    out = reference[0]
    table = records(out)
    # the columns a batch fills, in the schema's order and types; no always-null fuzz column
    assert table.schema.equals(pa.schema([SCHEMA.field(name) for name in columns_of("batch")]),
                               check_metadata=False), table.schema
    assert "exit_code" not in table.column_names and "target" not in table.column_names
    assert table.column("case").to_pylist() == list(range(N))
    assert set(table.column("schema_version").to_pylist()) == {SCHEMA_VERSION}
    assert pads.dataset(out / "parts", format="parquet").count_rows() == N
    rows = table.to_pylist()
    assert {row["outcome"] for row in rows} == {"ok"}
    config = manifest(out)["config"]
    engines_used = (config["engine"], config["check_engine"])
    for row in rows:
        assert row["size"] == 9 and row["source"] == "create" and row["line"] is None
        assert row["clues"] + row["blanks"] == 81 and row["blanks"] >= 40
        assert row["solutions"] == 1 and row["unique"] and row["blanks_ok"] and row["solved_ok"]
        assert row["givens_kept"] and row["matches_unique"] and row["reason"] is None
        assert (row["engine"], row["check_engine"]) == engines_used and row["engine"] != row["check_engine"]
        assert all(row[column] is not None and row[column] >= 0 for column in PHASES)
        assert row["guesses"] >= 0 and row["nodes"] >= 1
        assert re.fullmatch(r".+:\d+", row["worker"])
        assert row["timestamp"].tzinfo is not None


def test_records_read_by_pandas_with_the_documented_dtypes(reference):
    out = reference[0]
    arrow_backed = pd.read_parquet(out / "parts", dtype_backend="pyarrow")
    assert list(arrow_backed.columns) == columns_of("batch")
    for name in columns_of("batch"):
        assert arrow_backed[name].dtype.pyarrow_dtype == SCHEMA.field(name).type, name
    # plain pandas: integers and booleans stay nullable (a null line or exit code is <NA>, never a float64
    # NaN that turns every number beside it into a float), as the parts' 'pandas' metadata asks
    frame = pd.read_parquet(out / "parts").sort_values("case", ignore_index=True)
    assert len(frame) == N and frame["case"].tolist() == list(range(N))
    for name in ("schema_version", "size", "clues", "blanks"):
        assert frame[name].dtype == "Int16", name
    for name in ("line", "guesses", "nodes", "case", "seed"):
        assert frame[name].dtype == "Int64", name
    assert frame["solutions"].dtype == "Int8" and frame["score"].dtype == "Int32"
    assert frame["unique"].dtype == "boolean" and frame["unique"].all()
    assert frame["line"].isna().all()  # a batch of creates: no input line
    assert str(frame["timestamp"].dt.tz) == "UTC"


def test_each_part_names_its_run_in_its_metadata(reference):
    """A part copied out of its run still says which run, seed, engines and tool version made it."""
    out = reference[0]
    made = manifest(out)
    for part in sorted((out / "parts").glob("*.parquet")):
        run = json.loads(pq.read_schema(part).metadata[RUN_KEY.encode()])
        assert run == {"run_id": made["run_id"], "kind": "batch", "seed": SEED, "engine": made["config"]["engine"],
                       "check_engine": made["config"]["check_engine"], "version": made["plan"]["version"],
                       "command": made["command"], "schema_version": SCHEMA_VERSION}


def test_csv_holds_the_same_rows_as_parquet(reference):
    assert_csv_equals_parquet(reference[0])


# --- manifest, log, show ----------------------------------------------------------------------------


def test_manifest_records_config_seed_versions_host_totals(reference):
    out, elapsed = reference
    m = manifest(out)
    assert m["status"] == "complete"
    assert m["seed"] == SEED and m["schema_version"] == SCHEMA_VERSION
    config = m["config"]
    assert {key: config[key] for key in ("n", "size", "box", "seed", "workers", "chunk_size", "backend",
                                         "input")} == {
        "n": N, "size": 9, "box": 3, "seed": SEED, "workers": 2, "chunk_size": CHUNK, "backend": "local",
        "input": None}
    assert config["engine"] in engines.names() and config["check_engine"] in engines.names()
    assert config["engine"] != config["check_engine"]
    assert m["run_id"] == config["run_id"] and m["run_id"].startswith("reference")
    assert m["versions"]["python"] == platform.python_version()
    assert m["versions"]["pyarrow"] == pa.__version__
    assert m["versions"]["pandas"] == pd.__version__
    assert m["git_sha"] is None or re.fullmatch(r"[0-9a-f]{40}", m["git_sha"])
    assert isinstance(m["host"]["cpu"], str) and m["host"]["cpu"] and m["host"]["cpu"] != "unknown"
    assert m["host"]["cores"] == os.cpu_count()
    assert m["totals"] == {"cases": N, "ok": N, "failed": 0, "rejected": 0}
    assert m["chunks"] == m["chunks_done"] == N // CHUNK
    assert 0 < m["wall_s"] < elapsed
    started, finished = datetime.fromisoformat(m["started"]), datetime.fromisoformat(m["finished"])
    assert started <= finished


CHUNK_LINE = re.compile(r"\[(\d+)\] INFO chunk (\d+): (\d+) cases")


def test_log_has_lines_from_every_worker(reference):
    out = reference[0]
    text = (out / "run.log").read_text()
    logged = [(int(pid), int(chunk), int(cases)) for pid, chunk, cases in CHUNK_LINE.findall(text)]
    assert sorted(chunk for _, chunk, _ in logged) == list(range(N // CHUNK)), text
    assert all(cases == CHUNK for _, _, cases in logged)
    pids = {pid for pid, _, _ in logged}
    assert len(pids) >= 2, text
    parent = re.search(r"MainProcess\[(\d+)\] WARNING run ", text)
    assert parent and int(parent.group(1)) not in pids
    workers = {int(w.rsplit(":", 1)[1]) for w in records(out).column("worker").to_pylist()}
    assert workers == pids


def test_show_prints_totals_and_percentiles(reference):
    result = run_jobs("show", reference[0])
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    text = result.stdout
    assert f"{N} cases (ok {N}, failed 0, rejected 0)" in text
    assert f"seed {SEED}" in text and "complete" in text
    assert re.search(r"phase\s+n\s+p50\s+p90\s+p99\s+max", text)
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}  # each time carries its unit, as `reports show`
    for column in PHASES:
        match = re.search(rf"^\s*{column}\s+(\d+)((?:\s+[\d.]+ (?:ns|us|ms|s)){{4}})$", text, re.M)
        assert match, f"no percentile row for {column}:\n{text}"
        assert int(match.group(1)) == N
        values = re.findall(r"([\d.]+) (ns|us|ms|s)", match.group(2))
        p50, p90, p99, top = (float(value) * scale[unit] for value, unit in values)
        assert p50 <= p90 <= p99 <= top
    assert "not ok" not in text


def test_show_json_is_versioned_with_totals_config_and_percentiles(reference):
    result = run_jobs("show", reference[0], "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["schema"] == "sudoku-jobs.show" and data["version"] == 2
    assert data["totals"] == {"cases": N, "ok": N, "failed": 0, "rejected": 0} and data["seed"] == SEED
    assert data["status"] == "complete" and data["config"]["size"] == 9
    phases = {row["phase"]: row for row in data["timings"]}
    assert set(PHASES) <= set(phases)
    for row in phases.values():
        assert row["n"] == N and 0 <= row["p50_s"] <= row["p90_s"] <= row["p99_s"] <= row["max_s"]
    assert data["not_ok"] == {"count": 0, "first": []}


def test_show_tells_a_killed_run_from_one_going_on(reference, tmp_path):
    """A run killed by SIGKILL (or a power cut) still says 'running' in its manifest: show asks the
    run's lock, and tells it as stopped, with the line that resumes it; a run held is running."""
    import shutil

    from helpers import call_main
    from jobs.cli import main
    from jobs.store import RunDir

    out = tmp_path / "killed"
    shutil.copytree(reference[0], out)
    data = manifest(out)
    data["status"] = "running"
    (out / "manifest.json").write_text(json.dumps(data))

    shown = call_main(main, ["show", str(out)])
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == f"run {data['run_id']}: stopped, {N} cases saved (ok {N}, failed 0, rejected 0)"  # no wall yet
    assert lines[2:4] == ["stopped: its manifest says running, but no process holds the run (killed, or the "
                          "machine went down)", f"resume with: sudoku-jobs run --resume {out}"]
    assert json.loads(call_main(main, ["show", str(out), "--json"]).stdout)["status"] == "stopped"
    lock = out / ".lock"
    lock.unlink(missing_ok=True)
    os.mkfifo(lock)  # a hostile .lock: opening it to read must not wait for a writer
    assert ": stopped, " in call_main(main, ["show", str(out)], timeout=20).stdout
    lock.unlink()

    holder = RunDir(out)
    holder.lock()  # as the process running it does
    try:
        going = call_main(main, ["show", str(out)]).stdout
    finally:
        os.close(holder._lock)
    assert f"run {data['run_id']}: running, {N} cases saved" in going
    assert "stopped" not in going and "resume with" not in going


def test_show_of_a_killed_fuzz_run_names_fuzz_s_resume(tmp_path):
    from fake_targets import fuzz_process as fuzz  # a process of its own: its lock goes with it
    from helpers import call_main
    from jobs.cli import main

    out = tmp_path / "run"
    assert fuzz("run", "-n", 5, "--seed", 1, "--workers", 1, "--out", out, "--no-progress", cwd=tmp_path).returncode == 0
    data = manifest(out)
    data["status"] = "running"
    (out / "manifest.json").write_text(json.dumps(data))
    shown = call_main(main, ["show", str(out)]).stdout
    assert ": stopped, 5 cases saved" in shown and f"resume with: fuzz run --resume {out}\n" in shown


def test_show_of_a_directory_that_is_no_run(tmp_path):
    result = run_jobs("show", tmp_path)
    assert result.returncode == 2
    assert "manifest.json" in one_line(result.stderr)
    assert result.stdout == ""


# --- Dask ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dask_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("dask") / "run"
    result = run_jobs("run", "-n", N, "--seed", SEED, "--workers", 2, "--chunk-size", CHUNK, "--backend", "dask",
                      "--out", out)
    assert result.returncode == 0, result.stderr
    return out


def test_dask_local_cluster_gives_the_same_records(dask_run, reference):
    local, dask = records(reference[0]), records(dask_run)
    columns = ("puzzle", "solution", "outcome", "chunk", "case_seed", "guesses", "nodes", "unique_guesses")
    assert by_case(dask, *columns) == by_case(local, *columns)
    m = manifest(dask_run)
    assert m["status"] == "complete" and m["config"]["backend"] == "dask"
    assert m["totals"] == {"cases": N, "ok": N, "failed": 0, "rejected": 0}
    assert len({w for w in dask.column("worker").to_pylist()}) >= 1
    assert_csv_equals_parquet(dask_run)


def test_dask_worker_log_lines_reach_the_run_log(dask_run):
    logged = {int(chunk) for _, chunk, _ in CHUNK_LINE.findall((dask_run / "run.log").read_text())}
    assert logged == set(range(N // CHUNK))

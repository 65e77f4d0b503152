"""``sudoku-jobs run --input`` and bad usage, as a subprocess: bad lines become rejected rows; bad usage
is one line on stderr and exit 2; an existing run directory is never overwritten without --force."""

import gzip

import pytest
from helpers import call_main
from _jobs_support import assert_csv_equals_parquet, manifest, one_line, part_names, records, run_jobs

import sudoku
from sudoku.formats import parse_line, render

from jobs.cli import main as jobs_main

GOOD_9 = render(sudoku.create(3, seed=5, engine="py"), "line").strip()
GOOD_4 = render(sudoku.create(2, seed=6, engine="py"), "line").strip()
TWO_SOLUTIONS = "12" + "." * 79  # far too few givens: the check engine counts 2 (its limit)
CLASHING = "11" + "." * 79  # two 1s in the first row: no solution
# line number -> text (line 4 is blank and skipped, but still counted)
LINES = {
    1: GOOD_9,
    2: GOOD_4,
    3: "12x4",  # malformed: wrong length
    4: "",
    5: TWO_SOLUTIONS,
    6: CLASHING,
    7: GOOD_9[:4] + "x" + GOOD_9[5:],  # malformed: a bad value at column 5
    8: "  " + GOOD_9 + "  ",  # surrounding spaces are fine
}


def _write(path, compress=False):
    text = "".join(LINES[number] + "\n" for number in sorted(LINES))
    if compress:
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return path


@pytest.fixture(scope="module")
def input_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("input")
    out = base / "run"
    result = run_jobs("run", "--input", _write(base / "mixed.txt"), "--engine", "py", "--check-engine", "dlx",
                      "--workers", 2, "--chunk-size", 3, "--out", out)
    return out, result


def test_bad_lines_are_rejected_rows_and_the_run_goes_on(input_run):
    out, result = input_run
    assert result.returncode == 2, result.stderr  # malformed input, though every line was read and kept
    assert f"2 input lines rejected as not puzzles of the line format: sudoku-jobs show {out} lists them" \
        in result.stderr
    assert "Traceback" not in result.stderr
    table = records(out)
    assert table.column("case").to_pylist() == list(range(7))
    assert table.column("line").to_pylist() == [1, 2, 3, 5, 6, 7, 8]
    rows = {row["line"]: row for row in table.to_pylist()}
    for number in (3, 7):
        row = rows[number]
        assert row["outcome"] == "rejected", row
        assert row["reason"].startswith(f"line {number}"), row["reason"]
        assert row["puzzle"] == LINES[number]  # kept as read
        assert row["solution"] is None and row["solve_s"] is None
    assert "column 5" in rows[7]["reason"] and "'x'" in rows[7]["reason"]
    assert "4 characters" in rows[3]["reason"]


def test_good_lines_are_checked_and_solved(input_run):
    rows = {row["line"]: row for row in records(input_run[0]).to_pylist()}
    for number, size in ((1, 9), (2, 4), (8, 9)):
        row = rows[number]
        assert row["outcome"] == "ok" and row["reason"] is None, row
        assert row["size"] == size and row["puzzle"] == LINES[number].strip()
        assert row["unique"] and row["solutions"] == 1 and row["matches_unique"] and row["givens_kept"]
        assert sudoku.is_solution(parse_line(row["puzzle"]), parse_line(row["solution"]))
        assert row["source"] == "mixed.txt" and row["case_seed"] is None and row["create_s"] is None
        assert row["unique_s"] >= 0 and row["solve_s"] >= 0


def test_puzzles_without_a_unique_solution_are_recorded_as_such(input_run):
    rows = {row["line"]: row for row in records(input_run[0]).to_pylist()}
    several = rows[5]
    assert several["outcome"] != "rejected"
    assert several["solutions"] == 2 and several["unique"] is False and several["matches_unique"] is None
    assert several["solved_ok"] and several["givens_kept"] and several["solution"].startswith("12")
    none = rows[6]
    assert none["solutions"] == 0 and none["unique"] is False and none["solution"] is None
    assert none["outcome"] != "failed"  # rightly no solution


def test_input_run_manifest_and_csv(input_run):
    out = input_run[0]
    m = manifest(out)
    assert m["status"] == "complete"
    assert m["totals"] == {"cases": 7, "ok": 5, "failed": 0, "rejected": 2}
    assert m["config"]["input"].endswith("mixed.txt")
    assert len(part_names(out)) == 3  # 7 cases in chunks of 3
    assert_csv_equals_parquet(out)


def test_gzipped_input_with_the_default_engines(tmp_path, input_run):
    out = tmp_path / "gz"
    result = run_jobs("run", "--input", _write(tmp_path / "mixed.txt.gz", compress=True), "--workers", 1,
                      "--out", out)
    assert result.returncode == 2, result.stderr  # its two malformed lines
    table = records(out)
    assert set(table.column("source").to_pylist()) == {"mixed.txt.gz"}
    config = manifest(out)["config"]
    assert (config["engine"], config["check_engine"], config["engines_by_size"]) == ("nb", "band", True)
    mine = {row["line"]: row for row in table.to_pylist()}
    theirs = {row["line"]: row for row in records(input_run[0]).to_pylist()}
    assert sorted(mine) == sorted(theirs)
    # the 4x4 line is solved by 4x4's engines, the 9x9 ones by nb and band
    assert {number: (row["engine"], row["check_engine"]) for number, row in mine.items() if row["size"]} == \
        {1: ("nb", "band"), 2: ("py", "dlx"), 5: ("nb", "band"), 6: ("nb", "band"), 8: ("nb", "band")}
    for number, row in mine.items():
        columns = ("puzzle", "outcome", "reason", "solutions", "unique")
        if row["unique"]:
            columns += ("solution",)
        assert {c: row[c] for c in columns} == {c: theirs[number][c] for c in columns}, number


@pytest.mark.parametrize("kind", ["missing", "directory", "not gzip"])
def test_unreadable_input_is_one_line_and_exit_2(tmp_path, kind):
    path = {"missing": tmp_path / "nope.txt", "directory": tmp_path,
            "not gzip": tmp_path / "plain.txt.gz"}[kind]
    if kind == "not gzip":
        path.write_text(GOOD_9 + "\n")
    out = tmp_path / "run"
    result = run_jobs("run", "--input", path, "--out", out)
    assert result.returncode == 2
    line = one_line(result.stderr)
    assert line.startswith("sudoku-jobs: ") and str(path) in line
    assert result.stdout == ""
    assert not out.exists()


# --- bad usage ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("args, words", [
    (["--backend", "nope"], "backend"),
    (["--engine", "dlx", "--check-engine", "dlx"], "--check-engine"),
    (["--engine", "py", "--check-engine", "py"], "--check-engine"),
    (["--engine", "nosuch"], "nosuch"),
    (["-n", "0"], "-n must be at least 1, not 0"),
    (["--workers", "0"], "--workers must be at least 1, not 0"),
    (["--chunk-size", "-3"], "--chunk-size must be at least 1, not -3"),
    (["--size", "5"], "--size"),
    # what `sudoku create` refuses: every case would be a failed create
    (["--blanks", "99"], "99 blanks is not possible in a grid of 81 cells"),
    (["--size", "4", "--difficulty", "hard"], "no hard 4x4 puzzle exists"),
    (["--size", "4", "--blanks", "16"], "16 blanks is not possible in a grid of 16 cells"),
])
def test_bad_usage_is_one_line_and_exit_2(tmp_path, args, words):
    out = tmp_path / "run"
    result = call_main(jobs_main, ["run", "--out", str(out), *args])
    assert result.returncode == 2, result.stderr
    assert words in one_line(result.stderr)
    assert result.stdout == ""
    assert not out.exists()


def test_an_empty_out_is_refused_not_a_doubled_run_id(tmp_path):
    result = call_main(jobs_main, ["run", "-n", "5", "--out", ""], cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert one_line(result.stderr) == ("sudoku-jobs: --out is empty: name the run directory (or leave --out out "
                                       "for runs/run-DATE-TIME)")
    assert list(tmp_path.iterdir()) == []


def test_named_engines_are_kept_for_every_line(tmp_path):
    """An engine the user named is the one tested: a line it cannot solve is rejected, saying so."""
    out = tmp_path / "run"
    result = call_main(jobs_main, ["run", "--input", str(_write(tmp_path / "mixed.txt")), "--engine", "nb",
                                   "--workers", "1", "--out", str(out)])
    assert result.returncode == 2, result.stderr
    row = next(row for row in records(out).to_pylist() if row["line"] == 2)
    assert row["outcome"] == "rejected" and (row["engine"], row["check_engine"]) == ("nb", "band")
    assert row["reason"] == ("line 2: the engines named (nb, band) do not both solve 4x4; without --engine and "
                             "--check-engine each size has its own")
    assert manifest(out)["config"]["engines_by_size"] is False


def test_no_command_is_exit_2(tmp_path):
    result = run_jobs()
    assert result.returncode == 2 and "run or show" in one_line(result.stderr)


def test_an_existing_run_directory_needs_force(tmp_path):
    out = tmp_path / "run"
    first = run_jobs("run", "-n", 30, "--size", 4, "--seed", 1, "--chunk-size", 10, "--workers", 1, "--out", out)
    assert first.returncode == 0, first.stderr
    before = {p.name: p.read_bytes() for p in (out / "parts").iterdir()}
    before_manifest = (out / "manifest.json").read_bytes()

    again = run_jobs("run", "-n", 20, "--size", 4, "--seed", 2, "--chunk-size", 10, "--workers", 1, "--out", out)
    assert again.returncode == 2
    line = one_line(again.stderr)  # a finished run: nothing to resume (a QA note: it said use --resume)
    assert f"{out} already holds a finished run; choose another --out, or --force to replace it" in line
    assert {p.name: p.read_bytes() for p in (out / "parts").iterdir()} == before
    assert (out / "manifest.json").read_bytes() == before_manifest

    forced = run_jobs("run", "-n", 20, "--size", 4, "--seed", 2, "--chunk-size", 10, "--workers", 1, "--out", out,
                      "--force")
    assert forced.returncode == 0, forced.stderr
    assert part_names(out) == ["chunk-000000.parquet", "chunk-000001.parquet"]
    table = records(out)
    assert table.column("case").to_pylist() == list(range(20))
    assert set(table.column("seed").to_pylist()) == {2}
    assert manifest(out)["seed"] == 2 and manifest(out)["totals"]["cases"] == 20
    assert len((out / "records.csv").read_text().splitlines()) == 21
    assert_csv_equals_parquet(out)


def test_force_never_clears_a_directory_that_is_no_run(tmp_path):
    out = tmp_path / "precious"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    result = run_jobs("run", "-n", 10, "--size", 4, "--out", out, "--force")
    assert result.returncode == 2
    assert "not a run directory" in one_line(result.stderr)
    assert (out / "thesis.tex").read_text() == "years of work"
    without = run_jobs("run", "-n", 10, "--size", 4, "--out", out)
    assert without.returncode == 2
    assert one_line(without.stderr).endswith(f"{out} already exists and is not a run directory; choose another --out")
    assert sorted(p.name for p in out.iterdir()) == ["thesis.tex"]


def test_malformed_scheduler_address_is_exit_2(tmp_path):
    result = run_jobs("run", "-n", 10, "--size", 4, "--backend", "dask", "--scheduler", "localhost:notaport",
                      "--out", tmp_path / "run", timeout=60)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "localhost:notaport" in result.stderr.strip().splitlines()[-1]


def test_unreachable_scheduler_is_exit_2_with_a_message_and_no_run_directory(tmp_path):
    # Checked before the run directory is made, without waiting out Dask's own connect timeout.
    result = run_jobs("run", "-n", 10, "--size", 4, "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1",
                      "--out", tmp_path / "run", timeout=120)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("sudoku-jobs: ") and "tcp://127.0.0.1:1" in last
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


def test_resume_refuses_options_it_would_ignore(tmp_path):
    """The run's options come from its manifest; giving others with --resume is a usage error, not a
    silent no-op."""
    out = tmp_path / "run"
    assert run_jobs("run", "-n", 10, "--size", 4, "--chunk-size", 5, "--out", out).returncode == 0
    result = run_jobs("run", "--resume", out, "--workers", 1, "-n", 50)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "sudoku-jobs: --resume takes the run's options from its manifest; leave out -n, --workers"]

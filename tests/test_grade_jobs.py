"""Grades in batch runs and reports: `sudoku-jobs run --grade` records level and score on both
paths (the 9x9 batch path and the per-case path), and `reports show` groups timings by level."""

import pytest

from _jobs_support import records, run_jobs
from jobs.schema import HISTORY, NAMES, SCHEMA_VERSION
from sudoku.formats import parse_line
from sudoku.grade import grade


def assert_graded_as_sudoku_grade(table):
    rows = table.to_pylist()
    assert rows
    for row in rows:
        expected = grade(parse_line(row["puzzle"]))
        assert (row["level"], row["score"]) == (expected.level, expected.score)


def test_schema_4_has_level_and_score():
    assert SCHEMA_VERSION >= 4 and 4 in HISTORY and {"level", "score"} <= set(NAMES)


def test_run_grade_on_the_batch_path_and_reports_group_timings_by_level(tmp_path):
    from reports.load import load_run
    from reports.summary import summarize

    out = tmp_path / "run"
    done = run_jobs("run", "-n", "8", "--seed", "3", "--grade", "--workers", "1", "--out", out, "--no-progress")
    assert done.returncode == 0, done.stderr
    table = records(out)
    assert_graded_as_sudoku_grade(table)
    levels = set(table.column("level").to_pylist())
    assert len(levels) > 1
    assert {t.case_set for t in summarize(load_run(out)).timings} == {f"create · {level}" for level in levels}


@pytest.mark.slow
def test_run_grade_on_the_per_case_path_and_without_grade(tmp_path):
    graded, plain = tmp_path / "graded", tmp_path / "plain"
    for out, extra in ((graded, ["--grade"]), (plain, [])):
        done = run_jobs("run", "-n", "4", "--seed", "3", "--engine", "py", "--workers", "1", "--out", out,
                        "--no-progress", *extra)
        assert done.returncode == 0, done.stderr
    assert_graded_as_sudoku_grade(records(graded))
    table = records(plain)
    assert table.column("level").null_count == table.num_rows == table.column("score").null_count


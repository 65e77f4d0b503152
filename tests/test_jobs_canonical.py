"""`sudoku-jobs run --canonical`: each record's canonical form on both paths (the 9x9 batch path and
the per-case path), the distinct puzzles counted by `show`, the column null without the option and
above 9x9."""

import json
import random

from _jobs_support import records
from helpers import call_main
from jobs.cli import main
from jobs.columnar import canonical_line
from sudoku import create
from sudoku.bank import random_symmetry, transform
from sudoku.canonical import canonical
from sudoku.formats import parse_line, render
from sudoku.grid import Grid


def jobs(*args, cwd):
    return call_main(main, args, cwd=cwd, timeout=300)


def assert_forms_are_canonical(table):
    rows = table.to_pylist()
    assert rows
    for row in rows:
        assert row["canonical"] == render(canonical(parse_line(row["puzzle"])), "line").rstrip("\n")


def test_an_input_with_variants_counts_them_as_duplicates(tmp_path):
    rng = random.Random(7)
    puzzles = [create(3, seed=seed) for seed in range(6)]
    variants = [transform(puzzles[i], random_symmetry(rng)) for i in (0, 0, 3)]  # 3 disguised repeats
    lines = [render(p, "line").rstrip("\n") for p in puzzles + variants]
    (tmp_path / "in.txt").write_text("\n".join(lines) + "\n")
    done = jobs("run", "--input", "in.txt", "--canonical", "--workers", 1, "--out", "run", "--no-progress",
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    table = records(tmp_path / "run")
    assert_forms_are_canonical(table)
    assert len(set(table.column("canonical").to_pylist())) == 6
    shown = jobs("show", "run", cwd=tmp_path)
    assert "distinct up to symmetry: 6 of 9 puzzles (3 duplicates" in shown.stdout
    data = json.loads(jobs("show", "run", "--json", cwd=tmp_path).stdout)
    assert data["version"] == 2 and data["distinct"] == {"puzzles": 9, "forms": 6, "duplicates": 3}


def test_created_4x4_puzzles_get_forms_on_the_per_case_path(tmp_path):
    done = jobs("run", "-n", 12, "--size", 4, "--seed", 2, "--canonical", "--workers", 1, "--out", "run",
                "--no-progress", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    table = records(tmp_path / "run")
    assert_forms_are_canonical(table)
    forms = len(set(table.column("canonical").to_pylist()))
    assert f"distinct up to symmetry: {forms} of 12 puzzles ({12 - forms} duplicates" in jobs("show", "run", cwd=tmp_path).stdout


def test_without_the_option_the_column_is_null_and_show_says_nothing(tmp_path):
    done = jobs("run", "-n", 5, "--size", 4, "--seed", 2, "--workers", 1, "--out", "run", "--no-progress", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert records(tmp_path / "run").column("canonical").null_count == 5
    assert "distinct" not in jobs("show", "run", cwd=tmp_path).stdout
    assert json.loads(jobs("show", "run", "--json", cwd=tmp_path).stdout)["distinct"] is None


def test_above_9x9_there_is_no_form():
    assert canonical_line(Grid.empty(4)) is None and canonical_line(Grid.empty(2)) == "." * 16

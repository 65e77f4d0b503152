"""The batch path of ``jobs`` tasks (``jobs.columnar``): the same records as the per-case path, planted
failures caught with the same reasons, timed regions that hold only their phase, and verification in
numpy that agrees with the grid model's own checks.

Wrong batch engines (tests/_jobs_wrong_batch.py) are put in ``sudoku.engines.ENGINES`` for one test at a
time and taken out afterwards.
"""

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from _jobs_support import ENV, manifest, records, run_jobs
from hypothesis import given
from hypothesis import strategies as st

import sudoku
from jobs import columnar, schema, tasks, verify
from sudoku import engines
from sudoku.engines import EngineInfo
from sudoku.formats import parse_line, render
from sudoku.grid import Grid, find_clash

TESTS = Path(__file__).resolve().parent
WRONG, WRONG_CHECK = "wrongnb", "wrongcheck"
# every column but those that differ by nature between two runs of the same case (who, when, how long)
SAME = [name for name in schema.NAMES if name not in ("worker", "timestamp", *schema.TIME_COLUMNS)]


@pytest.fixture
def wrong(monkeypatch):
    """The wrong batch engine, registered as ``wrongnb`` (creates and solves) and ``wrongcheck`` (counts
    only); yields its module (set ``MODE`` on it)."""
    monkeypatch.syspath_prepend(str(TESTS))
    import _jobs_wrong_batch as module

    monkeypatch.setattr(module, "MODE", "honest")
    monkeypatch.setitem(engines.ENGINES, WRONG, EngineInfo(
        WRONG, "_jobs_wrong_batch", range(3, 4), frozenset({"solve", "count", "fill", "other", "generate", "batch"}),
        "nb with a spoiled solve_batch"))
    monkeypatch.setitem(engines.ENGINES, WRONG_CHECK, EngineInfo(
        WRONG_CHECK, "_jobs_wrong_batch", range(3, 4), frozenset({"solve", "count", "batch"}),
        "nb with a spoiled solve_batch, as a check engine"))
    yield module


def _spec(**overrides):
    spec = {"run_id": "t", "seed": 11, "engine": "nb", "check_engine": "band", "difficulty": None, "blanks": None,
            "mode": "create", "chunk": 3, "start": 30, "count": 12, "box": 3}
    spec.update(overrides)
    return spec


def _both_paths(spec):
    """(batch table, per-case table) of one spec; asserts the batch path is the one run_chunk takes."""
    assert columnar.serves(spec)
    batch = tasks.run_chunk(spec)
    assert isinstance(batch, pa.Table)
    return schema.table(batch), schema.table(tasks._per_case(spec))


def _same(one, other):
    for name in SAME:
        assert one.column(name).equals(other.column(name)), name


def test_a_created_chunk_gives_the_per_case_records(tmp_path):
    batch, per_case = _both_paths(_spec(blanks=50))
    _same(batch, per_case)
    assert batch.column("case").to_pylist() == list(range(30, 42))
    assert set(batch.column("outcome").to_pylist()) == {"ok"}
    for row in batch.to_pylist():
        assert row["case_seed"] == sudoku.derive_seed(11, row["case"])
        assert row["create_s"] > 0 and row["unique_s"] > 0 and row["solve_s"] > 0 and row["blanks_s"] >= 0
        assert row["blanks"] >= 50 and row["clues"] + row["blanks"] == 81
        # the rebuild recipe of the schema docs, both spellings
        alone = sudoku.create(3, seed=row["case_seed"], blanks=50, engine="nb")
        assert render(alone, "line").strip() == row["puzzle"]
        made = engines.load("nb").generate_batch(np.array([row["case_seed"]], np.uint64), blanks=50, minimal=True)
        assert engines.load("nb").to_lines(made) == [row["puzzle"]]
        assert sudoku.is_solution(alone, parse_line(row["solution"]))
    # the part the runner writes from it reads back as the same rows
    from jobs.store import RunDir

    run_dir = RunDir(tmp_path / "run")
    run_dir.create()
    run_dir.write_part(3, tasks.run_chunk(_spec(blanks=50)))
    _same(run_dir.read_table(), batch)


def test_which_chunks_take_the_batch_path():
    assert columnar.serves(_spec())
    assert columnar.serves(_spec(mode="input"))
    assert not columnar.serves(_spec(difficulty="hard"))  # difficulty is rated by py, case by case
    assert not columnar.serves(_spec(check_engine="py"))  # no batch entry point
    assert not columnar.serves(_spec(engine="py", check_engine="dlx", box=2))
    assert not columnar.serves(_spec(box=4, engine="py"))
    assert not columnar.serves(_spec(blanks=70))  # beyond nb's reach: the per-case path records why
    rows = tasks.run_chunk(_spec(blanks=70, count=2))
    assert [r["outcome"] for r in rows] == ["failed", "failed"] and rows[0]["reason"].startswith("create: ")


INPUT_LINES = [
    (1, render(sudoku.create(3, seed=5, engine="py"), "line").strip()),
    (2, render(sudoku.create(2, seed=6, engine="py"), "line").strip()),  # 4x4: no batch engine, per case
    (3, "12x4"),  # malformed
    (5, "12" + "." * 79),  # two solutions
    (6, "11" + "." * 79),  # clashing givens: no solution
    (7, "0" * 81),  # empty grid, zeros for blanks
    (9, "1" * 81),  # a full grid that clashes everywhere
]


def test_an_input_chunk_gives_the_per_case_records():
    spec = _spec(mode="input", lines=INPUT_LINES, count=len(INPUT_LINES), source="f.txt", start=100)
    batch, per_case = _both_paths(spec)
    _same(batch, per_case)
    assert batch.column("case").to_pylist() == list(range(100, 107))
    assert batch.column("line").to_pylist() == [1, 2, 3, 5, 6, 7, 9]
    assert batch.column("outcome").to_pylist() == ["ok", "rejected", "rejected", "ok", "ok", "ok", "ok"]
    assert batch.column("solutions").to_pylist() == [1, None, None, 2, 0, 2, 0]


@pytest.mark.parametrize("mode, flags, words", [
    ("relabel", {"solved_ok": True, "matches_unique": False}, "disagrees with the unique solution"),
    ("clash", {"solved_ok": False, "matches_unique": False}, "no valid solution"),
    ("none", {"solved_ok": False, "matches_unique": False}, "no valid solution"),
])
def test_a_wrong_batch_solve_is_failed_with_the_per_case_reason(wrong, mode, flags, words):
    wrong.MODE = mode
    batch, per_case = _both_paths(_spec(engine=WRONG))
    _same(batch, per_case)
    for row in batch.to_pylist():
        assert row["outcome"] == "failed" and words in row["reason"], row
        assert {key: row[key] for key in flags} == flags
        assert row["unique"] and row["solutions"] == 1  # the check engine was not fooled
    if mode == "relabel":
        assert not any(batch.column("givens_kept").to_pylist())  # every minimal puzzle gives a 1 or a 2


def test_a_wrong_batch_check_engine_fails_created_puzzles(wrong):
    wrong.MODE = "overcount"
    batch, per_case = _both_paths(_spec(check_engine=WRONG_CHECK, count=5))
    _same(batch, per_case)
    assert batch.column("outcome").to_pylist() == ["failed"] * 5
    assert all("created puzzle has 2 solutions" in r for r in batch.column("reason").to_pylist())
    assert batch.column("matches_unique").null_count == 5  # no unique solution to match


def test_an_honest_wrong_engine_passes(wrong):
    batch, _ = _both_paths(_spec(engine=WRONG))
    assert set(batch.column("outcome").to_pylist()) == {"ok"}


def test_verification_stays_outside_the_timed_regions(wrong, monkeypatch):
    """Slow verification and rendering must not show in the phase times; a slow engine must, in its phase."""
    pause = 0.02

    def slowly(function):
        def slow(*args, **kwargs):
            time.sleep(pause)
            return function(*args, **kwargs)
        return slow

    spec = _spec(engine=WRONG, count=3)
    monkeypatch.setattr(verify, "solved", slowly(verify.solved))
    monkeypatch.setattr(columnar, "lines", slowly(columnar.lines))
    table = tasks.run_chunk(spec)
    assert set(table.column("outcome").to_pylist()) == {"ok"}
    for phase in schema.TIME_COLUMNS:
        assert max(table.column(phase).drop_null().to_pylist(), default=0) < pause, phase

    monkeypatch.setattr(wrong, "solve_batch", slowly(wrong.solve_batch))
    table = tasks.run_chunk(spec)
    assert min(table.column("solve_s").to_pylist()) >= pause  # one call per puzzle, each timed
    assert max(table.column("create_s").to_pylist()) < pause and max(table.column("unique_s").to_pylist()) < pause
    monkeypatch.setattr(wrong, "generate_batch", slowly(wrong.generate_batch))
    table = tasks.run_chunk(spec)
    assert min(table.column("create_s").to_pylist()) >= pause
    table = tasks.run_chunk(_spec(check_engine=WRONG_CHECK, count=3))  # no 'timed': a call per puzzle
    assert min(table.column("unique_s").to_pylist()) >= pause and max(table.column("solve_s").to_pylist()) < pause


def test_a_run_with_a_planted_batch_failure_exits_1(tmp_path):
    """The whole command, the wrong batch engine registered in the parent (forked workers inherit it)."""
    out = tmp_path / "run"
    script = (f"import sys; sys.path.insert(0, {str(TESTS)!r}); import _jobs_wrong_batch as w; w.MODE = 'relabel'\n"
              "from sudoku.engines import ENGINES, EngineInfo\n"
              f"ENGINES[{WRONG!r}] = EngineInfo({WRONG!r}, '_jobs_wrong_batch', range(3, 4), "
              "frozenset({'solve', 'count', 'fill', 'other', 'generate', 'batch'}), 'wrong')\n"
              "from jobs.cli import main; sys.exit(main(sys.argv[1:]))")
    args = ["run", "-n", 40, "--seed", 3, "--workers", 2, "--engine", WRONG, "--check-engine", "band",
            "--chunk-size", 10, "--out", out]
    result = subprocess.run([sys.executable, "-c", script, *map(str, args)], env=ENV, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1, result.stderr
    assert manifest(out)["totals"] == {"cases": 40, "ok": 0, "failed": 40, "rejected": 0}
    reasons = records(out).column("reason").to_pylist()
    assert all("disagrees with the unique solution" in reason for reason in reasons)


def test_the_default_engines_and_chunk_size_of_a_9x9_run(tmp_path):
    out = tmp_path / "run"
    result = run_jobs("run", "-n", 30, "--seed", 4, "--workers", 1, "--out", out)
    assert result.returncode == 0, result.stderr
    config = manifest(out)["config"]
    assert (config["engine"], config["check_engine"], config["chunk_size"]) == ("nb", "band", columnar.CHUNK_SIZE)
    table = records(out)
    assert table.column("case").to_pylist() == list(range(30))
    assert set(table.column("check_engine").to_pylist()) == {"band"}
    small = run_jobs("run", "-n", 4, "--size", 4, "--workers", 1, "--out", tmp_path / "small")
    assert small.returncode == 0, small.stderr
    config = manifest(tmp_path / "small")["config"]
    assert (config["engine"], config["check_engine"], config["chunk_size"]) == ("py", "dlx", 50)


# --- verification in numpy agrees with the grid model ---------------------------------------------------------

SOLUTIONS = {box: engines.solve(sudoku.create(box, seed=9, engine="py"), engine="py").solution for box in (2, 3)}


@given(box=st.sampled_from([2, 3]), changes=st.lists(st.tuples(st.integers(0, 80), st.integers(0, 12)), max_size=3),
       seed=st.integers(0, 2**32))
def test_complete_and_valid_agrees_with_find_clash(box, changes, seed):
    cells = list(SOLUTIONS[box].cells)
    for cell, value in changes:
        cells[cell % len(cells)] = value
    grid = np.array([cells], np.uint8)
    side = box * box
    expected = all(1 <= v <= side for v in cells) and find_clash(Grid(box, cells)) is None
    assert verify.complete_and_valid(grid, box)[0] == expected


def test_lines_render_as_the_line_format():
    grids = np.array([[0, 1, 9, 10, 16, 25, 26, 255] + [0] * 73], np.uint8)
    assert columnar.lines(grids).to_pylist() == [".19AGP??" + "." * 73]
    assert columnar.lines(grids, present=np.array([False])).to_pylist() == [None]


def test_schema_table_takes_columns_in_any_order_and_refuses_missing_ones():
    rows = tasks._per_case(_spec(count=2))
    built = schema.table(rows)
    shuffled = built.select(list(reversed(schema.NAMES)))
    assert schema.table(shuffled).equals(built)
    assert schema.table(built.to_batches()[0]).equals(built)
    with pytest.raises(KeyError):
        schema.table(built.drop_columns(["outcome"]))


@pytest.mark.slow  # 13 s; test_interrupts resumes a stopped run quickly
def test_a_batch_run_killed_mid_way_resumes_to_every_case_once(tmp_path):
    """SIGKILL of the whole group while batch chunks are in flight, then --resume: each case exactly once,
    each part its own chunk's cases, and the same puzzles as the seed gives (rebuilt alone)."""
    import os
    import signal

    from _jobs_support import assert_csv_equals_parquet, hidden_files, part_names, start_jobs, wait_for_parts

    out, n, chunk = tmp_path / "run", 12000, 400
    proc = start_jobs("run", "-n", n, "--seed", 8, "--workers", 2, "--chunk-size", chunk, "--no-progress", "--out", out)
    wait_for_parts(out, proc, count=2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    saved = len(part_names(out))
    assert 2 <= saved < n // chunk
    result = run_jobs("run", "--resume", out, timeout=300)
    assert result.returncode == 0, result.stderr
    table = records(out)
    assert table.column("case").to_pylist() == list(range(n))
    assert part_names(out) == [f"chunk-{c:06d}.parquet" for c in range(n // chunk)]
    assert hidden_files(out) == []
    assert manifest(out)["status"] == "complete" and manifest(out)["totals"]["ok"] == n
    rows = table.take([0, 1, n // 2, n - 1]).to_pylist()
    for row in rows:
        assert row["case_seed"] == sudoku.derive_seed(8, row["case"])
        assert render(sudoku.create(3, seed=row["case_seed"], engine="nb"), "line").strip() == row["puzzle"]
    assert_csv_equals_parquet(out)

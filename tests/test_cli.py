"""The ``sudoku`` command: output shapes, exit codes, and one clean stderr line for every error.

Most tests call ``sudoku.cli.run(argv)`` in this process (``helpers.run_cli``), with their own stdin,
stdout and stderr; the ``smoke`` tests run ``python -m sudoku`` as a real subprocess, the way users
and the fuzz harness run it, and so do the checks of what a fresh interpreter imports."""

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import PUZZLE, REPO, SOLUTION, TESTS, run_cli, run_cli_process
from sudoku.engines import dlx, py
from sudoku.generate import min_blanks
from sudoku.formats import parse, parse_line, render
from sudoku.grade import grade
from sudoku.grid import Grid, find_clash, is_solution

EMPTY = "0 0 0 0 0 0 0 0 0\n" * 9
LINE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
HARD = "..53.....8......2..7..1.5..4....53...1..7...6..32...8..6.5....9..4....3......97.."
EMPTY_4 = "0 0 0 0\n" * 4
DEAD_END = ".12345678" + "9" + "." * 71  # no unit repeats a digit, yet r1c1 has no candidate
# a valid 49x49 grid outside the pattern family with half its cells blanked (bench/bigset.py's
# filled_grid and blanked, random.Random(4950)): the phase transition of quasigroup completion, where
# CaDiCaL gives no answer in 30 s (a shuffled pattern grid would not do: the pattern match solves those)
PHASE_TRANSITION_49 = (TESTS / "data" / "phase_transition_49x49.txt").read_text()


def grid_of(text):
    grids = list(parse(text.splitlines(keepends=True)))
    assert len(grids) == 1
    return grids[0]


def assert_clean_error(done, code=2):
    """The error contract: the exit code, nothing on stdout, one line on stderr, no traceback."""
    assert done.returncode == code, (done.returncode, done.stderr)
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith("sudoku")
    assert "Traceback" not in done.stderr


def rows_of(text):
    return [line.split(" ") for line in text.splitlines()]


# --- create ---------------------------------------------------------------------------------------


def test_create_prints_a_9x9_grid_with_40_blanks_and_a_unique_solution():
    done = run_cli_process("create")  # smoke: a real process
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.endswith("\n")
    rows = rows_of(done.stdout)
    assert len(rows) == 9
    for row in rows:
        assert len(row) == 9
        assert all(token in "0123456789" and len(token) == 1 for token in row)
    puzzle = grid_of(done.stdout)
    assert puzzle.blanks >= 40
    assert py.solve(puzzle, limit=2).count == 1
    assert dlx.solve(puzzle, limit=2).count == 1


def test_create_is_randomized_by_default():
    assert run_cli("create").stdout != run_cli("create").stdout


def test_create_seed_is_reproducible():
    first = run_cli("create", "--seed", "42")
    assert first.returncode == 0
    assert run_cli("create", "--seed", "42").stdout == first.stdout
    assert run_cli("create", "--seed", "43").stdout != first.stdout


@pytest.mark.parametrize("args, box", [([], 3), (["--size", "16"], 4), (["medium"], 3)])
def test_one_seed_one_puzzle_in_the_library_and_the_cli(args, box):
    """Issue 14.11: `sudoku create --seed 7` is sudoku.create(box, seed=7); -n K starts with it, and
    each later puzzle is made alone again from the seed -v names for it."""
    import sudoku

    difficulty = "medium" if "medium" in args else None
    alone = run_cli("create", *args, "--seed", "7")
    assert alone.stdout == render(sudoku.create(box, seed=7, difficulty=difficulty), "grid")
    many = run_cli("create", *args, "-n", "3", "--seed", "7", "-v")
    blocks = many.stdout.split("\n\n")
    assert len(blocks) == 3 and blocks[0] == alone.stdout.rstrip("\n")
    second = sudoku.derive_seed(7, 1)
    assert f"puzzle 2 (seed {second})" in many.stderr
    assert blocks[1] + "\n" == run_cli("create", *args, "--seed", second).stdout


def test_create_verbose_names_the_seed_on_stderr_only():
    done = run_cli("create", "--seed", "7", "-v")
    assert done.returncode == 0
    assert "seed 7" in done.stderr
    assert done.stdout == run_cli("create", "--seed", "7").stdout


def test_create_many_in_line_format():
    done = run_cli("create", "-n", "5", "--format", "line", "--seed", "3")
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert len(lines) == 5 and len(set(lines)) == 5
    for line in lines:
        assert len(line) == 81
        puzzle = parse_line(line)
        assert puzzle.blanks >= 40
        assert py.solve(puzzle, limit=2).count == 1


def test_create_many_grids_are_separated_by_a_blank_line():
    done = run_cli("create", "-n", "2", "--seed", "3", "--size", "4")
    blocks = done.stdout.split("\n\n")
    assert len(blocks) == 2
    assert all(len(block.strip().splitlines()) == 4 for block in blocks)


@pytest.mark.parametrize(
    "args, side, level",
    [
        (["easy"], 9, "easy"),
        (["easy", "16"], 16, "easy"),
        (["expert"], 9, "expert"),
        (["extreme"], 9, "extreme"),
        (["--difficulty", "medium"], 9, "medium"),
        (["easy", "4"], 4, "easy"),
    ],
)
def test_create_with_difficulty_and_size(args, side, level):
    done = run_cli("create", *args, "--seed", "5")
    assert done.returncode == 0, done.stderr
    rows = rows_of(done.stdout)
    assert len(rows) == side and all(len(row) == side for row in rows)
    puzzle = grid_of(done.stdout)
    assert puzzle.side == side
    assert puzzle.blanks >= (40 if side == 9 else side * side // 2)
    assert py.solve(puzzle, limit=2).count == 1
    assert grade(puzzle).level == level


def test_create_a_level_not_met_in_the_attempts_is_one_line():
    """Extreme with --symmetric is made and graded, not drawn from the bank: rarer than 1 in a million tries."""
    done = run_cli("create", "extreme", "--symmetric", "--seed", "1", "--attempts", "2")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == ["sudoku: no extreme puzzle with at least 40 blanks found in 2 attempts "
                                        "(extreme puzzles are rare: see `sudoku create --help`)"]
    done = run_cli("create", "hard", "--attempts", "0")
    assert done.returncode == 2 and done.stderr.splitlines() == ["sudoku: --attempts must be at least 1, not 0"]


@pytest.mark.parametrize("args, line", [
    (["--blanks", "81"], "sudoku: 81 blanks is not possible in a grid of 81 cells"),
    (["--size", "4", "hard"], "sudoku: no hard 4x4 puzzle exists: naked singles solve every unique 4x4 puzzle"),
])
def test_create_a_request_no_puzzle_meets_is_bad_usage(args, line):
    """Exit 2 before any work, as sudoku-jobs run refuses the same options (1 is for a puzzle not found)."""
    done = run_cli("create", *args)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.splitlines() == [line]


@pytest.mark.parametrize("fmt", ["grid", "line", "header", "json", "pretty"])
def test_create_formats(fmt):
    done = run_cli("create", "--seed", "9", "--format", fmt)
    assert done.returncode == 0
    if fmt == "pretty":
        assert done.stdout.count("\n") == 13 and "|" in done.stdout
    else:
        assert grid_of(done.stdout) == grid_of(run_cli("create", "--seed", "9").stdout)


def test_create_blanks():
    puzzle = grid_of(run_cli("create", "--seed", "1", "--blanks", "50").stdout)
    assert puzzle.blanks >= 50


@pytest.mark.parametrize("size", ["9", "4"])
def test_create_symmetric(size):
    done = run_cli("create", "--seed", "4", "--size", size, "--symmetric", "--format", "line")
    assert done.returncode == 0 and done.stderr == ""
    puzzle = grid_of(done.stdout)
    blank = [v == 0 for v in puzzle.cells]
    assert blank == blank[::-1] and puzzle.blanks >= min_blanks(puzzle.box)
    assert py.solve(puzzle, limit=2).count == 1
    assert grid_of(run_cli("create", "--seed", "4", "--size", size, "--format", "line").stdout) != puzzle


@pytest.mark.parametrize(
    "args, code",
    [
        (["-n", "0"], 2),
        (["--size", "8"], 2),
        (["easy", "12"], 2),
        (["fiendish"], 2),
        (["easy", "--difficulty", "hard"], 2),
        (["--engine", "nope"], 2),
        (["--engine", "dlx"], 2),
        (["--seed", "x"], 2),
        (["--blanks", "81"], 2),  # a request no puzzle can meet: bad usage, told before any work
        (["--size", "4", "--blanks", "16"], 2),
    ],
)
def test_create_refusals(args, code):
    assert_clean_error(run_cli("create", *args), code)


# --- solve ----------------------------------------------------------------------------------------


def test_solve_prints_the_solution_keeping_the_givens():
    done = run_cli_process("solve", input=PUZZLE)  # smoke: a real process
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == SOLUTION
    assert is_solution(grid_of(PUZZLE), grid_of(done.stdout))


def test_create_solve_round_trip():
    puzzle = run_cli("create", "--seed", "11").stdout
    done = run_cli("solve", input=puzzle)
    assert done.returncode == 0 and done.stderr == ""
    assert is_solution(grid_of(puzzle), grid_of(done.stdout))
    assert all(len(row) == 9 for row in rows_of(done.stdout))


def test_solve_hard_17_clue_puzzle():
    hard = ".................1..2..3.4.......2...35....6.4...7.......8.2.5.1....4...7.....9.."
    done = run_cli("solve", input=hard + "\n")
    assert done.returncode == 0
    assert is_solution(parse_line(hard), parse_line(done.stdout.strip()))


def test_solve_keeps_the_input_format_or_converts_with_to():
    line = run_cli("solve", input=LINE + "\n")
    assert line.stdout == render(grid_of(SOLUTION), "line")
    assert run_cli("solve", "--to", "grid", input=LINE + "\n").stdout == SOLUTION
    assert run_cli("solve", input="3\n" + PUZZLE).stdout == "3\n" + SOLUTION
    as_json = run_cli("solve", "--to", "json", input=PUZZLE).stdout
    assert json.loads(as_json) == {"schema": "sudoku.grid", "version": 1, "rows": grid_of(SOLUTION).rows}
    assert "|" in run_cli("solve", "--to", "pretty", input=PUZZLE).stdout


def test_solve_a_multi_solution_puzzle_says_so_once_on_stderr():
    done = run_cli("solve", input=EMPTY)
    assert done.returncode == 0
    assert len(done.stderr.splitlines()) == 1 and "several solutions" in done.stderr
    assert is_solution(grid_of(EMPTY), grid_of(done.stdout))


def test_solve_quiet_silences_the_several_solutions_note():
    done = run_cli("solve", "-q", input=EMPTY)
    assert done.returncode == 0 and done.stderr == ""
    assert is_solution(grid_of(EMPTY), grid_of(done.stdout))


def test_solve_a_full_grid_returns_it():
    done = run_cli("solve", input=SOLUTION)
    assert done.returncode == 0 and done.stdout == SOLUTION and done.stderr == ""


@pytest.mark.parametrize(
    "text, message",
    [
        ("5 0 5" + " 0" * 6 + "\n" + "0 0 0 0 0 0 0 0 0\n" * 8, "row 1 has two 5s, columns 1 and 3"),
        ("7" + " 0" * 8 + "\n" + "0 0 0 0 0 0 0 0 0\n" * 7 + "7" + " 0" * 8 + "\n", "column 1 has two 7s, rows 1 and 9"),
        (render(parse_line(DEAD_END)), "no solution"),
        ("0 1 2 0\n0 4 0 0\n3 0 0 0\n0 0 0 0\n", "no solution"),
    ],
)
def test_solve_no_solution_exits_1_naming_why(text, message):
    done = run_cli("solve", input=text)
    assert_clean_error(done, 1)
    assert message in done.stderr


def test_solve_batch_gives_one_line_per_puzzle():
    batch = [HARD, LINE, "." * 81]
    done = run_cli("solve", "-q", input="".join(line + "\n" for line in batch))
    assert done.returncode == 0
    answers = done.stdout.splitlines()
    assert len(answers) == 3
    for puzzle, answer in zip(batch, answers):
        assert is_solution(parse_line(puzzle), parse_line(answer))


def test_solve_batch_keeps_lines_aligned_when_one_has_no_solution():
    clash = "11" + "." * 79
    done = run_cli("solve", input=f"{LINE}\n{clash}\n{HARD}\n")
    assert done.returncode == 1
    answers = done.stdout.split("\n")
    assert answers[1] == "" and len(answers) == 4  # three lines, the second blank
    assert is_solution(parse_line(LINE), parse_line(answers[0]))
    assert is_solution(parse_line(HARD), parse_line(answers[2]))
    assert done.stderr.splitlines() == ["sudoku: puzzle 2: row 1 has two 1s, columns 1 and 2"]


@pytest.mark.parametrize("fmt", ["grid", "header"])
def test_create_many_then_solve_then_check_round_trips(fmt):
    """Issue 14.7: grids separated by blank lines are a batch; answers come back in the same shape."""
    made = run_cli("create", "-n", "3", "--seed", "1", "--format", fmt)
    solved = run_cli("solve", input=made.stdout)
    assert solved.returncode == 0 and solved.stderr == "", solved.stderr
    puzzles, answers = list(parse(made.stdout.splitlines())), list(parse(solved.stdout.splitlines()))
    assert len(answers) == 3 and solved.stdout.count("\n\n") == 2  # one blank line between answers
    assert all(is_solution(p, a) for p, a in zip(puzzles, answers))
    checked = run_cli("check", input=solved.stdout)
    assert checked.returncode == 0
    assert checked.stdout.splitlines() == [f"puzzle {k}: complete: 9x9, every unit holds each digit once"
                                          for k in (1, 2, 3)]


def test_solve_grid_batch_keeps_blocks_aligned_when_one_has_no_solution():
    clash = "1 1 0 0\n" + "0 0 0 0\n" * 3
    done = run_cli("solve", "-q", input=f"{clash}\n{EMPTY_4}\n{clash}\n{EMPTY_4}")
    assert done.returncode == 1
    blocks = done.stdout.split("\n")
    # block k answers puzzle k, blocks one blank line apart; a puzzle with no solution has an empty block
    assert blocks[0] == "" and blocks[1:5] != [""] * 4 and blocks[5:7] == ["", ""] and len(blocks) == 12
    assert done.stderr.splitlines() == [f"sudoku: puzzle {k}: row 1 has two 1s, columns 1 and 2" for k in (1, 3)]


def test_a_grid_batch_answers_what_comes_before_a_malformed_grid():
    done = run_cli("solve", "-q", input=EMPTY_4 + "\n" + EMPTY_4 + "0 0 0 0\n")
    assert done.returncode == 2
    assert len(done.stdout.splitlines()) == 4 and grid_of(done.stdout).blanks == 0
    assert done.stderr == "sudoku: line 10: unexpected text after the grid: '0 0 0 0' (a blank line separates grids)\n"


def test_solve_mixed_sizes_in_one_batch():
    done = run_cli("solve", input="1234" + "." * 12 + "\n" + LINE + "\n")
    sizes = [len(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0 and sizes == [16, 81]


@pytest.mark.parametrize(
    "text, limit, counts",
    [
        (PUZZLE, None, ["1"]),
        (EMPTY, None, ["2"]),
        ("11" + "." * 79 + "\n", None, ["0"]),
        (DEAD_END + "\n", None, ["0"]),
        ("." * 16 + "\n", "5", ["5"]),
        ("." * 16 + "\n", "1000", ["288"]),
        (f"{LINE}\n{'.' * 81}\n{DEAD_END}\n", None, ["1", "2", "0"]),
    ],
)
def test_solve_count(text, limit, counts):
    args = ["solve", "--count"] + (["--limit", limit] if limit else [])
    done = run_cli(*args, input=text)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == counts


def test_solve_with_each_engine():
    for engine in ("py", "dlx"):
        done = run_cli("solve", "--engine", engine, input=PUZZLE)
        assert done.returncode == 0 and done.stdout == SOLUTION


def test_solve_verbose_reports_work_on_stderr():
    done = run_cli("solve", "-v", input=PUZZLE)
    assert done.returncode == 0 and done.stdout == SOLUTION
    assert "guesses" in done.stderr and "nodes" in done.stderr


# --- malformed input and bad usage: exit 2, one stderr line, nothing on stdout ---------------------


def _replace_row(index, row):
    rows = PUZZLE.splitlines()
    rows[index] = row
    return "\n".join(rows) + "\n"


MALFORMED = {
    "8-rows": "".join(PUZZLE.splitlines(keepends=True)[:8]),
    "10-rows": PUZZLE + "0 0 0 0 0 0 0 0 0\n",
    "short-row": _replace_row(3, "8 0 0 0 6 0 0 0"),
    "long-row": _replace_row(3, "8 0 0 0 6 0 0 0 3 1"),
    "letter": _replace_row(4, "4 0 0 8 x 3 0 0 1"),
    "out-of-range": _replace_row(4, "4 0 0 8 10 3 0 0 1"),
    "negative": _replace_row(4, "4 0 0 8 -1 3 0 0 1"),
    "5000-digits": _replace_row(4, "4 0 0 8 " + "9" * 5000 + " 3 0 0 1"),
    "comma-separated": PUZZLE.replace(" ", ","),
    "8x8": "0 0 0 0 0 0 0 0\n" * 8,
    "line-80": LINE[:80] + "\n",
    "line-bad-char": LINE[:10] + "?" + LINE[11:] + "\n",
    "header-10": "10\n" + PUZZLE,
    "superscript-header": "\u00b2\n" + PUZZLE,
    "bad-json": '{"rows": [[1, 2, 3\n',
    "json-deep": '{"rows": ' + "[" * 20000 + "]" * 20000 + "}\n",
    "empty": "",
    "blank-lines": "\n\n   \n",
    "lone-word": "hello\n",
    "binary": b"\x00\xff\xfe\x80garbage\x01\n",
    "latin-1": "5 3 0 0 7 0 0 0 0\n".encode() + "é\n".encode("latin-1"),
    "1MB-line": "0" * 1_000_000,
    "1MB-line-of-spaces": "0 " * 500_000 + "\n",
}


@pytest.mark.parametrize("command", ["solve", "check"])
@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_input_exits_2_with_one_line(command, name):
    done = run_cli(command, input=MALFORMED[name])
    assert_clean_error(done, 2)


@pytest.mark.parametrize(
    "name, where",
    [("8-rows", "line 8"), ("short-row", "line 4"), ("letter", "line 5, column 5"), ("negative", "column 5"),
     ("out-of-range", "value 10"), ("line-bad-char", "line 1, column 11"), ("binary", "line 1, column 2"),
     ("10-rows", "line 10"), ("1MB-line", "longer than")],
)
def test_malformed_input_error_names_the_place(name, where):
    assert where in run_cli("solve", input=MALFORMED[name]).stderr


@pytest.mark.parametrize("args, input, code", [(["solve"], MALFORMED["binary"], 2), (["--bogus"], b"", 2),
                                               (["solve", "--timeout", "0.5"], PHASE_TRANSITION_49, 124)])
def test_smoke_a_real_process_keeps_the_error_contract(args, input, code):
    """The in-process tests' error contract holds in a real ``python -m sudoku``: the exit code,
    nothing on stdout, one line on stderr (a time limit kills the forked solver and says so)."""
    assert_clean_error(run_cli_process(*args, input=input, timeout=60), code)


def test_a_36x36_grid_has_no_line_output():
    big = "6\n" + ("0 " * 35 + "0\n") * 36
    assert_clean_error(run_cli("solve", "--to", "line", input=big), 2)


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["frobnicate"],
        ["solve", "extra"],
        ["solve", "--limit", "0"],
        ["solve", "--engine", "nope"],
        ["solve", "--format", "pretty"],
        ["create", "--count"],
        ["--bogus"],
    ],
)
def test_bad_usage_exits_2_with_one_line(args):
    assert_clean_error(run_cli(*args, input=PUZZLE), 2)


def test_engine_that_does_not_support_the_size_is_bad_usage():
    big = "6\n" + ("0 " * 35 + "0\n") * 36
    assert_clean_error(run_cli("solve", "--engine", "dlx", input=big), 2)


# --- --timeout: exit 124, one line naming the limit, nothing on stdout -------------------------------



@pytest.mark.parametrize("extra", [[], ["--count"], ["--count", "--limit", "5"]])
def test_solve_timeout_ends_with_124_and_one_line(extra):
    done = run_cli("solve", "--timeout", "1", *extra, input=PHASE_TRANSITION_49, timeout=30)
    assert_clean_error(done, 124)
    doing = "counting" if extra else "solving"
    assert done.stderr == f"sudoku: time limit of 1 s reached ({doing} the 49x49 puzzle)\n"


def test_create_timeout_ends_with_124_and_one_line():
    """A limit no machine can meet: a warm 25x25 create takes ~30 ms on a fast CPU (0.05 s was met)."""
    done = run_cli("create", "--size", "25", "--seed", "1", "--timeout", "0.001", timeout=30)
    assert_clean_error(done, 124)
    assert done.stderr == "sudoku: time limit of 0.001 s reached (making puzzle 1 of 1)\n"


def test_a_timeout_that_is_not_reached_changes_nothing():
    assert run_cli("solve", "--timeout", "60", input=PUZZLE).stdout == SOLUTION
    assert run_cli("solve", "--timeout", "60", "--engine", "dlx", input=PUZZLE).stdout == SOLUTION
    made = run_cli("create", "--seed", "4", "--size", "16", "--timeout", "60")
    assert made.returncode == 0 and made.stdout == run_cli("create", "--seed", "4", "--size", "16").stdout


@pytest.mark.parametrize(
    "args",
    [["solve", "--timeout", "0"], ["solve", "--timeout", "-1"], ["solve", "--timeout", "nan"],
     ["solve", "--timeout", "x"], ["solve", "--timeout", "inf"], ["create", "--timeout", "0"],
     ["solve", "--engine", "nb", "--timeout", "5"], ["create", "--engine", "nb", "--timeout", "5"]],
)
def test_bad_timeouts_are_bad_usage(args):
    done = run_cli(*args, input=PUZZLE)
    assert_clean_error(done, 2)


# --- check ----------------------------------------------------------------------------------------


def test_check_complete_exits_0():
    done = run_cli("check", input=SOLUTION)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == "complete: 9x9, every unit holds each digit once\n"


def test_check_incomplete_exits_1():
    done = run_cli("check", input=PUZZLE)
    assert done.returncode == 1
    assert done.stdout == "incomplete: 51 blanks\n"


def test_check_invalid_exits_1_naming_the_unit():
    done = run_cli("check", input=SOLUTION.replace("5 3 4", "5 5 4", 1))
    assert done.returncode == 1
    assert done.stdout == "invalid: row 1 has two 5s, columns 1 and 2\n"


def test_check_batch():
    full = render(grid_of(SOLUTION), "line").strip()
    done = run_cli("check", input=f"{full}\n{LINE}\n")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].endswith("complete: 9x9, every unit holds each digit once")
    assert lines[1].endswith("incomplete: 51 blanks")


# --- JSON output (issue 14.9) ---------------------------------------------------------------------


def test_check_json_is_one_versioned_object_per_grid():
    full = render(grid_of(SOLUTION), "line").strip()
    done = run_cli("check", "--json", input=f"{full}\n{LINE}\n")
    assert done.returncode == 1 and done.stderr == ""
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        {"schema": "sudoku.check", "version": 2, "puzzle": 1, "verdict": "complete",
         "detail": "9x9, every unit holds each digit once"},
        {"schema": "sudoku.check", "version": 2, "puzzle": 2, "verdict": "incomplete", "detail": "51 blanks"},
    ]
    single = run_cli("check", "--json", input=SOLUTION.replace("5 3 4", "5 5 4", 1))
    assert json.loads(single.stdout) == {"schema": "sudoku.check", "version": 2, "puzzle": 1, "verdict": "invalid",
                                         "detail": "row 1 has two 5s, columns 1 and 2"}


def test_solve_count_json_is_one_versioned_object_per_puzzle():
    clash = "11" + "." * 79
    done = run_cli("solve", "--count", "--json", "--limit", "3", input=f"{LINE}\n{clash}\n{'.' * 81}\n")
    assert done.returncode == 0 and done.stderr == ""
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["version"], r["puzzle"], r["count"], r["limit"]) for r in rows] == [(2, 1, 1, 3), (2, 2, 0, 3),
                                                                                   (2, 3, 3, 3)]
    assert {r["schema"] for r in rows} == {"sudoku.solve"}
    assert rows[0]["detail"] is None and rows[1]["detail"] == "row 1 has two 1s, columns 1 and 2"
    assert isinstance(rows[0]["guesses"], int) and isinstance(rows[0]["nodes"], int) and rows[1]["nodes"] is None
    assert set(rows[0]) == {"schema", "version", "puzzle", "count", "limit", "detail", "guesses", "nodes"}


def test_json_is_one_spelling_in_every_command():
    """Issue 42: `create --format json`, `solve --to json` and `--json` (with --count only) were three
    spellings; --json now asks each command's JSON, the old spellings kept as the same output."""
    solved = run_cli("solve", "--json", input=PUZZLE)
    assert solved.returncode == 0, solved.stderr
    assert json.loads(solved.stdout) == {"schema": "sudoku.grid", "version": 1, "rows": grid_of(SOLUTION).rows}
    assert run_cli("solve", "--to", "json", input=PUZZLE).stdout == solved.stdout
    made = run_cli("create", "--size", "4", "--seed", "1", "--json")
    assert made.stdout == run_cli("create", "--size", "4", "--seed", "1", "--format", "json").stdout
    assert json.loads(made.stdout)["schema"] == "sudoku.grid"
    assert run_cli("check", "--json", input=made.stdout).stdout.startswith('{"schema": "sudoku.check", "version": 2')
    assert_clean_error(run_cli("solve", "--json", "--to", "line", input=PUZZLE))
    assert_clean_error(run_cli("create", "--json", "--format", "line"))


# --- files as arguments (issue 14.10) -------------------------------------------------------------


def test_solve_and_check_read_files_in_turn_and_dash_for_stdin(tmp_path):
    (tmp_path / "a.txt").write_text(PUZZLE)
    (tmp_path / "b.txt").write_text(f"{LINE}\n{HARD}\n")
    done = run_cli("solve", "--to", "line", tmp_path / "a.txt", "-", tmp_path / "b.txt", input=LINE)
    assert done.returncode == 0, done.stderr
    answers = done.stdout.splitlines()
    assert len(answers) == 4  # one answer a puzzle, numbered across the files
    for puzzle, answer in zip([grid_of(PUZZLE), parse_line(LINE), parse_line(LINE), parse_line(HARD)], answers):
        assert is_solution(puzzle, parse_line(answer))
    checked = run_cli("check", tmp_path / "b.txt", tmp_path / "a.txt")
    assert checked.stdout.splitlines() == ["puzzle 1: incomplete: 51 blanks", "puzzle 2: incomplete: 58 blanks",
                                           "puzzle 3: incomplete: 51 blanks"]
    assert run_cli("solve", tmp_path / "a.txt").stdout == SOLUTION  # one file, one grid: as from stdin


@pytest.mark.parametrize("command", [["solve"], ["check"], ["solve", "--count"]])
def test_a_missing_or_unreadable_file_is_one_line_exit_2_before_any_answer(tmp_path, command):
    (tmp_path / "a.txt").write_text(PUZZLE)
    done = run_cli(*command, tmp_path / "a.txt", tmp_path / "missing.txt")
    assert_clean_error(done)
    assert done.stderr == f"sudoku: cannot read {tmp_path / 'missing.txt'}: No such file or directory\n"
    assert_clean_error(run_cli(*command, tmp_path))  # a directory


def test_malformed_input_in_a_file_names_the_file(tmp_path):
    (tmp_path / "bad.txt").write_text(PUZZLE.replace("5 3 0", "5 x 0", 1))
    done = run_cli("solve", tmp_path / "bad.txt")
    assert_clean_error(done)
    assert done.stderr == f"sudoku: {tmp_path / 'bad.txt'}: line 1, column 2: 'x' is not a number\n"


# --- version and help -----------------------------------------------------------------------------


VERSION_LINE = r"{name} \d+\.\d+\.\d+( \(git [0-9a-f]{{12}}\))?"


@pytest.mark.parametrize("name, module", [("sudoku", "sudoku"), ("sudoku-jobs", "jobs"), ("fuzz", "fuzz"),
                                          ("reports", "reports")])
def test_every_command_prints_its_version_and_git_sha(name, module):
    import re

    import sudoku
    from sudoku.version import git_sha

    done = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True, text=True, cwd=REPO,
                          timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert re.fullmatch(VERSION_LINE.format(name=name), done.stdout.strip()), done.stdout
    assert done.stdout.startswith(f"{name} {sudoku.__version__}")
    sha = git_sha()
    if sha:  # run from a checkout: the sha is HEAD's
        assert done.stdout.strip().endswith(f"(git {sha[:12]})")


def test_git_sha_reads_head_loose_packed_and_worktree_refs(tmp_path):
    from sudoku.version import git_sha

    one, two = "1" * 40, "2" * 40
    git = tmp_path / "repo" / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "packed-refs").write_text(f"# pack-refs with: peeled\n{one} refs/heads/main\n")
    assert git_sha(tmp_path / "repo") == one
    (git / "refs" / "heads" / "main").write_text(two + "\n")  # a loose ref wins over the packed one
    assert git_sha(tmp_path / "repo") == two
    worktree = git / "worktrees" / "wt"
    worktree.mkdir(parents=True)
    (worktree / "HEAD").write_text(one + "\n")  # detached
    (worktree / "commondir").write_text("../..\n")
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text(f"gitdir: {worktree}\n")
    assert git_sha(tmp_path / "wt") == one
    assert git_sha(tmp_path / "nowhere") is None


def test_version_matches_pyproject():
    import tomllib

    import sudoku

    with open(REPO / "pyproject.toml", "rb") as file:
        assert tomllib.load(file)["project"]["version"] == sudoku.__version__


@pytest.mark.parametrize("command", [[], ["create"], ["solve"], ["check"]])
def test_help_shows_an_example_and_the_exit_codes(command):
    done = run_cli(*command, "--help")
    assert done.returncode == 0 and done.stderr == ""
    text = done.stdout
    assert "example" in text
    assert "sudoku " in text.split("example", 1)[1]  # the example is a command line
    assert "exit codes" in text
    for code, meaning in (("0", "success"), ("1", "no solution"), ("2", "bad usage"), ("124", "time limit")):
        assert any(line.split()[:1] == [code] and meaning in line for line in text.splitlines()), (code, text)


# --- imports --------------------------------------------------------------------------------------


HEAVY = ("numpy", "numba", "pandas", "dask", "pyarrow", "pysat", "pysolvers")  # pysolvers: the sat engine's import


# One fresh interpreter for all the import checks (modules only accumulate, so a command that loads
# one is caught at its step): the steps that must not load typing come first.
_FRESH_IMPORTS = """\
import io, json, sys
import sudoku, sudoku.cli, sudoku.engines
HEAVY = set(sys.argv[1].split())

def loaded(step, code=None):
    heavy = sorted(m for m in sys.modules if m.split(".")[0] in HEAVY)
    print("LOADED", json.dumps({"step": step, "code": code, "heavy": heavy, "typing": "typing" in sys.modules}),
          flush=True)

loaded("import sudoku, sudoku.cli, sudoku.engines")
for step in json.loads(sys.argv[2]):
    sys.stdin = io.TextIOWrapper(io.BytesIO(step["stdin"].encode()))
    code = sudoku.cli.main(step["command"].split())
    loaded(step["command"], code)
"""


def test_a_fresh_cli_call_loads_no_heavy_module_and_a_9x9_call_no_typing():
    """A single create, solve or check starts in milliseconds: no numpy, numba, pandas, Dask, Arrow or
    python-sat. typing costs ~2 ms of a ~30 ms call (issue 17: a 9x9 solve starts within 4x `python -c
    pass`), so the sudoku package keeps its type-only imports behind ``TYPE_CHECKING = False``."""
    no_typing = [("solve", PUZZLE), ("solve --timeout 9", PUZZLE), ("check", SOLUTION)]
    steps = no_typing + [("check", PUZZLE), ("create --seed 1", "")]
    done = subprocess.run(
        [sys.executable, "-c", _FRESH_IMPORTS, " ".join(HEAVY),
         json.dumps([{"command": command, "stdin": stdin} for command, stdin in steps])],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    seen = [json.loads(line.split(" ", 1)[1]) for line in done.stdout.splitlines() if line.startswith("LOADED ")]
    assert [row["step"] for row in seen] == ["import sudoku, sudoku.cli, sudoku.engines"] + [c for c, _ in steps]
    assert all(row["heavy"] == [] for row in seen), seen
    assert all(not row["typing"] and row["code"] == 0 for row in seen[1 : 1 + len(no_typing)]), seen


# --- no input makes the command crash (hypothesis) -------------------------------------------------


def _assert_no_crash(done):
    assert done.returncode in (0, 1, 2), (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    if done.returncode == 2:
        errors = done.stderr.splitlines()
        assert errors and errors[-1].startswith("sudoku: "), done.stderr
        if done.stdout:  # a streamed batch answers the puzzles before its malformed line (README)
            # one answer per puzzle before it: a solution line, a count, or a check verdict
            # (grid and header answers are rows of numbers, a blank line between grids)
            assert all(len(line) in (0, 16, 81, 256, 625) or line.isdigit() or line.startswith("puzzle ")
                       or line.startswith("{") or all(t.isdigit() for t in line.split(" "))
                       for line in done.stdout.splitlines()), done.stdout
            assert errors[-1].startswith("sudoku: line "), done.stderr  # names where the batch broke
        else:
            assert len(errors) == 1 or all("several solutions" in e for e in errors[:-1]), done.stderr


COMMANDS = st.sampled_from([["solve"], ["solve", "--count"], ["check"], ["solve", "--format", "line"]])
CLI_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@CLI_SETTINGS
@given(COMMANDS, st.text(max_size=300))
def test_no_text_input_crashes_the_cli(command, text):
    _assert_no_crash(run_cli(*command, input=text.encode("utf-8", "surrogatepass")))


@CLI_SETTINGS
@given(COMMANDS, st.binary(max_size=300))
def test_no_binary_input_crashes_the_cli(command, data):
    _assert_no_crash(run_cli(*command, input=data))


@st.composite
def near_puzzles(draw):
    """Valid 4x4 and 9x9 puzzle text in any input format with a few characters changed."""
    box = draw(st.sampled_from([2, 3]))
    side = box * box
    grid = Grid(box, draw(st.lists(st.integers(0, side), min_size=side**2, max_size=side**2)))
    text = render(grid, draw(st.sampled_from(["grid", "line", "header", "json"])))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(list("0123456789 .\n-xA{}[]") + ["10", "\t"])) + text[at + 1 :]
    return text


@CLI_SETTINGS
@given(COMMANDS, near_puzzles())
def test_no_near_puzzle_crashes_the_cli(command, text):
    done = run_cli(*command, input=text)
    _assert_no_crash(done)
    if done.returncode == 0 and command == ["solve"]:
        # whatever was accepted was solved: each answer keeps its puzzle's givens and is valid
        puzzles = list(parse(text.split("\n")))
        answers = list(parse(done.stdout.split("\n")))
        assert len(puzzles) == len(answers)
        for puzzle, answer in zip(puzzles, answers):
            assert find_clash(puzzle) is None
            assert is_solution(puzzle, answer)


@pytest.mark.parametrize("command", ["grade", "hint"])
def test_grade_and_hint_json_lines_carry_the_version(command, capsys, monkeypatch):
    import io

    from sudoku.cli import run
    from sudoku.generate import create

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(render(create(3, seed=5), "grid").encode())))
    assert run([command, "--json"]) == 0
    record = json.loads(capsys.readouterr().out.splitlines()[0])
    assert record["schema"] == f"sudoku.{command}" and record["version"] == 2 and record["puzzle"] == 1

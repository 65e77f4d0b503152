"""fuzz in-process: the lenient reader, the oracles, shrinking, the case families and the corpus.

Targets here are Python functions that make a Result, so every test is fast; the same bugs in
real subprocesses are in test_fuzz_targets.py.
"""

import json
import random
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_targets import fuzz_config
from fuzz import corpus, oracles
from fuzz.cases import (case_class, CREATE_EVERY, FAMILIES, SOLVE_FAMILIES, WEIGHTS, Case, build, create_calls, from_text,
                        keeps_class, make_case, _pool)
from fuzz.oracles import (CREATE_ORACLES, ORACLES, SOLVE_ORACLES, Failure, can_fail, judge_create, judge_solve,
                          oracles_of, signature)
from fuzz.read import find_grid
from fuzz.shrink import shrink
from fuzz.targets import Result
from sudoku import Grid, create, derive_seed, engines, find_clash, render

PUZZLE = create(3, seed=11)
SOLUTION = engines.solve(PUZZLE, limit=1).solution
EXACT = render(SOLUTION, "grid")
FULLER = Grid(3, [s if i % 4 == 0 else p for i, (p, s) in enumerate(zip(PUZZLE.cells, SOLUTION.cells))])  # not minimal
ROWS = EXACT.splitlines()


def result(stdout=b"", stderr=b"", exit_code=0, *, timed_out=False, flooded=False, seconds=0.01, limit=None,
           hang=None):
    if isinstance(stdout, str):
        stdout = stdout.encode()
    if isinstance(stderr, str):
        stderr = stderr.encode()
    return Result(exit_code, stdout, stderr, seconds, timed_out, flooded, seconds / 2, limit=limit, hang=hang,
                  blocked_seconds=seconds if hang == "blocked" else 0.0)


def details(verdict):
    """oracle -> detail of a verdict's failures."""
    return {oracle: failure.detail for oracle, failure in verdict.failed.items()}


def case_of(text, family="test"):
    """A solve case for ``text`` with the answer our reference works out."""
    return from_text(family, "solve", text.encode() if isinstance(text, str) else text)


def boxed(rows):
    """Rows drawn with ``|`` between stacks."""
    return [" | ".join(" ".join(row.split()[c : c + 3]) for c in (0, 3, 6)) for row in rows]


# --- the lenient reader ------------------------------------------------------------------------

def test_exact_output_has_no_slips():
    grid, slips, _, _ = find_grid(EXACT.encode())
    assert grid == SOLUTION and slips == []


def test_exact_header_output_has_no_slips():
    grid, slips, _, _ = find_grid(render(SOLUTION, "header").encode(), header=True)
    assert grid == SOLUTION and slips == []


def test_strict_names_the_slips_in_the_signature_and_quotes_the_extra_text():
    """Under --strict every format failure was one bug, 'format:format', and the text said only
    'extra_text': what the program printed beside the grid had to be looked up in its output."""
    case = case_of(render(PUZZLE, "grid"), family="unique_easy")
    failure = judge_solve(case, result(EXACT + "Solved in 3 ms\n"), strict=True).failed["format"]
    assert (failure.kind, failure.detail) == ("extra_text", "extra_text ('Solved in 3 ms')")
    boxed_text = "Solution:\n" + "\n".join(boxed(ROWS)) + "\n"
    failure = judge_solve(case, result(boxed_text), strict=True).failed["format"]
    assert (failure.kind, failure.detail) == ("separators,extra_text", "separators, extra_text ('Solution:')")
    assert "format" not in judge_solve(case, result(EXACT + "Solved in 3 ms\n")).failed  # a slip, not strict


@pytest.mark.parametrize("text, slip", [
    (EXACT + "Multiple solutions found.\n", "extra_text"),
    ("Solving...\n" + EXACT, "extra_text"),
    ("\n".join(boxed(ROWS)) + "\n", "separators"),
    ("\n".join(ROWS[:3] + ["------+-------+------"] + ROWS[3:6] + ["------+-------+------"] + ROWS[6:]) + "\n",
     "separators"),
    (EXACT.replace(" ", "  "), "spacing"),
    ("\n".join(row + " " for row in ROWS) + "\n", "spacing"),
    (render(PUZZLE, "grid") + EXACT, "echoed_input"),
    (render(PUZZLE, "grid") + "\n" + EXACT, "echoed_input"),
    (EXACT.replace("\n", "\r\n"), "crlf"),
    (EXACT[:-1], "no_final_newline"),
])
def test_a_slip_is_named_and_the_grid_still_found(text, slip):
    grid, slips, _, _ = find_grid(text.encode())
    assert grid == SOLUTION
    assert slip in slips


def test_a_missing_header_is_a_slip_only_when_headers_are_expected():
    assert find_grid(EXACT.encode(), header=True) == (SOLUTION, ["no_header"], [], None)
    assert find_grid(EXACT.encode(), header=False) == (SOLUTION, [], [], None)


def test_chatty_output_names_each_slip_once():
    text = "Solution:\n" + "\n".join(boxed(ROWS[:3]) + ["------+-------+------"] + boxed(ROWS[3:])) + "\n"
    grid, slips, _, _ = find_grid(text.encode())
    assert grid == SOLUTION
    assert sorted(slips) == ["extra_text", "separators"]


def boxed_drawing(grid, *, title="Solution:"):
    """A grid as the wild draws it: a title, ``+-------+`` rules, ``| 5 3 4 | ...`` rows, and a blank
    line between bands."""
    rule = "+-------+-------+-------+"
    lines = [title, rule]
    for r, row in enumerate(grid.rows):
        if r and r % 3 == 0:
            lines += [rule, "", rule]
        lines.append("| " + " | ".join(" ".join(map(str, row[c : c + 3])) for c in (0, 3, 6)) + " |")
    return "\n".join(lines + [rule]) + "\n"


def test_a_boxed_answer_with_blank_lines_between_bands_is_read():
    grid, slips, out_of_range, _ = find_grid(boxed_drawing(SOLUTION).encode())
    assert grid == SOLUTION and not out_of_range
    assert sorted(slips) == ["blank_lines", "extra_text", "separators"]
    # and after an echoed boxed puzzle, the answer is still the last grid
    grid, slips, _, _ = find_grid((boxed_drawing(PUZZLE, title="Puzzle:") + boxed_drawing(SOLUTION)).encode())
    assert grid == SOLUTION


def test_an_out_of_range_number_in_an_answer_is_read_and_named():
    rows = [row.split() for row in ROWS]
    rows[0][2], rows[4][7] = "10", "-1"
    grid, _, out_of_range, _ = find_grid(("\n".join(" ".join(row) for row in rows) + "\n").encode())
    assert out_of_range == [(1, 3, 10), (5, 8, -1)]
    assert grid.cells[2] == 0 and grid.cells[4 * 9 + 7] == 0


def test_the_last_grid_is_the_answer():
    other = create(3, seed=12)
    grid, _, _, _ = find_grid((render(other, "grid") + "\n" + EXACT).encode())
    assert grid == SOLUTION


@pytest.mark.parametrize("stdout, slips", [(b"", []), (b"  \n", []), (b"No solutions found.\n", ["no_grid"]),
                                           (b"1 2 3\n" * 9, ["no_grid"]), (b"\xff\xfe\x00", ["no_grid"])])
def test_no_grid(stdout, slips):
    assert find_grid(stdout) == (None, slips, [], None)


def test_eight_rows_are_not_a_grid():
    assert find_grid("\n".join(ROWS[:8]).encode() + b"\n")[0] is None


# --- the oracles ---------------------------------------------------------------------------------

def test_oracle_names():
    assert set(ORACLES) == set(SOLVE_ORACLES) | set(CREATE_ORACLES) | set(oracles.CHECK_ORACLES)
    assert len(ORACLES) == len(set(ORACLES))


def test_the_right_answer_passes():
    case = case_of(render(PUZZLE, "grid"))
    assert case.count == 1 and case.solution == SOLUTION
    verdict = judge_solve(case, result(EXACT))
    assert (verdict.failed, verdict.slips, verdict.notes, verdict.grid) == ({}, [], [], SOLUTION)


def test_any_solution_of_a_multiple_puzzle_passes():
    few = Grid(3, [v if i < 9 else 0 for i, v in enumerate(SOLUTION.cells)])
    case = case_of(render(few, "grid"))
    assert case.count == 2
    other = engines.solve(few, limit=1).solution
    assert judge_solve(case, result(EXACT)).failed == {}
    assert judge_solve(case, result(render(other, "grid"))).failed == {}


def changed_given(puzzle, solution):
    index = next(i for i, v in enumerate(puzzle.cells) if v)
    return solution.with_cell(index, solution.cells[index] % 9 + 1)


def test_keeps_givens_and_valid_grid():
    case = case_of(render(PUZZLE, "grid"))
    failed = details(judge_solve(case, result(render(changed_given(PUZZLE, SOLUTION), "grid"))))
    assert set(failed) == {"keeps_givens", "valid_grid"}
    assert "1 given changed" in failed["keeps_givens"]


def test_valid_grid_names_blanks_left():
    blank = SOLUTION.with_cell(PUZZLE.cells.index(0), 0)  # a blank of the puzzle left blank
    failed = details(judge_solve(case_of(render(PUZZLE, "grid")), result(render(blank, "grid"))))
    assert set(failed) == {"valid_grid"}
    assert "1 blanks left" in failed["valid_grid"]


def test_unique_solution_a_valid_grid_that_is_not_the_one():
    # Against a right case this cannot fire (a valid grid that keeps every given of a unique puzzle
    # is its solution): it guards the harness's own reference, so give it a case with another one.
    relabel = [0, 2, 1, 3, 4, 5, 6, 7, 8, 9]
    other = Grid(3, [relabel[v] for v in SOLUTION.cells])
    case = Case("unique_easy", "solve", render(PUZZLE, "grid").encode(), Grid.empty(3), 1, other)
    assert judge_solve(case, result(EXACT)).failed.keys() == {"unique_solution"}


def test_answers_a_solvable_puzzle_refused():
    case = case_of(render(PUZZLE, "grid"))
    failed = details(judge_solve(case, result(b"", b"sudoku: no solution\n", 1)))
    assert set(failed) == {"answers"}
    assert "exit 1" in failed["answers"] and "no solution" in failed["answers"]
    assert set(judge_solve(case, result(b"Done.\n", b"", 0)).failed) == {"answers"}


@pytest.mark.parametrize("stdout, stderr, code, problem", [
    (b"", b"sudoku: no solution\n", 0, "exit 0"),
    (b"No solutions found.\n", b"", 0, "exit 0, printed 'No solutions found.', nothing on stderr"),
    (EXACT.encode(), b"", 3, "exit 3, but a grid on stdout"),
])
def test_rejects_unsolvable(stdout, stderr, code, problem):
    clashing = PUZZLE.with_cell(PUZZLE.cells.index(0), next(v for v in PUZZLE.cells[:9] if v)) \
        if PUZZLE.cells[:9].count(0) else PUZZLE
    case = case_of(render(clashing, "grid"))
    assert case.count == 0
    assert judge_solve(case, result(b"", b"sudoku: clash\n", 1)).failed == {}
    failed = details(judge_solve(case, result(stdout, stderr, code)))
    assert set(failed) >= {"rejects_unsolvable"}
    assert problem in failed["rejects_unsolvable"]


def test_a_grid_that_overwrites_a_given_of_a_puzzle_with_no_solution_is_named_and_marked():
    """A QA program 'repaired' a puzzle with no solution by dropping a given: the detail said only
    'exit 0, printed a grid', and the given 7 printed as 4 was found in case.json's stdout."""
    first = next(i for i, v in enumerate(PUZZLE.cells) if v)
    r, c = divmod(first, 9)
    others = set(range(1, 10)) - {PUZZLE.cells[first]}
    repaired = Grid(3, [SOLUTION.cells[i] if i != first else next(iter(others)) for i in range(81)])
    case = Case("no_solution", "solve", render(PUZZLE, "grid").encode(), PUZZLE, 0, None)  # as if it had none
    failure = judge_solve(case, result(render(repaired, "grid"))).failed["rejects_unsolvable"]
    assert failure.detail == (f"exit 0, printed a grid, nothing on stderr; the grid changes 1 given, first at "
                              f"row {r + 1}, column {c + 1}: {repaired.cells[first]} for the given {PUZZLE.cells[first]}")
    assert (failure.kind, failure.where) == ("accepted", {"row": r + 1, "column": c + 1})
    kept = judge_solve(case, result(EXACT)).failed["rejects_unsolvable"]  # its givens kept: nothing to name
    assert kept.detail == "exit 0, printed a grid, nothing on stderr" and kept.where is None


@pytest.mark.parametrize("stdout, stderr, slip", [
    (b"ERROR: Puzzle not solveable\n", b"", "error_on_stdout"),
    (b"No solutions found.\n", b"sudoku: no\n", "error_on_stdout"),
    (b"", b"", "no_error_message"),
])
def test_a_clean_rejection_with_its_message_astray_is_a_slip(stdout, stderr, slip):
    case = case_of("1 2 3\n")
    verdict = judge_solve(case, result(stdout, stderr, 1))
    assert verdict.failed == {} and verdict.slips == [slip]
    assert details(judge_solve(case, result(stdout, stderr, 1), strict=True)) == {"format": slip}


def test_rejects_malformed():
    case = case_of("1 2 3\n")
    assert case.count is None
    assert judge_solve(case, result(b"", b"sudoku: row has 3 numbers\n", 2)).failed == {}
    failed = details(judge_solve(case, result(b"ERROR: bad input\n", b"", 0)))
    assert failed == {"rejects_malformed": "exit 0, printed 'ERROR: bad input', nothing on stderr"}
    # a malformed text "solved" with exit 0 fails too
    assert set(judge_solve(case, result(EXACT)).failed) == {"rejects_malformed"}


def test_an_out_of_range_value_kept_in_the_answer_is_named():
    text = render(PUZZLE, "grid").replace("0", "10", 1)
    case = case_of(text, family="malformed_out_of_range")
    assert case.count is None
    kept = text.replace("0 ", "5 ").replace("15", "10", 1)  # a "solution" that keeps the 10
    row, column = next((r + 1, line.split().index("10") + 1) for r, line in enumerate(kept.splitlines())
                       if "10" in line.split())
    verdict = judge_solve(case, result(kept))
    assert verdict.failed["rejects_malformed"].kind == "accepted"
    assert verdict.failed["valid_grid"].detail.startswith(f"row {row}, column {column} is 10, outside 1..9")


def test_unusual_whitespace_rejected_cleanly_is_a_note_not_a_failure():
    text = render(PUZZLE, "grid").replace("\n", "\r\n")
    case = case_of(text, family="whitespace_crlf")
    assert case.count == 1
    verdict = judge_solve(case, result(b"", b"sudoku: line 1: unexpected \\r\n", 2))
    assert verdict.failed == {} and verdict.notes == ["strict_input"]
    assert judge_solve(case, result(EXACT)).notes == []
    # a wrong answer is still wrong, and a rejection of ordinary text is still a failure
    assert "keeps_givens" in judge_solve(case, result(render(changed_given(PUZZLE, SOLUTION), "grid"))).failed
    plain = case_of(render(PUZZLE, "grid"), family="unique_easy")
    assert set(judge_solve(plain, result(b"", b"sudoku: bad\n", 2)).failed) == {"answers"}


def test_contained_oracles():
    case = case_of(render(PUZZLE, "grid"))
    timed_out = judge_solve(case, result(exit_code=-9, timed_out=True, seconds=2.0)).failed
    assert set(timed_out) == {"no_timeout"}  # not also answers or no_crash: the kill was ours
    flooded = judge_solve(case, result(b"x" * 100, exit_code=-9, flooded=True)).failed
    assert set(flooded) == {"no_flood"}  # one bug, not also a missing answer
    segfault = details(judge_solve(case, result(exit_code=-11)))
    assert segfault["no_crash"] == "killed by signal 11 (SIGSEGV)"
    traceback = b'Traceback (most recent call last):\n  File "x.py"\nValueError\n'
    assert "no_crash" in judge_solve(case_of("x\n"), result(b"", traceback, 1)).failed


def test_format_fails_only_when_strict():
    case = case_of(render(PUZZLE, "grid"))
    chatty = result("Solution:\n" + EXACT)
    assert judge_solve(case, chatty).failed == {}
    assert judge_solve(case, chatty).slips == ["extra_text"]
    assert details(judge_solve(case, chatty, strict=True)) == {"format": "extra_text ('Solution:')"}
    assert judge_solve(case, result(EXACT), strict=True).failed == {}


def test_header_format_expects_the_header():
    case = from_text("test", "solve", render(PUZZLE, "header").encode())
    assert case.count == 1
    assert judge_solve(case, result(render(SOLUTION, "header")), header=True, strict=True).failed == {}
    assert details(judge_solve(case, result(EXACT), header=True, strict=True)) == {"format": "no_header"}


def create_result(grid):
    return result(render(grid, "grid"))


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32), st.integers(0, 2**32))
def test_a_create_that_shuffles_one_puzzle_is_not_random(seed, first, second):
    from sudoku.bank import random_symmetry, transform

    puzzle = create(3, seed=seed)
    one, two = (transform(puzzle, random_symmetry(random.Random(s))) for s in (first, second))
    if one != two:  # the same text twice is a repeat, tested below
        failed = judge_create([create_result(one), create_result(create(3, seed=seed + 1)), create_result(two)]).failed
        assert failed == {"create_random": Failure("create 3 printed the puzzle of create 1 in disguise (digits "
                                                   "relabelled, rows or columns permuted, or transposed)", "variant")}
    assert judge_create([create_result(one), create_result(create(3, seed=seed + 1))]).failed == {}


def test_canonical_forms_are_computed_only_for_creates_that_share_a_fingerprint(monkeypatch):
    """Variants share their fingerprint, so only creates that share one are put in canonical form;
    the disguised one is still found."""
    from sudoku.bank import random_symmetry, transform

    from fuzz import oracles

    formed = []
    real = oracles._form
    monkeypatch.setattr(oracles, "_form", lambda grid: formed.append(grid) or real(grid))
    puzzles = [create(3, seed=seed) for seed in range(4)]
    assert judge_create([create_result(p) for p in puzzles]).failed == {}
    assert formed == []
    disguised = transform(puzzles[1], random_symmetry(random.Random(8)))
    assert disguised != puzzles[1]
    verdict = judge_create([create_result(p) for p in (*puzzles, disguised)])
    assert verdict.failed["create_random"].kind == "variant"
    assert sorted(formed, key=str) == sorted([puzzles[1], disguised], key=str)


def test_variants_are_no_evidence_at_4x4():
    """Two essentially different full 4x4 grids: a right generator's creates are often variants."""
    from sudoku.canonical import canonical

    puzzle = create(2, seed=3)
    relabel = {0: 0, 1: 2, 2: 3, 3: 4, 4: 1}
    other = Grid(2, [relabel[puzzle.cells[c * 4 + r]] for r in range(4) for c in range(4)])  # transposed too
    assert other != puzzle and canonical(other) == canonical(puzzle)
    assert judge_create([create_result(puzzle), create_result(other)], side=4).failed == {}


def test_under_strict_a_create_whose_every_answer_slips_fails_on_every_call():
    """QA: a boxed create under --strict was "intermittent (0 of 30 creates)" though every one slipped."""
    chatty = [result("Puzzle:\n" + render(create(3, seed=seed), "grid")) for seed in (1, 2, 3)]
    verdict = judge_create(chatty, strict=True)
    assert set(verdict.failed) == {"format"} and verdict.calls_failed == 3
    assert judge_create(chatty, strict=False).calls_failed == 0


def test_create_oracles():
    other = create(3, seed=13)
    assert judge_create([create_result(PUZZLE), create_result(other)]).failed == {}
    assert set(judge_create([create_result(PUZZLE), create_result(PUZZLE)]).failed) == {"create_random"}
    sixteen = Grid(3, [v if i < 16 else 0 for i, v in enumerate(SOLUTION.cells)])
    assert details(judge_create([create_result(sixteen), create_result(sixteen)])) == {
        "create_unique": "several solutions", "create_random": "create 2 printed the same puzzle as create 1"}
    thirty = Grid(3, [v if p or i >= 30 else 0 for i, (v, p) in enumerate(zip(SOLUTION.cells, PUZZLE.cells))])
    failed = judge_create([create_result(thirty), create_result(thirty.with_cell(80, 0))]).failed
    assert set(failed) == {"create_blanks"}
    chatty = result("Puzzle:\n" + render(PUZZLE, "grid"))
    assert judge_create([chatty, create_result(other)]).failed == {}
    assert details(judge_create([chatty, create_result(other)], strict=True)) == {"format": "extra_text ('Puzzle:')"}


def test_every_create_is_judged_and_a_bug_on_some_is_intermittent():
    good = [create_result(create(3, seed=seed)) for seed in range(20, 24)]
    sixteen = Grid(3, [v if i < 16 else 0 for i, v in enumerate(SOLUTION.cells)])
    verdict = judge_create(good[:2] + [create_result(sixteen)] + good[2:])
    assert details(verdict) == {"create_unique": "intermittent (1 of 5 creates): several solutions"}
    assert (verdict.calls, verdict.calls_failed, verdict.evidence) == (5, 1, 2)
    assert verdict.grid == sixteen  # the failing answer is the one kept


def test_a_create_failure_shows_the_targets_own_message():
    verdict = judge_create([result(b"", b"sudoku: cannot open /dev/urandom\nmore\n", 1), create_result(PUZZLE)])
    assert details(verdict) == {"create_answers": "intermittent (1 of 2 creates): exit 1 "
                                                  "(sudoku: cannot open /dev/urandom), no grid on stdout"}


def test_a_run_asks_create_often_enough_to_catch_a_bug_on_30_percent():
    for n in (1, 10, 100, 299, 300, 301, 1000, 10_000):
        creates = sum(case.calls for case in (make_case(1, i, n=n) for i in range(0, n, CREATE_EVERY)))
        assert creates >= max(30, n / 10), n
        assert 0.7 ** creates < 1e-4
        assert all(make_case(1, i, n=n).command == ("roundtrip" if i % 50 == 25 else "solve")
                   for i in range(1, min(n, 60)) if i % CREATE_EVERY)
    assert create_calls(10_000) == 2


def test_an_answer_after_half_the_limit_in_cpu_is_a_note():
    case = case_of(render(PUZZLE, "grid"))
    slow = judge_solve(case, result(EXACT, seconds=7.0, limit=5.0))  # cpu 3.5s
    assert slow.failed == {} and slow.notes == ["slow"]
    assert judge_solve(case, result(EXACT, seconds=4.0, limit=5.0)).notes == []  # cpu 2s
    assert judge_solve(case, result(EXACT, seconds=7.0)).notes == []  # no limit: in-process


@pytest.mark.parametrize("hang, seconds, detail", [
    ("cpu", 17.2, "no answer after 5s of CPU (wall 17.2s)"),
    ("blocked", 5.0, "blocked 5s without answering (cpu 2.5s, wall 5.0s)"),
    ("wall", 100.0, "no answer within the 100s wall backstop (cpu 50.0s)"),
])
def test_a_hang_says_which_rule_stopped_it(hang, seconds, detail):
    case = case_of(render(PUZZLE, "grid"))
    verdict = judge_solve(case, result(exit_code=-9, timed_out=True, seconds=seconds, limit=5.0, hang=hang))
    assert details(verdict) == {"no_timeout": detail}
    assert verdict.failed["no_timeout"].kind == "hang" and verdict.notes == []


@pytest.mark.parametrize("done, said", [
    (result(exit_code=-9, timed_out=True, seconds=17.2, limit=5.0, hang="cpu"), "killed by fuzz after 5s of CPU (hang)"),
    (result(exit_code=-9, timed_out=True, seconds=5.0, limit=5.0, hang="blocked"), "killed by fuzz after 5s blocked (hang)"),
    (result(exit_code=-9, timed_out=True, seconds=100.0, limit=5.0, hang="wall"),
     "killed by fuzz at the 100s wall backstop (hang)"),
    (result(exit_code=-9), "killed by signal 9 (SIGKILL)"),  # not ours: killed by someone else
    (result(exit_code=-11), "killed by signal 11 (SIGSEGV)"),
    (result(exit_code=2), "exit 2"),
])
def test_how_a_call_ended_says_a_hang_was_fuzzs_own_kill_not_exit_minus_9(done, said):
    assert oracles.ending(done) == said
    assert corpus.actual_of(done)["ended"] == said  # what a reproducer's case.json and the reports show


@pytest.mark.parametrize("count, judged", [
    (None, {"rejects_malformed"}),
    (0, {"rejects_unsolvable"}),
    (2, {"answers", "keeps_givens"}),
    (1, {"answers", "keeps_givens", "unique_solution"}),
])
def test_can_fail_matches_what_judge_solve_checks(count, judged):
    case = Case("test", "solve", b"", None, count, None)
    always = {"no_timeout", "no_flood", "no_crash", "valid_grid", "format"}
    assert {o for o in SOLVE_ORACLES if can_fail(o, case)} == judged | always


def test_signatures_group_like_failures():
    crash = result(exit_code=-11)
    text = render(PUZZLE, "grid")
    first = judge_solve(case_of(text, family="unique_easy"), crash)
    assert signature("solvable", first, crash) == "no_crash:signal 11 on solvable (signal 11)"
    assert oracles_of("rejects_malformed:accepted+valid_grid:out_of_range on malformed (exit 0)") == [
        "rejects_malformed", "valid_grid"]
    assert set(oracles.PRIORITY) == set(ORACLES)
    changed = result(render(changed_given(PUZZLE, SOLUTION), "grid"))
    verdict = judge_solve(case_of(text), changed)
    # the broken grid is a consequence of the changed given: the signature names the behaviour alone
    assert "valid_grid" in verdict.failed
    assert signature("solvable", verdict, changed) == "keeps_givens:changed on solvable (exit 0)"
    assert signature("solvable", judge_solve(case_of(text), result(EXACT)), result(EXACT)) is None


def test_one_behaviour_is_one_signature_on_every_family():
    """A program that exits 0 on every malformed text, whatever the family, gives one signature; so
    does one that changes a given, on unique and on multi-solution grids alike."""
    for answer, kind in ((result(EXACT), "accepted"), (result(b"", b"sudoku: bad input\n", 0), "wrong_exit")):
        seen = set()
        for family in [f for f in SOLVE_FAMILIES if f.startswith("malformed_")]:
            case = build(family, random.Random(3), _pool(1))
            seen.add(signature(case_class(case), judge_solve(case, answer), answer))
        assert seen == {f"rejects_malformed:{kind} on malformed (exit 0)"}
    seen = set()
    for family in ("unique_easy", "unique_hard", "multiple", "full", "one_blank", "whitespace_tabs"):
        case = build(family, random.Random(4), _pool(1))
        answer = changes_a_given(case.text)
        seen.add(signature(case_class(case), judge_solve(case, answer), answer))
    assert seen == {"keeps_givens:changed on solvable (exit 0)"}


def test_an_out_of_range_answer_is_a_behaviour_of_its_own():
    case = case_of(render(PUZZLE, "grid").replace("0", "10", 1), family="malformed_out_of_range")
    answer = result(render(SOLUTION, "grid").replace("4", "10", 1).encode())
    verdict = judge_solve(case, answer)
    assert signature(case_class(case), verdict, answer) == (
        "rejects_malformed:accepted+valid_grid:out_of_range on malformed (exit 0)")
    assert verdict.failed["valid_grid"].where == {"row": 1, "column": verdict.failed["valid_grid"].where["column"]}


def test_a_refusal_signature_names_the_class_of_its_message():
    case = case_of(render(PUZZLE, "grid"), family="unique_easy")
    one = result(b"", b"Needs at least 25 starting numbers (has 24)\n", 1)
    other = result(b"", b"format of input file is incorrect\n", 1)
    again = result(b"", b"Needs at least 25 starting numbers (has 19)\n", 1)
    signatures = [signature("solvable", judge_solve(case, r), r) for r in (one, other, again)]
    assert signatures[0] == signatures[2] != signatures[1]
    assert signatures[0] == "answers:exit on solvable (exit non-zero: 'needs at least # starting numbers has #')"


def test_a_traceback_names_its_exception():
    case = case_of(render(PUZZLE, "grid"), family="unique_easy")
    crash = result(b"", b"Traceback (most recent call last):\n  File \"x.py\", line 3\nIndexError: list index\n", 1)
    verdict = judge_solve(case, crash)
    assert verdict.failed["no_crash"].kind == "traceback IndexError"


# stderr as each runtime writes an uncaught error (the Rust one from rustc 1.95, Node's from v20)
RUNTIME_CRASHES = {
    "rust": (b"thread 'main' (26492) panicked at sudoku.rs:123:20:\nindex out of bounds: the len is 10 but the "
             b"index is 10\nstack backtrace:\n   0: __rustc::rust_begin_unwind\n", 101, "panic",
             "a Rust panic on stderr (index out of bounds: the len is 10 but the index is 10, at sudoku.rs:123:20)"),
    "rust before 1.73": (b"thread 'main' panicked at 'called `Option::unwrap()` on a `None` value', src/main.rs:9:5\n"
                         b"note: run with `RUST_BACKTRACE=1`\n", 101, "panic",
                         "a Rust panic on stderr ('called `Option::unwrap()` on a `None` value', src/main.rs:9:5)"),
    "go": (b"panic: runtime error: index out of range [9] with length 9\n\ngoroutine 1 [running]:\nmain.parse(...)\n"
           b"\t/home/u/sudoku/main.go:42 +0x1d\nmain.main()\n\t/home/u/sudoku/main.go:88 +0x25\n", 2,
           "panic", "a Go panic on stderr (runtime error: index out of range [9] with length 9, at main.go:42)"),
    "go, no frames": (b"panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n", 2, "panic", "a Go panic on stderr (boom)"),
    "java": (b'Exception in thread "main" java.lang.NumberFormatException: For input string: "x"\n\tat java.base/'
             b"java.lang.Integer.parseInt(Integer.java:661)\n", 1, "exception NumberFormatException",
             'an uncaught Java exception on stderr (NumberFormatException: For input string: "x")'),
    "java, its own frame": (b'Exception in thread "main" java.lang.ArrayIndexOutOfBoundsException: Index 9 out of bounds '
                            b"for length 9\n\tat java.base/java.util.Arrays.get(Arrays.java:10)\n\tat Sudoku.parse("
                            b"Sudoku.java:57)\n\tat Sudoku.main(Sudoku.java:12)\n", 1,
                            "exception ArrayIndexOutOfBoundsException", "an uncaught Java exception on stderr "
                            "(ArrayIndexOutOfBoundsException: Index 9 out of bounds for length 9, at Sudoku.java:57)"),
    "dotnet": (b"Unhandled exception. System.IndexOutOfRangeException: Index was outside the bounds of the array.\n"
               b"   at Program.Main()\n", 134, "exception IndexOutOfRangeException",
               "an uncaught .NET exception on stderr (IndexOutOfRangeException: Index was outside the bounds of the "
               "array.)"),
    "node": (b"/tmp/s.js:85\n    const v = rows[r][c];\n                     ^\n\nTypeError: Cannot read properties of "
             b"undefined (reading '0')\n    at parse (/tmp/s.js:85:22)\n    at node:internal/main/run_main_module:28:49"
             b"\n\nNode.js v20.20.2\n", 1, "exception TypeError",
             "an uncaught JavaScript exception on stderr (TypeError: Cannot read properties of undefined (reading "
             "'0'), at s.js:85)"),
    "python": (b'Traceback (most recent call last):\n  File "/home/u/their.py", line 3, in <module>\n    main()\n'
               b'  File "/home/u/lib/grid.py", line 40, in parse\n    x = rows[9]\nIndexError: list index out of range\n',
               1, "traceback IndexError", "a Python traceback on stderr (IndexError: list index out of range, at grid.py:40)"),
}


@pytest.mark.parametrize("runtime", sorted(RUNTIME_CRASHES))
def test_an_uncaught_error_of_any_runtime_is_a_crash_not_a_refusal(runtime):
    """A QA try's Rust panic (exit 101) and Node exception (exit 1) were judged clean refusals: only a
    Python traceback was a crash."""
    stderr, code, kind, detail = RUNTIME_CRASHES[runtime]
    for case in (case_of("0 0 10\n", family="malformed_out_of_range"), case_of(render(PUZZLE, "grid"))):
        failure = judge_solve(case, result(b"", stderr, code)).failed["no_crash"]
        assert (failure.kind, failure.detail) == (kind, detail)


@pytest.mark.parametrize("stderr", [b"error: row 3 has 8 numbers\n", b"Error: 10 is out of range (row 1)\n",
                                    b"invalid input\n    at line 3, column 5\n", b"NumberFormatException: not a digit\n",
                                    b"the thread panicked\n"])
def test_a_program_s_own_error_message_is_no_crash(stderr):
    assert "no_crash" not in judge_solve(case_of("0 0 10\n", family="malformed_out_of_range"),
                                         result(b"", stderr, 1)).failed


def test_a_create_that_crashes_is_one_bug_not_also_a_missing_puzzle():
    """A create that dies with a traceback prints no puzzle; that is the crash's consequence, so the
    signature holds the crash alone (a program that fails at import showed as two create bugs)."""
    crash = result(b"", b"Traceback (most recent call last):\n  File \"x.py\"\nModuleNotFoundError: x\n", 1)
    verdict = judge_create([crash, crash])
    assert set(verdict.failed) == {"no_crash"}
    assert signature("create", verdict, crash) == "no_crash:traceback ModuleNotFoundError on create (exit non-zero)"
    warned = result(render(PUZZLE, "grid").encode(), b"Traceback (most recent call last):\nUserWarning: x\n", 0)
    assert set(judge_create([warned]).failed) == {"no_crash"}  # a grid with exit 0 is still judged


# --- shrinking -----------------------------------------------------------------------------------

class Fake:
    """A target as a function of the case's text (what a program sees), counting its calls."""

    def __init__(self, answer):
        self.answer = answer
        self.calls = 0

    def verdict(self, case):
        return judge_solve(case, self.answer(case.text))

    def same(self, wanted):
        """A same-failure test for shrinking: the signature of the answer equals ``wanted``."""
        def same_failure(case):
            self.calls += 1
            answer = self.answer(case.text)
            return signature(case_class(case), judge_solve(case, answer), answer) == wanted
        return same_failure

    def signature(self, case):
        answer = self.answer(case.text)
        return signature(case_class(case), judge_solve(case, answer), answer)


def shrunk(case, fake, **options):
    wanted = fake.signature(case)
    assert wanted, "the case must fail to begin with"
    small, _ = shrink(case, oracles_of(wanted), fake.same(wanted), **options)
    assert fake.signature(small) == wanted
    return small


def right_answer(text):
    """What a correct program does with ``text``."""
    case = from_text("any", "solve", text)
    if case.count is None:
        return result(b"", b"malformed\n", 2)
    if case.count == 0:
        return result(b"", b"no solution\n", 1)
    return result(render(engines.solve(case.puzzle, limit=1).solution, "grid"))


def changes_a_given(text):
    case = from_text("any", "solve", text)
    if case.count and case.puzzle.clues:
        solution = engines.solve(case.puzzle, limit=1).solution
        return result(render(changed_given(case.puzzle, solution), "grid"))
    return right_answer(text)


def test_a_changed_given_shrinks_to_a_minimal_unique_puzzle():
    """A bug shown on a unique puzzle shrinks to a unique puzzle: blanking more would make a grid
    with several solutions, another class of case, and no such candidate is asked for."""
    case = case_of(render(FULLER, "grid"), family="unique_easy")
    fake = Fake(changes_a_given)
    small = shrunk(case, fake)
    assert small.count == 1 and small.puzzle.clues < FULLER.clues
    assert fake.calls <= 2 * FULLER.clues + 20  # candidates of another class are not worth a call
    assert small.text == render(small.puzzle, "grid").encode()  # only givens went: its final newline stays
    for cell, value in enumerate(small.puzzle.cells):  # minimal: no given can go
        if value:
            assert from_text("unique_easy", "solve", render(small.puzzle.with_cell(cell, 0), "grid").encode()).count == 2


def test_a_shrink_never_turns_a_unique_case_into_a_multi_solution_one():
    """A program that hangs on sparse grids: its hang on a unique puzzle must not be saved as the
    all-zero grid (a hang on several solutions, another bug)."""
    def hangs_when_sparse(text):
        case = from_text("any", "solve", text)
        if case.puzzle is not None and case.puzzle.clues < 30:
            return result(exit_code=-9, timed_out=True)
        return right_answer(text)

    sparse = from_text("unique_hard", "solve", render(PUZZLE, "grid").encode())
    assert sparse.count == 1 and sparse.puzzle.clues < 30
    fake = Fake(hangs_when_sparse)
    small = shrunk(sparse, fake)
    assert small.count == 1 and small.puzzle.clues >= 17


ZEROS = ["0"] * 9


def _zeros_but(row, column, token):
    """A 9x9 grid of zeros, one token in place of the zero at (row, column), with a final newline."""
    rows = [list(ZEROS) for _ in range(9)]
    rows[row][column] = token
    return "".join(" ".join(line) + "\n" for line in rows).encode()


def test_a_malformed_text_failure_shrinks_to_zeros_and_its_letter_in_a_grid_of_the_right_shape():
    """A program that accepts anything accepts a row of one number too: a letter case shrunk to "b"
    would show that under the letter's name. It stays 9 rows of 9, all zeros but the letter."""
    def solves_anything(text):  # exit 0 and a grid, whatever the input
        return result(EXACT)

    case = build("malformed_letter", random.Random(5), _pool(1))
    assert case.count is None
    small = shrunk(case, Fake(solves_anything))
    rows = [line.split() for line in small.text.decode().splitlines()]
    assert len(rows) == 9 and all(len(row) == 9 for row in rows) and small.text.endswith(b"\n")
    tokens = [token for row in rows for token in row]
    assert sum(token.isalpha() for token in tokens) == 1 and tokens.count("0") == 80
    assert small.count is None


def test_a_crash_on_a_letter_shrinks_to_the_letter_among_zeros():
    def crashes_on_x(text):
        return result(exit_code=-11) if b"x" in text else right_answer(text)

    text = render(PUZZLE, "grid").replace("0", "x", 1)
    case = Case("malformed_letter", "solve", text.encode(), None, None, None)
    where = text.split().index("x")
    assert shrunk(case, Fake(crashes_on_x)).text == _zeros_but(where // 9, where % 9, "x")


def test_an_out_of_range_crash_keeps_its_out_of_range_value():
    """A program that crashes on 10 and on empty input: the reproducer must still hold the 10."""
    def crashes(text):
        return result(exit_code=-11) if b"10" in text or not text.strip() else right_answer(text)

    text = render(PUZZLE, "grid").replace("0", "10", 1)
    case = Case("malformed_out_of_range", "solve", text.encode(), None, None, None)
    where = text.split().index("10")
    assert shrunk(case, Fake(crashes)).text == _zeros_but(where // 9, where % 9, "10")


def test_a_reader_that_pads_short_rows_does_not_shrink_a_tenth_number_away():
    """The QA awk program: it pads a short row with zeros and drops a tenth number. A case with a
    tenth number shrank to rows of one "0" around it, and its first marked line was a short row."""
    def pads_and_drops(text):
        return result(EXACT)  # accepts every shape

    text = render(PUZZLE, "grid").splitlines()
    text[3] += " 7"
    case = from_text("malformed_more_columns", "solve", ("\n".join(text) + "\n").encode())
    small = shrunk(case, Fake(pads_and_drops))
    rows = [line.split() for line in small.text.decode().splitlines()]
    assert [len(row) for row in rows] == [9, 9, 9, 10, 9, 9, 9, 9, 9] and small.text.endswith(b"\n")


def test_a_crlf_case_keeps_its_crlf():
    def crashes_on_cr(text):
        return result(exit_code=-6) if b"\r" in text else right_answer(text)

    case = case_of(render(FULLER, "grid").replace("\n", "\r\n"), family="whitespace_crlf")
    small = shrunk(case, Fake(crashes_on_cr))
    assert small.text.count(b"\r\n") == 1 and small.count == 1  # still the unique puzzle it was
    assert small.puzzle.clues < FULLER.clues


def test_shrinking_keeps_the_exit_class():
    """A crash by SIGSEGV on a letter must not shrink to a text that dies of SIGABRT instead."""
    def two_crashes(text):
        if b"x" in text and len(text) > 30:
            return result(exit_code=-11)
        if b"x" in text:
            return result(exit_code=-6)
        return right_answer(text)

    case = Case("malformed_letter", "solve", render(PUZZLE, "grid").replace("0", "x", 1).encode(), None, None, None)
    small = shrunk(case, Fake(two_crashes))
    assert len(small.text) > 30 and b"x" in small.text


def test_shrinking_keeps_what_the_case_expects():
    # An unsolvable puzzle shrinks only to puzzles that still have no solution.
    def says_ok(text):
        return result(b"", b"", 0)

    clash = render(PUZZLE, "grid").replace("0", str(next(v for v in PUZZLE.cells[:9] if v)), 1)
    case = case_of(clash, family="clashing")
    assert case.count == 0
    small = shrunk(case, Fake(says_ok))
    assert small.count == 0 and small.puzzle.clues == 2  # the two clashing givens


def test_shrinking_respects_its_budget():
    fake = Fake(changes_a_given)
    case = case_of(render(FULLER, "grid"), family="unique_easy")
    wanted = fake.signature(case)
    small, stopped = shrink(case, oracles_of(wanted), fake.same(wanted), max_calls=5)
    assert fake.calls == 5 and stopped == "calls"
    assert fake.signature(small) == wanted


def test_a_case_that_no_longer_fails_is_returned_as_is():
    case = case_of(render(PUZZLE, "grid"), family="unique_easy")
    assert shrink(case, ["keeps_givens"], Fake(right_answer).same("anything")) == (case, None)


def test_create_cases_do_not_shrink():
    case = Case("create", "create", b"", None, None, None)
    assert shrink(case, ["create_unique"], lambda c: pytest.fail("no call expected")) == (case, None)


@pytest.mark.parametrize("family, kept, lost", [
    ("whitespace_tabs", b"1\t2", b"1 2"),
    ("whitespace_crlf", b"1\r\n", b"1\n"),
    ("malformed_out_of_range", _zeros_but(0, 1, "10"), _zeros_but(0, 1, "1")),
    ("malformed_out_of_range", _zeros_but(0, 1, "10"), b"0 10\n"),  # the rest of the grid's shape too
    ("malformed_negative", _zeros_but(2, 2, "-3"), _zeros_but(2, 2, "3")),
    ("malformed_negative", _zeros_but(2, 2, "-3"), b"-3"),
    ("malformed_letter", _zeros_but(8, 8, "x"), _zeros_but(8, 8, "1")),
    ("malformed_letter", _zeros_but(8, 8, "x"), _zeros_but(8, 8, "x")[:-18]),
    ("malformed_empty_input", b" \n", b"1"),
    ("malformed_binary", b"\xff", b"1"),
    ("malformed_fewer_rows", b"1 2 3 4 5 6 7 8 9\n", b""),
    ("malformed_fewer_rows", b"1 2 3 4 5 6 7 8 9\n", b"1 2 3 4 5 6 7 8 9\n1 2\n"),  # rows whole: no cut row
    ("malformed_more_rows", b"0 0 0 0 0 0 0 0 0\n" * 10, b"0 0 0 0 0 0 0 0 0\n" * 9),
    ("malformed_more_rows", b"0 0 0 0 0 0 0 0 0\n" * 10, b"0 0 0 0 0 0 0 0 0\n" * 9 + b"000000000\n"),
    ("malformed_more_columns", _zeros_but(4, 8, "0 1"), b"1 2 3\n"),
    ("malformed_more_columns", _zeros_but(4, 8, "0 1"), _zeros_but(4, 8, "0 1").replace(b"0 0 0 0 0 0 0 0 0\n", b"0\n", 1)),
    ("malformed_fewer_columns", _zeros_but(4, 8, ""), _zeros_but(4, 8, "").replace(b"0 0 0 0 0 0 0 0 0\n", b"0\n", 1)),
    ("malformed_fewer_columns", _zeros_but(4, 8, "").replace(b"0 0 0 0 0 0 0 0 \n", b"0 0 \n"), _zeros_but(4, 8, "0 1")),
])
def test_family_properties(family, kept, lost):
    original = case_of(kept, family)
    assert keeps_class(original, case_of(kept, family))
    assert not keeps_class(original, case_of(lost, family))


# --- case families -------------------------------------------------------------------------------

@pytest.mark.parametrize("family", SOLVE_FAMILIES)
@pytest.mark.parametrize("header, box", [(False, 3), (True, 3), (False, 2), (True, 4)])
def test_every_family_agrees_with_the_reference(family, header, box):
    pool = _pool(7, box)
    for draw in range(3):
        case = build(family, random.Random(draw), pool, header=header)
        assert case.family == family
        assert case.side == box * box
        reference = from_text(family, case.command, case.text, side=case.side)
        assert reference.count == case.count, (family, draw, case.text[:200])
        if case.count is not None and case.count > 0:
            assert reference.puzzle == case.puzzle
            assert reference.solution == case.solution
        if case.count == 1:
            assert engines.solve(case.puzzle, limit=1).solution == case.solution
        assert keeps_class(case, case), (family, draw)


def test_families_are_the_weights():
    assert SOLVE_FAMILIES == tuple(WEIGHTS) and all(w > 0 for w in WEIGHTS.values())
    assert FAMILIES == SOLVE_FAMILIES + ("create", "roundtrip")


def test_the_same_seed_makes_the_same_cases():
    first = [make_case(42, index, n=120) for index in range(120)]
    _pool.cache_clear()
    assert [make_case(42, index, n=120) for index in range(120)] == first
    assert [make_case(42, index, n=120) for index in reversed(range(120))][::-1] == first  # any order
    assert [make_case(43, index, n=120) for index in range(120)] != first
    assert len({case.family for case in first}) > 10


def test_cases_span_pools():
    # index 200 starts a new pool of generated puzzles
    assert make_case(5, 1, n=300) == make_case(5, 1, n=300)
    assert make_case(5, 250, n=300) == make_case(5, 250, n=300)


def test_9x9_pools_are_made_by_nb_and_the_workers_warm_it():
    """A worker makes the pool of each span its chunks touch: at 9x9 the compiled engine makes them
    (py took a fifth of a worker's time), rated as before; the workers warm it before their first chunk."""
    from fuzz.cases import pool_maker
    from fuzz.tasks import engines_of

    assert pool_maker(3) == "nb" and pool_maker(2) is None and pool_maker(4) is None
    _pool.cache_clear()
    pool = _pool(11, 3)
    assert set(pool) == {"easy", "medium", "hard"}
    assert pool["easy"][0] == create(3, seed=derive_seed(11, "easy"), difficulty="easy", engine="nb")
    spec = {"check_engine": "band", "targets": [], "size": "9"}
    assert "nb" in engines_of(spec) and "nb" in engines_of({**spec, "size": "mixed"})
    assert "nb" not in engines_of({**spec, "size": "16", "check_engine": "py"})


# --- the corpus ----------------------------------------------------------------------------------

class Named:
    name = "fake"
    argv = ["/bin/fake"]
    solve_args = ["solve"]
    create_args = ["create"]
    header = False


def save(root, one, signature, done, **extra):
    oracle = oracles_of(signature)[0]
    return corpus.save(root, one, signature=signature, oracle=oracle, detail="a detail", target=Named(),
                       result=done, extra=extra)


def test_corpus_save_and_load(tmp_path):
    case = case_of(render(PUZZLE, "grid"), family="unique_easy")
    done = result(EXACT + "extra\n", b"oops\n", 0)
    sig = "keeps_givens:changed on unique (exit 0)"
    folder = save(tmp_path, case, sig, done, seed=4, case=9)
    assert folder.parent == tmp_path / corpus.target_key(Named()) / "keeps_givens"
    assert folder.parent.parent.name.startswith("bin-fake-")  # the program's folder and name, as in feedback
    assert (folder / "input.txt").read_bytes() == case.text
    assert (folder / "output.txt").read_bytes() == done.stdout
    again = save(tmp_path, case_of("1\n"), sig, done)
    assert again == folder  # one folder per bug: the first reproducer saved stays
    entries, skipped = corpus.load(tmp_path)
    assert len(entries) == 1 and skipped == []
    path, meta, data = entries[0]
    assert path == folder and data == case.text
    assert meta["oracle"] == "keeps_givens" and meta["family"] == "unique_easy" and meta["command"] == "solve"
    assert meta["signature"] == sig and meta["target_key"] == corpus.target_key(Named())
    assert meta["seed"] == 4 and meta["case"] == 9 and meta["run"] == "/bin/fake solve < input.txt"
    assert meta["actual"]["exit_code"] == 0 and meta["actual"]["stderr"] == "oops\n"
    assert render(SOLUTION, "grid") in meta["expected"]
    assert json.loads((folder / "case.json").read_text()) == meta
    # any folder at or under the corpus loads what it holds
    assert corpus.load(folder).entries == entries == corpus.load(folder.parent).entries \
        == corpus.load(folder.parent.parent).entries


def test_target_keys_tell_targets_apart():
    one, other = Named(), Named()
    other.create_args = ["create", "easy"]
    assert corpus.target_key(one) != corpus.target_key(other)
    assert corpus.target_key(one) == corpus.target_key(Named())


def _programs(tmp_path, *names):
    """A program ``sudoku`` in each of the folders ``names`` under tmp_path (the same text in each)."""
    for name in names:
        program = tmp_path / name / "sudoku"
        program.parent.mkdir()
        program.write_text("#!/bin/sh\nexit 0\n")
        program.chmod(0o755)
    return [tmp_path / name for name in names]


def test_programs_typed_alike_in_different_folders_are_different_targets(tmp_path):
    from fuzz.targets import make_target

    one, other = _programs(tmp_path, "one", "other")
    key = corpus.target_key(make_target("./sudoku", base=str(one)))
    assert key != corpus.target_key(make_target("./sudoku", base=str(other)))
    assert key.startswith("one-sudoku-")  # its folder and name, as a class's feedback folder is named
    # one program typed two ways is one target
    assert key == corpus.target_key(make_target(str(one / "sudoku"), base=str(other)))
    assert key == corpus.target_key(make_target("one/sudoku", base=str(tmp_path)))
    # our own targets are known by name, whatever the folder
    assert corpus.target_key(make_target("cli")) == corpus.target_key(make_target("cli")) != "cli"
    assert corpus.legacy_key(make_target("engine:py")) is None


def test_a_run_leaves_reproducers_under_the_old_key_alone_and_says_how_to_adopt_them(tmp_path, capsys):
    from fuzz import engine
    from fuzz.targets import make_target

    [folder] = _programs(tmp_path, "one")
    target = make_target("./sudoku", base=str(folder))
    old = corpus.legacy_key(target)
    shared = tmp_path / "corpus"
    saved = corpus.save(shared, case_of(render(PUZZLE, "grid"), "unique_easy"), signature="answers:wrong on unique (exit 0)",
                        oracle="answers", detail="d", target=target, result=result(b""))
    (shared / corpus.target_key(target)).rename(shared / old)  # as an older release saved it
    config = fuzz_config(corpus=str(shared))
    spec = {"spec": "./sudoku", "create_args": "create", "solve_args": "solve", "header": False}
    assert engine.replay_own(config, spec, target, tmp_path / "run") == (0, 0, [])
    [line] = capsys.readouterr().err.splitlines()
    assert f"{shared / old} holds 1 reproducer saved under the command './sudoku'" in line
    assert "not replayed in this run" in line and "(one shown by hand as: " in line
    assert f"fuzz replay {shared / old} --target ./sudoku" in line
    assert (shared / old / saved.relative_to(shared / corpus.target_key(target))).is_dir()  # nothing moved
    # the adoption it gives works whether this program's folder exists yet or not (a mv would nest it)
    (shared / corpus.target_key(target) / "answers").mkdir(parents=True)
    adopt = line.split("keep them with this program: ", 1)[1]
    subprocess.run(adopt, shell=True, check=True)
    assert not (shared / old).exists() and saved.is_dir() and (saved / "case.json").is_file()


def test_a_corpus_named_by_file_name_alone_is_still_replayed_and_resumed(tmp_path):
    """A corpus made before folders were named as feedback names them (``sudoku-6f7ef792``, the same
    hash) holds the same program's reproducers: the run replays them, triage finds its groups."""
    from fuzz import engine
    from fuzz.targets import make_target

    _programs(tmp_path, "alice")
    target = make_target("./alice/sudoku", base=str(tmp_path))
    new, old = corpus.target_keys(target)
    assert new.startswith("alice-sudoku-") and old.startswith("sudoku-") and new[-8:] == old[-8:]
    shared = tmp_path / "corpus"
    sig = "answers:wrong on unique (exit 0)"
    saved = corpus.save(shared, case_of(render(PUZZLE, "grid"), "unique_easy"), signature=sig, oracle="answers",
                        detail="d", target=target, result=result(b""))
    (shared / new).rename(shared / old)
    assert list(corpus.saved_groups(shared, target)) == [sig]
    config = fuzz_config(corpus=str(shared))
    spec = {"spec": "./alice/sudoku", "create_args": "create", "solve_args": "solve", "header": False}
    count, skipped, still = engine.replay_own(config, spec, target, tmp_path / "run")
    assert count == 1 and skipped == 0 and [one.folder for one in still] == [shared / old / saved.relative_to(shared / new)]


def test_corpus_load_skips_temporaries_and_damage(tmp_path):
    case = case_of("1 2\n", "malformed_fewer_rows")
    folder = save(tmp_path, case, "rejects_malformed:accepted on malformed_fewer_rows (exit 0)", result(b"x"))
    hidden = folder.parent / ".abc.123.tmp"
    hidden.mkdir()
    (hidden / "case.json").write_text('{"command": "solve"}')
    (hidden / "input.txt").write_text("")
    broken = folder.parent.parent / "no_crash" / "0123456789ab"
    broken.mkdir(parents=True)
    (broken / "case.json").write_text("{not json")
    (broken / "input.txt").write_text("")
    entries, skipped = corpus.load(tmp_path)
    assert [meta["oracle"] for _, meta, _ in entries] == ["rejects_malformed"]
    assert [(folder, why.split(":")[0]) for folder, why in skipped] == [(broken, "case.json")]
    assert corpus.load(tmp_path / "missing") == ([], [])


def test_corpus_keeps_binary_input_exactly(tmp_path):
    data = bytes(range(256)) * 40
    case = case_of(data, family="malformed_binary")
    folder = save(tmp_path, case, "rejects_malformed:accepted on malformed_binary (exit 0)", result(data))
    assert (folder / "input.txt").read_bytes() == data
    meta = json.loads((folder / "case.json").read_text())
    assert meta["actual"]["stdout"].endswith("characters)")  # cut for display, not the input


def test_oracles_module_documents_every_name():
    for name in ORACLES:
        assert f"``{name}``" in oracles.__doc__


# --- triage: failures grouped into bugs ----------------------------------------------------------

def test_failures_group_by_signature_and_a_hang_is_stood_for_by_its_slowest_case():
    from fuzz.triage import create_calls_in, groups
    from jobs.schema import table

    hang = "no_timeout:hang on multiple (timeout)"
    crash = "no_crash:signal 11 on malformed_letter (signal 11)"
    rows = [{"case": case, "outcome": "ok", "family": "unique_easy", "calls": 1, "calls_failed": 0}
            for case in range(10)]
    for case, bug, seconds in [(3, hang, 20.1), (4, crash, 0.1), (6, hang, 20.9), (7, hang, 20.5), (8, crash, 0.2)]:
        rows[case].update(outcome="failed", signature=bug, target_s=seconds, calls_failed=1)
    rows[0].update(family="create", calls=5)
    found = groups(table(rows))
    assert [(g.signature, g.cases, g.representative) for g in found] == [(hang, 3, 6), (crash, 2, 4)]
    assert create_calls_in(table(rows)) == 5


def test_a_mixed_run_draws_every_size_and_a_case_keeps_its_own():
    cases = [make_case(3, index, n=200, size="mixed") for index in range(120)]
    assert {case.side for case in cases} == {4, 9, 16, 25}
    assert [make_case(3, index, n=200, size="mixed").side for index in range(120)] == [c.side for c in cases]
    for case in cases:
        if case.puzzle is not None:
            assert case.puzzle.side == case.side


def test_a_16x16_answer_is_judged_at_its_size():
    puzzle = create(4, seed=3, difficulty="easy")
    solution = engines.solve(puzzle, limit=1).solution
    case = from_text("unique_easy", "solve", render(puzzle, "grid").encode(), side=16)
    assert case.count == 1 and case.side == 16
    assert judge_solve(case, result(render(solution, "grid")), side=16).failed == {}
    rows = render(solution, "grid").splitlines()
    rows[0] = rows[0].replace(rows[0].split()[0], "17", 1)
    verdict = judge_solve(case, result("\n".join(rows) + "\n"), side=16)
    assert verdict.failed["valid_grid"].detail.startswith("row 1, column 1 is 17, outside 1..16")
    # a 9x9 grid is no answer to a 16x16 question, and a 9x9 text no 16x16 puzzle
    assert set(judge_solve(case, result(EXACT), side=16).failed) == {"answers"}
    assert from_text("t", "solve", render(PUZZLE, "grid").encode(), side=16).count is None


def test_a_checkers_verdict_is_read_in_its_own_words_and_exit_codes():
    from fuzz.cases import make_check_case
    from fuzz.oracles import judge_check, said_verdict

    assert said_verdict(b"Incomplete: 3 blanks\n") == "incomplete"  # not 'complete'
    assert said_verdict(b"The grid is INVALID (row 1)\n") == "invalid"
    assert said_verdict(b"ok\n", ("ok", "partial", "bad")) == "complete"
    assert said_verdict(b"nothing to say\n") is None
    case = next(c for c in (make_check_case(2, i) for i in range(50)) if c.family == "check_box")
    assert case.verdict == "invalid"
    assert judge_check(case, result(b"invalid: box 1\n")).failed == {}
    wrong = judge_check(case, result(b"complete\n"))
    assert wrong.failed["check_verdict"].kind == "missed_invalid"
    codes = (0, 1, 2)
    assert judge_check(case, result(b"invalid\n", exit_code=2), exits=codes).failed == {}
    assert "check_verdict" in judge_check(case, result(b"invalid\n", exit_code=0), exits=codes).failed
    malformed = next(c for c in (make_check_case(2, i) for i in range(400)) if c.family.startswith("malformed_"))
    assert judge_check(malformed, result(b"", b"bad input\n", 2)).failed == {}
    assert judge_check(malformed, result(b"invalid: not a grid\n", b"", 1)).failed == {}
    assert set(judge_check(malformed, result(b"complete\n")).failed) == {"rejects_malformed"}


def test_every_family_is_one_object_with_its_weight_maker_and_property():
    from fuzz.cases import FAMILY, about_text, lenient

    assert tuple(FAMILY) == SOLVE_FAMILIES and all(FAMILY[name].weight == WEIGHTS[name] for name in WEIGHTS)
    assert {name for name in FAMILY if lenient(name)} == {name for name in FAMILY if name.startswith("whitespace_")}
    assert {name for name in FAMILY if about_text(name)} == {
        name for name in FAMILY if name.startswith(("whitespace_", "malformed_")) or name == "full_out_of_range"}
    assert all(FAMILY[name].keeps is not None for name in FAMILY if about_text(name))  # each keeps its own mark
    assert not lenient("roundtrip") and not about_text("create")


def _naive_nodes(puzzle, cap):
    """Nodes plain backtracking (cells in reading order, digits in order, no propagation) visits before
    it proves ``puzzle`` has no solution, or ``cap`` if it has not by then."""
    side, box = puzzle.side, puzzle.box
    cells = list(puzzle.cells)
    blanks = [i for i, v in enumerate(cells) if not v]
    nodes = 0

    def fits(cell, digit):
        r, c = divmod(cell, side)
        top, left = r - r % box, c - c % box
        return all(cells[r * side + k] != digit and cells[k * side + c] != digit for k in range(side)) and all(
            cells[(top + i) * side + left + j] != digit for i in range(box) for j in range(box))

    def search(k):
        nonlocal nodes
        if k == len(blanks):
            return True
        for digit in range(1, side + 1):
            nodes += 1
            if nodes >= cap:
                raise StopIteration
            if fits(blanks[k], digit):
                cells[blanks[k]] = digit
                if search(k + 1):
                    return True
                cells[blanks[k]] = 0
        return False

    try:
        assert not search(0)
    except StopIteration:
        return cap
    return nodes


def test_a_deep_unsolvable_case_costs_plain_backtracking_long_and_propagation_nothing():
    """no_solution_deep: no clash, no solution, found out at once by a solver that propagates, while
    plain backtracking in reading order is still searching after 100,000 nodes (hours, in a slow
    language): the hang such programs show on it is theirs, not the case's."""
    for draw in range(3):
        case = build("no_solution_deep", random.Random(draw), _pool(1))
        assert case.count == 0 and find_clash(case.puzzle) is None
        answer = engines.solve(case.puzzle, limit=2)
        assert answer.count == 0 and answer.counters.guesses == 0  # propagation alone says so
        assert _naive_nodes(case.puzzle, 100_000) == 100_000


def test_an_input_echoed_before_a_verdict_is_never_read_as_the_answer():
    """Issue 44: programs print the input, then "No solutions found.": the echo is not an answer."""
    clash = SOLUTION.with_cell(0, SOLUTION.cells[1])
    text = render(clash, "grid").encode()
    case = from_text("full_clashing", "solve", text)
    echoed = judge_solve(case, result(text + b"No solutions found.\n", b"", 1))
    assert "rejects_unsolvable" not in echoed.failed  # a refusal with its input shown first: right
    printed_back = judge_solve(case, result(text))
    assert printed_back.failed["rejects_unsolvable"].kind == "echoed"
    assert "printed its input back" in printed_back.failed["rejects_unsolvable"].detail
    assert find_grid(EXACT.encode(), given=EXACT.encode()).grid == SOLUTION  # a full valid grid is its own answer
    puzzle = render(PUZZLE, "grid").encode()
    assert judge_solve(from_text("unique_easy", "solve", puzzle), result(puzzle)).failed["answers"].kind == "echoed"
    assert judge_solve(from_text("unique_easy", "solve", puzzle), result(puzzle + EXACT.encode())).failed == {}


def test_the_new_families_have_their_right_answers():
    """Full grids with a clash or a 10, unsolvable traps at three depths (no clash), and a solve in a
    folder that cannot be written (the unique solution is still the answer)."""
    from fuzz.cases import _pool, in_unwritable_folder, keeps_class

    for seed in range(8):
        for family in ("full_clashing", "full_out_of_range", "no_solution_early", "no_solution_middle",
                       "no_solution_deep", "unwritable_folder"):
            case = build(family, random.Random(seed), _pool(1))
            again = from_text(family, "solve", case.text)
            assert (again.count, case.count) == ({"full_out_of_range": (None, None), "unwritable_folder": (1, 1)}
                                                 .get(family, (0, 0))), family
            assert keeps_class(case, again) and in_unwritable_folder(case) == (family == "unwritable_folder")
            if family.startswith("no_solution_"):
                assert find_clash(case.puzzle) is None
            if family.startswith("full_"):
                assert b" 0" not in case.text and not case.text.startswith(b"0")


def test_a_solve_whose_working_folder_is_gone_catches_a_crash_on_the_failed_write():
    import sys

    from fuzz.cases import _pool
    from fuzz.targets import CommandTarget
    from fuzz.tasks import run_case

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from fake_targets import argv

    case = build("unwritable_folder", random.Random(1), _pool(1))
    verdict, _ = run_case(case, CommandTarget(argv("saves_board")))
    assert verdict.failed["no_crash"].kind == "signal 11"
    assert run_case(case, CommandTarget(argv("correct")))[0].failed == {}
    assert run_case(case._replace(family="unique_easy"), CommandTarget(argv("saves_board")))[0].failed == {}


def test_a_launcher_that_looks_up_its_working_folder_passes_the_unwritable_folder_case(tmp_path):
    """A QA note: the folder was first removed under the program, and a pyenv ``python3`` shim, a
    script that changes to its working folder before it starts Python, failed there ("pyenv: cannot
    change working directory"): a false bug on every such case of a correct program. The folder
    exists and only refuses new files."""
    import sys

    from fuzz.cases import _pool
    from fuzz.targets import CommandTarget
    from fuzz.tasks import run_case

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from fake_targets import argv

    shim = tmp_path / "python3"
    shim.write_text('#!/bin/sh\ncd "$PWD" || { echo "shim: cannot change working directory to $PWD" >&2; exit 1; }\n'
                    'exec "$@"\n')
    shim.chmod(0o755)
    case = build("unwritable_folder", random.Random(2), _pool(2))
    assert run_case(case, CommandTarget([str(shim), *argv("correct")]))[0].failed == {}
    assert run_case(case, CommandTarget([str(shim), *argv("saves_board")]))[0].failed["no_crash"].kind == "signal 11"


def test_what_the_corpus_saves_it_reads_back_at_the_size_limit(tmp_path):
    """Issue 44: a hang saved unshrunk as a 1 MiB line was one byte over what replay reads."""
    from fuzz.cases import MAX_INPUT, _pool
    from fuzz.targets import make_target

    case = build("malformed_huge_line", random.Random(1), _pool(1))
    assert corpus.MAX_FILE == MAX_INPUT and len(case.text) <= MAX_INPUT
    folder = corpus.save(tmp_path, case, signature="no_timeout:hang on malformed (hang computing)",
                         oracle="no_timeout", detail="d", target=make_target("engine:py"), result=result())
    loaded = corpus.load(tmp_path)
    assert loaded.skipped == [] and loaded.entries[0][0] == folder and loaded.entries[0][2] == case.text


SYNTAX_ERROR = (b'  File "/tmp/ux/class/dave/sudoku", line 3\n    def solve(grid:\n             ^\n'
                b"SyntaxError: '(' was never closed\n")


def test_a_message_class_is_what_went_wrong_never_the_program_s_own_paths_and_lines():
    """A Python syntax error names a file and a line of the program: neither is the bug's class, and a
    signature built from them (`'file tmp ux class dave sudoku line #'`) named the student's folder."""
    from fuzz.oracles import message_class, message_line

    assert message_line(SYNTAX_ERROR) == "SyntaxError: '(' was never closed"
    assert message_class(result(b"", SYNTAX_ERROR, 1)) == "syntaxerror was never closed"
    assert message_class(result(b"", b"./alice/sudoku: bad row 3\n", 1)) \
        == message_class(result(b"", b"/tmp/bob/sudoku: bad row 7\n", 1)) == "bad row #"
    case = case_of(render(PUZZLE, "grid"), "unique_easy")
    verdict = judge_solve(case, result(b"", SYNTAX_ERROR, 1))
    sig = signature("solvable", verdict, result(b"", SYNTAX_ERROR, 1))
    assert "tmp" not in sig and "dave" not in sig and "line" not in sig
    assert verdict.failed["answers"].detail == "exit 1 (SyntaxError: '(' was never closed), no grid on stdout"

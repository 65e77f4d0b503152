"""fuzz in-process: the lenient reader, the oracles, shrinking, the case families and the corpus.

Targets here are Python functions that make a Result, so every test is fast; the same bugs in
real subprocesses are in test_fuzz_targets.py.
"""

import json
import random

import pytest

from fuzz import corpus, oracles
from fuzz.cases import FAMILIES, WEIGHTS, Case, build, from_text, make_case, _pool
from fuzz.oracles import CREATE_ORACLES, ORACLES, SOLVE_ORACLES, can_fail, judge_create, judge_solve
from fuzz.read import find_grid
from fuzz.shrink import shrink
from fuzz.targets import Result
from sudoku import Grid, create, engines, render

PUZZLE = create(3, seed=11)
SOLUTION = engines.solve(PUZZLE, limit=1).solution
EXACT = render(SOLUTION, "grid")
ROWS = EXACT.splitlines()


def result(stdout=b"", stderr=b"", exit_code=0, *, timed_out=False, flooded=False, seconds=0.01):
    if isinstance(stdout, str):
        stdout = stdout.encode()
    if isinstance(stderr, str):
        stderr = stderr.encode()
    return Result(exit_code, stdout, stderr, seconds, timed_out, flooded)


def case_of(text, family="test"):
    """A solve case for ``text`` with the answer our reference works out."""
    return from_text(family, "solve", text.encode() if isinstance(text, str) else text)


def boxed(rows):
    """Rows drawn with ``|`` between stacks."""
    return [" | ".join(" ".join(row.split()[c : c + 3]) for c in (0, 3, 6)) for row in rows]


# --- the lenient reader ------------------------------------------------------------------------

def test_exact_output_has_no_slips():
    grid, slips = find_grid(EXACT.encode())
    assert grid == SOLUTION and slips == []


def test_exact_header_output_has_no_slips():
    grid, slips = find_grid(render(SOLUTION, "header").encode(), header=True)
    assert grid == SOLUTION and slips == []


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
    grid, slips = find_grid(text.encode())
    assert grid == SOLUTION
    assert slip in slips


def test_a_missing_header_is_a_slip_only_when_headers_are_expected():
    assert find_grid(EXACT.encode(), header=True) == (SOLUTION, ["no_header"])
    assert find_grid(EXACT.encode(), header=False) == (SOLUTION, [])


def test_chatty_output_names_each_slip_once():
    text = "Solution:\n" + "\n".join(boxed(ROWS[:3]) + ["------+-------+------"] + boxed(ROWS[3:])) + "\n"
    grid, slips = find_grid(text.encode())
    assert grid == SOLUTION
    assert sorted(slips) == ["extra_text", "separators"]


def test_the_last_grid_is_the_answer():
    other = create(3, seed=12)
    grid, _ = find_grid((render(other, "grid") + "\n" + EXACT).encode())
    assert grid == SOLUTION


@pytest.mark.parametrize("stdout, slips", [(b"", []), (b"  \n", []), (b"No solutions found.\n", ["no_grid"]),
                                           (b"1 2 3\n" * 9, ["no_grid"]), (b"\xff\xfe\x00", ["no_grid"])])
def test_no_grid(stdout, slips):
    assert find_grid(stdout) == (None, slips)


def test_eight_rows_are_not_a_grid():
    assert find_grid("\n".join(ROWS[:8]).encode() + b"\n")[0] is None


# --- the oracles ---------------------------------------------------------------------------------

def test_oracle_names():
    assert set(ORACLES) == set(SOLVE_ORACLES) | set(CREATE_ORACLES)
    assert len(ORACLES) == len(set(ORACLES))


def test_the_right_answer_passes():
    case = case_of(render(PUZZLE, "grid"))
    assert case.count == 1 and case.solution == SOLUTION
    assert judge_solve(case, result(EXACT)) == (({}, [], SOLUTION))


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
    failed = judge_solve(case, result(render(changed_given(PUZZLE, SOLUTION), "grid"))).failed
    assert set(failed) == {"keeps_givens", "valid_grid"}
    assert "1 given(s) changed" in failed["keeps_givens"]


def test_valid_grid_names_blanks_left():
    blank = SOLUTION.with_cell(PUZZLE.cells.index(0), 0)  # a blank of the puzzle left blank
    failed = judge_solve(case_of(render(PUZZLE, "grid")), result(render(blank, "grid"))).failed
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
    failed = judge_solve(case, result(b"", b"sudoku: no solution\n", 1)).failed
    assert set(failed) == {"answers"}
    assert "exit 1" in failed["answers"] and "no solution" in failed["answers"]
    assert set(judge_solve(case, result(b"Done.\n", b"", 0)).failed) == {"answers"}


@pytest.mark.parametrize("stdout, stderr, code, problem", [
    (b"", b"", 1, "no message on stderr"),
    (b"", b"sudoku: no solution\n", 0, "exit 0"),
    (b"No solutions found.\n", b"", 0, "printed on stdout: No solutions found."),
])
def test_rejects_unsolvable(stdout, stderr, code, problem):
    clashing = PUZZLE.with_cell(PUZZLE.cells.index(0), next(v for v in PUZZLE.cells[:9] if v)) \
        if PUZZLE.cells[:9].count(0) else PUZZLE
    case = case_of(render(clashing, "grid"))
    assert case.count == 0
    assert judge_solve(case, result(b"", b"sudoku: clash\n", 1)).failed == {}
    failed = judge_solve(case, result(stdout, stderr, code)).failed
    assert set(failed) == {"rejects_unsolvable"}
    assert problem in failed["rejects_unsolvable"]


def test_rejects_malformed():
    case = case_of("1 2 3\n")
    assert case.count is None
    assert judge_solve(case, result(b"", b"sudoku: row has 3 numbers\n", 2)).failed == {}
    failed = judge_solve(case, result(b"ERROR: bad input\n", b"", 0)).failed
    assert set(failed) == {"rejects_malformed"}
    assert failed["rejects_malformed"] == ("exit 0; printed on stdout: ERROR: bad input; no message on stderr")
    # a malformed text "solved" with exit 0 fails too
    assert set(judge_solve(case, result(EXACT)).failed) == {"rejects_malformed"}


def test_contained_oracles():
    case = case_of(render(PUZZLE, "grid"))
    timed_out = judge_solve(case, result(exit_code=-9, timed_out=True, seconds=2.0)).failed
    assert set(timed_out) == {"no_timeout"}  # not also answers or no_crash: the kill was ours
    flooded = judge_solve(case, result(b"x" * 100, exit_code=-9, flooded=True)).failed
    assert {"no_flood", "answers"} == set(flooded)
    segfault = judge_solve(case, result(exit_code=-11)).failed
    assert segfault["no_crash"] == "killed by signal 11"
    traceback = b'Traceback (most recent call last):\n  File "x.py"\nValueError\n'
    assert "no_crash" in judge_solve(case_of("x\n"), result(b"", traceback, 1)).failed


def test_format_fails_only_when_strict():
    case = case_of(render(PUZZLE, "grid"))
    chatty = result("Solution:\n" + EXACT)
    assert judge_solve(case, chatty).failed == {}
    assert judge_solve(case, chatty).slips == ["extra_text"]
    assert judge_solve(case, chatty, strict=True).failed == {"format": "extra_text"}
    assert judge_solve(case, result(EXACT), strict=True).failed == {}


def test_header_format_expects_the_header():
    case = from_text("test", "solve", render(PUZZLE, "header").encode())
    assert case.count == 1
    assert judge_solve(case, result(render(SOLUTION, "header")), header=True, strict=True).failed == {}
    assert judge_solve(case, result(EXACT), header=True, strict=True).failed == {"format": "no_header"}


def create_result(grid):
    return result(render(grid, "grid"))


def test_create_oracles():
    other = create(3, seed=13)
    assert judge_create(create_result(PUZZLE), create_result(other)).failed == {}
    assert set(judge_create(create_result(PUZZLE), create_result(PUZZLE)).failed) == {"create_random"}
    sixteen = Grid(3, [v if i < 16 else 0 for i, v in enumerate(SOLUTION.cells)])
    assert judge_create(create_result(sixteen), create_result(other)).failed == {"create_unique": "several solutions"}
    thirty = Grid(3, [v if p or i >= 30 else 0 for i, (v, p) in enumerate(zip(SOLUTION.cells, PUZZLE.cells))])
    failed = judge_create(create_result(thirty), create_result(other)).failed
    assert set(failed) == {"create_blanks"}
    assert judge_create(result(b"", b"boom\n", 1), create_result(other)).failed.keys() == {"create_answers"}
    chatty = result("Puzzle:\n" + render(PUZZLE, "grid"))
    assert judge_create(chatty, create_result(other)).failed == {}
    assert judge_create(chatty, create_result(other), strict=True).failed == {"format": "extra_text"}


@pytest.mark.parametrize("count, judged", [
    (None, {"rejects_malformed"}),
    (0, {"rejects_unsolvable"}),
    (2, {"answers", "valid_grid", "keeps_givens", "format"}),
    (1, {"answers", "valid_grid", "keeps_givens", "format", "unique_solution"}),
])
def test_can_fail_matches_what_judge_solve_checks(count, judged):
    case = Case("test", "solve", b"", None, count, None)
    always = {"no_timeout", "no_flood", "no_crash"}
    assert {o for o in SOLVE_ORACLES if can_fail(o, case)} == judged | always


# --- shrinking -----------------------------------------------------------------------------------

class Fake:
    """A target as a function of the case's text (what a program sees), counting its calls."""

    def __init__(self, answer):
        self.answer = answer
        self.calls = 0

    def fails(self, case):
        self.calls += 1
        return set(judge_solve(case, self.answer(case.text)).failed)


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


def test_a_changed_given_shrinks_to_one_clue():
    case = case_of(render(PUZZLE, "grid"), family="unique_easy")
    fake = Fake(changes_a_given)
    assert "keeps_givens" in fake.fails(case)
    small = shrink(case, "keeps_givens", fake.fails)
    assert small.puzzle.clues == 1
    assert "keeps_givens" in fake.fails(small)
    assert fake.calls <= 2 * PUZZLE.clues + 20  # malformed candidates are not worth a call


def test_a_malformed_text_failure_shrinks_to_a_short_text():
    def solves_anything(text):  # exit 0 and a grid, whatever the input
        return result(EXACT)

    case = build("malformed_letter", random.Random(5), _pool(1))
    assert case.count is None
    fake = Fake(solves_anything)
    small = shrink(case, "rejects_malformed", fake.fails)
    assert len(small.text) <= 2 < len(case.text)
    assert small.count is None and "rejects_malformed" in fake.fails(small)


def test_a_crash_on_a_letter_shrinks_to_the_letter():
    def crashes_on_x(text):
        return result(exit_code=-11) if b"x" in text else right_answer(text)

    case = Case("malformed_letter", "solve", render(PUZZLE, "grid").replace("0", "x", 1).encode(), None, None, None)
    small = shrink(case, "no_crash", Fake(crashes_on_x).fails)
    assert small.text == b"x"


def test_shrinking_keeps_what_the_case_expects():
    # An unsolvable puzzle shrinks only to puzzles that still have no solution.
    def says_ok(text):
        return result(b"", b"", 0)

    clash = render(PUZZLE, "grid").replace("0", str(next(v for v in PUZZLE.cells[:9] if v)), 1)
    case = case_of(clash, family="clashing")
    assert case.count == 0
    small = shrink(case, "rejects_unsolvable", Fake(says_ok).fails)
    assert small.count == 0 and small.puzzle.clues == 2  # the two clashing givens


def test_shrinking_respects_its_budget():
    fake = Fake(changes_a_given)
    case = case_of(render(PUZZLE, "grid"), family="unique_easy")
    small = shrink(case, "keeps_givens", fake.fails, max_calls=5)
    assert fake.calls == 5
    assert "keeps_givens" in fake.fails(small)


def test_a_case_that_no_longer_fails_is_returned_as_is():
    case = case_of(render(PUZZLE, "grid"), family="unique_easy")
    assert shrink(case, "keeps_givens", Fake(right_answer).fails) == case


def test_create_cases_do_not_shrink():
    case = Case("create", "create", b"", None, None, None)
    assert shrink(case, "create_unique", lambda c: pytest.fail("no call expected")) == case


# --- case families -------------------------------------------------------------------------------

@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("header", [False, True])
def test_every_family_agrees_with_the_reference(family, header):
    pool = _pool(7)
    for draw in range(3):
        case = build(family, random.Random(draw), pool, header=header)
        assert case.family == family
        reference = from_text(family, case.command, case.text)
        assert reference.count == case.count, (family, draw, case.text[:200])
        if case.count is not None and case.count > 0:
            assert reference.puzzle == case.puzzle
            assert reference.solution == case.solution
        if case.count == 1:
            assert engines.solve(case.puzzle, limit=1).solution == case.solution


def test_families_are_the_weights():
    assert FAMILIES == tuple(WEIGHTS) and all(w > 0 for w in WEIGHTS.values())


def test_the_same_seed_makes_the_same_cases():
    first = [make_case(42, index) for index in range(120)]
    _pool.cache_clear()
    assert [make_case(42, index) for index in range(120)] == first
    assert [make_case(42, index) for index in reversed(range(120))][::-1] == first  # any order
    assert [make_case(43, index) for index in range(120)] != first
    assert len({case.family for case in first}) > 10


def test_cases_span_pools():
    # index 200 starts a new pool of generated puzzles
    assert make_case(5, 0) == make_case(5, 0)
    assert make_case(5, 250) == make_case(5, 250)


# --- the corpus ----------------------------------------------------------------------------------

class Named:
    name = "fake"
    argv = ["/bin/fake"]
    solve_args = ["solve"]
    create_args = ["create"]


def test_corpus_save_and_load(tmp_path):
    case = case_of(render(PUZZLE, "grid"), family="unique_easy")
    done = result(EXACT + "extra\n", b"oops\n", 0)
    folder = corpus.save(tmp_path, case, "keeps_givens", "1 given(s) changed", Named(), done, seed=4, index=9)
    assert folder.parent == tmp_path / "keeps_givens"
    assert (folder / "input.txt").read_bytes() == case.text
    again = corpus.save(tmp_path, case, "keeps_givens", "other detail", Named(), done)
    assert again == folder  # idempotent
    entries = corpus.load(tmp_path)
    assert len(entries) == 1
    path, meta, data = entries[0]
    assert path == folder and data == case.text
    assert meta["oracle"] == "keeps_givens" and meta["family"] == "unique_easy" and meta["command"] == "solve"
    assert meta["seed"] == 4 and meta["case"] == 9 and meta["run"] == "/bin/fake solve < input.txt"
    assert meta["actual"]["exit_code"] == 0 and meta["actual"]["stderr"] == "oops\n"
    assert render(SOLUTION, "grid") in meta["expected"]
    assert json.loads((folder / "case.json").read_text()) == meta


def test_corpus_load_skips_temporaries_and_damage(tmp_path):
    case = case_of("1 2\n")
    corpus.save(tmp_path, case, "rejects_malformed", "exit 0", Named(), result(b"x"))
    hidden = tmp_path / "rejects_malformed" / ".abc.123.tmp"
    hidden.mkdir()
    (hidden / "case.json").write_text("{}")
    (hidden / "input.txt").write_text("")
    broken = tmp_path / "no_crash" / "0123456789ab"
    broken.mkdir(parents=True)
    (broken / "case.json").write_text("{not json")
    (broken / "input.txt").write_text("")
    assert [meta["oracle"] for _, meta, _ in corpus.load(tmp_path)] == ["rejects_malformed"]
    assert corpus.load(tmp_path / "missing") == []


def test_corpus_keeps_binary_input_exactly(tmp_path):
    data = bytes(range(256)) * 40
    case = case_of(data, family="malformed_binary")
    folder = corpus.save(tmp_path, case, "rejects_malformed", "exit 0", Named(), result(data))
    assert (folder / "input.txt").read_bytes() == data
    meta = json.loads((folder / "case.json").read_text())
    assert meta["actual"]["stdout"].endswith("characters)")  # cut for display, not the input


def test_oracles_module_documents_every_name():
    for name in ORACLES:
        assert f"``{name}``" in oracles.__doc__

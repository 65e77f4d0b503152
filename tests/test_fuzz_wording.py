"""A bug in words (fuzz.wording): every oracle:kind the harness makes has a sentence of its own, the
cause is computed where the case shows it (the digit with no place, the two solutions), and no
``oracle:kind`` code reaches what a person reads but on the bug's id line."""

import ast
import json
import re
from pathlib import Path

import pytest

from fake_targets import fuzz, seed_where, spec
from test_reports_helpers import run_reports

from fuzz import oracles, sanitize
from fuzz.oracles import ORACLES
from fuzz.wording import FALLBACK_HELP, details_of, known, two_solutions, words, words_of
from sudoku import Grid, engines, is_solution, render
from sudoku.formats import parse_line
from sudoku.techniques import why_no_solution

REPO = Path(__file__).resolve().parents[1]

# Every oracle and kind fuzz.oracles (and fuzz.sanitize, for no_crash) can make, with a case class it is
# met on; test_every_kind_literal_of_the_oracles_is_listed_here keeps the list whole.
KINDS = [
    ("no_timeout", "hang", "solvable", "hang computing"), ("no_timeout", "hang", "malformed", "hang blocked"),
    ("no_timeout", "hang", "create", "timeout"), ("no_flood", "flood", "solvable", "flood"),
    ("no_crash", "signal 11", "malformed", "signal 11"), ("no_crash", "signal 6", "create", "signal 6"),
    ("no_crash", "traceback IndexError", "malformed", "exit non-zero"), ("no_crash", "panic", "solvable", "signal 6"),
    ("no_crash", "exception NumberFormatException", "malformed", "exit non-zero"),
    ("no_crash", "asan heap-buffer-overflow", "malformed", "exit non-zero"),
    ("no_crash", "asan at main.c:15", "malformed", "exit non-zero"), ("no_crash", "ubsan at main.c:15", "malformed", "exit 0"),
    ("no_crash", "lsan at board.c:10", "malformed", "exit non-zero"),
    ("no_crash", "lsan detected-memory-leaks", "malformed", "exit non-zero"),
    ("no_crash", "msan use-of-uninitialized-value", "solvable", "exit non-zero"),
    ("no_crash", "tsan data-race", "solvable", "exit non-zero"),
    ("no_crash", "ubsan index N out of bounds for type 'int [N]'", "malformed", "exit 0"),
    ("answers", "exit", "solvable", "exit non-zero: 'no solution'"), ("answers", "no_grid", "solvable", "exit 0"),
    ("valid_grid", "out_of_range", "solvable", "exit 0"), ("valid_grid", "clash", "solvable", "exit 0"),
    ("valid_grid", "blanks", "solvable", "exit 0"), ("keeps_givens", "changed", "solvable", "exit 0"),
    ("unique_solution", "other_solution", "solvable", "exit 0"),
    ("rejects_unsolvable", "accepted", "unsolvable", "exit 0"), ("rejects_unsolvable", "echoed", "unsolvable", "exit 0"),
    ("rejects_unsolvable", "wrong_exit", "unsolvable", "exit 0"), ("rejects_malformed", "echoed", "malformed", "exit 0"),
    ("rejects_malformed", "wrong_exit", "malformed", "exit 0"), ("answers", "echoed", "solvable", "exit 0"),
    ("rejects_unsolvable", "answered", "unsolvable", "exit non-zero"),
    ("rejects_malformed", "accepted", "malformed", "exit 0"), ("rejects_malformed", "answered", "malformed", "exit non-zero"),
    ("rejects_malformed", "said_complete", "malformed", "exit 0"),
    ("rejects_malformed", "said_incomplete", "malformed", "exit 0"), ("rejects_malformed", "said_None", "malformed", "exit 0"),
    ("check_verdict", "missed_complete", "check", "exit 0"), ("check_verdict", "missed_incomplete", "check", "exit 0"),
    ("check_verdict", "missed_invalid", "check", "exit 0"),
    ("format", "separators,extra_text", "solvable", "exit 0"), ("format", "error_on_stdout", "malformed", "exit non-zero"),
    ("create_answers", "exit", "create", "exit non-zero"), ("create_answers", "no_grid", "create", "exit 0"),
    ("create_answers", "out_of_range", "create", "exit 0"), ("create_blanks", "few_blanks", "create", "exit 0"),
    ("create_unique", "no_solution", "create", "exit 0"), ("create_unique", "several_solutions", "create", "exit 0"),
    ("create_random", "repeat", "create", "exit 0"), ("create_random", "variant", "create", "exit 0"),
]
CODE = re.compile(rf"\b(?:{'|'.join(ORACLES)}):(?=\S)")  # 'rejects_unsolvable:accepted', never 'format: ...'


def _literal_kinds():
    """The kinds fuzz.oracles writes as text: a Failure's second argument (a string, either string of a
    conditional, the fixed start of an f-string), a ``kind = ...`` of either, and the crash kinds."""
    tree = ast.parse((REPO / "fuzz" / "oracles.py").read_text())

    def strings(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, ast.IfExp):
            return strings(node.body) + strings(node.orelse)
        if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            return [node.values[0].value]
        return []

    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Failure" and len(node.args) > 1:
            found.update(strings(node.args[1]))
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["kind"]:
            found.update(strings(node.value))
        if isinstance(node, ast.FunctionDef) and node.name == "crash_in":
            for ret in ast.walk(node):
                if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple):
                    found.update(strings(ret.value.elts[-1]))
    return found - {""}


def test_every_kind_literal_of_the_oracles_is_listed_here():
    listed = {kind for _, kind, _, _ in KINDS}
    firsts = {kind.split(" ")[0] for kind in listed} | {kind.split("_")[0] + "_" for kind in listed}
    missing = {kind for kind in _literal_kinds() if kind not in listed and kind.strip() not in firsts
               and kind not in firsts}
    assert not missing, f"kinds fuzz.oracles makes that wording is not tested on: {missing}"
    assert {oracle for oracle, *_ in KINDS} == set(ORACLES)
    assert {tool for tool in sanitize.SHORT.values()} <= {kind.split(" ")[0] for _, kind, _, _ in KINDS}


@pytest.mark.parametrize("oracle, kind, case_class, ended", KINDS)
def test_every_oracle_and_kind_has_a_sentence_and_a_help_line(oracle, kind, case_class, ended):
    assert known(oracle, kind)
    said = words(f"{oracle}:{kind} on {case_class} ({ended})")
    assert said.title and said.help != FALLBACK_HELP
    assert oracle not in said.title and not CODE.search(said.title + said.cause + said.help)
    assert "_" not in said.title.replace("None", ""), said.title  # no kind code (out_of_range, said_complete)


def test_the_titles_students_read():
    grid = "exit 0, printed a grid, nothing on stderr"
    assert words("rejects_unsolvable:accepted on unsolvable (exit 0)", {"rejects_unsolvable": grid}).title == \
        "accepted a puzzle that has no solution and printed a grid, exit 0"
    assert words("rejects_malformed:accepted+valid_grid:out_of_range on malformed (exit 0)",
                 {"rejects_malformed": grid, "valid_grid": "row 1, column 3 is 10, outside 1..9"}).title == \
        "accepted malformed input and printed a grid, exit 0; it printed a number out of range (10) in its answer"
    assert words("no_timeout:hang on solvable (hang computing)", actual={"cpu_s": 3.02}).title == \
        "hung: no answer after 3 s of CPU on a puzzle that has a solution"
    assert words("no_crash:signal 11 on malformed (signal 11)").title == "crashed (SIGSEGV) on malformed input"
    assert words("create_unique:several_solutions on create (exit 0)").title == \
        "create printed a puzzle with more than one solution"
    assert words("not a signature").title == "failed a check (see the details below)"


def _no_place_for(digit, box=3):
    """A puzzle whose last row has no place for ``digit``: each of its blanks sees the digit."""
    side = box * box
    cells = [0] * (side * side)
    for stack in range(box):  # the digit in a row above, in each box of the bottom band but the last
        if stack < box - 1:
            cells[(side - 2 - stack) * side + stack * box] = digit
    for k, column in enumerate(range(side - box, side - 1)):  # and in the last box's columns, higher up
        cells[k * box * side + column] = digit
    cells[side * side - 1] = digit % side + 1
    return Grid(box, cells)


def test_why_no_solution_names_the_clash_the_digit_or_the_cell():
    assert why_no_solution(Grid(3, [5, 0, 5] + [0] * 78)) == "the givens clash: row 1 has two 5s, columns 1 and 3"
    assert why_no_solution(_no_place_for(4)) == "4 has no place left in row 9"
    assert why_no_solution(Grid(3, [1, 2, 3, 4, 5, 6, 7, 8, 0] + [0] * 27 + [0] * 8 + [9] + [0] * 36)) == \
        "r1c9 has no candidate left"
    forced = parse_line(".....2...1...37.......1.6.2.8..7......9...7..5.61.98..4...2..93.6.5......2..93..1")
    assert why_no_solution(forced) == "once the forced cell r6c5=4 is filled, r6c9 has no candidate left"
    assert why_no_solution(Grid(3, [0] * 81)) is None  # it has solutions: nothing to say


def test_an_unsolvable_puzzle_s_cause_is_the_digit_with_no_place():
    text = render(_no_place_for(7), "grid").encode()
    said = words("rejects_unsolvable:accepted on unsolvable (exit 0)", text=text)
    assert said.cause == "7 has no place left in row 9"
    assert said.help.startswith("check the solver's result before printing")


def test_a_create_with_several_solutions_shows_two_and_where_they_differ():
    solution = engines.solve(Grid(3, [0] * 81)).solution
    puzzle = Grid(3, [v if i % 3 else 0 for i, v in enumerate(solution.cells)])
    one, other = two_solutions(puzzle)
    assert one != other and is_solution(puzzle, one) and is_solution(puzzle, other)
    said = words("create_unique:several_solutions on create (exit 0)", actual={"stdout": render(puzzle, "grid")})
    cell = re.match(r"r(\d)c(\d) is (\d) in one and (\d) in the other \((\d+) cells differ: ", said.cause)
    assert cell, said.cause
    first, second = re.findall(r"\b\d{81}\b", said.cause)
    r, c = int(cell.group(1)), int(cell.group(2))
    assert first[(r - 1) * 9 + c - 1] == cell.group(3) and second[(r - 1) * 9 + c - 1] == cell.group(4)
    assert sum(a != b for a, b in zip(first, second)) == int(cell.group(5))


def test_malformed_input_s_cause_is_what_our_parser_says():
    said = words("rejects_malformed:accepted on malformed (exit 0)", text=b"1 2 3\n")
    assert said.cause.startswith("the input is not a puzzle: line 1")


def test_details_split_back_per_oracle():
    assert details_of("rejects_malformed: exit 0, printed a grid; the grid changes 1 given(s); valid_grid: row 1, "
                      "column 3 is 10") == {"rejects_malformed": "exit 0, printed a grid; the grid changes 1 given(s)",
                                            "valid_grid": "row 1, column 3 is 10"}


# --- what a person reads, end to end ----------------------------------------------------------------

BUGGY = ("prints_unsolved", "keeps_out_of_range", "non_unique_create")


@pytest.fixture(scope="module")
def buggy_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("words")
    listed = root / "class.txt"
    listed.write_text("".join(f"{spec(name)}\n" for name in BUGGY))
    seed = seed_where(24, lambda cases: {"no_solution", "malformed_out_of_range", "create"}
                      <= {case.family for case in cases})
    done = fuzz("run", "-n", 24, "--no-shrink", "--seed", seed, "--workers", 2, "--timeout", 10, "--out", root / "run",
                "--corpus", root / "corpus", "--targets", listed, "--no-progress", cwd=root, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    outputs = {"fuzz run (terminal)": done.stdout, "summary.md": (root / "run" / "summary.md").read_text()}
    for flag, name in (("--md", "show.md"), ("--html", "show.html")):
        shown = run_reports("show", str(root / "run"), flag, str(root / name))
        assert shown.returncode in (0, 1), shown.stderr
        outputs[name] = (root / name).read_text()
    outputs["reports show (terminal)"] = run_reports("show", str(root / "run")).stdout
    made = run_reports("feedback", str(root / "run"), "--out", str(root / "feedback"))
    assert made.returncode == 0, made.stderr
    for page in sorted((root / "feedback").rglob("*")):
        if page.name in ("feedback.md", "feedback.html", "results.json"):
            outputs[str(page.relative_to(root))] = page.read_text()
    return root, outputs


def _outside_ids(text):
    """``text`` without its id lines and fields (where the signature belongs)."""
    text = re.sub(r"\bid: .*", "", text)
    return text


def test_no_oracle_code_reaches_a_person_but_on_the_id_line(buggy_run):
    _, outputs = buggy_run
    assert len([name for name in outputs if name.endswith("results.json")]) == len(BUGGY)
    for name, text in outputs.items():
        if name.endswith(".json"):
            text = "\n".join(test["output"] for test in json.loads(text)["tests"])
        left = CODE.findall(_outside_ids(text))
        assert not left, f"{name} shows {left} outside an id line"


def test_every_output_shows_the_same_title_cause_and_help(buggy_run):
    root, outputs = buggy_run
    groups = json.loads((root / "run" / "manifest.json").read_text())["fuzz"]["groups"]
    unsolvable = next(g for g in groups if g["signature"].startswith("rejects_unsolvable:accepted"))
    assert unsolvable["title"] == "accepted a puzzle that has no solution and printed a grid, exit 0"
    assert unsolvable["cause"] and unsolvable["help"].startswith("check the solver's result before printing")
    several = next(g for g in groups if g["signature"].startswith("create_unique:several_solutions"))
    assert re.match(r"r\dc\d is \d in one and \d in the other", several["cause"]), several["cause"]
    out_of_range = next(g for g in groups if "valid_grid:out_of_range" in g["signature"])
    assert "printed a number out of range" in out_of_range["title"]
    for group in (unsolvable, several):
        for name in ("fuzz run (terminal)", "summary.md", "show.md", "reports show (terminal)"):
            assert group["title"] in outputs[name] and group["cause"] in outputs[name], name
        assert group["help"] in outputs["summary.md"] and group["help"] in outputs["show.md"]
    page = next(text for name, text in outputs.items() if "prints_unsolved" in name and name.endswith(".md"))
    assert unsolvable["title"] in page and f"why: {unsolvable['cause']}" in page
    grade = next(text for name, text in outputs.items() if "prints_unsolved" in name and name.endswith(".json"))
    assert unsolvable["title"] in grade and unsolvable["cause"] in grade and "id: rejects_unsolvable" in grade


def test_an_older_run_s_record_without_words_shows_its_signature_as_title():
    from reports.bugs import bug_of

    bug = bug_of({"signature": "keeps_givens:changed on solvable (exit 0)", "detail": "x", "cases": 1})
    assert bug.title == "keeps_givens:changed on solvable (exit 0)" and bug.said(str, str) == []
    saved = type("Saved", (), {"signature": "keeps_givens:changed on solvable (exit 0)", "detail": "", "text": b"",
                               "side": 9, "actual": {}, "expected": ""})()
    assert words_of(saved).title == "changed a given of the puzzle in its answer"

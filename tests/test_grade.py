"""Grading and hints (sudoku.grade, sudoku.hint), and the `grade` and `hint` commands as real
subprocesses: output shapes, exit codes, one stderr line per error, and no import on the solve path."""

import json

from helpers import run_cli
from sudoku.formats import parse_line
from sudoku.grade import (FORCING_ELIMINATION_WEIGHT, HARD_PART_WEIGHT, LEVEL_OF, LEVELS, WEIGHTS, grade, hard_part, tally,
                          weight)
from sudoku.hint import describe, hint
from sudoku.techniques import NAMES

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
FORCING = "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........"
HARDEST = "..53.....8......2..7..1.5..4....53...1..7...6..32...8..6.5....9..4....3......97.."  # nested forcing chains
GUESSY = "98.7..6..7...6......6....5.4..5......9.4...3...7.9.4.5..9.5.8....8.7.5.......2..1"  # hardest1905_11plus: a guess
TWO_SOLUTIONS = "." * 81
STUCK = "." * 81  # several solutions, and no technique applies: proving it takes ~1 s where a unique stuck puzzle takes 5


def test_every_technique_has_a_level_and_a_weight():
    assert set(NAMES) <= set(LEVEL_OF) and set(NAMES) == set(WEIGHTS)
    assert set(LEVEL_OF.values()) == set(LEVELS)


def test_the_level_table_is_the_documented_one():
    """grade.py's docstring table names each technique at its LEVEL_OF level, and the cuts are
    where bench/README.md puts them: no assumption up to hard, one at expert, nested at extreme."""
    import re

    import sudoku.grade as g

    table = g.__doc__.split("========  ====")[1]
    documented = {}
    for level, text in re.findall(r"^  (\w+) +(.*(?:\n {12}.*)*)", table, flags=re.M):
        for name in LEVEL_OF:
            if re.search(rf"(?<![\w-]){re.escape(name)}s?(?![\w-])", " ".join(text.split())):
                documented.setdefault(name, level)
    # the table says "naked and hidden singles" (pairs, triples, quads) and "guessing"
    documented.update({"naked single": "easy", "hidden single": "easy", "guess": "extreme",
                       "naked pair": "medium", "hidden pair": "medium", "naked triple": "medium",
                       "hidden triple": "medium", "naked quad": "hard", "hidden quad": "hard"})
    assert documented == LEVEL_OF
    assert [LEVEL_OF[t] for t in ("aic", "forcing chain", "dynamic forcing chain", "nested forcing chain")] == \
        ["hard", "expert", "expert", "extreme"]


def test_levels_rise_with_the_techniques_needed():
    easy, forcing, nested = (grade(parse_line(p)) for p in (EASY, FORCING, HARDEST))
    assert easy.level == "easy" and forcing.level == "expert" and nested.level == "extreme"
    assert easy.score < forcing.score < nested.score
    assert nested.guesses == forcing.guesses == 0
    assert "forcing chain" in tally(forcing.steps) and "nested forcing chain" in tally(nested.steps)


def test_a_guess_only_where_nested_forcing_chains_fail():
    guessy = grade(parse_line(GUESSY))
    assert guessy.level == "extreme" and guessy.guesses > 0
    first = next(i for i, step in enumerate(guessy.steps) if step.technique == "guess")
    assert "nested forcing chain" in tally(guessy.steps[:first])


def test_ungradable_puzzles_say_why():
    assert grade(parse_line(TWO_SOLUTIONS)).problem.startswith("several solutions")
    assert "two 1s" in grade(parse_line("11" + "." * 79)).problem


def test_hint_hidden_single_in_words():
    assert hint(parse_line(EASY)).words.startswith(("naked single: ", "hidden single: "))
    start = parse_line(".......12....35......6...7.7.....3.....4..8..1...........12.....8.....4..5....6..")
    assert hint(start).words == "hidden single: 3 in box 3 goes in r3c9"


def test_hint_on_broken_and_solved_grids():
    broken = hint(parse_line("3......12....35......6...7.7.....3.....4..8..1...........12.....8.....4..5....6.."))
    assert broken.broken and broken.problem == "an entry breaks the puzzle: no solution can keep these entries"
    assert hint(parse_line("11" + "." * 79)).broken
    solved = grade(parse_line(EASY))
    assert not hint(parse_line(EASY)).broken and solved.steps
    stuck = hint(parse_line(STUCK))
    assert stuck.step is None and not stuck.broken and "guessing" in stuck.problem


def test_every_step_can_be_said():
    result = grade(parse_line(HARDEST))
    for step in result.steps:
        assert describe(step, 3).startswith(step.technique + ": ")


def test_cli_grade_batch_and_steps():
    done = run_cli("grade", input=f"{EASY}\n{FORCING}\n")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("puzzle 1: easy, score ") and lines[1].startswith("puzzle 2: expert, score ")
    done = run_cli("grade", "--steps", input=EASY + "\n")
    assert done.stdout.splitlines()[1].startswith("  1. ")


def test_cli_grade_json_and_failures():
    done = run_cli("grade", "--json", input=f"{EASY}\n{TWO_SOLUTIONS}\n")
    assert done.returncode == 1
    first, second = map(json.loads, done.stdout.splitlines())
    assert first["level"] == "easy" and first["score"] > 0 and "naked single" in first["techniques"]
    assert second["error"].startswith("several solutions")
    assert done.stderr.splitlines() == ["sudoku: puzzle 2: several solutions: a grade needs a unique one"]


def test_cli_malformed_input_is_usage():
    done = run_cli("grade", input="12x\n")
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_cli_hint():
    done = run_cli("hint", input=EASY + "\n")
    assert done.returncode == 0 and done.stdout.startswith("puzzle 1: ")
    done = run_cli("hint", input="3......12....35......6...7.7.....3.....4..8..1...........12.....8.....4..5....6..\n")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "sudoku: puzzle 1: an entry breaks the puzzle: no solution can keep these entries\n"
    done = run_cli("hint", "--json", input=EASY + "\n")
    assert json.loads(done.stdout)["technique"] in ("naked single", "hidden single")


def test_hint_words_for_the_forcing_tiers():
    from sudoku.techniques import solve_logically

    trail = solve_logically(parse_line(HARDEST))
    for name, by in (("dynamic forcing chain", "by singles, locked candidates and naked and hidden pairs"),
                     ("nested forcing chain", "by singles, locked candidates, pairs and forcing chains of its own")):
        step = next(s for s in trail.steps if s.technique == name)
        (cell,), (digit,) = step.cells, step.digits
        where = f"r{cell // 9 + 1}c{cell % 9 + 1}"
        assert describe(step, 3).startswith(f"{name}: {digit} in {where} leads {by}")
        assert describe(step, 3).endswith(f"to a contradiction, so it is not {digit} there")


def test_cli_hint_nested_forcing_chain():
    start = "98.7..6..75..4......3..8.7.5....7.3...94.........2.1..3.......1.9...5.8...52....6"  # hardest1905_11plus line 1
    done = run_cli("hint", input=start + "\n")
    assert done.returncode == 0 and done.stdout == (
        "puzzle 1: nested forcing chain: 2 in r1c3 leads by singles, locked candidates, pairs and forcing chains of its "
        "own (from two-candidate cells) to a contradiction, so it is not 2 there\n")


def test_solve_does_not_import_the_logic():
    import subprocess
    import sys

    from helpers import REPO

    code = ("import sys, sudoku.cli as c; "
            "c.run(['solve']); print(sorted(m for m in sys.modules if m in "
            "('sudoku.techniques','sudoku.grade','sudoku.hint')), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], input=EASY + "\n", capture_output=True, text=True, cwd=REPO)
    assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr


def test_a_known_solution_skips_the_count_and_grades_alike():
    puzzle = parse_line(FORCING)
    from sudoku.engines import py

    counted = grade(puzzle)
    assert grade(puzzle, solution=py.solve(puzzle).solution) == counted
    assert grade(puzzle, engine="dlx") == counted


def test_score_adds_the_steps_and_the_hard_part():
    result = grade(parse_line(FORCING))
    steps = result.steps
    first = next(i for i, step in enumerate(steps) if step.technique == "forcing chain")
    assert hard_part(steps) == sum(step.placement is not None for step in steps[first:]) > 0
    assert result.score == sum(weight(step) for step in steps) + HARD_PART_WEIGHT * hard_part(steps)
    chain = steps[first]
    assert weight(chain) == WEIGHTS["forcing chain"] + FORCING_ELIMINATION_WEIGHT * len(chain.eliminations)
    easy = grade(parse_line(EASY))
    assert hard_part(easy.steps) == 0 and easy.score == sum(WEIGHTS[step.technique] for step in easy.steps)


def test_digits_above_9_are_named_as_the_board_names_them():
    """Issue 27: at 16x16 a hint says `can only be E` (the board and the line format's name), not 14."""
    from sudoku.formats import symbol
    from sudoku.grid import Grid

    assert [symbol(d, 16) for d in (1, 9, 10, 14, 16)] == ["1", "9", "A", "E", "G"]
    assert symbol(30, 36) == "30" and symbol(14, 36) == "14"  # 36x36 has no line form: numbers
    from sudoku import create, solve

    full = solve(create(4, seed=1)).solution
    cell = full.cells.index(14)
    words = hint(Grid(4, [0 if i == cell else v for i, v in enumerate(full.cells)])).words
    assert words == f"naked single: r{cell // 16 + 1}c{cell % 16 + 1} can only be E"


def test_a_repeated_digit_above_9_is_named_as_the_board_names_it():
    """grade and hint name a clash's digit as hint's words do: `two Es`, not `two 14s` (check and
    solve keep the grid format's numbers: tests/test_check.py)."""
    from sudoku import create, solve
    from sudoku.formats import render

    full = solve(create(4, seed=1)).solution
    cells = list(full.cells)
    other = next(c for c in range(1, 16) if cells[c] != 14)
    cells[cells.index(14)], cells[other] = 0, 0
    cells[0 if cells[0] != 14 else 1] = 14
    cells[15 if cells[15] != 14 else 14] = 14  # a second E in row 1
    from sudoku.grid import Grid

    text = render(Grid(4, cells), "line")
    for command in ("grade", "hint"):
        done = run_cli(command, input=text)
        said = done.stdout + done.stderr
        assert "row 1 has two Es, columns " in said and "14" not in said, (command, said)


def _grid_text(line):
    return "".join(" ".join(str(v) for v in row) + "\n" for row in parse_line(line).rows)


def test_cli_grade_and_hint_prefix_every_batch_alike():
    """Two grids in the grid format are a batch as two lines are: each answer says `puzzle K: `;
    one grid alone gets none (as solve and check do)."""
    one, two = _grid_text(EASY), _grid_text(EASY) + "\n" + _grid_text(FORCING)
    assert not run_cli("grade", input=one).stdout.startswith("puzzle")
    lines = run_cli("grade", input=two).stdout.splitlines()
    assert lines[0].startswith("puzzle 1: easy, ") and lines[1].startswith("puzzle 2: expert, ")
    lines = run_cli("hint", input=two).stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["puzzle 1", "puzzle 2"]
    header = "3\n" + _grid_text(EASY) + "\n3\n" + _grid_text(FORCING)
    json_lines = "".join(json.dumps({"line": line}) + "\n" for line in (EASY, FORCING))
    for text in (f"{EASY}\n{FORCING}\n", header, json_lines):
        for command in ("grade", "hint"):
            lines = run_cli(command, input=text).stdout.splitlines()
            assert [line.split(":")[0] for line in lines] == ["puzzle 1", "puzzle 2"], (command, text[:20])


def test_cli_grade_and_hint_json_is_versioned():
    from sudoku.cli.command import JSON_VERSION

    for command in ("grade", "hint"):
        done = run_cli(command, "--json", input=EASY + "\n")
        assert json.loads(done.stdout)["version"] == JSON_VERSION, command


def test_cli_grade_and_hint_timeout_exit_124_with_one_line():
    """A nested-forcing-chain grade takes 0.2-1 s (one pass of it cannot be stopped half-way: the
    grade runs in a forked child killed at the deadline); what was done before stays printed. Thirty
    of them take seconds on any machine, so 0.6 s is always reached (two were graded within it here)."""
    done = run_cli("grade", "--timeout", "0.6", input=f"{EASY}\n" + f"{HARDEST}\n" * 30, timeout=60)
    assert done.returncode == 124, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("puzzle 1: easy, ") and len(lines) < 31
    assert all(line.startswith(f"puzzle {k}: extreme, ") for k, line in enumerate(lines[1:], start=2))
    assert done.stderr.startswith("sudoku: time limit of 0.6 s reached (grading 9x9 puzzle ")
    assert len(done.stderr.splitlines()) == 1
    done = run_cli("hint", "--timeout", "0.001", input=HARDEST + "\n", timeout=30)
    assert done.returncode == 124 and done.stdout == "" and len(done.stderr.splitlines()) == 1
    assert run_cli("grade", "--timeout", "60", input=EASY + "\n").stdout.startswith("puzzle 1: easy, ")
    assert run_cli("hint", "--timeout", "0").returncode == 2


def test_grade_budget_bounds_the_steps():
    import pytest

    from sudoku.budget import Budget, BudgetExceeded

    with pytest.raises(BudgetExceeded):
        grade(parse_line(EASY), budget=Budget(nodes=5))
    assert grade(parse_line(EASY), budget=Budget(nodes=10**6)) == grade(parse_line(EASY))

"""The bank of expert and extreme 9x9 puzzles (sudoku.bank) and `create` taking from it: every
entry unique, minimal, graded as the file says; symmetries keep sudokus sudokus and levels levels;
a seed names one puzzle and different seeds give different ones."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import make_bank

from sudoku import GenerationFailed, create
from sudoku.bank import (Entry, at_level, draw, entries, fingerprint, format_entry, parse_entries, random_symmetry,
                         transform)
from sudoku.engines import py
from sudoku.formats import parse_line
from sudoku.generate import BANK_LEVELS
from sudoku.grade import LEVELS, grade, is_level
from sudoku.grid import find_clash

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
FORCING = "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........"
SOLVED = py.solve(parse_line(EASY)).solution


STOCKED = tuple(level for level in BANK_LEVELS if at_level(level))


@pytest.mark.parametrize("level", BANK_LEVELS)
def test_every_bank_level_has_entries(level):
    """Extreme too (issue 43): climbs from published hardest puzzles (bench/make_bank.py --start published)."""
    assert len(at_level(level)) >= 12, level


def test_the_bank_holds_only_its_levels():
    assert {entry.level for entry in entries()} <= set(BANK_LEVELS) and entries()


def test_entries_are_distinct_up_to_symmetry():
    keys = [fingerprint(parse_line(entry.line)) for entry in entries()]
    assert len(set(keys)) == len(keys)


def test_entries_are_unique_and_minimal_and_say_how_they_were_made():
    for entry in entries():
        puzzle = parse_line(entry.line)
        answer = py.solve(puzzle, limit=2)
        assert answer.count == 1, entry.line
        for cell, value in enumerate(puzzle.cells):
            if value:
                assert py.has_other(puzzle.with_cell(cell, 0), answer.solution, cell), (entry.line, cell)
        assert entry.made.split()[0] in ("minimal", "search", "climb") and " seed=" in entry.made and " sudoku=" in entry.made


def _graded_as_filed(entry):
    result = grade(parse_line(entry.line))
    assert (result.level, result.score) == (entry.level, entry.score), entry.line


@pytest.mark.parametrize("level", STOCKED)
def test_a_sample_of_entries_grades_as_filed(level):
    for entry in random.Random(27).sample(at_level(level), 2):
        _graded_as_filed(entry)


@pytest.mark.slow
def test_every_entry_grades_as_filed():
    for entry in entries():
        _graded_as_filed(entry)


def test_bank_lines_round_trip_and_bad_lines_are_refused():
    entry = Entry("extreme", 123, "." * 81, "search seed=1 lineage=2 step=3 start=extreme sudoku=0.1.0")
    assert parse_entries(["# a comment", "", format_entry(entry)]) == [entry]
    with pytest.raises(ValueError, match="bank line 1"):
        parse_entries(["extreme 12 " + "." * 80 + " made"])


@settings(max_examples=30)
@given(st.integers(0, 2**63 - 1))
def test_a_symmetry_maps_a_solution_to_a_solution_and_keeps_the_fingerprint(seed):
    rng = random.Random(seed)
    symmetry = random_symmetry(rng)
    digits, rows, cols, _ = symmetry
    assert sorted(digits) == list(range(1, 10)) and sorted(rows) == sorted(cols) == list(range(9))
    assert all(len({r // 3 for r in rows[i:i + 3]}) == 1 for i in range(0, 9, 3))
    assert all(len({c // 3 for c in cols[i:i + 3]}) == 1 for i in range(0, 9, 3))
    moved = transform(SOLVED, symmetry)
    assert moved.blanks == 0 and find_clash(moved) is None
    puzzle = parse_line(EASY)
    assert fingerprint(transform(puzzle, symmetry)) == fingerprint(puzzle)
    assert transform(puzzle, symmetry).clues == puzzle.clues


def test_symmetries_are_many():
    """Different draws give different variants of one grid (about 1.2e12 exist)."""
    rng = random.Random(1)
    assert len({transform(SOLVED, random_symmetry(rng)) for _ in range(200)}) == 200


@pytest.mark.parametrize("line", [EASY, FORCING, "..53.....8......2..7..1.5..4....53...1..7...6..32...8..6.5....9..4....3......97.."])
def test_is_level_agrees_with_grade(line):
    puzzle = parse_line(line)
    solution = py.solve(puzzle).solution
    level = grade(puzzle, solution=solution).level
    assert [is_level(puzzle, each, solution=solution) for each in LEVELS] == [each == level for each in LEVELS]


def _levels_kept_under_symmetries(sample, per_entry, seed):
    rng = random.Random(seed)
    for entry in sample:
        puzzle = parse_line(entry.line)
        for _ in range(per_entry):
            moved = transform(puzzle, random_symmetry(rng))
            assert grade(moved).level == entry.level, (entry.line, moved)


def test_symmetries_keep_the_level_of_a_sample():
    sample = [random.Random(3).choice(at_level(level)) for level in STOCKED]
    _levels_kept_under_symmetries(sample, 2, seed=4)


@pytest.mark.slow
def test_symmetries_keep_the_level_of_every_entry():
    _levels_kept_under_symmetries(entries(), 3, seed=5)


@pytest.mark.parametrize("level", STOCKED)
def test_create_takes_a_level_from_the_bank(level):
    seeds = range(4)
    made = [create(3, seed=seed, difficulty=level) for seed in seeds]
    assert len(set(made)) == len(made)
    for puzzle in made:
        assert grade(puzzle).level == level and puzzle.blanks >= 40
    assert create(3, seed=2, difficulty=level) == made[2]


@pytest.mark.slow
@pytest.mark.parametrize("level", STOCKED)
def test_a_thousand_creates_from_the_bank_are_distinct_and_at_their_level(level):
    made = {create(3, seed=seed, difficulty=level) for seed in range(1000)}
    assert len(made) == 1000
    assert all(grade(puzzle).level == level for puzzle in made)


def test_draw_is_a_function_of_the_rng():
    assert draw("expert", random.Random(9)) == draw("expert", random.Random(9))
    with pytest.raises(ValueError, match="no hard puzzle"):
        draw("hard", random.Random(9))


HARDEST = "..53.....8......2..7..1.5..4....53...1..7...6..32...8..6.5....9..4....3......97.."  # nested forcing chains


def test_the_sieve_lets_an_extreme_puzzle_through_and_clears_an_expert_one():
    for line, stalls in ((HARDEST, True), (FORCING, False)):
        puzzle = parse_line(line)
        assert make_bank.stalls_without_nesting(puzzle, py.solve(puzzle).solution) is stalls


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**40))
def test_a_puzzle_the_sieve_clears_is_not_extreme(lineage):
    """The sieve's cheap test rules out only what the grader would not call extreme (its rules are a
    monotone subset of the grader's), so skipping what it clears loses no extreme start."""
    puzzle = make_bank.sieve_start(5, lineage)
    solution = py.solve(puzzle).solution
    if not make_bank.stalls_without_nesting(puzzle, solution):
        assert grade(puzzle, solution=solution).level != "extreme"


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**40))
def test_a_neighbour_of_an_extreme_puzzle_the_sieve_clears_is_not_extreme(seed):
    """As above, where extreme puzzles are common: the climb's neighbours of a nested-chains puzzle."""
    start = parse_line(HARDEST)
    solution = py.solve(start).solution
    puzzle = make_bank.neighbour(start, solution, random.Random(seed))
    if not make_bank.stalls_without_nesting(puzzle, solution):
        assert grade(puzzle, solution=solution).level != "extreme"


def test_a_sieve_start_is_a_function_of_seed_and_lineage_and_is_minimal():
    puzzle = make_bank.sieve_start(2027, 12)
    assert puzzle == make_bank.sieve_start(2027, 12) != make_bank.sieve_start(2027, 13)
    solution = py.solve(puzzle, limit=2)
    assert solution.count == 1
    assert all(py.has_other(puzzle.with_cell(cell, 0), solution.solution, cell)
               for cell, value in enumerate(puzzle.cells) if value)


def test_the_sieve_counts_what_it_skipped_and_grades_what_is_left():
    found, counts = make_bank.sieve(2027, 0, 300, 4)
    assert counts["tried"] == 300 and 0 < counts["guessing"] < 300 and counts["stalled"] <= counts["guessing"]
    assert all(is_level(parse_line(line), "extreme", solution=py.solve(parse_line(line)).solution)
               for _, line in found)
    assert len(found) <= counts["stalled"]


@pytest.mark.parametrize("entry", [entry for entry in entries() if entry.made.startswith("sieve ")],
                         ids=lambda entry: entry.made.split()[2])
def test_a_sieve_entry_is_made_again_from_its_seed_and_lineage(entry):
    fields = dict(part.split("=") for part in entry.made.split()[1:])
    assert make_bank.sieve_start(int(fields["seed"]), int(fields["lineage"])) == parse_line(entry.line)


def test_a_regrade_that_disagrees_raises(monkeypatch):
    monkeypatch.setattr("sudoku.grade.is_level", lambda *args, **kwargs: False)
    with pytest.raises(GenerationFailed, match="not a unique expert puzzle"):
        create(3, seed=1, difficulty="expert")


def test_symmetric_and_bank_false_make_and_grade_instead():
    with pytest.raises(GenerationFailed, match="no extreme puzzle with at least 40 blanks found in 2 attempts"):
        create(3, seed=1, difficulty="extreme", attempts=2, bank=False)
    with pytest.raises(GenerationFailed, match="in 2 attempts"):
        create(3, seed=1, difficulty="extreme", attempts=2, symmetric=True)


def test_progress_is_told_each_try_and_nothing_is_printed(capsys):
    said = []
    with pytest.raises(GenerationFailed):
        create(3, seed=1, difficulty="extreme", attempts=3, bank=False, progress=said.append)
    assert said == [s for s in said if s.startswith("try ")] and len(said) == 3
    assert said[0].startswith("try 1 of 3: ") and said[0].endswith(" clues, not extreme")
    said.clear()
    create(3, seed=1, difficulty="expert", progress=said.append)
    assert said == ["an expert puzzle from the bank under a random symmetry; grading it again"]
    assert capsys.readouterr() == ("", "")


def test_a_bank_without_the_level_makes_and_grades_instead(monkeypatch):
    monkeypatch.setattr("sudoku.bank.at_level", lambda level: ())
    with pytest.raises(GenerationFailed, match="no extreme puzzle with at least 40 blanks found in 2 attempts"):
        create(3, seed=1, difficulty="extreme", attempts=2)

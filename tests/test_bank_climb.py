"""The bank's extreme entries and the climbs that made them (bench/bank_climb.py, issue 43): each
entry grades extreme, is APART cells or more from every other one under every symmetry, has its
lineage row (the published set and line it started from, the seed, the moves); with the published
sets at hand (``../shared/data``, or ``SUDOKU_DATA``), the moves lead from the start to the entry
through unique, minimal, extreme puzzles, a lineage is made again from its seed, and no published
puzzle is a variant of an entry."""

import random
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import bank_climb, make_bank
from bench.common import DATA

from sudoku.bank import at_level, random_symmetry, transform
from sudoku.canonical import canonical
from sudoku.engines import py
from sudoku.formats import parse_line
from sudoku.grade import is_level
from sudoku.grid import Grid

LINEAGE = Path(bank_climb.__file__).resolve().parent / bank_climb.LINEAGE
EXTREME = at_level("extreme")
ROWS = bank_climb.parse_lineage(LINEAGE.read_text().splitlines()) if LINEAGE.exists() else []
BY_PUZZLE = {row["puzzle"]: row for row in ROWS}
PUBLISHED = pytest.mark.skipif(not all((DATA / f"{name}.txt.gz").exists() for name in bank_climb.SETS),
                               reason=f"the published sets are not in {DATA} (set SUDOKU_DATA)")
HARDEST = parse_line("..53.....8......2..7..1.5..4....53...1..7...6..32...8..6.5....9..4....3......97..")


def _fields(entry):
    return dict(part.split("=", 1) for part in entry.made.split()[1:])


def _solved(puzzle):
    return py.solve(puzzle).solution


def test_every_extreme_entry_climbed_from_a_published_puzzle_and_has_its_lineage_row():
    assert len(EXTREME) >= 12
    assert {entry.line for entry in EXTREME} == set(BY_PUZZLE)
    for entry in EXTREME:
        row, fields = BY_PUZZLE[entry.line], _fields(entry)
        assert entry.made.startswith("climb ")
        assert fields["start"] == f"{row['set']}:{row['line']}" and row["set"] in bank_climb.SETS
        assert (fields["seed"], fields["lineage"], fields["step"]) == (row["seed"], row["lineage"], row["step"])
        assert row["moves"].split()[-1].split(":")[0] == row["step"]


def test_a_sample_of_extreme_entries_grades_extreme():
    for entry in random.Random(43).sample(EXTREME, 4):
        puzzle = parse_line(entry.line)
        assert is_level(puzzle, "extreme", solution=_solved(puzzle)), entry.line


@pytest.mark.slow
def test_every_extreme_entry_grades_extreme():
    for entry in EXTREME:
        puzzle = parse_line(entry.line)
        assert is_level(puzzle, "extreme", solution=_solved(puzzle)), entry.line


def test_extreme_entries_are_apart_from_each_other_under_every_symmetry():
    """APART clue changes or more between any two (a lower bound over all symmetries), so none is
    a near copy of another; and so no two share a canonical form."""
    puzzles = [parse_line(entry.line) for entry in EXTREME]
    for i, one in enumerate(puzzles):
        for other in puzzles[i + 1:]:
            assert bank_climb.apart(one, other) >= bank_climb.APART, (one, other)
    assert len({canonical(puzzle) for puzzle in puzzles}) == len(puzzles)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**63 - 1))
def test_apart_is_zero_to_a_variant_and_at_most_the_cells_that_differ(seed):
    rng = random.Random(seed)
    puzzle = HARDEST
    moved = transform(puzzle, random_symmetry(rng))
    assert bank_climb.apart(puzzle, moved) == 0
    other = parse_line(rng.choice(EXTREME).line)
    assert bank_climb.apart(puzzle, other) == bank_climb.apart(other, puzzle)
    assert bank_climb.apart(puzzle, other) <= bank_climb.differ(puzzle.cells, other.cells)
    assert bank_climb.apart(moved, other) == bank_climb.apart(puzzle, other)


def test_apart_counts_cells_of_the_pattern_and_ignores_digits():
    cells = list(HARDEST.cells)
    clues = [i for i, v in enumerate(cells) if v]
    blanks = [i for i, v in enumerate(cells) if not v]
    changed = list(cells)
    changed[clues[0]] = 0
    changed[blanks[0]] = 1
    changed[clues[1]] = cells[clues[1]] % 9 + 1  # another digit, same cell
    assert bank_climb.differ(cells, changed) == 3
    assert 1 <= bank_climb.apart(HARDEST, Grid(3, changed)) <= 2


def test_a_move_is_recorded_and_replayed():
    after = list(HARDEST.cells)
    after[2], after[3] = 0, 7
    record = bank_climb.move(5, HARDEST, Grid(3, after))
    assert record == "5:2=0,3=7"
    assert bank_climb.replay(HARDEST, f"{record} 6:3=0") == [Grid(3, after), Grid(3, after[:3] + [0] + after[4:])]


def test_lineage_rows_round_trip():
    row = bank_climb.lineage_row("." * 81, "hardest1106", 7, 2043, 3, 9, ["1:2=0,3=7", "9:4=5"])
    assert bank_climb.parse_lineage([bank_climb.LINEAGE_HEADER, row]) == [
        {"puzzle": "." * 81, "set": "hardest1106", "line": "7", "seed": "2043", "lineage": "3", "step": "9",
         "moves": "1:2=0,3=7 9:4=5"}]


def _start(row):
    return parse_line(bank_climb.published(row["set"])[int(row["line"]) - 1])


@pytest.mark.slow
@PUBLISHED
def test_each_climb_keeps_the_puzzle_unique_minimal_and_extreme_at_every_step():
    for row in ROWS:
        start = _start(row)
        assert bank_climb.published_start(int(row["seed"]), int(row["lineage"]))[1:] == (int(row["line"]), start)
        path = bank_climb.replay(start, row["moves"])
        assert path[-1] == parse_line(row["puzzle"])
        assert bank_climb.apart(path[-1], start) >= bank_climb.APART
        for puzzle in path:
            answer = py.solve(puzzle, limit=2)
            assert answer.count == 1, (row["lineage"], puzzle)
            assert all(py.has_other(puzzle.with_cell(cell, 0), answer.solution, cell)
                       for cell, value in enumerate(puzzle.cells) if value), (row["lineage"], puzzle)
            assert is_level(puzzle, "extreme", solution=answer.solution), (row["lineage"], puzzle)


@pytest.mark.slow
@PUBLISHED
def test_no_published_puzzle_is_a_variant_of_an_entry():
    for entry in EXTREME:
        assert bank_climb.published_twin(parse_line(entry.line)) is None, entry.line
    published = parse_line(bank_climb.published("hardest1106")[0])
    assert bank_climb.published_twin(transform(published, random_symmetry(random.Random(1)))) is not None


@pytest.mark.slow
@PUBLISHED
def test_a_lineage_is_made_again_from_its_seed():
    """The entry whose climb took the fewest steps, climbed again with make_bank's defaults."""
    row = min(ROWS, key=lambda row: int(row["step"]))
    args = SimpleNamespace(steps=int(row["step"]), per_lineage=1, tries=20000, tests=60, symmetries=4, min_guesses=30)
    name, number, found = bank_climb.climb(int(row["seed"]), int(row["lineage"]), args,
                                           make_bank.stalls_without_nesting)
    assert (name, str(number)) == (row["set"], row["line"])
    step, puzzle, _, moves = found[0]
    assert (str(step), puzzle, " ".join(moves)) == (row["step"], parse_line(row["puzzle"]), row["moves"])

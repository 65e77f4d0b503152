"""The logical solver (sudoku.techniques): every technique on a puzzle that needs it, soundness of
every step against the true solution, and never a guess."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import random_puzzle
from sudoku.engines import py
from sudoku.formats import parse_line
from sudoku.techniques import (NAMES, TECHNIQUES, Board, dynamic_forcing_chains, forcing_chain, forcing_chains,
                               nested_forcing_chains, next_step, solve_logically)

# For each technique, a puzzle (top1465, found by mining) whose logical solution uses it; the
# solutions are worked out by the py engine, never stored.
NEEDS = {
    "naked single": "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........",
    "hidden single": "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........",
    "pointing": "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........",
    "claiming": "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........",
    "naked pair": "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........",
    "hidden pair": "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........",
    "naked triple": "......41.9..3.....3...2.....48..7..........52.1.......5..2....6.7....8......9....",
    "hidden triple": ".8..1......5....3.......4.....6.5.7.89....2.....3.....2.....1.9..67........4.....",
    "naked quad": "5..6.3....2....98.......1...1..9.......3....67.......4....8.25.4..7..............",
    "hidden quad": ".29..........4....7..1593.......573..........17..835.92.4..6..1...5..8..9........",
    "x-wing": "2...4.5...1.....3............6...8.2.7.3.9......1.....4...5.6.....7...9...8......",
    "swordfish": "......41.9..2.....3...5.....48..7..........62.1.......6..5....3.7....8......9....",
    "jellyfish": "...27...98...........4.8..132...69.......9.3.7..1....2..........948....6.789...2.",
    "xy-wing": "3.7..4.2....1..8..9............3..9..5.8......4.6...........5.12...7..........6..",
    "xyz-wing": "......41.9..3.....3...5.....48..7..........52.1.......6..2....5.7....8......9....",
    "simple colouring": "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........",
    "x-chain": "8.9...3.....7.1...5.........7.....263...9.......1...4..6.2....4....8.5...........",
    "aic": ".4..1.2.......9.7..1..........43.6..8......5....2.....7.5..8......6..3..9........",
    "forcing chain": "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........",
    "dynamic forcing chain": "..53.....8......2..7..1.5..4....53...1..7...6..32...8..6.5....9..4....3......97..",
    "nested forcing chain": "..53.....8......2..7..1.5..4....53...1..7...6..32...8..6.5....9..4....3......97..",
}
EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
# hardest1905_11plus (bench draw): nested forcing chains crack it only part way; then stuck
HARDEST = "98.7..6..7...6......6....5.4..5......9.4...3...7.9.4.5..9.5.8....8.7.5.......2..1"


def solution_of(puzzle):
    answer = py.solve(puzzle, limit=2)
    assert answer.count == 1
    return answer.solution.cells


def assert_sound(step, solution):
    """No step places a wrong digit or removes the true one."""
    if step.placement:
        cell, digit = step.placement
        assert solution[cell] == digit, step
    for cell, digit in step.eliminations:
        assert solution[cell] != digit, step
    assert step.placement or step.eliminations, step


def test_every_technique_has_a_case():
    assert set(NEEDS) == set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_technique_on_a_puzzle_that_needs_it(name):
    puzzle = parse_line(NEEDS[name])
    solution = solution_of(puzzle)
    trail = solve_logically(puzzle)
    used = [i for i, step in enumerate(trail.steps) if step.technique == name]
    assert used, f"{name} not used"
    board = Board.of(puzzle)
    for step in trail.steps[: used[0]]:
        board.apply(step)
    technique = dict(TECHNIQUES)[name]
    step = technique(board)
    assert step is not None and step.technique == name
    assert_sound(step, solution)
    simpler = NAMES[: NAMES.index(name)]
    assert all(dict(TECHNIQUES)[s](board) is None for s in simpler), "a simpler technique applies"


@pytest.mark.parametrize("name", NAMES)
def test_every_step_of_the_trail_is_sound(name):
    puzzle = parse_line(NEEDS[name])
    solution = solution_of(puzzle)
    trail = solve_logically(puzzle)
    assert trail.contradiction is None
    for step in trail.steps:
        assert_sound(step, solution)
    if not trail.stuck:
        assert trail.grid.cells == solution


def test_easy_puzzle_needs_only_singles():
    trail = solve_logically(parse_line(EASY))
    assert not trail.stuck
    assert {step.technique for step in trail.steps} <= {"naked single", "hidden single"}
    assert trail.grid.blanks == 0


@pytest.mark.slow  # ~5 s: proving that no nested forcing chain applies tries every candidate
def test_stuck_means_no_technique_applies_and_nothing_is_guessed():
    puzzle = parse_line(HARDEST)
    trail = solve_logically(puzzle)
    assert trail.stuck and trail.grid.blanks > 0
    board = Board.of(puzzle)
    for step in trail.steps:
        board.apply(step)
    assert next_step(board) is None
    solution = solution_of(puzzle)
    assert all(v == 0 or v == s for v, s in zip(trail.grid.cells, solution))


def test_contradiction_is_a_value():
    broken = parse_line(".12345678" + "9" + "." * 71)  # r1c1 has no candidate
    trail = solve_logically(broken)
    assert trail.contradiction == "r1c1 has no candidate left"
    assert not trail.stuck


def test_step_records_pattern():
    trail = solve_logically(parse_line(NEEDS["x-wing"]))
    step = next(s for s in trail.steps if s.technique == "x-wing")
    assert len(step.digits) == 1 and len(step.cells) >= 4 and len(step.units) == 4


@settings(max_examples=40)
@given(box=st.sampled_from([2, 3, 3, 3, 4]), seed=st.integers(0, 2**32), ratio=st.floats(0.3, 0.8))
def test_no_step_removes_the_true_digit(box, seed, ratio):
    """Random puzzles, unique or not: every solution survives a sound step, so the full grid the
    puzzle came from must too."""
    if box == 4:
        ratio = min(ratio, 0.5)
    puzzle, full = random_puzzle(box, seed, ratio)
    trail = solve_logically(puzzle, max_steps=400 if box == 4 else None)
    assert trail.contradiction is None
    for step in trail.steps:
        assert_sound(step, full.cells)


@settings(max_examples=8, deadline=None)
@given(keep=st.lists(st.integers(0, 80), min_size=4, max_size=12, unique=True))
def test_the_forcing_tiers_never_remove_the_true_digit(keep):
    """The three forcing-chain passes, tried on every candidate (no solution given), on the
    nested-chain puzzle made a little easier by revealing a few solution cells: each removal is
    false in the solution."""
    puzzle = parse_line(NEEDS["nested forcing chain"])
    solution = solution_of(puzzle)
    cells = list(puzzle.cells)
    for cell in keep:
        cells[cell] = solution[cell]
    board = Board.of(type(puzzle)(puzzle.box, cells))
    for tier in (forcing_chains, dynamic_forcing_chains, nested_forcing_chains):
        step = tier(board)
        if step is not None:
            assert_sound(step, solution)
            assert step.eliminations == tuple(sorted(zip(step.cells, step.digits)))


def test_each_tier_is_stronger_than_the_one_below():
    """Where the trail first needs a nested forcing chain, neither weaker tier removes anything,
    and the nested pass removes candidates the known solution confirms false."""
    board, solution = _at_first("nested forcing chain")
    assert forcing_chains(board, solution=solution) is None
    assert dynamic_forcing_chains(board, solution=solution) is None
    step = nested_forcing_chains(board, solution=solution)
    assert step.technique == "nested forcing chain" and step.eliminations
    assert_sound(step, solution)


def _at_first(name):
    """The board of NEEDS[name] just before its trail first uses ``name``, and the solution."""
    puzzle = parse_line(NEEDS[name])
    trail = solve_logically(puzzle)
    board = Board.of(puzzle)
    for step in trail.steps:
        if step.technique == name:
            break
        board.apply(step)
    return board, solution_of(puzzle)


def test_forcing_chains_finds_in_one_pass_what_forcing_chain_finds_one_by_one():
    board, solution = _at_first("forcing chain")
    one_pass = forcing_chains(board)
    assert one_pass.technique == "forcing chain" and len(one_pass.eliminations) > 1
    assert_sound(one_pass, solution)
    single = forcing_chain(board)
    assert single.eliminations[0] in one_pass.eliminations
    for cell, digit in one_pass.eliminations:  # each is a contradiction on its own
        trial = board.copy()
        trial.place(cell, digit)
        assert singles_contradict(trial)
    assert forcing_chains(board, solution=solution) == one_pass  # the true digits need no trial


def singles_contradict(board):
    """Whether singles alone lead ``board`` to a contradiction."""
    from sudoku.techniques import hidden_single, naked_single

    while True:
        if board.contradiction():
            return True
        step = naked_single(board) or hidden_single(board)
        if step is None:
            return False
        board.apply(step)


def test_the_dynamic_and_nested_tiers_stop_at_9x9(monkeypatch):
    """From 16x16 up only forcing chains (by singles) try assumptions: no dynamic or nested trial
    is even started there (an empty 16x16 grid would take thousands)."""
    from sudoku import techniques
    from sudoku.grid import Grid

    def no_trial(trial, queue, geo, tier):
        raise AssertionError(f"a tier {tier} trial at box {geo.box}")

    assert techniques.TIERS_UP_TO_BOX == 3
    monkeypatch.setattr(techniques, "_propagate", no_trial)
    board = Board.of(Grid(4, [0] * 256))
    for tier in (techniques.dynamic_forcing_chain, techniques.nested_forcing_chain):
        assert tier(board) is None
    assert dynamic_forcing_chains(board) is None and nested_forcing_chains(board) is None
    with pytest.raises(AssertionError, match="box 3"):  # at 9x9 they do run
        dynamic_forcing_chains(Board.of(Grid(3, [0] * 81)))

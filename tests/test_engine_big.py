"""The compiled big-grid engine ``big`` (box 4..9) against ``py``: the same counts on random 16x16
puzzles, the contract's limits and clashes at 16x16, budgets that stop it, and grids up to 81x81.
(The known-puzzles file runs against it too, in test_engines.py.)"""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import random_puzzle
from sudoku import engines
from sudoku.budget import Budget, BudgetExceeded
from sudoku.engines import Counters, py
from sudoku.grid import Grid, find_clash, is_solution

big = pytest.importorskip("sudoku.engines.big", reason="numba is needed for the big engine")


def test_registry_entry():
    info = engines.info("big")
    assert list(info.boxes) == [4, 5, 6, 7, 8, 9]
    assert {"solve", "count", "budget"} <= info.capabilities
    assert "big" in engines.bounded()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([0.3, 0.5, 0.6, 0.7, 0.9, 1.0]), st.sampled_from([1, 2, 3, 10]),
       st.booleans())
def test_big_and_py_agree_at_16x16(seed, ratio, limit, change):
    puzzle, _ = random_puzzle(4, seed, ratio)
    if change:
        rng = random.Random(seed)
        puzzle = puzzle.with_cell(rng.randrange(256), rng.randint(1, 16))
    ours, reference = big.solve(puzzle, limit=limit), py.solve(puzzle, limit=limit)
    assert ours.count == reference.count
    if ours.count:
        assert is_solution(puzzle, ours.solution)
    else:
        assert ours.solution is None
    if ours.count == 1 and limit > 1:
        assert ours.solution == reference.solution


def test_limits_and_clashes_at_16x16():
    empty = Grid.empty(4)
    for limit in (1, 2, 7):
        answer = big.solve(empty, limit=limit)
        assert answer.count == limit and is_solution(empty, answer.solution)
    clash = Grid(4, [1, 1] + [0] * 254)
    assert find_clash(clash) and big.solve(clash, limit=2) == (0, None, Counters(0, 1))
    for limit in (0, -1):
        with pytest.raises(ValueError, match="limit"):
            big.solve(empty, limit=limit)
    with pytest.raises(ValueError, match="16x16 to 81x81"):
        big.solve(Grid.empty(3))


def _pattern_grid(box, seed):
    """A valid full grid from the pattern (box * (r % box) + r // box + c) % side, digits shuffled."""
    side = box * box
    digits = random.Random(seed).sample(range(1, side + 1), side)
    return Grid(box, [digits[(box * (r % box) + r // box + c) % side] for r in range(side) for c in range(side)])


@pytest.mark.parametrize("box", [6, 7, 8, 9])
def test_big_boxes_from_a_full_grid(box):
    full = _pattern_grid(box, box)
    assert find_clash(full) is None
    puzzle = Grid(box, [0 if i % 11 == 0 else v for i, v in enumerate(full.cells)])
    answer = big.solve(puzzle, limit=2)
    assert answer.count == 1 and answer.solution == full


def test_a_budget_stops_it():
    with pytest.raises(BudgetExceeded, match="node budget of 10 reached"):
        big.solve(Grid.empty(6), limit=2, budget=Budget(nodes=10))
    # counting every solution of an empty 36x36 grid never ends: the clock stops it
    with pytest.raises(BudgetExceeded, match="time limit of 0.5 s reached") as caught:
        big.solve(Grid.empty(6), limit=10**9, budget=Budget(seconds=0.5))
    assert caught.value.seconds < 30  # generous: the slices return to the clock often


def test_the_cli_bounds_it_with_timeout():
    from helpers import run_cli

    empty_81 = "9\n" + ("0 " * 80 + "0\n") * 81
    done = run_cli("solve", "--engine", "big", "--timeout", "1", input=empty_81, timeout=60)
    assert done.returncode == 124 and done.stdout == ""
    assert done.stderr == "sudoku: time limit of 1 s reached (solving the 81x81 puzzle)\n"

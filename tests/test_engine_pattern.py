"""Grids matched to the pattern family (``sudoku.engines.pattern``): every answer ``match`` gives is
a verified solution that keeps the givens, its counts are proven ones, it steps aside (None) when it
cannot prove them, and the default route (``auto``) and `sudoku solve` use it for grids with few
givens only. The opt-in engine ``pattern`` matches dense grids of the family too and leaves the
rest to ``sat``."""

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import run_cli
from sudoku import engines
from sudoku.budget import Budget, BudgetExceeded
from sudoku.engines import py
from sudoku.formats import parse, render
from sudoku.grid import Grid, is_solution

pattern = pytest.importorskip("sudoku.engines.pattern", reason="python-sat is needed for pattern matching")


def few_givens(full, count, rng):
    """``full`` with only ``count`` of its cells, drawn at random, kept."""
    keep = set(rng.sample(range(len(full.cells)), count))
    return Grid(full.box, [v if i in keep else 0 for i, v in enumerate(full.cells)])


def test_the_pattern_grid_is_valid_at_every_size():
    for box in range(2, 10):
        side = box * box
        grid = Grid(box, [pattern.pattern_value(box, r, c) + 1 for r in range(side) for c in range(side)])
        assert is_solution(grid, grid)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([3, 4]), st.integers(0, 2**32), st.data())
def test_a_match_is_a_solution_that_keeps_the_givens(box, seed, data):
    """Givens drawn from a random grid (py's fill: not of the pattern family), at most ``side`` of them."""
    rng = random.Random(seed)
    puzzle = few_givens(py.fill(box, rng), data.draw(st.integers(0, box * box)), rng)
    found = pattern.match(puzzle, limit=2)
    if found is not None:
        assert found.count == 2
        assert is_solution(puzzle, found.solution)


def test_few_givens_from_any_grid_fit_at_16x16_and_25x25():
    """Measured (bench/README.md): up to ``side`` givens always found a match; here a few draws."""
    for box, seeds in ((4, 12), (5, 3)):
        for seed in range(seeds):
            rng = random.Random(seed)
            puzzle = few_givens(py.fill(box, rng), box * box // 2, rng)
            found = pattern.match(puzzle)
            assert found is not None, (box, seed)
            assert found.count == 1 and is_solution(puzzle, found.solution)


def test_81x81_with_three_givens():
    side = 81
    cells = [0] * side * side
    cells[0], cells[side * 40 + 7], cells[-1] = 5, 81, 5
    puzzle = Grid(9, cells)
    found = pattern.match(puzzle, limit=3)
    assert found.count == 3 and is_solution(puzzle, found.solution)


def test_clashing_givens_are_no_match():
    cells = [0] * 256
    cells[0] = cells[9] = 7  # the same digit twice in row 1
    assert pattern.match(Grid(4, cells)) is None


def test_a_count_it_cannot_prove_is_left_to_search():
    """4x4 with one given in every row and all four digits shown: no digits to relabel and no
    given-free rows or columns to swap, so a second solution does not follow from the first."""
    puzzle = Grid(2, [1, 0, 0, 0, 0, 0, 2, 0, 0, 3, 0, 0, 0, 0, 0, 4])
    assert pattern.match(puzzle, limit=2) is None


def test_provable_counts():
    empty = Grid(4, [0] * 256)
    assert pattern.match(empty, limit=1000).count == 1000  # 16! relabellings
    assert engines.solve(empty, limit=5, engine="auto").count == 5


def test_the_default_route_uses_it_for_few_givens(monkeypatch):
    rng = random.Random(3)
    puzzle = few_givens(py.fill(5, rng), 20, rng)
    calls = []
    real = pattern.match
    monkeypatch.setattr(pattern, "match", lambda *a, **k: calls.append(1) or real(*a, **k))
    answer = engines.solve(puzzle, engine="auto")
    assert calls and answer.count == 1 and is_solution(puzzle, answer.solution)


@pytest.mark.parametrize("engine", ["auto", "pattern"])
def test_a_match_keeps_the_callers_deadline(engine):
    cells = [0] * 81 * 81
    cells[0] = 1
    with pytest.raises(BudgetExceeded):
        engines.solve(Grid(9, cells), engine=engine, budget=Budget(seconds=1e-6))


def test_cli_solves_a_near_empty_81x81_grid():
    """The issue's case: an 81x81 grid with 3 givens gave no answer in 120 s."""
    side = 81
    cells = [0] * side * side
    cells[5], cells[side * 30 + 60], cells[side * 80 + 2] = 9, 17, 80
    puzzle = Grid(9, cells)
    done = run_cli("solve", "--timeout", "60", input=render(puzzle, "grid"), timeout=120)
    assert done.returncode == 0, done.stderr
    assert is_solution(puzzle, next(iter(parse(done.stdout.splitlines(keepends=True)))))


def test_geometry_agrees_with_the_pattern_formula():
    """The family's algebra (value = box*h + l, see _encode) checked against the formula itself."""
    box = 4
    for band in range(box):
        for inner in range(box):
            for stack in range(box):
                for col_inner in range(box):
                    x, y = band, col_inner
                    h = (inner + stack + (x + y >= box)) % box
                    value = pattern.pattern_value(box, band * box + inner, stack * box + col_inner)
                    assert value == box * h + (x + y) % box


# --- the family's necessary conditions (may_fit), and dense grids ----------------------------------


def family_member(box, rng, *, transposed=False):
    """A random member of the family: the pattern grid with bands, rows, stacks, columns and digits
    permuted, transposed or not (the family ``pattern`` searches)."""
    side = box * box

    def lines():
        return [band * box + inner for band in rng.sample(range(box), box) for inner in rng.sample(range(box), box)]

    rows, cols, digits = lines(), lines(), rng.sample(range(1, side + 1), side)
    cells = [digits[pattern.pattern_value(box, r, c)] for r in rows for c in cols]
    if transposed:
        cells = [cells[c * side + r] for r in range(side) for c in range(side)]
    return Grid(box, cells)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.booleans(), st.floats(0, 1), st.integers(0, 2**32))
def test_givens_from_a_member_always_may_fit(box, transposed, kept, seed):
    """may_fit is a necessary condition: no member's givens, however many, fail it."""
    rng = random.Random(seed)
    full = family_member(box, rng, transposed=transposed)
    assert pattern.may_fit(few_givens(full, round(kept * len(full.cells)), rng))


def test_grids_outside_the_family_fail_it():
    """Random fills (py's search) are not of the family, and a quarter of their cells is enough to
    show it; with no givens at all anything may fit."""
    for box, seed in ((3, 1), (3, 2), (4, 1), (4, 2), (5, 1)):
        rng = random.Random(seed)
        full = py.fill(box, rng)
        assert not pattern.may_fit(full)
        assert not pattern.may_fit(few_givens(full, len(full.cells) // 4, rng)), (box, seed)
    assert pattern.may_fit(Grid(4, [0] * 256))


def test_match_skips_the_solver_when_the_conditions_fail(monkeypatch):
    rng = random.Random(5)
    puzzle = few_givens(py.fill(4, rng), 100, rng)
    monkeypatch.setattr(pattern, "_fit", lambda *a: pytest.fail("the solver was asked"))
    assert pattern.match(puzzle) is None


def spy_on_member(monkeypatch):
    """The calls of ``pattern._member`` (the family's SAT problem), recorded in the list returned."""
    calls = []
    real = pattern._member
    monkeypatch.setattr(pattern, "_member", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


@pytest.mark.parametrize("box,blank", [(5, 0.5), (6, 0.6), (6, 0.45)])
def test_the_engine_matches_dense_grids_of_the_family(monkeypatch, box, blank):
    """Grids from a shuffled pattern grid (how many generators make big grids): the match gives the
    first solution, and ``sat`` counts on from it (``known``) to the second."""
    rng = random.Random(box)
    full = family_member(box, rng)
    puzzle = few_givens(full, round((1 - blank) * len(full.cells)), rng)
    calls = spy_on_member(monkeypatch)
    one = pattern.solve(puzzle)
    assert one.count == 1 and is_solution(puzzle, one.solution)
    two = pattern.solve(puzzle, limit=2)
    assert two.count == 2 and is_solution(puzzle, two.solution)
    assert len(calls) == 2


def test_the_default_route_leaves_dense_grids_of_the_family_to_sat(monkeypatch):
    """The dense match is opt-in: ``auto`` never builds the family's SAT problem for a grid with more
    than ``side`` givens, and still counts it."""
    rng = random.Random(5)
    full = family_member(5, rng)
    puzzle = few_givens(full, round(0.5 * len(full.cells)), rng)
    monkeypatch.setattr(pattern, "_member", lambda *a, **k: pytest.fail("matched a dense grid"))
    answer = engines.solve(puzzle, limit=2, engine="auto")
    assert answer.count == 2 and is_solution(puzzle, answer.solution)


@pytest.mark.parametrize("seed", range(3))
def test_the_engine_leaves_grids_outside_the_family_to_sat(monkeypatch, seed):
    """``may_fit`` rules them out, so the family's SAT problem is never built, and the count is py's."""
    rng = random.Random(seed)
    puzzle = few_givens(py.fill(4, rng), 110, rng)
    monkeypatch.setattr(pattern, "_fit", lambda *a: pytest.fail("matched a grid outside the family"))
    answer = pattern.solve(puzzle, limit=2)
    assert answer.count == py.solve(puzzle, limit=2).count
    assert is_solution(puzzle, answer.solution)


PATTERN_49 = (Path(__file__).parent / "data" / "pattern_49x49_half_blank.txt").read_text()


def test_the_engine_matches_the_hard_band(monkeypatch):
    """The half-blank 49x49 grid of the family: CaDiCaL alone has no answer in minutes, the match has
    one, and the second solution comes from the solver counting on from it."""
    puzzle = next(iter(parse(PATTERN_49.splitlines(keepends=True))))
    calls = spy_on_member(monkeypatch)
    answer = pattern.solve(puzzle, limit=2, budget=Budget(nodes=100_000))  # no deadline: here, not forked
    assert answer.count == 2 and is_solution(puzzle, answer.solution) and calls == [1]


def test_cli_solves_a_half_blank_49x49_grid_of_the_family_with_the_engine():
    """A shuffled 49x49 pattern grid, half blank: the phase transition, where CaDiCaL gives no answer
    in 20 s; ``--engine pattern`` answers, and the second solution behind the warning comes from it."""
    done = run_cli("solve", "--engine", "pattern", "--timeout", "60", input=PATTERN_49, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "sudoku: several solutions; printing one\n"
    puzzle = next(iter(parse(PATTERN_49.splitlines(keepends=True))))
    assert is_solution(puzzle, next(iter(parse(done.stdout.splitlines(keepends=True)))))


@pytest.mark.parametrize("seed", range(4))
def test_a_fit_of_some_givens_is_checked_against_all(monkeypatch, seed):
    """_fit_some builds the match from a few givens first (up to two per row, column and digit): the
    last given of a dense grid is not among them, so moving it off the member's value leaves that
    subset fitting; the disagreement must bring it in (a second try), and the answer must agree
    with every given or be None."""
    box = 4
    rng = random.Random(seed)
    puzzle = few_givens(family_member(box, rng), 160, rng)
    side = box * box
    givens = [(i // side, i % side, v) for i, v in enumerate(puzzle.cells) if v]
    r, c, d = givens[-1]
    givens[-1] = (r, c, d % side + 1)
    tries = []
    real = pattern._fit
    monkeypatch.setattr(pattern, "_fit", lambda *a: tries.append(1) or real(*a))
    found, _ = pattern._fit_some(box, givens, pattern.CONFLICTS)
    assert len(tries) >= 2
    if found is not None:
        assert all(found.cells[r * side + c] == d for r, c, d in givens)


def test_the_engine_matches_sparse_grids_of_the_family(monkeypatch):
    """More than ``side`` givens but too few for sat (64x64 at 6 %): py's search does not fill it in
    0.3 s (nor ``big`` in 30 s, measured), the match does."""
    rng = random.Random(1)
    full = family_member(8, rng)
    puzzle = few_givens(full, 250, rng)
    calls = spy_on_member(monkeypatch)
    answer = pattern.solve(puzzle, budget=Budget(nodes=50_000_000))  # no deadline: here, not forked
    assert calls == [1] and answer.count == 1 and is_solution(puzzle, answer.solution)

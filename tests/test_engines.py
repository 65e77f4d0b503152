"""Every engine in the registry against the known-puzzles file, and engines against each other.

The known-puzzles file (tests/data/known.txt) holds answers agreed by two independent engines; each
engine that supports a size must reproduce them. Hypothesis then drives random puzzles (blanked
cells of a random full grid, sometimes with one given changed) through ``py`` and ``dlx`` and asserts
they agree, the way Hypothesis's own test suite drives several implementations through one sequence.
"""

import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import sudoku
from helpers import read_known, random_puzzle
from sudoku import engines
from sudoku.engines import Answer, Counters, dlx, py
from sudoku.grid import Grid, find_clash, is_solution

KNOWN = read_known()


def _loaded(name):
    """The engine module, or a skip when an optional engine (nb: numba) cannot be imported."""
    try:
        return engines.load(name)
    except ImportError as error:
        if name == "py" or name == "dlx":
            raise
        pytest.skip(f"engine {name} cannot be imported: {error}")


def known_cases():
    for name in engines.names():
        for case in KNOWN:
            if engines.supports(name, case.puzzle.box):
                side = case.puzzle.side
                # sat encodes a near-empty 25x25 grid in ~1 s a call, and pattern hands it to sat; auto leaves
                # it to search, where the one without solutions takes py and big seconds to rule out
                slow = name in ("sat", "pattern", "auto") and side >= 25 and case.puzzle.blanks > 0.85 * side * side
                yield pytest.param(name, case, id=f"{name}-line{case.number}-{side}x{side}-count{case.count}",
                                   marks=[pytest.mark.slow] if slow else [])


# --- the known-puzzles file -----------------------------------------------------------------------


def test_known_file_covers_what_it_should():
    sizes = {case.puzzle.side for case in KNOWN}
    counts = {case.count for case in KNOWN}
    assert sizes == {4, 9, 16, 25}
    assert counts == {0, 1, 2}
    assert 40 <= len(KNOWN) <= 60
    clashing = [case for case in KNOWN if find_clash(case.puzzle)]
    dead_ends = [case for case in KNOWN if case.count == 0 and not find_clash(case.puzzle)]
    assert clashing and dead_ends
    assert any(case.puzzle.blanks == 0 for case in KNOWN)
    assert any(case.puzzle.blanks == 1 for case in KNOWN)
    assert any(case.puzzle.clues == 0 for case in KNOWN)


@pytest.mark.parametrize("case", KNOWN, ids=lambda case: f"line{case.number}")
def test_known_file_is_consistent(case):
    """Counts are 0..2; a solution is given exactly when the count is 1, and it solves the puzzle."""
    assert case.count in (0, 1, 2)
    assert (case.solution is not None) == (case.count == 1)
    if case.solution is not None:
        assert is_solution(case.puzzle, case.solution)
    if find_clash(case.puzzle):
        assert case.count == 0


def test_known_reader_skips_comments_and_blank_lines(tmp_path):
    path = tmp_path / "known.txt"
    path.write_text("# header\n\n" + "." * 16 + ":2:\n  # indented comment\n" + "12341234" + "." * 8 + ":0:\n")
    cases = read_known(path)
    assert [(case.number, case.count, case.solution) for case in cases] == [(3, 2, None), (5, 0, None)]


@pytest.mark.parametrize("name, case", list(known_cases()))
def test_engine_agrees_with_known_puzzles(name, case):
    engine = _loaded(name)
    answer = engine.solve(case.puzzle, limit=2)
    assert answer.count == case.count
    if case.count == 0:
        assert answer.solution is None
    elif case.count == 1:
        assert answer.solution == case.solution
    else:
        assert is_solution(case.puzzle, answer.solution)
    single = engine.solve(case.puzzle, limit=1)
    assert single.count == min(case.count, 1)
    if case.count:
        assert is_solution(case.puzzle, single.solution)
    else:
        assert single.solution is None


# --- the registry ---------------------------------------------------------------------------------


def test_registry_names_and_default():
    names = engines.names()
    assert names[0] == engines.DEFAULT == "py"
    assert "dlx" in names
    for name in names:
        info = engines.info(name)
        assert info.name == name
        assert {"solve", "count"} <= info.capabilities


def test_cold_names_the_engines_not_yet_warmed_here(monkeypatch):
    monkeypatch.setattr(engines, "_warmed", set())
    assert engines.cold("py", "dlx") == ["py", "dlx"]
    engines.warm("py")
    assert engines.cold("py", "dlx") == ["dlx"]


def test_the_registry_module_holds_no_routing():
    """The contract and the registry only: the route of a solve that names no engine is the engine
    ``auto``, listed like any other (what it picks is tested in test_engine_auto.py)."""
    import inspect

    functions = {name for name, value in vars(engines).items()
                 if inspect.isfunction(value) and value.__module__ == engines.__name__}
    assert functions == {"default_for", "names", "info", "load", "supports", "solve", "bounded", "warm", "cold"}
    assert "auto" in engines.names() and engines.load("auto").__name__ == "sudoku.engines.auto"
    assert {"solve", "count", "budget"} <= engines.info("auto").capabilities


@pytest.mark.parametrize("name", engines.names())
def test_registered_engines_load_and_honour_capabilities(name):
    engine = _loaded(name)
    assert callable(engine.solve)
    info = engines.info(name)
    if "fill" in info.capabilities:
        assert callable(engine.fill)
    if "other" in info.capabilities:
        assert callable(engine.has_other)


def test_supports():
    assert all(engines.supports("py", box) for box in range(2, 10))
    assert engines.supports("dlx", 5) and not engines.supports("dlx", 6)
    assert not engines.supports("py", 1) and not engines.supports("py", 10)


def test_unknown_engine_is_a_value_error():
    for call in (lambda: engines.info("nope"), lambda: engines.load("nope"), lambda: engines.supports("nope", 3)):
        with pytest.raises(ValueError, match="unknown engine 'nope'"):
            call()
    with pytest.raises(ValueError, match="unknown engine"):
        engines.solve(Grid.empty(2), engine="nope")


def test_solve_refuses_sizes_an_engine_does_not_support():
    with pytest.raises(ValueError, match="does not solve 36x36"):
        engines.solve(Grid.empty(6), engine="dlx")


def test_top_level_solve_uses_the_default_engine():
    answer = sudoku.solve(Grid.empty(2), limit=2)
    assert isinstance(answer, Answer) and isinstance(answer.counters, Counters)
    assert answer.count == 2


def test_py_solves_big_boxes():
    """Only py goes past 25x25: a 36x36 grid from a full one with a few blanks."""
    full = py.fill(6, random.Random(1))
    assert find_clash(full) is None and full.blanks == 0
    puzzle = Grid(6, [0 if i % 11 == 0 else v for i, v in enumerate(full.cells)])
    answer = py.solve(puzzle, limit=2)
    assert answer.count == 1 and answer.solution == full


# --- the contract: limits, clashes, counters (every registered engine) ----------------------------

NAMES = engines.names()
NAMES_9 = [name for name in NAMES if engines.supports(name, 3)]  # the contract tests below use 9x9


@pytest.mark.parametrize("name", NAMES_9)
def test_limit_semantics(name):
    engine = _loaded(name)
    empty = Grid.empty(3)
    assert engine.solve(empty).count == 1  # limit defaults to 1: solve
    assert engine.solve(empty, limit=1).count == 1
    assert engine.solve(empty, limit=2).count == 2
    assert engine.solve(empty, limit=7).count == 7
    for limit in (1, 2, 7):
        assert is_solution(empty, engine.solve(empty, limit=limit).solution)
    full = py.fill(3, random.Random(3))
    assert engine.solve(full, limit=5).count == 1
    for limit in (0, -1):
        with pytest.raises(ValueError, match="limit"):
            engine.solve(empty, limit=limit)


@pytest.mark.parametrize("name", [name for name in NAMES if engines.supports(name, 2)])
def test_a_high_limit_counts_every_solution(name):
    assert _loaded(name).solve(Grid.empty(2), limit=10_000).count == 288  # every 4x4 Sudoku grid


CLASHES = {
    "row": "5.5" + "." * 78,
    "column": "....2...." + "." * 63 + "....2....",
    "box": "." * 30 + "3" + "." * 9 + "3" + "." * 40,
    "late-row": "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8.779",
    "two-rows-repeat": "123456789" * 2 + "." * 63,
    "all-ones": "1" * 81,
}


@pytest.mark.parametrize("clash", list(CLASHES))
@pytest.mark.parametrize("name", NAMES_9)
def test_clashing_givens_count_zero_without_an_exception(name, clash):
    from sudoku.formats import parse_line

    engine = _loaded(name)
    puzzle = parse_line(CLASHES[clash])
    assert find_clash(puzzle) is not None
    for limit in (1, 2, 100):
        answer = engine.solve(puzzle, limit=limit)
        assert answer.count == 0 and answer.solution is None
        assert isinstance(answer.counters, Counters)


@pytest.mark.parametrize("name", NAMES_9)
def test_counters(name):
    engine = _loaded(name)
    full = py.fill(3, random.Random(5))
    answer = engine.solve(full, limit=2)
    assert answer.counters.guesses == 0
    hard = next(case.puzzle for case in KNOWN if case.puzzle.box == 3 and case.count == 1 and case.puzzle.clues == 17)
    answer = engine.solve(hard, limit=2)
    assert answer.counters.guesses > 0
    assert answer.counters.nodes >= answer.counters.guesses
    assert engine.solve(hard, limit=2) == answer  # deterministic, counters included


# --- py and dlx agree on random puzzles (hypothesis) ----------------------------------------------


@st.composite
def puzzles(draw, boxes=(2, 3), change=True):
    """(puzzle, full grid it came from, changed): random cells of a random full grid blanked, and
    sometimes one cell set to a random digit, which can make a clash or a dead end."""
    box = draw(st.sampled_from(boxes))
    seed = draw(st.integers(0, 2**32))
    ratio = draw(st.sampled_from([0.3, 0.5, 0.6, 0.7, 0.8, 0.95, 1.0]))
    puzzle, full = random_puzzle(box, seed, ratio)
    changed = change and draw(st.booleans())
    if changed:
        side = box * box
        cell = draw(st.integers(0, side * side - 1))
        puzzle = puzzle.with_cell(cell, draw(st.integers(1, side)))
    return puzzle, full, changed


@given(puzzles())
def test_py_and_dlx_agree_on_counts(drawn):
    puzzle, full, changed = drawn
    a, b = py.solve(puzzle, limit=2), dlx.solve(puzzle, limit=2)
    assert a.count == b.count
    if not changed:
        assert a.count >= 1  # blanking cells of a full grid keeps that grid a solution
    for answer in (a, b):
        if answer.count:
            assert is_solution(puzzle, answer.solution)
        else:
            assert answer.solution is None
    if a.count == 1:
        assert a.solution == b.solution


@given(puzzles(change=False))
def test_a_solution_keeps_every_given_and_is_valid(drawn):
    puzzle, full, _ = drawn
    for engine in (py, dlx):
        solution = engine.solve(puzzle).solution
        assert solution is not None and is_solution(puzzle, solution)
        assert all(g == s for g, s in zip(puzzle.cells, solution.cells) if g)
        assert solution.blanks == 0 and find_clash(solution) is None


@given(puzzles(boxes=(2,), change=False), st.integers(3, 40))
def test_py_and_dlx_agree_on_exact_counts_of_4x4_puzzles(drawn, limit):
    puzzle, _, _ = drawn
    assert py.solve(puzzle, limit=limit).count == dlx.solve(puzzle, limit=limit).count


@given(puzzles())
def test_a_higher_limit_never_counts_fewer(drawn):
    puzzle, _, _ = drawn
    counts = [py.solve(puzzle, limit=limit).count for limit in (1, 2, 3)]
    assert all(count <= limit for count, limit in zip(counts, (1, 2, 3)))
    assert counts == sorted(counts)
    assert counts[0] == min(counts[2], 1) and counts[1] == min(counts[2], 2)


@given(st.integers(0, 2**32), st.sampled_from([2, 3]))
def test_fill_is_a_random_valid_full_grid_named_by_its_seed(seed, box):
    grid = py.fill(box, random.Random(seed))
    assert grid.box == box and grid.blanks == 0 and find_clash(grid) is None
    assert py.fill(box, random.Random(seed)) == grid


@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_fill_draws_different_valid_grids(box):
    grids = {py.fill(box, random.Random(seed)) for seed in range(3)}
    assert len(grids) == 3
    assert all(grid.blanks == 0 and find_clash(grid) is None for grid in grids)


# --- has_other ------------------------------------------------------------------------------------


@given(puzzles(change=False), st.data())
def test_has_other_means_another_digit_fits_the_cell(drawn, data):
    """has_other(p, s, cell) is True exactly when some solution of p with ``cell`` blanked puts
    another digit there; dlx, by trying each other digit, is the independent judge."""
    puzzle, full, _ = drawn
    side = puzzle.side
    cell = data.draw(st.integers(0, side * side - 1))
    expected = any(
        dlx.solve(puzzle.with_cell(cell, digit), limit=1).count > 0
        for digit in range(1, side + 1)
        if digit != full.cells[cell]
    )
    assert py.has_other(puzzle, full, cell) == expected
    assert py.has_other(puzzle.with_cell(cell, 0), full, cell) == expected


@given(puzzles(change=False), st.data())
def test_has_other_agrees_with_a_count_to_two_when_the_given_makes_it_unique(drawn, data):
    """The way the generator uses it: with the given at ``cell`` the puzzle is unique, so another
    solution with the cell blanked exists exactly when the count to 2 reaches 2."""
    puzzle, full, _ = drawn
    side = puzzle.side
    cell = data.draw(st.integers(0, side * side - 1))
    with_given = puzzle.with_cell(cell, full.cells[cell])
    assume(py.solve(with_given, limit=2).count == 1)
    blanked = puzzle.with_cell(cell, 0)
    assert py.has_other(blanked, full, cell) == (dlx.solve(blanked, limit=2).count == 2)


def test_has_other_on_a_deadly_rectangle():
    """A full 4x4 grid with an a-b/b-a rectangle in two boxes: blanking the rectangle allows a swap."""
    full = Grid(2, (1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1))
    rectangle = (0, 2, 4, 6)  # r1c1=1 r1c3=3 / r2c1=3 r2c3=1
    puzzle = Grid(2, [0 if i in rectangle else v for i, v in enumerate(full.cells)])
    assert dlx.solve(puzzle, limit=3).count == 2
    assert all(py.has_other(puzzle, full, cell) for cell in rectangle)
    assert not py.has_other(puzzle, full, 15)


@pytest.mark.slow  # 16 s of Hypothesis over big grids
@settings(max_examples=40, deadline=None)
@given(st.sampled_from([3, 4, 5]), st.integers(0, 2**32), st.floats(0.3, 0.8), st.booleans())
def test_settle_reaches_the_same_fixed_point_in_either_order(box, seed, blank, clash):
    """py.settle reads hidden singles unit by unit up to 9x9 and in whole passes from 16x16 up
    (PASS_FROM_BOX): either order gives the same candidates, and the same verdict on a
    contradiction (``clash``: one given changed, which often makes one)."""
    from sudoku.grid import geometry

    puzzle, _ = random_puzzle(box, seed, blank)
    if clash:
        cells = list(puzzle.cells)
        rng = random.Random(seed)
        given = rng.choice([i for i, v in enumerate(cells) if v] or [0])
        cells[given] = rng.randint(1, box * box)
        puzzle = Grid(box, cells)
    geo = geometry(box)
    results = []
    for pass_from in (2, 99):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(py, "PASS_FROM_BOX", pass_from)
            cands, queue = py.candidates(puzzle)
            ok = py.settle(cands, queue, geo)
        results.append((ok, cands if ok else None))
    assert results[0] == results[1]

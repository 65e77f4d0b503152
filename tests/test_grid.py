"""The grid model: validation, the value's behaviour, geometry, clashes and ``is_solution``."""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sudoku.engines import py
from sudoku.grid import Grid, InvalidPuzzle, box_of_side, find_clash, geometry, is_solution

FULL_4 = (1, 2, 3, 4,
          3, 4, 1, 2,
          2, 1, 4, 3,
          4, 3, 2, 1)  # fmt: skip


def full(box, seed=0):
    return py.fill(box, random.Random(seed))


# --- InvalidPuzzle ---------------------------------------------------------------------------------


def test_invalid_puzzle_is_a_value_error_and_names_where():
    error = InvalidPuzzle("bad value", line=3, column=7)
    assert isinstance(error, ValueError)
    assert str(error) == "line 3, column 7: bad value"
    assert (error.message, error.line, error.column) == ("bad value", 3, 7)


@pytest.mark.parametrize(
    "line, column, text",
    [(None, None, "oops"), (2, None, "line 2: oops"), (None, 5, "column 5: oops")],
)
def test_invalid_puzzle_str_with_part_of_the_place(line, column, text):
    assert str(InvalidPuzzle("oops", line=line, column=column)) == text


# --- Grid validation ------------------------------------------------------------------------------


@pytest.mark.parametrize("box", [0, 1, 10, -3, 3.0, "3", None])
def test_grid_rejects_box_sizes_outside_2_to_9(box):
    with pytest.raises(InvalidPuzzle, match="box size"):
        Grid(box, [0] * 81)


@pytest.mark.parametrize("count", [0, 15, 17, 80, 82])
def test_grid_rejects_the_wrong_number_of_cells(count):
    box = 2 if count < 40 else 3
    with pytest.raises(InvalidPuzzle, match=f"not {count}"):
        Grid(box, [0] * count)


@pytest.mark.parametrize("value", [-1, 5, 10, 1.0, "1", None])
def test_grid_rejects_values_out_of_range_and_says_where(value):
    cells = [0] * 16
    cells[6] = value  # row 2, column 3
    with pytest.raises(InvalidPuzzle) as caught:
        Grid(2, cells)
    assert (caught.value.line, caught.value.column) == (2, 3)
    assert "line 2, column 3" in str(caught.value)


def test_grid_accepts_any_iterable_of_cells_and_stores_a_tuple():
    grid = Grid(2, iter(FULL_4))
    assert grid.cells == FULL_4
    assert isinstance(grid.cells, tuple)


# --- Grid as a value ------------------------------------------------------------------------------


def test_grid_is_immutable():
    grid = Grid(2, FULL_4)
    with pytest.raises(AttributeError):
        grid.box = 3
    with pytest.raises(AttributeError):
        grid.cells = ()
    with pytest.raises(TypeError):
        grid.cells[0] = 9


def test_grids_compare_and_hash_by_value():
    a, b = Grid(2, FULL_4), Grid(2, list(FULL_4))
    assert a == b and hash(a) == hash(b)
    assert len({a, b}) == 1
    assert a != a.with_cell(0, 0)
    assert a != FULL_4
    assert Grid.empty(2) != Grid.empty(3)


def test_grid_properties():
    grid = Grid(2, FULL_4).with_cell(0, 0).with_cell(15, 0)
    assert grid.side == 4
    assert grid.rows == [[0, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 0]]
    assert (grid.blanks, grid.clues) == (2, 14)
    assert repr(grid) == "Grid(box=2, clues=14)"


def test_with_cell_returns_a_new_grid_and_validates():
    grid = Grid(2, FULL_4)
    changed = grid.with_cell(5, 0)
    assert grid.cells[5] == 4 and changed.cells[5] == 0
    with pytest.raises(InvalidPuzzle):
        grid.with_cell(5, 7)


@pytest.mark.parametrize("box", range(2, 10))
def test_empty_grid(box):
    grid = Grid.empty(box)
    assert grid.box == box
    assert grid.blanks == box**4 and grid.clues == 0


def test_from_rows_round_trips_rows():
    grid = Grid(2, FULL_4)
    assert Grid.from_rows(grid.rows) == grid


def test_from_rows_rejects_a_non_square_number_of_rows():
    with pytest.raises(InvalidPuzzle, match="8 rows"):
        Grid.from_rows([[0] * 9] * 8)


def test_from_rows_names_the_short_row():
    rows = [[0] * 9 for _ in range(9)]
    rows[4] = [0] * 8
    with pytest.raises(InvalidPuzzle) as caught:
        Grid.from_rows(rows)
    assert caught.value.line == 5


@pytest.mark.parametrize("side, box", [(4, 2), (9, 3), (16, 4), (25, 5), (36, 6), (81, 9)])
def test_box_of_side(side, box):
    assert box_of_side(side) == box


@pytest.mark.parametrize("side", [0, 1, 2, 3, 5, 8, 10, 15, 100, 121])
def test_box_of_side_rejects_other_sides(side):
    with pytest.raises(InvalidPuzzle):
        box_of_side(side)


# --- Geometry -------------------------------------------------------------------------------------


@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_geometry_units_and_peers(box):
    geo = geometry(box)
    side = box * box
    assert len(geo.units) == 3 * side == len(geo.unit_names)
    for unit in geo.units:
        assert len(unit) == len(set(unit)) == side
    # each cell lies in exactly one row, one column and one box
    for cell in range(side * side):
        assert len(geo.cell_units[cell]) == 3
        assert len(geo.peers[cell]) == 3 * side - 2 * box - 1 == len(set(geo.peers[cell]))
        assert cell not in geo.peers[cell]
    assert geo.full == (1 << side) - 1
    assert geometry(box) is geo  # computed once per size


def test_geometry_9x9_matches_the_classic_layout():
    geo = geometry(3)
    assert len(geo.peers[0]) == 20
    assert geo.unit_names[0] == "row 1" and geo.unit_names[9] == "column 1" and geo.unit_names[26] == "box 9"
    assert geo.units[18] == (0, 1, 2, 9, 10, 11, 18, 19, 20)  # box 1
    assert geo.units[9] == tuple(range(0, 81, 9))  # column 1


# --- find_clash and is_solution -------------------------------------------------------------------


def puzzle_9(givens):
    """A 9x9 grid with ``givens`` = {(row, column): digit}, 1-based."""
    cells = [0] * 81
    for (r, c), d in givens.items():
        cells[(r - 1) * 9 + c - 1] = d
    return Grid(3, cells)


@pytest.mark.parametrize(
    "givens, message",
    [
        ({(1, 1): 5, (1, 3): 5}, "row 1 has two 5s, columns 1 and 3"),
        ({(9, 2): 8, (9, 9): 8}, "row 9 has two 8s, columns 2 and 9"),
        ({(2, 4): 7, (8, 4): 7}, "column 4 has two 7s, rows 2 and 8"),
        ({(4, 4): 3, (6, 6): 3}, "box 5 has two 3s, cells r4c4 and r6c6"),
        ({(7, 9): 1, (9, 8): 1}, "box 9 has two 1s, cells r7c9 and r9c8"),
    ],
)
def test_find_clash_names_the_unit_digit_and_places(givens, message):
    assert find_clash(puzzle_9(givens)) == message


def test_find_clash_reports_rows_before_columns_before_boxes():
    grid = puzzle_9({(1, 1): 5, (1, 2): 5, (2, 1): 5})
    assert find_clash(grid).startswith("row 1 ")


def test_find_clash_none_on_valid_grids():
    assert find_clash(Grid.empty(3)) is None
    assert find_clash(Grid(2, FULL_4)) is None
    for box in (2, 3, 4):
        assert find_clash(full(box)) is None


@given(st.integers(0, 2**32), st.sampled_from([2, 3]), st.data())
def test_find_clash_sees_every_repeated_digit(seed, box, data):
    """Copying a digit of a valid grid to another cell of one of its units is always found."""
    grid = full(box, seed)
    geo = geometry(box)
    unit = data.draw(st.sampled_from(geo.units))
    a, b = data.draw(st.lists(st.sampled_from(unit), min_size=2, max_size=2, unique=True))
    clashing = grid.with_cell(b, grid.cells[a])
    assert find_clash(clashing) is not None
    assert f"two {grid.cells[a]}s" in find_clash(clashing)


def test_is_solution():
    solution = Grid(2, FULL_4)
    puzzle = solution.with_cell(0, 0).with_cell(9, 0)
    assert is_solution(puzzle, solution)
    assert is_solution(solution, solution)
    assert is_solution(Grid.empty(2), solution)


def test_is_solution_rejects_incomplete_grids():
    solution = Grid(2, FULL_4)
    assert not is_solution(Grid.empty(2), solution.with_cell(3, 0))


def test_is_solution_rejects_a_changed_given():
    solution = Grid(2, FULL_4)
    other = Grid(2, (2, 1, 4, 3, 4, 3, 2, 1, 1, 2, 3, 4, 3, 4, 1, 2))
    assert find_clash(other) is None
    puzzle = Grid(2, (1,) + (0,) * 15)
    assert is_solution(puzzle, solution)
    assert not is_solution(puzzle, other)


def test_is_solution_rejects_a_clash_and_a_size_mismatch():
    clashing = Grid(2, (1,) * 16)
    assert not is_solution(Grid.empty(2), clashing)
    assert not is_solution(Grid.empty(3), Grid(2, FULL_4))


def test_a_grid_pickles_by_value():
    import pickle

    grid = Grid(2, [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1])
    again = pickle.loads(pickle.dumps(grid))
    assert again == grid and again.box == 2 and again is not grid

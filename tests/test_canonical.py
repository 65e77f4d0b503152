"""Canonical forms (sudoku.canonical): every variant of a puzzle has its form, puzzles that are not
variants have different forms, and the form is the least variant (against every variant, at 4x4)."""

import random
from itertools import permutations, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku import create
from sudoku.bank import fingerprint, random_symmetry, transform
from sudoku.canonical import are_variants, canonical
from sudoku.grid import Grid

# sparse 9x9 grids, valid or not (the form is defined for any grid), with whole blank rows now and then
CELLS = st.lists(st.sampled_from([0] * 12 + list(range(1, 10))), min_size=81, max_size=81)
BLANK_ROWS = st.sets(st.integers(0, 8), max_size=4)


def sparse(cells, blank_rows):
    cells = list(cells)
    for row in blank_rows:
        cells[9 * row:9 * row + 9] = [0] * 9
    return Grid(3, cells)


@settings(max_examples=25, deadline=None)
@given(CELLS, BLANK_ROWS, st.integers(0, 2**32))
def test_every_variant_of_a_grid_has_its_canonical_form(cells, blank_rows, seed):
    grid = sparse(cells, blank_rows)
    variant = transform(grid, random_symmetry(random.Random(seed)))
    assert canonical(variant) == canonical(grid)
    assert are_variants(grid, variant)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32))
def test_a_created_puzzle_and_its_variants_share_one_form(seed, symmetry):
    puzzle = create(3, seed=seed)
    form = canonical(puzzle)
    assert canonical(transform(puzzle, random_symmetry(random.Random(symmetry)))) == form
    assert canonical(form) == form and fingerprint(form) == fingerprint(puzzle)  # a variant itself


@settings(max_examples=25, deadline=None)
@given(CELLS, BLANK_ROWS, CELLS, BLANK_ROWS)
def test_grids_that_are_not_variants_have_different_forms(cells, blank_rows, other_cells, other_blank_rows):
    one, other = sparse(cells, blank_rows), sparse(other_cells, other_blank_rows)
    if fingerprint(one) != fingerprint(other):  # no symmetry changes a fingerprint: not variants
        assert canonical(one) != canonical(other)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32), st.data())
def test_a_puzzle_with_one_given_less_is_not_a_variant(seed, data):
    puzzle = create(3, seed=seed)
    given_cells = [i for i, v in enumerate(puzzle.cells) if v]
    less = puzzle.with_cell(data.draw(st.sampled_from(given_cells)), 0)
    assert canonical(less) != canonical(puzzle) and not are_variants(less, puzzle)


def every_variant(grid):
    """Each variant of a 4x4 grid, relabelled in reading order (the form is the least of these)."""
    orders = [[band * 2 + within[i][j] for i, band in enumerate(bands) for j in range(2)]
              for bands in permutations(range(2)) for within in product(permutations(range(2)), repeat=2)]
    for cells in (grid.cells, tuple(grid.cells[4 * c + r] for r in range(4) for c in range(4))):
        for rows, cols in product(orders, orders):
            labels: dict[int, int] = {}
            yield tuple(labels.setdefault(v, len(labels) + 1) if v else 0
                        for r in rows for c in cols for v in [cells[4 * r + c]])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0, 0, 0, 1, 2, 3, 4]), min_size=16, max_size=16))
def test_the_form_of_a_4x4_grid_is_its_least_variant(cells):
    grid = Grid(2, cells)
    assert canonical(grid).cells == min(every_variant(grid))


def test_grids_above_9x9_are_refused_by_name():
    with pytest.raises(ValueError, match="4x4 and 9x9 grids, not 16x16"):
        canonical(Grid.empty(4))

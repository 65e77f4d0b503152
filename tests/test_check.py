"""Judging a grid as it stands: complete, incomplete, or invalid with the first broken unit named."""

import random
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import REPO
from sudoku.check import Verdict, check
from sudoku.engines import py
from sudoku.formats import parse_line
from sudoku.grid import Grid

FULL_9 = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def test_complete():
    verdict = check(parse_line(FULL_9))
    assert verdict == Verdict("complete", "9x9, every unit holds each digit once")


@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_complete_at_every_size(box):
    grid = py.fill(box, random.Random(box))
    side = box * box
    assert check(grid) == Verdict("complete", f"{side}x{side}, every unit holds each digit once")


@pytest.mark.parametrize(
    "line, detail",
    [
        (FULL_9[:-1] + ".", "1 blank"),
        ("." * 3 + FULL_9[3:], "3 blanks"),
        ("." * 81, "81 blanks"),
        ("53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79", "51 blanks"),
    ],
)
def test_incomplete_counts_blanks(line, detail):
    assert check(parse_line(line)) == Verdict("incomplete", detail)


def test_incomplete_says_nothing_about_solvability():
    dead_end = parse_line(".12345678" + "9" + "." * 71)  # r1c1 has no candidate, yet no unit repeats
    assert check(dead_end).status == "incomplete"


def swap(line, a, b):
    cells = list(line)
    cells[a], cells[b] = cells[b], cells[a]
    return "".join(cells)


@pytest.mark.parametrize(
    "line, detail",
    [
        ("5.5" + "." * 78, "row 1 has two 5s, columns 1 and 3"),
        ("." * 72 + "7.......7", "row 9 has two 7s, columns 1 and 9"),
        ("....2...." + "." * 63 + "....2....", "column 5 has two 2s, rows 1 and 9"),
        ("." * 30 + "3" + "." * 9 + "3" + "." * 40, "box 5 has two 3s, cells r4c4 and r5c5"),
        # a full grid with two cells of row 1 swapped: each column now repeats a digit; rows are fine
        (swap(FULL_9, 0, 1), "column 1 has two 3s, rows 1 and 9"),
        # a full grid with one cell changed: its row is the first unit to repeat a digit
        (FULL_9[:40] + ("1" if FULL_9[40] != "1" else "2") + FULL_9[41:], "row 5 has two 1s, columns 5 and 9"),
    ],
)
def test_invalid_names_the_first_unit_that_repeats_a_digit(line, detail):
    assert check(parse_line(line)) == Verdict("invalid", detail)


def test_invalid_outranks_incomplete():
    assert check(parse_line("11" + "." * 14)) == Verdict("invalid", "row 1 has two 1s, columns 1 and 2")


def test_invalid_16x16_names_values_as_numbers():
    grid = Grid(4, [16, 16] + [0] * 254)
    assert check(grid) == Verdict("invalid", "row 1 has two 16s, columns 1 and 2")


@given(st.integers(0, 2**32), st.sampled_from([2, 3]), st.data())
def test_verdicts_on_blanked_and_changed_grids(seed, box, data):
    """Blanking cells of a full grid leaves it incomplete; changing one cell to another digit makes it invalid."""
    grid = py.fill(box, random.Random(seed))
    side = box * box
    cells = data.draw(st.sets(st.integers(0, side * side - 1), min_size=1))
    blanked = Grid(box, [0 if i in cells else v for i, v in enumerate(grid.cells)])
    assert check(blanked).status == "incomplete"
    assert check(blanked).detail.startswith(f"{len(cells)} blank")
    cell = data.draw(st.integers(0, side * side - 1))
    digit = data.draw(st.integers(1, side).filter(lambda d: d != grid.cells[cell]))
    assert check(grid.with_cell(cell, digit)).status == "invalid"


def test_package_exports_the_check_function():
    """``from sudoku import Verdict, check`` gives the function (in a fresh interpreter)."""
    code = "from sudoku import Verdict, check; assert callable(check), check"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr

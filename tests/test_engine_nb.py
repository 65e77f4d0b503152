"""The compiled engine ``nb`` agrees with the pure-Python reference ``py``.

Three kinds of check: the benchmark sets (a sample of each, counted to 2 by both engines), random
puzzles made by blanking cells of a valid grid (hypothesis), and generation (unique per ``py``,
enough blanks, reproducible from the seed).
"""

import gzip
import random
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")
np = pytest.importorskip("numpy")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from sudoku.engines import Answer, Counters  # noqa: E402
from sudoku.engines import nb, py  # noqa: E402
from sudoku.grid import Grid, is_solution  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"

# set -> puzzles sampled (evenly spaced through the file)
SAMPLES = {
    "kaggle": 36,
    "17clue": 36,
    "top1465": 36,
    "hardest1106": 36,
    "hardest1905_11plus": 36,
    "serg_benchmark": 36,
    "unbiased": 36,
    "norvig_top95": 36,
    "norvig_hardest": 11,
}


def _sample(name, size):
    path = DATA / f"{name}.txt.gz"
    if not path.exists():
        pytest.skip(f"benchmark data {path} not found")
    with gzip.open(path, "rt") as handle:
        lines = handle.read().split()
    step = max(1, len(lines) // size)
    return lines[::step][:size]


def _grid(row):
    return Grid(3, [int(v) for v in row])


def _assert_agree(puzzles):
    """Count to 2 with both engines; same counts, valid nb solutions, same unique solution."""
    counts, solutions, guesses, nodes = nb.solve_batch(puzzles, limit=2)
    for row, count, solution in zip(puzzles, counts, solutions):
        puzzle = _grid(row)
        expected = py.solve(puzzle, limit=2)
        assert count == expected.count, nb.to_lines([row])[0]
        if count:
            assert is_solution(puzzle, _grid(solution))
        else:
            assert not solution.any()
        if count == 1:
            assert _grid(solution) == expected.solution
    assert (nodes >= guesses + 1).all()


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_agrees_with_py_on_benchmark_sample(name):
    _assert_agree(nb.from_lines(_sample(name, SAMPLES[name])))


def test_solve_contract():
    puzzle = _grid(nb.from_lines(_sample("top1465", 1))[0])
    answer = nb.solve(puzzle)
    assert isinstance(answer, Answer) and isinstance(answer.counters, Counters)
    assert answer.count == 1 and is_solution(puzzle, answer.solution)
    assert answer.counters.nodes >= 1
    assert nb.solve(puzzle, limit=2).count == 1
    full = nb.solve(answer.solution, limit=2)
    assert full.count == 1 and full.solution == answer.solution and full.counters == (0, 1)


def test_clash_and_dead_end_count_zero():
    clash = [0] * 81
    clash[0] = clash[5] = 5  # two 5s in row 1
    # no clash, but r1c9 sees 1..8 in its row and 9 in its column: no digit left
    dead = [1, 2, 3, 4, 5, 6, 7, 8, 0] + [0] * 72
    dead[8 + 9 * 4] = 9
    for cells in (clash, dead):
        answer = nb.solve(Grid(3, cells), limit=2)
        assert answer == Answer(0, None, answer.counters)
    counts, solutions, _, _ = nb.solve_batch(np.array([clash, dead], np.uint8))
    assert counts.tolist() == [0, 0] and not solutions.any()


@pytest.mark.parametrize("first, second", [(0, 5), (2, 74), (30, 50), (40, 41), (80, 60)])
def test_two_equal_givens_in_a_unit_count_zero(first, second):
    """Every way two givens can clash (row, column across bands, box across rows and columns, in
    every band) is found while the givens are loaded all at once; the same cells with different
    digits are fine."""
    for digit, other, count in ((7, 7, 0), (7, 3, 2)):
        cells = [0] * 81
        cells[first], cells[second] = digit, other
        assert nb.solve_batch(np.array([cells], np.uint8), limit=2)[0].tolist() == [count]


def test_batch_shapes_and_bad_input():
    counts, solutions, guesses, nodes = nb.solve_batch(np.zeros((0, 81), np.uint8))
    assert counts.shape == (0,) and solutions.shape == (0, 81)
    counts, solutions, guesses, nodes = nb.solve_batch(np.zeros((2, 81), np.uint8), limit=3)
    assert counts.dtype == np.int32 and solutions.dtype == np.uint8 and guesses.dtype == np.int64
    assert counts.tolist() == [3, 3]
    with pytest.raises(ValueError):
        nb.solve_batch(np.zeros((1, 80), np.uint8))
    with pytest.raises(ValueError):
        nb.solve_batch(np.full((1, 81), 10, np.uint8))
    with pytest.raises(ValueError):
        nb.solve_batch(np.zeros((1, 81), np.uint8), limit=0)
    with pytest.raises(ValueError):
        nb.solve(Grid.empty(2))
    with pytest.raises(ValueError):
        nb.from_lines(["x" * 81])
    assert nb.to_lines(nb.from_lines(["." * 80 + "1"])) == ["." * 80 + "1"]



def test_count_to_two_by_a_swapped_rectangle():
    """Counting to 2 may stop at the first solution when two of its digits can be swapped on four
    blank cells (a rectangle in two boxes through a branch cell): the counts must equal a count to
    3 capped at 2 (which searches on), on unique puzzles (where every rectangle has a given), the
    same with 1-4 givens blanked, and serg_benchmark's, with the same first solutions."""
    unique = nb.generate_batch(nb.seeds_from(7, 300), blanks=50)
    rng = np.random.default_rng(7)
    loose = unique.copy()
    for row in loose:
        givens = np.flatnonzero(row)
        row[rng.choice(givens, size=rng.integers(1, 5), replace=False)] = 0
    path = DATA / "serg_benchmark.txt.gz"
    serg = [] if not path.exists() else [nb.from_lines(_sample("serg_benchmark", 500))]
    puzzles = np.concatenate([unique, loose] + serg)
    counts, solutions, guesses, _ = nb.solve_batch(puzzles, limit=2)
    searched, same, _, _ = nb.solve_batch(puzzles, limit=3)
    first, _, first_guesses, _ = nb.solve_batch(puzzles, limit=1)
    assert (counts == np.minimum(searched, 2)).all()
    assert (counts[:300] == 1).all() and (solutions == same).all()
    assert ((counts == 2) & (guesses == first_guesses)).sum() > 100  # the shortcut was taken

@st.composite
def _blanked_grids(draw):
    """A valid grid with random cells blanked, sometimes with one given changed (maybe a clash)."""
    grid = list(nb.fill(3, random.Random(draw(st.integers(0, 2**32)))).cells)
    for cell in draw(st.sets(st.integers(0, 80), min_size=20, max_size=75)):
        grid[cell] = 0
    if draw(st.booleans()):
        grid[draw(st.integers(0, 80))] = draw(st.integers(1, 9))
    return grid


@settings(max_examples=60, deadline=None)
@given(_blanked_grids())
def test_random_blanked_grids_agree_with_py(cells):
    _assert_agree(np.array([cells], np.uint8))


def test_fill_and_has_other():
    grid = nb.fill(3, random.Random(5))
    assert grid == nb.fill(3, random.Random(5))
    assert is_solution(Grid.empty(3), grid)
    rng = random.Random(1)
    for _ in range(30):
        puzzle = Grid(3, [v if rng.random() < 0.45 else 0 for v in grid.cells])
        cell = rng.choice([c for c, v in enumerate(puzzle.cells) if v])
        assert nb.has_other(puzzle, grid, cell) == py.has_other(puzzle, grid, cell)


def test_generated_puzzles_are_unique_and_reproducible():
    seeds = nb.seeds_from(2024, 40)
    puzzles, grids = nb.generate_batch(seeds, solutions=True)
    assert ((puzzles == 0).sum(axis=1) >= 40).all()
    for row, grid in zip(puzzles, grids):
        answer = py.solve(_grid(row), limit=2)
        assert answer.count == 1 and answer.solution == _grid(grid)
    assert (nb.generate_batch(seeds) == puzzles).all()
    assert (nb.generate_batch(seeds[5:9]) == puzzles[5:9]).all()  # each puzzle is its seed's alone
    assert not (nb.generate_batch(nb.seeds_from(2025, 40)) == puzzles).all()
    with pytest.raises(ValueError):
        nb.generate_batch(seeds, blanks=70)


def test_minimal_puzzles_are_minimal():
    puzzles = nb.generate_batch(nb.seeds_from(7, 3), blanks=50, minimal=True)
    for row in puzzles:
        assert (row == 0).sum() >= 50
        puzzle = _grid(row)
        assert py.solve(puzzle, limit=2).count == 1
        for cell in np.flatnonzero(row):
            assert py.solve(puzzle.with_cell(int(cell), 0), limit=2).count == 2


def test_importing_sudoku_does_not_import_numba():
    code = "import sys, sudoku, sudoku.engines, sudoku.engines.py; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_symmetric_generation_is_symmetric_unique_and_minimal():
    seeds = nb.seeds_from(11, 30)
    puzzles, grids = nb.generate_batch(seeds, minimal=True, symmetric=True, solutions=True)
    blank = puzzles == 0
    assert (blank == blank[:, ::-1]).all()
    assert (blank.sum(axis=1) >= 40).all()
    counts, solutions, _, _ = nb.solve_batch(puzzles, limit=2)
    assert (counts == 1).all() and (solutions == grids).all()
    for row in puzzles[:3]:  # minimal among symmetric puzzles: no pair of clues can go
        assert py.solve(_grid(row), limit=2).count == 1
        for cell in np.flatnonzero(row[:41]):
            trial = row.copy()
            trial[[cell, 80 - cell]] = 0
            assert py.solve(_grid(trial), limit=2).count == 2
    assert (nb.generate_batch(seeds, minimal=True, symmetric=True) == puzzles).all()
    assert not (nb.generate_batch(seeds, minimal=True) == puzzles).all()
    with pytest.raises(ValueError):
        nb.generate_batch(seeds, blanks=nb.MAX_BLANKS_SYMMETRIC + 1, symmetric=True)


def test_symmetric_create_through_the_engine_path():
    from sudoku.generate import create

    puzzle = create(3, seed=3, engine="nb", symmetric=True, blanks=50)
    blank = [v == 0 for v in puzzle.cells]
    assert blank == blank[::-1] and puzzle.blanks >= 50
    assert py.solve(puzzle, limit=2).count == 1


def test_vector_steps_match_their_scalar_meaning():
    """``_band_counts``, ``_band_counts3`` and ``_lone`` are LLVM vector code written by hand: on
    random planes they give what the masks mean, one band at a time, in plain Python."""
    from numba import njit

    from sudoku.engines import _nb_kernels as k

    @njit
    def both(states, counts, counts3, lones):
        for i in range(states.shape[0]):
            counts[i] = k._band_counts(states[i])
            counts3[i] = k._band_counts3(states[i])
            lones[i] = k._lone(states[i], 3 * (i % 9))

    rng = np.random.default_rng(45)
    states = rng.integers(0, 1 << 27, size=(300, k.WIDTH), dtype=np.int64)
    states[::3] |= rng.integers(0, 1 << 27, size=(100, k.WIDTH), dtype=np.int64)  # denser planes too
    states[1::5, k.PLACED:k.PLACED + 3] = 0
    counts = np.zeros((300, 6), np.int64)
    lones = np.zeros((300, 4), np.int64)
    counts3 = np.zeros((300, 9), np.int64)
    both(states, counts, counts3, lones)
    assert (counts3[:, :6] == counts).all()
    for i, s in enumerate(states.tolist()):
        for b in range(3):
            planes = [s[d * 3 + b] for d in range(9)]
            hits = [sum(x >> p & 1 for x in planes) for p in range(27)]
            assert counts[i, b] == sum(1 << p for p in range(27) if hits[p] >= 1)
            assert counts[i, 3 + b] == sum(1 << p for p in range(27) if hits[p] >= 2)
            assert counts3[i, 6 + b] == sum(1 << p for p in range(27) if hits[p] >= 3)
        first = 3 * (i % 9)
        planes = s[first:first + 3]
        columns = [[sum(planes[b] >> (9 * r + c) & 1 for r in range(3)) for c in range(9)] for b in range(3)]
        bad = any(planes[b] >> (9 * r) & 0x1FF == 0 for b in range(3) for r in range(3))
        bad |= any(all(columns[b][c] == 0 for b in range(3)) for c in range(9))
        assert (lones[i, 3] != 0) == bad
        for b in range(3):
            want = 0
            for r in range(3):
                row = planes[b] >> (9 * r) & 0x1FF
                if row and row & (row - 1) == 0:
                    want |= row << (9 * r)
            for c in range(9):
                if columns[b][c] == 1 and all(columns[e][c] == 0 for e in range(3) if e != b):
                    want |= planes[b] & sum(1 << (9 * r + c) for r in range(3))
            assert lones[i, b] == want & ~s[k.PLACED + b], (i, b)

"""The compiled checker ``band`` agrees with ``nb`` on the benchmark sets and with ``py`` on random
puzzles, and keeps the engine contract. (The known-puzzles file runs through it, as through every
registered engine, in tests/test_engines.py.)

``band`` is there to vouch for puzzles ``nb`` makes, so its tests compare it with engines whose code
it does not share: the benchmark sets with ``nb`` (counts to 2, unique solutions), random puzzles
with ``py`` (hypothesis), and its own batch and single entry points with each other.
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
from sudoku.engines import band, nb, py  # noqa: E402
from sudoku.grid import Grid, find_clash, is_solution  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
SETS = sorted(path.name.removesuffix(".txt.gz") for path in DATA.glob("*.txt.gz"))
QUICK_SAMPLE = 200  # puzzles per set in the quick tier, evenly spaced through the file


def _lines(name, size=None):
    with gzip.open(DATA / f"{name}.txt.gz", "rt") as handle:
        lines = handle.read().split()
    if size is None:
        return lines
    return lines[:: max(1, len(lines) // size)][:size]


def _hard(size):
    """Hard puzzles that ship with the repository (fuzz's unique_corpus family), as line strings: a
    clone without ../shared/data has these."""
    lines = [line.split(":")[0] for line in (REPO / "fuzz" / "data" / "hard.txt").read_text().splitlines()
             if line and not line.startswith("#")]
    return lines[:size]


def _easy(size):
    """Easy puzzles we make (singles solve them: no guess)."""
    from sudoku import create, render

    return [render(create(3, seed=seed, difficulty="easy"), "line").strip() for seed in range(size)]


def _grid(row):
    return Grid(3, [int(v) for v in row])


def _valid(puzzles, solutions):
    """Per row: a full grid, every row, column and box holding 1..9, every given kept."""
    grids = solutions.reshape(-1, 9, 9).astype(np.int64)
    boxes = grids.reshape(-1, 3, 3, 3, 3).transpose(0, 1, 3, 2, 4).reshape(-1, 9, 9)
    ok = ((puzzles == 0) | (puzzles == solutions)).all(axis=1)
    for units in (grids, grids.transpose(0, 2, 1), boxes):
        ok &= (np.bitwise_or.reduce(1 << units, axis=2) == 0b1111111110).all(axis=1)
    return ok


def _assert_agree_with_nb(puzzles):
    """band and nb count to 2 alike; band's solutions are valid; unique solutions are equal."""
    counts, solutions, guesses, nodes = band.solve_batch(puzzles, limit=2)
    nb_counts, nb_solutions, _, _ = nb.solve_batch(puzzles, limit=2)
    differ = np.flatnonzero(counts != nb_counts)
    assert differ.size == 0, f"counts differ: {nb.to_lines(puzzles[differ[:3]])}"
    solved = counts > 0
    assert _valid(puzzles[solved], solutions[solved]).all()
    assert not solutions[~solved].any()
    unique = counts == 1
    assert (solutions[unique] == nb_solutions[unique]).all()
    assert (nodes >= guesses + 1).all()
    return counts


def test_the_benchmark_sets_are_there():
    if not DATA.is_dir():  # a user's clone: the sets live beside the repository, for developers and CI
        pytest.skip(f"the benchmark sets are not here ({DATA}); CI and the developers' machines have them")
    assert {"hardest1106", "top1465", "kaggle", "serg_benchmark"} <= set(SETS), f"no data in {DATA}"


@pytest.mark.parametrize("name", SETS)
def test_agrees_with_nb_on_a_sample_of_each_benchmark_set(name):
    counts = _assert_agree_with_nb(nb.from_lines(_lines(name, QUICK_SAMPLE)))
    assert set(counts.tolist()) == ({2} if name == "serg_benchmark" else {1})


@pytest.mark.slow
@pytest.mark.parametrize("name", SETS)
def test_agrees_with_nb_on_every_puzzle_of_each_benchmark_set(name):
    puzzles = nb.from_lines(_lines(name))
    for start in range(0, len(puzzles), 5000):
        _assert_agree_with_nb(puzzles[start : start + 5000])


def test_agrees_with_nb_on_generated_minimal_puzzles():
    puzzles, grids = nb.generate_batch(nb.seeds_from(13, 300), minimal=True, solutions=True)
    assert (_assert_agree_with_nb(puzzles) == 1).all()
    assert (band.solve_batch(puzzles, limit=2)[1] == grids).all()


# --- the contract -----------------------------------------------------------------------------------


def test_solve_contract():
    puzzle = _grid(nb.from_lines(_hard(1))[0])
    answer = band.solve(puzzle, limit=2)
    assert isinstance(answer, Answer) and isinstance(answer.counters, Counters)
    assert answer.count == 1 and is_solution(puzzle, answer.solution)
    assert answer.counters.guesses > 0 and answer.counters.nodes == answer.counters.guesses + 1
    full = band.solve(answer.solution, limit=2)
    assert full == Answer(1, answer.solution, Counters(0, 1))
    assert band.solve(Grid.empty(3), limit=2).count == 2
    with pytest.raises(ValueError, match="9x9"):
        band.solve(Grid.empty(2))


def test_clashes_and_dead_ends_count_zero():
    clash = [0] * 81
    clash[0] = clash[5] = 5  # two 5s in row 1
    box_clash = [0] * 81
    box_clash[0] = box_clash[10] = 7  # two 7s in box 1, different rows and columns
    column_clash = [0] * 81
    column_clash[4] = column_clash[76] = 2  # two 2s in column 5, top and bottom band
    # no clash, but r1c9 sees 1..8 in its row and 9 in its column: no digit left
    dead = [1, 2, 3, 4, 5, 6, 7, 8, 0] + [0] * 72
    dead[8 + 9 * 4] = 9
    puzzles = np.array([clash, box_clash, column_clash, dead, [1] * 81], np.uint8)
    for limit in (1, 2, 50):
        counts, solutions, _, _ = band.solve_batch(puzzles, limit=limit)
        assert counts.tolist() == [0] * len(puzzles) and not solutions.any()
    for cells in puzzles:
        assert band.solve(Grid(3, cells.tolist()), limit=2).solution is None


def test_batch_shapes_types_and_bad_input():
    counts, solutions, guesses, nodes = band.solve_batch(np.zeros((0, 81), np.uint8))
    assert counts.shape == (0,) and solutions.shape == (0, 81)
    counts, solutions, guesses, nodes = band.solve_batch(np.zeros((3, 81), np.uint8), limit=5)
    assert (counts.dtype, solutions.dtype, guesses.dtype, nodes.dtype) == (np.int32, np.uint8, np.int64, np.int64)
    assert counts.tolist() == [5, 5, 5]
    assert band.solve_batch(np.zeros(81, np.uint8))[0].tolist() == [1]  # one puzzle as a flat row
    for bad in (np.zeros((1, 80), np.uint8), np.full((1, 81), 10, np.uint8), np.full((1, 81), -1)):
        with pytest.raises(ValueError):
            band.solve_batch(bad)
    for limit in (0, -1, 1.5):
        with pytest.raises(ValueError, match="limit"):
            band.solve_batch(np.zeros((1, 81), np.uint8), limit=limit)


def test_timed_batch_gives_each_puzzle_its_time():
    puzzles = nb.from_lines(_hard(20) + _easy(20))
    plain = band.solve_batch(puzzles, limit=2)
    counts, solutions, guesses, nodes, elapsed_ns = band.solve_batch(puzzles, limit=2, timed=True)
    for a, b in zip(plain, (counts, solutions, guesses, nodes)):
        assert (a == b).all()
    assert elapsed_ns.dtype == np.int64 and elapsed_ns.shape == (40,)
    assert (elapsed_ns > 0).all() and (elapsed_ns < 10**9).all()
    # a hard puzzle takes many guesses, an easy one none: the times must show it
    assert np.median(elapsed_ns[:20]) > 5 * np.median(elapsed_ns[20:])


def test_timed_batch_without_a_cycle_counter_times_each_puzzle_from_python(monkeypatch):
    monkeypatch.setattr(band, "_ns_per_tick", lambda: 0.0)
    puzzles = nb.from_lines(_hard(5))
    *answers, elapsed_ns = band.solve_batch(puzzles, limit=2, timed=True)
    for a, b in zip(band.solve_batch(puzzles, limit=2), answers):
        assert (a == b).all()
    assert elapsed_ns.dtype == np.int64 and (elapsed_ns > 0).all()


def test_band_shares_no_code_with_nb():
    """Importing band loads neither nb nor its kernels, so nb's bugs cannot reach band's counts."""
    code = "import sys, sudoku.engines.band as b; b.warm(); print(sorted(m for m in sys.modules if 'nb' in m))"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert "sudoku.engines.nb" not in out.stdout and "_nb_kernels" not in out.stdout
    for module in ("band.py", "_band_kernels.py"):
        source = (REPO / "sudoku" / "engines" / module).read_text()
        assert "import nb" not in source and "_nb_kernels" not in source.replace("``_nb_kernels``", "")


# --- random puzzles against py (hypothesis) ---------------------------------------------------------


@st.composite
def _puzzles(draw):
    """(cells, changed): a random full grid with random cells blanked (many blanks give several
    solutions), and sometimes one cell set to a random digit (a clash or a dead end, or neither)."""
    cells = list(py.fill(3, random.Random(draw(st.integers(0, 2**32)))).cells)
    for cell in draw(st.sets(st.integers(0, 80), min_size=0, max_size=81)):
        cells[cell] = 0
    changed = draw(st.booleans())
    if changed:
        cells[draw(st.integers(0, 80))] = draw(st.integers(1, 9))
    return cells, changed


@settings(max_examples=150, deadline=None)
@given(_puzzles())
def test_agrees_with_py_on_random_puzzles(drawn):
    cells, changed = drawn
    puzzle = Grid(3, cells)
    expected = py.solve(puzzle, limit=2)
    answer = band.solve(puzzle, limit=2)
    assert answer.count == expected.count
    if not changed:
        assert answer.count >= 1  # the grid the puzzle came from solves it
    if find_clash(puzzle):
        assert answer.count == 0
    if answer.count:
        assert is_solution(puzzle, answer.solution)
        assert all(g == s for g, s in zip(cells, answer.solution.cells) if g)
    else:
        assert answer.solution is None
    if answer.count == 1:
        assert answer.solution == expected.solution


@settings(max_examples=40, deadline=None)
@given(st.lists(_puzzles(), min_size=1, max_size=12), st.integers(1, 3))
def test_batch_answers_equal_single_answers(drawn, limit):
    rows = np.array([cells for cells, _ in drawn], np.uint8)
    counts, solutions, guesses, nodes = band.solve_batch(rows, limit=limit)
    for row, count, solution, guess, node in zip(rows, counts, solutions, guesses, nodes):
        single = band.solve(Grid(3, row.tolist()), limit=limit)
        assert single.count == count and single.counters == (guess, node)
        assert single.solution == (Grid(3, solution.tolist()) if count else None)

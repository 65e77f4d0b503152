"""The default route ``auto`` (``sudoku solve`` with no ``--engine``): which engine it hands a grid to,
by size and fill, and that 9x9 stays pure Python. Its answers against the known-puzzles file and the
contract's limits, clashes and counters run in test_engines.py with every engine's."""

import subprocess
import sys

import pytest

from helpers import REPO, random_puzzle
from sudoku import engines
from sudoku.engines import auto, py
from sudoku.grid import Grid, is_solution


def spy(monkeypatch):
    """The engine names ``auto`` hands a grid to, in order, recorded in the list returned."""
    calls = []
    real = auto.solve_with

    def recording(puzzle, *, engine, **options):
        calls.append(engine)
        return real(puzzle, engine=engine, **options)

    monkeypatch.setattr(auto, "solve_with", recording)
    return calls


def test_up_to_9x9_it_is_py(monkeypatch):
    calls = spy(monkeypatch)
    for box, seed in ((2, 1), (3, 2), (3, 3)):
        puzzle, _ = random_puzzle(box, seed, 0.7)
        assert auto.solve(puzzle, limit=2) == py.solve(puzzle, limit=2)  # counters included
    assert calls == ["py"] * 3


def test_a_9x9_solve_loads_no_compiled_engine_nor_sat():
    code = ("import sys\nfrom sudoku.engines import auto\nfrom sudoku.formats import parse_line\n"
            "auto.solve(parse_line('53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79'),"
            " limit=2)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'numpy', 'pysat', 'pysolvers')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_big_grids_between_near_empty_and_full_go_to_sat(monkeypatch):
    pytest.importorskip("sudoku.engines.sat", reason="python-sat is needed for the sat engine")
    calls = spy(monkeypatch)
    puzzle, full = random_puzzle(4, 3, 0.6)
    assert auto.suits_sat(puzzle)
    answer = auto.solve(puzzle, limit=2)
    assert calls == ["sat"]
    assert answer.count == py.solve(puzzle, limit=2).count and is_solution(puzzle, answer.solution)


def test_near_empty_big_grids_are_filled_by_a_match(monkeypatch):
    """At most ``side`` givens: the pattern match answers, no engine searches (a count it proves)."""
    pytest.importorskip("sudoku.engines.pattern", reason="python-sat is needed for pattern matching")
    calls = spy(monkeypatch)
    grid = Grid.empty(4).with_cell(0, 1)
    answer = auto.solve(grid, limit=3)
    assert calls == [] and answer.count == 3 and is_solution(grid, answer.solution)


def test_near_empty_big_grids_with_more_givens_get_py_first(monkeypatch):
    """Past ``SAT_MAX_BLANK`` blank with more than ``side`` givens: py's quick try first (it fills
    this one in milliseconds on a quiet machine; ``big`` follows only past QUICK_SECONDS), never sat."""
    calls = spy(monkeypatch)
    puzzle, _ = random_puzzle(4, 5, 0.88)
    assert not auto.suits_sat(puzzle) and puzzle.clues > puzzle.side
    answer = auto.solve(puzzle)
    assert calls[0] == "py" and set(calls) <= {"py", "big"}
    assert answer.count == 1 and is_solution(puzzle, answer.solution)


def test_a_limit_below_one_is_refused_before_any_engine(monkeypatch):
    calls = spy(monkeypatch)
    with pytest.raises(ValueError, match="limit"):
        auto.solve(Grid.empty(4), limit=0)
    assert calls == []

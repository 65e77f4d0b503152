"""The SAT engine ``sat`` (python-sat's CaDiCaL after py's propagation) against ``py``: the same
counts on random 4x4, 9x9 and 16x16 puzzles (several solutions and none included), the contract's
limits and clashes, budgets that stop it (a forked child killed at the deadline), and counting on
from a solution found elsewhere. (The known-puzzles file runs against it too, in test_engines.py.)"""

import random
import sys
import time

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from helpers import assert_agrees_with_py, random_puzzle
from sudoku import engines
from sudoku.budget import Budget, BudgetExceeded, in_child
from sudoku.engines import Counters, py
from sudoku.grid import Grid, geometry, is_solution

sat = pytest.importorskip("sudoku.engines.sat", reason="python-sat is needed for the sat engine")


def test_registry_entry():
    info = engines.info("sat")
    assert list(info.boxes) == list(range(2, 10))
    assert {"solve", "count", "budget"} <= info.capabilities
    assert "sat" in engines.bounded()


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.sampled_from([0.3, 0.5, 0.6, 0.7, 0.8, 0.95, 1.0]),
       st.sampled_from([1, 2, 3, 10]), st.booleans(), st.data())
def test_sat_and_py_agree(box, seed, ratio, limit, change, data):
    puzzle, _ = random_puzzle(box, seed, min(ratio, 0.6) if box == 4 else ratio)  # py counts a near-empty 16x16 slowly
    if change:  # one cell set to a random digit: often a clash or a dead end (count 0)
        side = box * box
        puzzle = puzzle.with_cell(data.draw(st.integers(0, side * side - 1)), data.draw(st.integers(1, side)))
    assume(assert_agrees_with_py(sat, puzzle, limit, nodes=200_000))  # a rare 16x16 takes minutes: skipped


def test_counting_by_blocking_clauses_is_exact(monkeypatch):
    """Every 4x4 grid: 288; a 9x9 grid with two rows' worth of digits open has a known count."""
    assert sat.solve(Grid.empty(2), limit=10_000).count == 288
    assert sat.solve(Grid.empty(2), limit=10_000, budget=Budget(seconds=60)).count == 288  # through the child
    full = py.fill(3, __import__("random").Random(4))
    for nodes in (sat.PY_NODES, 0):  # py's search on these few open cells, then the solver alone
        monkeypatch.setattr(sat, "PY_NODES", nodes)
        for cells in ([0, 1], [0, 1, 9, 10]):  # a deadly pattern can leave 2 solutions; counts must match py
            puzzle = Grid(3, [0 if i in cells else v for i, v in enumerate(full.cells)])
            assert sat.solve(puzzle, limit=5).count == py.solve(puzzle, limit=5).count


def _modules_after(code):
    """The python-sat modules (``pysat.*`` and its C module ``pysolvers``) loaded once ``code`` ran
    in a fresh interpreter."""
    import subprocess

    from helpers import REPO

    code += "\nimport sys\nprint(sorted(m for m in sys.modules if m.split('.')[0] in ('pysat', 'pysolvers')))\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_few_open_cells_are_left_to_py_and_many_to_cadical_alone():
    """At most ``side`` open cells after propagation: py's search answers (its counters, no solver
    loaded); more: CaDiCaL through python-sat's C module, without importing ``pysat.solvers``."""
    setup = ("import random\nfrom sudoku.engines import sat, py\nfrom sudoku.grid import Grid\n"
             "full = py.fill(3, random.Random(4))\n")
    few = setup + ("puzzle = Grid(3, [0 if i in (0, 1, 9, 10) else v for i, v in enumerate(full.cells)])\n"
                   "answer = sat.solve(puzzle, limit=5)\n"
                   "assert answer.count == py.solve(puzzle, limit=5).count and answer.counters.nodes >= 1\n")
    assert _modules_after(few) == "[]"
    many = setup + "assert sat.solve(Grid.empty(3), limit=3).count == 3\n"
    assert _modules_after(many) == "['pysolvers']"


@pytest.mark.parametrize("name", ["cadical195", "glucose4"])
def test_loader_gives_the_solver_every_clause(name):
    """``loader`` into python-sat's Solver (CaDiCaL's C entry point, or append_formula for another
    solver) and into the engine's own ``_Cadical``: the same models, and a clause more that the
    formula cannot meet makes it unsatisfiable (so no clause was dropped)."""
    from pysat.solvers import Solver

    puzzle, _ = random_puzzle(3, 5, 0.6)
    geo = geometry(3)
    cands, queue = py.candidates(puzzle)
    assert py.settle(cands, queue, geo)
    clauses, _, meaning = sat.encode(cands, geo)
    streamed = []
    assert sat.encode(cands, geo, sink=streamed.extend)[1:] == sat.encode(cands, geo)[1:]
    assert [list(c) for c in streamed] == [list(c) for c in clauses]
    for solver in (Solver(name=name), sat._Cadical()):
        with solver:
            sat.loader(solver)(clauses)
            assert solver.solve()
            model = [lit for lit in solver.get_model() if 0 < lit < len(meaning)]
            cells = cands[:]
            for lit in model:
                cell, bit = meaning[lit]
                cells[cell] = bit
            assert is_solution(puzzle, py._to_grid(3, cells))
            solver.add_clause([-lit for lit in model])  # another solution, or none
            again = solver.solve()
            assert again == (py.solve(puzzle, limit=2).count == 2)


def test_another_solver_counts_as_py(monkeypatch):
    monkeypatch.setattr(sat, "PY_NODES", 0)
    for seed in range(3):
        puzzle, _ = random_puzzle(3, seed, 0.7)
        assert sat.solve(puzzle, limit=2, solver="glucose4").count == py.solve(puzzle, limit=2).count


def test_the_encoding_holds_only_open_cells_candidates():
    puzzle, _ = random_puzzle(3, 7, 0.7)
    geo = geometry(3)
    cands, queue = py.candidates(puzzle)
    assert py.settle(cands, queue, geo)
    clauses, top, meaning = sat.encode(cands, geo)
    literals = sum(mask.bit_count() for mask in cands if mask & (mask - 1))
    assert len(meaning) - 1 == literals <= top
    assert all(cands[cell] & (cands[cell] - 1) and cands[cell] & bit for cell, bit in meaning[1:])


def test_limits_clashes_and_filled_grids():
    empty = Grid.empty(3)
    for limit in (0, -1):
        with pytest.raises(ValueError, match="limit"):
            sat.solve(empty, limit=limit)
    clash = Grid(3, [5, 5] + [0] * 79)
    assert sat.solve(clash, limit=2) == (0, None, Counters(0, 1))
    full = py.fill(4, __import__("random").Random(2))
    assert sat.solve(full.with_cell(0, 0), limit=2) == (1, full, Counters(0, 1))  # singles fill it: no solver


def test_a_grid_that_singles_fill_never_loads_the_solver():
    code = ("import random\nfrom sudoku.engines import sat, py\n"
            "full = py.fill(4, random.Random(1))\n"
            "assert sat.solve(full.with_cell(3, 0), limit=2).count == 1\n")
    assert _modules_after(code) == "[]"


def test_a_node_budget_caps_conflicts():
    """An empty 25x25 grid counted to a million needs many conflicts: a cap of 5 stops it."""
    with pytest.raises(BudgetExceeded, match="node budget of 5 reached"):
        sat.solve(Grid.empty(3), limit=10**6, budget=Budget(nodes=5))


def test_a_time_budget_kills_the_child_at_the_deadline():
    with pytest.raises(BudgetExceeded, match="time limit of 0.5 s reached") as caught:
        sat.solve(Grid.empty(3), limit=10**9, budget=Budget(seconds=0.5))
    assert caught.value.seconds < 10  # generous: the parent waits on the pipe with the deadline


def test_the_child_runner_answers_or_is_killed():
    assert in_child(lambda: ("answer", [1, 2]), 30) == ("answer", [1, 2])
    start = time.perf_counter()
    assert in_child(lambda: time.sleep(30), 0.2) is None
    assert time.perf_counter() - start < 10


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 6), st.floats(0.4, 0.75))
def test_counting_from_a_known_solution_counts_as_from_scratch(seed, limit, blank):
    """sat's count from a solution found elsewhere (``known``: blocked, phases from it) is py's count."""
    puzzle, full = random_puzzle(3, seed, blank)
    expected = py.solve(puzzle, limit=limit)
    answer = sat.solve(puzzle, limit=limit, known=full)
    assert answer.count == expected.count
    assert is_solution(puzzle, answer.solution)
    if expected.count == 1 < limit:  # unique: the known solution is the one
        assert answer.solution == full


def test_a_known_solution_that_is_none_is_refused():
    puzzle, full = random_puzzle(3, 4, 0.5)
    wrong = full.with_cell(next(i for i, v in enumerate(puzzle.cells) if v), 0)
    other = py.fill(3, random.Random(99))  # complete and valid, but not keeping the givens
    for known in (wrong, other):
        with pytest.raises(ValueError, match="known is not a solution"):
            sat.solve(puzzle, limit=2, known=known)


@pytest.mark.slow
def test_the_cli_bounds_a_hard_36x36_grid_with_timeout():
    """A random 36x36 grid with half its cells blank sits at the phase transition: the SAT child is
    killed at the limit, one line, exit 124."""
    from helpers import run_cli

    from sudoku.formats import render

    puzzle, _ = random_puzzle(6, 11, 0.5)
    done = run_cli("solve", "--engine", "sat", "--timeout", "1", input=render(puzzle, "grid"), timeout=120)
    assert done.returncode == 124 and done.stdout == ""
    assert done.stderr == "sudoku: time limit of 1 s reached (solving the 36x36 puzzle)\n"


def test_a_python_sat_without_the_c_entry_points_falls_back_to_its_public_solver(monkeypatch):
    """``_Cadical`` uses python-sat's C module, which is no public API: if a release renames an entry
    point, the engine (and the pattern match) go on through ``pysat.solvers.Solver``."""
    import types

    import pysat.solvers  # noqa: F401  (it keeps the real C module it imported)

    monkeypatch.setitem(sys.modules, "pysolvers", types.ModuleType("pysolvers"))  # entry points renamed
    solver = sat.new_solver()
    assert type(solver).__module__ == "pysat.solvers"
    solver.delete()
    puzzle, full = random_puzzle(4, 11, 0.6)
    assert_agrees_with_py(sat, puzzle, 2)
    from sudoku.engines import pattern

    cells = [0] * 256
    cells[3], cells[200] = 4, 9
    found = pattern.match(Grid(4, cells))
    assert found is not None and is_solution(Grid(4, cells), found.solution)

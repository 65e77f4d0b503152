"""The compiled big-grid engine ``big`` (box 4..9) against ``py``: the same counts on random 16x16
puzzles, the contract's limits and clashes at 16x16, budgets that stop it, and grids up to 81x81.
(The known-puzzles file runs against it too, in test_engines.py.)"""

import random
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from helpers import assert_agrees_with_py, random_puzzle
from sudoku import engines
from sudoku.budget import Budget, BudgetExceeded
from sudoku.engines import Counters, py
from sudoku.grid import Grid, find_clash, is_solution

big = pytest.importorskip("sudoku.engines.big", reason="numba is needed for the big engine")


NODES = 200_000  # about 1 random 16x16 puzzle in a few hundred takes a search minutes: skipped, not waited for


def test_registry_entry():
    info = engines.info("big")
    assert list(info.boxes) == [4, 5, 6, 7, 8, 9]
    assert {"solve", "count", "budget", "fill", "other", "generate", "graded"} <= info.capabilities
    assert "big" in engines.bounded()
    assert [engines.default_for(box) for box in range(2, 10)] == ["py", "py"] + ["big"] * 6


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([0.3, 0.5, 0.6, 0.7, 0.9, 1.0]), st.sampled_from([1, 2, 3, 10]),
       st.booleans())
def test_big_and_py_agree_at_16x16(seed, ratio, limit, change):
    puzzle, _ = random_puzzle(4, seed, ratio)
    if change:
        rng = random.Random(seed)
        puzzle = puzzle.with_cell(rng.randrange(256), rng.randint(1, 16))
    assume(assert_agrees_with_py(big, puzzle, limit, nodes=NODES))


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
    """A valid full grid: the pattern grid (``pattern.pattern_value``) with its digits shuffled."""
    from sudoku.engines.pattern import pattern_value

    side = box * box
    digits = random.Random(seed).sample(range(1, side + 1), side)
    return Grid(box, [digits[pattern_value(box, r, c)] for r in range(side) for c in range(side)])


@pytest.mark.parametrize("box", [6, 7, 8, 9])
def test_big_boxes_from_a_full_grid(box):
    full = _pattern_grid(box, box)
    assert find_clash(full) is None
    puzzle = Grid(box, [0 if i % 11 == 0 else v for i, v in enumerate(full.cells)])
    answer = big.solve(puzzle, limit=2)
    assert answer.count == 1 and answer.solution == full


@pytest.mark.parametrize("randomize", [False, True])
def test_a_search_paused_every_few_nodes_is_the_search_run_at_once(randomize):
    """The kernel pauses after ``max_nodes`` and resumes from its arrays (the wrapper charges the
    budget in between), and grows its stack when full: neither may change the search."""
    puzzle, _ = random_puzzle(4, 0, 0.7)  # 711 nodes to count 300 solutions, 128 states deep
    tables = big._tables(4)
    root = big._root(puzzle, tables)
    searches = []
    for step in (None, 7):
        big._k.seed_random(1)
        search = big._Search(root, tables, randomize)
        stop, pauses = 0, 0
        while not search.advance(300, 10**9 if step is None else stop):
            assert search.nodes == stop  # paused exactly at the cap
            stop += step
            pauses += 1
        searches.append((search, pauses))
    (whole, none), (sliced, many) = searches
    assert none == 0 and many > 50 and whole.stack.shape[0] > 16
    assert whole.meta.tolist() == sliced.meta.tolist() and whole.meta[big._k.COUNT] == 300
    assert (whole.solution == sliced.solution).all()


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


# --- creation in compiled code ---------------------------------------------------------------------------


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**63 - 1), st.sampled_from([None, 130, 150]))
def test_generate_makes_unique_singles_puzzles_named_by_their_seed(seed, blanks):
    puzzle = big.generate(4, seed=seed, blanks=blanks)
    assert puzzle.blanks >= max(blanks or 0, 128)
    assert py.solve(puzzle, limit=2).count == 1
    assert py.rate(puzzle) in ("naked", "hidden")  # as sudoku.create: singles fill it, no guess
    assert big.generate(4, seed=seed, blanks=blanks) == puzzle
    if blanks is None:
        assert puzzle.blanks == 128  # removal stops once the blanks wanted are reached


@pytest.mark.parametrize("difficulty", ["easy", "medium"])
def test_generate_by_difficulty_and_minimal(difficulty):
    puzzle = big.generate(4, seed=11, difficulty=difficulty)
    assert py.rate(puzzle) == {"easy": "naked", "medium": "hidden"}[difficulty]
    assert py.solve(puzzle, limit=2).count == 1
    minimal = big.generate(4, seed=11, minimal=True)
    assert minimal.blanks > 128
    for cell, value in enumerate(minimal.cells):  # no clue left can go with singles still filling it
        if value:
            assert py.rate(minimal.with_cell(cell, 0)) == "guess"


@pytest.mark.slow  # a few seconds: minimal under a uniqueness search
def test_generate_hard_needs_a_guess_and_is_unique():
    puzzle = big.generate(4, seed=1, difficulty="hard")
    assert py.rate(puzzle) == "guess" and py.solve(puzzle, limit=2).count == 1


def test_generate_refuses_what_it_cannot_make():
    with pytest.raises(ValueError, match="256 blanks is not possible"):
        big.generate(4, seed=1, blanks=256)
    with pytest.raises(ValueError, match="16x16 to 81x81 grids, not 9x9"):
        big.generate(3, seed=1)
    with pytest.raises(ValueError, match="no puzzle with at least 250 blanks found in 2 attempts"):
        big.generate(4, seed=1, blanks=250, attempts=2)
    with pytest.raises(BudgetExceeded, match="node budget of 3 reached"):
        big.generate(5, seed=1, budget=Budget(nodes=3))


def test_fill_is_a_random_valid_grid_drawn_from_the_rng():
    grids = [big.fill(5, random.Random(seed)) for seed in (1, 1, 2)]
    assert all(grid.blanks == 0 and find_clash(grid) is None for grid in grids)
    assert grids[0] == grids[1] != grids[2]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([0.3, 0.5, 0.6, 0.7]))
def test_has_other_agrees_with_py(seed, ratio):
    """About 1 random 16x16 grid in 150 at 60-70 % blank takes either search minutes (seen: both past
    10 s); such an example is skipped, not waited for: what is checked is that answers agree."""
    puzzle, full = random_puzzle(4, seed, ratio)
    cell = random.Random(seed).randrange(256)
    puzzle = puzzle.with_cell(cell, 0)
    try:
        answers = [engine.has_other(puzzle, full, cell, budget=Budget(seconds=5)) for engine in (big, py)]
    except BudgetExceeded:
        assume(False)
    assert answers[0] == answers[1]


def test_sudoku_create_uses_it_through_the_library():
    import sudoku

    assert sudoku.create(4, seed=5) == big.generate(4, seed=5)  # the default engine from 16x16 up
    assert sudoku.create(4, seed=5, engine="py") != sudoku.create(4, seed=5)
    assert py.rate(sudoku.create(4, seed=5, difficulty="easy")) == "naked"


# --- the CLI's engine per size ---------------------------------------------------------------------------


def _imports(*args, input=""):
    """The modules ``python -X importtime -m sudoku ARGS`` imported, and its CompletedProcess."""
    import os
    import subprocess
    import sys

    from helpers import REPO

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "sudoku", *args], input=input.encode(),
                          capture_output=True, cwd=REPO, env=env, timeout=120)
    modules = {line.split("|")[-1].strip() for line in done.stderr.decode().splitlines() if "|" in line}
    return modules, done


def _needs_search():
    """A 25x25 grid, half blank at random: py needs over a second on it (past its quick try), big a
    tenth of that."""
    full = _pattern_grid(5, 0)
    rng = random.Random(0)
    return Grid(5, [0 if rng.random() < 0.5 else value for value in full.cells])


def test_the_cli_picks_big_or_sat_from_16x16_up_and_never_loads_numba_at_9x9():
    from helpers import PUZZLE

    from sudoku.formats import render

    modules, done = _imports("solve", input=PUZZLE)
    assert done.returncode == 0 and "numba" not in modules and "sudoku.engines.big" not in modules
    modules, done = _imports("create", "--seed", "2", "--format", "line")
    assert done.returncode == 0 and "numba" not in modules
    sixteen = render(big.generate(4, seed=3), "grid")
    modules, done = _imports("solve", input=sixteen)  # propagation solves it: py's quick try, no numba
    assert done.returncode == 0 and "numba" not in modules
    assert done.stdout.decode() == render(py.solve(big.generate(4, seed=3)).solution, "grid")
    modules, done = _imports("solve", input=render(_needs_search(), "grid"))  # past py's quick try: sat
    assert done.returncode == 0 and "pysolvers" in modules and "numba" not in modules  # sat: python-sat's C module
    from helpers import TESTS

    near_empty = (TESTS / "data" / "multiple_25x25.txt").read_text()  # 14 givens: the pattern match, no search
    modules, done = _imports("solve", input=near_empty)
    assert done.returncode == 0 and "sudoku.engines.pattern" in modules and "numba" not in modules
    modules, done = _imports("solve", "--engine", "py", input=sixteen)  # --engine still overrides
    assert done.returncode == 0 and "numba" not in modules
    assert done.stdout.decode() == render(py.solve(big.generate(4, seed=3)).solution, "grid")


def test_sudoku_create_from_16x16_up_is_big_generate():
    from helpers import run_cli

    from sudoku.formats import render

    made = run_cli("create", "--size", "16", "--seed", "9", "--format", "line")
    assert made.returncode == 0 and made.stdout == render(big.generate(4, seed=9), "line")
    wrong = run_cli("create", "--size", "16", "--engine", "nb")
    assert wrong.returncode == 2 and wrong.stderr == "sudoku: engine 'nb' does not make 16x16 grids\n"


def test_the_default_cli_bounds_big_grids_with_timeout():
    from helpers import run_cli

    # half blank, from a grid outside the pattern family (the default solve matches pattern grids at once)
    hard = (Path(__file__).parent / "data" / "phase_transition_49x49.txt").read_text()
    done = run_cli("solve", "--timeout", "0.5", input=hard, timeout=60)
    assert (done.returncode, done.stdout) == (124, "")
    assert done.stderr == "sudoku: time limit of 0.5 s reached (solving the 49x49 puzzle)\n"


@pytest.mark.slow  # a 16x16 jobs run through a subprocess
def test_jobs_run_at_16x16_defaults_to_big(tmp_path):
    from _jobs_support import manifest, run_jobs

    out = tmp_path / "run"
    done = run_jobs("run", "-n", 3, "--size", 16, "--seed", 1, "--workers", 1, "--out", out)
    assert done.returncode == 0, done.stderr
    config = manifest(out)["config"]
    assert (config["engine"], config["check_engine"]) == ("big", "py")


def test_counting_a_big_grid_that_stalls_one_engine_ends_by_the_other():
    """Found by `fuzz run --size 25 --target cli`: a near-empty 25x25 grid with several solutions that
    big's complete search (counting cannot restart) did not count in minutes, and py counts in under a
    second. The default solve takes turns between the two, so it ends (exit 0, well within the limit)."""
    from helpers import TESTS, run_cli

    from sudoku import engines
    from sudoku.formats import parse

    text = (TESTS / "data" / "multiple_25x25.txt").read_text()
    puzzle = next(parse(text.splitlines()))
    assert engines.solve(puzzle, limit=2, engine="auto").count == 2
    done = run_cli("solve", "--timeout", "100", input=text, timeout=200)
    assert done.returncode == 0 and done.stderr == "sudoku: several solutions; printing one\n", done.stderr
    assert engines.solve(puzzle, limit=1, engine="auto").count == 1

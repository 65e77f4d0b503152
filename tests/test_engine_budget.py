"""Budgets and restarts: every bounded search ends with an answer or BudgetExceeded, and the
restarting search of big grids keeps counts exact (solutions from cut-off runs counted once each)."""

import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import sudoku
from helpers import random_puzzle, read_known
from sudoku import engines
from sudoku.budget import Budget, BudgetExceeded
from sudoku.engines import dlx, py
from sudoku.grid import Grid, is_solution

HARD_9 = next(case.puzzle for case in read_known() if case.puzzle.box == 3 and case.count == 1 and case.puzzle.clues == 17)


def test_budget_refuses_nonsense():
    for kwargs in ({"nodes": 0}, {"nodes": -3}, {"seconds": 0}, {"seconds": -1.0}, {"seconds": float("nan")}):
        with pytest.raises(ValueError, match="budget"):
            Budget(**kwargs)


def test_the_names_are_exported():
    assert sudoku.Budget is Budget and sudoku.BudgetExceeded is BudgetExceeded
    assert issubclass(BudgetExceeded, RuntimeError)


@pytest.mark.parametrize("engine", [py, dlx])
def test_a_node_budget_stops_a_search_with_our_error(engine):
    nodes = engine.solve(HARD_9, limit=2).counters.nodes
    assert nodes > 10
    with pytest.raises(BudgetExceeded, match="node budget of 5 reached") as caught:
        engine.solve(HARD_9, limit=2, budget=Budget(nodes=5))
    assert caught.value.nodes == 6 and caught.value.seconds >= 0
    # a budget that is enough changes nothing
    assert engine.solve(HARD_9, limit=2, budget=Budget(nodes=nodes + 1)) == engine.solve(HARD_9, limit=2)


def test_a_time_budget_stops_an_empty_81x81_fill():
    """The issue's case: an 81x81 grid with no givens gave no answer within minutes."""
    budget = Budget(seconds=0.3)
    with pytest.raises(BudgetExceeded, match=r"time limit of 0.3 s reached") as caught:
        py.solve(Grid.empty(9), budget=budget)
    assert caught.value.seconds >= 0.3
    assert caught.value.nodes == budget.spent >= 1


def test_one_budget_is_shared_by_several_calls():
    nodes = py.solve(HARD_9, limit=2).counters.nodes
    budget = Budget(nodes=2 * nodes + nodes // 2)
    for spent in (nodes, 2 * nodes):
        py.solve(HARD_9, limit=2, budget=budget)
        assert budget.spent == spent
    with pytest.raises(BudgetExceeded):
        py.solve(HARD_9, limit=2, budget=budget)


def test_the_registry_refuses_a_budget_for_an_engine_that_cannot_honour_it():
    assert set(engines.bounded()) >= {"py", "dlx"}
    for name in engines.names():
        if name not in engines.bounded() and engines.supports(name, 3):
            with pytest.raises(ValueError, match="cannot be bounded"):
                engines.solve(HARD_9, engine=name, budget=Budget(seconds=5))
    assert engines.solve(HARD_9, engine="py", budget=Budget(seconds=60)).count == 1


def test_create_honours_a_budget():
    with pytest.raises(BudgetExceeded):
        sudoku.create(5, seed=1, budget=Budget(nodes=50))
    budget = Budget(seconds=60)
    assert sudoku.create(4, seed=1, budget=budget) == sudoku.create(4, seed=1)
    assert budget.spent > 0
    with pytest.raises(ValueError, match="cannot be bounded"):
        sudoku.create(3, seed=1, engine="nb", budget=Budget(seconds=5))


# --- restarts keep counts exact ---------------------------------------------------------------------


@pytest.fixture
def tiny_runs(monkeypatch):
    """Runs of one node per side (16 at 16x16), so nearly every search restarts many times."""
    monkeypatch.setattr(py, "FIRST_RUN_NODES", 1)


PLAIN_NODES = 20_000  # a puzzle plain search cannot finish in this many nodes says nothing about restarts


def _plain(puzzle, limit):
    """The search without restarts, the reference for counts: -1 past PLAIN_NODES (some random
    16x16 puzzles with a changed cell are dead ends that depth-first search takes minutes to see)."""
    cands, queue = py.candidates(puzzle)
    count, _ = py.search(cands, queue, py.geometry(puzzle.box), limit, py._Stats(), max_nodes=PLAIN_NODES)
    return count


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([0.55, 0.65, 0.75, 0.9]), st.sampled_from([1, 2, 3, 7]),
       st.booleans())
def test_restarted_counts_equal_plain_counts_at_16x16(seed, ratio, limit, change):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(py, "FIRST_RUN_NODES", 1)
        puzzle, _ = random_puzzle(4, seed, ratio)
        if change:  # may make a dead end: a count of 0 must survive restarts too
            rng = random.Random(seed)
            puzzle = puzzle.with_cell(rng.randrange(256), rng.randint(1, 16))
        expected = _plain(puzzle, limit)
        assume(expected != -1)
        answer = py.solve(puzzle, limit=limit)
        assert answer.count == expected
        if answer.count:
            assert is_solution(puzzle, answer.solution)
        else:
            assert answer.solution is None


def test_restarts_happen_and_are_repeatable(tiny_runs):
    puzzle, _ = random_puzzle(4, 3, 0.75)
    answer = py.solve(puzzle, limit=2)
    assert answer.count == 2 == _plain(puzzle, 2)
    assert answer.counters.nodes > 16  # more than one run
    assert py.solve(puzzle, limit=2) == answer  # the random order is seeded by the puzzle


def test_restarts_agree_with_dlx_on_a_unique_16x16_puzzle(tiny_runs):
    puzzle = sudoku.create(4, seed=5)
    assert py.solve(puzzle, limit=2).count == 1 == dlx.solve(puzzle, limit=2).count
    assert py.solve(puzzle).solution == dlx.solve(puzzle).solution


# --- within: work that cannot be stopped mid-step, bounded by a budget ----------------------------


def test_within_runs_here_with_the_budget_itself_without_a_deadline():
    import os

    from sudoku.budget import within

    assert within(None, lambda b: (b, os.getpid())) == (None, os.getpid())
    nodes = Budget(nodes=10)
    assert within(nodes, lambda b: b) is nodes


def test_within_a_deadline_runs_in_a_child_and_charges_what_it_spent():
    import os

    from sudoku.budget import within

    budget = Budget(nodes=100, seconds=30)

    def work(inner):
        inner.charge(7)
        return os.getpid(), inner.nodes

    pid, nodes_left = within(budget, work)
    assert pid != os.getpid() and nodes_left == 100
    assert budget.spent == 7


def test_within_passes_the_childs_node_cap_on_to_the_caller():
    from sudoku.budget import within

    budget = Budget(nodes=5, seconds=30)
    budget.charge(3)
    with pytest.raises(BudgetExceeded, match="node budget of 5 reached"):
        within(budget, lambda inner: inner.charge(4))
    assert budget.spent > 5


def test_within_kills_the_child_at_the_deadline():
    import time

    from sudoku.budget import within

    start = time.perf_counter()
    with pytest.raises(BudgetExceeded, match="time limit of 0.3 s reached"):
        within(Budget(seconds=0.3), lambda inner: time.sleep(30))
    assert time.perf_counter() - start < 10


def test_a_parent_stopped_past_its_deadline_reads_a_time_limit_not_a_bug(monkeypatch):
    """`sudoku solve --timeout 5`, stopped (Ctrl-Z) at 2 s and continued at 16 s, found its child ended by
    its own alarm and no answer in the pipe: a time limit (exit 124), not an internal error (R19)."""
    import select
    import time

    from sudoku.budget import _child_deadline, in_child

    real = select.select

    def stopped(r, w, x, timeout):
        time.sleep(_child_deadline(0.3) + 0.5)  # the parent sleeps through the child's alarm
        return real(r, w, x, 5)

    monkeypatch.setattr(select, "select", stopped)
    assert in_child(lambda: time.sleep(30), 0.3) is None

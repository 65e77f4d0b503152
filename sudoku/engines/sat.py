"""The SAT engine: propagate in Python, then hand what is left to CaDiCaL (python-sat).

Why: on big random grids between ~40 and ~75 % blank, depth-first search without learning thrashes
(``big`` took 4.6 s on a 36x36 45 % grid and gave no answer in 10 s at 60 %), while a CDCL solver
learns a clause from each dead end and solves them in a fraction of that (issue 17). The library
is used as it is; only the encoding is ours:

- ``settle`` from ``py`` first (naked and hidden singles, locked candidates from 16x16 up): a grid
  that propagation fills never loads the SAT library.
- Variables only for the candidates left in open cells; clauses: each open cell at least one and at
  most one of its digits; each unit, each digit not yet placed there, at least one and at most one
  of its open cells. At-most-one is pairwise up to ``PAIRWISE_UP_TO`` literals and a sequential
  counter (pysat's ``CardEnc``) above: pairwise on a 49-literal unit is 1,176 clauses against 144.
- Counting to ``limit``: after each solution a blocking clause (not all of its open-cell variables
  at once) and solve again; the count is exact, as every solution differs in some open cell.
- Budget: CaDiCaL in python-sat cannot be interrupted (``interrupt`` and
  ``solve_limited(expect_interrupt=True)`` raise NotImplementedError) and holds the GIL while it
  solves, so no timer thread can stop it. A time cap therefore runs the solve in a forked child
  that is killed at the deadline (where ``os.fork`` exists; elsewhere the solve is not bounded in
  time). A node cap is a conflict budget (``conf_budget``). Measured and dropped: slices of
  conflicts with the clock checked between them (each ``solve_limited`` call restarts CaDiCaL's
  search: 36x36 at 60 % blank went from 4 s to over 60 s with ~50 ms slices, 11 s with doubling
  ones).

Measured to choose (one process per run, seconds with propagation and encoding, cap 20 s, the
``bench/bigset.py`` instances, 2026-11-24 on the shared 2-core VM at load ~7; one run each, and
CDCL times scatter, so only the large gaps count):

| instance | pairwise <= 6, seqcounter | pairwise (all) | pairwise <= 6, ladder | pairwise <= 12, seqcounter |
|---|---:|---:|---:|---:|
| 36x36 60 % | 10.27 | 5.21 | 8.10 | 5.47 |
| 36x36 70 % | 1.77 | 2.10 | 4.76 | 8.53 |
| 49x49 60 % | >20 | 3.24 | >20 | >20 |
| 49x49 70 % | >20 | 5.99 | 6.23 | >20 |

Pairwise needs more clauses (405,204 against 155,811 at 36x36 70 %; encoding 0.8 s against 0.7 s)
but CaDiCaL needs far fewer decisions with it; above 49 literals (near-empty 64x64 and up) it
would be millions of clauses, so a sequential counter there. Solvers on 36x36 60 %: glucose4 30 s,
CaDiCaL 1.9.5 4-5 s (so CaDiCaL). On an empty 25x25 grid a sequential counter above 10 literals
wins (0.9 s against 2.3 s): near-empty grids are left to search by the default solve.

Counters: ``guesses`` are the solver's decisions, ``nodes`` one more (a propagation after each, and
the first); a node budget caps the solver's conflicts.
"""

import os
from itertools import combinations

from sudoku.budget import in_child
from sudoku.engines import Answer, Counters
from sudoku.engines import py as _py
from sudoku.grid import geometry

BOXES = range(2, 10)
SOLVER = "cadical195"
PAIRWISE_UP_TO = 49  # at-most-one over more literals (64x64 up): a sequential counter (measured, see bench/README.md)
AMO = "seqcounter"


def encode(cands, geo, *, pairwise_up_to=PAIRWISE_UP_TO, amo=AMO):
    """CNF for the open cells of the settled state ``cands``: (clauses, top variable, var -> (cell, bit))."""
    from pysat.card import CardEnc, EncType

    encoding = getattr(EncType, amo)
    var = {}
    meaning = [None]
    for cell, mask in enumerate(cands):
        if mask & (mask - 1):
            for bit in _py._bits(mask):
                var[cell, bit] = len(meaning)
                meaning.append((cell, bit))
    top = len(meaning) - 1
    clauses = []

    def exactly_one(lits):
        nonlocal top
        clauses.append(lits)
        if len(lits) <= pairwise_up_to:
            clauses.extend([-a, -b] for a, b in combinations(lits, 2))
        else:
            card = CardEnc.atmost(lits, 1, top_id=top, encoding=encoding)
            clauses.extend(card.clauses)
            top = max(top, card.nv)

    for cell, mask in enumerate(cands):
        if mask & (mask - 1):
            exactly_one([var[cell, bit] for bit in _py._bits(mask)])
    for unit in geo.units:
        placed = 0
        for cell in unit:
            mask = cands[cell]
            if not mask & (mask - 1):
                placed |= mask
        for bit in _py._bits(geo.full & ~placed):
            exactly_one([var[cell, bit] for cell in unit if (cell, bit) in var])
    return clauses, top, meaning


def solve(puzzle, *, limit=1, budget=None, solver=SOLVER, pairwise_up_to=PAIRWISE_UP_TO, amo=AMO):
    """The engine contract: count solutions up to ``limit``, return the first, with counters.

    ``budget`` (a sudoku.budget.Budget) bounds the work: its nodes cap the solver's conflicts, and a
    time cap runs the solver in a forked child that is killed at the deadline (BudgetExceeded).
    ``solver``, ``pairwise_up_to`` and ``amo`` choose the python-sat solver and the at-most-one
    encoding (for measuring; the defaults are the measured best).
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    geo = geometry(puzzle.box)
    if budget is not None:
        budget.charge()
    cands, queue = _py.candidates(puzzle)
    if not _py.settle(cands, queue, geo):
        return Answer(0, None, Counters(0, 1))
    if all(not mask & (mask - 1) for mask in cands):
        return Answer(1, _py._to_grid(puzzle.box, cands), Counters(0, 1))
    conflicts = None
    if budget is not None and budget.nodes is not None:
        conflicts = max(1, budget.nodes - budget.spent)

    def work():
        return _count(cands, geo, limit, solver=solver, conflicts=conflicts, pairwise_up_to=pairwise_up_to, amo=amo)

    seconds = None if budget is None else budget.remaining()
    if seconds is None or not hasattr(os, "fork"):
        count, first, stats = work()
    else:
        done = in_child(work, seconds)
        if done is None:
            budget.charge(1)  # past the deadline (``in_child`` waited it out): the caller's BudgetExceeded
        count, first, stats = done
    if count < 0:  # the conflict cap ran out: past the node cap, the caller's BudgetExceeded
        budget.charge(max(stats[1], budget.nodes - budget.spent + 1))
    if budget is not None:
        budget.charge(stats[1])  # conflicts: what a node cap bounds
    grid = _py._to_grid(puzzle.box, first) if first is not None else None
    return Answer(count, grid, Counters(stats[0], stats[0] + 1))


def _count(cands, geo, limit, *, solver, conflicts, pairwise_up_to, amo):
    """Solutions of the settled state up to ``limit``: (count, first solution's bitsets or None,
    (decisions, conflicts)); count -1 when ``conflicts`` (a cap, or None) ran out first."""
    from pysat.solvers import Solver  # here, not at the top: a grid that singles fill never loads it

    clauses, _, meaning = encode(cands, geo, pairwise_up_to=pairwise_up_to, amo=amo)
    count = 0
    first = None
    with Solver(name=solver, bootstrap_with=clauses) as sat:
        while count < limit:
            if conflicts is None:
                result = sat.solve()
            else:
                left = conflicts - sat.accum_stats().get("conflicts", 0)
                sat.conf_budget(max(1, left))
                result = sat.solve_limited()
                if result is None:
                    count = -1
                    break
            if not result:
                break
            solution = cands[:]
            blocking = []
            for literal in sat.get_model():
                if 0 < literal < len(meaning) and meaning[literal] is not None:
                    cell, bit = meaning[literal]
                    solution[cell] = bit
                    blocking.append(-literal)
            count += 1
            if first is None:
                first = solution
            sat.add_clause(blocking)
        stats = sat.accum_stats()
    return count, first, (stats.get("decisions", 0), stats.get("conflicts", 0))

"""The SAT engine: propagate in Python, then hand what is left to CaDiCaL (python-sat).

Why: on big random grids between ~40 and ~75 % blank, depth-first search without learning thrashes
(``big`` took 4.6 s on a 36x36 45 % grid and gave no answer in 10 s at 60 %), while a CDCL solver
learns a clause from each dead end and solves them in a fraction of that (issue 17). The solver is
used as it is; the encoding and the way it reaches the solver are ours:

- ``settle`` from ``py`` first (naked and hidden singles, locked candidates from 16x16 up): a grid
  that propagation fills never loads the SAT library, nor one that leaves at most ``side`` open
  cells that ``py``'s search then finishes within ``PY_NODES`` nodes (36x36 at 30 % blank: 21 open
  cells, 6 nodes, 0.02 s; the solver's import and fork cost more).
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

Why these choices (pairwise at-most-one up to ``PAIRWISE_UP_TO`` literals, CaDiCaL 1.9.5 with its
defaults, clauses streamed through python-sat's C entry point, py's propagation kept): the tables
and what was measured and dropped are in docs/engines.md (section ``sat``, from
``bench/profile_sat.py`` and ``bench/bench_big.py``).

Counters: ``guesses`` are the solver's decisions, ``nodes`` one more (a propagation after each, and
the first); a node budget caps the solver's conflicts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import combinations

from sudoku.budget import within
from sudoku.engines import Answer, Counters
from sudoku.engines import py as _py
from sudoku.grid import Geometry, Grid, geometry, is_solution

TYPE_CHECKING = False  # as in sudoku.engines: only the type checker needs Budget here
if TYPE_CHECKING:
    from typing import Any

    from sudoku.budget import Budget

Clause = Sequence[int]
Sink = Callable[[Iterable[Clause]], object]
Meaning = list[tuple[int, int] | None]  # variable -> (cell, bit); None for variable 0

BOXES = range(2, 10)
SOLVER = "cadical195"
PAIRWISE_UP_TO = 49  # at-most-one over more literals (64x64 up): a sequential counter (measured, see bench/README.md)
AMO = "seqcounter"
PY_NODES = 16  # py's search on a state with at most ``side`` open cells: past this many nodes, the solver


def encode(cands: list[int], geo: Geometry, *, pairwise_up_to: int = PAIRWISE_UP_TO, amo: str = AMO,
           sink: Sink | None = None) -> tuple[list[Clause] | None, int, Meaning]:
    """CNF for the open cells of the settled state ``cands``: (clauses, top variable, var -> (cell, bit)).

    Clauses are tuples or lists of literals, in a list; with ``sink`` (a function taking an
    iterable of clauses, see ``loader``) they go to it as they are made and are not kept (clauses
    is then None). The pairwise ones come straight from ``itertools.combinations`` over the negated
    literals (tuples made in C, no Python frame per clause), and each unit's literals per digit from
    one pass over its open cells' candidates: 1.24 M clauses in 0.18 s where a Python loop making
    lists took 0.96 s (49x49 70 % blank)."""
    bits = _py._bits
    meaning: Meaning = [None]
    cell_vars: dict[int, list[tuple[int, int]]] = {}  # open cell -> [(bit, variable)]
    pairs: list[tuple[int, int]] | None
    for cell, mask in enumerate(cands):
        if mask & (mask - 1):
            pairs = cell_vars[cell] = []
            for bit in bits(mask):
                pairs.append((bit, len(meaning)))
                meaning.append((cell, bit))
    top = len(meaning) - 1
    clauses: list[Clause] | None = None
    if sink is None:
        clauses = []
        sink = clauses.extend

    def exactly_one(lits: list[int]) -> None:
        nonlocal top
        sink((lits,))
        if len(lits) <= pairwise_up_to:
            sink(combinations([-lit for lit in lits], 2))
        else:
            from pysat.card import CardEnc, EncType

            card = CardEnc.atmost(lits, 1, top_id=top, encoding=getattr(EncType, amo))
            sink(card.clauses)
            top = max(top, card.nv)

    for pairs in cell_vars.values():
        exactly_one([v for _, v in pairs])
    for unit in geo.units:
        placed = 0
        by_digit: dict[int, list[int]] = {}
        for cell in unit:
            pairs = cell_vars.get(cell)
            if pairs is None:
                placed |= cands[cell]
            else:
                for bit, v in pairs:
                    if bit in by_digit:
                        by_digit[bit].append(v)
                    else:
                        by_digit[bit] = [v]
        for bit in bits(geo.full & ~placed):
            exactly_one(by_digit.get(bit, []))  # none: the empty clause (settle has caught that already)
    return clauses, top, meaning


def loader(sat: Any) -> Sink:
    """A function that adds an iterable of clauses to ``sat`` (a ``_Cadical``, or a
    ``pysat.solvers.Solver``). For CaDiCaL 1.9.5 python-sat's C entry point itself, mapped over the
    clauses (one C call per clause, no Python frame between): 1.24 M clauses in 0.40 s, against
    0.97 s for ``bootstrap_with`` and 1.12 s for ``add_clause`` mapped (49x49 70 % blank). Any
    other solver: ``append_formula``."""
    if isinstance(sat, _Cadical):
        handle, add = sat.handle, sat.add
    else:
        try:  # python-sat's own CaDiCaL class, through its C entry point (no public API: else append_formula)
            if type(sat.solver).__name__ != "Cadical195":
                raise AttributeError("another solver")
            from pysolvers import cadical195_add_cl as add  # type: ignore[no-redef]

            handle = sat.solver.cadical
        except (ImportError, AttributeError):
            return lambda clauses: sat.append_formula(list(clauses))
    from collections import deque
    from functools import partial

    add_one = partial(add, handle)
    return lambda clauses: deque(map(add_one, clauses), 0)


def new_solver(name: str = SOLVER) -> Any:
    """A python-sat solver to add clauses to (with ``loader``): CaDiCaL 1.9.5 through python-sat's C
    module when it has the entry points ``_Cadical`` uses (not a public API of python-sat), else,
    and for any other ``name``, python-sat's public ``Solver`` class."""
    if name == SOLVER:
        try:
            return _Cadical()
        except (ImportError, AttributeError):
            pass  # a python-sat whose C module differs: its public class, 30-60 ms more to import
    from pysat.solvers import Solver

    return Solver(name=name)


class _Cadical:
    """CaDiCaL 1.9.5 driven through python-sat's C module ``pysolvers``, as ``pysat.solvers.Solver``
    drives it, with the few methods ``_count`` calls. Importing ``pysolvers`` alone takes 3-11 ms;
    ``pysat.solvers`` (with pysat.formula, tempfile, pathlib, ...) 34-74 ms without a bytecode
    cache, and every `sudoku solve` that needs the solver paid it."""

    def __init__(self) -> None:
        import threading

        import pysolvers

        for entry in ("add_cl", "new", "del", "solve", "solve_lim", "cbudget", "model", "acc_stats", "setphases"):
            getattr(pysolvers, f"cadical195_{entry}")  # AttributeError now, not mid-solve (see new_solver)
        self._c = pysolvers
        self.add = pysolvers.cadical195_add_cl
        self.handle = pysolvers.cadical195_new()
        self._main = int(threading.current_thread() is threading.main_thread())  # as python-sat: SIGINT handling
        self._status: bool | None = None

    def __enter__(self) -> _Cadical:
        return self

    def __exit__(self, *exc: object) -> None:
        self._c.cadical195_del(self.handle, None)

    def add_clause(self, clause: Clause) -> None:
        self.add(self.handle, clause)

    def solve(self) -> bool | None:
        self._status = bool(self._c.cadical195_solve(self.handle, [], self._main))
        return self._status

    def set_phases(self, literals: list[int]) -> None:
        self._c.cadical195_setphases(self.handle, literals)

    def conf_budget(self, conflicts: int) -> None:
        self._c.cadical195_cbudget(self.handle, conflicts)

    def solve_limited(self) -> bool | None:
        status = self._c.cadical195_solve_lim(self.handle, [], self._main)
        self._status = None if status == 0 else status > 0
        return self._status

    def get_model(self) -> list[int] | None:
        return (self._c.cadical195_model(self.handle) or []) if self._status else None

    def accum_stats(self) -> dict[str, int]:
        stats: dict[str, int] = self._c.cadical195_acc_stats(self.handle)
        return stats


def solve(puzzle: Grid, *, limit: int = 1, budget: Budget | None = None, known: Grid | None = None, solver: str = SOLVER,
          pairwise_up_to: int = PAIRWISE_UP_TO, amo: str = AMO) -> Answer:
    """The engine contract: count solutions up to ``limit``, return the first, with counters.

    ``budget`` (a sudoku.budget.Budget) bounds the work: its nodes cap the solver's conflicts, and a
    time cap runs the solver in a forked child that is killed at the deadline (BudgetExceeded).
    ``solver``, ``pairwise_up_to`` and ``amo`` choose the python-sat solver and the at-most-one
    encoding (for measuring; the defaults are the measured best).

    ``known``, when given, is a solution of ``puzzle`` found some other way (``pattern``'s match):
    it counts as the first, blocked by a clause, and the solver's phases start from it, so a second
    solution near it takes a conflict or two where a first one can take the solver thousands
    (docs/engines.md). ValueError if it is not a solution of ``puzzle``.
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    if known is not None and not is_solution(puzzle, known):
        raise ValueError("known is not a solution of the puzzle")
    geo = geometry(puzzle.box)
    if budget is not None:
        budget.charge()
    cands, queue = _py.candidates(puzzle)
    if not _py.settle(cands, queue, geo):
        return Answer(0, None, Counters(0, 1))
    open_cells = sum(1 for mask in cands if mask & (mask - 1))
    if not open_cells:
        return Answer(1, _py._to_grid(puzzle.box, cands), Counters(0, 1))
    if open_cells <= geo.side:  # a few cells left: py's search, unless it needs more than a few nodes
        tally = _py._Stats()
        count, first = _py.search(cands[:], [], geo, limit, tally, max_nodes=PY_NODES, budget=budget)
        if count >= 0:
            grid = _py._to_grid(puzzle.box, first) if first is not None else None
            return Answer(count, grid, Counters(tally.guesses, tally.nodes))
    conflicts = None
    if budget is not None and budget.nodes is not None:
        conflicts = max(1, budget.nodes - budget.spent)

    def work(inner: Budget | None) -> tuple[int, list[int] | None, tuple[int, int]]:  # conflicts, capped above, are charged below: what a node cap bounds
        return _count(cands, geo, limit, solver=solver, conflicts=conflicts, pairwise_up_to=pairwise_up_to, amo=amo,
                      known=known)

    count, first, stats = within(budget, work)
    if count < 0:  # the conflict cap ran out: past the node cap, the caller's BudgetExceeded
        budget.charge(max(stats[1], budget.nodes - budget.spent + 1))  # type: ignore[union-attr, operator]  # a cap ran out: there is a budget
    if budget is not None:
        budget.charge(stats[1])  # conflicts: what a node cap bounds
    grid = _py._to_grid(puzzle.box, first) if first is not None else None
    return Answer(count, grid, Counters(stats[0], stats[0] + 1))


def _count(cands: list[int], geo: Geometry, limit: int, *, solver: str, conflicts: int | None, pairwise_up_to: int,
           amo: str, known: Grid | None = None) -> tuple[int, list[int] | None, tuple[int, int]]:
    """Solutions of the settled state up to ``limit``: (count, first solution's bitsets or None,
    (decisions, conflicts)); count -1 when ``conflicts`` (a cap, or None) ran out first.

    ``known`` (a solution Grid, see ``solve``) counts as the first, blocked by a clause, with the
    solver's phases set from it."""
    count = 0
    first: list[int] | None = None
    with new_solver(solver) as sat:  # here, not at the top: a grid that singles fill never loads the solver
        _, _, meaning = encode(cands, geo, pairwise_up_to=pairwise_up_to, amo=amo, sink=loader(sat))
        if known is not None:
            first = [1 << (digit - 1) for digit in known.cells]
            chosen = [v if first[cell] == bit else -v for v, (cell, bit) in enumerate(meaning[1:], 1)]  # type: ignore[misc]  # checked not None just above
            sat.set_phases(chosen)
            sat.add_clause([-lit for lit in chosen if lit > 0])
            count = 1
        while count < limit:
            spent = sat.accum_stats().get("conflicts", 0)
            cap = None if conflicts is None else conflicts - spent
            if cap is None:
                result = sat.solve()
            else:
                sat.conf_budget(max(1, cap))
                result = sat.solve_limited()
            if result is None:
                count = -1
                break
            if not result:
                break
            solution = cands[:]
            blocking: list[int] = []
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

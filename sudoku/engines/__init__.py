"""The engine contract and the registry of engines.

Every engine is a module with one function::

    solve(puzzle: Grid, *, limit: int = 1) -> Answer

which counts solutions up to ``limit`` and returns the first one found (or None), with work counters.
An engine with the ``budget`` capability also takes ``budget=`` (a ``sudoku.budget.Budget``: nodes
and/or seconds) and raises ``BudgetExceeded`` past it, never a wrong count.
``limit=1`` solves; ``limit=2`` also proves uniqueness. A puzzle with clashing givens or no solution is
not an error: it has count 0. Engines are imported lazily by name, so asking for ``py`` never loads a
compiled engine.

Optional capabilities, named in the registry:

- ``fill``: ``fill(box, rng) -> Grid``, a random complete grid drawn with ``rng`` (a ``random.Random``).
- ``other``: ``has_other(puzzle, solution, cell) -> bool``, whether ``puzzle`` without the given at
  ``cell`` has a solution other than ``solution``: the cheap uniqueness test behind clue removal.
- ``generate``: ``generate(box, *, seed, blanks, minimal) -> Grid``, a whole unique puzzle made
  inside the engine (its own seed space: the same seed gives other puzzles than ``py``'s).
- ``graded``: ``generate(box, *, seed, blanks, minimal, difficulty, budget, attempts) -> Grid`` follows
  every rule of ``sudoku.generate.create`` (difficulty, budget, attempts) in compiled code (``big``;
  difficulty None or easy: the human levels above easy are graded by ``sudoku.generate``).
- ``symmetric``: ``generate`` also takes ``symmetric=True``: a clue pattern symmetric under a half turn
  (``nb``; other engines' puzzles are made symmetric by ``sudoku.generate``'s own removal loop).
- ``budget``: ``solve`` takes ``budget=`` (see above); the CLI's ``--timeout`` needs it.
- ``batch``: ``solve_batch`` on numpy arrays, for the batch paths; with ``generate`` too, also
  ``generate_batch(seeds, *, blanks, minimal)``, whose puzzle for a seed is ``generate``'s (``nb``).
- ``timed``: ``solve_batch(..., timed=True)`` also returns each puzzle's time in ns, measured inside the
  batch (``band``), so a batch path can record per-puzzle times without a call per puzzle.
"""

from __future__ import annotations

from collections import namedtuple
from importlib import import_module

TYPE_CHECKING = False  # typing costs ~3 ms at start-up; only the type checker needs the classes below
if TYPE_CHECKING:
    from collections.abc import Collection
    from types import ModuleType
    from typing import NamedTuple

    from sudoku.budget import Budget
    from sudoku.grid import Grid

    class Counters(NamedTuple):
        guesses: int
        nodes: int

    class Answer(NamedTuple):
        count: int  # type: ignore[assignment]  # a field named like tuple.count, as it always was
        solution: Grid | None
        counters: Counters

    class EngineInfo(NamedTuple):
        name: str
        module: str
        boxes: Collection[int]
        capabilities: frozenset[str]
        summary: str
else:
    Counters = namedtuple("Counters", "guesses nodes")
    Answer = namedtuple("Answer", "count solution counters")
    EngineInfo = namedtuple("EngineInfo", "name module boxes capabilities summary")
Counters.__doc__ = """Work done by one call: ``guesses`` = trial placements at branch points (0 means singles
alone solved it); ``nodes`` = propagation calls."""
Answer.__doc__ = """Result of ``solve``: solutions found (at most the limit), the first one or None, and Counters."""

ENGINES = {
    "py": EngineInfo(
        "py",
        "sudoku.engines.py",
        range(2, 10),
        frozenset({"solve", "count", "fill", "other", "budget"}),
        "pure Python: candidate bitsets, naked and hidden singles, fewest-candidates branching "
        "(restarts with randomised branching from 16x16 up)",
    ),
    "dlx": EngineInfo(
        "dlx",
        "sudoku.engines.dlx",
        range(2, 6),
        frozenset({"solve", "count", "budget"}),
        "pure Python: exact cover, Knuth's Algorithm X; an independent cross-check",
    ),
    "nb": EngineInfo(
        "nb",
        "sudoku.engines.nb",
        range(3, 4),
        frozenset({"solve", "count", "fill", "other", "generate", "symmetric", "batch"}),
        "numba, 9x9: bitsets, naked and hidden singles, locked candidates, fewest-candidates branching; "
        "batch solve and generate on numpy arrays (imports numba: batch paths only)",
    ),
    "band": EngineInfo(
        "band",
        "sudoku.engines.band",
        range(3, 4),
        frozenset({"solve", "count", "batch", "timed"}),
        "numba, 9x9: digit-by-band bitboards (mini-row patterns per band, column rules), binary branching; "
        "its own code, the compiled checker beside nb; batch solve on numpy arrays (batch paths only)",
    ),
    "big": EngineInfo(
        "big",
        "sudoku.engines.big",
        range(4, 10),
        frozenset({"solve", "count", "fill", "other", "generate", "graded", "budget"}),
        "numba, 16x16 to 81x81: multi-word bitsets, naked and hidden singles, locked candidates, "
        "fewest-candidates branching, resumable slices for budgets, restarts when finding one solution; "
        "compiled puzzle creation; the default from 16x16 up (imports numba: ~0.6 s with a warm cache)",
    ),
    "sat": EngineInfo(
        "sat",
        "sudoku.engines.sat",
        range(2, 10),
        frozenset({"solve", "count", "budget"}),
        "python-sat (CaDiCaL 1.9.5): py's propagation, then the open cells' candidates as CNF; counts by "
        "blocking clauses; a time budget runs the solver in a forked child (imports python-sat's C module: ~3-11 ms)",
    ),
}

DEFAULT = "py"
BIG = "big"
BIG_FROM_BOX = 4  # 16x16 up: numba's ~1 s load is small beside a solve there; 9x9 stays pure Python


def default_for(box: int) -> str:
    """The engine a single call on a grid of ``box`` uses when none is named: ``big`` (compiled)
    from 16x16 up, ``py`` below, where a call must start in milliseconds and numba is never loaded."""
    return BIG if box >= BIG_FROM_BOX else DEFAULT


QUICK_SECONDS = 0.3  # py's first try on a near-empty big grid, before the compiled engine is loaded
SAT = "sat"
SAT_MAX_LITERALS = 150_000  # blanks x side: above it (near-empty 64x64 and up) encoding in Python takes 8 s and more
SAT_MAX_BLANK = 0.85  # near-empty grids are fills: CaDiCaL needs ~4,000 decisions and 2.3 s for an empty 25x25 grid


def _suits_sat(puzzle: Grid) -> bool:
    """Whether the default solve hands ``puzzle`` to ``sat`` (see solve_default)."""
    return puzzle.blanks <= SAT_MAX_BLANK * len(puzzle.cells) and puzzle.blanks * puzzle.side <= SAT_MAX_LITERALS


def solve_default(puzzle: Grid, *, limit: int = 1, budget: Budget | None = None) -> Answer:
    """Solve with the engine of a call that names none (``default_for``, ``sat`` from 16x16 up).

    From 16x16 up, a grid goes to ``sat`` (CaDiCaL, which learns from its dead ends: 36x36 and
    49x49 random grids at 45-70 % blank that depth-first search does not finish in 10 s), for one
    solution and for counting (blocking clauses); it propagates with py's rules first, so a typical
    generated puzzle is done in milliseconds without loading pysat. (A quick try of ``py``'s search
    before it only delayed the grids that need search: `sudoku solve` on 36x36 at 45 % blank took
    0.5 s with it, 0.2 s without.) Where CaDiCaL has no solution after ``sat.SHORTCUT_AFTER``
    conflicts and the grid may come from a transformed pattern grid (``pattern.may_fit``), it is
    matched to one (``pattern``), and counting goes on in the solver from that solution: a 49x49
    grid of the family at half blank in under a second, where CaDiCaL gives none in minutes. A
    grid with at most ``side`` givens is first matched too (an 81x81 grid with 3 or 40 givens in
    well under a second, where search and CDCL give no answer in minutes), and one with more, up to
    15 %, after ``py``'s quick try (64x64 and 81x81 grids of the family at 5-10 % givens: 0.5-2.8 s,
    where ``big`` gave none in 30 s; at 2 % the match often runs out of conflicts; on other grids
    ``may_fit`` passes only below ~3 givens per box, and saying no took up to 5 s there, where
    ``big`` gave none in 30 s either). A near-empty grid it does not fit (``SAT_MAX_BLANK``: a fill,
    where encoding costs more than search) or one too big to encode quickly (``SAT_MAX_LITERALS``)
    first gets ``py`` for QUICK_SECONDS, since loading ``big`` costs a second or more; then ``big``
    with its restarts finds one solution, and counting takes turns between ``py`` and ``big`` with a
    doubling time slice (each one's complete search can stall where the other's does not). Counts
    are the same either way; which of several solutions comes first may differ. The caller's
    ``budget`` covers every try (bench/README.md has the figures).
    """
    engine = default_for(puzzle.box)
    if engine == DEFAULT:
        return solve(puzzle, limit=limit, budget=budget)
    from sudoku.budget import Budget, BudgetExceeded  # here, not at the top: 9x9 solves never need it

    if _suits_sat(puzzle):  # sat propagates first itself: a grid that singles fill never loads pysat
        from sudoku.engines import pattern

        match = (lambda settled, inner: _pattern_match(settled, 1, inner)) if pattern.may_fit(puzzle) else None
        answer: Answer = load(SAT).solve(puzzle, limit=limit, budget=budget, shortcut=match)
        return answer
    if puzzle.clues <= puzzle.side:
        found = _pattern_match(puzzle, limit, budget)
        if found is not None:
            return found
    seconds = QUICK_SECONDS
    turns = [DEFAULT, engine] if limit >= 2 else [DEFAULT]
    matched = puzzle.clues <= puzzle.side
    while True:
        for name in turns:
            left = None if budget is None else budget.remaining()
            if budget is not None and left is not None and left <= 0:
                budget.charge(0)  # past the caller's deadline: its BudgetExceeded
            quick = Budget(seconds=seconds if left is None else min(seconds, left))
            try:
                return solve(puzzle, limit=limit, engine=name, budget=quick)
            except BudgetExceeded:
                if budget is not None:
                    budget.charge(quick.spent)
        if not matched:  # the quick tries did not do: a sparse grid of the family, more than side givens
            matched = True
            found = _pattern_match(puzzle, limit, budget)
            if found is not None:
                return found
        if limit < 2:
            return solve(puzzle, limit=limit, engine=engine, budget=budget)
        seconds *= 2


def _pattern_match(puzzle: Grid, limit: int, budget: Budget | None) -> Answer | None:
    """``pattern.match`` within the caller's budget (``sudoku.budget.within``: the SAT solver it
    uses cannot be interrupted, so under a time cap it runs in a forked child, as ``sat`` does)."""
    from sudoku.budget import within
    from sudoku.engines import pattern

    if not pattern.may_fit(puzzle):  # ~1 ms here, where a forked child costs more
        return None
    return within(budget, lambda inner: pattern.match(puzzle, limit=limit, budget=inner))


def names() -> list[str]:
    return list(ENGINES)


def info(name: str) -> EngineInfo:
    try:
        return ENGINES[name]
    except KeyError:
        raise ValueError(f"unknown engine {name!r}; known: {', '.join(ENGINES)}") from None


def load(name: str = DEFAULT) -> ModuleType:
    """The engine module called ``name`` (ValueError for an unknown name)."""
    return import_module(info(name).module)


_warmed: set[str] = set()


def warm(*names: str) -> None:
    """Load the named engines and compile, or load from numba's cache, every kernel each has
    (``warm()`` in its module), once per process: outside any timed region, and in a pool's parent
    before it forks its workers, so they inherit the kernels instead of each compiling them."""
    for name in names:
        if name not in _warmed:
            module = load(name)
            if hasattr(module, "warm"):
                module.warm()
            _warmed.add(name)


def supports(name: str, box: int) -> bool:
    return box in info(name).boxes


def solve(puzzle: Grid, *, limit: int = 1, engine: str = DEFAULT, budget: Budget | None = None) -> Answer:
    """Solve ``puzzle`` with the named engine; see the module docstring for the contract.

    ``budget`` (a sudoku.budget.Budget) bounds the work: BudgetExceeded past it. An engine
    without the ``budget`` capability cannot be bounded and is refused (ValueError) when given one.
    """
    if not supports(engine, puzzle.box):
        side = puzzle.side
        raise ValueError(f"engine {engine!r} does not solve {side}x{side} grids")
    answer: Answer
    if budget is None:
        answer = load(engine).solve(puzzle, limit=limit)
        return answer
    if "budget" not in info(engine).capabilities:
        raise ValueError(f"engine {engine!r} cannot be bounded by a budget; use one of {', '.join(bounded())}")
    answer = load(engine).solve(puzzle, limit=limit, budget=budget)
    return answer


def bounded() -> list[str]:
    """Names of the engines that honour a budget."""
    return [name for name, engine in ENGINES.items() if "budget" in engine.capabilities]

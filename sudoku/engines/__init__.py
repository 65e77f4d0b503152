"""The engine contract and the registry of engines.

Every engine is a module with one function::

    solve(puzzle: Grid, *, limit: int = 1) -> Answer

which counts solutions up to ``limit`` and returns the first one found (or None), with work counters.
An engine with the ``budget`` capability also takes ``budget=`` (a ``sudoku.budget.Budget``: nodes
and/or seconds) and raises ``BudgetExceeded`` past it, never a wrong count.
``limit=1`` solves; ``limit=2`` also proves uniqueness. A puzzle with clashing givens or no solution is
not an error: it has count 0. Engines are imported lazily by name, so asking for ``py`` never loads a
compiled engine.

The registry holds no policy: the route a solve takes when no engine is named (which engine, in what
order, with what share of the budget) is the engine ``auto`` (``sudoku.engines.auto``).

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
- ``numba``: its kernels are compiled (or loaded from numba's cache) on first call, through a ctypes
  callback that drops an exception raised in it: ``solve`` and ``warm`` have a stop signal noted there
  and raised as the call returns (``sudoku.interrupts.held``), so a Ctrl-C then is not lost.
"""

from __future__ import annotations

from collections import namedtuple
from importlib import import_module

TYPE_CHECKING = False  # typing costs ~3 ms at start-up; only the type checker needs the classes below
if TYPE_CHECKING:
    from collections.abc import Callable, Collection
    from contextlib import AbstractContextManager
    from types import ModuleType
    from typing import NamedTuple

    from sudoku.budget import Budget
    from sudoku.engines.compiling import Progress
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
        frozenset({"solve", "count", "fill", "other", "generate", "symmetric", "batch", "numba"}),
        "numba, 9x9: bitsets, naked and hidden singles, locked candidates, fewest-candidates branching; "
        "batch solve and generate on numpy arrays (imports numba: batch paths only)",
    ),
    "band": EngineInfo(
        "band",
        "sudoku.engines.band",
        range(3, 4),
        frozenset({"solve", "count", "batch", "timed", "numba"}),
        "numba, 9x9: digit-by-band bitboards (mini-row patterns per band, column rules), binary branching; "
        "its own code, the compiled checker beside nb; batch solve on numpy arrays (batch paths only)",
    ),
    "big": EngineInfo(
        "big",
        "sudoku.engines.big",
        range(4, 10),
        frozenset({"solve", "count", "fill", "other", "generate", "graded", "budget", "numba"}),
        "numba, 16x16 to 81x81: multi-word bitsets, naked and hidden singles, locked candidates, "
        "fewest-candidates branching, resumable slices for budgets, restarts when finding one solution; "
        "compiled puzzle creation; the default maker from 16x16 up (imports numba: ~0.6 s with a warm cache)",
    ),
    "sat": EngineInfo(
        "sat",
        "sudoku.engines.sat",
        range(2, 10),
        frozenset({"solve", "count", "budget"}),
        "python-sat (CaDiCaL 1.9.5): py's propagation, then the open cells' candidates as CNF; counts by "
        "blocking clauses; a time budget runs the solver in a forked child (imports python-sat's C module: ~3-11 ms)",
    ),
    "auto": EngineInfo(
        "auto",
        "sudoku.engines.auto",
        range(2, 10),
        frozenset({"solve", "count", "budget"}),
        "the default route, no engine of its own: py up to 9x9; from 16x16 sat, near-empty grids filled from a "
        "transformed pattern grid, py then big for the rest (the `sudoku solve` engine when none is named)",
    ),
    "pattern": EngineInfo(
        "pattern",
        "sudoku.engines.pattern",
        range(2, 10),
        frozenset({"solve", "count", "budget"}),
        "opt-in, for grids made by blanking a shuffled pattern grid: their givens matched to one by a small SAT "
        "problem, then sat counts on from that solution (other grids: sat alone, after a ~1 ms check)",
    ),
}

DEFAULT = "py"
BIG = "big"
BIG_FROM_BOX = 4  # 16x16 up: numba's ~1 s load is small beside a solve there; 9x9 stays pure Python


def default_for(box: int) -> str:
    """The engine that makes a grid of ``box`` when none is named (``sudoku.generate.create``), and
    the one the ``auto`` route searches with: ``big`` (compiled) from 16x16 up, ``py`` below, where a
    call must start in milliseconds and numba is never loaded."""
    return BIG if box >= BIG_FROM_BOX else DEFAULT


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


def warm(*names: str, tell: Callable[[Progress], None] | None = None) -> None:
    """Load the named engines and compile, or load from numba's cache, every kernel each has
    (``warm()`` in its module), once per process, outside any timed region: a batch run's workers
    each warm theirs before their first chunk, in parallel, so the parent stays light (jobs.runner).
    ``tell`` hears how far a compile is after each kernel (``compiling.watching``; nothing when the
    cache holds them all)."""
    from contextlib import nullcontext

    from sudoku.interrupts import held

    modules = {name: load(name) for name in names if name not in _warmed}
    compiled = {name: module for name, module in modules.items() if hasattr(module, "warm")}
    watch: AbstractContextManager[None] = nullcontext()
    if tell is not None and compiled:
        from sudoku.engines.compiling import kernels_of, watching

        watch = watching(kernels_of(compiled.values()), tell)
    with watch:
        for name, module in modules.items():
            if name in compiled:
                with held():  # numba compiles through a callback that would drop a KeyboardInterrupt
                    module.warm()
            _warmed.add(name)


def cold(*names: str) -> list[str]:
    """Those of ``names`` not yet warmed in this process (``warm`` would load or compile them)."""
    return [name for name in names if name not in _warmed]


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
        if "numba" in info(engine).capabilities:  # it may compile: a stop signal noted, raised after
            from sudoku.interrupts import held

            with held():
                answer = load(engine).solve(puzzle, limit=limit)
            return answer
        answer = load(engine).solve(puzzle, limit=limit)
        return answer
    if "budget" not in info(engine).capabilities:
        raise ValueError(f"engine {engine!r} cannot be bounded by a budget; use one of {', '.join(bounded())}")
    answer = load(engine).solve(puzzle, limit=limit, budget=budget)
    return answer


def bounded() -> list[str]:
    """Names of the engines that honour a budget."""
    return [name for name, engine in ENGINES.items() if "budget" in engine.capabilities]

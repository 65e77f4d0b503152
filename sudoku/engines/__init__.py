"""The engine contract and the registry of engines.

Every engine is a module with one function::

    solve(puzzle: Grid, *, limit: int = 1) -> Answer

which counts solutions up to ``limit`` and returns the first one found (or None), with work counters.
``limit=1`` solves; ``limit=2`` also proves uniqueness. A puzzle with clashing givens or no solution is
not an error: it has count 0. Engines are imported lazily by name, so asking for ``py`` never loads a
compiled engine.

Optional capabilities, named in the registry:

- ``fill``: ``fill(box, rng) -> Grid``, a random complete grid drawn with ``rng`` (a ``random.Random``).
- ``other``: ``has_other(puzzle, solution, cell) -> bool``, whether ``puzzle`` without the given at
  ``cell`` has a solution other than ``solution``: the cheap uniqueness test behind clue removal.
- ``generate``: ``generate(box, *, seed, blanks, minimal) -> Grid``, a whole unique puzzle made
  inside the engine (its own seed space: the same seed gives other puzzles than ``py``'s).
- ``batch``: ``solve_batch`` on numpy arrays, for the batch paths; with ``generate`` too, also
  ``generate_batch(seeds, *, blanks, minimal)``, whose puzzle for a seed is ``generate``'s (``nb``).
- ``timed``: ``solve_batch(..., timed=True)`` also returns each puzzle's time in ns, measured inside the
  batch (``band``), so a batch path can record per-puzzle times without a call per puzzle.
"""

from collections import namedtuple
from importlib import import_module

Counters = namedtuple("Counters", "guesses nodes")
Counters.__doc__ = """Work done by one call: ``guesses`` = trial placements at branch points (0 means singles
alone solved it); ``nodes`` = propagation calls."""

Answer = namedtuple("Answer", "count solution counters")
Answer.__doc__ = """Result of ``solve``: solutions found (at most the limit), the first one or None, and Counters."""

EngineInfo = namedtuple("EngineInfo", "name module boxes capabilities summary")

ENGINES = {
    "py": EngineInfo(
        "py",
        "sudoku.engines.py",
        range(2, 10),
        frozenset({"solve", "count", "fill", "other"}),
        "pure Python: candidate bitsets, naked and hidden singles, fewest-candidates branching",
    ),
    "dlx": EngineInfo(
        "dlx",
        "sudoku.engines.dlx",
        range(2, 6),
        frozenset({"solve", "count"}),
        "pure Python: exact cover, Knuth's Algorithm X; an independent cross-check",
    ),
    "nb": EngineInfo(
        "nb",
        "sudoku.engines.nb",
        range(3, 4),
        frozenset({"solve", "count", "fill", "other", "generate", "batch"}),
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
}

DEFAULT = "py"


def names():
    return list(ENGINES)


def info(name):
    try:
        return ENGINES[name]
    except KeyError:
        raise ValueError(f"unknown engine {name!r}; known: {', '.join(ENGINES)}") from None


def load(name=DEFAULT):
    """The engine module called ``name`` (ValueError for an unknown name)."""
    return import_module(info(name).module)


def supports(name, box):
    return box in info(name).boxes


def solve(puzzle, *, limit=1, engine=DEFAULT):
    """Solve ``puzzle`` with the named engine; see the module docstring for the contract."""
    if not supports(engine, puzzle.box):
        side = puzzle.side
        raise ValueError(f"engine {engine!r} does not solve {side}x{side} grids")
    return load(engine).solve(puzzle, limit=limit)

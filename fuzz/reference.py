"""The reference: a trusted program whose answers stand in for our engine's as what is right.

``fuzz run --reference CMD`` asks the reference each solve or check case first (with the run's own
options: the same solve and check arguments, format and verdict words), and its answer becomes the
case's expected answer: a grid makes the case solvable with that solution (when our engine calls
the puzzle unique: the reference's grid is then *the* answer), a clean rejection makes it a case to
reject, a verdict word the verdict to say. Where it disagrees with our engine it wins, and the case
is noted ``reference_overruled``.

Trust is not blind: a reference that crashes, hangs, floods, prints a broken grid (one that breaks a
rule or changes a given) or exits 0 with no answer has **failed** on that case. A failed reference
must not make a target look wrong, so the case's comparison is skipped (the target is judged only by
the containment oracles: no hang, no flood, no crash) and noted ``reference_failed``.

Creates and round trips are the target's own puzzles: our engine judges them, reference or not.
"""

from collections import namedtuple
from collections.abc import Sequence

from sudoku import Grid, find_clash, render

from fuzz.cases import Case

from fuzz.oracles import VERDICTS, exit_class, said_verdict
from fuzz.read import Reading, find_grid
from fuzz.targets import Result, Target

Expected = namedtuple("Expected", "case note detail")
Expected.__doc__ = """A case as the reference says it should be answered: ``case`` (None when the reference
failed on it), ``note`` ('reference_overruled', 'reference_failed' or None when it agrees with our
engine) and ``detail`` (what the reference did, for people; None when it agrees)."""

AGREES, OVERRULED, FAILED = None, "reference_overruled", "reference_failed"


def asks(case: Case) -> bool:
    """Whether the reference is asked about ``case`` (solve and check cases; not creates or round trips)."""
    return case.command in ("solve", "check") and case.family != "roundtrip"


def expect(case: Case, reference: Target, *, words: Sequence[str] = VERDICTS,
           exits: Sequence[int] | None = None) -> Expected:
    """Ask ``reference`` about ``case``: the Expected case."""
    if case.command == "check":
        return _expect_check(case, reference.check(case.text), words, exits)
    return _expect_solve(case, reference.solve(case.text), reference.header)


def answer(case: Case, reference: Target, *, header: bool = False, words: Sequence[str] | None = VERDICTS,
           exits: Sequence[int] | None = None, tries: int = 3) -> Case | None:
    """``case`` as ``reference`` says it should be answered (in the text of a target whose format is
    ``header``), or None when the reference failed on it ``tries`` times: a reference that failed
    once is asked again, as its failure is not the target's (triage and ``fuzz replay``)."""
    text = case.text
    if reference.header != header and case.puzzle is not None:
        text = render(case.puzzle, "header" if reference.header else "grid").encode()  # its own format
    for _ in range(tries):
        expected: Case | None = expect(case._replace(text=text), reference, words=words or VERDICTS, exits=exits).case
        if expected is not None:
            return expected._replace(text=case.text)
    return None


def _abnormal(result: Result) -> str | None:
    if result.timed_out or result.flooded or result.exit_code < 0:
        return exit_class(result)
    if b"Traceback (most recent call last)" in result.stderr:
        return "a Python traceback"
    return None


def _expect_solve(case: Case, result: Result, header: bool) -> Expected:
    if (how := _abnormal(result)) is not None:
        return Expected(None, FAILED, f"reference failed: {how}")
    reading = find_grid(result.stdout, side=case.side, header=header)
    if result.exit_code != 0:
        if reading.grid is not None and reading.grid.blanks == 0:
            return Expected(None, FAILED, f"reference failed: exit {result.exit_code} with a grid")
        if case.count in (0, None):
            return Expected(case, AGREES, None)
        return Expected(case._replace(count=0, solution=None), OVERRULED,
                        f"the reference rejects it (exit {result.exit_code}); our engine counts {case.count}")
    grid = reading.grid
    if grid is None:
        return Expected(None, FAILED, "reference failed: exit 0, no grid")
    broken = _broken(grid, reading, case.puzzle)
    if broken:
        return Expected(None, FAILED, f"reference failed: its grid {broken}")
    if case.count == 1 and grid == case.solution or case.count == 2:
        return Expected(case, AGREES, None)
    if case.count == 1:
        return Expected(case._replace(solution=grid), OVERRULED,
                        "the reference's solution is not our engine's unique one")
    # our engine rejects it (no solution, or text our reader calls malformed): the reference solved it.
    # One solution is known, not how many, so any valid answer that keeps the givens is right.
    puzzle = case.puzzle if case.puzzle is not None else Grid(grid.box, [0] * len(grid.cells))
    return Expected(case._replace(puzzle=puzzle, count=2, solution=None), OVERRULED,
                    "the reference solves what our engine rejects")


def _broken(grid: Grid, reading: Reading, puzzle: Grid | None) -> str | None:
    """Why a reference's answer grid cannot be right, or None."""
    if reading.out_of_range:
        return "holds a number out of range"
    if grid.blanks:
        return f"has {grid.blanks} blanks"
    if (clash := find_clash(grid)) is not None:
        return f"breaks a rule ({clash})"
    if puzzle is not None and (grid.side != puzzle.side
                               or any(g and g != s for g, s in zip(puzzle.cells, grid.cells))):
        return "changes a given"
    return None


def _expect_check(case: Case, result: Result, words: Sequence[str], exits: Sequence[int] | None) -> Expected:
    if (how := _abnormal(result)) is not None:
        return Expected(None, FAILED, f"reference failed: {how}")
    said = said_verdict(result.stdout, words)
    if exits and result.exit_code in exits and said is None:
        said = VERDICTS[exits.index(result.exit_code)]
    if said is None:
        if result.exit_code == 0:
            return Expected(None, FAILED, "reference failed: exit 0, no verdict")
        said = None  # a clean rejection: the text is malformed
    if said == case.verdict or (case.verdict is None and said in (None, "invalid")):
        return Expected(case, AGREES, None)
    return Expected(case._replace(verdict=said), OVERRULED,
                    f"the reference says {said or 'malformed'}; our checker {case.verdict or 'malformed'}")

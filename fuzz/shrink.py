"""Shrinking a failure to a minimal reproducer that still fails the same way.

"The same way" is the failure's signature (``oracles.signature``: the failed oracle and its kind,
the case's class, how the call ended, the class of a refusal's message), and the case keeps its
class (``cases.keeps_class``): the same right answer (a unique puzzle stays unique, several
solutions stay several, a clash stays a clash, malformed text stays malformed) and its family's
defining property (the CRLF of a CRLF case, the ``10`` of an out-of-range case). Without that, a
crash on an out-of-range value "shrinks" to an empty input that crashes for another reason, and a
hang on a 17-clue puzzle to a hang on a near-empty grid with many solutions: the saved case no
longer shows the bug it stands for. Counting a candidate's solutions uses the fast engine for its
size within a budget (``cases.count_solutions``); a candidate whose count runs out is skipped.

Puzzles shrink by blanking givens (fewest clues); other text (malformed, or valid in an odd
spelling) has its digits turned to 0. Then whole lines go, then characters (shortest text). Each
pass is ddmin-like: all at once, then halves, quarters, ... so the parts of a text that do not
matter to the bug go in a few calls. Each candidate's right answer is worked out afresh by our own
parser and engine (``cases.from_text``); a candidate that loses the family's property, or on which
one of the signature's oracles cannot fail (``oracles.can_fail``), costs no target call. Passes are
deterministic and bounded by a budget of target calls and time.

Why not Hypothesis's shrinker: it shrinks its own choice sequences from the start of a test and has
no public way to begin from a given failing input, while our failures come from external programs
and a saved case; greedy deterministic passes over the case's own structure are simple, predictable
and cheap in target calls (each may be a subprocess).
"""

import re
import time
from collections import namedtuple
from collections.abc import Callable, Sequence

from sudoku import Grid, parse, render

from fuzz.cases import Case, CountUnknown, about_text, from_text, is_spaced, keeps_class, space_after_each
from fuzz.oracles import can_fail

MAX_CALLS = 200
MAX_SECONDS = 20.0

Shrunk = namedtuple("Shrunk", "case stopped")
Shrunk.__doc__ = """What ``shrink`` gives: the smallest ``case`` found, and why it ``stopped`` before
the passes were done ('time' or 'calls': a smaller case may fail too), or None when they finished."""


class _Budget:
    def __init__(self, calls: int, seconds: float) -> None:
        self.calls = calls
        self.deadline = time.monotonic() + seconds
        self.stopped: str | None = None  # the first cap that cut a pass short

    def left(self) -> bool:
        """Whether another candidate may be tried (its answer worked out, the target asked)."""
        if self.stopped is None:
            if self.calls <= 0:
                self.stopped = "calls"
            elif time.monotonic() >= self.deadline:
                self.stopped = "time"
        return self.stopped is None

    def spend(self) -> None:
        self.calls -= 1


def shrink(case: Case, oracles: Sequence[str], same_failure: Callable[[Case], bool], *, header: bool = False,
           max_calls: int = MAX_CALLS, max_seconds: float = MAX_SECONDS) -> Shrunk:
    """The smallest case found that still fails as ``case`` does, and why shrinking stopped short (if it did).

    ``oracles`` are the failed oracles of the signature; ``same_failure(candidate) -> bool`` asks the
    target and compares signatures. Create cases are not shrunk (their input is empty). The budget
    bounds both the target calls and the time, our own reference answers included (at 25x25 counting
    a candidate's solutions is not free).
    """
    if case.command != "solve":
        return Shrunk(case, None)
    budget = _Budget(max_calls, max_seconds)
    family, original = case.family, case

    def still(text: bytes) -> Case | None:
        """The case for ``text`` if it fails the same way, else None."""
        try:
            candidate = from_text(family, "solve", text, side=case.side)
        except CountUnknown:
            return None
        if not (keeps_class(original, candidate) and all(can_fail(oracle, candidate) for oracle in oracles)):
            return None
        budget.spend()
        return candidate if same_failure(candidate) else None

    if case.puzzle is not None and not about_text(family):
        # a puzzle loses givens and nothing else: cutting bytes could only drop its final newline,
        # and the reproducer would look like a spelling bug
        return Shrunk(_fewer_clues(case, still, budget, header), budget.stopped)
    case = _chunks(case, lambda text: [m.start() for m in _DIGIT.finditer(text)],
                   lambda text, chosen: bytes(48 if i in chosen else b for i, b in enumerate(text)), still, budget)
    case = _lines(case, still, budget)
    # characters go last, but a final newline stays: without it the reproducer would look like a
    # spelling bug (a case about a missing final newline has none to begin with)
    case = _chunks(case, lambda text: list(range(len(text) - text.endswith(b"\n"))),
                   lambda text, chosen: bytes(b for i, b in enumerate(text) if i not in chosen), still, budget)
    return Shrunk(case, budget.stopped)


def _chunks(case: Case, places: Callable[[bytes], list[int]], change: Callable[[bytes, set[int]], bytes],
            still: Callable[[bytes], Case | None], budget: _Budget) -> Case:
    """A ddmin-like pass: ``change`` the case's text at all of its ``places`` at once, then at halves,
    quarters, ... of them, keeping each change that still fails the same way. When most of a text
    does not matter to the bug (the usual case), a few calls do most of the work."""
    size = len(places(case.text))
    while size >= 1 and budget.left():
        start = 0
        while budget.left():
            where = places(case.text)
            if start >= len(where):
                break
            trial = change(case.text, set(where[start : start + size]))
            candidate = still(trial) if trial != case.text else None
            if candidate is None:
                start += size
            else:
                case = candidate  # the changed places are gone: the next chunk starts at the same index
        size //= 2
    return case


def _fewer_clues(case: Case, still: Callable[[bytes], Case | None], budget: _Budget, header: bool) -> Case:
    """Blank givens, in ever smaller chunks (fewest clues), in the case's spelling (a space after
    every number stays: the target may read no other)."""
    fmt = "header" if header else "grid"
    spaced = is_spaced(case.text)

    def givens(text: bytes) -> list[int]:
        return [i for i, v in enumerate(case_grid(text).cells) if v]

    def blank(text: bytes, chosen: set[int]) -> bytes:
        grid = case_grid(text)
        text = render(Grid(grid.box, [0 if i in chosen else v for i, v in enumerate(grid.cells)]), fmt).encode()
        return space_after_each(text) if spaced else text

    grids: dict[bytes, Grid] = {}

    def case_grid(text: bytes) -> Grid:
        if text not in grids:
            grids[text] = next(iter(parse(text.decode("utf-8").splitlines(keepends=True))))
        return grids[text]

    grids[case.text] = case.puzzle
    return _chunks(case, givens, blank, still, budget)


def _lines(case: Case, still: Callable[[bytes], Case | None], budget: _Budget) -> Case:
    """Delete whole lines, one at a time (the empty piece after a final newline stays: see shrink)."""
    lines = case.text.split(b"\n")
    i = 0
    while i < len(lines) - (lines[-1] == b"") and len(lines) > 1 and budget.left():
        trial = lines[:i] + lines[i + 1 :]
        candidate = still(b"\n".join(trial))
        if candidate is not None:
            lines, case = trial, candidate
        else:
            i += 1
    return case


_DIGIT = re.compile(rb"(?<![\d-])[1-9](?!\d)")

"""Shrinking a failure to a minimal reproducer that still fails the same way.

"The same way" is the failure's signature (``oracles.signature``: the failed oracles and their
kinds, the family's class, how the call ended), and the family's defining property must survive
(``cases.keeps_property``: the CRLF of a CRLF case, the ``10`` of an out-of-range case, the clash
of a clashing one). Without that, a crash on an out-of-range value "shrinks" to an empty input that
crashes for another reason, and the saved case no longer shows the bug it stands for.

Puzzles shrink by blanking givens (fewest clues); malformed or odd text first has its digits turned
to 0 (in ever smaller chunks), then shrinks by deleting lines, then ever smaller runs of characters (shortest
text). Each candidate's right answer is worked out
afresh by our own parser and engine (``cases.from_text``); a candidate that loses the family's
property, or on which one of the signature's oracles cannot fail (``oracles.can_fail``), costs no
target call. Passes are deterministic and bounded by a budget of target calls and time.

Why not Hypothesis's shrinker: it shrinks its own choice sequences from the start of a test and has
no public way to begin from a given failing input, while our failures come from external programs
and a saved case; greedy deterministic passes over the case's own structure are simple, predictable
and cheap in target calls (each may be a subprocess).
"""

import re
import time

from sudoku import Grid, render

from fuzz.cases import from_text, keeps_property
from fuzz.oracles import can_fail

MAX_CALLS = 200
MAX_SECONDS = 20.0


class _Budget:
    def __init__(self, calls, seconds):
        self.calls = calls
        self.deadline = time.monotonic() + seconds

    def spend(self):
        self.calls -= 1
        return self.calls >= 0 and time.monotonic() < self.deadline


def shrink(case, oracles, same_failure, *, header=False, max_calls=MAX_CALLS, max_seconds=MAX_SECONDS):
    """The smallest case found that still fails as ``case`` does.

    ``oracles`` are the failed oracles of the signature; ``same_failure(candidate) -> bool`` asks the
    target and compares signatures. Create cases are not shrunk (their input is empty).
    """
    if case.command != "solve":
        return case
    budget = _Budget(max_calls, max_seconds)
    family = case.family

    def still(candidate):
        return (keeps_property(family, candidate) and all(can_fail(oracle, candidate) for oracle in oracles)
                and budget.spend() and same_failure(candidate))

    if case.puzzle is not None and not family.startswith(("malformed", "whitespace")):
        case = _fewer_clues(case, still, header)
    else:
        case = _zeroed_digits(case, still)
    return _shorter_text(case, still)


def _fewer_clues(case, still, header):
    cells = list(case.puzzle.cells)
    changed = True
    while changed:
        changed = False
        for index in range(len(cells)):
            if not cells[index]:
                continue
            trial = cells[:]
            trial[index] = 0
            grid = Grid(case.puzzle.box, trial)
            candidate = from_text(case.family, "solve", render(grid, "header" if header else "grid").encode(),
                                  side=case.side)
            if still(candidate):
                cells, case, changed = trial, candidate, True
    return case


_DIGIT = re.compile(rb"(?<![\d-])[1-9](?!\d)")


def _zeroed_digits(case, still):
    """Text that is not a puzzle (malformed, or in an unusual spelling) loses its givens, each digit
    1..9 turned into 0, so what is left to see is what breaks the target. All at once first, then
    halves, quarters, ...: most bugs do not care about the givens, and then one call does it."""
    size = len(_DIGIT.findall(case.text))
    while size >= 1:
        start = 0
        while True:
            positions = [m.start() for m in _DIGIT.finditer(case.text)]
            if start >= len(positions):
                break
            chosen = set(positions[start : start + size])
            trial = bytes(48 if i in chosen else b for i, b in enumerate(case.text))
            candidate = from_text(case.family, "solve", trial, side=case.side)
            if not still(candidate):
                start += size
            else:
                case = candidate  # the zeroed digits left the list: the next chunk starts here
        size //= 2
    return case


def _shorter_text(case, still):
    """Delete whole lines, then runs of characters halving in length (a ddmin-like pass)."""
    text = case.text
    lines = text.split(b"\n")
    i = 0
    while i < len(lines) and len(lines) > 1:
        trial = b"\n".join(lines[:i] + lines[i + 1 :])
        candidate = from_text(case.family, "solve", trial, side=case.side)
        if still(candidate):
            lines, case = lines[:i] + lines[i + 1 :], candidate
        else:
            i += 1
    text = case.text
    size = max(1, len(text) // 2)
    while size >= 1:
        start = 0
        while start < len(text):
            trial = text[:start] + text[start + size :]
            candidate = from_text(case.family, "solve", trial, side=case.side)
            if trial != text and still(candidate):
                text, case = trial, candidate
            else:
                start += size
        size //= 2
    return case

"""Probing a program's dialect: which arguments and text format make it work, before a run.

Programs written to the classic contract differ in small ways (``create`` or ``create easy`` or
``create easy 9``; ``solve`` or ``solve easy``; a grid, or a grid after its box size). ``probe``
tries each spelling with a known-good case and keeps those the program understands, so a user learns
the options for ``fuzz run`` instead of reading a run full of failures caused by one wrong argument.

A spelling is judged by whether the program *understood* it, not by whether its answer is right: a
``create`` that prints a readable grid is the right spelling even when the puzzle has a bug (38
blanks, two solutions), and a ``solve`` that prints a grid for the known-good puzzle speaks the
format even if the grid is wrong. Those bugs are what ``fuzz run`` is for; the probe names them as
it goes ("understood; its answer: create_blanks: ...") so the user is not surprised.
"""

from collections import namedtuple
from collections.abc import Callable
from typing import Any

from fuzz.cases import from_text, known_good, space_after_each
from fuzz.oracles import judge_create, judge_solve

CREATE_ARGS = ("create", "create easy", "create 9", "create easy 9")
SOLVE_ARGS = ("solve", "solve easy", "solve 9")
FORMATS = ("grid", "header")
_NOT_UNDERSTOOD = {"no_timeout", "no_flood", "no_crash", "answers", "create_answers"}  # no readable answer

Finding = namedtuple("Finding", "create_args solve_args format tried")
Finding.__doc__ = """What a probe found: the first create arguments that gave a readable puzzle (None if
none), the first solve arguments and input format whose answer was a readable grid (None if none;
of two, the one right with the fewest slips), and every (what, outcome) tried."""


def probe(make: Callable[[str, str, bool], Any], *, side: int = 9) -> Finding:
    """Try each solve spelling in each input format, then each create spelling, on targets made by
    ``make(create_args, solve_args, header)``."""
    tried: list[tuple[str, str]] = []
    solves: list[tuple[bool, bool, int, int, str, str]] = []
    for fmt in FORMATS:
        header = fmt == "header"
        text = known_good(header=header, side=side)
        case = from_text("probe", "solve", text, side=side)
        for args in SOLVE_ARGS:
            target = make("create", args, header)
            verdict = judge_solve(case, target.solve(text), side=side, header=header)
            understood, outcome = _outcome(verdict)
            spaced = False
            if not understood:  # a reader that takes a number only before a space (fuzz run finds it too)
                again = space_after_each(text)
                verdict_spaced = judge_solve(case._replace(text=again), target.solve(again), side=side, header=header)
                spaced, outcome_spaced = _outcome(verdict_spaced)
                if spaced:
                    verdict, understood = verdict_spaced, True
                    outcome = (f"{outcome}; with a space after every number: {outcome_spaced} (fuzz run finds "
                               "this reader and spells every other puzzle so)")
            tried.append((f"--format {fmt} --solve-args '{args}'", outcome))
            if understood:  # right answers first, the classic text, fewer slips, then the earlier spelling
                solves.append((bool(verdict.failed), spaced, len(verdict.slips), SOLVE_ARGS.index(args), fmt, args))
                break  # a later spelling of the same format adds nothing
    best = min(solves) if solves else None
    format_found, solve_found = (best[4], best[5]) if best else (None, None)
    create_found = None
    for args in CREATE_ARGS:
        target = make(args, solve_found or "solve", format_found == "header")
        verdict = judge_create([target.create(side=side) for _ in range(2)], side=side, header=target.header)
        understood, outcome = _outcome(verdict)
        tried.append((f"--create-args '{args}'", outcome))
        if understood:
            create_found = args
            break
    return Finding(create_found, solve_found, format_found, tried)


def _outcome(verdict: Any) -> tuple[bool, str]:
    """(whether the program understood the call: a readable answer, however wrong; what it did)."""
    wrong = ", ".join(f"{name}: {failure.detail}" for name, failure in verdict.failed.items())
    if set(verdict.failed) & _NOT_UNDERSTOOD:
        return False, wrong
    if wrong:
        return True, f"understood; its answer has bugs for fuzz run to show ({wrong})"
    return True, "right" + (f" (slips: {', '.join(verdict.slips)})" if verdict.slips else "")


def options(finding: Finding) -> str:
    """The ``fuzz run`` options a finding comes to (empty when the defaults work)."""
    words = []
    if finding.create_args not in (None, "create"):
        words.append(f"--create-args '{finding.create_args}'")
    if finding.solve_args not in (None, "solve"):
        words.append(f"--solve-args '{finding.solve_args}'")
    if finding.format == "header":
        words.append("--format header")
    return " ".join(words)

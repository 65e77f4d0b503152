"""Probing a program's dialect: which arguments and text format make it work, before a run.

Programs written to the classic contract differ in small ways (``create`` or ``create easy`` or
``create easy 9``; ``solve`` or ``solve easy``; a grid, or a grid after its box size). ``probe``
tries each spelling with a known-good case and keeps those the program understands, so a user learns
the options for ``fuzz run`` instead of reading a run full of failures caused by one wrong argument.

The contract's own spelling comes first: ``create``, and ``solve`` with the classic text. When the
program does not understand it (``create`` that prints "Usage: ./sudoku create difficulty" and exits
4), that is a finding of its own (a ``Break``: the program breaks the contract, in its own words), said
before the spelling that works is offered; a run that uses a dialect asks the contract's spelling
once too and reports it apart from the bugs (``contract_breaks``, from ``fuzz.engine.prepare``), so
switching to the spelling that works never hides that the contract's own one fails.

A spelling is judged by whether the program *understood* it, not by whether its answer is right: a
``create`` that prints a readable grid is the right spelling even when the puzzle has a bug (38
blanks, two solutions), and a ``solve`` that prints a grid for the known-good puzzle speaks the
format even if the grid is wrong. Those bugs are what ``fuzz run`` is for; the probe names them as
it goes ("understood; its answer: create_blanks: ...") so the user is not surprised.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from fuzz.cases import from_text, known_good, space_after_each
from fuzz.oracles import judge_create, judge_solve

if TYPE_CHECKING:
    from fuzz.oracles import Verdict
    from fuzz.targets import Result

CREATE_ARGS = ("create", "create easy", "create 9", "create easy 9")
SOLVE_ARGS = ("solve", "solve easy", "solve 9")
FORMATS = ("grid", "header")
CONTRACT = {"create_args": "create", "solve_args": "solve", "header": False}  # the classic spelling, 9x9
_NOT_UNDERSTOOD = {"no_timeout", "no_flood", "no_crash", "answers", "create_answers"}  # no readable answer
_CONTAINED = {"no_timeout": "hangs", "no_flood": "floods its output", "no_crash": "crashes"}

Finding = namedtuple("Finding", "create_args solve_args format tried breaks")
Finding.__doc__ = """What a probe found: the first create arguments that gave a readable puzzle (None if
none), the first solve arguments and input format whose answer was a readable grid (None if none;
of two, the one right with the fewest slips), every (what, outcome) tried, and the ``Break`` of each
call of the contract's own spelling the program did not understand (create first; empty when it
keeps the contract's spelling)."""

Break = namedtuple("Break", "call exit_code said line")
Break.__doc__ = """A call of the contract's own spelling that the program did not understand: ``call``
(``create``, or ``solve`` of a known-good puzzle in the classic text), its exit code (negative: killed
by that signal), ``said``: the line of its own output that says most (``oracles.message_line``, as
the program wrote it: escape it where it is shown), and ``line``: what it did, in a line for people
(its words escaped)."""


def probe(make: Callable[[str, str, bool], Any], *, side: int = 9) -> Finding:
    """Try each solve spelling in each input format, then each create spelling, on targets made by
    ``make(create_args, solve_args, header)``; the contract's own spelling is the first try of each."""
    tried: list[tuple[str, str]] = []
    solves: list[tuple[bool, bool, int, int, str, str]] = []
    breaks: list[Break] = []
    for fmt in FORMATS:
        header = fmt == "header"
        for args in SOLVE_ARGS:
            understood, spaced, verdict, result, outcome = _solve(make("create", args, header), side=side)
            tried.append((f"--format {fmt} --solve-args '{args}'", outcome))
            if (args, header) == (CONTRACT["solve_args"], CONTRACT["header"]) and not understood:
                breaks.append(broken("solve", result, verdict))
            if understood:  # right answers first, the classic text, fewer slips, then the earlier spelling
                solves.append((bool(verdict.failed), spaced, len(verdict.slips), SOLVE_ARGS.index(args), fmt, args))
                break  # a later spelling of the same format adds nothing
    best = min(solves) if solves else None
    format_found, solve_found = (best[4], best[5]) if best else (None, None)
    create_found = None
    for args in CREATE_ARGS:
        target = make(args, solve_found or "solve", format_found == "header")
        results = [target.create(side=side) for _ in range(2)]
        verdict = judge_create(results, side=side, header=target.header)
        understood, outcome = _outcome(verdict)
        tried.append((f"--create-args '{args}'", outcome))
        if args == CONTRACT["create_args"] and not understood:
            breaks.insert(0, broken("create", results[verdict.evidence], verdict))
        if understood:
            create_found = args
            break
    return Finding(create_found, solve_found, format_found, tried, breaks)


def _solve(target: Any, *, side: int) -> tuple[bool, bool, Verdict, Result, str]:
    """Ask ``target`` to solve the known-good puzzle: (understood, understood only with a space after
    every number, the verdict, the result, what it did). A reader that takes a number only before a
    space understands the puzzle spelled so (``fuzz run`` finds that reader too, and tests past it)."""
    text = known_good(header=target.header, side=side)
    case = from_text("probe", "solve", text, side=side)
    result = target.solve(text)
    verdict = judge_solve(case, result, side=side, header=target.header)
    understood, outcome = _outcome(verdict)
    if understood:
        return True, False, verdict, result, outcome
    again = space_after_each(text)
    verdict_spaced = judge_solve(case._replace(text=again), target.solve(again), side=side, header=target.header)
    spaced, outcome_spaced = _outcome(verdict_spaced)
    if not spaced:
        return False, False, verdict, result, outcome
    return True, True, verdict_spaced, result, (f"{outcome}; with a space after every number: {outcome_spaced} "
                                                 "(fuzz run finds this reader and spells every other puzzle so)")


def _outcome(verdict: Any) -> tuple[bool, str]:
    """(whether the program understood the call: a readable answer, however wrong; what it did)."""
    wrong = ", ".join(f"{name}: {failure.detail}" for name, failure in verdict.failed.items())
    if set(verdict.failed) & _NOT_UNDERSTOOD:
        return False, wrong
    if wrong:
        return True, f"understood; its answer has bugs for fuzz run to show ({wrong})"
    return True, "right" + (f" (slips: {', '.join(verdict.slips)})" if verdict.slips else "")


def broken(call: str, result: Result, verdict: Verdict) -> Break:
    """The Break of a call of the contract's spelling that was not understood: a hang, a flood or a
    crash as its oracle says it, else its exit and what came instead of a grid; then its own words."""
    from fuzz.oracles import message_line
    from sudoku.display import visible

    contained = next((oracle for oracle in _CONTAINED if oracle in verdict.failed), None)
    if contained:
        did = f"{_CONTAINED[contained]}: {verdict.failed[contained].detail}"
    else:
        failure = verdict.failed.get("answers") or verdict.failed["create_answers"]
        did = f"exits {result.exit_code} " + {
            "exit": "with no grid on stdout" if failure.detail.endswith("no grid on stdout") else "after a grid",
            "no_grid": "with no grid on stdout", "echoed": "with its input printed back, no answer",
        }.get(failure.kind, f"with {failure.detail}")
    said = message_line(result.stderr, result.stdout)
    words = f"; it said: {visible(said, newlines=False)!r}" if said else "; it printed nothing"
    what = "'create'" if call == "create" else "'solve' of a known-good puzzle in the classic text"
    return Break(call, result.exit_code, said, f"{what} {did}{words}")


def contract_breaks(target: Any, *, side: int = 9) -> list[Break]:
    """Ask ``target`` (made with the contract's spelling, ``CONTRACT``) once for each call: one create,
    one solve of the known-good puzzle; the Break of each it does not understand, create first."""
    found: list[Break] = []
    created = target.create(side=side)
    verdict = judge_create([created], side=side, header=target.header)
    if not _outcome(verdict)[0]:
        found.append(broken("create", created, verdict))
    understood, _, verdict, result, _ = _solve(target, side=side)
    if not understood:
        found.append(broken("solve", result, verdict))
    return found


def dialect(spec: Mapping[str, Any]) -> bool:
    """Whether a target's spec (``fuzz.cli._target_spec``) asks for another spelling than the contract's."""
    return any(spec.get(key, value) != value for key, value in CONTRACT.items())


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

"""Oracles: named checks of what a target did against what its case says is right.

``judge`` returns the failed oracles (name -> what went wrong), the format slips, and the grid found.
Names, for solve cases:

- ``no_timeout``, ``no_flood`` (output past the cap), ``no_crash`` (killed by a signal, or a Python
  traceback on stderr);
- ``answers``: a puzzle with a solution gets exit 0 and a grid on stdout;
- ``valid_grid``: the grid is complete and breaks no unit; ``keeps_givens``; ``unique_solution``:
  it is the unique solution, when there is one;
- ``rejects_unsolvable``: no solution (or clashing givens) gives a non-zero exit, nothing on stdout
  and a message on stderr; ``rejects_malformed``: the same for malformed text;
- ``format``: the output is not the exact contract text (slips are named; fails only when strict).

For create cases (the target is asked twice): ``no_timeout``, ``no_crash``, ``create_answers``,
``create_blanks`` (at least 40), ``create_unique`` (our own engine counts exactly one solution),
``create_random`` (the two puzzles differ), ``format``.
"""

from collections import namedtuple

from sudoku import engines, find_clash

from fuzz.read import find_grid

Verdict = namedtuple("Verdict", "failed slips grid")

MIN_BLANKS = 40
SOLVE_ORACLES = ("no_timeout", "no_flood", "no_crash", "answers", "valid_grid", "keeps_givens", "unique_solution",
                 "rejects_unsolvable", "rejects_malformed", "format")
CREATE_ORACLES = ("no_timeout", "no_flood", "no_crash", "create_answers", "create_blanks", "create_unique",
                  "create_random", "format")
ORACLES = tuple(dict.fromkeys(SOLVE_ORACLES + CREATE_ORACLES))


def _contained(result, failed):
    if result.timed_out:
        failed["no_timeout"] = f"no answer within {result.seconds:.1f}s"
    if result.flooded:
        failed["no_flood"] = "output past the cap"
    if result.exit_code < 0 and not result.timed_out and not result.flooded:
        failed["no_crash"] = f"killed by signal {-result.exit_code}"
    elif b"Traceback (most recent call last)" in result.stderr:
        failed["no_crash"] = "a Python traceback on stderr"


def _said(stream):
    return stream.decode("utf-8", "replace").strip().splitlines()[:1]


def judge_solve(case, result, *, header=False, strict=False):
    failed = {}
    _contained(result, failed)
    grid, slips = find_grid(result.stdout, header=header)
    if case.count is None or case.count == 0:
        name = "rejects_malformed" if case.count is None else "rejects_unsolvable"
        problems = []
        if result.exit_code == 0:
            problems.append("exit 0")
        if result.stdout.strip():
            problems.append("printed on stdout: " + (_said(result.stdout) or [""])[0][:60])
        if not result.stderr.strip():
            problems.append("no message on stderr")
        if problems and not result.timed_out:
            failed[name] = "; ".join(problems)
        return Verdict(failed, [], grid)
    if result.exit_code != 0 or grid is None:
        if not result.timed_out:
            failed["answers"] = f"exit {result.exit_code}" + ("" if grid else ", no grid on stdout") + (
                f" ({_said(result.stderr)[0][:80]})" if _said(result.stderr) else "")
        return Verdict(failed, slips, grid)
    if 0 in grid.cells or find_clash(grid):
        failed["valid_grid"] = find_clash(grid) or f"{grid.blanks} blanks left"
    changed = [i for i, (g, s) in enumerate(zip(case.puzzle.cells, grid.cells)) if g and g != s]
    if changed:
        r, c = divmod(changed[0], 9)
        failed["keeps_givens"] = f"{len(changed)} given(s) changed, first at row {r + 1}, column {c + 1}"
    if case.count == 1 and grid != case.solution and "valid_grid" not in failed and not changed:
        failed["unique_solution"] = "a valid grid, but not the puzzle's unique solution"
    if slips and strict:
        failed["format"] = ", ".join(slips)
    return Verdict(failed, slips, grid)


def can_fail(oracle, case):
    """Whether ``oracle`` judges a solve ``case`` at all: each right answer (malformed, no solution,
    solvable) has its own oracles, so a shrinker need not ask the target about the others."""
    if oracle in ("no_timeout", "no_flood", "no_crash"):
        return True
    if case.count is None:
        return oracle == "rejects_malformed"
    if case.count == 0:
        return oracle == "rejects_unsolvable"
    return oracle in ("answers", "valid_grid", "keeps_givens", "format") or (
        oracle == "unique_solution" and case.count == 1)


def judge_create(first, second, *, header=False, strict=False, check_engine="py"):
    failed = {}
    _contained(first, failed)
    _contained(second, failed)
    grid, slips = find_grid(first.stdout, header=header)
    again, _ = find_grid(second.stdout, header=header)
    if first.exit_code != 0 or grid is None:
        if not first.timed_out:
            failed["create_answers"] = f"exit {first.exit_code}" + ("" if grid else ", no grid on stdout")
        return Verdict(failed, slips, grid)
    if grid.blanks < MIN_BLANKS:
        failed["create_blanks"] = f"{grid.blanks} blanks, fewer than {MIN_BLANKS}"
    count = engines.solve(grid, limit=2, engine=check_engine).count if not find_clash(grid) else 0
    if count != 1:
        failed["create_unique"] = "no solution" if count == 0 else "several solutions"
    if again is not None and again == grid:
        failed["create_random"] = "two creates printed the same puzzle"
    if slips and strict:
        failed["format"] = ", ".join(slips)
    return Verdict(failed, slips, grid)

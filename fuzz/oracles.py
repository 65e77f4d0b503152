"""Oracles: named checks of what a target did against what its case says is right.

``judge_solve`` and ``judge_create`` return a Verdict: the failed oracles (name -> Failure: what went
wrong, and a short ``kind`` that groups like failures), the format slips, the notes, and the grid
found. Names, for solve cases:

- ``no_timeout`` (a hang: no answer after the limit in CPU time while computing, or after sitting
  blocked for the limit in wall time, or within the wall-clock backstop; see ``fuzz.targets``),
  ``no_flood`` (output past the cap), ``no_crash`` (killed by a signal, a Python traceback, or a
  sanitizer's report on stderr: ``asan at main.c:12``, ``ubsan at ...``, ``lsan at ...``, see ``fuzz.sanitize``);
- ``answers``: a puzzle with a solution gets exit 0 and a grid on stdout;
- ``valid_grid``: a grid given as an answer is complete, holds only 1..side, and breaks no unit;
  also judged when a target "solves" input it should reject (an out-of-range ``10`` kept in the
  answer is named: "row 1, column 3 is 10");
- ``keeps_givens``; ``unique_solution``: it is the unique solution, when there is one;
- ``rejects_unsolvable``: no solution (or clashing givens) gives a non-zero exit and no answer;
  ``rejects_malformed``: the same for malformed text;
- ``format``: the output is not the exact contract text (slips are named; fails only when strict).

For check cases (``--mode check``: a checker reads a grid and answers complete, incomplete or
invalid): ``check_verdict`` (the right word on stdout, and the right exit code when verdicts are
told by exit codes), beside the containment oracles and ``rejects_malformed`` (a malformed text
is rejected cleanly, or called invalid).

For create cases (the target is asked ``case.calls`` times, every answer judged): ``no_timeout``,
``no_flood``, ``no_crash``, ``create_answers``, ``create_blanks`` (at least 40 at 9x9, half the
cells otherwise), ``create_unique`` (our own engine counts exactly one solution), ``create_random``
(no two answers the same, kind ``repeat``; nor one the other in disguise, kind ``variant``: the
same canonical form, ``sudoku.canonical``, at 9x9 only; a generator that shuffles one puzzle
gives the same puzzle to anyone who solves it, and two random 9x9 puzzles are variants by chance
practically never, while at 4x4, with two essentially different full grids, a right generator
repeats itself up to symmetry within 32 creates), ``format``. A create oracle that fails on some answers only says so:
"intermittent (1 of 2 creates)".

Severity. A failure is a wrong answer, a crash, a hang, or accepting what must be rejected. Slips
are format matters, failures only with ``--strict``: decoration around a right grid, and a clean
rejection that puts its message on stdout (``error_on_stdout``) or says nothing
(``no_error_message``). Notes are never failures: ``strict_input`` (valid but unusual whitespace,
which the classic contract never promises, rejected cleanly), ``slow`` (answered, but after more
than half the limit in CPU time).
"""

import re
from collections import namedtuple
from collections.abc import Sequence
from typing import cast

from sudoku import Grid, engines, find_clash, min_blanks
from sudoku.display import counted

from fuzz.cases import Case, lenient
from fuzz.read import Reading, echoed, find_grid
from fuzz.sanitize import report_in
from fuzz.targets import BACKSTOP_FACTOR, Result

Failure = namedtuple("Failure", "detail kind where", defaults=(None,))
Failure.__doc__ = """One failed oracle: ``detail`` for people, ``kind`` a short class of it (``signal 11``,
``accepted``, ``clash``) that, with the oracle, groups failures into distinct bugs, and ``where``
the cell ({"row": r, "column": c}, 1-based) it is about, when it is about one."""

Verdict = namedtuple("Verdict", "failed slips notes grid calls calls_failed evidence showing", defaults=(None,))
Verdict.__doc__ = """A judged case: ``failed`` (oracle -> Failure), format ``slips``, ``notes``, the
``grid`` found (None when none), target ``calls`` made and ``calls_failed`` among them,
``evidence``: the index of the call whose output shows the failure (0 for a solve), and for a
create, ``showing``: each failure ("oracle:kind") -> the calls that show it (a create's several
bugs each saved with an output that shows that one; None for a solve)."""

SOLVE_ORACLES = ("no_timeout", "no_flood", "no_crash", "answers", "valid_grid", "keeps_givens", "unique_solution",
                 "rejects_unsolvable", "rejects_malformed", "format")
CHECK_ORACLES = ("no_timeout", "no_flood", "no_crash", "check_verdict", "rejects_malformed")
VERDICTS = ("complete", "incomplete", "invalid")
CREATE_ORACLES = ("no_timeout", "no_flood", "no_crash", "create_answers", "create_blanks", "create_unique",
                  "create_random", "format")
ORACLES = tuple(dict.fromkeys(SOLVE_ORACLES + CREATE_ORACLES + CHECK_ORACLES))
# The order oracles take in a signature: the first is the bug's own oracle (its corpus folder), the
# rest its consequences (a changed given also breaks the grid; accepted bad input yields a bad grid).
PRIORITY = ("no_timeout", "no_flood", "no_crash", "check_verdict", "rejects_malformed", "rejects_unsolvable", "answers",
            "keeps_givens", "unique_solution", "valid_grid", "create_answers", "create_unique", "create_blanks",
            "create_random", "format")


def _contained(result: Result, failed: dict[str, Failure], notes: list[str]) -> bool:
    """The oracles every call answers to; True when the call ended abnormally (nothing else to judge)."""
    if result.timed_out:
        failed["no_timeout"] = Failure(_hang_detail(result), "hang")
    elif result.limit and result.cpu_seconds > result.limit / 2:
        notes.append("slow")
    if result.left:  # a daemon or a background child still running after the answer
        notes.append("left_processes")
    if result.flooded:
        failed["no_flood"] = Failure("output past the cap", "flood")
    report = None if result.timed_out or result.flooded else report_in(result.stderr)
    if report:  # a memory error the plain build may hide: what the sanitizer saw, whatever the exit
        failed["no_crash"] = Failure(report.detail, report.kind)
    elif result.exit_code < 0 and not result.timed_out and not result.flooded:
        failed["no_crash"] = Failure(f"killed by signal {-result.exit_code}{_signal_name(-result.exit_code)}",
                                     f"signal {-result.exit_code}")
    elif crash := crash_in(result.stderr):
        failed["no_crash"] = Failure(*crash)
    return result.timed_out or result.flooded or result.exit_code < 0 or report is not None


def _signal_name(number: int) -> str:
    """' (SIGSEGV)' for 11: the name people know a crash by; '' for a number this system has no name for."""
    import signal

    try:
        return f" ({signal.Signals(number).name})"
    except ValueError:
        return ""


# An uncaught error as each runtime reports it on stderr (the program then exits non-zero, or aborts:
# a signal, judged above): a crash, not a refusal, whatever the input was.
# Rust: "thread 'main' panicked at ..." (1.95 adds the thread's id: "thread 'main' (26492) panicked at")
_RUST_PANIC = re.compile(rb"^thread '[^'\n]*'(?: \(\d+\))? panicked at (.*)$(?:\n(.*))?", re.M)
_GO_PANIC = re.compile(rb"^panic: (.*)\n(?:.*\n)*?goroutine \d+ \[", re.M)
_JAVA = re.compile(rb'^Exception in thread "[^"]*" ([\w.$]+)(.*)$', re.M)
_DOTNET = re.compile(rb"^Unhandled exception\. ([\w.]+)(.*)$", re.M)
_JS_FRAME = re.compile(rb"^    at .*:\d+(?::\d+)?\)?$", re.M)
_JS_ERROR = re.compile(rb"^(?:Uncaught )?((?:[A-Z]\w*)?(?:Error|Exception))\b.*$", re.M)
# where each runtime says the error was raised: the program's own frame, not the runtime's library
_PY_PLACE = re.compile(rb'^  File "(?P<path>[^"]+)", line (?P<line>\d+)', re.M)
_GO_PLACE = re.compile(rb"^\t(?P<path>(?!/usr/(?:local/)?go/)\S+\.go):(?P<line>\d+)", re.M)
_JAVA_PLACE = re.compile(rb"^\tat (?!java\.|javax\.|jdk\.|sun\.|java\.base/)[\w.$/<>]+\((?P<path>[^():]+):(?P<line>\d+)\)", re.M)
_DOTNET_PLACE = re.compile(rb"^   at .* in (?P<path>.+):line (?P<line>\d+)$", re.M)
_JS_PLACE = re.compile(rb"\A(?P<path>(?!node:)[^\n]+?):(?P<line>\d+)$", re.M)  # Node's first line
_JS_FRAME_PLACE = re.compile(rb"^    at (?:.*\()?(?P<path>(?!node:)[^()\n]+?):(?P<line>\d+):\d+\)?$", re.M)


def crash_in(stderr: bytes) -> tuple[str, str] | None:
    """(detail, kind) of an uncaught error that ``stderr`` shows: a Python traceback, a Rust or Go
    panic, an uncaught Java, .NET or JavaScript (Node) exception; None for anything else, such as a
    program's own message. The kind (in the signature) is the error's class; the detail adds its
    message and the place in the program it was raised (file and line, where the runtime says)."""
    if b"Traceback (most recent call last)" in stderr:
        error, message = _raised(stderr)
        return _crash("a Python traceback", message, _last(_PY_PLACE, stderr)), f"traceback {error}"
    if match := _RUST_PANIC.search(stderr):
        where = match.group(1)
        if where.endswith(b":") and match.group(2):  # Rust 1.73 on: 'panicked at src/main.rs:9:5:', then the message
            where = match.group(2) + b", at " + where[:-1]
        return f"a Rust panic on stderr ({_text(where)})", "panic"
    if match := _GO_PANIC.search(stderr):
        return _crash("a Go panic", _text(match.group(1)), _first(_GO_PLACE, stderr)), "panic"
    if match := _JAVA.search(stderr) or _DOTNET.search(stderr):
        error = _text(match.group(1)).rsplit(".", 1)[-1]
        runtime, place = ("Java", _first(_JAVA_PLACE, stderr)) if match.re is _JAVA else (".NET", _first(_DOTNET_PLACE, stderr))
        return (_crash(f"an uncaught {runtime} exception", error + _text(match.group(2)), place),
                f"exception {error}")
    if _JS_FRAME.search(stderr) and (match := _JS_ERROR.search(stderr)):
        error = _text(match.group(1))
        place = _first(_JS_PLACE, stderr) or _first(_JS_FRAME_PLACE, stderr)
        return _crash("an uncaught JavaScript exception", _text(match.group(0)), place), f"exception {error}"
    return None


def _crash(what: str, message: str, place: str | None) -> str:
    return f"{what} on stderr ({message}" + (f", at {place}" if place else "") + ")"


def _first(pattern: re.Pattern[bytes], stderr: bytes) -> str | None:
    """The place (file name and line) of the first match of ``pattern`` in ``stderr``."""
    match = pattern.search(stderr)
    return _place(match) if match else None


def _last(pattern: re.Pattern[bytes], stderr: bytes) -> str | None:
    """The place of the last match (a Python traceback lists the innermost frame last)."""
    found = list(pattern.finditer(stderr))
    return _place(found[-1]) if found else None


def _place(match: re.Match[bytes]) -> str:
    """file:line, the file by its name only (the folder is the case's or the user's, not news)."""
    path, line = match.group("path").decode("utf-8", "replace"), match.group("line").decode()
    return _text(f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{line}".encode(), 60)


def _text(raw: bytes, width: int = 80) -> str:
    text = raw.decode("utf-8", "replace").strip()
    return text if len(text) <= width else text[: width - 3] + "..."


def _raised(stderr: bytes) -> tuple[str, str]:
    """The exception a Python traceback ends with ("IndexError") and its line ("IndexError: list
    index out of range"), or "exception" twice."""
    for line in reversed(stderr.decode("utf-8", "replace").strip().splitlines()):
        match = re.match(r"([A-Za-z_][\w.]*)(?::|$)", line.strip())
        if match and not line.startswith(" "):
            name = match.group(1).rsplit(".", 1)[-1]
            return name, _text((name + line.strip()[len(match.group(1)):]).encode())
    return "exception", "exception"


def ending(result: Result) -> str:
    """How a call ended, for people: 'exit 2', 'killed by signal 11 (SIGSEGV)', or for a hang, which
    fuzz itself stopped, by which rule: 'killed by fuzz after 5s of CPU (hang)'. Never the
    harness's own SIGKILL as 'exit -9', which reads as a crash of the program's."""
    if result.timed_out:
        limit = result.limit or result.seconds
        if result.hang == "blocked":
            return f"killed by fuzz after {limit:g}s blocked (hang)"
        if result.hang == "wall":
            return f"killed by fuzz at the {limit * BACKSTOP_FACTOR:g}s wall backstop (hang)"
        return f"killed by fuzz after {limit:g}s of CPU (hang)"
    if result.exit_code < 0:
        return f"killed by signal {-result.exit_code}{_signal_name(-result.exit_code)}"
    return f"exit {result.exit_code}"


def _hang_detail(result: Result) -> str:
    """What a hung call did, by the rule that stopped it (see ``fuzz.targets``)."""
    limit = result.limit or result.seconds
    cpu, wall = result.cpu_seconds, result.seconds
    if result.hang == "cpu":
        return f"no answer after {limit:g}s of CPU (wall {wall:.1f}s)"
    if result.hang == "blocked":
        return f"blocked {limit:g}s without answering (cpu {cpu:.1f}s, wall {wall:.1f}s)"
    if result.hang == "wall":
        return f"no answer within the {limit * BACKSTOP_FACTOR:g}s wall backstop (cpu {cpu:.1f}s)"
    return f"no answer within {limit:g}s (cpu {cpu:.1f}s)"


def said(stream: bytes, width: int = 80) -> str:
    """The first line a stream holds, cut to ``width`` (empty when none)."""
    lines = stream.decode("utf-8", "replace").strip().splitlines()
    return lines[0][:width] if lines else ""


def _exit(result: Result) -> str:
    message = message_line(result.stderr)
    return f"exit {result.exit_code}" + (f" ({message})" if message else "")


def _validity(reading: Reading, side: int) -> Failure | None:
    """Failure of ``valid_grid`` for a grid read from an answer, or None."""
    if reading.out_of_range:
        r, c, v = reading.out_of_range[0]
        more = f" (and {len(reading.out_of_range) - 1} more)" if len(reading.out_of_range) > 1 else ""
        return Failure(f"row {r}, column {c} is {v}, outside 1..{side}{more}", "out_of_range", {"row": r, "column": c})
    clash = find_clash(reading.grid)
    if clash:
        return Failure(clash, "clash")
    if reading.grid.blanks:
        return Failure(f"{reading.grid.blanks} blanks left", "blanks")
    return None


def _verdict(failed: dict[str, Failure], slips: list[str], notes: list[str], grid: Grid | None, *, strict: bool,
             calls: int = 1, calls_failed: int | None = None, evidence: int = 0, extra: str | None = None) -> Verdict:
    if slips and strict:  # grouped by the slips themselves: a header line and a boxed grid are two bugs
        quoted = f" ({_quoted(extra)})" if extra and "extra_text" in slips else ""
        failed["format"] = Failure(", ".join(slips) + quoted, ",".join(slips))
    if calls_failed is None:
        calls_failed = int(bool(failed))
    return Verdict(failed, slips, notes, grid, calls, calls_failed, evidence)


def judge_contained(result: Result) -> Verdict:
    """Judge a call by the containment oracles alone (no hang, no flood, no crash): for a case whose
    right answer is unknown (its reference failed on it)."""
    failed: dict[str, Failure] = {}
    notes: list[str] = []
    _contained(result, failed, notes)
    return _verdict(failed, [], notes, None, strict=False)


def judge_solve(case: Case, result: Result, *, side: int = 9, header: bool = False, strict: bool = False) -> Verdict:
    failed: dict[str, Failure] = {}
    notes: list[str] = []
    abnormal = _contained(result, failed, notes)
    reading = find_grid(result.stdout, side=side, header=header, given=case.text)
    slips = list(reading.slips)
    if abnormal:
        return _verdict(failed, slips, notes, reading.grid, strict=False)
    if case.count is None or case.count == 0:
        slips = []  # no answer is wanted: only where the refusal went is a slip
        _judge_rejection(case, result, reading, failed, slips, side)
        return _verdict(failed, slips, notes, reading.grid, strict=strict)
    if result.exit_code != 0 and reading.grid is None and lenient(case.family):
        notes.append("strict_input")
        slips = []
        _rejection_slips(result, slips)
        return _verdict(failed, slips, notes, None, strict=strict)
    if result.exit_code != 0 or reading.grid is None:
        kind = "exit" if result.exit_code != 0 else "echoed" if echoed(reading) else "no_grid"
        why = ", its input printed back, no answer" if echoed(reading) else ", no grid on stdout"
        failed["answers"] = Failure(_exit(result) + ("" if reading.grid else why), kind)
        return _verdict(failed, slips, notes, reading.grid, strict=False)
    invalid = _validity(reading, side)
    if invalid:
        failed["valid_grid"] = invalid
    grid = reading.grid
    changed, where = _givens_changed(case.puzzle, grid)
    if where:
        failed["keeps_givens"] = Failure(f"{counted(len(changed), 'given')} changed, first at row {where['row']}, column "
                                         f"{where['column']}", "changed", where)
    if case.count == 1 and grid != case.solution and not invalid and not changed:
        failed["unique_solution"] = Failure("a valid grid, but not the puzzle's unique solution", "other_solution")
    return _verdict(failed, slips, notes, grid, strict=strict, extra=reading.extra)


def _quoted(line: str) -> str:
    """An extra line for a failure's detail: quoted, control characters shown, cut to 60."""
    from sudoku.display import visible

    shown = visible(line, newlines=False)
    return repr(shown if len(shown) <= 60 else shown[:57] + "...")


def _rejection_slips(result: Result, slips: list[str]) -> None:
    if result.stdout.strip():
        slips.append("error_on_stdout")
    elif not result.stderr.strip():
        slips.append("no_error_message")


def _judge_rejection(case: Case, result: Result, reading: Reading, failed: dict[str, Failure], slips: list[str],
                     side: int) -> None:
    """A case whose right answer is a rejection: non-zero exit and no answer. The message's stream is
    a slip; exit 0 or printing a complete grid is a failure, of one of three kinds, each its own fix:
    ``accepted`` (a grid of its own printed: the input was taken as a puzzle), ``echoed`` (the input
    printed back as its answer: a solver whose failure is ignored, a full grid taken as solved) and
    ``wrong_exit`` (refused, with no grid, but exit 0: how its refusals exit)."""
    name = "rejects_malformed" if case.count is None else "rejects_unsolvable"
    answered = reading.grid is not None and (reading.grid.blanks == 0 or reading.out_of_range)
    if result.exit_code == 0:
        parts = ["exit 0"]
        if reading.grid is not None:
            parts.append("printed a grid")
        elif echoed(reading):
            parts.append("printed its input back")
        elif result.stdout.strip():
            parts.append(f"printed {said(result.stdout, 60)!r}")
        if not result.stderr.strip():
            parts.append("nothing on stderr")
        changed, where = _changed_givens(case, reading)
        # a given it changed to make its "answer" is named, not grouped
        kind = "accepted" if reading.grid is not None else "echoed" if echoed(reading) else "wrong_exit"
        failed[name] = Failure(", ".join(parts) + changed, kind, where)
    elif answered:
        failed[name] = Failure(f"{_exit(result)}, but a grid on stdout", "answered")
    else:
        _rejection_slips(result, slips)
    if reading.grid is not None and (result.exit_code == 0 or answered):
        invalid = _validity(reading, side)
        if invalid:
            failed["valid_grid"] = invalid


def _changed_givens(case: Case, reading: Reading) -> tuple[str, dict[str, int] | None]:
    """'; the grid changes N givens, first ...' and that cell, for a grid printed for a puzzle that
    has no solution (a program that 'repairs' such a puzzle by overwriting a given), else ('', None)."""
    grid, puzzle = reading.grid, case.puzzle
    if grid is None or puzzle is None or grid.side != puzzle.side:
        return "", None
    changed, where = _givens_changed(puzzle, grid)
    if not where:
        return "", None
    return (f"; the grid changes {counted(len(changed), 'given')}, first at row {where['row']}, column {where['column']}: "
            f"{grid.cells[changed[0]]} for the given {puzzle.cells[changed[0]]}"), where


def _givens_changed(puzzle: Grid, grid: Grid) -> tuple[list[int], dict[str, int] | None]:
    """The cells whose given ``grid`` does not keep, and the first as {"row", "column"} (1-based; None
    when every given is kept): for a solve's keeps_givens and for a refusal's grid alike."""
    changed = [i for i, (given, value) in enumerate(zip(puzzle.cells, grid.cells)) if given and value != given]
    if not changed:
        return [], None
    r, c = divmod(changed[0], puzzle.side)
    return changed, {"row": r + 1, "column": c + 1}


def can_fail(oracle: str, case: Case) -> bool:
    """Whether ``oracle`` judges a solve ``case`` at all: each right answer (malformed, no solution,
    solvable) has its own oracles, so a shrinker need not ask the target about the others."""
    if oracle in ("no_timeout", "no_flood", "no_crash", "valid_grid", "format"):
        return True
    if case.count is None:
        return oracle == "rejects_malformed"
    if case.count == 0:
        return oracle == "rejects_unsolvable"
    return oracle in ("answers", "keeps_givens") or (oracle == "unique_solution" and case.count == 1)


def judge_create(results: Sequence[Result], *, side: int = 9, header: bool = False, strict: bool = False,
                 check_engine: str = "py") -> Verdict:
    """Judge every answer of a create case; ``results`` holds one Result per call."""
    failed: dict[str, Failure] = {}
    notes: list[str] = []
    per_call = [_judge_one_create(result, side, header, check_engine, notes) for result in results]
    grids = [grid for _, grid, _ in per_call]
    alike = _alike(grids)
    seen: dict[Grid, int] = {}
    forms: dict[Grid, int] = {}
    for index, grid in enumerate(grids):
        if grid is not None and grid in seen:
            per_call[index][0].setdefault("create_random", Failure(
                f"create {index + 1} printed the same puzzle as create {seen[grid] + 1}", "repeat"))
        elif grid is not None:
            seen[grid] = index
            form = _form(grid) if grid in alike else None
            if form is not None and form in forms:
                per_call[index][0].setdefault("create_random", Failure(
                    f"create {index + 1} printed the puzzle of create {forms[form] + 1} in disguise (digits "
                    "relabelled, rows or columns permuted, or transposed)", "variant"))
            elif form is not None:
                forms[form] = index
    # under --strict a call whose text slipped failed too (a format bug on every create is no intermittent one)
    failing = [bool(call_failed) or (strict and bool(said[0])) for call_failed, _, said in per_call]
    calls_failed = sum(failing)
    evidence = next((i for i, (call_failed, _, _) in enumerate(per_call) if call_failed),
                    next((i for i, failed_call in enumerate(failing) if failed_call), 0))
    for call_failed, _, _ in per_call:
        for oracle, failure in call_failed.items():
            if oracle not in failed:
                count = sum(oracle in f for f, _, _ in per_call)
                share = (f"intermittent ({count} of {len(per_call)} creates): "
                         if count < len(per_call) and oracle != "create_random" else "")
                failed[oracle] = Failure(share + failure.detail, failure.kind)
    slips, extra = per_call[evidence][2]
    showing: dict[str, tuple[int, ...]] = {}
    for index, (call_failed, _, _) in enumerate(per_call):
        for oracle, failure in call_failed.items():
            showing[f"{oracle}:{failure.kind}"] = showing.get(f"{oracle}:{failure.kind}", ()) + (index,)
    return _verdict(failed, slips, sorted(set(notes)), grids[evidence], strict=strict, calls=len(results),
                    calls_failed=calls_failed, evidence=evidence, extra=extra)._replace(showing=showing)


VARIANT_BOXES = (3,)  # where chance never makes two random creates variants (not 4x4: seen 1 in 32)


def _alike(grids: Sequence[Grid | None]) -> set[Grid]:
    """The distinct grids that share their fingerprint (``sudoku.bank.fingerprint``, which no
    symmetry changes) with another: only they can be variants of one another, so only their
    canonical forms (2-5 ms each) are computed. Random creates almost never share one: that was
    15 % of a fuzz worker's time against our own engine."""
    from sudoku.bank import fingerprint

    groups: dict[object, list[Grid]] = {}
    for grid in {grid for grid in grids if grid is not None and grid.box in VARIANT_BOXES}:
        groups.setdefault(fingerprint(grid), []).append(grid)
    return {grid for group in groups.values() if len(group) > 1 for grid in group}


def _form(grid: Grid) -> Grid | None:
    """The canonical form of a created grid (``sudoku.canonical``), None where a variant is no
    evidence (4x4: few puzzles up to symmetry) or there is no canonical form (above 9x9)."""
    from sudoku.canonical import canonical

    return canonical(grid) if grid.box in VARIANT_BOXES else None


def _judge_one_create(result: Result, side: int, header: bool, check_engine: str,
                      notes: list[str]) -> tuple[dict[str, Failure], Grid | None, tuple[list[str], str | None]]:
    """(failed oracles, grid or None, (slips, first extra line)) of one create answer."""
    failed: dict[str, Failure] = {}
    if _contained(result, failed, notes):
        return failed, None, ([], None)
    reading = find_grid(result.stdout, side=side, header=header)
    if "no_crash" in failed and result.exit_code != 0:  # a traceback and an exit: the crash is the bug,
        return failed, None, (reading.slips, reading.extra)  # its missing puzzle a consequence, not a second bug
    if result.exit_code != 0 or reading.grid is None:
        failed["create_answers"] = Failure(_exit(result) + ("" if reading.grid else ", no grid on stdout"),
                                           "exit" if result.exit_code != 0 else "no_grid")
        return failed, None, (reading.slips, reading.extra)
    grid = reading.grid
    if reading.out_of_range:
        failed["create_answers"] = Failure(cast(Failure, _validity(reading, side)).detail, "out_of_range")
        return failed, None, (reading.slips, reading.extra)
    wanted = min_blanks(grid.box)
    if grid.blanks < wanted:
        failed["create_blanks"] = Failure(f"{grid.blanks} blanks, fewer than {wanted}", "few_blanks")
    counter = check_engine if engines.supports(check_engine, grid.box) else "py"  # band counts 9x9 only
    count = engines.solve(grid, limit=2, engine=counter).count if not find_clash(grid) else 0
    if count != 1:
        failed["create_unique"] = Failure("no solution" if count == 0 else "several solutions",
                                          "no_solution" if count == 0 else "several_solutions")
    return failed, grid, (reading.slips, reading.extra)


def said_verdict(stdout: bytes, words: Sequence[str] = VERDICTS) -> str | None:
    """The verdict a checker printed: the first of ``words`` (complete, incomplete, invalid, in that
    order, or a program's own three) found as a word on stdout, case-insensitive; None if none."""
    import re

    text = stdout.decode("utf-8", "replace").lower()
    found = [(match.start(), verdict) for word, verdict in zip(words, VERDICTS)
             for match in [re.search(rf"(?<![a-z]){re.escape(word.lower())}(?![a-z])", text)] if match]
    return min(found)[1] if found else None


def judge_check(case: Case, result: Result, *, words: Sequence[str] = VERDICTS, exits: Sequence[int] | None = None,
                strict: bool = False) -> Verdict:
    """Judge a checker's answer: ``words`` are its three verdict words, ``exits`` its three verdict
    exit codes (None: the exit code does not carry the verdict)."""
    failed: dict[str, Failure] = {}
    notes: list[str] = []
    if _contained(result, failed, notes):
        return _verdict(failed, [], notes, None, strict=False)
    said = said_verdict(result.stdout, words)
    by_exit = VERDICTS[exits.index(result.exit_code)] if exits and result.exit_code in exits else None
    if case.verdict is None:  # malformed: a clean rejection, or "invalid"
        if said == "invalid" or (said is None and result.exit_code != 0 and not (exits and by_exit)):
            return _verdict(failed, [], notes, None, strict=False)
        failed["rejects_malformed"] = Failure(f"{_exit(result)}, said {said or 'nothing'}", f"said_{said}")
        return _verdict(failed, [], notes, None, strict=False)
    wanted = case.verdict
    if said != wanted or (exits and by_exit != wanted):
        got = said if said != wanted else f"{said} with exit {result.exit_code}"
        # the kind is the verdict missed: a checker that forgets the box rule calls a box clash complete
        # on a full grid and incomplete on one with blanks, one bug (the detail says which it said)
        failed["check_verdict"] = Failure(f"said {got or 'nothing'} ({_exit(result)}), expected {wanted}",
                                          f"missed_{wanted}")
    return _verdict(failed, [], notes, None, strict=False)


def exit_class(result: Result) -> str:
    """How a call ended, as a bug signature sees it: a hang (computing, or blocked: a solver that
    spins and a reader that waits for more input are two bugs), a flood, a signal, exit 0 or not (the
    exact non-zero code says little: a program's rejections differ in code more than in kind)."""
    if result.timed_out:  # a program computing forever and one waiting forever are two bugs
        return {"cpu": "hang computing", "blocked": "hang blocked"}.get(result.hang, "timeout")
    if result.flooded:
        return "flood"
    if result.exit_code < 0:
        return f"signal {-result.exit_code}"
    return "exit 0" if result.exit_code == 0 else "exit non-zero"


def message_line(stderr: bytes, stdout: bytes = b"") -> str:
    """The line of what a call said that says what went wrong, not where: the error a Python
    traceback or syntax error ends with ("SyntaxError: invalid syntax", not its 'File "...", line
    3' frame, a place in the program that is no place in its input), else the first line of
    ``stderr``, else of ``stdout``."""
    if b"Traceback (most recent call last)" in stderr or _PY_PLACE.search(stderr):
        error, line = _raised(stderr)
        if error != "exception":
            return line
    return said(stderr) or said(stdout)


def message_class(result: Result) -> str:
    """The class of what a call said (``message_line``): lower case, numbers and punctuation made
    alike, and the program's paths left out ("Needs at least 25 numbers" and "format of input is
    incorrect" are two classes; "row 3 has two 5s" and "row 7 has two 1s" are one; "./a/sudoku:
    bad row" and "/tmp/b/sudoku: bad row" are one)."""
    words = [word for word in message_line(result.stderr, result.stdout).lower().split() if "/" not in word and "\\" not in word]
    text = re.sub(r"\d+", "#", " ".join(words))
    return " ".join(re.sub(r"[^a-z#]+", " ", text).split())[:40]


def signature(case_class: str, verdict: Verdict, result: Result) -> str | None:
    """The failure's signature, which groups failing cases into distinct bugs (as a crash triager
    groups crashes): the behaviour, never the case family. A solve's signature is its first failed
    oracle in ``PRIORITY`` (the others are its consequences: a changed given also breaks the grid)
    with its kind, and an answer holding numbers out of range when it has one (a bug of its own),
    the case's class (``cases.case_class``) and how the call ended; a refused puzzle adds the class
    of the message (two refusals that say different things are two bugs). A create's signature
    holds every failed create oracle (each its own behaviour: triage groups them one by one), e.g.
    ``rejects_malformed:accepted on malformed (exit 0)``. None when nothing failed."""
    if not verdict.failed:
        return None
    order = [oracle for oracle in PRIORITY if oracle in verdict.failed]
    parts = order if case_class == "create" else order[:1]
    if parts[0] != "valid_grid" and getattr(verdict.failed.get("valid_grid"), "kind", None) == "out_of_range":
        parts = parts + ["valid_grid"]
    failures = "+".join(f"{oracle}:{verdict.failed[oracle].kind}" for oracle in parts)
    ended = exit_class(result)
    if order[0] == "answers" and result.exit_code > 0:
        ended += f": {message_class(result)!r}" if message_class(result) else ""
    return f"{failures} on {case_class} ({ended})"


def parts_of(signature_text: str) -> list[str]:
    """A signature's behaviours, one signature each (a create case's failed oracles are separate
    bugs: a program may repeat itself and, apart from that, make puzzles with several solutions)."""
    failures, rest = signature_text.split(" on ", 1)
    return [f"{part} on {rest}" for part in failures.split("+")]


def oracles_of(signature_text: str) -> list[str]:
    """The oracle names a signature holds, in ``PRIORITY`` order (the bug's own oracle first)."""
    return [part.split(":", 1)[0] for part in signature_text.split(" on ", 1)[0].split("+")]


def differ(answers: Sequence[str | None], expected: str | None) -> list[tuple[str, int, int] | None]:
    """The differential check of one puzzle with one solution, answered by several targets.

    ``answers`` holds each target's grid (a ``line`` string) when it exited 0 with one, else None;
    ``expected`` the solution. A list, per target: None, or ('differs', how many of the other
    answering targets it disagrees with, how many answered besides it), or ('oracle_doubted', ...)
    when all targets answered the same grid and it is not ``expected``.
    """
    given = [answer for answer in answers if answer is not None]
    out: list[tuple[str, int, int] | None] = [None] * len(answers)
    if len(given) < 2:
        return out
    if len(set(given)) == 1:
        if given[0] != expected and len(given) == len(answers):
            out = [("oracle_doubted", 0, len(given) - 1)] * len(answers)
        return out
    for position, answer in enumerate(answers):
        if answer is not None and answer != expected:
            others = [other for place, other in enumerate(answers) if place != position and other is not None]
            out[position] = ("differs", sum(other != answer for other in others), len(others))
    return out

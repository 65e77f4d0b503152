"""A bug in words a student reads: a **title** (what the program did, as a sentence), its **cause** in
one line where it can be known, and a **help** line on where to look. The signature stays the bug's
id (``fuzz.oracles.signature``); nothing here is used to group bugs.

A title is made from the signature's oracle and kind (every pair ``fuzz.oracles`` and
``fuzz.sanitize`` can produce has its wording here: ``KNOWN``) and the case class ("a puzzle that
has no solution", "malformed input"). A cause is computed from the case itself where the harness
can know it: what makes an unsolvable puzzle so (``sudoku.techniques.why_no_solution``: the givens'
clash, a digit with no place, a cell with no candidate), two solutions of a create's puzzle and the
cells where they differ, what makes malformed text malformed (our parser's own complaint), the cell
where an answer breaks a given; elsewhere it is the failure's own detail. The words are computed
here, in ``fuzz``, and stored in the manifest's group record (``fuzz.summary.group_record``):
``reports`` may not import this module, so it reads them from there.
"""

from __future__ import annotations

import functools
import re
from collections import namedtuple
from collections.abc import Mapping
from typing import Any

from fuzz.oracles import ORACLES

Words = namedtuple("Words", "title cause help")
Words.__doc__ = """A bug for people: ``title`` (a sentence), ``cause`` (one line, '' when unknown) and
``help`` (where to look)."""

# the case class is a word (older corpora wrote the family there: 'on whitespace_tabs (exit 0)')
_SIGNATURE = re.compile(r"^(?P<parts>.*?) on (?P<cls>create|check|malformed|unsolvable|solvable|\w+) \((?P<ended>.*)\)$",
                        re.S)
SUBJECTS = {"unsolvable": "a puzzle that has no solution", "malformed": "malformed input",
            "solvable": "a puzzle that has a solution", "check": "a grid to check", "create": "create"}
SANITIZERS = {"asan": "AddressSanitizer", "lsan": "LeakSanitizer", "msan": "MemorySanitizer",
              "tsan": "ThreadSanitizer"}

# oracle -> kind (or a kind's first word, for kinds that carry a name: 'signal 11', 'traceback
# IndexError', 'missed_complete') -> help. Every kind the harness makes is here (tests/test_fuzz_wording.py
# reads them from fuzz/oracles.py and fuzz/sanitize.py).
HELP: dict[str, dict[str, str]] = {
    "no_timeout": {
        "hang": "a loop or search that never ends: propagate before guessing (naked and hidden singles), and "
                "give up with a non-zero exit as soon as a cell has no candidate left",
        "hang blocked": "a read that waits for input that never comes: stop reading at the end of input (EOF) and "
                        "refuse input that is too short",
    },
    "no_flood": {"flood": "a loop that prints without end: check that the loop writing the answer stops after the "
                          "last row"},
    "no_crash": {
        "signal": "a memory error: check a value's range before using it as an index (a 10, a -1, a letter), and "
                  "check every read and allocation succeeded",
        "traceback": "an uncaught error: check the input before using it, and turn bad input into one line on "
                     "stderr and a non-zero exit",
        "panic": "an uncaught error: check the input before using it, and turn bad input into one line on stderr "
                 "and a non-zero exit",
        "exception": "an uncaught error: check the input before using it, and turn bad input into one line on "
                     "stderr and a non-zero exit",
        "asan": "a read or write past the end of an array (or of freed memory): the report names the line; check "
                "each value's range before using it as an index",
        "lsan": "memory never freed: free what you allocate, on every path out",
        "msan": "a value used before it was set: initialise the grid before reading into it",
        "tsan": "a data race between threads: guard shared data with a lock",
        "ubsan": "undefined behaviour in C (the report names the line and the operation): check the values "
                 "before that operation",
    },
    "answers": {
        "exit": "the puzzle has a solution: solve it and exit 0 (refuse only malformed input or a puzzle with no "
                "solution)",
        "no_grid": "print the solved grid on stdout: 9 lines of 9 numbers separated by single spaces",
        "echoed": "print the solved grid, not the puzzle as it was read: is the solver's result used, or the "
                  "board before solving?",
    },
    "valid_grid": {
        "out_of_range": "check each value you read is 0..9 before solving: a 10 or a -1 must be refused with a "
                        "non-zero exit, not kept as it is or read as a blank",
        "clash": "check the answer before printing it: every row, column and box holds each digit once",
        "blanks": "print only a complete solution: no 0 left in it",
    },
    "keeps_givens": {"changed": "never overwrite a given: the solver may fill only the blanks (0s)"},
    "unique_solution": {"other_solution": "a grid that keeps every given and breaks no rule is this puzzle's "
                                          "solution: check the answer against both before printing"},
    "rejects_unsolvable": {
        "accepted": "check the solver's result before printing: a puzzle with no solution must be refused with "
                    "a non-zero exit and a message on stderr",
        "answered": "when there is no solution, print no grid: only a message on stderr, and a non-zero exit",
        "echoed": "check the solver's result: when it finds no solution, refuse (a message on stderr, a non-zero "
                  "exit) instead of printing the board back",
        "wrong_exit": "a refusal must exit non-zero (exit 1), with its message on stderr",
    },
    "rejects_malformed": {
        "accepted": "check the input before solving: 9 lines of 9 numbers 0..9 separated by spaces; refuse "
                    "anything else with a message on stderr and a non-zero exit",
        "answered": "on malformed input print no grid: only a message on stderr, and a non-zero exit",
        "echoed": "check the input before solving, and refuse what is not 9 lines of 9 numbers 0..9 instead of "
                  "printing it back",
        "wrong_exit": "a refusal must exit non-zero (exit 1), with its message on stderr",
        "said": "malformed text is not a grid: refuse it (a non-zero exit) or call it invalid",
    },
    "check_verdict": {
        "missed_complete": "a grid with no blanks and no digit twice in a row, column or box is complete",
        "missed_incomplete": "a grid with blanks and no digit twice in a row, column or box is incomplete",
        "missed_invalid": "look for a digit twice in every row, every column and every box, blanks or not",
    },
    "format": {"*": "print exactly the grid: 9 lines of 9 numbers separated by single spaces, nothing else on "
                    "stdout; messages go to stderr"},
    "create_answers": {
        "exit": "create must print a puzzle and exit 0",
        "no_grid": "create must print its puzzle on stdout: 9 lines of 9 numbers 0..9, 0 for a blank",
        "out_of_range": "create must print numbers 0..9 only (0 for a blank)",
    },
    "create_blanks": {"few_blanks": "remove clues until at least 40 cells are blank (at 9x9), as long as the "
                                    "solution stays unique"},
    "create_unique": {
        "several_solutions": "after each clue removed, count the solutions (stop at 2) and put the clue back "
                             "when there are two",
        "no_solution": "make a puzzle by removing clues from a complete, valid grid, so it keeps that solution",
    },
    "create_random": {
        "repeat": "seed the random generator once, from more than the clock's second (the time in nanoseconds, "
                  "or /dev/urandom)",
        "variant": "shuffling one template grid gives one puzzle in disguise: fill an empty grid by a randomised "
                   "search instead",
    },
}
FALLBACK_HELP = "the case's input and the program's answer are shown below; the replay line runs it again"
# a call of the contract's own spelling not understood beside a dialect (``fuzz.probe.Break``): no bug group
CONTRACT_HELP = ("the contract asks `create` and `solve` with no other argument: read argv only as far as argc "
                 "goes, and take them as they are (a difficulty or a size may be offered too, never needed)")


def _kind_key(oracle: str, kind: str, ended: str) -> str:
    """The key of ``HELP[oracle]`` for a kind ('signal 11' -> 'signal', 'said_complete' -> 'said')."""
    table = HELP.get(oracle, {})
    if "*" in table:
        return "*"
    if oracle == "no_timeout" and ended == "hang blocked":
        return "hang blocked"
    for key in (kind, kind.split(" ", 1)[0], kind.split("_", 1)[0]):
        if key in table:
            return key
    return ""


def known(oracle: str, kind: str) -> bool:
    """Whether ``oracle:kind`` has words of its own (else a bug would fall back on general words)."""
    return bool(_kind_key(oracle, kind, ""))


def details_of(detail: str) -> dict[str, str]:
    """A bug's detail as triage writes it ('rejects_unsolvable: exit 0, ...; valid_grid: row 1, ...')
    split back into oracle -> detail."""
    names = "|".join(sorted(ORACLES, key=len, reverse=True))
    found = list(re.finditer(rf"(?:^|; )({names}): ", detail or ""))
    return {match.group(1): detail[match.end(): found[n + 1].start() if n + 1 < len(found) else len(detail)]
            for n, match in enumerate(found)}


def words(signature: str, details: Mapping[str, str] | None = None, *, text: bytes = b"", side: int = 9,
          actual: Mapping[str, Any] | None = None, expected: str = "") -> Words:
    """A bug's title, cause and help, from its ``signature`` and what is known of its case:
    ``details`` (oracle -> the failure's detail), the input ``text``, the grid ``side``, what the
    target did (``actual``: exit_code, stdout, cpu_s, wall_s) and what a right answer is (``expected``,
    as the corpus writes it)."""
    details = dict(details or {})
    actual = dict(actual or {})
    match = _SIGNATURE.match(signature or "")
    if not match:
        return Words("failed a check (see the details below)", "", FALLBACK_HELP)
    parts = [(part.split(":", 1) + [""])[:2] for part in match.group("parts").split("+")]
    case_class, ended = match.group("cls"), match.group("ended")
    facts = _Facts(case_class, ended, details, text, side, actual, expected)
    titles = [_title(oracle, kind, facts) for oracle, kind in parts]
    title = titles[0] + "".join(f"; it {t.removeprefix('create ')}" for t in titles[1:])
    oracle, kind = parts[0]
    cause = _cause(oracle, kind, facts)
    if len(parts) > 1 and not cause:
        cause = _cause(parts[1][0], parts[1][1], facts)
    table = HELP.get(oracle, {})
    return Words(title, _one_line(cause), table.get(_kind_key(oracle, kind, ended), FALLBACK_HELP))


def words_of(one: Any) -> Words:
    """``words`` of a saved bug (a ``triage.Saved``, or anything with its fields), computed once per
    bug (the terminal, summary.md and the manifest all ask)."""
    actual = getattr(one, "actual", None) or {}
    return _words_once(one.signature, one.detail or "", bytes(one.text or b""), getattr(one, "side", None) or 9,
                       tuple(sorted((key, value) for key, value in actual.items()
                                    if isinstance(value, (str, int, float, bool)) or value is None)),
                       getattr(one, "expected", None) or "")


@functools.lru_cache(maxsize=256)
def _words_once(signature: str, detail: str, text: bytes, side: int, actual: tuple[tuple[str, Any], ...],
                expected: str) -> Words:
    return words(signature, details_of(detail), text=text, side=side, actual=dict(actual), expected=expected)


class _Facts:
    """What the words of one bug are made from."""

    def __init__(self, case_class: str, ended: str, details: dict[str, str], text: bytes, side: int,
                 actual: dict[str, Any], expected: str) -> None:
        self.case_class, self.ended, self.details, self.text, self.side = case_class, ended, details, text, side
        self.actual, self.expected = actual, expected

    @property
    def subject(self) -> str:
        return SUBJECTS.get(self.case_class, "this input")

    @property
    def on(self) -> str:
        """' on a puzzle that has no solution' (nothing for a create: its title starts with 'create')."""
        return "" if self.case_class == "create" else f" on {self.subject}"

    @property
    def who(self) -> str:
        return "create " if self.case_class == "create" else ""

    def exit_code(self) -> Any:
        return self.actual.get("exit_code", "non-zero")

    def grid_in(self, data: bytes | str) -> Any:
        """The grid in a text (a program's stdout, or the input), or None."""
        from fuzz.read import find_grid

        raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
        grid = find_grid(raw, side=self.side).grid if raw else None
        if grid is None and raw:  # a puzzle in another format (one line of 81, the header form)
            from sudoku import InvalidPuzzle, parse

            try:
                grids = list(parse(raw.decode("utf-8").splitlines(keepends=True)))
            except (InvalidPuzzle, UnicodeDecodeError):
                grids = []
            grid = grids[0] if len(grids) == 1 and grids[0].side == self.side else None
        return grid

    def puzzle(self) -> Any:
        """The case's puzzle: its input, or for a create the puzzle it printed."""
        return self.grid_in(self.actual.get("stdout") or "" if self.case_class == "create" else self.text)


def _title(oracle: str, kind: str, facts: _Facts) -> str:
    """One failed oracle as a sentence."""
    detail = facts.details.get(oracle, "")
    on, who = facts.on, facts.who
    if oracle == "no_timeout":
        cpu, wall = facts.actual.get("cpu_s"), facts.actual.get("wall_s")
        if facts.ended == "hang blocked":
            waited = f" after {_seconds(wall)}" if isinstance(wall, (int, float)) else ""
            return f"{who}hung waiting for input: no answer{waited}, using no CPU{on}"
        spent = f" after {_seconds(cpu)} of CPU" if isinstance(cpu, (int, float)) and cpu >= 0.05 else ""
        return f"{who}hung: no answer{spent}{on}"
    if oracle == "no_flood":
        return f"{who}printed output without end (past the cap){on}"
    if oracle == "no_crash":
        return f"{who}{_crash(kind)}{on}"
    if oracle == "answers":
        if kind == "exit":
            return f"refused a puzzle that has a solution (exit {facts.exit_code()})"
        if kind == "echoed":
            return "printed the puzzle back instead of its solution, exit 0"
        return "printed no answer for a puzzle that has a solution, exit 0"
    if oracle == "valid_grid":
        if kind == "out_of_range":
            value = re.search(r" is (-?\w+), outside", detail)
            return f"printed a number out of range{f' ({value.group(1)})' if value else ''} in its answer"
        if kind == "clash":
            return "printed an answer with a digit twice in a row, column or box"
        return "printed an answer with blanks left in it"
    if oracle == "keeps_givens":
        return "changed a given of the puzzle in its answer"
    if oracle == "unique_solution":
        return "printed a grid that is not the puzzle's solution"
    if oracle in ("rejects_unsolvable", "rejects_malformed"):
        subject = facts.subject
        if kind == "accepted":
            if "printed a grid" in detail:
                return f"accepted {subject} and printed a grid, exit 0"
            printed = re.search(r"printed ('.*?'|\".*?\")", detail)
            return (f"accepted {subject} and printed {printed.group(1)}, exit 0" if printed
                    else f"accepted {subject}: exit 0")
        if kind == "answered":
            return f"printed a grid for {subject} (exit {facts.exit_code()})"
        if kind == "echoed":
            return f"printed {subject} back as if it were solved, exit 0"
        if kind == "wrong_exit":
            return f"refused {subject}, but with exit 0 (a refusal must exit non-zero)"
        said = kind.removeprefix("said_")
        return (f"called {subject} {said} instead of refusing it" if said not in ("", "None")
                else f"accepted {subject}: exit 0 and no verdict")
    if oracle == "check_verdict":
        wanted = kind.removeprefix("missed_")
        told = re.match(r"said (\w+)", detail)
        got, grid = (told.group(1) if told else ""), f"a{'n' if wanted[:1] in 'aeiou' else ''} {wanted} grid"
        if got == "nothing":
            return f"said no verdict on {grid}"
        if got == wanted:  # the right word, with the exit code of another verdict
            return f"said {wanted} on {grid}, but with the exit code of another verdict"
        return f"called {grid} {got or 'something else'}"
    if oracle == "format":
        return "printed the answer with text the contract does not allow" if "error" not in kind \
            else "refused rightly, but not as the contract says"
    if oracle == "create_answers":
        if kind == "out_of_range":
            value = re.search(r" is (-?\w+), outside", detail)
            return f"create printed a number out of range{f' ({value.group(1)})' if value else ''} in its puzzle"
        if kind == "exit":
            return f"create failed (exit {facts.exit_code()}) and printed no puzzle"
        return "create printed no puzzle, exit 0"
    if oracle == "create_blanks":
        count = re.search(r"(\d+) blanks, fewer than (\d+)", detail)
        return "create printed a puzzle with too few blanks" + (
            f" ({count.group(1)}; at least {count.group(2)} are asked)" if count else "")
    if oracle == "create_unique":
        return ("create printed a puzzle with no solution" if kind == "no_solution"
                else "create printed a puzzle with more than one solution")
    if oracle == "create_random":
        return ("create printed the same puzzle twice" if kind == "repeat"
                else "create printed one puzzle twice in disguise (digits relabelled, rows or columns moved)")
    return f"{who}failed a check{on}"


def _seconds(value: float) -> str:
    """'3 s', '12.5 s'."""
    return f"{value:.1f}".rstrip("0").rstrip(".") + " s"


def _crash(kind: str) -> str:
    """'crashed (SIGSEGV)', 'crashed with a Python IndexError', 'made a memory error at main.c:12 (found
    by AddressSanitizer)' for a no_crash kind."""
    first, _, rest = kind.partition(" ")
    if first == "signal":
        from fuzz.oracles import _signal_name

        name = _signal_name(int(rest)).strip(" ()") if rest.isdigit() else ""
        return f"crashed ({name or 'signal ' + rest})"
    if first == "traceback":
        return f"crashed with a Python {rest or 'exception'}"
    if first == "panic":
        return "crashed with a panic"
    if first == "exception":
        return f"crashed with an uncaught {rest or 'exception'}"
    at = f" {rest}" if rest.startswith("at ") else ""  # the place in the program, when the report names it
    if first == "ubsan":
        return f"did something undefined in C{at} (found by UndefinedBehaviorSanitizer)"
    if first == "lsan":
        return f"never freed memory allocated{at} (found by LeakSanitizer)"
    if first in SANITIZERS:
        return f"made a memory error{at} ({'' if at else rest + ', '}found by {SANITIZERS[first]})"
    return "crashed"


def _cause(oracle: str, kind: str, facts: _Facts) -> str:
    """Why, in one line, where the case shows it; '' where it does not (the failure's detail, which
    every bug shows beside its title, then says what was seen)."""
    if oracle == "rejects_unsolvable" or (oracle == "create_unique" and kind == "no_solution"):
        return _why_no_solution(facts)
    if oracle == "rejects_malformed" and facts.case_class == "malformed":
        return _why_malformed(facts)
    if oracle == "create_unique" and kind == "several_solutions":
        return _two_solutions(facts)
    if oracle == "keeps_givens":
        return _cells_apart(facts.puzzle(), facts.grid_in(facts.actual.get("stdout") or ""),
                            "in the puzzle", "in the answer", givens=True)
    if oracle == "unique_solution":
        return _cells_apart(facts.grid_in(facts.expected.partition("\n")[2]),
                            facts.grid_in(facts.actual.get("stdout") or ""), "in the solution", "in the answer")
    if oracle == "check_verdict":
        return _check_why(facts)
    if oracle == "format":
        from jobs.schema import FORMAT_SLIPS

        return "; ".join(FORMAT_SLIPS.get(slip, slip) for slip in kind.split(","))
    if oracle == "no_timeout" and facts.ended == "hang blocked":
        return "it sat blocked, using no CPU: it was waiting for more input than the case gives"
    return ""


def _one_line(text: str, width: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _why_no_solution(facts: _Facts) -> str:
    from sudoku.techniques import why_no_solution

    puzzle = facts.puzzle()
    if puzzle is None:
        return ""
    why = why_no_solution(puzzle)
    if why:
        return why
    from sudoku import Budget, BudgetExceeded, engines

    try:
        solved = engines.solve(puzzle, engine="py", budget=Budget(nodes=TWO_SOLUTIONS_NODES)).count
    except BudgetExceeded:
        return ""
    if solved:  # a --reference refused it, and overruled our engine
        return "our engine finds a solution: the reference refused this puzzle, and the run follows the reference"
    return "no single cell or digit shows it at a glance: a search finds that every way to fill it fails"


def _why_malformed(facts: _Facts) -> str:
    """Our parser's complaint about the input ('line 3: expected 9 numbers, found 8')."""
    from sudoku import InvalidPuzzle, parse

    try:
        grids = list(parse(facts.text.decode("utf-8").splitlines(keepends=True)))
    except InvalidPuzzle as error:
        return f"the input is not a puzzle: {error}"
    except UnicodeDecodeError:
        return "the input is not text (bytes that are not UTF-8)"
    if not grids:
        return "the input holds no puzzle"
    if len(grids) > 1:
        return f"the input holds {len(grids)} puzzles, not one"
    if grids[0].side != facts.side:
        return f"the input is a {grids[0].side}x{grids[0].side} grid, not {facts.side}x{facts.side}"
    return ""


def _cells_apart(one: Any, other: Any, first: str, second: str, *, givens: bool = False) -> str:
    """'r1c2 is 4 in the puzzle and 7 in the answer (3 cells differ: r1c2, r1c5, r4c2)': where two
    grids differ (only the given cells of ``one`` when ``givens``)."""
    if one is None or other is None or one.side != other.side:
        return ""
    apart = [i for i, (a, b) in enumerate(zip(one.cells, other.cells)) if a != b and (a or not givens)]
    if not apart:
        return ""
    names = [f"r{cell // one.side + 1}c{cell % one.side + 1}" for cell in apart]
    more = ""
    if len(apart) > 1:
        more = f" ({len(apart)} cells differ: {', '.join(names[:6])}" + (", ...)" if len(apart) > 6 else ")")
    return f"{names[0]} is {one.cells[apart[0]]} {first} and {other.cells[apart[0]]} {second}{more}"


def _two_solutions(facts: _Facts) -> str:
    """Two solutions of a create's puzzle and the cells where they differ."""
    puzzle = facts.puzzle()
    found = two_solutions(puzzle) if puzzle is not None else None
    if found is None:
        return ""
    from sudoku import render

    one, other = found
    apart = _cells_apart(one, other, "in one", "in the other")
    return f"{apart}; the two solutions: {render(one, 'line').strip()} and {render(other, 'line').strip()}"


TWO_SOLUTIONS_NODES = 200_000  # the search for a second solution gives up past this (a few seconds in py)


def two_solutions(puzzle: Any) -> tuple[Any, Any] | None:
    """Two different solutions of ``puzzle`` (Grids), or None when it has fewer or they take too long
    to find: the first the engine finds, then, blank by blank, the first solution with another digit
    there (a node budget, not a clock, bounds the search: the answer does not depend on the machine)."""
    from sudoku import Budget, BudgetExceeded, engines, find_clash

    if find_clash(puzzle):
        return None
    budget = Budget(nodes=TWO_SOLUTIONS_NODES)
    try:
        first = engines.solve(puzzle, limit=2, engine="py", budget=budget)
        if first.count < 2 or first.solution is None:
            return None
        for cell, given in enumerate(puzzle.cells):
            if given:
                continue
            for digit in range(1, puzzle.side + 1):
                if digit == first.solution.cells[cell]:
                    continue
                trial = puzzle.with_cell(cell, digit)
                if find_clash(trial):
                    continue
                other = engines.solve(trial, limit=1, engine="py", budget=budget)
                if other.count and other.solution is not None:
                    return first.solution, other.solution
    except BudgetExceeded:
        return None
    return None


def _check_why(facts: _Facts) -> str:
    """What the checked grid really is, and why ('invalid: row 1 has two 5s, columns 1 and 3')."""
    from sudoku import check

    grid = facts.grid_in(facts.text)
    if grid is None:
        return ""
    verdict = check(grid)
    return f"the grid is {verdict.status}: {verdict.detail}"

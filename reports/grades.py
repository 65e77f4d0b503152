"""Grades a course can import: one submission's (target's) bugs and format slips scored by a rule the
course edits (a small TOML file; ``data/grading.toml`` is the default and says how to write one), as
Gradescope's ``results.json`` and as JUnit XML.

A **rule** is a list of **lines** (``Line``), each worth some points and counting some bugs: those
whose own oracle (the first ``oracle:kind`` of the signature) it names, or, with ``slips``, the kinds
of format slip seen. Slow answers and unconfirmed failures are not bugs: only a line with ``slow`` or
``unconfirmed`` counts them. A bug counts against the first line that names it, so no bug is paid for twice.
A line with ``per_bug`` loses that much per bug counted (down to 0); without, all of it at the first.
A rule may also ask for Gradescope **leaderboard** columns (``leaderboard = ["score", "bugs"]``,
``LEADERBOARD``), so a class can rank by more than the grade.

A line that counts only refusals (``REFUSALS``: rejecting what has no solution or is malformed)
pays only a program that solved something: a program that refuses everything (a usage line and exit
2 on every call) rejects every bad input "cleanly" without having done any work.

The rule file comes from the course, so it is read as untrusted input: unknown keys, wrong types and
negative points are refused with one ``ReportError`` naming the file, the line and the key.
"""

from __future__ import annotations

import json
import os
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reports import ReportError
from sudoku.display import counted as how_many, xml_text

if TYPE_CHECKING:
    from reports.bugs import Bug

DEFAULT_RULES = Path(__file__).resolve().parent / "data" / "grading.toml"
RESULTS_SCHEMA = Path(__file__).resolve().parent / "data" / "results.schema.json"
MAX_RULES = 1 << 16  # bytes of a rule file: a few hundred is usual
ANY = "*"
REFUSALS = ("rejects_unsolvable", "rejects_malformed")  # the oracles of input a program must refuse
NOTHING_SOLVED = ("0 points: none of your program's answers to a puzzle with a solution was right, and "
                  "rejecting bad input counts only for a program that solves")


@dataclass
class Line:
    """One line of a rule: its name, points, what it counts (oracles, or slips), and how it loses."""

    name: str
    points: float
    oracles: list[str] = field(default_factory=list)
    slips: bool = False
    per_bug: float | None = None  # points lost per bug counted; None: all of them at the first
    flaky: bool = True      # flaky bugs count
    slow: bool = False      # slow answers (not bugs) count too
    unconfirmed: bool = False  # failures seen once and never in their replays (not bugs) count too

    def takes(self, bug: Bug) -> bool:
        """Whether ``bug`` (a ``reports.bugs.Bug``) is one this line names (``ANY``: every bug); a slow
        answer or an unconfirmed failure only on a line that asks for them."""
        if self.slips or (not self.flaky and bug.get("flaky")):
            return False
        if bug.status != "bug" and not getattr(self, bug.status):
            return False
        own = own_oracle(bug.get("signature", ""))
        return any(name == ANY or own == name or own.startswith(name + ":") or (":" in name and own.startswith(name))
                   for name in self.oracles)

    @property
    def refusals(self) -> bool:
        """Whether the line counts refusals only (``REFUSALS``)."""
        return not self.slips and all(name.split(":")[0] in REFUSALS for name in self.oracles)


def own_oracle(signature: object) -> str:
    """A bug's own ``oracle:kind``: the first of its signature ('keeps_givens:changed on solvable
    (exit 0)' -> 'keeps_givens:changed')."""
    return str(signature).split(" on ")[0].split("+")[0]


KEYS: dict[str, type | tuple[type, ...]] = {
    "name": str, "points": (int, float), "oracles": list, "slips": bool, "per_bug": (int, float), "flaky": bool,
    "slow": bool, "unconfirmed": bool}


LEADERBOARD = {  # column -> (its name on Gradescope's leaderboard, sort order)
    "score": ("Score", "desc"), "bugs": ("Distinct bugs", "asc"), "failed": ("Failed cases", "asc")}


def read_rules(path: str | os.PathLike[str] | None = None) -> list[Line]:
    """The lines of the rule file at ``path`` (the default rule when None)."""
    path = Path(path) if path else DEFAULT_RULES
    return [_line(path, number, test) for number, test in enumerate(_table(path)["test"], 1)]


def read_leaderboard(path: str | os.PathLike[str] | None = None) -> list[str]:
    """The leaderboard columns the rule file at ``path`` asks for (``LEADERBOARD``; none by default)."""
    path = Path(path) if path else DEFAULT_RULES
    columns = _table(path).get("leaderboard", [])
    if not isinstance(columns, list) or not all(isinstance(c, str) and c in LEADERBOARD for c in columns) \
            or len(set(columns)) != len(columns):
        raise ReportError(f"{path}: leaderboard must be a list of different columns among {', '.join(LEADERBOARD)}")
    return columns


def _table(path: Path) -> dict[str, Any]:
    """The rule file's TOML table: [[test]] tables, and a leaderboard list at most."""
    from sudoku.files import NotReadable, read_small

    try:  # a FIFO or a device is refused, not read for ever
        data = read_small(path, MAX_RULES, follow=True)
    except NotReadable as error:
        raise ReportError(f"{path}: cannot read the grading rule ({error})") from None
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ReportError(f"{path}: not TOML: {error}") from None
    except RecursionError:  # tomllib recurses once per nested bracket
        raise ReportError(f"{path}: not a grading rule: nested too deep") from None
    tests = table.get("test")
    if set(table) - {"test", "leaderboard"} or not isinstance(tests, list) or not tests:
        raise ReportError(f"{path}: a grading rule is a list of [[test]] tables (and a leaderboard list) and "
                          "nothing else")
    return table


def _line(path: Path, number: int, test: dict[str, Any]) -> Line:
    where = f"{path}: test {number}"
    for key, value in test.items():
        kinds = KEYS.get(key)
        if kinds is None:
            raise ReportError(f"{where}: unknown key {key!r} (known: {', '.join(KEYS)})")
        if not isinstance(value, kinds) or (kinds is not bool and isinstance(value, bool)):
            raise ReportError(f"{where}: {key} must be {_kind(kinds)}, not {json.dumps(value)[:40]}")
    for key in ("name", "points"):
        if key not in test:
            raise ReportError(f"{where}: no {key}")
    for key in ("points", "per_bug"):
        if key in test and not 0 <= test[key] < 1e9:
            raise ReportError(f"{where}: {key} must be 0 or more, not {test[key]}")
    oracles = test.get("oracles", [])
    if not all(isinstance(name, str) and name for name in oracles):
        raise ReportError(f"{where}: oracles must be a list of names")
    if bool(oracles) == bool(test.get("slips")):
        raise ReportError(f"{where}: give either oracles (the bugs it counts) or slips = true")
    return Line(**test)


def _kind(kinds: Any) -> str:  # a type or a tuple of types (KEYS)
    return {str: "a string", list: "a list", bool: "true or false"}.get(kinds, "a number")


@dataclass
class Scored:
    """One line of a submission's grade: the line, its score, and the bugs or slips it counted."""

    line: Line
    score: float
    counted: list[tuple[str, int | None]]  # [(title, number of the bug on the page or None)], what cost points;
    # a bug's title is followed by its lines of why, what to look at and its id
    why: str = ""  # why it scored nothing when no bug did it (a refusal line of a program that solved nothing)

    @property
    def passed(self) -> bool:
        return not self.counted and not self.why


def score(lines: Iterable[Line], bugs: Iterable[Bug], slips: Mapping[str, int], *,
          started: bool = True, solved: bool = True) -> list[Scored]:
    """Each line's score for one submission: ``bugs`` its Bugs (in the page's order, numbered from 1),
    ``slips`` {slip: cases}; a submission that did not start scores 0 on every line, and one that
    ``solved`` nothing (no solve case passed) 0 on the refusal lines."""
    left = list(enumerate(bugs, 1))
    out = []
    counted: list[tuple[str, int | None]]
    for line in lines:
        if line.slips:
            counted = [(f"{slip}: {how_many(cases, 'case')}", None) for slip, cases in slips.items()]
        else:
            mine = [(n, bug) for n, bug in left if line.takes(bug)]
            taken = {n for n, _ in mine}
            left = [(n, bug) for n, bug in left if n not in taken]
            counted = [(_title(bug), n) for n, bug in mine]
        why = NOTHING_SOLVED if started and not solved and line.refusals else ""
        if not started or why:
            value = 0.0
        elif line.per_bug is None:
            value = 0.0 if counted else float(line.points)
        else:
            value = max(0.0, float(line.points) - line.per_bug * len(counted))
        out.append(Scored(line, value, counted, why))
    return out


def lost_to(scored: Scored) -> str:
    """What cost a line its points, in a few words for the page's grade table (the bugs by their number
    on the page, the slips, or why it scored nothing), so a 0 is never shown without its reason; "" for
    a line that lost nothing, or for a program that did not start (the page says that first)."""
    if scored.why:
        return scored.why.removeprefix("0 points: ")
    return ", ".join(f"bug {number}" if number else title.partition("\n")[0] for title, number in scored.counted)


def _title(bug: Bug) -> str:
    """A bug as a grade's output lists it: its title, then why, what to look at, what was seen (its
    detail) and its id, a line each."""
    said = bug.said(str, str)
    ids = [line for line in said if line.startswith("id: ")]
    seen = [f"seen: {bug.get('detail')}"] if bug.get("detail") else []
    return "\n".join([bug.title, *(f"  {line}" for line in [*said[:len(said) - len(ids)], *seen, *ids])])


def _output(scored: Scored, started: bool, why: str) -> str:
    if not started:
        return f"Your program did not start, so nothing was tested: {why}"
    if scored.why:
        return scored.why + "." + (f"\n{_output(replace(scored, why=''), started, why)}" if scored.counted else "")
    if scored.passed:
        return "Passed: no " + ("format slip." if scored.line.slips else "bug of this kind was found.")
    what = "kind of format slip" if scored.line.slips else "bug"
    lines = [f"{how_many(len(scored.counted), what)} found"
             + (" (see feedback.md, Format slips):" if scored.line.slips else " (see feedback.md):")]
    for title, number in scored.counted:  # the bug's title, then its why, look-at and id lines
        first, _, rest = title.partition("\n")
        lines.append(f"- {first}" + (f" (bug {number})" if number else "") + (f"\n{rest}" if rest else ""))
    return "\n".join(lines)


def results_json(scored: Sequence[Scored], *, started: bool = True, why: str = "", summary: str = "",
                 markdown: bool = False, leaderboard: Sequence[dict[str, Any]] = ()) -> str:
    """Gradescope's ``results.json`` (its documented shape: ``data/results.schema.json``): ``summary``
    is its output (Markdown when ``markdown``), ``leaderboard`` its entries (``leaderboard_entries``)."""
    tests = [{"name": s.line.name, "score": s.score, "max_score": float(s.line.points),
              "status": "passed" if s.passed and started else "failed", "output": _output(s, started, why)}
             for s in scored]
    total = sum(s.score for s in scored)
    results: dict[str, Any] = {"score": total, "output": summary}
    if markdown:
        results["output_format"] = "md"
    results["tests"] = tests
    if leaderboard:
        results["leaderboard"] = list(leaderboard)
    return json.dumps(results, indent=2) + "\n"


def leaderboard_entries(columns: Sequence[str], *, score: float, bugs: int, failed: int) -> list[dict[str, Any]]:
    """Gradescope's leaderboard entries for ``columns`` (``read_leaderboard``) of one submission."""
    values = {"score": score, "bugs": bugs, "failed": failed}
    return [{"name": LEADERBOARD[column][0], "value": values[column], "order": LEADERBOARD[column][1]}
            for column in columns]


def junit_xml(scored: Sequence[Scored], *, suite: str = "sudoku", started: bool = True, why: str = "") -> str:
    """The same grade as JUnit XML: one test case per line, a failure where it lost points."""
    root = ET.Element("testsuites")
    tests = ET.SubElement(root, "testsuite", name=suite, tests=str(len(scored)),
                          failures=str(sum(not (s.passed and started) for s in scored)), errors="0")
    for s in scored:
        case = ET.SubElement(tests, "testcase", classname=suite, name=s.line.name)
        text = _output(s, started, why)
        if s.passed and started:
            ET.SubElement(case, "system-out").text = f"{s.score:g} of {s.line.points:g} points. {text}"
        else:
            failure = ET.SubElement(case, "failure", type="grade",
                                    message=f"{s.score:g} of {s.line.points:g} points")
            failure.text = text
    for element in root.iter():  # a program's output may hold bytes XML 1.0 forbids
        element.text = None if element.text is None else xml_text(element.text)
        for key, value in element.attrib.items():
            element.set(key, xml_text(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"

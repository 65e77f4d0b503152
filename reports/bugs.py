"""The distinct bugs of a fuzz run, as the reports show them: one ``Bug`` per group record of the
manifest (``manifest["fuzz"]["groups"]``), with what a person needs to find the bug by eye: the input
exactly as the program got it, the place that failed, what a right answer looks like and what came.

Newer runs write every field into the group record (``text``, ``expected``, ``actual``, ``mark``,
``families``, ``side``); older ones wrote only the shortened ``input``, so the rest is read from the
reproducer's folder (``case.json``, ``input.txt``) when it is there, and the mark of a record that
has none written (older runs) is read from the detail ("first at row 4, column 7"). A record that
says it has no mark (``"mark": null``) has none: its detail may quote the program's own words ("line
3" of its source), which are no place in the input. A bug's words (title, cause, help:
``fuzz.wording``) are computed by fuzz and read from the record; a record without them shows its
signature as its title. A folder that is gone, a link, too big or damaged just
means less is shown: every file is untrusted input.
"""

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sudoku.display import counted, mark_in

MAX_READ = 1 << 20  # bytes read of a reproducer's file; an input or output past this is shown cut
STATUSES = ("bug", "slow", "unconfirmed")  # what a group record is (its ``status``; none written: a bug)
HEADINGS = {"bug": "Distinct bugs", "slow": "Slow answers (not bugs)",
            "unconfirmed": "Unconfirmed failures (not bugs)"}
KINDS = {"bug": "distinct bug", "slow": "slow answer", "unconfirmed": "unconfirmed failure"}  # to count them
MEANINGS = {"slow": "each went over the CPU limit but answered given 4x the CPU: too slow, not endless",
            "unconfirmed": "each failed once in the run and never again in its 3 replays"}


@dataclass
class Bug:
    """One bug: the group record as written (``record``) and the fields filled for showing it."""

    record: dict[str, Any]
    text: str = ""           # the whole input (decoded with backslashreplace)
    expected: str = ""       # "exit 0 and the unique solution:\n<grid>": a caption line, then a block
    actual: dict[str, Any] = field(default_factory=dict)  # exit_code, stdout, stderr, wall_s, cpu_s
    mark: dict[str, int] | None = None      # {"row": r, "column": c}, {"line": k} or {"line": k, "column": c}, 1-based
    families: list[str] = field(default_factory=list)
    side: int | None = None

    def facts(self, text: Callable[[Any], str], code: Callable[[Any], str], *, several: bool = False) -> list[str]:
        """The bug's facts line, piece by piece, in a medium's escaping (``text`` for words, ``code``
        for a command): its cases, its detail, the families it showed on, and its target when the run
        had several."""
        cases = self.get("cases", "?")
        facts = [counted(cases, "case") if isinstance(cases, int) else f"{text(cases)} cases", text(self.get("detail", ""))]
        if self.families:
            facts.append("seen on: " + text(", ".join(self.families)))
        if several:
            facts.append(f"target {code(self.get('target', ''))}")
        return facts

    def said(self, text: Callable[[Any], str], code: Callable[[Any], str]) -> list[str]:
        """The lines under the title, in a medium's escaping: why (when known), what to look at (when
        the record says), and the bug's id (its signature, and the others it was met as; an older
        record's title is its signature, so its id line is there only for the others)."""
        also = [str(one) for one in (self.get("also") or []) if one]
        known = self.title != self.id  # an older record's title is its id: said once
        return ([f"why: {text(self.cause)}"] if self.cause else []) + (
            [f"look at: {text(self.help)}"] if self.help else []) + ([
                f"id: {code(self.id)}" + (f" (also met as: {'; '.join(code(one) for one in also)})" if also else "")]
                if known or also else [])

    @property
    def title(self) -> str:
        """The bug as a sentence (``fuzz.wording``, kept in the record); an older run's record has
        none, and its signature stands in."""
        return self._words("title") or str(self.get("signature", ""))

    @property
    def cause(self) -> str:
        """Why, in one line ('' when unknown, or in an older run's record)."""
        return self._words("cause")

    @property
    def help(self) -> str:
        """What to look at ('' in an older run's record)."""
        return self._words("help")

    @property
    def id(self) -> str:
        """The bug's id: its signature."""
        return str(self.get("signature", ""))

    def _words(self, key: str) -> str:
        value = self.get(key)
        return " ".join(value.split()) if isinstance(value, str) else ""

    def get(self, key: str, default: Any = None) -> Any:
        """A field of the group record as written (signature, cases, detail, replay, ...)."""
        return self.record.get(key, default)

    @property
    def status(self) -> str:
        """'bug', 'slow' or 'unconfirmed' (``STATUSES``); a record of an older run, with none, is a bug."""
        status = self.get("status")
        return status if status in STATUSES else "bug"

    @property
    def state(self) -> str:
        """' (flaky)' and ' (intermittent: k of m creates)' as they apply, else ''."""
        state = " (flaky)" if self.get("flaky") else ""
        return state + (f" (intermittent: {self.get('intermittent')})" if self.get("intermittent") else "")


def _read(path: Path) -> str | None:
    """A reproducer's file as text, or None: never through a link, at most MAX_READ bytes."""
    try:
        if path.is_symlink() or not path.is_file():
            return None
        with open(path, "rb") as file:
            return file.read(MAX_READ).decode("utf-8", "backslashreplace")
    except OSError:
        return None


def folder_meta(folder: object) -> tuple[dict[str, Any], str | None]:
    """(case.json as a dict, input.txt as text) of a reproducer folder; ({}, None) when unreadable."""
    if not isinstance(folder, str) or not folder:
        return {}, None
    path = Path(folder)
    if path.is_symlink():
        return {}, None
    try:
        meta = json.loads(_read(path / "case.json") or "null")
    except ValueError:
        meta = None
    return (meta if isinstance(meta, dict) else {}), _read(path / "input.txt")


def _actual(value: object) -> dict[str, Any]:
    """The run's answer as {exit_code, ended, stdout, stderr, wall_s, cpu_s}, from either spelling
    (the group record's, or case.json's ``seconds``/``cpu_seconds``); wrong types dropped. ``ended``
    says how the call ended, in words (``ended``): a hang was killed by fuzz, not by itself."""
    if not isinstance(value, dict):
        return {}
    out = {"exit_code": value.get("exit_code"), "ended": value.get("ended"), "stdout": value.get("stdout"),
           "stderr": value.get("stderr"), "wall_s": value.get("wall_s", value.get("seconds")),
           "cpu_s": value.get("cpu_s", value.get("cpu_seconds"))}
    kinds: dict[str, type | tuple[type, ...]] = {"exit_code": int, "ended": str, "stdout": str, "stderr": str,
                                                 "wall_s": (int, float), "cpu_s": (int, float)}
    found: dict[str, Any] = {k: v for k, v in out.items() if isinstance(v, kinds[k]) and not isinstance(v, bool)}
    if "ended" not in found and "exit_code" in found:  # a record from before ``ended``
        found["ended"] = ended(found["exit_code"], hang=value.get("timed_out") is True)
    return found


def ended(exit_code: int, *, hang: bool = False) -> str:
    """How a call ended, from its exit code alone (records written before ``ended``): a hang was
    killed by fuzz; a negative code is a signal."""
    if hang:
        return "killed by fuzz (hang)"
    return f"killed by signal {-exit_code}" if exit_code < 0 else f"exit {exit_code}"


def _mark(value: object) -> dict[str, int] | None:
    if isinstance(value, dict) and all(isinstance(v, int) and v >= 1 for v in value.values()) and (
            set(value) in ({"row", "column"}, {"line"}, {"line", "column"})):
        return value
    return None


def bug_of(record: object) -> Bug:
    """A group record filled for showing: its own fields first, then its folder's, then guesses."""
    record = record if isinstance(record, dict) else {}
    meta: dict[str, Any]
    input_text: str | None
    meta, input_text = ({}, None)
    if not all(key in record for key in ("text", "expected", "actual")):
        meta, input_text = folder_meta(record.get("folder"))
    text = record.get("text")
    if not isinstance(text, str):
        text = input_text if input_text is not None else str(record.get("input") or "")
    expected = record.get("expected", meta.get("expected"))
    families = record.get("families") or ([meta["family"]] if isinstance(meta.get("family"), str) else [])
    side = record.get("side", meta.get("side"))
    return Bug(record=record, text=text, expected=expected if isinstance(expected, str) else "",
               actual=_actual(record.get("actual", meta.get("actual"))),
               mark=_mark(record["mark"]) if "mark" in record else _mark(meta.get("mark")) if "mark" in meta
               else mark_in(record.get("detail")),
               families=[str(f) for f in families] if isinstance(families, list) else [],
               side=side if isinstance(side, int) and not isinstance(side, bool) else None)


def expected_parts(expected: str) -> tuple[str, str]:
    """(caption, block): 'exit 0 and the unique solution:' over the grid; a one-line expectation
    has no block."""
    caption, _, block = (expected or "").partition("\n")
    return caption, block


def by_status(bugs: Sequence[Bug]) -> dict[str, list[Bug]]:
    """``bugs`` by status (``STATUSES``, bugs first), each in its order: the reports show the slow
    answers and the unconfirmed failures apart from the bugs, and count only the bugs."""
    found: dict[str, list[Bug]] = {status: [] for status in STATUSES}
    for bug in bugs:
        found[bug.status].append(bug)
    return found

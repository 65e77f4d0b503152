"""Feedback a student can read, from a fuzz run of a class (``reports feedback RUN --out DIR``).

Each target of the run (a **submission**) gets a folder of its own, ``DIR/<folder>/``:

- ``feedback.md`` and ``feedback.html``: its bugs, each drawn by the blocks ``reports show`` draws
  (``render.md.bug_md``, ``render.html.bug_html``: the minimal input, what was expected, what came,
  and the replay line), then its format slips apart from the bugs, then its notes;
- ``bugs/N/``: each bug's reproducer (input.txt, case.json, output.txt) copied from the run's corpus,
  so the replay line on the page runs in that folder, against the student's own program;
- ``results.json`` and ``junit.xml``: the grade (``reports.grades``).

Nothing in a folder is about another submission: no matrix, no differential check, no other
target's name or path. ``DIR/index.md`` (for staff, not students) says which folder is whose.
"""

from __future__ import annotations

import os
import shlex
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jobs.schema import FORMAT_SLIPS as SLIPS  # what a format slip means, for a student
from reports import ReportError, WriteFailed
from reports.bugs import HEADINGS, KINDS, MAX_READ, MEANINGS, Bug, bug_of, by_status
from sudoku.display import counted, short_name

if TYPE_CHECKING:
    from reports.grades import Line, Scored
    from reports.load import Run

CONTRACT_PAGE = ("Your program was tested with the arguments your course gave (a dialect of the contract), "
                 "and it does not understand the contract's own `create` and `solve` (not counted as a bug here):")
OWN_NOTES = ("slow", "strict_input", "left_processes")  # notes about the program alone (differs, oracle_doubted compare it to others)


@dataclass
class Submission:
    """One target of the run, with only what is its own."""

    target: str
    folder: str
    status: str              # 'ok', 'failed' or 'cannot start'
    why: str = ""            # why it could not start
    cases: int = 0
    failed: int = 0
    bugs: list[Bug] = field(default_factory=list)       # reports.bugs.Bug (bugs, then slow, then unconfirmed)
    slips: dict[str, int] = field(default_factory=dict)      # slip -> cases
    slip_families: dict[str, list[str]] = field(default_factory=dict)  # slip -> [families]
    notes: dict[str, int] = field(default_factory=dict)      # note -> cases
    said: list[dict[str, object]] = field(default_factory=list)  # what it printed to the pre-flight (``said_of``)
    contract: list[str] = field(default_factory=list)  # each call of the contract's own spelling it failed, in a line
    contract_help: str = ""  # what the contract asks of those calls (fuzz.wording, through the manifest)
    solved: bool = True      # some case asking for an answer (a puzzle to solve, a grid to check) passed

    @property
    def started(self) -> bool:
        return self.status != "cannot start"

    @property
    def real_bugs(self) -> list[Bug]:
        """The bugs alone: not the slow answers nor the unconfirmed failures."""
        return [bug for bug in self.bugs if bug.status == "bug"]

    def apart(self) -> list[tuple[str, list[tuple[int, Bug]]]]:
        """(status, [(number on the page, Bug)]) of the findings that are not bugs, slow then unconfirmed."""
        numbered = list(enumerate(self.bugs, 1))
        return [(status, [(n, bug) for n, bug in numbered if bug.status == status]) for status in MEANINGS
                if any(bug.status == status for bug in self.bugs)]


def folder_name(target: str, taken: set[str]) -> str:
    """A folder for a target: its program's folder and file names (what tells submissions apart in a
    class: ``alice/sudoku``), made safe, and a number when two are alike (``sudoku.display.short_name``,
    as ``fuzz`` names it in its summary and corpus)."""
    return short_name(target, taken)


def submissions(run: Run) -> list[Submission]:
    """The run's submissions in its order (a ``reports.load.Run`` of a fuzz run)."""
    manifest = run.manifest
    if manifest.get("config", {}).get("kind") != "fuzz" and "fuzz" not in manifest:
        raise ReportError(f"{run.path}: not a fuzz run (feedback is made from `fuzz run` directories)")
    rows = (manifest.get("fuzz") or {}).get("targets")
    if not isinstance(rows, list) or not rows:
        names = [str(t) for t in run.records["target"].dropna().unique()] if "target" in run.records else []
        rows = [{"target": name, "status": "?"} for name in names]
    groups = [g for g in (manifest.get("fuzz") or {}).get("groups") or [] if isinstance(g, dict)]
    taken: set[str]
    taken, out = set(), []
    for row in rows:
        if not isinstance(row, dict) or not isinstance(row.get("target"), str):
            continue
        name = row["target"]
        mine = run.records[run.records["target"] == name] if "target" in run.records else run.records.iloc[:0]
        one = Submission(target=name, folder=folder_name(name, taken), status=str(row.get("status", "?")),
                         why=str(row.get("detail", "")), cases=len(mine),
                         failed=int((mine["outcome"] == "failed").sum()) if len(mine) else 0)
        one.said = _said(row.get("said"))
        one.contract = [str(call["line"]) for call in row.get("contract") or [] if isinstance(call, dict)
                        and isinstance(call.get("line"), str)] if isinstance(row.get("contract"), list) else []
        one.contract_help = str(row.get("contract_help") or "") if one.contract else ""
        one.solved = solved_any(mine)
        # bugs first, then slow answers and unconfirmed failures: the page's numbers and bugs/N/ follow this order
        one.bugs = [bug for found in by_status([bug_of(g) for g in groups if g.get("target") == name]).values()
                    for bug in found]
        for slips, family in zip(mine.get("format_slips", []), mine.get("family", [])):
            for slip in (slips or "").split(",") if isinstance(slips, str) else []:
                one.slips[slip] = one.slips.get(slip, 0) + 1
                families = one.slip_families.setdefault(slip, [])
                if family not in families:
                    families.append(family)
        one.slip_families = {slip: sorted(families) for slip, families in one.slip_families.items()}
        notes = Counter(n for value in mine.get("notes", []) if isinstance(value, str) for n in value.split(","))
        one.notes = {note: count for note, count in notes.items() if note in OWN_NOTES}
        out.append(one)
    if not out:
        raise ReportError(f"{run.path}: no targets in the run's manifest")
    return out


def solved_any(records: Any) -> bool:
    """Whether a target's records (a DataFrame) hold a passed case that asked for an answer: a puzzle
    with a solution, or (``--mode check``) a grid to judge. A refusal is worth points only beside one
    (``grades.score``)."""
    if not len(records) or "outcome" not in records:
        return False
    passed = records[records["outcome"] == "ok"]
    if "solutions" in passed and bool((passed["solutions"].fillna(0) >= 1).any()):
        return True
    return "family" in passed and any(str(family).startswith("check_") for family in passed["family"])


def _said(value: object) -> list[dict[str, object]]:
    """What a target that could not start printed to each pre-flight call, as the manifest's row
    holds it (fuzz.engine.said_of): the calls of the right shape, the rest dropped (a manifest is
    untrusted input)."""
    calls = value if isinstance(value, list) else []
    return [{"call": one["call"], "exit_code": one.get("exit_code"), "stdout": one.get("stdout") or "",
             "stderr": one.get("stderr") or ""} for one in calls[:4]
            if isinstance(one, dict) and isinstance(one.get("call"), str)
            and all(isinstance(one.get(key, ""), str) for key in ("stdout", "stderr"))]


def _said_title(one: dict[str, object]) -> str:
    asked = {"solve": "asked to solve a known-good puzzle", "create": "asked to create a puzzle"}
    return f"{asked.get(str(one['call']), str(one['call']))}: exit {one.get('exit_code', '?')}"


def said_md(one: Submission) -> list[str]:
    """What a program that could not start printed, call by call, as output (code blocks: nothing in
    them is read as a place in any input)."""
    from reports.render.md import excerpt_md
    from reports.text import cell

    lines: list[str] = []
    for call in one.said:
        lines += [f"{cell(_said_title(call))}, stdout:", "", excerpt_md(str(call["stdout"])), "", "stderr:", "",
                  excerpt_md(str(call["stderr"])), ""]
    return lines


def said_html(one: Submission) -> list[str]:
    """``said_md`` in HTML: each call's stdout and stderr in a ``pre`` block, nothing marked."""
    from reports.render.html import escape, excerpt_html

    return [f"<p>{escape(_said_title(call))}, stdout:</p>{excerpt_html(str(call['stdout']))[0]}"
            f"<p>stderr:</p>{excerpt_html(str(call['stderr']))[0]}" for call in one.said]


def _reproducer(run_path: str | os.PathLike[str], folder: object) -> Path | None:
    """The run's reproducer folder a group record names, found only under the run's own corpus and not
    through a link (a manifest is untrusted: an absolute folder it names elsewhere is not copied into a
    student's page), or None."""
    from sudoku.files import NotWritable, check_inside

    if not isinstance(folder, str) or not folder:
        return None
    parts = Path(folder).parts
    if "corpus" not in parts:
        return None
    own = Path(run_path, *parts[len(parts) - parts[::-1].index("corpus") - 1:])
    try:
        check_inside(own, run_path)
    except NotWritable:
        return None
    return own if own.is_dir() and not own.is_symlink() else None


def copy_reproducer(run_path: str | os.PathLike[str], bug: Bug, into: Path, *, within: Path | None = None) -> None:
    """Copy a bug's reproducer into ``into`` (never through a link, read or written, each file at most
    MAX_READ bytes; the input from the record when the folder is gone), and point its replay line
    there. ``within``: the feedback folder ``into`` belongs to (``sudoku.files.write_file``)."""
    from sudoku.files import NotReadable, make_folders, read_small, write_file

    make_folders(into, within=within)
    source = _reproducer(run_path, bug.get("folder"))
    copied = False
    for name in ("input.txt", "output.txt", "case.json"):
        try:
            data = read_small(source / name, MAX_READ) if source else None
        except NotReadable:  # a link, a FIFO, a folder or too big: not copied
            data = None
        if data is not None:
            write_file(into / name, data, within=within)
            copied = copied or name == "case.json"
    if not (into / "input.txt").exists():
        write_file(into / "input.txt", bug.text, within=within)
    replay = str(bug.get("replay", ""))
    folder = str(bug.get("folder", ""))
    if copied and folder:
        local = f"bugs/{into.name}"
        for spelling in (shlex.quote(folder), folder):
            if spelling in replay:
                replay = replay.replace(spelling, local, 1)
                break
    bug.record = {**bug.record, "replay": replay}


def slips_md(one: Submission, cell: Callable[[object], str]) -> list[str]:
    if not one.slips:
        return []
    lines = ["## Format slips (not bugs)", "",
             "Your answers were right here, but not in the exact text the contract asks for (9 lines of 9 "
             "numbers with single spaces, nothing else on stdout). A grader reading the text strictly would "
             "count them wrong.", "", "| slip | what it means | cases | seen on |", "|---|---|---:|---|"]
    lines += [f"| {cell(slip)} | {cell(SLIPS.get(slip, 'not the contract text'))} | {count} | "
              f"{cell(', '.join(one.slip_families.get(slip, [])))} |" for slip, count in one.slips.items()]
    return lines + [""]


NOTES = {"slow": "answered, but used more than half the time limit in CPU time",
         "strict_input": "rejected valid but unusual whitespace (CRLF, tabs, extra spaces) cleanly: allowed",
         "left_processes": "answered, and left a process running (a daemon or a background child): the "
                           "harness killed it"}


def page_md(one: Submission, scored: Sequence[Scored], run: Run) -> str:
    """The student's page in Markdown."""
    from reports.grades import lost_to
    from reports.render.md import bug_md
    from reports.text import cell, code

    config = run.manifest.get("config") or {}
    total, most = sum(s.score for s in scored), sum(s.line.points for s in scored)
    lines = [f"# Feedback on your `sudoku`", "", f"- program: {code(one.target)}",
             f"- tested with `fuzz` (run {cell(run.name)}, seed {cell(config.get('seed', '?'))}): "
             f"{one.cases} cases, {one.failed} failed, {counted(len(one.real_bugs), 'distinct bug')}"
             + "".join(f", {counted(len(these), KINDS[status])}" for status, these in one.apart()),
             f"- grade: {total:g} of {most:g} points (results.json)", ""]
    if not one.started:
        lines += ["Your program did not start, so nothing was tested:", "", f"> {cell(one.why)}", ""] + said_md(one)
    if one.real_bugs:
        lines += [f"## Bugs ({len(one.real_bugs)})", "",
                  "Each bug is shown once, on the smallest input that shows it. Its files are in `bugs/N/` beside "
                  "this page; in this folder, the replay line runs the case against your program again (change "
                  "`--target` if your program is elsewhere now), or by hand: `cd bugs/N`, then your program "
                  "with `< input.txt`.", ""]
        for number, bug in enumerate(one.real_bugs, 1):
            lines += bug_md(number, bug)
    elif one.started:
        lines += ["## Bugs", "", "No bug found in these cases.", ""]
    if one.contract:
        lines += ["## The contract's own spelling", "", CONTRACT_PAGE, ""] + [f"- {cell(line)}" for line in one.contract]
        lines += ["", f"Look at: {cell(one.contract_help)}", ""] if one.contract_help else [""]
    for status, these in one.apart():
        lines += [f"## {HEADINGS[status]} ({len(these)})", "", f"{MEANINGS[status].capitalize()}.", ""]
        for number, bug in these:
            lines += bug_md(number, bug)
    lines += slips_md(one, cell)
    if one.notes:
        lines += ["## Notes (not failures)", ""] + [f"- {cell(note)}: {counted(count, 'case')} "
                                                    f"({cell(NOTES.get(note, ''))})" for note, count in one.notes.items()]
        lines.append("")
    lines += ["## Grade", "", "| test | score | of | lost to |", "|---|---:|---:|---|"]
    lines += [f"| {cell(s.line.name)} | {s.score:g} | {s.line.points:g} | {cell(lost_to(s))} |" for s in scored]
    return "\n".join(lines) + "\n"


def page_html(one: Submission, scored: Sequence[Scored], run: Run) -> str:
    """The student's page in HTML: the same sections, the bugs drawn by ``render.html.bug_html``."""
    from reports.grades import lost_to
    from reports.render.html import _page, bug_html, escape, table

    config = run.manifest.get("config") or {}
    total, most = sum(s.score for s in scored), sum(s.line.points for s in scored)
    body = ["<h1>Feedback on your <code>sudoku</code></h1>",
            f"<p>program: <code>{escape(one.target)}</code><br/>tested with <code>fuzz</code> (run "
            f"{escape(run.name)}, seed {escape(str(config.get('seed', '?')))}): {one.cases} cases, {one.failed} "
            f"failed, {counted(len(one.real_bugs), 'distinct bug')}"
            + "".join(f", {counted(len(these), KINDS[status])}" for status, these in one.apart())
            + f"<br/>grade: {total:g} of {most:g} points</p>"]
    if not one.started:
        body += [f"<p>Your program did not start, so nothing was tested: {escape(one.why)}</p>", *said_html(one)]
    if one.real_bugs:
        body += [f"<h2>Bugs ({len(one.real_bugs)})</h2>",
                 "<p>Each bug on the smallest input that shows it; its files are in <code>bugs/N/</code> beside "
                 "this page, and the replay line runs it again in this folder.</p>"]
        body += [bug_html(number, bug) for number, bug in enumerate(one.real_bugs, 1)]
    elif one.started:
        body += ["<h2>Bugs</h2>", "<p>No bug found in these cases.</p>"]
    if one.contract:
        body += ["<h2>The contract's own spelling</h2>", f"<p>{escape(CONTRACT_PAGE)}</p>",
                 "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in one.contract) + "</ul>"]
        body += [f"<p>Look at: {escape(one.contract_help)}</p>"] if one.contract_help else []
    for status, these in one.apart():
        body += [f"<h2>{escape(HEADINGS[status])} ({len(these)})</h2>", f"<p>{escape(MEANINGS[status].capitalize())}.</p>"]
        body += [bug_html(number, bug) for number, bug in these]
    if one.slips:
        body += ["<h2>Format slips (not bugs)</h2>",
                 "<p>Right answers, but not in the exact text the contract asks for.</p>",
                 table(["slip", "what it means", "cases", "seen on"],
                       [[slip, SLIPS.get(slip, ""), count, ", ".join(one.slip_families.get(slip, []))]
                        for slip, count in one.slips.items()], numeric=(2,))]
    if one.notes:
        body += ["<h2>Notes (not failures)</h2>",
                 table(["note", "cases", "meaning"], [[n, c, NOTES.get(n, "")] for n, c in one.notes.items()],
                       numeric=(1,))]
    body += ["<h2>Grade</h2>", table(["test", "score", "of", "lost to"],
                                     [[s.line.name, f"{s.score:g}", f"{s.line.points:g}", lost_to(s)] for s in scored],
                                     numeric=(1, 2))]
    return _page("Feedback on your sudoku", body)


def write_feedback(run: Run, out: str | os.PathLike[str], *, rules: Sequence[Line],
                   leaderboard: Sequence[str] = ()) -> list[tuple[Submission, float, float]]:
    """Every submission's folder under ``out``, scored by ``rules`` (``grades.read_rules``), and
    ``out/index.md``; [(Submission, score, max)]. Its results.json holds the page, as Gradescope shows
    nothing else to the student, and the ``leaderboard`` columns (``grades.read_leaderboard``)."""
    from reports import grades
    from reports.text import cell, code

    from sudoku.files import check_inside, make_folders, write_file

    lines = rules
    out = Path(out)
    # The default, RUN/feedback, is inside the run: no link planted there is written through. An --out
    # of the user's own may be a link the user made; nothing under it may be.
    if out.parent == run.path:
        check_inside(out, run.path)
    made = []
    try:
        make_folders(out)
        for one in submissions(run):
            folder = out / one.folder
            make_folders(folder, within=out)
            for number, bug in enumerate(one.bugs, 1):
                copy_reproducer(run.path, bug, folder / "bugs" / str(number), within=out)
            scored = grades.score(lines, one.bugs, one.slips, started=one.started, solved=one.solved)
            page = page_md(one, scored, run)
            board = grades.leaderboard_entries(leaderboard, score=sum(s.score for s in scored), bugs=len(one.real_bugs),
                                               failed=one.failed) if one.started else []
            write_file(folder / "feedback.md", page, within=out)
            write_file(folder / "feedback.html", page_html(one, scored, run), within=out)
            write_file(folder / "results.json", grades.results_json(scored, started=one.started, why=one.why,
                                                                    summary=page, markdown=True, leaderboard=board),
                       within=out)
            write_file(folder / "junit.xml", grades.junit_xml(scored, started=one.started, why=one.why), within=out)
            made.append((one, sum(s.score for s in scored), sum(s.line.points for s in scored)))
        index = ["# Feedback folders (for staff: each folder is one student's)", "",
                 "| folder | target | status | bugs | score |", "|---|---|---|---:|---:|"]
        index += [f"| {code(one.folder)} | {code(one.target)} | {cell(one.status)} | {len(one.real_bugs)} | "
                  f"{got:g} / {most:g} |" for one, got, most in made]
        write_file(out / "index.md", "\n".join(index) + "\n", within=out)
    except OSError as error:
        raise WriteFailed(f"cannot write {error.filename or out}: {error.strerror or error}") from None
    return made
